// Offscreen tests of mixed precision and run comparison in the studio (issue 22, items 3-5): the comparison
// model on known runs (rows, deltas, filters, sort, under QAbstractItemModelTester); then the small CNN of
// the lit tests with the real engine: calibrated and deployed INT8, an op kept in float from the graph (the
// configuration's new quantize table, the node tagged, undo and redo), "Re-deploy and Compare" opening the
// comparison of the two deploys (the quantize table among the differences, accuracy and cycles per layer),
// the search_qtable job drawing its curve and "Use this table" storing a step's ops, and a search cancelled.
#include "GuiTestSupport.h"
#include "project/ProjectStore.h"
#include "ui/MainWindow.h"
#include "ui/MixedPrecision.h"
#include "ui/SearchDialog.h"
#include "ui/StudioContext.h"
#include "ui/jobs/DeployJob.h"
#include "ui/jobs/JobQueue.h"
#include "ui/jobs/RunManifests.h"
#include "ui/panels/ProjectExplorer.h"
#include "ui/views/GraphViewTab.h"
#include "ui/views/RunCompareView.h"
#include "ui/views/SearchQtableView.h"
#include "visualizer/GraphView.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineSeries>
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
#include <QTreeWidget>
#include <QUndoStack>

#include <algorithm>
#include <cmath>

using namespace tpuc;
using namespace tpuc::ui;

class TestMixedPrecision : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void compareModelOnKnownRuns();
  void searchDialogTakesSettings();
  void keepInFloatRedeployCompareAndSearch();
  void searchJobCancels();
};

namespace {

void saveScreenshot(QWidget &widget, const QString &name) {
  QDir().mkpath(TPUC_SCREENSHOT_DIR);
  QVERIFY(widget.grab().save(QStringLiteral(TPUC_SCREENSHOT_DIR "/") + name));
}

project::RunRecord runWith(qint64 id, const char *layers) {
  project::RunRecord r;
  r.id = id;
  r.configName = "Deploy cnn INT8 bm1684x (int8)";
  r.layerMetricsJson = layers;
  return r;
}

} // namespace

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
