// Offscreen tests of mixed precision and run comparison in the studio (issue 22, items 3-5): the comparison
// model on known runs (rows, deltas, filters, sort, under QAbstractItemModelTester); then the small CNN of
// the lit tests with the real engine: calibrated and deployed INT8, an op kept in float from the graph (the
// configuration's new quantize table, the node tagged, undo and redo), "Re-deploy and Compare" opening the
// comparison of the two deploys (the quantize table among the differences, accuracy and cycles per layer),
// the search_qtable job drawing its curve and "Use this table" storing a step's ops, and a search cancelled.
// The run history of a configuration (its deploy runs over time) on made-up runs and on the two real deploys.
#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "project/ProjectStore.h"
#include "ui/MainWindow.h"
#include "ui/MixedPrecision.h"
#include "ui/SearchDialog.h"
#include "ui/StudioContext.h"
#include "ui/jobs/DeployJob.h"
#include "ui/jobs/JobQueue.h"
#include "ui/jobs/RunManifests.h"
#include "ui/panels/ProjectExplorer.h"
#include "ui/views/AccuracyView.h"
#include "ui/views/ConfigHistoryView.h"
#include "ui/views/GraphViewTab.h"
#include "ui/views/RunCompareView.h"
#include "ui/views/SearchQtableView.h"
#include "visualizer/ChipFigures.h"
#include "visualizer/GraphView.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineSeries>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>
#include <QUndoStack>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

using namespace tpuc;
using namespace tpuc::ui;

class TestMixedPrecision : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void compareModelOnKnownRuns();
  void historyChartOnKnownRuns();
  void searchDialogTakesSettings();
  void keepInFloatRedeployCompareAndSearch();
  void searchJobCancels();
};

namespace {

using tpuc::ui::guitest::saveScreenshot;

project::RunRecord runWith(qint64 id, const char *layers) {
  project::RunRecord r;
  r.id = id;
  r.configName = "Deploy cnn INT8 bm1684x (int8)";
  r.layerMetricsJson = layers;
  return r;
}

project::RunRecord deployRun(qint64 id, const std::string &config, const char *summary, const char *layers,
                             double latencyMs = 0, const std::string &status = "ok") {
  project::RunRecord r;
  r.id = id;
  r.configName = "Deploy cnn (" + config + ")";
  r.finished = QStringLiteral("2026-12-%1T10:00:00Z").arg(id, 2, 10, QLatin1Char('0')).toStdString();
  r.status = status;
  r.latencyMs = latencyMs;
  r.summaryJson = summary;
  r.layerMetricsJson = layers;
  return r;
}

/// The position of a chart value on the chart view's viewport.
QPoint pointOnView(QChartView *view, const QPointF &value, QAbstractSeries *series) {
  return view->mapFromScene(view->chart()->mapToScene(view->chart()->mapToPosition(value, series)));
}

/// Triggers the action of the next popup menu whose text contains `text`.
void triggerNextMenu(const QString &text, QString *seen) {
  QTimer::singleShot(50, [=] {
    auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
    if (!menu)
      return;
    for (QAction *a : menu->actions()) {
      *seen += a->text() + (a->isEnabled() ? "" : " (disabled)") + "|";
      if (a->text().contains(text))
        a->trigger();
    }
    menu->close();
  });
}

} // namespace

