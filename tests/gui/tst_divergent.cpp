// Offscreen tests of accuracy over many test samples in the studio (issue 22): the deploy dialog's test set
// (a dataset, a subset, a folder), sample limit and first divergent layers stored in the configuration and
// on the command line; the small CNN deployed INT8 with its relu_out threshold cut to a twentieth over a
// subset of a dataset with --find_divergent by the real engine: the run record, the accuracy view's
// statistics, samples and first-divergent tabs, a sample's tensors one click away, the graph overlays.
#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "ui/DeployDialog.h"
#include "ui/MainWindow.h"
#include "ui/StudioContext.h"
#include "ui/jobs/DeployJob.h"
#include "ui/views/AccuracyView.h"
#include "ui/views/GraphViewTab.h"
#include "ui/views/SampleAccuracy.h"
#include "ui/views/SamplesPanel.h"
#include "ui/views/TensorsTab.h"
#include "visualizer/GraphOverlay.h"
#include "visualizer/GraphView.h"
#include "visualizer/TensorViewer.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <cmath>

using namespace tpuc;
using namespace tpuc::ui;

namespace {

using tpuc::ui::guitest::screenshotDir;

/// A dataset over the folder `root` holding `files`, with a subset of the first `subsetSize` of them.
project::Dataset indexedDataset(const QString &name, const QString &root, const QStringList &files,
                                int subsetSize) {
  dataset::DatasetIndex index;
  index.root = root.toStdString();
  dataset::Subset subset;
  subset.name = "first";
  subset.method = "first";
  subset.count = subsetSize;
  for (const QString &f : files) {
    index.files.push_back({f.toStdString()});
    if (static_cast<int>(subset.paths.size()) < subsetSize)
      subset.paths.push_back(f.toStdString());
  }
  index.subsets.push_back(subset);
  project::Dataset d{0, name.toStdString(), {}};
  d.index = index;
  return d;
}

QString commandLineOf(const QDialog &dialog) {
  for (QLabel *label : dialog.findChildren<QLabel *>())
    if (label->text().startsWith("tpuc deploy"))
      return label->text();
  return {};
}

/// Writes `calibration` random samples of `shape` (a Python tuple) as DIR/ds/s<i>.npy and `validation` as
/// DIR/val/v<i>.npy, seeded; "" or what went wrong.
QString writeRandomSamples(const QString &dir, const QString &shape, int calibration, int validation,
                           int seed) {
  const QString make = QDir(dir).filePath("make_samples.py");
  QFile script(make);
  if (!script.open(QIODevice::WriteOnly))
    return make + ": cannot write";
  script.write(
      QString("import numpy as np, os, sys\nd = sys.argv[1]\nos.mkdir(d + '/ds'); os.mkdir(d + '/val')\n"
              "r = np.random.default_rng(%1)\n"
              "[np.save(f'{d}/ds/s{i}.npy', r.normal(size=%2).astype(np.float32)) for i in range(%3)]\n"
              "[np.save(f'{d}/val/v{i}.npy', r.normal(size=%2).astype(np.float32)) for i in range(%4)]\n")
          .arg(seed)
          .arg(shape)
          .arg(calibration)
          .arg(validation)
          .toUtf8());
  script.close();
  return guitest::runPython(make, {dir});
}

/// Starts `window` on DIR/<name>.onnx with `shapes`, adds the DIR/ds samples as dataset "ds", saves the
/// project as DIR/<name>.tpuproj and calibrates it (kl) with the real engine; "" or what went wrong.
QString calibratedProject(MainWindow &window, StudioContext &context, const QString &dir, const QString &name,
                          const QString &shapes, int calibration) {
  project::ImportSettings settings;
  settings.inputShapes = shapes.toStdString();
  if (QString problem =
          guitest::startWithModel(window, context, QDir(dir).filePath(name + ".onnx"), settings);
      !problem.isEmpty())
    return problem;
  std::vector<project::Sample> samples;
  for (int i = 0; i < calibration; ++i)
    samples.push_back({QDir(dir).filePath(QString("ds/s%1.npy").arg(i)).toStdString(), "{}", {}});
  const qint64 ds = context.addDataset({0, "ds", samples});
  QString error;
  if (!context.saveAs(QDir(dir).filePath(name + ".tpuproj"), &error))
    return error;
  QSignalSpy tableAdded(&window, &MainWindow::calibrationTableAdded);
  if (window.runCalibrate(ds, "kl") <= 0 || !tableAdded.wait(120000))
    return "calibration of " + name + " did not add a table";
  return {};
}

} // namespace

