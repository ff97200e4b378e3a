// Offscreen tests of the studio's deploy job: the `tpuc deploy` command line a compile configuration makes
// (tables and test input from the project), configurations surviving the project file, the deploy dialog,
// a crashing deploy child reported with its log tail, and resnet18 INT8 end to end with the real engine
// (calibrate, two deploys, the accuracy view comparing them; screenshots).
#include "Screenshots.h"
#include "project/ProjectStore.h"
#include "ui/DeployDialog.h"
#include "ui/MainWindow.h"
#include "ui/StudioContext.h"
#include "ui/jobs/DeployJob.h"
#include "ui/jobs/JobQueue.h"
#include "ui/views/AccuracyView.h"
#include "ui/views/GraphViewTab.h"
#include "ui/views/PassInspectorView.h"
#include "ui/views/TensorsTab.h"
#include "visualizer/GraphOverlay.h"
#include "visualizer/GraphView.h"
#include "visualizer/SideBySide.h"
#include "visualizer/TensorViewer.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <cmath>

using namespace tpuc;
using namespace tpuc::ui;

namespace {

using tpuc::ui::guitest::screenshotDir;

project::Project projectWithTables() {
  project::Project p;
  p.caliTables.push_back({1, "photos kl", 1, "", "", {{"conv", 2.5, -1, 2.5}}});
  p.caliTables.push_back({2, "photos kl", 2, "", "", {{"conv", 3.0, -1, 3.0}}});
  p.quantTables.push_back({1, "mixed precision", 1, "", "", {{"conv", "F16"}}});
  p.datasets.push_back({1, "photos", {{"/data/dog.jpg", "{}", {}}, {"/data/cat.png", "{}", {}}}});
  return p;
}

} // namespace

class TestDeployJob : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void commandLineFromConfiguration();
  void configurationSurvivesTheProjectFile();
  void dialogEditsAConfiguration();
  void crashedDeployIsReported();
  void resnet18Int8EndToEnd();
};

