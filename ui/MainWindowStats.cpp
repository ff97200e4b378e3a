// The main window's activation statistics: the report of a calibration table or of a calibrate run.
#include "ui/MainWindow.h"

#include "ui/views/ActivationStatsView.h"

#include <QMessageBox>
#include <QTabWidget>

namespace tpuc::ui {

ActivationStatsView *MainWindow::openActivationStats(qint64 tableId) {
  const project::Project &p = m_context->project();
  if (tableId < 0 && m_context->selection().section == Section::CaliTables)
    tableId = m_context->selection().id;
  for (auto it = p.caliTables.rbegin(); tableId < 0 && it != p.caliTables.rend(); ++it)
    if (!calibrationReportOfTable(*m_context, it->id).isEmpty())
      tableId = it->id;
  const project::CaliTable *table = nullptr;
  for (const project::CaliTable &t : p.caliTables)
    if (t.id == tableId)
      table = &t;
  const QString folder = table ? calibrationReportOfTable(*m_context, tableId) : QString();
  if (folder.isEmpty()) {
    const QString hint = table ? tr("Calibration table '%1' v%2 has no activation statistics: a table "
                                    "imported from a file has none, "
                                    "and a report deleted with the cache folder is gone. Calibrate again "
                                    "(Run ▸ Calibrate) to get them.")
                                     .arg(QString::fromStdString(table->name))
                                     .arg(table->version)
                               : tr("No calibration table has activation statistics yet: calibrate (Run ▸ "
                                    "Calibrate) to get them.");
    m_context->log(LogLevel::Info, hint);
    if (m_interactive)
      QMessageBox::information(this, tr("No Activation Statistics"), hint);
    return nullptr;
  }
  return openActivationStatsFolder(
      folder, tableId, tr("Statistics: %1 v%2").arg(QString::fromStdString(table->name)).arg(table->version));
}

ActivationStatsView *MainWindow::openActivationStatsFolder(const QString &folder, qint64 tableId,
                                                           const QString &title) {
  for (int i = 0; i < m_tabs->count(); ++i)
    if (auto *view = qobject_cast<ActivationStatsView *>(m_tabs->widget(i));
        view && view->folder() == folder) {
      m_tabs->setCurrentIndex(i);
      return view;
    }
  auto *view = new ActivationStatsView(m_context, folder, tableId, m_tabs);
  m_tabs->setCurrentIndex(m_tabs->addTab(view, title));
  return view;
}

} // namespace tpuc::ui
