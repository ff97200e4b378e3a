// The studio's main window: menus, dockable panels, tabbed central views and a status bar with job progress.
#ifndef TPUC_UI_MAINWINDOW_H
#define TPUC_UI_MAINWINDOW_H

#include "ui/StudioContext.h"

#include <QHash>
#include <QMainWindow>
#include <QPointer>
#include <QUrl>

#include <memory>

#include <optional>

class QLabel;
class QMenu;
class QStackedWidget;
class QProgressBar;
class QTabWidget;
class QToolButton;

namespace tpuc::ui {

class AccuracyView;
class ConfigHistoryView;
class RunCompareView;
class SearchQtableView;
class SweepReportView;
struct SearchSettings;
class ActivationStatsView;
class LlmChatView;
class LlmStagesView;
class TensorsTab;
struct PreparedDataset;
class AutosaveController;
class ChipViewsTab;
class DeployDialog;
struct DeploySettings;
class GraphViewTab;
class ImportDialog;
struct JobInfo;
class LlmImportDialog;
class EngineClient;
class JobQueue;
class LogPanel;
class ProjectExplorer;
class PropertiesPanel;
class JobsPanel;
class GuidedTour;
class PipelineDialog;
class DocumentationBrowser;
class StartPage;

/// The window users live in. It observes the StudioContext like every panel; it owns the central tabs
/// and the job queue, and asks the user the questions (save changes? recover?) the context cannot.
class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  explicit MainWindow(StudioContext *context, QWidget *parent = nullptr);
  ~MainWindow() override;