void TestDeployJob::commandLineFromConfiguration() {
  DeploySettings s;
  s.options.chip = "bm1688";
  s.options.quantize = "INT8";
  s.options.asymmetric = true;
  s.caliTableName = "photos kl";
  s.caliTableVersion = 1;
  s.quantTableName = "mixed precision";
  s.quantTableVersion = 1;
  s.options.qGroupSize = 64; // not a weight-only mode: not passed
  s.testInput = "/data/cat.png";
  s.options.tolerance = "0.99,0.9";
  const DeployPaths paths{"/c/m.top.mlir", "/c/cali.txt", "/c/q.txt", "/data/cat.png", "/c/m_int8.tpu.mlir"};
  QCOMPARE(deployArguments(s, paths),
           QStringList({"deploy", "--mlir", "/c/m.top.mlir", "--quantize", "INT8", "--chip", "bm1688", "--asymmetric",
                        "--calibration_table", "/c/cali.txt", "--quantize_table", "/c/q.txt", "--test_input",
                        "/data/cat.png", "--tolerance", "0.99,0.9", "--compare_all", "--tpu_mlir", "/c/m_int8.tpu.mlir",
                        "--progress", "json"}));
  // Weight-only with a group size; no test input: no comparison, tpuc's default tolerance.
  DeploySettings w4;
  w4.options.quantize = "W4F16";
  w4.options.qGroupSize = 128;
  QCOMPARE(deployArguments(w4, {"/c/m.top.mlir", {}, {}, {}, "/c/m.tpu.mlir"}),
           QStringList({"deploy", "--mlir", "/c/m.top.mlir", "--quantize", "W4F16", "--chip", "bm1684x",
                        "--q_group_size", "128", "--tpu_mlir", "/c/m.tpu.mlir", "--progress", "json"}));
  DeployPaths recorded{"/c/m.top.mlir", {}, {}, {}, "/c/m.tpu.mlir", "/c/snapshots/m-deploy-1"};
  QCOMPARE(deployArguments(w4, recorded).mid(7),
           QStringList({"--q_group_size", "128", "--tpu_mlir", "/c/m.tpu.mlir", "--snapshots",
                        "/c/snapshots/m-deploy-1", "--progress", "json"}));

  // Settings round trip through a configuration's options, keeping keys an older project file may hold.
  project::CompileConfig config{7, "int8-asym", "bm1684x", "F32", R"({"from_an_older_studio": 1})"};
  config = withDeploySettings(config, s);
  QCOMPARE(config.chip, std::string("bm1688"));
  QCOMPARE(config.precision, std::string("INT8"));
  QVERIFY(QString::fromStdString(config.optionsJson).contains("from_an_older_studio"));
  QCOMPARE(deploySettingsOf(config), s);
  // model_deploy's boundary and comparison flags: stored, read back, passed on to tpuc deploy.
  DeploySettings q = s;
  q.options.quantInput = q.options.quantOutput = true;
  q.options.excepts = {"relu_0", "pool1"};
  config = withDeploySettings(config, q);
  QCOMPARE(deploySettingsOf(config), q);
  QVERIFY(checkDeployOptions(QString::fromStdString(config.optionsJson)).contains("from_an_older_studio"));
  const QStringList qa = deployArguments(q, {"/c/m.top.mlir", {}, {}, {}, "/c/m.tpu.mlir"});
  QVERIFY(qa.contains("--quant_input") && qa.contains("--quant_output"));
  QCOMPARE(qa.at(qa.indexOf("--excepts") + 1), QString("relu_0,pool1"));
  QVERIFY(!deployArguments(s, {"/c/m.top.mlir", {}, {}, {}, "/c/m.tpu.mlir"}).contains("--quant_input"));
  DeploySettings fused = s;
  fused.options.fusePreprocess = true;
  fused.options.customizationFormat = "BGR_PACKED";
  config = withDeploySettings(config, fused);
  QCOMPARE(deploySettingsOf(config), fused);
  const QStringList fa = deployArguments(fused, {"/c/m.top.mlir", {}, {}, {}, "/c/m.tpu.mlir"});
  QVERIFY(fa.contains("--fuse_preprocess"));
  QCOMPARE(fa.at(fa.indexOf("--customization_format") + 1), QString("BGR_PACKED"));
  QVERIFY(checkDeployOptions(R"({"customization_format": "YUV_NV12"})").contains("'customization_format'"));
  // --num_core: stored only when more than one core, passed on as model_deploy's flag.
  DeploySettings two = s;
  two.options.numCore = 2;
  config = withDeploySettings(config, two);
  QCOMPARE(deploySettingsOf(config), two);
  const QStringList ta = deployArguments(two, {"/c/m.top.mlir", {}, {}, {}, "/c/m.tpu.mlir"});
  QCOMPARE(ta.at(ta.indexOf("--num_core") + 1), QString("2"));
  QVERIFY(!deployArguments(s, {"/c/m.top.mlir", {}, {}, {}, "/c/m.tpu.mlir"}).contains("--num_core"));
  QVERIFY(!QString::fromStdString(withDeploySettings(config, s).optionsJson).contains("num_core"));
  QCOMPARE(checkDeployOptions(R"({"num_core": 2})"), QString());
  QVERIFY(checkDeployOptions(R"({"num_core": 0})").contains("'num_core'"));
  QVERIFY(checkDeployOptions(R"({"num_core": 1.5})").contains("'num_core'"));
  // What the configuration editor accepts: deploy options with values of their type, nothing else.
  QCOMPARE(checkDeployOptions(R"({"quant_input": true, "excepts": ["a"], "q_group_size": 64})"), QString());
  QVERIFY(checkDeployOptions(R"({"quant_inputs": true})").startsWith("unknown option 'quant_inputs'"));
  // Found by the studio-json fuzzer: a key with a line break is quoted with JSON's escapes, on one line.
  QVERIFY(checkDeployOptions(QStringLiteral("{\"a\\nb\": 1}")).startsWith("unknown option 'a\\nb'"));
  QVERIFY(checkDeployOptions(R"({"quant_input": "yes"})").contains("'quant_input'"));
  QVERIFY(checkDeployOptions(R"({"excepts": "a,b"})").contains("'excepts'"));
  QVERIFY(checkDeployOptions(R"({"q_group_size": 1.5})").contains("'q_group_size'"));
  QVERIFY(!checkDeployOptions("[1]").isEmpty());

  // Which tables a configuration uses: the named version, the newest when unnamed, none when gone.
  const project::Project p = projectWithTables();
  QCOMPARE(deployCaliTable(p, s)->version, 1);
  QCOMPARE(deployCaliTable(p, DeploySettings{})->version, 2);
  QCOMPARE(deployQuantTable(p, s)->id, qint64(1));
  DeploySettings gone = s;
  gone.caliTableVersion = 9;
  gone.quantTableName = "other";
  QVERIFY(!deployCaliTable(p, gone));
  QVERIFY(!deployQuantTable(p, gone));
  QVERIFY(!deployQuantTable(p, DeploySettings{}));
  QCOMPARE(defaultTolerance("BF16"), QString("0.99,0.90"));
}

