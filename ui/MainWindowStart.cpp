// The main window's welcome: the start page, the first-run layout, the guided tour, Help's documentation and
// keyboard shortcuts, and files handed over by a later tpu-studio.
#include "ui/MainWindow.h"

#include "ui/DocumentationBrowser.h"
#include "ui/ExampleProject.h"
#include "ui/GuidedTour.h"
#include "ui/LlmImportDialog.h"
#include "ui/Settings.h"
#include "ui/ShortcutsDialog.h"
#include "ui/StartPage.h"

#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QStackedWidget>
#include <QStyle>
#include <QTabWidget>

namespace tpuc::ui {

void MainWindow::createStartPage() {
  m_startPage = new StartPage(this);
  m_central = new QStackedWidget(this);
  m_central->addWidget(m_startPage);
  m_central->addWidget(m_tabs);
  setCentralWidget(m_central);
  connect(m_startPage, &StartPage::openRecentRequested, this, [this](const QString &path) {
    if (maybeSave())
      openProjectFile(path);
  });
  connect(m_startPage, &StartPage::openExampleRequested, this, &MainWindow::openExample);
  connect(m_startPage, &StartPage::importModelRequested, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Import Model"), settings::lastDirectory(),
                                                      tr("Models (*.onnx *.mlir);;All files (*)"));
    if (!path.isEmpty())
      openImportDialog(path);
  });
  connect(m_startPage, &StartPage::importHfFolderRequested, this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Import HuggingFace Model Folder"),
                                                             settings::lastDirectory());
    if (!folder.isEmpty())
      openLlmImportDialog(folder);
  });
  connect(m_startPage, &StartPage::openProjectRequested, this, &MainWindow::open);
  m_startPage->dropTarget()->setAcceptor(&MainWindow::canOpenUrls);
  connect(m_startPage, &StartPage::urlsDropped, this, &MainWindow::openUrls);
  connect(m_startPage, &StartPage::recentFilesChanged, this, &MainWindow::updateRecentMenu);

  // The closing project's look, before its tabs go and before the start page lists it.
  connect(m_context, &StudioContext::projectClosed, this, [this] { saveRecentThumbnail(m_shownFile, this); });
  // Shown while there is nothing to look at: an untitled, unchanged project without a model, and no tab
  // opened on something else (an MLIR graph).
  for (auto signal : {&StudioContext::projectLoaded, &StudioContext::projectClosed})
    connect(m_context, signal, this, &MainWindow::updateStartPage);
  connect(m_context, &StudioContext::projectChanged, this, &MainWindow::updateStartPage);
  connect(m_context, &StudioContext::modifiedChanged, this, &MainWindow::updateStartPage);
  connect(m_context, &StudioContext::filePathChanged, this, &MainWindow::updateStartPage);
  connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::updateStartPage);
  updateStartPage();
}

void MainWindow::updateStartPage() {
  const bool empty = m_context->filePath().isEmpty() && !m_context->isModified() &&
                     m_context->project().model.path.empty() && m_context->project().datasets.empty() &&
                     m_tabs->count() <= 1;
  if (empty && m_central->currentWidget() != m_startPage)
    m_startPage->refresh(); // dates and pictures of the project just closed
  m_central->setCurrentWidget(empty ? static_cast<QWidget *>(m_startPage) : m_tabs);
}

bool MainWindow::startPageShown() const { return m_central->currentWidget() == m_startPage; }

void MainWindow::restoreWindowLayout() {
  if (!restoreGeometry(settings::windowGeometry())) {
    // The first start: 80 % of the screen's free area, centred (a size from the screen, not from pixels).
    if (QScreen *screen = QGuiApplication::primaryScreen()) {
      const QRect free = screen->availableGeometry();
      setGeometry(QStyle::alignedRect(Qt::LeftToRight, Qt::AlignCenter, free.size() * 4 / 5, free));
    }
  }
  restoreState(settings::windowState());
}

void MainWindow::createHelpActions(QMenu *help) {
  help->setToolTipsVisible(true);
  QAction *tour = help->addAction(tr("Guided &Tour"), this, [this] { startTour(); });
  tour->setToolTip(tr("A short walk through the studio's panels"));
  QAction *docs = help->addAction(tr("&Documentation"), QKeySequence::HelpContents, this,
                                  [this] { openDocumentation(); });
  docs->setToolTip(tr("The README and the guides to every view, the compiler, accuracy and LLMs"));
  help->addAction(tr("&Keyboard Shortcuts"), QKeySequence(Qt::CTRL | Qt::Key_Slash), this,
                  [this] { ShortcutsDialog(menuBar(), this).exec(); });
  help->addSeparator();
}

