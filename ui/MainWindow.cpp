// The studio's main window.
#include "ui/MainWindow.h"
#include "tpuc/Driver/Chips.h"

#include "ui/AboutDialog.h"
#include "ui/Autosave.h"
#include "ui/LlmImportDialog.h"
#include "ui/PipelineDialog.h"
#include "ui/SampleImport.h"
#include "ui/Settings.h"
#include "ui/StartPage.h"
#include "ui/jobs/EngineClient.h"
#include "ui/jobs/JobMarkers.h"
#include "ui/jobs/JobQueue.h"
#include "ui/panels/JobsPanel.h"
#include "ui/panels/LogPanel.h"
#include "ui/panels/ProjectExplorer.h"
#include "ui/panels/PropertiesPanel.h"
#include "ui/views/AccuracyView.h"
#include "ui/views/ActivationStatsView.h"
#include "ui/views/ChipViewsTab.h"
#include "ui/views/DatasetView.h"
#include "ui/views/OverviewView.h"
#include "ui/views/PassInspectorView.h"

#include <QJsonDocument>
#include <QJsonObject>
#include "ui/views/TableView.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QScreen>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>
#include <QUndoStack>

namespace tpuc::ui {

namespace {

QString projectFilter() { return QObject::tr("TPU Studio projects (*.tpuproj)"); }
QString modelFilter() { return QObject::tr("Models (*.onnx *.mlir);;All files (*)"); }

bool isProjectFile(const QString &path) { return path.endsWith(QLatin1String(".tpuproj"), Qt::CaseInsensitive); }
bool isSample(const QString &path) { return isSampleFile(path); }
bool isModelFile(const QString &path) {
  return path.endsWith(QLatin1String(".onnx"), Qt::CaseInsensitive) ||
         path.endsWith(QLatin1String(".mlir"), Qt::CaseInsensitive);
}

} // namespace

MainWindow::MainWindow(StudioContext *context, QWidget *parent)
    : QMainWindow(parent), m_context(context), m_engine(new EngineClient(this)), m_jobs(m_engine->queue()),
      m_autosave(new AutosaveController(context, this)), m_tabs(new QTabWidget(this)) {
  setObjectName(QStringLiteral("MainWindow"));
  setAcceptDrops(true);
  setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);

  m_tabs->setDocumentMode(true);
  m_tabs->setTabsClosable(true);
  m_tabs->setMovable(true);
  auto *overview = new OverviewView(context, m_tabs);
  connect(overview, &OverviewView::chatRequested, this, [this] { openLlmChat(); });
  connect(overview, &OverviewView::pipelineRequested, this, [this] { runWholePipeline(); });
  m_tabs->addTab(overview, tr("Overview"));
  m_tabs->tabBar()->setTabButton(0, QTabBar::RightSide, nullptr); // the overview always stays
  m_tabs->tabBar()->setTabButton(0, QTabBar::LeftSide, nullptr);
  connect(m_tabs, &QTabWidget::tabCloseRequested, this, [this](int index) {
    if (index > 0)
      delete m_tabs->widget(index);
  });
  createStartPage(); // the central widget: the start page or the tabs

  createDocks();
  createActions();
  createStatusBar();

  connect(context, &StudioContext::modifiedChanged, this, &MainWindow::updateTitle);
  connect(context, &StudioContext::filePathChanged, this, &MainWindow::updateTitle);
  connect(context, &StudioContext::filePathChanged, this,
          [this](const QString &path) { m_shownFile = path; });
  connect(context, &StudioContext::activated, this, &MainWindow::openTab);
  connect(context, &StudioContext::projectLoaded, this, [this] { ++m_projectGeneration; });
  connect(context, &StudioContext::projectClosed, this, [this] {
    ++m_projectGeneration;
    while (m_tabs->count() > 1)
      delete m_tabs->widget(1);
  });
  connect(m_autosave, &AutosaveController::autosaved, this,
          [this](const QString &path) { statusBar()->showMessage(tr("Autosaved to %1").arg(path), 3000); });
  connect(m_autosave, &AutosaveController::autosaveFailed, this,
          [this](const QString &error) { m_context->log(LogLevel::Warning, tr("Autosave failed: %1").arg(error)); });
  m_autosave->setIntervalSeconds(settings::autosaveIntervalSeconds());