void TestDeployJob::configurationSurvivesTheProjectFile() {
  QTemporaryDir dir;
  StudioContext context;
  DeploySettings s;
  s.options.chip = "cv186ah";
  s.options.quantize = "W8BF16";
  s.options.qGroupSize = 32;
  s.quantTableName = "mixed precision";
  s.quantTableVersion = 2;
  s.testInput = dir.filePath("x.npz");
  const qint64 id = context.addCompileConfig(withDeploySettings({0, "w8", "bm1684x", "F32", "{}"}, s));
  QString error;
  QVERIFY2(context.saveAs(dir.filePath("p.tpuproj"), &error), qPrintable(error));
  StudioContext reopened;
  QVERIFY2(reopened.openProject(dir.filePath("p.tpuproj"), &error, StudioContext::OpenMode::ReadOnlyIfLocked),
           qPrintable(error));
  QCOMPARE(reopened.project().compileConfigs.size(), std::size_t(1));
  QCOMPARE(reopened.project().compileConfigs[0].id, id);
  QCOMPARE(deploySettingsOf(reopened.project().compileConfigs[0]), s);
}

void TestDeployJob::dialogEditsAConfiguration() {
  const project::Project p = projectWithTables();
  DeployDialog dialog(p, {3, "int8", "bm1684x", "INT8", "{}"});
  auto *quantize = dialog.findChild<QComboBox *>("quantize");
  auto *caliTable = dialog.findChild<QComboBox *>("calibrationTable");
  auto *quantTable = dialog.findChild<QComboBox *>("quantizeTable");
  auto *testInput = dialog.findChild<QComboBox *>("testInput");
  auto *asymmetric = dialog.findChild<QCheckBox *>("asymmetric");
  auto *groupSize = dialog.findChild<QSpinBox *>("qGroupSize");
  auto *tolerance = dialog.findChild<QLineEdit *>("tolerance");
  QVERIFY(quantize && caliTable && quantTable && testInput && asymmetric && groupSize && tolerance);
  auto *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
  QCOMPARE(quantize->currentText(), QString("INT8"));
  QVERIFY(caliTable->isEnabled() && asymmetric->isEnabled() && !groupSize->isEnabled());
  QCOMPARE(caliTable->count(), 3); // newest + two versions, newest version listed first
  caliTable->setCurrentIndex(2);
  quantTable->setCurrentIndex(1);
  testInput->setCurrentIndex(2);
  asymmetric->setChecked(true);
  QVERIFY(ok->isEnabled());
  DeploySettings s = dialog.settings();
  QCOMPARE(s.caliTableName, QString("photos kl"));
  QCOMPARE(s.caliTableVersion, 1);
  QCOMPARE(s.quantTableName, QString("mixed precision"));
  QCOMPARE(s.testInput, QString("/data/cat.png"));
  QVERIFY(s.options.asymmetric);
  QCOMPARE(dialog.config().id, qint64(3));
  QCOMPARE(dialog.config().name, std::string("int8"));
  // Cores: one on bm1684x; bm1688's two can be chosen, and going back to a one-core chip clamps to one.
  auto *cores = dialog.findChild<QSpinBox *>("numCore");
  auto *chip = dialog.findChild<QComboBox *>("chip");
  QVERIFY(cores && chip);
  QVERIFY(!cores->isEnabled());
  chip->setCurrentText("bm1688");
  QVERIFY(cores->isEnabled());
  cores->setValue(2);
  QCOMPARE(dialog.settings().options.numCore, qint64(2));
  QVERIFY(dialog.config().optionsJson.find("\"num_core\":2") != std::string::npos);
  chip->setCurrentText("bm1684x");
  QCOMPARE(dialog.settings().options.numCore, qint64(1));
  dialog.resize(dialog.sizeHint().expandedTo(QSize(560, 0)));
  QVERIFY(dialog.grab().save(screenshotDir() + "/deploy-dialog.png"));
  // A bad tolerance blocks OK with a reason; W4 enables the group size and drops the INT8-only fields.
  tolerance->setText("high");
  QVERIFY(!ok->isEnabled());
  QVERIFY(dialog.problem().contains("Tolerance"));
  tolerance->clear();
  quantize->setCurrentText("W4BF16");
  QVERIFY(groupSize->isEnabled() && !caliTable->isEnabled() && !asymmetric->isEnabled());
  groupSize->setValue(128);
  s = dialog.settings();
  QCOMPARE(s.options.qGroupSize, qint64(128));
  QVERIFY(!s.options.asymmetric && s.caliTableName.isEmpty());
  // INT8 in a project without calibration tables cannot be accepted.
  DeployDialog bare(project::Project{}, {0, "x", "bm1684x", "INT8", "{}"});
  QVERIFY(bare.problem().contains("calibration table"));
}