class TestDivergent : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void settingsAndCommandLine();
  void dialogChoosesTestSet();
  void overlayModes();
  void deployOverSamplesEndToEnd();
  void transformerOverSamples();
};

void TestDivergent::settingsAndCommandLine() {
  DeploySettings s;
  s.options.quantize = "INT8";
  s.testDataset = "val";
  s.testSubset = "first";
  s.options.testNum = 4;
  s.options.findDivergent = true;
  s.options.divergentTop = 2;
  s.options.divergentSamples = 2;
  project::CompileConfig config = withDeploySettings({1, "many", "bm1684x", "F32", "{}"}, s);
  QCOMPARE(deploySettingsOf(config), s);
  QCOMPARE(checkDeployOptions(QString::fromStdString(config.optionsJson)), QString());
  const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(config.optionsJson)).object();
  QCOMPARE(o.value("test_dataset").toString(), QString("val"));
  QCOMPARE(o.value("test_subset").toString(), QString("first"));
  QCOMPARE(o.value("test_num").toInt(), 4);
  QCOMPARE(o.value("divergent_top").toInt(), 2);
  QVERIFY(checkDeployOptions(R"({"find_divergent": "yes"})").contains("'find_divergent'"));
  QVERIFY(checkDeployOptions(R"({"divergent_top": 0})").contains("'divergent_top'"));
  QVERIFY(checkDeployOptions(R"({"test_num": -1})").contains("'test_num'"));

  // The dataset's data list as --test_input, the limit and the first divergent layers.
  const DeployPaths paths{
      "/c/m.top.mlir", "/c/cali.txt", {}, "/c/deploy-test-dataset1-first.txt", "/c/m.tpu.mlir"};
  QCOMPARE(deployArguments(s, paths), QStringList({"deploy",
                                                   "--mlir",
                                                   "/c/m.top.mlir",
                                                   "--quantize",
                                                   "INT8",
                                                   "--chip",
                                                   "bm1684x",
                                                   "--calibration_table",
                                                   "/c/cali.txt",
                                                   "--test_input",
                                                   "/c/deploy-test-dataset1-first.txt",
                                                   "--test_num",
                                                   "4",
                                                   "--compare_all",
                                                   "--find_divergent",
                                                   "--divergent_top",
                                                   "2",
                                                   "--divergent_samples",
                                                   "2",
                                                   "--tpu_mlir",
                                                   "/c/m.tpu.mlir",
                                                   "--progress",
                                                   "json"}));
  // One sample of it (a layer's worst sample): its files, no limit.
  DeployPaths one = paths;
  one.testFiles = {"/d/a.npy", "/d/b.npy"};
  const QStringList oneArgs = deployArguments(s, one);
  QVERIFY(oneArgs.indexOf("--test_input") > 0);
  QVERIFY2(oneArgs.at(oneArgs.indexOf("--test_input") + 1).startsWith("/d/a.npy"),
           qPrintable(oneArgs.join(' ')));
  QVERIFY(oneArgs.contains("--find_divergent") && oneArgs.contains("--compare_all"));
  QVERIFY(!oneArgs.contains("--test_num"));
  // Without a test input nothing is compared, so nothing divergent is looked for.
  DeployPaths none = paths;
  none.testInput.clear();
  QVERIFY(!deployArguments(s, none).contains("--find_divergent"));
  QVERIFY(!deployArguments(s, none).contains("--test_num"));
  // A folder; the limit and divergent options are not stored when they are the defaults or unused.
  DeploySettings folder;
  folder.testFolder = "/data/val";
  config = withDeploySettings(config, folder);
  QCOMPARE(deploySettingsOf(config), folder);
  QVERIFY(!QString::fromStdString(config.optionsJson).contains("test_num"));
  QVERIFY(!QString::fromStdString(config.optionsJson).contains("divergent"));
  QVERIFY(!QString::fromStdString(config.optionsJson).contains("test_dataset"));
}