DocumentationBrowser *MainWindow::openDocumentation(const QString &file) {
  if (!m_docs) {
    m_docs = new DocumentationBrowser(documentationFiles(), this);
    m_docs->setWindowFlag(Qt::Window);
    m_docs->setAttribute(Qt::WA_DeleteOnClose);
    // Beside the studio, not over all of it.
    m_docs->resize(std::min(width(), 1100), std::min(height(), 820));
  }
  if (!file.isEmpty())
    for (const QString &doc : documentationFiles())
      if (QFileInfo(doc).fileName() == file)
        m_docs->showDocument(doc);
  m_docs->show();
  m_docs->raise();
  m_docs->activateWindow();
  return m_docs;
}

bool MainWindow::openExample() {
  // An installed example is copied where the user can write the first time (openableExampleProject).
  const ExampleProject found = openableExampleProject();
  const QString example = found.path;
  if (example.isEmpty()) {
    showError(tr("No Example Project"), found.error);
    return false;
  }
  if (QFileInfo(m_context->filePath()) == QFileInfo(example))
    return true;
  if (!maybeSave())
    return false;
  return openProjectFile(example);
}

bool MainWindow::openForwarded(const QString &path) {
  if (isMinimized())
    showNormal();
  show();
  raise();
  activateWindow();
  if (path.isEmpty())
    return true;
  if (QFileInfo(m_context->filePath()) == QFileInfo(path))
    return true;
  if (!QFileInfo::exists(path)) {
    showError(tr("Cannot Open"), tr("%1 does not exist.").arg(path));
    return false;
  }
  const QString before = m_context->filePath();
  openUrls({QUrl::fromLocalFile(path)});
  m_context->log(LogLevel::Info, tr("Handed over by another tpu-studio: %1").arg(path));
  return m_context->filePath() != before || !path.endsWith(QLatin1String(".tpuproj"));
}

GuidedTour *MainWindow::startTour() {
  settings::setTourOffered(true);
  auto dock = [this](const char *name) -> std::function<QWidget *()> {
    return [this, name] { return findChild<QDockWidget *>(QLatin1String(name)); };
  };
  std::vector<TourStep> steps{
      {dock("ProjectDock"), tr("The project"),
       tr("Everything a project holds: the model, calibration datasets, calibration and quantize tables, "
          "compile "
          "configurations and every run. Double-click an item to open it in the middle.")},
      {[this] { return static_cast<QWidget *>(m_central); }, tr("Graphs and views"),
       tr("Opened items show here as tabs: the model's graph (View ▸ Graph of Top IR, Ctrl+G, after Run ▸ "
          "Transform), datasets, tables, and a deploy's chip views: layer groups, memory and engine "
          "timelines.")},
      {[this] { return static_cast<QWidget *>(m_central); }, tr("Accuracy"),
       tr("Run ▸ Deploy to Tpu (F8) compares every layer with the float model. The accuracy view shows where "
          "error is born; keep those layers in float and deploy again, then compare the runs.")},
      {dock("PropertiesDock"), tr("Properties"),
       tr("Details of the selected item, and its editors: import settings (shapes, mean and scale), notes "
          "and "
          "compile configurations (chip, precision, test input).")},
      {dock("JobsDock"), tr("Jobs"),
       tr("Transform, calibrate, deploy and simulate run as jobs outside the studio, one after another: "
          "their "
          "progress, output and a Cancel button. Each finished job becomes a run of the project.")},
      {dock("LogDock"), tr("Log"),
       tr("What happened and what went wrong, with the files every job produced. Help ▸ Keyboard Shortcuts "
          "lists "
          "the shortcuts; Help ▸ Guided Tour shows this again.")},
  };
  for (auto *old : findChildren<GuidedTour *>())
    old->close();
  return new GuidedTour(this, std::move(steps));
}

GuidedTour *MainWindow::offerTourOnce() {
  if (settings::tourOffered())
    return nullptr;
  return startTour();
}

} // namespace tpuc::ui