  /// Opens (or brings forward) the central tab of an explorer item, as activating it does.
  void openTab(const Selection &selection);
  /// Opens what the command line names: a project, or a model file or HuggingFace folder to import into
  /// a new project (as dropping it on the window does); without one, offers to recover an untitled
  /// autosave or starts a new project. False when a named project could not be opened.
  bool startup(const QString &path);
  /// Opens a project file, offering recovery when its autosave is newer. Errors go to a message box
  /// (or only to the log in non-interactive mode). Returns true when a project was loaded.
  bool openProjectFile(const QString &path);
  /// Records a model file in the project (hashing off the UI thread), with `settings` when given, as
  /// one undo step. Emits modelImported when done.
  void importModel(const QString &path, std::optional<project::ImportSettings> settings = std::nullopt);
  /// Opens the import dialog for an .onnx file (window-modal, returns at once); accepting it imports the
  /// model with the dialog's settings. In non-interactive mode imports without asking and returns null.
  ImportDialog *openImportDialog(const QString &path);
  /// Opens the LLM import dialog for a HuggingFace model folder (window-modal, returns at once); it shows
  /// what is wrong with a folder that is not one. Accepting records the model and the llm_convert settings
  /// and queues `tpuc llm-convert`. In non-interactive mode imports with defaults and returns null.
  LlmImportDialog *openLlmImportDialog(const QString &folder);
  /// Records a HuggingFace model folder (path, hash of its config.json) and its llm_convert settings as one
  /// undo step, hashing off the UI thread; then queues `tpuc llm-convert` when `convert`. Emits
  /// modelImported when recorded.
  void importHfModel(const QString &folder, const project::LlmConvertSettings &settings, bool convert);
  /// Queues `tpuc llm-convert` for the project's HuggingFace model with its settings, writing into the
  /// cache folder (the app's cache folder for an untitled project). Returns the job id, or -1 with a message.
  int runLlmConvert();
  /// Opens (or focuses) the chat with the project's converted LLM (`tpuc llm-run --serve` on the model file
  /// in llm-convert's output folder); without a converted model the tab says how to convert it. nullptr with
  /// a message when the project has no HuggingFace model.
  LlmChatView *openLlmChat();
  /// Opens (or focuses) the three stages of decoder layer `layer` side by side (prefill, prefill with
  /// history KV, decode: their Top IR in llm-convert's output folder).
  LlmStagesView *openLlmLayerStages(int layer = 0);
  /// Adds image or tensor files as calibration samples to the selected dataset (or a new one),
  /// reading them and making thumbnails off the UI thread. Emits samplesAdded when done.
  void addSamples(const QStringList &paths);
  /// Adds a folder of samples as a new dataset (recursively: images, .npy, .npz; hidden entries skipped)
  /// and opens it: the files are listed off the UI thread at once, the dataset view then reads their
  /// metadata and thumbnails in the background. Emits datasetImported when the dataset is in the project.
  void importDatasetFolder(const QString &folder);
  /// In non-interactive mode (screenshots, scripts) no dialog is shown: questions take their safe
  /// default (no recovery, keep unsaved changes in the autosave) and errors go to the log.
  void setInteractive(bool interactive) { m_interactive = interactive; }
  /// Queues `tpuc transform` for the project's model with its import settings (model_transform's flags),
  /// writing into the project's cache folder. Returns the job id, or -1 (with a message) when the project
  /// has no model or no file yet or the engine is missing.
  int runTransform();
  /// Queues `tpuc calibrate` (run_calibration) with `method` over a dataset of the project: `datasetId`,
  /// else the selected dataset, else the first one with samples. Its Top MLIR comes from the cache folder;
  /// when it is not there yet a transform job is queued first. When the calibrate job succeeds its table
  /// becomes a new calibration table of the project (calibrationTableAdded) and its report (`--report`,
  /// in the cache folder) opens in the activation statistics view. Returns the calibrate job's id, or -1
  /// (with a message) when there is no model, file, engine or sample. `subset` names a subset of a folder
  /// dataset to calibrate on (all its files otherwise).
  int runCalibrate(qint64 datasetId = -1, const QString &method = QStringLiteral("kl"),
                   const QString &subset = {}, const SearchSettings *search = nullptr);
  /// Queues calibrate with `--search search_qtable --search_report` on `settings`' samples for its
  /// configuration's chip; when the job ends with its record (target reached or not) the curve opens
  /// (openSearchResult). Returns the job id, or -1 with a message.
  int runSearchQtable(const SearchSettings &settings);
  /// Run ▸ Search Mixed Precision…: the dialog, then runSearchQtable. Non-interactive: the defaults.
  void openSearchDialog();
  /// Opens the curve of a tpuc.search_qtable record; "Use this table" sets configuration `configId`'s table.
  SearchQtableView *openSearchResult(const QString &recordPath, qint64 configId);
  /// Opens (or focuses) the comparison of run A with run B (manifest differences, per-layer accuracy and
  /// cycles, cosine chart).
  RunCompareView *openRunComparison(qint64 runA, qint64 runB);
  /// File ▸ Open Sweep Report…: a `tpuc sweep` report.json (or its sweep folder) as a table (or focuses it);
  /// a cell opens its run (openSweepCell).
  SweepReportView *openSweepReport(const QString &path);
  /// Opens a sweep cell's run: its per-layer accuracy file in the accuracy view when it has one, else its
  /// folder in the desktop's file manager. Returns the accuracy view, or nullptr when the folder was opened.
  AccuracyView *openSweepCell(const QString &accuracyFile, const QString &folder, const QString &title);
  /// Opens (or focuses) the run history of compile configuration `configId` (< 0: the current one): its
  /// deploy runs over time; a point opens the run's accuracy, "Compare with previous" openRunComparison.
  /// nullptr with a message when the project has no configuration.
  ConfigHistoryView *openConfigHistory(qint64 configId = -1);
  /// Run ▸ Compare Runs…: picks two runs with manifests (default: the selected run and the one before it).
  void compareRunsDialog();
  /// Deploys configuration `configId` (< 0: the current one) again as a job; when its run is recorded, the
  /// comparison of the configuration's previous run with the new one opens. Returns the job id, or -1.
  int redeployAndCompare(qint64 configId = -1);
  /// Queues `tpuc deploy` (model_deploy up to the Tpu level) with a compile configuration of the project
  /// (`configId`, else the selected one, else the first; none: F32 on bm1684x). INT8 uses the newest
  /// calibration table, written to the cache folder; the first calibration sample on disk is the test
  /// input, and the run keeps the per-layer comparison (accumulated and isolated, --compare_all); a
  /// configuration testing many samples passes its folder or its dataset as a data list. `sampleFiles`
  /// replaces the test input by one sample's files (its artifacts beside the configuration's, not over
  /// them). A transform job is queued first when the Top MLIR is not in the cache. Returns the job id, or -1.
  int runDeploy(qint64 configId = -1, const QStringList &sampleFiles = {});
  /// Queues `tpuc run` (model_runner) on the model file a deploy of the compile configuration wrote
  /// (`configId`, else the selected one, else the first), with that deploy's test input as tensors: the
  /// command-level simulation, its outputs and engine trace (simulated latency, cycles per op). Returns
  /// the job id, or -1 (with a message) when the configuration was not deployed with a test input yet.
  int runModelFile(qint64 configId = -1);
  /// Queues `tpuc compare` (npz_tool compare) of two tensor files: the run keeps the per-tensor metrics
  /// (cosine, euclidean, SQNR, status), which the accuracy view shows. Interactive callers without paths
  /// pick the files in dialogs. Returns the job id, or -1.
  int runCompare(QString target = {}, QString reference = {}, const QString &tolerance = QStringLiteral("0.99,0.99"));
  /// Opens the deploy dialog on a compile configuration (`configId`, else the selected one, else the
  /// first, else a new one; window-modal, returns at once). Accepting stores the configuration (one undo
  /// step) and queues runDeploy with it. In non-interactive mode deploys without asking and returns null.
  DeployDialog *openDeployDialog(qint64 configId = -1);
  /// Opens (or focuses) the accuracy tab of a run with per-layer metrics; nullptr when it has none.
  AccuracyView *openAccuracy(qint64 runId);
  /// Opens (or focuses) the tensor viewer of a deploy run that kept its tensors (--compare_all) on `layer`.
  TensorsTab *openTensors(qint64 runId, const QString &layer, const QStringList &inputs = {});
  /// The tensors of `layer` on one sample of a many-sample run (issue 22): deploys the run's configuration on
  /// the sample's `files` (runDeploy) and opens the tensor viewer on that run when it is recorded. Returns
  /// the job id, or -1.
  int showLayerOnSample(qint64 runId, const QString &layer, const QStringList &files);
  /// Opens (or focuses) the chip views of a run (layer groups, memory, engine timeline) on `page`
  /// (ChipViewsTab::Page). `runId` < 0: the selected run, else the newest run with a plan or trace; nullptr
  /// with a message when there is none.
  ChipViewsTab *openChipViews(qint64 runId = -1, int page = 0);
  /// Opens (or focuses) the activation statistics of calibration table `tableId` (its report: histograms
  /// with every method's threshold, convergence). `tableId` < 0: the selected calibration table, else the
  /// newest one with a report. nullptr with a message when the table has no report (imported, or its
  /// report was deleted with the cache).
  ActivationStatsView *openActivationStats(qint64 tableId = -1);
  /// Opens (or focuses) the activation statistics of a report folder (`tpuc calibrate --report DIR`).
  ActivationStatsView *openActivationStatsFolder(const QString &folder, qint64 tableId, const QString &title);
  /// Opens (or focuses) a graph tab of an MLIR file; returns the tab.
  GraphViewTab *openGraph(const QString &mlirPath);
  /// Opens the graph of the project's Top IR (`<cache>/<model>.top.mlir`, written by Run ▸ Transform);
  /// nullptr with a message when there is none yet.
  GraphViewTab *openTopGraph();
  /// Reads a TPU-MLIR calibration (`section` = CaliTables) or quantize table file into a new table
  /// named after the file; returns its id, or -1 after reporting the line-numbered error.
  qint64 importTableFile(const QString &path, Section section);
  /// Writes the selected calibration or quantize table in TPU-MLIR's format; false after reporting.
  bool exportTableFile(const Selection &table, const QString &path);