void TestMixedPrecision::historyChartOnKnownRuns() {
  QTemporaryDir dir;
  project::Project p;
  p.compileConfigs.push_back({1, "int8", "bm1684x", "INT8", "{}"});
  p.compileConfigs.push_back({2, "f16", "bm1684x", "F16", "{}"});
  // Two outputs: the lowest (aux) is the run's output cosine.
  p.runs.push_back(deployRun(
      3, "int8",
      R"({"command":"deploy","compare":[{"name":"prob","cosine":0.995},{"name":"aux","cosine":0.99}]})",
      R"([{"name":"prob","cosine":0.995},{"name":"aux","cosine":0.99}])", 0.5));
  p.runs.push_back(deployRun(4, "int8", R"({"command":"calibrate"})", "[]")); // not a deploy
  p.runs.push_back(deployRun(
      5, "int8", R"({"command":"deploy","resultStatus":"failed","compare":[{"name":"prob","cosine":0.9}]})",
      R"([{"name":"prob","cosine":0.9}])", 0.45, "failed"));
  p.runs.push_back(deployRun(6, "f16", R"({"command":"deploy","compare":[{"name":"prob","cosine":1.0}]})",
                             R"([{"name":"prob","cosine":1.0}])", 0.9)); // another configuration
  // Four samples: the output's mean and lowest sample; the latency only in the summary.
  p.runs.push_back(deployRun(
      7, "int8",
      R"({"command":"deploy","samples":4,"simulatedLatencyMs":0.4,"compare":[{"name":"prob","cosine":0.999}]})",
      R"([{"name":"prob","cosine":0.999,"meanCosine":0.997,"minCosine":0.98}])"));
  p.runs.push_back(deployRun(8, "int8", R"({"command":"deploy"})", "[]", 0, "cancelled"));
  const QString file = dir.filePath("history.tpuproj");
  QVERIFY(project::saveProject(p, file.toStdString(), project::SaveMode::Replace));

  StudioContext context;
  MainWindow window(&context);
  window.resize(1400, 900);
  QString error;
  QVERIFY2(context.openProject(file, &error), qPrintable(error));
  window.show();
  context.select({Section::CompileConfigs, 1});
  ConfigHistoryView *view = nullptr;
  for (QAction *action : window.findChild<ProjectExplorer *>()->actions())
    if (action->text().remove('&') == "Run History of Configuration")
      action->trigger(); // the project tree's context menu
  QVERIFY((view = qobject_cast<ConfigHistoryView *>(window.centralTabs()->currentWidget())));
  QCOMPARE(view->configId(), qint64(1));

  const auto &points = view->points();
  QCOMPARE(points.size(), size_t(4));
  QCOMPARE(points[0].runId, qint64(3));
  QCOMPARE(points[0].outputCos, 0.99);
  QCOMPARE(points[0].latencyMs, 0.5);
  QVERIFY(!points[0].failed);
  QCOMPARE(points[1].runId, qint64(5));
  QVERIFY(points[1].failed);
  QCOMPARE(points[1].status, QString("failed"));
  QCOMPARE(points[2].runId, qint64(7));
  QCOMPARE(points[2].samples, 4);
  QCOMPARE(points[2].outputCos, 0.997);
  QCOMPARE(points[2].minCos, 0.98);
  QCOMPARE(points[2].latencyMs, 0.4);
  QVERIFY(points[3].failed && std::isnan(points[3].outputCos) && std::isnan(points[3].latencyMs));
  QCOMPARE(view->runs()->topLevelItemCount(), 4);
  QCOMPARE(view->runs()->topLevelItem(1)->foreground(0).color(), QColor(0xd5, 0x5e, 0x00));

  // The chart: #id under each run, both value axes spanning their points, the failures marked.
  QChart *chart = view->chart()->chart();
  auto axes = chart->axes(Qt::Horizontal);
  QCOMPARE(axes.size(), 1);
  auto *x = qobject_cast<QCategoryAxis *>(axes.front());
  QVERIFY(x);
  QCOMPARE(x->categoriesLabels(), QStringList({"#3", "#5", "#7", "#8"}));
  QValueAxis *yCos = nullptr, *yLat = nullptr;
  for (QAbstractAxis *a : chart->axes(Qt::Vertical))
    (a->alignment() == Qt::AlignLeft ? yCos : yLat) = qobject_cast<QValueAxis *>(a);
  QVERIFY(yCos && yLat);
  QVERIFY(yCos->min() < 0.9 && yCos->min() > 0.85);
  QCOMPARE(yCos->max(), 1.0); // cosines stop at 1
  QVERIFY(yLat->min() < 0.4 && yLat->max() > 0.5 && yLat->max() < 0.6);
  QScatterSeries *failed = nullptr, *worst = nullptr;
  QLineSeries *cosLine = nullptr;
  for (QAbstractSeries *s : chart->series()) {
    if (s->name() == "failed run")
      failed = qobject_cast<QScatterSeries *>(s);
    if (s->name() == "worst sample")
      worst = qobject_cast<QScatterSeries *>(s);
    if (s->name().startsWith("output cos"))
      cosLine = qobject_cast<QLineSeries *>(s);
  }
  QVERIFY(failed && worst && cosLine);
  QCOMPARE(failed->count(), 2);
  QCOMPARE(failed->at(0), QPointF(1, 0.9));
  QCOMPARE(failed->at(1).x(), 3.0);
  QVERIFY(failed->at(1).y() < 0.9 && failed->at(1).y() > yCos->min()); // no cosine: on the floor
  QCOMPARE(worst->count(), 1);
  QCOMPARE(worst->at(0), QPointF(2, 0.98));
  QCOMPARE(cosLine->count(), 3);
  QVERIFY(view->summary()->text().contains("4 deploy run(s)"));
  QVERIFY(view->summary()->text().contains("2 failed"));
  saveScreenshot(window, "config-history-known-runs.png");

  // Clicking run #7's point opens its accuracy view.
  const QPoint at7 = pointOnView(view->chart(), QPointF(2, 0.997), cosLine);
  QCOMPARE(view->runAt(at7), qint64(7));
  QCOMPARE(view->runAt(QPoint(2, 2)), qint64(-1)); // outside the plot
  QTest::mouseClick(view->chart()->viewport(), Qt::LeftButton, {}, at7);
  auto *accuracy = qobject_cast<AccuracyView *>(window.centralTabs()->currentWidget());
  QVERIFY(accuracy);
  QCOMPARE(accuracy->runId(), qint64(7));

  // Compare with previous from the point's context menu: #5 → #7 (the calibration #4 is not a deploy).
  window.centralTabs()->setCurrentWidget(view);
  QSignalSpy compared(&window, &MainWindow::runComparisonOpened);
  QString seen;
  triggerNextMenu("Compare with Previous", &seen);
  QContextMenuEvent menuEvent(QContextMenuEvent::Mouse, at7, view->chart()->viewport()->mapToGlobal(at7));
  QApplication::sendEvent(view->chart()->viewport(), &menuEvent);
  QTRY_COMPARE(compared.size(), 1);
  QCOMPARE(compared.front().at(0).toLongLong(), qint64(5));
  QCOMPARE(compared.front().at(1).toLongLong(), qint64(7));
  QVERIFY2(seen.contains("Open Accuracy of Run #7"), qPrintable(seen));
  QCOMPARE(view->previousRun(3), qint64(-1));

  // A new deploy run of the configuration joins the chart; a dark palette redraws it in its colours.
  window.centralTabs()->setCurrentWidget(view);
  context.applyChange(Section::Runs, [](project::Project &q) {
    q.runs.push_back(deployRun(9, "int8",
                               R"({"command":"deploy","compare":[{"name":"prob","cosine":0.998}]})",
                               R"([{"name":"prob","cosine":0.998}])", 0.42));
  });
  QCOMPARE(view->points().size(), size_t(5));
  QCOMPARE(qobject_cast<QCategoryAxis *>(view->chart()->chart()->axes(Qt::Horizontal).front())
               ->categoriesLabels()
               .last(),
           QString("#9"));
  QPalette dark = vis::figurePalette(true); // as tst_llmchat's dark screenshot
  dark.setColor(QPalette::Window, QColor(40, 41, 45));
  dark.setColor(QPalette::Button, QColor(50, 51, 55));
  dark.setColor(QPalette::ButtonText, QColor(225, 226, 228));
  dark.setColor(QPalette::AlternateBase, QColor(38, 39, 43));
  QVERIFY(dark.color(QPalette::Base) != view->chart()->chart()->backgroundBrush().color());
  view->setPalette(dark);
  QCOMPARE(view->chart()->chart()->backgroundBrush().color(), dark.color(QPalette::Base));
  QCOMPARE(view->chart()->chart()->axes(Qt::Horizontal).front()->labelsColor(), dark.color(QPalette::Text));
  saveScreenshot(*view, "config-history-dark.png");
}

