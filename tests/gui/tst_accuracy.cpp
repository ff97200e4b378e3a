// Offscreen tests of the accuracy view: reading deploy/compare JSON, rows in graph order with their
// statuses, the filters (only NOT_SIMILAR, where error is born) and sorting, publishing the selection
// through the context, "keep this layer in F16/BF16" with undo, and comparing with a previous run.
#include "ui/StudioContext.h"
#include "ui/views/AccuracyView.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QDir>
#include <QFile>
#include <QUndoStack>

#include <cmath>

using namespace tpuc;
using namespace tpuc::ui;

namespace {

// A deploy --compare_all report: conv2's error is inherited (isolated fine), conv3's is born there.
const char *kDeployJson = R"({"tolerance":{"cosine":0.990000,"euclidean":0.900000},"layers":[
{"name":"input","accumulated":{"status":"EQUAL","pass":true,"cosine":1.000000,"euclidean":1.000000,"sqnr":"inf","max_abs_diff":0.000000},"isolated":{"status":"EQUAL","pass":true,"cosine":1.000000,"euclidean":1.000000,"sqnr":"inf","max_abs_diff":0.000000}},
{"name":"conv1","accumulated":{"status":"SIMILAR","pass":true,"cosine":0.999000,"euclidean":0.950000,"sqnr":30.5,"max_abs_diff":0.01},"isolated":{"status":"SIMILAR","pass":true,"cosine":0.999000,"euclidean":0.950000,"sqnr":30.5,"max_abs_diff":0.01}},
{"name":"conv2","accumulated":{"status":"NOT_SIMILAR","pass":false,"cosine":0.950000,"euclidean":0.700000,"sqnr":12.0,"max_abs_diff":0.5},"isolated":{"status":"SIMILAR","pass":true,"cosine":0.998000,"euclidean":0.940000,"sqnr":28.0,"max_abs_diff":0.02}},
{"name":"conv3","accumulated":{"status":"NOT_SIMILAR","pass":false,"cosine":0.800000,"euclidean":0.400000,"sqnr":5.0,"max_abs_diff":1.5},"isolated":{"status":"NOT_SIMILAR","pass":false,"cosine":0.850000,"euclidean":0.500000,"sqnr":7.0,"max_abs_diff":1.2}},
{"name":"out","accumulated":{"status":"NOT_SIMILAR","pass":false,"cosine":0.820000,"euclidean":0.450000,"sqnr":6.0,"max_abs_diff":2.0},"isolated":{"status":"SIMILAR","pass":true,"cosine":0.999000,"euclidean":0.960000,"sqnr":31.0,"max_abs_diff":0.01}}],
"first_failing":"conv2"}
)";

AccuracyReport deployReport() {
  QString error;
  auto report = parseAccuracyJson(kDeployJson, &error);
  if (!report)
    qFatal("%s", qPrintable(error));
  return *report;
}

QStringList visibleNames(const AccuracyView &view) {
  QStringList names;
  for (int row = 0; row < view.filter()->rowCount(); ++row)
    names << view.filter()->index(row, AccuracyModel::Name).data().toString();
  return names;
}

project::RunRecord runOf(const AccuracyReport &report, const std::string &name) {
  project::RunRecord run;
  run.configName = name;
  run.layerMetricsJson = QJsonDocument(layerMetricsJson(report)).toJson(QJsonDocument::Compact).toStdString();
  return run;
}

} // namespace

class TestAccuracy : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void readsDeployAndCompareJson();
  void rejectsOtherJson();
  void rowsInGraphOrderWithStatuses();
  void filtersAndSorts();
  void selectionGoesThroughContext();
  void keepLayerInFloatIsUndoable();
  void comparesWithPreviousRun();
  void loadsAReportFile();
};