void TestDivergent::dialogChoosesTestSet() {
  QTemporaryDir dir;
  project::Project p;
  p.caliTables.push_back({1, "photos kl", 1, "", "", {{"conv", 2.5, -1, 2.5}}});
  p.datasets.push_back({1, "photos", {{"/data/dog.jpg", "{}", {}}}});
  project::Dataset val = indexedDataset("val", dir.path(), {"v0.npy", "v1.npy", "v2.npy"}, 2);
  val.id = 2;
  p.datasets.push_back(val);
  DeployDialog dialog(p, {3, "int8", "bm1684x", "INT8", "{}"});
  auto *testSet = dialog.findChild<QComboBox *>("testSet");
  auto *testNum = dialog.findChild<QSpinBox *>("testNum");
  auto *folder = dialog.findChild<QLineEdit *>("testFolder");
  auto *divergent = dialog.findChild<QCheckBox *>("findDivergent");
  auto *top = dialog.findChild<QSpinBox *>("divergentTop");
  auto *samples = dialog.findChild<QSpinBox *>("divergentSamples");
  auto *testInput = dialog.findChild<QComboBox *>("testInput");
  QVERIFY(testSet && testNum && folder && divergent && top && samples && testInput);
  // One sample, each dataset, the indexed dataset's subset, a folder.
  QCOMPARE(testSet->count(), 5);
  QVERIFY(!testNum->isEnabled() && !folder->isEnabled() && !top->isEnabled() && testInput->isEnabled());
  QVERIFY(!commandLineOf(dialog).contains("--find_divergent"));
  testSet->setCurrentIndex(3); // val ▸ subset first
  QVERIFY2(testSet->currentText().contains("subset first (2 samples)"), qPrintable(testSet->currentText()));
  QVERIFY(testNum->isEnabled() && !testInput->isEnabled());
  testNum->setValue(1);
  divergent->setChecked(true);
  QVERIFY(top->isEnabled() && samples->isEnabled());
  top->setValue(3);
  samples->setValue(1);
  const QString line = commandLineOf(dialog);
  QVERIFY2(line.contains("--test_input <dataset val ▸ first> --test_num 1 --compare_all --find_divergent "
                         "--divergent_top 3 --divergent_samples 1"),
           qPrintable(line));
  const DeploySettings s = dialog.settings();
  QCOMPARE(s.testDataset, QString("val"));
  QCOMPARE(s.testSubset, QString("first"));
  QCOMPARE(s.options.testNum, qint64(1));
  QVERIFY(s.options.findDivergent);
  // The configuration keeps it: a dialog opened on it shows the same choices.
  const project::CompileConfig stored = dialog.config();
  QCOMPARE(deploySettingsOf(stored), s);
  DeployDialog again(p, stored);
  QCOMPARE(again.findChild<QComboBox *>("testSet")->currentIndex(), 3);
  QCOMPARE(again.findChild<QSpinBox *>("testNum")->value(), 1);
  QVERIFY(again.findChild<QCheckBox *>("findDivergent")->isChecked());
  QCOMPARE(again.findChild<QSpinBox *>("divergentTop")->value(), 3);
  QCOMPARE(again.settings(), s);
  // A folder must be named; a dataset the project no longer has blocks OK.
  testSet->setCurrentIndex(testSet->count() - 1);
  QVERIFY(dialog.problem().contains("folder"));
  folder->setText("/data/val");
  QCOMPARE(dialog.problem(), QString());
  QVERIFY(commandLineOf(dialog).contains("--test_input /data/val --test_num 1"));
  QCOMPARE(dialog.settings().testFolder, QString("/data/val"));
  QVERIFY(dialog.settings().testDataset.isEmpty());
  project::Project without = p;
  without.datasets.pop_back();
  DeployDialog missing(without, stored);
  QVERIFY2(missing.problem().contains("val"), qPrintable(missing.problem()));
  dialog.resize(dialog.sizeHint().expandedTo(QSize(620, 0)));
  testSet->setCurrentIndex(3);
  QVERIFY(dialog.grab().save(screenshotDir() + "/deploy-dialog-samples.png"));
}