void TestMixedPrecision::compareModelOnKnownRuns() {
  driver::RunsDiff diff;
  diff.differences = {{"flag --quantize_table", "", "q.txt"}};
  const double nan = std::nan("");
  diff.layers = {{"conv", 0.999, 0.9995, 0.9993, 0.9996},
                 {"relu", 0.98, 0.999, 0.99, 0.999},
                 {"extra", nan, 0.9, nan, 0.95}};
  const project::RunRecord a = runWith(
      1,
      R"([{"name":"conv","cosine":0.999,"cycles":1000},{"name":"relu","cycles":200},{"name":"pool","cycles":50}])");
  const project::RunRecord b = runWith(
      2, R"([{"name":"conv","cycles":1000},{"name":"relu","cycles":450},{"name":"pool","cycles":50}])");
  const std::vector<CompareLayerRow> rows = compareRows(diff, a, b);
  QCOMPARE(rows.size(), size_t(4)); // the diff's three, then pool with cycles only
  QCOMPARE(rows[1].name, QString("relu"));
  QCOMPARE(rows[1].aCycles, 200.0);
  QCOMPARE(rows[1].bCycles, 450.0);
  QCOMPARE(rows[3].name, QString("pool"));
  QVERIFY(std::isnan(rows[3].aCosine));
  QVERIFY(std::isnan(rows[2].aCycles));

  RunCompareModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  model.setRows(rows);
  RunCompareFilter filter;
  filter.setSourceModel(&model);
  QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(model.index(1, RunCompareModel::DeltaCosine).data().toString(), QString("+0.019000"));
  QCOMPARE(model.index(1, RunCompareModel::DeltaCycles).data().toString(), QString("+250"));
  QCOMPARE(model.index(0, RunCompareModel::DeltaCycles).data().toString(), QString("0"));
  QCOMPARE(model.index(3, RunCompareModel::ACosine).data().toString(), QString("–"));
  // Worse cycles in B are vermillion, a better cosine green.
  QCOMPARE(model.index(1, RunCompareModel::DeltaCycles).data(Qt::ForegroundRole).value<QColor>(),
           QColor(0xd5, 0x5e, 0x00));
  QCOMPARE(model.index(1, RunCompareModel::DeltaCosine).data(Qt::ForegroundRole).value<QColor>(),
           QColor(0x00, 0x9e, 0x73));
  // Only what changed: conv's cosine moved by 5e-4, relu both, extra appeared; pool did not change.
  filter.setOnlyChanged(true);
  QCOMPARE(filter.rowCount(), 3);
  filter.setNameFilter("re");
  QCOMPARE(filter.rowCount(), 1);
  QCOMPARE(filter.index(0, 0).data().toString(), QString("relu"));
  filter.setNameFilter({});
  filter.setOnlyChanged(false);
  // Sorting by Δ cos descending puts relu first and the rows without a delta last.
  filter.sort(RunCompareModel::DeltaCosine, Qt::DescendingOrder);
  QCOMPARE(filter.index(0, 0).data().toString(), QString("relu"));
  QCOMPARE(filter.index(1, 0).data().toString(), QString("conv"));
  QVERIFY(
      std::isnan(filter.index(3, RunCompareModel::DeltaCosine).data(RunCompareModel::SortRole).toDouble()));

  // A diff that read B's engine trace: B's cycles are the diff's (relu 300, not the recorded 450; a
  // cast op with cycles only follows the layers), A's still the run record's.
  driver::RunsDiff traced = diff;
  traced.latencyB = driver::RunLatency{"b_trace.json", 0.004, 3800};
  traced.layers[0].bCycles = 900;
  traced.layers[1].bCycles = 300;
  traced.layers.push_back({"data_i8", nan, nan, nan, nan, std::nullopt, 60});
  const std::vector<CompareLayerRow> tracedRows = compareRows(traced, a, b);
  QCOMPARE(tracedRows.size(), size_t(5)); // conv, relu, extra, then data_i8 (diff) and pool (A's record)
  QCOMPARE(tracedRows[0].aCycles, 1000.0);
  QCOMPARE(tracedRows[0].bCycles, 900.0);
  QCOMPARE(tracedRows[1].bCycles, 300.0);
  QVERIFY(std::isnan(tracedRows[2].bCycles));
  QCOMPARE(tracedRows[3].name, QString("data_i8"));
  QCOMPARE(tracedRows[3].bCycles, 60.0);
  QVERIFY(std::isnan(tracedRows[3].aCycles));
  QCOMPARE(tracedRows[4].name, QString("pool"));
  QCOMPARE(tracedRows[4].aCycles, 50.0);
  QVERIFY(std::isnan(tracedRows[4].bCycles)); // B's trace has no pool: the record's 50 is not used
}

