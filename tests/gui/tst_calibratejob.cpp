// Offscreen test of Run ▸ Calibrate and Run ▸ Deploy with the real engine: a project with an ONNX model and
// a dataset of an image and a tensor file queues transform then calibrate, and the table the engine writes
// becomes a calibration table of the project that survives saving and reopening; its activation statistics
// (the job's --report, progress per sample) open on their own, from the table, the run and the View menu;
// an INT8 deploy then uses it and records the comparison. A long calibration is cancelled midway. The cases
// without model, samples or engine are refused with a message.
#include "GuiTestSupport.h"
#include "project/ProjectStore.h"
#include "project/TableFiles.h"
#include "ui/MainWindow.h"
#include "ui/StudioContext.h"
#include "ui/jobs/JobQueue.h"
#include "ui/views/ActivationStatsView.h"
#include "ui/views/TableView.h"

#include <QLabel>
#include <QPushButton>
#include <QTabWidget>

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace tpuc;
using namespace tpuc::ui;

class TestCalibrateJob : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void refusesWithoutModelSamplesOrEngine();
  void calibrateJobStoresTable();
  void calibrateJobCancelsMidway();
};

#ifdef TPUC_ENGINE
namespace {

/// The project of the cnn model (tests/lit/tpuc/Inputs/make_onnx_cnn.py) with its import settings, saved
/// in `dir`; returns the id of a dataset holding `samples`.
qint64 makeCnnProject(const QString &dir, StudioContext &context, MainWindow &window,
                      std::vector<project::Sample> samples) {
  if (QString problem = ui::guitest::runPython(TPUC_CNN_SCRIPT, {dir}); !problem.isEmpty())
    qFatal("%s", qPrintable(problem));
  project::ImportSettings settings;
  settings.inputShapes = "[[1,3,8,8]]";
  settings.mean = {0, 0, 0};
  settings.scale = {0.0039, 0.0039, 0.0039};
  settings.pixelFormat = "rgb";
  if (QString problem = ui::guitest::startWithModel(window, context, dir + "/cnn.onnx", settings);
      !problem.isEmpty())
    qFatal("%s", qPrintable(problem));
  const qint64 datasetId = context.addDataset({0, "photos", std::move(samples)});
  QString error;
  if (!context.saveAs(dir + "/cnn.tpuproj", &error))
    qFatal("%s", qPrintable(error));
  return datasetId;
}

} // namespace
#endif

void TestCalibrateJob::refusesWithoutModelSamplesOrEngine() {
  QTemporaryDir dir;
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(QString());
  QCOMPARE(window.runCalibrate(), -1); // no model
  QFile model(dir.filePath("m.onnx"));
  QVERIFY(model.open(QIODevice::WriteOnly));
  model.write("not really onnx");
  model.close();
  QSignalSpy imported(&window, &MainWindow::modelImported);
  window.importModel(dir.filePath("m.onnx"));
  QVERIFY(imported.wait(10000));
  QCOMPARE(window.runCalibrate(), -1); // untitled project: no cache folder
  QString error;
  QVERIFY2(context.saveAs(dir.filePath("m.tpuproj"), &error), qPrintable(error));
  qputenv("TPUC", "/nonexistent/tpuc");
  QCOMPARE(window.runCalibrate(), -1); // no engine
#ifdef TPUC_ENGINE
  qputenv("TPUC", TPUC_ENGINE);
  QCOMPARE(window.runCalibrate(), -1); // no samples
#endif
  qunsetenv("TPUC");
  QCOMPARE(window.jobQueue()->jobs().size(), 0);
}