void TestDeployJob::crashedDeployIsReported() {
  // A stand-in tpuc that records its command line and dies of a segmentation fault mid-way.
  QTemporaryDir dir;
  const QString script = dir.filePath("tpuc");
  QFile file(script);
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write("#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$(dirname \"$0\")/args.txt\"\n"
             "echo 'lowering conv1 to INT8' >&2\nkill -SEGV $$\n");
  file.close();
  QVERIFY(file.setPermissions(file.permissions() | QFileDevice::ExeOwner));
  QFile model(dir.filePath("m.onnx"));
  QVERIFY(model.open(QIODevice::WriteOnly));
  model.write("not read by the stand-in");
  model.close();

  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(QString());
  context.setModel({dir.filePath("m.onnx").toStdString(), "sha256:00", 24, "onnx", {}});
  const std::string sample = dir.filePath("m.onnx").toStdString(); // any existing file stands for a sample
  context.addDataset({0, "photos", {{sample, "{}", {}}}});
  context.addCaliTable({0, "photos kl", 1, "", "", {{"conv1", 2.0, -2.0, 2.0}}});
  context.addQuantTable({0, "mixed precision", 1, "", "", {{"conv1", "F16"}}});
  DeploySettings s;
  s.options.quantize = "INT8";
  s.quantTableName = "mixed precision";
  s.quantTableVersion = 1;
  const qint64 configId = context.addCompileConfig(withDeploySettings({0, "int8 mixed", "bm1684x", "F32", "{}"}, s));
  QString error;
  QVERIFY2(context.saveAs(dir.filePath("m.tpuproj"), &error), qPrintable(error));
  const QString cache = QString::fromStdString(project::cacheDirFor(dir.filePath("m.tpuproj").toStdString()).string());
  QDir().mkpath(cache);
  QFile top(cache + "/m.top.mlir"); // the Top IR is there: no transform job first
  QVERIFY(top.open(QIODevice::WriteOnly));
  top.close();

  qputenv("TPUC", script.toUtf8());
  QSignalSpy recorded(&window, &MainWindow::runRecorded);
  const int id = window.runDeploy(configId);
  qunsetenv("TPUC");
  QVERIFY(id > 0);
  QCOMPARE(window.jobQueue()->jobs().size(), 1);
  QVERIFY(recorded.wait(30000));
  const JobInfo job = *window.jobQueue()->job(id);
  QCOMPARE(job.state, JobState::Failed);
  QVERIFY2(job.error.contains("crashed (segmentation fault)") && job.error.contains("lowering conv1"),
           qPrintable(job.error));
  const project::RunRecord &run = context.project().runs.back();
  QCOMPARE(run.status, std::string("failed"));
  QVERIFY2(QString::fromStdString(run.summaryJson).contains("crashed"), run.summaryJson.c_str());
  QCOMPARE(run.layerMetricsJson, std::string("[]"));
  QVERIFY(!window.openAccuracy(run.id)); // nothing to show, and no crash

  // The command line the configuration made, and the tables written as the engine reads them.
  QFile argsFile(dir.filePath("args.txt"));
  QVERIFY(argsFile.open(QIODevice::ReadOnly));
  const QStringList args = QString::fromUtf8(argsFile.readAll()).split('\n', Qt::SkipEmptyParts);
  const QString cali = cache + "/deploy-cali-table1-v1.txt", qtable = cache + "/deploy-qtable1-v1.txt";
  QCOMPARE(args.mid(0, 16), QStringList({"deploy", "--mlir", cache + "/m.top.mlir", "--quantize", "INT8", "--chip",
                                          "bm1684x", "--calibration_table", cali, "--quantize_table", qtable,
                                          "--test_input", QString::fromStdString(sample), "--compare_all",
                                          "--tpu_mlir", cache + "/m_bm1684x_int8.tpu.mlir"}));
  // The run records the Top input and the lowered module for the pass inspector, in a fresh folder, and
  // goes the whole way to a model file.
  QCOMPARE(args.size(), 22);
  QCOMPARE(args[16], QString("--snapshots"));
  QVERIFY2(args[17].startsWith(cache + "/snapshots/m-deploy-"), qPrintable(args[17]));
  QCOMPARE(args.mid(18), QStringList({"--model", cache + "/m_bm1684x_int8.tpum", "--progress", "json"}));
  QFile qtableFile(qtable);
  QVERIFY(qtableFile.open(QIODevice::ReadOnly));
  QVERIFY(qtableFile.readAll().contains("conv1 F16"));

  // A configuration naming a table the project no longer has is refused before anything runs.
  context.undoStack()->undo(); // the configuration
  context.undoStack()->undo(); // the quantize table
  const qint64 again = context.addCompileConfig(withDeploySettings({0, "int8 mixed", "bm1684x", "F32", "{}"}, s));
  qputenv("TPUC", script.toUtf8());
  QCOMPARE(window.runDeploy(again), -1);
  qunsetenv("TPUC");
  QCOMPARE(window.jobQueue()->jobs().size(), 1);
}