void TestDivergent::overlayModes() {
  // The three accuracy overlays: values by node name, linear, clusters by their maximum, with a legend.
  graph::Graph g;
  g.clusters.push_back({});
  for (const char *name : {"a", "b", "c"}) {
    graph::Node n;
    n.id = g.nodes.size();
    n.name = name;
    g.nodes.push_back(n);
  }
  vis::GraphOverlay overlay;
  overlay.setGraph(&g);
  for (vis::OverlayMode mode :
       {vis::OverlayMode::IsolatedError, vis::OverlayMode::AccumulatedError, vis::OverlayMode::FloatGain}) {
    QVERIFY(std::find(std::begin(vis::kAllOverlays), std::end(vis::kAllOverlays), mode) !=
            std::end(vis::kAllOverlays));
    overlay.setMode(mode);
    QVERIFY(!overlay.legend().note.isEmpty() && overlay.legend().entries.empty()); // no data yet
    overlay.setValues(mode, {{"a", 0.5}, {"b", 0.1}});
    QCOMPARE(overlay.nodeValue(0), 0.5);
    QCOMPARE(overlay.nodeValue(1), 0.1);
    QVERIFY(std::isnan(overlay.nodeValue(2)));
    QVERIFY(overlay.legend().ramp);
    QCOMPARE(overlay.legend().entries.size(), std::size_t(5));
    QVERIFY(overlay.nodeColor(0) != overlay.nodeColor(1));
    QCOMPARE(overlay.clusterColor(0), overlay.nodeColor(0)); // the cluster shows its maximum
    QVERIFY(!overlay.valueText(0).isEmpty());
  }
  QCOMPARE(vis::overlayName(vis::OverlayMode::IsolatedError), QString("Isolated error"));
  QCOMPARE(vis::overlayName(vis::OverlayMode::FloatGain), QString("Float gain"));

  // From a run's layer rows: the p5 over samples when there, else the one sample's cosine.
  project::RunRecord run;
  run.layerMetricsJson = R"([{"name": "x", "cosine": 0.9, "isolated": {"cosine": 0.95}, "p5Cosine": 0.8,
                              "isoP5Cosine": 0.85, "floatGain": 0.2},
                             {"name": "y", "cosine": 0.7, "isolated": {"cosine": 0.99}}])";
  auto iso = layerErrorValues(run, true), acc = layerErrorValues(run, false);
  QVERIFY(std::abs(iso.at("x") - 0.15) < 1e-12 && std::abs(iso.at("y") - 0.01) < 1e-12);
  QVERIFY(std::abs(acc.at("x") - 0.2) < 1e-12 && std::abs(acc.at("y") - 0.3) < 1e-12);
  QCOMPARE(floatGainValues(run).size(), std::size_t(1));
  QCOMPARE(floatGainValues(run).at("x"), 0.2);
}