  /// Run ▸ Run Whole Pipeline: transform, calibrate (an INT8 configuration whose table the project does not
  /// have yet: on the dataset the table's name gives, else the first one), deploy and run the model file on
  /// the simulator, for compile configuration `configId` (< 0: the selected one, else the first), each step
  /// once the one before it has ended well, in a window with the steps' progress and, at the end, buttons
  /// to the accuracy, layer groups and engine timeline. nullptr with a message when the project has no
  /// model or a pipeline is running already.
  PipelineDialog *runWholePipeline(qint64 configId = -1);
  /// The window of the pipeline running or last run (nullptr once closed).
  PipelineDialog *pipelineDialog() const;

  /// Opens the example project (exampleProjectFile), asking to save a modified project first. False with a
  /// message when there is no example or it could not be opened.
  bool openExample();
  /// What a later `tpu-studio FILE` handed over (SingleInstance): the window comes forward and opens FILE as
  /// a drop of it would (a project after asking to save the current one's changes; a model is imported).
  /// Empty: only brings the window forward. True when FILE was opened (or is already the project).
  bool openForwarded(const QString &path);
  /// Help ▸ Guided Tour: callouts over the explorer, the central views, properties, jobs and log.
  GuidedTour *startTour();
  /// The tour on the first start (tpu-studio calls it once the window is shown); nullptr when it was
  /// offered before (settings::tourOffered).
  GuidedTour *offerTourOnce();
  /// Help ▸ Documentation (F1): the documentation window (the README first, or document `file` by name, e.g.
  /// "STUDIO.md"); one per studio, raised when open.
  DocumentationBrowser *openDocumentation(const QString &file = {});
  /// The start page, shown instead of the central tabs while no project is open.
  StartPage *startPage() const { return m_startPage; }
  bool startPageShown() const;