void TestDeployJob::resnet18Int8EndToEnd() {
#ifndef TPUC_ENGINE
  QSKIP("this build has no tpuc");
#else
  const QString assets = QString::fromLocal8Bit(qgetenv("TPUC_ASSETS")).isEmpty()
                             ? QDir::homePath() + "/.cache/tpu-studio/assets"
                             : QString::fromLocal8Bit(qgetenv("TPUC_ASSETS"));
  const QString onnx = assets + "/models/resnet18.onnx";
  if (!QFileInfo::exists(onnx))
    QFAIL(qPrintable(onnx + " is missing: run scripts/fetch-assets.sh"));
  QTemporaryDir dir;
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(QString());
  window.resize(1500, 950);
  QSignalSpy imported(&window, &MainWindow::modelImported);
  window.importModel(onnx);
  QVERIFY(imported.wait(30000));
  project::ImportSettings settings;
  settings.inputShapes = "[[1,3,224,224]]";
  settings.mean = {123.675, 116.28, 103.53};
  settings.scale = {0.0171, 0.0175, 0.0174};
  context.setImportSettings(settings);
  // The test input (dog.jpg) first; calibration on photos that do not include it would be the rule for a
  // real evaluation, here the point is the studio's path.
  std::vector<project::Sample> samples;
  for (const char *name : {"dog.jpg", "eagle.jpg", "giraffe.jpg", "horses.jpg", "kite.jpg", "person.jpg",
                           "china.jpg", "flower.jpg"})
    samples.push_back({(assets + "/images/" + name).toStdString(), "{}", {}});
  const qint64 datasetId = context.addDataset({0, "photos", samples});
  QString error;
  QVERIFY2(context.saveAs(dir.filePath("resnet18.tpuproj"), &error), qPrintable(error));

  qputenv("TPUC", TPUC_ENGINE);
  QSignalSpy tableAdded(&window, &MainWindow::calibrationTableAdded);
  QVERIFY(window.runCalibrate(datasetId, "kl") > 0);
  QVERIFY(tableAdded.wait(240000));
  QVERIFY(tableAdded.front().front().toLongLong() > 0);

  // Two INT8 configurations with a strict tolerance, so the table has NOT_SIMILAR rows to look at.
  auto deploy = [&](const std::string &name, bool asymmetric) -> qint64 {
    DeploySettings s;
    s.options.quantize = "INT8";
    s.options.asymmetric = asymmetric;
    s.options.tolerance = "0.9995,0.97";
    const qint64 config = context.addCompileConfig(withDeploySettings({0, name, "bm1684x", "F32", "{}"}, s));
    const std::size_t before = context.project().runs.size();
    const int job = window.runDeploy(config);
    if (job <= 0)
      return -1;
    if (!QTest::qWaitFor([&] { return context.project().runs.size() > before &&
                                      QString::fromStdString(context.project().runs.back().configName).contains(
                                          QString::fromStdString(name)); }, 240000))
      return -1;
    return context.project().runs.back().id;
  };
  const qint64 symmetric = deploy("int8-sym", false);
  QVERIFY(symmetric > 0);
  const qint64 asymmetricRun = deploy("int8-asym", true);
  qunsetenv("TPUC");
  QVERIFY(asymmetricRun > 0);

  const project::RunRecord &run = context.project().runs.back();
  const AccuracyReport report = accuracyOfRun(run);
  QVERIFY2(report.layers.size() > 20, run.layerMetricsJson.c_str());
  QVERIFY(report.hasIsolated());
  QCOMPARE(report.layers.front().name, QString("input"));
  QCOMPARE(report.layers.back().name, QString("output")); // the ONNX graph output, produced by /fc/Gemm
  QVERIFY2(report.layers.back().accumulated.cosine >= 0.99, qPrintable(QString::number(report.layers.back().accumulated.cosine)));
  // Isolated error is at most the accumulated error (each op fed exact inputs cannot pile up error).
  for (const LayerAccuracy &l : report.layers)
    QVERIFY2(l.isolated.cosine >= l.accumulated.cosine - 1e-4, qPrintable(l.name));

  AccuracyView *view = window.openAccuracy(asymmetricRun);
  QVERIFY(view);
  QCOMPARE(window.centralTabs()->currentWidget(), view);
  QCOMPARE(view->comparedRun(), symmetric);
  QCOMPARE(view->model()->rowCount(), static_cast<int>(report.layers.size()));
  const int failing = report.indexOf(report.firstFailing);
  QVERIFY(failing > 0);
  context.selectOp(report.firstFailing);
  QCOMPARE(view->currentLayer(), report.firstFailing);
  QTest::qWait(50);
  QVERIFY(window.grab().save(screenshotDir() + "/accuracy-resnet18-int8.png"));
  QVERIFY(view->grab().save(screenshotDir() + "/accuracy-view-resnet18-int8.png"));

  view->setFilterMode(AccuracyFilter::ErrorBorn); // sorts by isolated cosine, worst first
  QCOMPARE(view->filter()->rowCount(), 10);
  const QString worst = view->filter()->index(0, AccuracyModel::Name).data().toString();
  view->table()->setCurrentIndex(view->filter()->index(0, AccuracyModel::Name));
  QVERIFY(view->grab().save(screenshotDir() + "/accuracy-view-error-born.png"));
  // The tensor viewer on that layer: the run kept every Top and Tpu tensor; its cosine is the accuracy
  // table's accumulated one, and the calibration table's threshold is there.
  Q_EMIT view->tensorsRequested(asymmetricRun, worst);
  auto *tensors = qobject_cast<TensorsTab *>(window.centralTabs()->currentWidget());
  QVERIFY(tensors);
  QSignalSpy loaded(tensors, &TensorsTab::loadFinished);
  QVERIFY(tensors->loaded() || loaded.wait(60000));
  QVERIFY2(loaded.isEmpty() || loaded.front().front().toString().isEmpty(),
           qPrintable(loaded.front().front().toString()));
  QCOMPARE(tensors->viewer()->tensorName(), worst);
  const LayerAccuracy &worstRow = report.layers[report.indexOf(worst)];
  QVERIFY2(std::abs(tensors->viewer()->stats().cosine - worstRow.accumulated.cosine) < 1e-4,
           qPrintable(QString("viewer %1, table %2")
                          .arg(tensors->viewer()->stats().cosine)
                          .arg(worstRow.accumulated.cosine)));
  QVERIFY(tensors->viewer()->stats().hasThreshold);
  QVERIFY(tensors->viewer()->layout().planes > 1);
  tensors->viewer()->setPlane(3);
  QCOMPARE(tensors->viewer()->plane(), 3);
  QCoreApplication::processEvents();
  QVERIFY(window.grab().save(screenshotDir() + "/tensor-viewer-resnet18-int8.png"));
  // From the graph: the Top graph's classifier node opens the same viewer on it, with its input offered.
  GraphViewTab *tensorGraph = window.openTopGraph();
  QVERIFY(tensorGraph);
  QSignalSpy tensorGraphLoaded(tensorGraph, &GraphViewTab::loaded);
  QVERIFY(tensorGraphLoaded.wait(60000));
  QVERIFY2(tensorGraphLoaded.front().front().toString().isEmpty(),
           qPrintable(tensorGraphLoaded.front().front().toString()));
  graph::NodeId classifier = graph::kNoNode;
  for (const graph::Node &n : tensorGraph->view()->graph()->nodes)
    if (n.name == "output" && n.op.rfind("top.", 0) == 0)
      classifier = n.id;
  QVERIFY(classifier != graph::kNoNode);
  tensorGraph->view()->selectNode(classifier);
  QCOMPARE(tensorGraph->tensorRun(), asymmetricRun);
  QVERIFY(tensorGraph->requestTensors());
  QCOMPARE(window.centralTabs()->currentWidget(), tensors);
  QCOMPARE(tensors->viewer()->tensorName(), QString("output"));
  auto *choice = tensors->viewer()->findChild<QComboBox *>("tensorChoice");
  QVERIFY(choice && choice->count() == 2); // the output and the flattened features feeding it
  QVERIFY(tensors->viewer()->showTensor(choice->itemData(1).toString()));
  window.centralTabs()->setCurrentWidget(view);
  const qint64 table = view->keepLayerInFloat(worst, "F16");
  QVERIFY(table > 0);
  QCOMPARE(context.project().quantTables.back().entries.back().opName, worst.toStdString());
  context.undoStack()->undo();
  QVERIFY(context.project().quantTables.empty());

  // The run recorded the Top input and the lowered module: opening it from the explorer shows the accuracy
  // view and, beside it, the pass inspector with Top vs Tpu side by side and provenance through lowering.
  window.openTab({Section::Runs, symmetric}); // the asymmetric run's tab is open already
  PassInspectorView *passes = nullptr;
  for (int i = 0; i < window.centralTabs()->count(); ++i)
    if (auto *p = qobject_cast<PassInspectorView *>(window.centralTabs()->widget(i)))
      passes = p;
  QVERIFY(passes);
  QVERIFY(qobject_cast<AccuracyView *>(window.centralTabs()->currentWidget()));
  QSignalSpy stages(passes, &PassInspectorView::stagesShown);
  passes->compareStages(0, 1); // Top | Tpu INT8
  QVERIFY(stages.wait(30000));
  passes->showTab(2);
  vis::SideBySideView *side = passes->sideBySide();
  for (int v = 0; v < 2; ++v)
    QVERIFY(side->view(v)->waitForLayout(30000));
  const graph::Graph &topGraph = *side->view(0)->graph();
  const graph::Graph &tpuGraph = *side->view(1)->graph();
  graph::NodeId fc = graph::kNoNode;
  for (const graph::Node &n : topGraph.nodes)
    if (n.name == "output" && n.op.rfind("top.", 0) == 0)
      fc = n.id;
  QVERIFY(fc != graph::kNoNode);
  std::vector<graph::NodeId> became = side->relatedNodes(1, fc);
  QVERIFY(!became.empty());
  bool tpuOp = false;
  for (graph::NodeId id : became)
    tpuOp |= tpuGraph.nodes[id].op.rfind("tpu.", 0) == 0;
  QVERIFY(tpuOp);
  window.centralTabs()->setCurrentWidget(passes);
  side->selectNode(0, fc); // centres the classifier on both sides and marks what it became
  for (int v = 0; v < 2; ++v)
    QVERIFY(side->view(v)->waitForLayout(30000));
  QVERIFY2(side->statusText().contains(QStringLiteral("tpu.matmul")), qPrintable(side->statusText()));
  QCoreApplication::processEvents();
  QVERIFY(window.grab().save(screenshotDir() + "/deploy-side-by-side-top-tpu.png"));

  // The deploy compiled a model file and checked it on the command-level simulator: the run keeps the
  // file, the simulated latency and each op's cycles next to its accuracy.
  const project::RunRecord deployed = context.project().runs.back(); // a copy: later runs grow the list
  bool haveModel = false;
  for (const project::ArtifactRef &a : deployed.artifacts)
    haveModel |= a.kind == "model" && QString::fromStdString(a.name).endsWith(".tpum") && !a.contentHash.empty();
  QVERIFY(haveModel);
  QVERIFY2(QString::fromStdString(deployed.summaryJson).contains("simulatedLatencyMs"), deployed.summaryJson.c_str());
  QVERIFY(runLayerValues(deployed, "cycles").size() > 10);
  QCOMPARE(runLayerValues(deployed, "cosine").size(), report.layers.size());

  // Run ▸ Run Model File on Simulator: tpuc run on that file and the deploy's test input, out of process.
  const std::size_t before = context.project().runs.size();
  qputenv("TPUC", TPUC_ENGINE);
  const int runJob = window.runModelFile(context.project().compileConfigs.back().id);
  QVERIFY(runJob > 0);
  QVERIFY(QTest::qWaitFor([&] { return context.project().runs.size() > before; }, 120000));
  qunsetenv("TPUC");
  const project::RunRecord simulated = context.project().runs.back();
  QCOMPARE(simulated.status, std::string("ok"));
  const QJsonObject summary = QJsonDocument::fromJson(QByteArray::fromStdString(simulated.summaryJson)).object();
  QCOMPARE(summary.value("command").toString(), QString("run"));
  QVERIFY2(summary.value("simulatedLatencyMs").toDouble() > 0.1, simulated.summaryJson.c_str());
  const auto cycles = runLayerValues(simulated, "cycles");
  QVERIFY(cycles.count("output") && cycles.at("output") > 0);
  // Run ▸ Compare Tensor Files: the simulator's tensors against the deploy's Tpu simulation, every layer
  // EQUAL where the chip computed it, as a run with per-tensor metrics.
  QString modelDump, tpuDump;
  for (const project::ArtifactRef &a : simulated.artifacts)
    if (QString::fromStdString(a.name).endsWith(".run_outputs.npz"))
      modelDump = QString::fromStdString(a.name);
  for (const project::ArtifactRef &a : deployed.artifacts)
    if (QString::fromStdString(a.name).endsWith("_tpu_outputs.npz"))
      tpuDump = QString::fromStdString(a.name);
  QVERIFY2(!modelDump.isEmpty() && !tpuDump.isEmpty(), simulated.summaryJson.c_str());
  const std::size_t beforeCompare = context.project().runs.size();
  qputenv("TPUC", TPUC_ENGINE);
  QVERIFY(window.runCompare(modelDump, tpuDump, "0.99,0.99") > 0);
  QVERIFY(QTest::qWaitFor([&] { return context.project().runs.size() > beforeCompare; }, 60000));
  qunsetenv("TPUC");
  const project::RunRecord &compared = context.project().runs.back();
  QCOMPARE(compared.status, std::string("ok"));
  const QJsonArray rows = QJsonDocument::fromJson(QByteArray::fromStdString(compared.layerMetricsJson)).array();
  QVERIFY2(rows.size() > 20, compared.layerMetricsJson.c_str());
  for (const QJsonValue &row : rows)
    QCOMPARE(row.toObject().value("status").toString(), QString("EQUAL"));
  QCOMPARE(window.runCompare(dir.filePath("missing.npz"), tpuDump), -1);
  // The graph of the Top IR colours its ops by those cycles.
  window.show(); // the view fits to its real size
  GraphViewTab *graphTab = window.openTopGraph();
  QVERIFY(graphTab);
  QSignalSpy graphLoaded(graphTab, &GraphViewTab::loaded);
  QVERIFY(graphTab->view()->graph() || graphLoaded.wait(60000)); // open since the tensor viewer's check
  graphTab->view()->expandAll();
  QVERIFY(graphTab->view()->waitForLayout());
  graphTab->setOverlay(static_cast<int>(vis::OverlayMode::Cycles));
  QCOMPARE(graphTab->view()->overlay(), vis::OverlayMode::Cycles);
  graphTab->view()->fitToView();
  QCoreApplication::processEvents();
  QVERIFY(window.grab().save(screenshotDir() + "/graph-resnet18-cycles-overlay.png"));
  // A configuration never deployed has nothing to run.
  const qint64 fresh = context.addCompileConfig({0, "never deployed", "cv186ah", "BF16", "{}"});
  QCOMPARE(window.runModelFile(fresh), -1);
#endif
}

QTEST_MAIN(TestDeployJob)
#include "tst_deployjob.moc"
