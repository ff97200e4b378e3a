// The main window's graph tabs: any MLIR file, or the project's Top IR.
#include "ui/MainWindow.h"

#include "project/ProjectStore.h"
#include "ui/Settings.h"
#include "ui/views/GraphViewTab.h"

#include <QFileInfo>
#include <QTabWidget>

namespace tpuc::ui {

GraphViewTab *MainWindow::openGraph(const QString &mlirPath) {
  QString path = QFileInfo(mlirPath).absoluteFilePath();
  for (int i = 1; i < m_tabs->count(); ++i)
    if (auto *tab = qobject_cast<GraphViewTab *>(m_tabs->widget(i)); tab && tab->mlirPath() == path) {
      m_tabs->setCurrentIndex(i);
      return tab;
    }
  auto *tab = new GraphViewTab(m_context, path, m_tabs);
  connect(tab, &GraphViewTab::tensorsRequested, this, &MainWindow::openTensors);
  connect(tab, &GraphViewTab::redeployRequested, this,
          [this](qint64 configId) { redeployAndCompare(configId); });
  int index = m_tabs->addTab(tab, tr("Graph: %1").arg(QFileInfo(path).fileName()));
  m_tabs->setTabToolTip(index, path);
  m_tabs->setCurrentIndex(index);
  settings::setLastDirectory(QFileInfo(path).absolutePath());
  return tab;
}

GraphViewTab *MainWindow::openTopGraph() {
  const project::Project &p = m_context->project();
  QString model = QString::fromStdString(p.model.path);
  if (model.isEmpty()) {
    showError(tr("No Graph Yet"), tr("The project has no model yet: use File ▸ Import Model first."));
    return nullptr;
  }
  // An MLIR model is its own Top IR; otherwise Run ▸ Transform writes it into the cache folder.
  if (model.endsWith(QLatin1String(".mlir"), Qt::CaseInsensitive))
    return openGraph(model);
  QString top;
  if (!m_context->filePath().isEmpty())
    top = QString::fromStdString(project::cacheDirFor(m_context->filePath().toStdString()).string()) +
          QLatin1Char('/') + QFileInfo(model).completeBaseName() + QStringLiteral(".top.mlir");
  if (top.isEmpty() || !QFileInfo::exists(top)) {
    showError(tr("No Graph Yet"), tr("There is no Top IR of this model yet: use Run ▸ Transform Model first."));
    return nullptr;
  }
  return openGraph(top);
}

} // namespace tpuc::ui