  JobQueue *jobQueue() const { return m_jobs; }
  QTabWidget *centralTabs() const { return m_tabs; }
  AutosaveController *autosave() const { return m_autosave; }

Q_SIGNALS:
  /// A batch of samples was added (or failed: `added` is 0); for tests and scripting.
  void samplesAdded(int added);
  /// A dataset folder was added (`datasetId` < 0: it could not be read; the reason is in the log).
  void datasetImported(qint64 datasetId);
  /// A model was recorded in the project (or `ok` is false: it could not be read).
  void modelImported(bool ok);
  /// A finished job was recorded in the run history (`runId` < 0: the project changed meanwhile).
  void runRecorded(qint64 runId);
  /// The same, with the job whose run it is.
  void runRecordedForJob(int jobId, qint64 runId);
  /// A calibrate job's table was stored in the project (`tableId` < 0: the job failed or the table could
  /// not be read; the reason is in the log).
  void calibrationTableAdded(qint64 tableId);
  /// A run comparison tab was opened for runs A and B (redeployAndCompare, openRunComparison).
  void runComparisonOpened(qint64 runA, qint64 runB);

protected:
  void closeEvent(QCloseEvent *event) override;
  void dragEnterEvent(QDragEnterEvent *event) override;
  void dropEvent(QDropEvent *event) override;

private:
  /// The compile configuration `configId` names (else the selected one, else the first, else F32 on bm1684x).
  project::CompileConfig compileConfigFor(qint64 configId) const;
  /// `<cache>/<model>_<chip>_<precision>`: where a deploy of `settings` puts its artifacts.
  QString deployStem(const QString &cache, const DeploySettings &settings) const;
  /// Writes a seeded random test input for the project's model into `cache` (randomTestInputs) and logs that
  /// it did; its path, or empty after showing why none could be made.
  QString writeRandomTestInput(const QString &cache, const QString &modelName);
  /// Queues `tpuc <request>` through the engine client; -1 after showing `errorTitle` with the reason when
  /// the request has no command line.
  template <typename Request>
  int submit(const QString &errorTitle, const QString &title, const Request &request,
             const QString &workingDirectory, const QString &resultFile = {});
  void createActions();
  /// The start page and the stack it shares with the central tabs (MainWindowStart.cpp).
  void createStartPage();
  void updateStartPage();
  /// The window's saved geometry and docks, or on the first start 80 % of the screen, centred.
  void restoreWindowLayout();
  void createHelpActions(QMenu *help);
  /// Whether the window opens these dropped (or handed over) files, and opening them.
  static bool canOpenUrls(const QList<QUrl> &urls);
  void openUrls(const QList<QUrl> &urls);
  void createDocks();
  void createStatusBar();
  void updateTitle();
  void updateRecentMenu();
  void updateJobStatus();
  void keepJobLog(const JobInfo &job);
  void recordRun(const JobInfo &job);
  bool maybeSave();
  /// A job's artifacts go to the cache folder beside the project file: an untitled project is saved first
  /// (the user is asked and picks the file; without a user, `title` reports why the job cannot start).
  bool ensureSaved(const QString &title);
  bool save();
  bool saveAs();
  void open();
  void showError(const QString &title, const QString &message);
  /// llm-convert's output folder for the project's HuggingFace model (`<cache>/llm/<name>`).
  QString llmOutputFolder() const;

  StudioContext *m_context;
  EngineClient *m_engine; ///< every engine job goes through it
  JobQueue *m_jobs;       ///< m_engine's queue
  AutosaveController *m_autosave;
  QTabWidget *m_tabs;
  QStackedWidget *m_central = nullptr; ///< the start page or the tabs
  StartPage *m_startPage = nullptr;
  QString m_shownFile; ///< the project file on show (the context forgets it before projectClosed)
  ProjectExplorer *m_explorer = nullptr;
  PropertiesPanel *m_properties = nullptr;
  LogPanel *m_log = nullptr;
  JobsPanel *m_jobsPanel = nullptr;
  QMenu *m_viewMenu = nullptr;
  QMenu *m_recentMenu = nullptr;
  QAction *m_transformAction = nullptr;
  QLabel *m_statusLabel = nullptr;
  QProgressBar *m_progress = nullptr;
  QToolButton *m_cancelJob = nullptr;
  bool m_interactive = true;
  /// While a pipeline starts a step, errors are only logged and kept here for its window (no message box).
  bool m_quietErrors = false;
  QString m_lastError;
  QPointer<PipelineDialog> m_pipeline;
  QPointer<DocumentationBrowser> m_docs;
  /// Jobs running now with their marker written, by id: the project file it was written for (JobMarkers.h).
  QHash<int, QString> m_markedJobs;
  quint64 m_projectGeneration = 0; ///< bumped when a project is loaded or closed (late results are dropped)
  /// A folder just listed: its rows and index copy made off the UI thread, for the view that opens on it.
  std::shared_ptr<PreparedDataset> m_preparedDataset;
  qint64 m_preparedDatasetId = -1;
};

} // namespace tpuc::ui

#endif