void TestMixedPrecision::searchDialogTakesSettings() {
  project::Project p;
  p.datasets.push_back({7, "photos", {{"/data/a.jpg", "{}", {}}, {"/data/b.jpg", "{}", {}}}});
  dataset::DatasetIndex index;
  index.subsets.push_back({"hard", "manual", 1, 0, {"a.jpg"}});
  p.datasets.back().index = index;
  // Without a configuration the search has no chip: OK stays disabled with the reason.
  {
    SearchDialog dialog(p, {});
    QVERIFY(!dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());
  }
  p.compileConfigs.push_back({3, "int8", "bm1688", "INT8", "{}"});
  p.compileConfigs.push_back({4, "w8", "cv186ah", "W8F16", "{}"});
  SearchSettings initial;
  initial.configId = 4;
  initial.datasetId = 7;
  initial.subset = "hard";
  initial.expectedCos = 0.995;
  initial.maxFloatLayers = 8;
  SearchDialog dialog(p, initial);
  // search_qtable searches INT8 deployments: the weight-only configuration is refused, the INT8 one taken.
  QPushButton *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
  QVERIFY(!ok->isEnabled());
  auto *config = dialog.findChildren<QComboBox *>().front();
  config->setCurrentIndex(config->findData(QVariant::fromValue<qint64>(3)));
  QVERIFY(ok->isEnabled());
  SearchSettings s = dialog.settings();
  QCOMPARE(s.configId, qint64(3));
  QCOMPARE(s.datasetId, qint64(7));
  QCOMPARE(s.subset, QString("hard"));
  QCOMPARE(s.expectedCos, 0.995);
  QCOMPARE(s.maxFloatLayers, 8);
  dialog.expectedCos()->setValue(0.9999);
  dialog.maxFloatLayers()->setValue(3);
  s = dialog.settings();
  QCOMPARE(s.expectedCos, 0.9999);
  QCOMPARE(s.maxFloatLayers, 3);
  dialog.resize(dialog.sizeHint().expandedTo(QSize(560, 0)));
  saveScreenshot(dialog, "search-dialog.png");
}