  m_jobs->setStallTimeout(settings::jobStallSeconds());
  connect(m_jobs, &JobQueue::jobChanged, this, &MainWindow::updateJobStatus);
  // A marker per running job in the project's cache: a studio killed meanwhile leaves it, and the next
  // opening of the project records the run as interrupted (JobMarkers.h).
  connect(m_jobs, &JobQueue::jobChanged, this, [this](int id) {
    const std::optional<JobInfo> job = m_jobs->job(id);
    if (job && job->state == JobState::Running && !m_markedJobs.contains(id) &&
        !m_context->filePath().isEmpty()) {
      markJobRunning(m_context->filePath(), *job);
      m_markedJobs.insert(id, m_context->filePath());
    }
  });
  connect(m_jobs, &JobQueue::jobFinished, this, [this](int id) {
    if (m_markedJobs.contains(id))
      clearJobMarker(m_markedJobs.take(id), id);
  });
  connect(context, &StudioContext::projectLoaded, this, [this] {
    for (project::RunRecord &run : collectInterruptedRuns(m_context->filePath())) {
      m_context->log(LogLevel::Warning, tr("Run '%1' was interrupted: the studio ended while it ran")
                                            .arg(QString::fromStdString(run.configName)));
      m_context->addRun(std::move(run));
    }
  });
  connect(m_jobs, &JobQueue::jobFinished, this, [this](int id, JobState state) {
    auto job = m_jobs->job(id);
    if (!job)
      return;
    if (state == JobState::Failed)
      m_context->log(LogLevel::Error, job->error);
    else if (state == JobState::NotImplemented) // a missing engine step, not a broken model: a warning
      m_context->log(LogLevel::Warning, job->error.section(QLatin1Char('\n'), 0, 0));
    else
      m_context->log(LogLevel::Info, tr("%1: %2").arg(job->spec.title, jobStateName(state)));
    for (const QString &artifact : job->artifacts)
      m_context->log(LogLevel::Info, tr("%1 produced %2").arg(job->spec.title, artifact));
    keepJobLog(*job);
    recordRun(*job);
  });

  restoreWindowLayout();
  updateTitle();
  updateRecentMenu();
}

MainWindow::~MainWindow() = default;

void MainWindow::createDocks() {
  auto addDock = [this](QWidget *panel, const QString &title, const QString &name, Qt::DockWidgetArea area) {
    auto *dock = new QDockWidget(title, this);
    dock->setObjectName(name); // saveState() keys the layout by object name
    dock->setWidget(panel);
    addDockWidget(area, dock);
    return dock;
  };
  m_explorer = new ProjectExplorer(m_context);
  m_properties = new PropertiesPanel(m_context);
  m_log = new LogPanel(m_context);
  m_jobsPanel = new JobsPanel(m_jobs);
  addDock(m_explorer, tr("Project"), QStringLiteral("ProjectDock"), Qt::LeftDockWidgetArea);
  addDock(m_properties, tr("Properties"), QStringLiteral("PropertiesDock"), Qt::RightDockWidgetArea);
  QDockWidget *log = addDock(m_log, tr("Log"), QStringLiteral("LogDock"), Qt::BottomDockWidgetArea);
  QDockWidget *jobs = addDock(m_jobsPanel, tr("Jobs"), QStringLiteral("JobsDock"), Qt::BottomDockWidgetArea);
  tabifyDockWidget(log, jobs);
  log->raise();
}

