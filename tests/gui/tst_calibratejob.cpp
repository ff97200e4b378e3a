// Offscreen test of Run ▸ Calibrate and Run ▸ Deploy with the real engine: a project with an ONNX model and
// a dataset of an image and a tensor file queues transform then calibrate, and the table the engine writes
// becomes a calibration table of the project that survives saving and reopening; an INT8 deploy then uses
// it and records the comparison. The cases without model, samples or engine are refused with a message.
#include "project/ProjectStore.h"
#include "ui/MainWindow.h"
#include "ui/StudioContext.h"
#include "ui/jobs/JobQueue.h"

#include <QApplication>
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
};

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
  QProcess python;
  python.start("/usr/bin/python3", {TPUC_CNN_SCRIPT, dir.path()});
  QVERIFY(python.waitForFinished(60000));
  QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(QString());
  QSignalSpy imported(&window, &MainWindow::modelImported);
  window.importModel(dir.filePath("cnn.onnx"));
  QVERIFY(imported.wait(10000));
  project::ImportSettings settings;
  settings.inputShapes = "[[1,3,8,8]]";
  settings.mean = {0, 0, 0};
  settings.scale = {0.0039, 0.0039, 0.0039};
  settings.pixelFormat = "rgb";
  context.setImportSettings(settings);
  qint64 datasetId = context.addDataset({0, "photos", {{dir.filePath("cnn.png").toStdString(), "{}", {}},
                                                        {dir.filePath("cnn_in.npy").toStdString(), "{}", {}}}});
  QString error;
  QVERIFY2(context.saveAs(dir.filePath("cnn.tpuproj"), &error), qPrintable(error));

  qputenv("TPUC", TPUC_ENGINE);
  QSignalSpy added(&window, &MainWindow::calibrationTableAdded);
  const int id = window.runCalibrate(datasetId, "max");
  qunsetenv("TPUC");
  QVERIFY(id > 0);
  // No Top MLIR in the cache yet: a transform job runs first.
  QCOMPARE(window.jobQueue()->jobs().size(), 2);
  QVERIFY(window.jobQueue()->jobs().front().spec.arguments.startsWith("transform"));
  QVERIFY(added.wait(60000));
  const JobInfo job = *window.jobQueue()->job(id);
  QVERIFY2(job.state == JobState::Succeeded, qPrintable(job.error + "\n" + job.log.join('\n')));
  QCOMPARE(job.fraction, 1.0);
  QCOMPARE(job.artifacts.size(), 1);
  QVERIFY(job.artifacts.front().endsWith("_cali_table"));
  const qint64 tableId = added.front().front().toLongLong();
  QVERIFY(tableId > 0);

  const project::CaliTable &table = context.project().caliTables.back();
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

  // The table is project data: it survives save and reopen.
  QVERIFY2(context.save(&error), qPrintable(error));
  StudioContext reopened;
  QVERIFY2(reopened.openProject(dir.filePath("cnn.tpuproj"), &error), qPrintable(error));
  QCOMPARE(reopened.project().caliTables.size(), std::size_t(1));
  QVERIFY(reopened.project().caliTables.front() == table);

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
  QCOMPARE(context.project().caliTables.size(), std::size_t(1));

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

QTEST_MAIN(TestCalibrateJob)
#include "tst_calibratejob.moc"