#ifdef TPUC_ENGINE
namespace {

struct CnnProject {
  qint64 datasetId = -1, configId = -1;
};

/// The small CNN (tests/lit/tpuc/Inputs/make_onnx_cnn.py) with 8 random samples and an INT8 configuration
/// on bm1684x, saved in `dir`.
CnnProject makeCnnProject(const QString &dir, StudioContext &context, MainWindow &window) {
  if (QString problem = ui::guitest::runPython(TPUC_CNN_SCRIPT, {dir}); !problem.isEmpty())
    qFatal("%s", qPrintable(problem));
  QDir().mkpath(dir + "/ds");
  if (QString problem = ui::guitest::runPython(
          "-c", {"import numpy as np, sys; r = np.random.default_rng(5); "
                 "[np.save(f'" +
                 dir + "/ds/s{i}.npy', r.normal(size=(1, 3, 8, 8)).astype(np.float32)) for i in range(8)]"});
      !problem.isEmpty())
    qFatal("%s", qPrintable(problem));
  project::ImportSettings settings;
  settings.inputShapes = "[[1,3,8,8]]";
  if (QString problem = ui::guitest::startWithModel(window, context, dir + "/cnn.onnx", settings);
      !problem.isEmpty())
    qFatal("%s", qPrintable(problem));
  std::vector<project::Sample> samples;
  for (int i = 0; i < 8; ++i)
    samples.push_back({QStringLiteral("%1/ds/s%2.npy").arg(dir).arg(i).toStdString(), "{}", {}});
  CnnProject p;
  p.datasetId = context.addDataset({0, "random", std::move(samples)});
  DeploySettings s;
  s.options.quantize = "INT8";
  s.options.tolerance = "0.9,0.5";
  p.configId = context.addCompileConfig(withDeploySettings({0, "int8", "bm1684x", "INT8", "{}"}, s));
  QString error;
  if (!context.saveAs(dir + "/cnn.tpuproj", &error))
    qFatal("%s", qPrintable(error));
  return p;
}

/// Waits for job `id` and its run record; returns the run's id.
qint64 waitForRun(MainWindow &window, StudioContext &context, int id) {
  QSignalSpy recorded(&window, &MainWindow::runRecorded);
  const QString title = window.jobQueue()->job(id)->spec.title;
  for (int i = 0; i < 40; ++i) {
    for (const project::RunRecord &r : context.project().runs)
      if (QString::fromStdString(r.configName) == title && window.jobQueue()->job(id)->finished.isValid())
        return r.id;
    recorded.wait(3000);
  }
  return -1;
}

} // namespace
#endif