void TestAccuracy::readsDeployAndCompareJson() {
  const AccuracyReport report = deployReport();
  QCOMPARE(report.layers.size(), std::size_t(5));
  QVERIFY(report.hasIsolated());
  QCOMPARE(report.toleranceCosine, 0.99);
  QCOMPARE(report.firstFailing, QString("conv2"));
  QVERIFY(std::isinf(report.layers[0].accumulated.sqnr));
  QCOMPARE(report.layers[3].isolated.status, QString("NOT_SIMILAR"));
  QCOMPARE(report.layers[4].accumulated.maxAbsDiff, 2.0);

  // tpuc compare --format json: accumulated only.
  const char *compare = R"({"target":"a.npz","reference":"b.npz","tolerance":{"cosine":0.99,"euclidean":0.99,"close_order":3},
    "results":[{"name":"x","status":"EQUAL","pass":true,"cosine":1,"euclidean":1,"sqnr":"inf","max_abs_diff":0},
               {"name":"y","status":"MISMATCH","pass":false}],"summary":{}})";
  QString error;
  auto other = parseAccuracyJson(compare, &error);
  QVERIFY2(other, qPrintable(error));
  QCOMPARE(other->layers.size(), std::size_t(2));
  QVERIFY(!other->hasIsolated());
  QCOMPARE(other->layers[1].accumulated.status, QString("MISMATCH"));
  QVERIFY(std::isnan(other->layers[1].accumulated.cosine));
  QCOMPARE(other->firstFailing, QString("y"));

  // A run's stored layer metrics read back as the same report.
  const AccuracyReport back = accuracyOfRun(runOf(report, "r"));
  QCOMPARE(back.layers.size(), report.layers.size());
  for (std::size_t i = 0; i < back.layers.size(); ++i) {
    QCOMPARE(back.layers[i].name, report.layers[i].name);
    QCOMPARE(back.layers[i].accumulated, report.layers[i].accumulated);
    QCOMPARE(back.layers[i].isolated, report.layers[i].isolated);
  }
}

void TestAccuracy::rejectsOtherJson() {
  QString error;
  QVERIFY(!parseAccuracyJson("{\"layers\": [", &error));
  QVERIFY(error.startsWith("not JSON"));
  QVERIFY(!parseAccuracyJson("{\"something\": 1}", &error));
  QVERIFY(error.contains("neither"));
  QVERIFY(!parseAccuracyJson("{\"layers\": [{\"name\": \"a\"}]}", &error));
  QVERIFY2(error.contains("no accumulated"), qPrintable(error));
}