void MainWindow::createActions() {
  QMenu *file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&New Project"), QKeySequence::New, this, [this] {
    if (maybeSave())
      m_context->newProject();
  });
  file->setToolTipsVisible(true);
  file->addAction(tr("&Open Project…"), QKeySequence::Open, this, &MainWindow::open)
      ->setToolTip(tr("Open a .tpuproj project file"));
  m_recentMenu = file->addMenu(tr("Open &Recent"));
  file->addAction(tr("Open MLIR &Graph…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G), this, [this] {
    QString path = QFileDialog::getOpenFileName(this, tr("Open MLIR Graph"), settings::lastDirectory(),
                                                tr("MLIR (*.mlir *.mlirbc);;All files (*)"));
    if (!path.isEmpty())
      openGraph(path);
  });
  file->addAction(tr("Open S&weep Report…"), this, [this] {
    QString path =
        QFileDialog::getOpenFileName(this, tr("Open Sweep Report"), settings::lastDirectory(),
                                     tr("Sweep reports (report.json);;JSON (*.json);;All files (*)"));
    if (!path.isEmpty())
      openSweepReport(path);
  });
  file->addSeparator();
  file->addAction(tr("&Import Model…"), QKeySequence(Qt::CTRL | Qt::Key_I), this,
                  [this] {
                    QString path = QFileDialog::getOpenFileName(this, tr("Import Model"),
                                                                settings::lastDirectory(), modelFilter());
                    if (!path.isEmpty())
                      openImportDialog(path);
                  })
      ->setToolTip(
          tr("Record an ONNX model (or Top MLIR) in the project, with its inputs and preprocessing"));
  file->addAction(tr("Import &LLM Folder…"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_I), this,
                  [this] {
                    QString folder = QFileDialog::getExistingDirectory(
                        this, tr("Import HuggingFace Model Folder"), settings::lastDirectory());
                    if (!folder.isEmpty())
                      openLlmImportDialog(folder);
                  })
      ->setToolTip(tr("Record a HuggingFace LLM folder and convert it for the chip (llm_convert)"));
  file->addAction(tr("Add Calibration &Samples…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I), this, [this] {
    QStringList paths = QFileDialog::getOpenFileNames(this, tr("Add Calibration Samples"), settings::lastDirectory(),
                                                      tr("Images and tensors (*.jpg *.jpeg *.png *.bmp *.npy *.npz);;"
                                                         "All files (*)"));
    if (!paths.isEmpty())
      addSamples(paths);
  });
  file->addAction(
      tr("Import &Dataset Folder…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D), this, [this] {
        QString folder =
            QFileDialog::getExistingDirectory(this, tr("Import Dataset Folder"), settings::lastDirectory());
        if (!folder.isEmpty())
          importDatasetFolder(folder);
      });
  file->addAction(tr("Import Calibration &Table…"), this, [this] {
    QString path = QFileDialog::getOpenFileName(this, tr("Import Calibration Table"), settings::lastDirectory());
    if (!path.isEmpty())
      importTableFile(path, Section::CaliTables);
  });
  file->addAction(tr("Import &Quantize Table…"), this, [this] {
    QString path = QFileDialog::getOpenFileName(this, tr("Import Quantize Table"), settings::lastDirectory());
    if (!path.isEmpty())
      importTableFile(path, Section::QuantTables);
  });
  QAction *exportTable = file->addAction(tr("&Export Table…"), this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Export Table"), settings::lastDirectory());
    if (!path.isEmpty())
      exportTableFile(m_context->selection(), path);
  });
  exportTable->setEnabled(false);
  connect(m_context, &StudioContext::selectionChanged, exportTable, [exportTable](const Selection &selection) {
    exportTable->setEnabled(selection.id >= 0 && (selection.section == Section::CaliTables ||
                                                  selection.section == Section::QuantTables));
  });
  file->addSeparator();
  file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
  file->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, &MainWindow::saveAs);
  file->addAction(tr("&Close Project"), QKeySequence::Close, this, [this] {
    if (maybeSave())
      m_context->newProject();
  });
  file->addSeparator();
  QAction *quit = file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  quit->setMenuRole(QAction::QuitRole);

  QMenu *edit = menuBar()->addMenu(tr("&Edit"));
  QAction *undo = m_context->undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcuts(QKeySequence::Undo);
  QAction *redo = m_context->undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setShortcuts(QKeySequence::Redo);
  edit->addAction(undo);
  edit->addAction(redo);
  edit->addSeparator();
  QAction *newVersion = edit->addAction(tr("New Calibration Table &Version"), this, [this] {
    qint64 id = m_context->newCaliTableVersion(m_context->selection().id);
    if (id >= 0)
      m_context->activate({Section::CaliTables, id});
  });
  newVersion->setEnabled(false);
  edit->addAction(tr("Add &Compile Configuration"), this, [this] {
    qint64 id = m_context->addCompileConfig(
        {0, std::string(driver::kDefaultChip) + "-int8", std::string(driver::kDefaultChip), "INT8", "{}"});
    m_context->select({Section::CompileConfigs, id}); // the properties panel shows its editor
  });
  connect(m_context, &StudioContext::selectionChanged, newVersion, [newVersion](const Selection &selection) {
    newVersion->setEnabled(selection.section == Section::CaliTables && selection.id >= 0);
  });

  m_viewMenu = menuBar()->addMenu(tr("&View"));
  for (QDockWidget *dock : findChildren<QDockWidget *>())
    m_viewMenu->addAction(dock->toggleViewAction());
  m_viewMenu->addSeparator();
  m_viewMenu->addAction(tr("&Overview"), QKeySequence(Qt::CTRL | Qt::Key_0), this,
                        [this] { m_tabs->setCurrentIndex(0); });
  m_viewMenu->addAction(tr("&Graph of Top IR"), QKeySequence(Qt::CTRL | Qt::Key_G), this, [this] { openTopGraph(); });
  m_viewMenu->addAction(tr("&Layer Groups"), QKeySequence(Qt::CTRL | Qt::Key_L), this,
                        [this] { openChipViews(-1, ChipViewsTab::Groups); });
  m_viewMenu->addAction(tr("&Memory Timeline"), QKeySequence(Qt::CTRL | Qt::Key_M), this,
                        [this] { openChipViews(-1, ChipViewsTab::Memory); });
  m_viewMenu->addAction(tr("&Engine Timeline"), QKeySequence(Qt::CTRL | Qt::Key_T), this,
                        [this] { openChipViews(-1, ChipViewsTab::Timeline); });
  m_viewMenu->addAction(tr("&Activation Statistics"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A), this,
                        [this] { openActivationStats(); });
  m_viewMenu->addAction(tr("&Full Screen"), QKeySequence::FullScreen, this,
                        [this] { setWindowState(windowState() ^ Qt::WindowFullScreen); });

  QMenu *run = menuBar()->addMenu(tr("&Run"));
  run->setToolTipsVisible(true);
  m_transformAction = run->addAction(tr("&Transform Model"), QKeySequence(Qt::Key_F5), this, &MainWindow::runTransform);
  m_transformAction->setToolTip(
      tr("ONNX to Top MLIR and weights (model_transform), checked against ONNX Runtime"));
  run->addAction(tr("&Calibrate"), QKeySequence(Qt::Key_F7), this, [this] { runCalibrate(); })
      ->setToolTip(
          tr("A calibration table from the selected dataset (run_calibration), with its statistics"));
  run->addAction(tr("&Deploy to Tpu"), QKeySequence(Qt::Key_F8), this, [this] { runDeploy(); })
      ->setToolTip(tr("Compile to a model file for the chip and compare every layer with the float model"));
  run->addAction(tr("D&eploy with Configuration…"), QKeySequence(Qt::CTRL | Qt::Key_F8), this,
                 [this] { openDeployDialog(); });
  run->addAction(tr("Run Model File on &Simulator"), QKeySequence(Qt::Key_F9), this, [this] { runModelFile(); });
  run->addAction(tr("Run &Whole Pipeline"), QKeySequence(Qt::CTRL | Qt::Key_R), this,
                 [this] { runWholePipeline(); })
      ->setToolTip(
          tr("Transform, calibrate (INT8), deploy and run the selected configuration on the simulator, "
             "one step after another"));
  run->addAction(tr("Com&pare Tensor Files…"), QKeySequence(Qt::SHIFT | Qt::Key_F9), this, [this] { runCompare(); });
  QAction *compareRuns = run->addAction(tr("Compare R&uns…"), this, &MainWindow::compareRunsDialog);
  // Also on the project tree's context menu, where the runs are listed (the selected run is B).
  m_explorer->setContextMenuPolicy(Qt::ActionsContextMenu);
  m_explorer->addAction(compareRuns);
  // The deploy runs of the current configuration over time (the selected one, or the selected run's).
  m_explorer->addAction(
      run->addAction(tr("Run &History of Configuration"), this, [this] { openConfigHistory(); }));
  run->addAction(tr("Re-deploy and Compare"), this, [this] { redeployAndCompare(); });
  run->addAction(tr("Search &Mixed Precision…"), this, &MainWindow::openSearchDialog);
  run->addAction(tr("Convert &LLM"), QKeySequence(Qt::Key_F6), this, &MainWindow::runLlmConvert);
  run->addAction(tr("C&hat with Model"), QKeySequence(Qt::SHIFT | Qt::Key_F6), this,
                 [this] { openLlmChat(); });
  run->addAction(tr("&Cancel All Jobs"), QKeySequence(Qt::SHIFT | Qt::Key_F5), m_jobs, &JobQueue::cancelAll);

  QMenu *help = menuBar()->addMenu(tr("&Help"));
  createHelpActions(help);
  QAction *about = help->addAction(tr("&About TPU Studio"), this, [this] { AboutDialog(this).exec(); });
  about->setMenuRole(QAction::AboutRole);
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt)->setMenuRole(QAction::AboutQtRole);
}