void TestMixedPrecision::keepInFloatRedeployCompareAndSearch() {
#ifndef TPUC_ENGINE
  QSKIP("the tpuc target is not part of this build");
#else
  QTemporaryDir dir;
  StudioContext context;
  MainWindow window(&context);
  window.resize(1500, 950);
  const CnnProject cnn = makeCnnProject(dir.path(), context, window);
  qputenv("TPUC", TPUC_ENGINE);

  // Calibrate (transform first), then the first INT8 deploy.
  QSignalSpy added(&window, &MainWindow::calibrationTableAdded);
  QVERIFY(window.runCalibrate(cnn.datasetId, "max") > 0);
  QVERIFY(added.wait(60000));
  QVERIFY(added.front().front().toLongLong() > 0);
  const int firstDeploy = window.runDeploy(cnn.configId);
  QVERIFY(firstDeploy > 0);
  const qint64 firstRun = waitForRun(window, context, firstDeploy);
  QVERIFY2(firstRun > 0, qPrintable(window.jobQueue()->job(firstDeploy)->error));
  QVERIFY(!runManifestOf(*context.project().findRun(firstRun)).isEmpty());

  // Keep in float from the graph: the configuration had no quantize table, so one is made and named.
  GraphViewTab *graph = window.openTopGraph();
  QVERIFY(graph);
  QSignalSpy graphLoaded(graph, &GraphViewTab::loaded);
  QVERIFY(graphLoaded.wait(30000));
  QVERIFY2(graphLoaded.front().front().toString().isEmpty(),
           qPrintable(graphLoaded.front().front().toString()));
  const graph::NodeId relu = graph->view()->graph()->findByName("relu_out");
  QVERIFY(relu != graph::kNoNode);
  QVERIFY(graph->view()->nodeBadge(relu).isEmpty());
  graph->view()->selectNode(relu);
  const int undoBefore = context.undoStack()->count();
  const qint64 tableId = graph->keepSelectedInFloat();
  QVERIFY(tableId > 0);
  QCOMPARE(context.undoStack()->count(), undoBefore + 1); // table and configuration: one step
  auto floatOps = floatOpsOf(context.project(), cnn.configId);
  QCOMPARE(floatOps.size(), size_t(1));
  QCOMPARE(floatOps["relu_out"], QString("F16"));
  QCOMPARE(graph->view()->nodeBadge(relu), QString("F16"));
  context.undoStack()->undo();
  QVERIFY(floatOpsOf(context.project(), cnn.configId).empty());
  QVERIFY(context.project().quantTables.empty());
  QVERIFY(graph->view()->nodeBadge(relu).isEmpty());
  context.undoStack()->redo();
  QCOMPARE(floatOpsOf(context.project(), cnn.configId).size(), size_t(1));
  QCOMPARE(graph->view()->nodeBadge(relu), QString("F16"));
  // A second op joins the same table (one more undo step, no new table).
  const graph::NodeId fc = graph->view()->graph()->findByName("logits");
  QVERIFY(fc != graph::kNoNode);
  graph->view()->selectNode(fc);
  QCOMPARE(graph->keepSelectedInFloat(), tableId);
  QCOMPARE(context.project().quantTables.size(), size_t(1));
  QCOMPARE(floatOpsOf(context.project(), cnn.configId).size(), size_t(2));
  saveScreenshot(window, "graph-keep-in-float.png");
  // The properties panel of a selected node: its precision, and Keep in F16 when it is quantized.
  const graph::NodeId pool = graph->view()->graph()->findByName("pool_out");
  QVERIFY(pool != graph::kNoNode);
  graph->view()->selectNode(pool);
  auto keepButtonOf = [&](const QString &op) -> QPushButton * {
    for (QPushButton *b : window.findChildren<QPushButton *>("propertiesKeepFloat"))
      if (b->property("op").toString() == op)
        return b;
    return nullptr;
  };
  QPushButton *keepButton = nullptr;
  QTRY_VERIFY((keepButton = keepButtonOf("pool_out")));
  QVERIFY2(keepButton->text().contains("Keep in F16"), qPrintable(keepButton->text()));
  keepButton->click();
  QTRY_COMPARE(floatOpsOf(context.project(), cnn.configId).size(), size_t(3));
  QCOMPARE(graph->view()->nodeBadge(pool), QString("F16"));
  QTRY_VERIFY(!keepButtonOf("pool_out")); // kept: the row says so instead
  context.undoStack()->undo();            // back to relu_out and logits
  QCOMPARE(floatOpsOf(context.project(), cnn.configId).size(), size_t(2));
  QVERIFY(graph->view()->nodeBadge(pool).isEmpty());

  // Re-deploy and compare: the new run against the first, the quantize table among the differences.
  QSignalSpy compared(&window, &MainWindow::runComparisonOpened);
  Q_EMIT graph->redeployRequested(cnn.configId);
  QVERIFY(compared.wait(90000));
  QCOMPARE(compared.front().at(0).toLongLong(), firstRun);
  QVERIFY(isDeployRun(*context.project().findRun(firstRun)));
  const qint64 secondRun = compared.front().at(1).toLongLong();
  QVERIFY(secondRun > firstRun);
  auto *view = qobject_cast<RunCompareView *>(window.centralTabs()->currentWidget());
  QVERIFY(view);
  QTRY_VERIFY_WITH_TIMEOUT(view->isLoaded(), 30000);
  QVERIFY2(view->error().isEmpty(), qPrintable(view->error()));
  bool tableDiffers = false, inputDiffers = false;
  for (const driver::ManifestDifference &d : view->diff().differences) {
    tableDiffers |= d.what == "flag --quantize_table" && d.a.empty() && !d.b.empty();
    inputDiffers |= d.what.rfind("input quantize_table", 0) == 0;
  }
  QVERIFY2(tableDiffers && inputDiffers, qPrintable(view->differences()->topLevelItem(0)->text(0)));
  QCOMPARE(view->differences()->topLevelItemCount(), static_cast<int>(view->diff().differences.size()));
  // Per layer: both runs' cosines and cycles; keeping relu_out and logits in F16 changes their cycles.
  const auto &rows = view->model()->rows();
  QVERIFY(rows.size() >= 5);
  int withCycles = 0, cyclesChanged = 0;
  for (const CompareLayerRow &r : rows) {
    withCycles += !std::isnan(r.aCycles) && !std::isnan(r.bCycles);
    cyclesChanged += !std::isnan(r.aCycles) && !std::isnan(r.bCycles) && r.aCycles != r.bCycles;
  }
  QVERIFY2(withCycles >= 3, qPrintable(QString::number(withCycles)));
  QVERIFY(cyclesChanged >= 1);
  bool reluCompared = false;
  for (const CompareLayerRow &r : rows)
    if (r.name == "relu_out") {
      reluCompared = !std::isnan(r.aCosine) && !std::isnan(r.bCosine);
      QVERIFY(r.bCosine >= r.aCosine - 1e-6); // F16 is no worse than INT8 here
    }
  QVERIFY(reluCompared);
  // The rows the table shows are the engine's: A's cosine of every diff layer.
  for (const driver::LayerDelta &l : view->diff().layers) {
    auto it = std::find_if(rows.begin(), rows.end(),
                           [&](const CompareLayerRow &r) { return r.name.toStdString() == l.name; });
    QVERIFY(it != rows.end());
    QVERIFY((std::isnan(it->aCosine) && std::isnan(l.aCosine)) || it->aCosine == l.aCosine);
  }
  QCOMPARE(static_cast<int>(view->chart()->chart()->series().size()), 2);
  QVERIFY(view->summary()->text().contains("simulated latency"));
  saveScreenshot(window, "run-compare-keep-in-float.png");
  // The same comparison from Run ▸ Compare Runs… (non-interactive: the newest and the one before).
  context.select({Section::Runs, secondRun});
  auto *explorer = window.findChild<ProjectExplorer *>();
  QVERIFY(explorer);
  QAction *compareAction = nullptr;
  for (QAction *action : explorer->actions())
    if (action->text().remove('&') == "Compare Runs…")
      compareAction = action;
  QVERIFY(compareAction); // the project tree's context menu offers it
  compareAction->trigger();
  QCOMPARE(window.centralTabs()->currentWidget(), static_cast<QWidget *>(view));
  // The cycles are the diff's own (the kept copies of both engine traces): they agree with what each run
  // recorded from its trace when it finished.
  QVERIFY(view->diff().latencyA && view->diff().latencyB);
  const auto recordedA = runLayerValues(*context.project().findRun(firstRun), "cycles"),
             recordedB = runLayerValues(*context.project().findRun(secondRun), "cycles");
  int fromDiff = 0;
  for (const driver::LayerDelta &l : view->diff().layers)
    if (l.aCycles && l.bCycles) {
      ++fromDiff;
      QCOMPARE(static_cast<double>(*l.aCycles), recordedA.at(l.name));
      QCOMPARE(static_cast<double>(*l.bCycles), recordedB.at(l.name));
    }
  QVERIFY(fromDiff >= 3);

  // The configuration's history: both deploys, oldest first, with the diff's latencies and the output's
  // cosine.
  ConfigHistoryView *history = window.openConfigHistory(cnn.configId);
  QVERIFY(history);
  QCOMPARE(history->points().size(), size_t(2));
  const HistoryPoint &h1 = history->points()[0], &h2 = history->points()[1];
  QCOMPARE(h1.runId, firstRun);
  QCOMPARE(h2.runId, secondRun);
  QVERIFY(!h1.failed && !h2.failed);
  QVERIFY(std::abs(h1.latencyMs - view->diff().latencyA->ms) < 1e-9);
  QVERIFY(std::abs(h2.latencyMs - view->diff().latencyB->ms) < 1e-9);
  QVERIFY(h2.latencyMs != h1.latencyMs); // two ops in F16 cost cycles
  for (const driver::LayerDelta &l : view->diff().layers)
    if (l.name == "prob") {
      QVERIFY2(std::abs(h1.outputCos - l.aCosine) < 1e-4, qPrintable(QString::number(h1.outputCos)));
      QVERIFY2(std::abs(h2.outputCos - l.bCosine) < 1e-4, qPrintable(QString::number(h2.outputCos)));
    }
  saveScreenshot(window, "config-history-cnn.png");
  QLineSeries *historyLine = nullptr;
  for (QAbstractSeries *s : history->chart()->chart()->series())
    if (s->name().startsWith("output cos"))
      historyLine = qobject_cast<QLineSeries *>(s);
  QVERIFY(historyLine && historyLine->count() == 2);
  const QPoint second = pointOnView(history->chart(), historyLine->at(1), historyLine);
  QTest::mouseClick(history->chart()->viewport(), Qt::LeftButton, {}, second);
  auto *secondAccuracy = qobject_cast<AccuracyView *>(window.centralTabs()->currentWidget());
  QVERIFY(secondAccuracy);
  QCOMPARE(secondAccuracy->runId(), secondRun);

  // search_qtable as a job: an unreachable target keeps 3 ops in float, one step each; the curve opens.
  SearchSettings search;
  search.datasetId = cnn.datasetId;
  search.expectedCos = 1.0;
  search.maxFloatLayers = 3;
  search.configId = cnn.configId;
  QStringList messages;
  const int searchJob = window.runSearchQtable(search);
  QVERIFY(searchJob > 0);
  connect(window.jobQueue(), &JobQueue::jobChanged, this, [&](int changed) {
    if (changed == searchJob && window.jobQueue()->job(searchJob)->stage == "search_qtable")
      messages << window.jobQueue()->job(searchJob)->message;
  });
  SearchQtableView *curve = nullptr;
  QTRY_VERIFY_WITH_TIMEOUT((curve = qobject_cast<SearchQtableView *>(window.centralTabs()->currentWidget())),
                           90000);
  QTRY_VERIFY_WITH_TIMEOUT(curve->isLoaded(), 10000);
  QVERIFY2(curve->error().isEmpty(), qPrintable(curve->error()));
  const driver::SearchQtableRecord &record = curve->record();
  QCOMPARE(record.steps.size(), size_t(4));
  QCOMPARE(record.floatMode, std::string("F16"));
  QVERIFY(!record.reached);
  // Progress per greedy step reached the Jobs panel (lines read together may show only the last of them).
  QVERIFY2(std::any_of(messages.begin(), messages.end(),
                       [](const QString &m) {
                         return m.contains(QRegularExpression("(INT8|in F16): cos [0-9.]+, simulated"));
                       }),
           qPrintable(messages.join(" | ")));
  QCOMPARE(curve->steps()->rowCount(), 4);
  QCOMPARE(curve->chosenStep(), 3);
  // The chart: the path through the steps, a labelled marker per distinct point naming every step on it.
  QStringList labels;
  int points = 0;
  for (QAbstractSeries *s : curve->chart()->chart()->series())
    if (auto *scatter = qobject_cast<QScatterSeries *>(s)) {
      ++points;
      QVERIFY(scatter->pointLabelsVisible());
      QCOMPARE(scatter->count(), 1);
      labels << scatter->pointLabelsFormat();
    }
  QVERIFY(points >= 2 && points <= 4);
  const QString allLabels = labels.join(", ");
  QVERIFY2(allLabels.startsWith("0: INT8"), qPrintable(allLabels));
  for (int k = 1; k < 4; ++k)
    QVERIFY2(allLabels.count(QStringLiteral("%1: %2").arg(k).arg(
                 QString::fromStdString(record.steps[size_t(k)].op))) == 1,
             qPrintable(allLabels));
  auto *path = qobject_cast<QLineSeries *>(curve->chart()->chart()->series().front());
  QVERIFY(path);
  QCOMPARE(path->count(), 4);
  for (int k = 0; k < 4; ++k) {
    QCOMPARE(path->at(k).x(), record.steps[size_t(k)].latencyMs);
    QCOMPARE(path->at(k).y(), record.steps[size_t(k)].cosine);
  }
  saveScreenshot(window, "search-qtable-curve.png");
  // Use this table up to step 2: a new table of the two first ops, the configuration and the graph follow.
  curve->chooseStep(2);
  const qint64 searched = curve->useTable();
  QVERIFY(searched > 0);
  floatOps = floatOpsOf(context.project(), cnn.configId);
  QCOMPARE(floatOps.size(), size_t(2));
  QVERIFY(floatOps.count(record.steps[1].op) && floatOps.count(record.steps[2].op));
  QVERIFY(!floatOps.count(record.steps[3].op));
  const graph::NodeId marked = graph->view()->graph()->findByName(record.steps[1].op);
  QVERIFY(marked != graph::kNoNode);
  QCOMPARE(graph->view()->nodeBadge(marked), QString("F16"));
  context.undoStack()->undo(); // back to the table kept from the graph
  QCOMPARE(floatOpsOf(context.project(), cnn.configId).count("relu_out"), size_t(1));
  context.undoStack()->redo();
  window.centralTabs()->setCurrentWidget(graph);
  graph->view()->fitToView();
  saveScreenshot(window, "graph-search-float-ops.png");
  // Deploying the searched table and comparing: against the last deploy, not the search run of the same
  // configuration; the quantize table's content is what differs.
  compared.clear();
  Q_EMIT graph->redeployRequested(cnn.configId);
  QVERIFY(compared.wait(90000));
  QCOMPARE(compared.front().at(0).toLongLong(), secondRun);
  auto *third = qobject_cast<RunCompareView *>(window.centralTabs()->currentWidget());
  QVERIFY(third);
  QTRY_VERIFY_WITH_TIMEOUT(third->isLoaded(), 30000);
  QVERIFY2(third->error().isEmpty(), qPrintable(third->error()));
  QVERIFY(std::any_of(third->diff().differences.begin(), third->diff().differences.end(),
                      [](const driver::ManifestDifference &d) {
                        return d.what == "input quantize_table (content differs)";
                      }));
  qunsetenv("TPUC");
#endif
}