void TestAccuracy::rowsInGraphOrderWithStatuses() {
  StudioContext context;
  AccuracyView view(&context, -1);
  QAbstractItemModelTester modelTester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester filterTester(view.filter(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  view.setReport(deployReport(), "known");
  QCOMPARE(visibleNames(view), QStringList({"input", "conv1", "conv2", "conv3", "out"}));
  QStringList acc, iso;
  for (int row = 0; row < 5; ++row) {
    acc << view.filter()->index(row, AccuracyModel::AccStatus).data().toString();
    iso << view.filter()->index(row, AccuracyModel::IsoStatus).data().toString();
  }
  QCOMPARE(acc, QStringList({"EQUAL", "SIMILAR", "NOT_SIMILAR", "NOT_SIMILAR", "NOT_SIMILAR"}));
  QCOMPARE(iso, QStringList({"EQUAL", "SIMILAR", "SIMILAR", "NOT_SIMILAR", "SIMILAR"}));
  QCOMPARE(view.filter()->index(2, AccuracyModel::AccCosine).data().toString(), QString("0.950000"));
  QCOMPARE(view.filter()->index(0, AccuracyModel::AccSqnr).data().toString(), QString("∞"));
  QCOMPARE(view.filter()->index(2, AccuracyModel::AccStatus).data(Qt::ForegroundRole).value<QColor>(),
           statusColor("NOT_SIMILAR"));
  QVERIFY(!view.table()->isColumnHidden(AccuracyModel::IsoCosine));
  QVERIFY(view.table()->isColumnHidden(AccuracyModel::PrevCosine));
  // The chart: accumulated and isolated lines, points per status, the tolerance line.
  QStringList series;
  for (QAbstractSeries *s : view.chart()->chart()->series())
    series << s->name();
  QVERIFY2(series.contains("accumulated cosine") && series.contains("isolated cosine") &&
               series.contains("NOT_SIMILAR") && series.contains("tolerance 0.99"),
           qPrintable(series.join(", ")));
}

void TestAccuracy::filtersAndSorts() {
  StudioContext context;
  AccuracyView view(&context, -1);
  view.setReport(deployReport(), "known");
  view.filter()->setMode(AccuracyFilter::NotSimilar);
  QCOMPARE(visibleNames(view), QStringList({"conv2", "conv3", "out"}));
  // Where error is born: least headroom to the tolerance first (conv3 fails, then conv2 with 0.4 left).
  view.filter()->setBornCount(2);
  view.setFilterMode(AccuracyFilter::ErrorBorn);
  QCOMPARE(visibleNames(view), QStringList({"conv3", "conv2"}));
  // The ranking is by headroom to the tolerance (0.99, 0.90), not by cosine alone: an isolated euclidean of
  // 0.91 leaves conv1 a tenth of its room although its cosine (0.9995) beats conv2's (0.998, room 0.4).
  AccuracyReport scaleLost = deployReport();
  scaleLost.layers[1].isolated.cosine = 0.9995;
  scaleLost.layers[1].isolated.euclidean = 0.91;
  QVERIFY(std::abs(toleranceHeadroom(scaleLost.layers[1].isolated, 0.99, 0.9) - 0.1) < 1e-9);
  QVERIFY(std::abs(toleranceHeadroom(scaleLost.layers[3].isolated, 0.99, 0.9) + 14) < 1e-9);
  QCOMPARE(toleranceHeadroom(scaleLost.layers[1].isolated, 0, 0), 0.9995); // no tolerance known: the cosine
  view.setReport(scaleLost, "scale lost");
  view.filter()->setBornCount(3);
  view.setFilterMode(AccuracyFilter::ErrorBorn);
  QCOMPARE(visibleNames(view), QStringList({"conv3", "conv1", "conv2"}));
  view.setReport(deployReport(), "known");
  view.filter()->setMode(AccuracyFilter::All);
  view.filter()->setNameFilter("CONV");
  view.table()->sortByColumn(AccuracyModel::Order, Qt::AscendingOrder);
  QCOMPARE(visibleNames(view), QStringList({"conv1", "conv2", "conv3"}));
  view.filter()->setNameFilter(QString());
  view.table()->sortByColumn(AccuracyModel::AccCosine, Qt::DescendingOrder);
  QCOMPARE(visibleNames(view), QStringList({"input", "conv1", "conv2", "out", "conv3"}));
  view.table()->sortByColumn(AccuracyModel::AccMaxDiff, Qt::AscendingOrder);
  QCOMPARE(visibleNames(view), QStringList({"input", "conv1", "conv2", "conv3", "out"}));
  view.table()->sortByColumn(AccuracyModel::Name, Qt::AscendingOrder);
  QCOMPARE(visibleNames(view), QStringList({"conv1", "conv2", "conv3", "input", "out"}));

  // Without isolated metrics error is born where the accumulated cosine drops most from the layer before.
  AccuracyReport accumulatedOnly = deployReport();
  for (LayerAccuracy &l : accumulatedOnly.layers)
    l.isolated = {};
  view.setReport(accumulatedOnly, "accumulated only");
  view.filter()->setBornCount(1);
  view.filter()->setMode(AccuracyFilter::ErrorBorn);
  QCOMPARE(visibleNames(view), QStringList({"conv3"})); // 0.95 -> 0.80
  QVERIFY(view.table()->isColumnHidden(AccuracyModel::IsoCosine));
}

void TestAccuracy::selectionGoesThroughContext() {
  StudioContext context;
  AccuracyView view(&context, -1);
  view.setReport(deployReport(), "known");
  QSignalSpy published(&context, &StudioContext::opSelectionChanged);
  view.table()->setCurrentIndex(view.filter()->index(2, AccuracyModel::Name));
  QCOMPARE(context.selectedOp(), QString("conv2"));
  QCOMPARE(published.size(), 1);
  // Selected elsewhere (a graph view): the row follows; a row hidden by the filter shows all layers again.
  context.selectOp("out");
  QCOMPARE(view.currentLayer(), QString("out"));
  view.filter()->setMode(AccuracyFilter::NotSimilar);
  context.selectOp("conv1");
  QCOMPARE(view.currentLayer(), QString("conv1"));
  QCOMPARE(view.filter()->mode(), AccuracyFilter::All);
  // A node selected in a graph view selects the layer of its name.
  auto graph = std::make_shared<graph::Graph>();
  graph->nodes.push_back(graph::Node{});
  graph->nodes.back().name = "conv3";
  context.selectGraphNode({graph, 0});
  QCOMPARE(view.currentLayer(), QString("conv3"));
}

void TestAccuracy::keepLayerInFloatIsUndoable() {
  StudioContext context;
  AccuracyView view(&context, -1);
  view.setReport(deployReport(), "known");
  // No quantize table yet: one is made with the layer in it; undo removes it.
  qint64 id = view.keepLayerInFloat("conv3", "F16");
  QVERIFY(id > 0);
  QCOMPARE(context.project().quantTables.size(), std::size_t(1));
  QCOMPARE(context.project().quantTables[0].entries, (std::vector<project::QuantEntry>{{"conv3", "F16"}}));
  context.undoStack()->undo();
  QVERIFY(context.project().quantTables.empty());
  context.undoStack()->redo();
  QCOMPARE(context.project().quantTables.size(), std::size_t(1));
  // The newest table gets the next layers; a layer kept again in another mode is replaced, not doubled.
  view.table()->setCurrentIndex(view.filter()->index(2, AccuracyModel::Name));
  QCOMPARE(view.keepLayerInFloat(view.currentLayer(), "BF16"), id);
  QCOMPARE(view.keepLayerInFloat("conv3", "BF16"), id);
  QCOMPARE(context.project().quantTables[0].entries,
           (std::vector<project::QuantEntry>{{"conv3", "BF16"}, {"conv2", "BF16"}}));
  QCOMPARE(context.undoStack()->undoText(), QString("Keep conv3 in BF16"));
  context.undoStack()->undo();
  QCOMPARE(context.project().quantTables[0].entries,
           (std::vector<project::QuantEntry>{{"conv3", "F16"}, {"conv2", "BF16"}}));
  context.undoStack()->undo();
  QCOMPARE(context.project().quantTables[0].entries, (std::vector<project::QuantEntry>{{"conv3", "F16"}}));
  QCOMPARE(view.keepLayerInFloat(QString(), "F16"), qint64(-1));
}

void TestAccuracy::comparesWithPreviousRun() {
  StudioContext context;
  AccuracyReport before = deployReport();
  AccuracyReport after = deployReport();
  after.layers[3].accumulated.cosine = 0.97; // conv3 improved (kept in F16, say)
  after.layers[4].accumulated.cosine = 0.96;
  const qint64 first = context.addRun(runOf(before, "Deploy int8"));
  context.addRun(project::RunRecord{}); // a run without layer metrics is not offered
  const qint64 second = context.addRun(runOf(after, "Deploy int8 + qtable"));
  AccuracyView view(&context, second);
  QCOMPARE(view.comparedRun(), first);
  QVERIFY(view.model()->hasPrevious());
  QVERIFY(!view.table()->isColumnHidden(AccuracyModel::DeltaCosine));
  QCOMPARE(view.filter()->index(3, AccuracyModel::PrevCosine).data().toString(), QString("0.800000"));
  QCOMPARE(view.filter()->index(3, AccuracyModel::DeltaCosine).data().toString(), QString("+0.170000"));
  QVERIFY(std::abs(view.filter()->index(4, AccuracyModel::DeltaCosine).data(AccuracyModel::SortRole).toDouble() - 0.14) < 1e-9);
  bool hasPreviousSeries = false;
  for (QAbstractSeries *s : view.chart()->chart()->series())
    hasPreviousSeries |= s->name() == QString("accumulated, run #%1").arg(first);
  QVERIFY(hasPreviousSeries);
  view.compareWithRun(-1);
  QVERIFY(!view.model()->hasPrevious());
  QVERIFY(view.table()->isColumnHidden(AccuracyModel::DeltaCosine));
}

void TestAccuracy::loadsAReportFile() {
  QTemporaryDir dir;
  QFile file(dir.filePath("m_int8_compare.json"));
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write(kDeployJson);
  file.close();
  StudioContext context;
  AccuracyView view(&context, -1);
  QString error;
  QVERIFY(!view.loadFile(dir.filePath("missing.json"), &error));
  QVERIFY2(error.contains("missing.json"), qPrintable(error));
  // TPUC_ACCURACY_JSON shows another report (e.g. a real deploy's) in the screenshot.
  const QString path = qEnvironmentVariableIsSet("TPUC_ACCURACY_JSON") ? qEnvironmentVariable("TPUC_ACCURACY_JSON")
                                                                       : file.fileName();
  QVERIFY2(view.loadFile(path, &error), qPrintable(error));
  QVERIFY(view.model()->rowCount() > 0);
  view.table()->setCurrentIndex(view.filter()->index(std::min(3, view.filter()->rowCount() - 1), AccuracyModel::Name));
  view.resize(1200, 800);
  QDir().mkpath(TPUC_SCREENSHOT_DIR);
  QVERIFY(view.grab().save(QString(TPUC_SCREENSHOT_DIR) + "/accuracy-view-known.png"));
}

QTEST_MAIN(TestAccuracy)
#include "tst_accuracy.moc"