void TestCalibrateJob::calibrateJobStoresTable() {
#ifndef TPUC_ENGINE
  QSKIP("the tpuc target is not part of this build");
#else
  QTemporaryDir dir;
  StudioContext context;
  MainWindow window(&context);
  const qint64 datasetId = makeCnnProject(dir.path(), context, window,
                                          {{dir.filePath("cnn.png").toStdString(), "{}", {}},
                                           {dir.filePath("cnn_in.npy").toStdString(), "{}", {}}});
  QString error;

  qputenv("TPUC", TPUC_ENGINE);
  QSignalSpy added(&window, &MainWindow::calibrationTableAdded);
  const int id = window.runCalibrate(datasetId, "max");
  qunsetenv("TPUC");
  QVERIFY(id > 0);
  // Progress per sample, as the engine reports it.
  QStringList messages;
  connect(window.jobQueue(), &JobQueue::jobChanged, this, [&](int changed) {
    if (changed == id && (messages.isEmpty() || messages.back() != window.jobQueue()->job(id)->message))
      messages << window.jobQueue()->job(id)->message;
  });
  // No Top MLIR in the cache yet: a transform job runs first.
  QCOMPARE(window.jobQueue()->jobs().size(), 2);
  QVERIFY(window.jobQueue()->jobs().front().spec.arguments.startsWith("transform"));
  QVERIFY(added.wait(60000));
  const JobInfo job = *window.jobQueue()->job(id);
  QVERIFY2(job.state == JobState::Succeeded, qPrintable(job.error + "\n" + job.log.join('\n')));
  QCOMPARE(job.fraction, 1.0);
  // The table, then the report the studio asked for.
  QCOMPARE(job.artifacts.size(), 3);
  QVERIFY(job.artifacts.front().endsWith("_cali_table"));
  QVERIFY(job.artifacts[1].endsWith("/histograms.json") && job.artifacts[2].endsWith("/convergence.json"));
  const qint64 tableId = added.front().front().toLongLong();
  QVERIFY(tableId > 0);

  QVERIFY2(messages.contains("sample 1/2") && messages.contains("sample 2/2"),
           qPrintable(messages.join(" | ")));
  const project::CaliTable table = context.project().caliTables.back(); // a copy: more tables follow
  QCOMPARE(table.id, tableId);
  QCOMPARE(table.name, std::string("cnn photos max"));
  QVERIFY2(QString::fromStdString(table.comment).contains("2 samples"), table.comment.c_str());
  // Every tensor of the float model in graph order, by its ONNX tensor name: input, conv+bn+relu, pool,
  // flatten, fc, softmax (node "softmax", tensor "prob").
  QVERIFY(table.entries.size() >= 5);
  QCOMPARE(table.entries.front().opName, std::string("data"));
  QCOMPARE(table.entries.back().opName, std::string("prob"));
  for (const project::CaliEntry &e : table.entries) {
    // max: the threshold is the largest magnitude seen.
    QVERIFY2(std::abs(e.threshold - std::max(std::abs(e.min), std::abs(e.max))) <= 1e-6 * std::max(1.0, e.threshold) ||
                 e.threshold == 1e-5,
             e.opName.c_str());
  }
  // The image input is scaled to [0, 1], the .npy one is a normal sample: the range covers both.
  QVERIFY(table.entries.front().min < 0);
  QVERIFY(table.entries.back().max <= 1.0);

  // The job kept its activation statistics (the JSON only: the view draws them) in a folder of its own,
  // which opened when the table arrived.
  const int report = job.spec.arguments.indexOf("--report");
  QVERIFY2(report > 0, qPrintable(job.spec.arguments.join(' ')));
  const QString folder = job.spec.arguments.at(report + 1);
  QVERIFY2(folder.contains("/calibration-reports/"), qPrintable(folder));
  QVERIFY(job.spec.arguments.join(' ').contains("--report_figures 0"));
  QCOMPARE(calibrationReportOfTable(context, tableId), folder);
  auto *stats = qobject_cast<ActivationStatsView *>(window.centralTabs()->currentWidget());
  QVERIFY(stats);
  QCOMPARE(stats->folder(), folder);
  QCOMPARE(stats->tableId(), tableId);
  QTRY_VERIFY_WITH_TIMEOUT(stats->report() || !stats->error().isEmpty(), 10000);
  QVERIFY2(stats->report(), qPrintable(stats->error()));
  QCOMPARE(stats->report()->samples, 2);
  QCOMPARE(stats->report()->chosen, QString("max"));
  QCOMPARE(stats->report()->tensors.size(), static_cast<qsizetype>(table.entries.size()));
  for (std::size_t i = 0; i < table.entries.size(); ++i) {
    const vis::TensorReport &t = stats->report()->tensors[static_cast<qsizetype>(i)];
    QCOMPARE(t.name.toStdString(), table.entries[i].opName);
    QVERIFY(std::abs(t.threshold("max") - table.entries[i].threshold) <=
            1e-4 * std::max(1.0, t.threshold("max")));
  }
  // Two samples cannot show that the thresholds settled (at least 4 are needed).
  QVERIFY2(stats->banner()->text().contains("Add more samples"), qPrintable(stats->banner()->text()));
  window.resize(1400, 900);
  QDir().mkpath(TPUC_SCREENSHOT_DIR);
  QVERIFY(window.grab().save(QStringLiteral(TPUC_SCREENSHOT_DIR "/calibrate-job-activation-stats.png")));
  // The table's tab offers them; so do View ▸ Activation Statistics and the run of the job.
  const int tabs = window.centralTabs()->count();
  context.activate({Section::CaliTables, tableId});
  auto *tableView = qobject_cast<TableView *>(window.centralTabs()->currentWidget());
  QVERIFY(tableView && tableView->statisticsButton());
  QVERIFY(tableView->statisticsButton()->isEnabled());
  tableView->statisticsButton()->click();
  QCOMPARE(window.centralTabs()->currentWidget(), stats);
  QCOMPARE(window.openActivationStats(), stats);
  QCOMPARE(window.centralTabs()->count(), tabs + 1); // the table's tab, no second statistics tab
  auto calibrateRun = [&]() -> qint64 {
    for (const project::RunRecord &r : context.project().runs)
      if (QString::fromStdString(r.configName).startsWith("Calibrate"))
        return r.id;
    return -1;
  };
  QTRY_VERIFY_WITH_TIMEOUT(calibrateRun() > 0, 10000);
  QCOMPARE(calibrationReportOfRun(*context.project().findRun(calibrateRun())), folder);
  context.activate({Section::CaliTables, tableId});
  context.activate({Section::Runs, calibrateRun()});
  QCOMPARE(window.centralTabs()->currentWidget(), stats);
  // An imported table has none: its button is off and the menu says why.
  QFile tableFile(dir.filePath("imported_table"));
  QVERIFY(tableFile.open(QIODevice::WriteOnly));
  tableFile.write(QByteArray::fromStdString(project::formatCaliTable(table)));
  tableFile.close();
  const qint64 imported = window.importTableFile(dir.filePath("imported_table"), Section::CaliTables);
  QVERIFY(imported > 0);
  auto *importedView = qobject_cast<TableView *>(window.centralTabs()->currentWidget());
  QVERIFY(importedView && !importedView->statisticsButton()->isEnabled());
  QVERIFY(!window.openActivationStats(imported));
  context.select({Section::CaliTables, imported}); // the selected table's, which has none
  QVERIFY(!window.openActivationStats());
  context.select({Section::Notes, -1}); // else the newest table with statistics
  QCOMPARE(window.openActivationStats(), stats);

  // The table is project data: it survives save and reopen, and so does the link to its report.
  QVERIFY2(context.save(&error), qPrintable(error));
  StudioContext reopened;
  QVERIFY2(
      reopened.openProject(dir.filePath("cnn.tpuproj"), &error, StudioContext::OpenMode::ReadOnlyIfLocked),
      qPrintable(error));
  QCOMPARE(reopened.project().caliTables.size(), std::size_t(2));
  QVERIFY(reopened.project().caliTables.front() == table);
  QCOMPARE(calibrationReportOfTable(reopened, tableId), folder);

  // A second run finds the Top MLIR in the cache and queues calibrate alone; a broken sample fails the job
  // with the file named, and no table is added.
  context.addSamples(datasetId, {{dir.filePath("missing.png").toStdString(), "{}", {}}});
  qputenv("TPUC", TPUC_ENGINE);
  const int failing = window.runCalibrate(datasetId);
  qunsetenv("TPUC");
  QCOMPARE(window.jobQueue()->jobs().size(), 3);
  QVERIFY(added.wait(60000));
  QCOMPARE(added.back().front().toLongLong(), qint64(-1));
  const JobInfo failed = *window.jobQueue()->job(failing);
  QCOMPARE(failed.state, JobState::Failed);
  QVERIFY2(failed.error.contains("missing.png"), qPrintable(failed.error));
  QCOMPARE(context.project().caliTables.size(), std::size_t(2));

  // Run > Deploy with an INT8 configuration uses that table and the first sample as test input; the run
  // keeps the output comparison, the Tpu MLIR and the side-by-side CSV.
  qint64 configId = context.addCompileConfig({0, "int8", "bm1684x", "INT8", "{}"});
  qputenv("TPUC", TPUC_ENGINE);
  const int deploy = window.runDeploy(configId);
  qunsetenv("TPUC");
  QVERIFY(deploy > 0);
  // Runs are recorded off the UI thread: wait for this job's record, not for an earlier job's.
  auto deployRecorded = [&] {
    const auto &runs = context.project().runs;
    return !runs.empty() && QString::fromStdString(runs.back().configName).startsWith("Deploy");
  };
  QTRY_VERIFY_WITH_TIMEOUT(deployRecorded(), 60000);
  const JobInfo deployed = *window.jobQueue()->job(deploy);
  QVERIFY2(deployed.state == JobState::Succeeded, qPrintable(deployed.error + "\n" + deployed.log.join('\n')));
  QVERIFY(deployed.spec.arguments.contains("--calibration_table"));
  QVERIFY(deployed.spec.arguments.contains("--compare_all"));
  QStringList kinds;
  for (const QString &artifact : deployed.artifacts)
    kinds << artifact.section(QLatin1Char('_'), -1);
  QVERIFY2(kinds.contains("int8.tpu.mlir") && kinds.contains("compare.csv"), qPrintable(kinds.join(' ')));
  const project::RunRecord &run = context.project().runs.back();
  QCOMPARE(run.status, std::string("ok"));
  QVERIFY2(QString::fromStdString(run.summaryJson).contains("\"prob\""), run.summaryJson.c_str());
#endif
}