void TestDivergent::deployOverSamplesEndToEnd() {
#ifndef TPUC_ENGINE
  QSKIP("this build has no tpuc");
#else
  QTemporaryDir dir;
  if (QString problem = guitest::runPython(TPUC_CNN_SCRIPT, {dir.path()}); !problem.isEmpty())
    QFAIL(qPrintable(problem));
  // Calibration samples and a validation folder of random tensors, as the lit test makes them.
  if (QString problem = writeRandomSamples(dir.path(), "(1, 3, 8, 8)", 8, 6, 5); !problem.isEmpty())
    QFAIL(qPrintable(problem));
  StudioContext context;
  MainWindow window(&context);
  window.resize(1500, 950);
  qputenv("TPUC", TPUC_ENGINE);
  if (QString problem = calibratedProject(window, context, dir.path(), "cnn", "[[1,3,8,8]]", 8);
      !problem.isEmpty())
    QFAIL(qPrintable(problem));
  QStringList valFiles;
  for (int i = 0; i < 6; ++i)
    valFiles << QString("v%1.npy").arg(i);
  context.addDataset(indexedDataset("val", dir.filePath("val"), valFiles, 5));
  // A bad calibration: relu_out's threshold cut to a twentieth clips it on exact inputs (the lit test's
  // fault).
  project::CaliTable bad = context.project().caliTables.back();
  bool cut = false;
  for (project::CaliEntry &e : bad.entries)
    if (e.opName == "relu_out") {
      e.threshold /= 20;
      e.max /= 20;
      cut = true;
    }
  QVERIFY(cut);
  bad.name = "cut";
  bad.version = 1;
  context.addCaliTable(bad);

  DeploySettings s;
  s.options.quantize = "INT8";
  s.caliTableName = "cut";
  s.caliTableVersion = 1;
  s.options.tolerance = "0.99,0.9";
  s.testDataset = "val";
  s.testSubset = "first"; // five of the six
  s.options.testNum = 4;  // and of those, four
  s.options.findDivergent = true;
  s.options.divergentSamples = 2;
  const qint64 config =
      context.addCompileConfig(withDeploySettings({0, "int8 cut", "bm1684x", "F32", "{}"}, s));
  const std::size_t before = context.project().runs.size();
  QElapsedTimer timer;
  timer.start();
  QVERIFY(window.runDeploy(config) > 0);
  QVERIFY(QTest::qWaitFor(
      [&] {
        return context.project().runs.size() > before &&
               QString::fromStdString(context.project().runs.back().configName).contains("int8 cut");
      },
      120000));
  qInfo("deploy over samples recorded in %lld ms", static_cast<long long>(timer.elapsed()));
  const project::RunRecord run = context.project().runs.back();
  // The run: the records among its artifacts, the summary and the layer rows folded from them.
  const QJsonObject summary = QJsonDocument::fromJson(QByteArray::fromStdString(run.summaryJson)).object();
  QCOMPARE(summary.value("samples").toInt(), 4);
  QVERIFY2(summary.value("failingSamples").toInt() >= 1, run.summaryJson.c_str());
  QVERIFY2(summary.value("divergentSummary").toString().contains("'relu_out' breaks first"),
           run.summaryJson.c_str());
  const SampleRecords records = sampleRecordsOfRun(run);
  QVERIFY2(records.error.isEmpty(), qPrintable(records.error));
  QVERIFY(records.samples && records.divergent);
  QCOMPARE(records.samples->samples.size(), std::size_t(4));
  for (const driver::SampleResult &sample :
       records.samples->samples) // the subset's first four, from the data list
    QVERIFY2(QString::fromStdString(sample.name).contains(QRegularExpression("val/v[0-4]\\.npy$")),
             sample.name.c_str());
  QCOMPARE(summary.value("worstSample").toString(),
           QString::fromStdString(records.sample(records.samples->worstSample)->name));
  QCOMPARE(records.divergent->candidates.front().name, std::string("relu_out"));

  // The accuracy view: statistics columns, the summary, the samples and first-divergent tabs.
  AccuracyView *view = window.openAccuracy(run.id);
  QVERIFY(view);
  QSignalSpy loaded(view, &AccuracyView::samplesLoaded);
  QVERIFY(view->model()->hasSampleStats() || loaded.wait(10000));
  QAbstractItemModelTester tester(view->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  const int relu = view->model()->report().indexOf("relu_out");
  QVERIFY(relu >= 0);
  const driver::LayerStats *stats = records.layer("relu_out");
  QVERIFY(stats && stats->isolated);
  auto cell = [&](int column) { return view->model()->index(relu, column).data(); };
  QCOMPARE(cell(AccuracyModel::P5Cosine).toString(), QString::number(stats->accumulated.p5Cosine, 'f', 6));
  QCOMPARE(cell(AccuracyModel::MeanCosine).toString(),
           QString::number(stats->accumulated.meanCosine, 'f', 6));
  QCOMPARE(cell(AccuracyModel::MinCosine).toString(), QString::number(stats->accumulated.minCosine, 'f', 6));
  QCOMPARE(cell(AccuracyModel::IsoP5Cosine).toString(), QString::number(stats->isolated->p5Cosine, 'f', 6));
  QCOMPARE(cell(AccuracyModel::FailingSamples).toLongLong(), stats->accumulated.failingSamples);
  QVERIFY(!view->table()->isColumnHidden(AccuracyModel::P5Cosine));
  QVERIFY(!view->table()->isColumnHidden(AccuracyModel::WorstSample));
  const QString summaryText = view->findChildren<QLabel *>().front()->text();
  QVERIFY2(summaryText.contains("<b>4 samples</b>") &&
               summaryText.contains(QString("%1 failing").arg(records.samples->failingSamples)) &&
               summaryText.contains("worst sample"),
           qPrintable(summaryText));
  SamplesPanel *panel = view->samplesPanel();
  QVERIFY(panel->isVisible() || !window.isVisible());
  QCOMPARE(panel->count(), 2);
  QAbstractItemModelTester samplesTester(panel->samplesModel(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester divergentTester(panel->divergentModel(),
                                           QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(panel->samplesModel()->rowCount(), 4);
  // Sorted worst first: the top row is the run's worst sample.
  const QModelIndex top = panel->samplesTable()->model()->index(0, SamplesModel::Index);
  QCOMPARE(top.data().toLongLong(), records.samples->worstSample + 1);
  QCOMPARE(panel->divergentModel()->rowCount(), static_cast<int>(records.divergent->candidates.size()));
  QCOMPARE(panel->divergentModel()->index(0, DivergentModel::Name).data().toString(), QString("relu_out"));
  QCOMPARE(panel->divergentModel()->index(0, DivergentModel::OutputGain).data().toString(),
           QString("+") + QString::number(records.divergent->candidates.front().outputGain, 'f', 6));
  QVERIFY(panel->divergentSummary().contains("'relu_out' breaks first"));
  // Selecting the candidate selects the op everywhere (the graph, the table).
  QSignalSpy opSelected(&context, &StudioContext::opSelectionChanged);
  panel->selectCandidate(0);
  QVERIFY(!opSelected.isEmpty());
  QCOMPARE(opSelected.back().front().toString(), QString("relu_out"));
  QCOMPARE(view->currentLayer(), QString("relu_out"));
  window.show();
  panel->setCurrentIndex(0);
  QCoreApplication::processEvents();
  QVERIFY(window.grab().save(screenshotDir() + "/accuracy-samples-cnn-int8.png"));
  panel->selectCandidate(0);
  QCoreApplication::processEvents();
  QVERIFY(view->grab().save(screenshotDir() + "/accuracy-first-divergent-cnn-int8.png"));

  // The graph: the overlays on the right nodes.
  GraphViewTab *graph = window.openTopGraph();
  QVERIFY(graph);
  QSignalSpy graphLoaded(graph, &GraphViewTab::loaded);
  QVERIFY(graph->view()->graph() || graphLoaded.wait(60000));
  graph->view()->expandAll();
  QVERIFY(graph->view()->waitForLayout());
  auto nodeOf = [&](const std::string &name) {
    for (const graph::Node &n : graph->view()->graph()->nodes)
      if (n.name == name && n.op.rfind("top.", 0) == 0)
        return n.id;
    return graph::kNoNode;
  };
  const graph::NodeId reluNode = nodeOf("relu_out"), probNode = nodeOf("prob");
  QVERIFY(reluNode != graph::kNoNode && probNode != graph::kNoNode);
  graph->setOverlay(static_cast<int>(vis::OverlayMode::FloatGain));
  QCOMPARE(graph->view()->overlayValue(reluNode), records.divergent->candidates.front().score);
  QVERIFY(std::isnan(graph->view()->overlayValue(probNode))); // not a candidate
  graph->setOverlay(static_cast<int>(vis::OverlayMode::AccumulatedError));
  QVERIFY(std::abs(graph->view()->overlayValue(probNode) -
                   (1 - records.layer("prob")->accumulated.p5Cosine)) < 1e-12);
  graph->setOverlay(static_cast<int>(vis::OverlayMode::IsolatedError));
  QCOMPARE(graph->view()->overlay(), vis::OverlayMode::IsolatedError);
  QVERIFY(std::abs(graph->view()->overlayValue(reluNode) - (1 - stats->isolated->p5Cosine)) < 1e-12);
  // relu_out's error is born there: its isolated error breaks the tolerance (cos 0.99).
  QVERIFY2(graph->view()->overlayValue(reluNode) > 1 - 0.99,
           qPrintable(QString::number(graph->view()->overlayValue(reluNode))));
  graph->view()->fitToView();
  QCoreApplication::processEvents();
  QVERIFY(window.grab().save(screenshotDir() + "/graph-cnn-isolated-error-overlay.png"));

  // The worst sample one click away: a deploy over many samples keeps no tensors, so the layer's worst
  // sample is deployed on its own and the viewer opens on that run.
  window.centralTabs()->setCurrentWidget(view);
  const int64_t other = stats->accumulated.worstSample;
  QVERIFY(other >= 0);
  const std::size_t runsBefore = context.project().runs.size();
  QSignalSpy sampleTensors(view, &AccuracyView::sampleTensorsRequested);
  view->table()->setCurrentIndex(
      view->filter()->mapFromSource(view->model()->index(relu, AccuracyModel::Name)));
  view->findChild<QToolButton *>("worstSample")->click();
  QCOMPARE(sampleTensors.size(), 1);
  QCOMPARE(sampleTensors.front().at(2).toStringList(),
           QStringList(QString::fromStdString(records.sample(other)->files.front())));
  QVERIFY(QTest::qWaitFor(
      [&] {
        auto *tab = qobject_cast<TensorsTab *>(window.centralTabs()->currentWidget());
        return context.project().runs.size() > runsBefore && tab &&
               tab->runId() == context.project().runs.back().id;
      },
      120000));
  const project::RunRecord sampleRun = context.project().runs.back();
  QVERIFY2(QString::fromStdString(sampleRun.configName)
               .contains(QFileInfo(QString::fromStdString(records.sample(other)->files.front())).fileName()),
           sampleRun.configName.c_str());
  auto *sampleTab = qobject_cast<TensorsTab *>(window.centralTabs()->currentWidget());
  QSignalSpy tensorsLoaded(sampleTab, &TensorsTab::loadFinished);
  QVERIFY(sampleTab->loaded() || tensorsLoaded.wait(60000));
  QCOMPARE(sampleTab->viewer()->tensorName(), QString("relu_out"));
  // That sample's relu_out in the viewer is the layer's lowest cosine over the samples.
  const double sampleCosine = sampleTab->viewer()->stats().cosine;
  QVERIFY2(
      std::abs(sampleCosine - stats->accumulated.minCosine) < 1e-4,
      qPrintable(
          QString("viewer %1, min over samples %2").arg(sampleCosine).arg(stats->accumulated.minCosine)));
  QCoreApplication::processEvents();
  QVERIFY(window.grab().save(screenshotDir() + "/tensor-viewer-worst-sample-cnn-int8.png"));
  // The many-sample run's records were not overwritten by the one-sample deploy.
  QCOMPARE(sampleRecordsOfRun(run).samples->samples.size(), std::size_t(4));
  qunsetenv("TPUC");
#endif
}

void TestDivergent::transformerOverSamples() {
#if !defined(TPUC_ENGINE) || !defined(TPUC_SEQUENCE_SCRIPT)
  QSKIP("this build has no tpuc");
#else
  // A transformer exported from PyTorch (two pre-norm encoder blocks, LayerNorm and GELU spelled out at opset
  // 14, fused on import), calibrated and deployed INT8 over a folder of samples through the studio.
  QTemporaryDir dir;
  if (QString problem = guitest::runPython(TPUC_SEQUENCE_SCRIPT, {dir.path()}); !problem.isEmpty())
    QFAIL(qPrintable(problem));
  if (QString problem = writeRandomSamples(dir.path(), "(1, 16, 32)", 8, 5, 7); !problem.isEmpty())
    QFAIL(qPrintable(problem));
  StudioContext context;
  MainWindow window(&context);
  window.resize(1500, 950);
  qputenv("TPUC", TPUC_ENGINE);
  if (QString problem = calibratedProject(window, context, dir.path(), "transformer", "[[1,16,32]]", 8);
      !problem.isEmpty())
    QFAIL(qPrintable(problem));

  DeploySettings s;
  s.options.quantize = "INT8";
  s.options.tolerance = "0.99,0.9";
  s.testFolder = dir.filePath("val");
  s.options.findDivergent = true;
  s.options.divergentSamples = 2;
  const qint64 config =
      context.addCompileConfig(withDeploySettings({0, "int8 folder", "bm1684x", "F32", "{}"}, s));
  const std::size_t before = context.project().runs.size();
  QVERIFY(window.runDeploy(config) > 0);
  QVERIFY(QTest::qWaitFor(
      [&] {
        return context.project().runs.size() > before &&
               QString::fromStdString(context.project().runs.back().configName).contains("int8 folder");
      },
      180000));
  const project::RunRecord run = context.project().runs.back();
  const QJsonObject summary = QJsonDocument::fromJson(QByteArray::fromStdString(run.summaryJson)).object();
  QCOMPARE(summary.value("samples").toInt(), 5);
  const SampleRecords records = sampleRecordsOfRun(run);
  QVERIFY2(records.error.isEmpty(), qPrintable(records.error));
  QVERIFY(records.samples && records.divergent);
  QCOMPARE(records.samples->samples.size(), std::size_t(5));
  for (const driver::SampleResult &sample : records.samples->samples)
    QVERIFY2(QString::fromStdString(sample.name).contains(QRegularExpression("val/v[0-4]\\.npy$")),
             sample.name.c_str());
  // The fused ops are layers of the comparison (named after the tensors the export produced).
  QVERIFY(records.samples->layers.size() > 10);

  // The accuracy view over the samples: the layer with the lowest p5 cosine, its cells from the record.
  AccuracyView *view = window.openAccuracy(run.id);
  QVERIFY(view);
  QSignalSpy loaded(view, &AccuracyView::samplesLoaded);
  QVERIFY(view->model()->hasSampleStats() || loaded.wait(10000));
  const driver::LayerStats *worst = nullptr;
  for (const driver::LayerStats &l : records.samples->layers)
    if (l.accumulated.worstSample >= 0 && (!worst || l.accumulated.p5Cosine < worst->accumulated.p5Cosine))
      worst = &l;
  QVERIFY(worst);
  const QString layer = QString::fromStdString(worst->name);
  const int row = view->model()->report().indexOf(layer);
  QVERIFY2(row >= 0, qPrintable(layer));
  QCOMPARE(view->model()->index(row, AccuracyModel::P5Cosine).data().toString(),
           QString::number(worst->accumulated.p5Cosine, 'f', 6));
  QCOMPARE(view->samplesPanel()->samplesModel()->rowCount(), 5);
  QCOMPARE(view->samplesPanel()->divergentModel()->rowCount(),
           static_cast<int>(records.divergent->candidates.size()));
  window.show();
  QCoreApplication::processEvents();
  tpuc::ui::guitest::saveScreenshot(window, "accuracy-samples-transformer-int8.png");

  // That layer's worst sample, one click away: deployed alone, its tensor in the viewer has the layer's
  // lowest cosine over the samples.
  const std::size_t runsBefore = context.project().runs.size();
  view->table()->setCurrentIndex(
      view->filter()->mapFromSource(view->model()->index(row, AccuracyModel::Name)));
  view->findChild<QToolButton *>("worstSample")->click();
  QVERIFY(QTest::qWaitFor(
      [&] {
        auto *tab = qobject_cast<TensorsTab *>(window.centralTabs()->currentWidget());
        return context.project().runs.size() > runsBefore && tab &&
               tab->runId() == context.project().runs.back().id;
      },
      180000));
  auto *tab = qobject_cast<TensorsTab *>(window.centralTabs()->currentWidget());
  QSignalSpy tensorsLoaded(tab, &TensorsTab::loadFinished);
  QVERIFY(tab->loaded() || tensorsLoaded.wait(60000));
  QCOMPARE(tab->viewer()->tensorName(), layer);
  const double cosine = tab->viewer()->stats().cosine;
  QVERIFY2(
      std::abs(cosine - worst->accumulated.minCosine) < 1e-4,
      qPrintable(QString("viewer %1, min over samples %2").arg(cosine).arg(worst->accumulated.minCosine)));
  QCoreApplication::processEvents();
  tpuc::ui::guitest::saveScreenshot(window, "tensor-viewer-worst-sample-transformer-int8.png");
  qunsetenv("TPUC");
#endif
}

QTEST_MAIN(TestDivergent)
#include "tst_divergent.moc"