void MainWindow::createStatusBar() {
  m_statusLabel = new QLabel;
  m_progress = new QProgressBar;
  m_progress->setMaximumWidth(m_progress->fontMetrics().averageCharWidth() * 30);
  m_progress->setTextVisible(true);
  m_progress->hide();
  m_cancelJob = new QToolButton;
  m_cancelJob->setText(tr("Cancel"));
  m_cancelJob->setToolTip(tr("Cancel the running job"));
  m_cancelJob->setAutoRaise(true);
  m_cancelJob->hide();
  connect(m_cancelJob, &QToolButton::clicked, this, [this] { m_jobs->cancel(m_jobs->runningJob()); });
  statusBar()->addWidget(m_statusLabel, 1);
  statusBar()->addPermanentWidget(m_progress);
  statusBar()->addPermanentWidget(m_cancelJob);
  m_statusLabel->setText(tr("Ready"));
}

void MainWindow::updateTitle() {
  setWindowTitle(m_context->isReadOnly() ? tr("%1[*] (read-only) — TPU Studio").arg(m_context->displayName())
                                         : tr("%1[*] — TPU Studio").arg(m_context->displayName()));
  setWindowModified(m_context->isModified());
}

void MainWindow::updateRecentMenu() {
  m_recentMenu->clear();
  const QStringList files = settings::recentFiles();
  for (int i = 0; i < files.size(); ++i) {
    const QString path = files[i];
    QString label = tr("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName());
    QAction *action = m_recentMenu->addAction(label, this, [this, path] {
      if (maybeSave())
        openProjectFile(path);
    });
    action->setToolTip(path);
    action->setStatusTip(path);
    action->setEnabled(QFileInfo::exists(path));
  }
  m_recentMenu->addSeparator();
  m_recentMenu->addAction(tr("&Clear List"), this, [this] {
    settings::clearRecentFiles();
    updateRecentMenu();
  });
  m_recentMenu->setEnabled(!files.isEmpty());
  if (m_startPage)
    m_startPage->refresh();
}

void MainWindow::updateJobStatus() {
  auto job = m_jobs->job(m_jobs->runningJob());
  m_progress->setVisible(job.has_value());
  m_cancelJob->setVisible(job.has_value());
  if (!job) {
    m_statusLabel->setText(tr("Ready"));
    return;
  }
  if (job->fraction < 0) {
    m_progress->setRange(0, 0); // busy indicator until the first fraction arrives
  } else {
    m_progress->setRange(0, 1000);
    m_progress->setValue(static_cast<int>(job->fraction * 1000));
  }
  m_progress->setFormat(job->stage.isEmpty() ? QStringLiteral("%p%") : job->stage + QStringLiteral(" %p%"));
  m_statusLabel->setText(job->message.isEmpty() ? job->spec.title : tr("%1: %2").arg(job->spec.title, job->message));
}

void MainWindow::openTab(const Selection &selection) {
  if (selection.section == Section::Model) { // the model's graph (its Top IR)
    if (!m_context->project().model.path.empty())
      openTopGraph();
    return;
  }
  if (selection.id < 0)
    return;
  for (int i = 1; i < m_tabs->count(); ++i) {
    QWidget *tab = m_tabs->widget(i);
    auto *table = qobject_cast<TableView *>(tab);
    auto *dataset = qobject_cast<DatasetView *>(tab);
    const bool sameRun = selection.section == Section::Runs && tab->property("tpucRunId").isValid() &&
                         tab->property("tpucRunId").toLongLong() == selection.id;
    if ((table && table->table() == selection) || (dataset && dataset->dataset() == selection) || sameRun) {
      m_tabs->setCurrentIndex(i);
      return;
    }
  }
  const project::Project &p = m_context->project();
  auto name = [](const std::string &n) { return QString::fromStdString(n); };
  QWidget *view = nullptr;
  QString title;
  switch (selection.section) {
  case Section::CaliTables:
    for (const auto &t : p.caliTables)
      if (t.id == selection.id) {
        title = tr("Calibration: %1 v%2").arg(name(t.name)).arg(t.version);
        auto *table = new TableView(m_context, selection, m_tabs);
        connect(table, &TableView::activationStatisticsRequested, this,
                [this](qint64 tableId) { openActivationStats(tableId); });
        view = table;
      }
    break;
  case Section::QuantTables:
    for (const auto &t : p.quantTables)
      if (t.id == selection.id) {
        title = tr("Quantize: %1 v%2").arg(name(t.name)).arg(t.version);
        view = new TableView(m_context, selection, m_tabs);
      }
    break;
  case Section::Datasets:
    for (const auto &d : p.datasets)
      if (d.id == selection.id) {
        title = tr("Dataset: %1").arg(name(d.name));
        auto *datasetView = new DatasetView(m_context, d.id, m_tabs,
                                            m_preparedDatasetId == d.id ? m_preparedDataset.get() : nullptr);
        connect(datasetView, &DatasetView::calibrateRequested, this,
                [this](qint64 id, const QString &subset, const QString &method) {
                  runCalibrate(id, method, subset);
                });
        view = datasetView;
      }
    break;
  case Section::Runs:
    // A run that recorded pass snapshots (transform/deploy --snapshots) opens the pass inspector; one with
    // per-layer metrics (deploy --compare_all) the accuracy view. A deploy run has both: the accuracy view
    // is shown and the pass inspector (Top vs Tpu side by side) opens beside it.
    for (const auto &r : p.runs)
      if (r.id == selection.id) {
        // A calibration with a report (every studio calibration) opens its activation statistics.
        if (const QString report = calibrationReportOfRun(r); !report.isEmpty()) {
          openActivationStatsFolder(report, -1, tr("Statistics: %1").arg(name(r.configName)));
          return;
        }
        QString dir = PassInspectorView::snapshotDirOf(r);
        if (dir.isEmpty()) // recorded, but gone with the cache folder: say so instead of showing nothing
          for (const project::ArtifactRef &a : r.artifacts)
            if (QFileInfo(QString::fromStdString(a.name)).fileName() == QLatin1String("index.json"))
              m_context->log(
                  LogLevel::Warning,
                  tr("%1 is gone (the cache folder was cleared?): run the job again to see its passes")
                      .arg(QString::fromStdString(a.name)));
        const bool deploy = QJsonDocument::fromJson(QByteArray::fromStdString(r.summaryJson))
                                .object()
                                .value(QStringLiteral("command"))
                                .toString() == QLatin1String("deploy");
        // A deploy or run of a model file also has chip records: its layer groups, memory and timeline open
        // in a tab of their own (focused when there is nothing else to show).
        const bool chip = !chipArtifactsOf(p, r.id).empty();
        if (!dir.isEmpty() && deploy && openAccuracy(r.id)) {
          auto *passes = new PassInspectorView(dir, m_tabs);
          passes->setProperty("tpucRunId", selection.id);
          m_tabs->addTab(passes, tr("Passes: %1").arg(name(r.configName)));
          if (chip)
            m_tabs->addTab(new ChipViewsTab(m_context, r.id, m_tabs), tr("Chip: %1").arg(name(r.configName)));
          return;
        }
        if (chip && dir.isEmpty()) {
          AccuracyView *accuracy = openAccuracy(r.id);
          ChipViewsTab *tab = openChipViews(r.id, ChipViewsTab::Groups);
          if (accuracy)
            m_tabs->setCurrentWidget(accuracy);
          else if (tab)
            m_tabs->setCurrentWidget(tab);
          return;
        }
        if (!dir.isEmpty()) {
          title = tr("Passes: %1").arg(name(r.configName));
          view = new PassInspectorView(dir, m_tabs);
          view->setProperty("tpucRunId", selection.id);
        } else if (openAccuracy(r.id)) {
          return;
        }
      }
    break;
  default: break;
  }
  if (view)
    m_tabs->setCurrentIndex(m_tabs->addTab(view, title));
}

void MainWindow::showError(const QString &title, const QString &message) {
  m_context->log(LogLevel::Error, message);
  m_lastError = message;
  if (m_interactive && !m_quietErrors)
    QMessageBox::warning(this, title, message);
}

bool MainWindow::startup(const QString &path) {
  if (!path.isEmpty() && !isProjectFile(path) && (isModelFile(path) || isModelFolder(path))) {
    m_context->newProject();
    if (isModelFile(path))
      openImportDialog(path);
    else
      openLlmImportDialog(path);
    return true;
  }
  if (!path.isEmpty()) {
    if (openProjectFile(path))
      return true;
    m_context->newProject();
    return false;
  }
  QString untitled = AutosaveController::pendingRecovery(QString());
  if (!untitled.isEmpty() && m_interactive &&
      QMessageBox::question(this, tr("Recover Unsaved Project"),
                            tr("TPU Studio did not shut down cleanly. Recover the unsaved project?")) ==
          QMessageBox::Yes) {
    QString error;
    if (m_context->recoverProject(untitled, QString(), &error))
      return true;
    showError(tr("Cannot Recover Project"), error);
  }
  m_context->newProject();
  return true;
}

bool MainWindow::openProjectFile(const QString &path) {
  QString recovery = AutosaveController::pendingRecovery(QFileInfo(path).absoluteFilePath());
  if (!recovery.isEmpty() && m_interactive &&
      QMessageBox::question(this, tr("Recover Unsaved Changes"),
                            tr("%1 has unsaved changes from a session that did not end cleanly "
                               "(autosaved %2). Recover them?")
                                .arg(QFileInfo(path).fileName(), QFileInfo(recovery).lastModified().toString())) ==
          QMessageBox::Yes) {
    QString error;
    if (m_context->recoverProject(recovery, path, &error)) {
      settings::addRecentFile(m_context->filePath());
      updateRecentMenu();
      return true;
    }
    showError(tr("Cannot Recover Project"), error);
  }
  QString error, lockedBy;
  bool opened = m_context->openProject(path, &error, StudioContext::OpenMode::ReadWrite, &lockedBy);
  if (!opened && !lockedBy.isEmpty()) {
    // Another studio has it open: no silent last-writer-wins. Read-only, or not at all (issue 25).
    const bool readOnly =
        !m_interactive ||
        QMessageBox::question(
            this, tr("Project Open Elsewhere"),
            tr("%1 is open in another TPU Studio (%2). Saving here would overwrite its "
               "work.\n\nOpen it read-only? (Save As can still keep your changes in another "
               "file.)")
                .arg(QFileInfo(path).fileName(), lockedBy),
            QMessageBox::Open | QMessageBox::Cancel) == QMessageBox::Open;
    if (!readOnly)
      return false;
    error.clear();
    opened = m_context->openProject(path, &error, StudioContext::OpenMode::ReadOnlyIfLocked);
  }
  if (!opened) {
    showError(tr("Cannot Open Project"), error);
    if (!QFileInfo::exists(path)) {
      settings::removeRecentFile(path);
      updateRecentMenu();
    }
    return false;
  }
  settings::addRecentFile(m_context->filePath());
  settings::setLastDirectory(QFileInfo(path).absolutePath());
  saveRecentThumbnail(m_context->filePath(), this);
  updateRecentMenu();
  return true;
}

void MainWindow::open() {
  if (!maybeSave())
    return;
  QString path = QFileDialog::getOpenFileName(this, tr("Open Project"), settings::lastDirectory(), projectFilter());
  if (!path.isEmpty())
    openProjectFile(path);
}

bool MainWindow::save() {
  if (m_context->filePath().isEmpty())
    return saveAs();
  QString error;
  if (!m_context->save(&error)) {
    showError(tr("Cannot Save Project"), error);
    return false;
  }
  statusBar()->showMessage(tr("Saved %1").arg(m_context->filePath()), 3000);
  saveRecentThumbnail(m_context->filePath(), this);
  return true;
}

bool MainWindow::saveAs() {
  // An untitled project is offered a name after its model, beside it.
  const QFileInfo model(QString::fromStdString(m_context->project().model.path));
  QString start = !m_context->filePath().isEmpty() ? m_context->filePath()
                  : model.fileName().isEmpty()
                      ? settings::lastDirectory() + QStringLiteral("/untitled.tpuproj")
                      : model.absolutePath() + QLatin1Char('/') + model.completeBaseName() + QStringLiteral(".tpuproj");
  QString path = QFileDialog::getSaveFileName(this, tr("Save Project As"), start, projectFilter());
  if (path.isEmpty())
    return false;
  if (!isProjectFile(path))
    path += QStringLiteral(".tpuproj");
  QString error;
  if (!m_context->saveAs(path, &error)) {
    showError(tr("Cannot Save Project"), error);
    return false;
  }
  settings::addRecentFile(m_context->filePath());
  settings::setLastDirectory(QFileInfo(path).absolutePath());
  saveRecentThumbnail(m_context->filePath(), this);
  updateRecentMenu();
  return true;
}

bool MainWindow::maybeSave() {
  if (!m_context->isModified())
    return true;
  if (!m_interactive) {
    m_autosave->autosaveNow(); // nobody to ask: keep the changes recoverable
    return true;
  }
  auto answer = QMessageBox::warning(this, tr("Unsaved Changes"),
                                     tr("%1 has unsaved changes. Save them?").arg(m_context->displayName()),
                                     QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Save)
    return save();
  return answer == QMessageBox::Discard;
}

bool MainWindow::ensureSaved(const QString &title) {
  if (!m_context->filePath().isEmpty())
    return true;
  const QString why = tr("The project has no file yet, and every step writes its artifacts into a cache "
                         "folder beside the project file.");
  if (!m_interactive) {
    showError(title, why);
    return false;
  }
  auto answer = QMessageBox::question(this, tr("Save Project"), why + QLatin1Char('\n') + tr("Save it now?"),
                                      QMessageBox::Save | QMessageBox::Cancel, QMessageBox::Save);
  return answer == QMessageBox::Save && saveAs();
}

void MainWindow::closeEvent(QCloseEvent *event) {
  if (!maybeSave()) {
    event->ignore();
    return;
  }
  m_jobs->cancelAll();
  saveRecentThumbnail(m_context->filePath(), this);
  settings::setWindowLayout(saveGeometry(), saveState());
  event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event) {
  if (canOpenUrls(event->mimeData()->urls()))
    event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event) {
  if (!canOpenUrls(event->mimeData()->urls()))
    return;
  event->acceptProposedAction();
  openUrls(event->mimeData()->urls());
}

bool MainWindow::canOpenUrls(const QList<QUrl> &urls) {
  if (urls.size() == 1 && urls[0].isLocalFile() &&
      (isProjectFile(urls[0].toLocalFile()) || isModelFile(urls[0].toLocalFile()) ||
       QFileInfo(urls[0].toLocalFile()).isDir()))
    return true;
  // Several files are fine when they are all samples.
  bool allSamples = !urls.isEmpty();
  for (const QUrl &url : urls)
    allSamples = allSamples && url.isLocalFile() && isSample(url.toLocalFile());
  return allSamples;
}

void MainWindow::openUrls(const QList<QUrl> &urls) {
  QStringList samples;
  for (const QUrl &url : urls)
    if (url.isLocalFile() && isSample(url.toLocalFile()))
      samples << url.toLocalFile();
  if (!samples.isEmpty() && samples.size() == urls.size()) {
    addSamples(samples);
    return;
  }
  if (urls.size() != 1 || !urls[0].isLocalFile())
    return;
  QString path = urls[0].toLocalFile();
  if (isProjectFile(path)) {
    if (maybeSave())
      openProjectFile(path);
  } else if (isModelFile(path)) {
    openImportDialog(path);
  } else if (isModelFolder(path) && QFileInfo::exists(path + QStringLiteral("/config.json"))) {
    openLlmImportDialog(path); // a HuggingFace model folder
  } else if (QFileInfo(path).isDir()) {
    importDatasetFolder(path); // any other folder: calibration samples
  }
}

} // namespace tpuc::ui