void TestCalibrateJob::calibrateJobCancelsMidway() {
#ifndef TPUC_ENGINE
  QSKIP("the tpuc target is not part of this build");
#else
  // 20,000 samples of the small CNN: cancelled at its first sample's progress, the job stops there (the
  // engine is killed) and no table is added.
  QTemporaryDir dir;
  StudioContext context;
  MainWindow window(&context);
  std::vector<project::Sample> samples(20000,
                                       project::Sample{dir.filePath("cnn_in.npy").toStdString(), "{}", {}});
  const qint64 datasetId = makeCnnProject(dir.path(), context, window, std::move(samples));
  qputenv("TPUC", TPUC_ENGINE);
  QSignalSpy added(&window, &MainWindow::calibrationTableAdded);
  const int id = window.runCalibrate(datasetId, "kl");
  qunsetenv("TPUC");
  QVERIFY(id > 0);
  QString cancelledAt;
  connect(window.jobQueue(), &JobQueue::jobChanged, this, [&](int changed) {
    const std::optional<JobInfo> job = window.jobQueue()->job(changed);
    if (changed == id && cancelledAt.isEmpty() && job->message.startsWith("sample ")) {
      cancelledAt = job->message;
      window.jobQueue()->cancel(id);
    }
  });
  QVERIFY(added.wait(120000));
  QCOMPARE(added.back().front().toLongLong(), qint64(-1));
  const JobInfo job = *window.jobQueue()->job(id);
  QCOMPARE(job.state, JobState::Cancelled);
  QVERIFY2(cancelledAt.endsWith("/20000") && cancelledAt != "sample 20000/20000", qPrintable(cancelledAt));
  QVERIFY2(job.fraction < 1.0, qPrintable(QString::number(job.fraction)));
  QVERIFY(context.project().caliTables.empty());
  QVERIFY(!qobject_cast<ActivationStatsView *>(window.centralTabs()->currentWidget()));
#endif
}

QTEST_MAIN(TestCalibrateJob)
#include "tst_calibratejob.moc"