void TestMixedPrecision::searchJobCancels() {
#ifndef TPUC_ENGINE
  QSKIP("the tpuc target is not part of this build");
#else
  QTemporaryDir dir;
  StudioContext context;
  MainWindow window(&context);
  const CnnProject cnn = makeCnnProject(dir.path(), context, window);
  qputenv("TPUC", TPUC_ENGINE);
  SearchSettings search;
  search.datasetId = cnn.datasetId;
  search.expectedCos = 1.0;
  search.maxFloatLayers = 50;
  search.configId = cnn.configId;
  const int id = window.runSearchQtable(search);
  qunsetenv("TPUC");
  QVERIFY(id > 0);
  // Cancel as soon as the search stage starts: the child is killed, no curve opens.
  connect(window.jobQueue(), &JobQueue::jobChanged, this, [&](int changed) {
    if (changed == id && window.jobQueue()->job(id)->stage == "search_qtable" &&
        window.jobQueue()->job(id)->state == JobState::Running)
      window.jobQueue()->cancel(id);
  });
  QSignalSpy finished(window.jobQueue(), &JobQueue::jobFinished);
  QTRY_VERIFY_WITH_TIMEOUT(window.jobQueue()->job(id)->finished.isValid(), 60000);
  QCOMPARE(window.jobQueue()->job(id)->state, JobState::Cancelled);
  QTest::qWait(200);
  for (int i = 0; i < window.centralTabs()->count(); ++i)
    QVERIFY(!qobject_cast<SearchQtableView *>(window.centralTabs()->widget(i)));
#endif
}

QTEST_MAIN(TestMixedPrecision)
#include "tst_mixedprecision.moc"
