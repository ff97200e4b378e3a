// Offscreen tests of sweep reports in the studio (issue 26): File ▸ Open Sweep Report… reads a `tpuc sweep`
// report.json into a table with report.html's columns, regressions first and highlighted; a cell with a
// per-layer comparison opens it in the accuracy view, one without opens its run folder; an unreadable report
// says why. Screenshot: sweep-report.png.
#include "Screenshots.h"

#include "tpuc/Driver/Sweep.h"
#include "ui/MainWindow.h"
#include "ui/StudioContext.h"
#include "ui/views/AccuracyView.h"
#include "ui/views/SweepReportView.h"

#include <QAbstractItemModelTester>
#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace tpuc;
using namespace tpuc::ui;
using tpuc::ui::guitest::saveScreenshot;

namespace {

// A deploy --compare_all report (<stem>_compare.json) of a cell.
const char *kCompareJson = R"({"tolerance":{"cosine":0.900000,"euclidean":0.800000},"layers":[
{"name":"input","accumulated":{"status":"EQUAL","pass":true,"cosine":1.0,"euclidean":1.0,"sqnr":"inf","max_abs_diff":0.0},"isolated":{"status":"EQUAL","pass":true,"cosine":1.0,"euclidean":1.0,"sqnr":"inf","max_abs_diff":0.0}},
{"name":"conv1","accumulated":{"status":"SIMILAR","pass":true,"cosine":0.999,"euclidean":0.95,"sqnr":30.5,"max_abs_diff":0.01},"isolated":{"status":"SIMILAR","pass":true,"cosine":0.999,"euclidean":0.95,"sqnr":30.5,"max_abs_diff":0.01}},
{"name":"output","accumulated":{"status":"NOT_SIMILAR","pass":false,"cosine":0.82,"euclidean":0.45,"sqnr":6.0,"max_abs_diff":2.0},"isolated":{"status":"NOT_SIMILAR","pass":false,"cosine":0.85,"euclidean":0.5,"sqnr":7.0,"max_abs_diff":1.2}}],
"first_failing":"output"}
)";

driver::SweepCellRecord cell(int64_t index, const std::string &model, const std::string &precision,
                             double cosine, double latency) {
  driver::SweepCellRecord c;
  c.index = index;
  c.model = model;
  c.precision = precision;
  c.chip = "bm1684x";
  c.status = cosine >= 0.9 ? "passed" : "failed";
  if (c.status == "failed") {
    c.stage = "compare";
    c.message = "tpuc compare: 'output' out of tolerance (cos 0.82)";
  }
  c.tolerance = driver::defaultTolerance(precision);
  c.outputs = {{"output", cosine >= 0.9 ? "SIMILAR" : "NOT_SIMILAR", cosine >= 0.9, cosine, 0.9, 20.0, 0.1}};
  c.latencyMs = latency;
  c.compileSeconds = 3.5 + index;
  c.peakRssKb = 150000 + index * 1000;
  c.runDir = "cells/" + std::to_string(index) + "-" + model + "-" + precision + "-bm1684x";
  return c;
}

/// A sweep folder: four cells, compared with a past where cell 3 passed and cell 1 was faster.
QString writeSweep(const QTemporaryDir &dir) {
  driver::SweepReport previous, report;
  previous.name = "yesterday";
  previous.cells = {cell(0, "resnet18", "F16", 0.9999, 1.2), cell(1, "resnet18", "INT8", 0.998, 0.5),
                    cell(2, "mobilenet_v2", "F16", 0.9999, 0.8), cell(3, "mobilenet_v2", "INT8", 0.99, 0.3)};
  report.name = "zoo";
  report.manifest = "/zoo/zoo.json";
  report.executor = "slurm";
  report.accuracyThreshold = 0.01;
  report.latencyThreshold = 0.05;
  report.cells = {cell(0, "resnet18", "F16", 0.9999, 1.2), cell(1, "resnet18", "INT8", 0.998, 0.7),
                  cell(2, "mobilenet_v2", "F16", 0.9999, 0.8), cell(3, "mobilenet_v2", "INT8", 0.82, 0.3)};
  report.cells[3].firstDivergent = "conv1";
  report.cells[3].accuracy = report.cells[3].runDir + "/mobilenet_v2_INT8_bm1684x_compare.json";
  driver::compareSweeps(report, previous);
  QDir root(dir.path());
  for (const driver::SweepCellRecord &c : report.cells)
    root.mkpath(QString::fromStdString(c.runDir));
  for (const driver::SweepCellRecord &c : report.cells) {
    if (c.accuracy.empty())
      continue;
    QFile compare(root.filePath(QString::fromStdString(c.accuracy)));
    if (!compare.open(QIODevice::WriteOnly) || compare.write(kCompareJson) < 0)
      return {};
  }
  QFile file(root.filePath("report.json"));
  if (!file.open(QIODevice::WriteOnly) || file.write(driver::toJson(report).c_str()) < 0)
    return {};
  return file.fileName();
}

} // namespace

/// Receives the URLs the studio asks the desktop to open.
class UrlCatcher : public QObject {
  Q_OBJECT
public:
  QList<QUrl> urls;
public Q_SLOTS:
  void open(const QUrl &url) { urls << url; }
};

class TestSweepReport : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void tableRegressionsFirst();
  void cellOpensItsRun();
  void unreadableReport();
};

void TestSweepReport::tableRegressionsFirst() {
  QTemporaryDir dir;
  const QString path = writeSweep(dir);
  QVERIFY(!path.isEmpty());
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  SweepReportView *view = window.openSweepReport(dir.path()); // the folder opens its report.json
  QVERIFY(view);
  QCOMPARE(view->reportPath(), QFileInfo(path).absoluteFilePath());
  QSignalSpy loaded(view, &SweepReportView::loaded);
  QVERIFY(view->isLoaded() || loaded.wait(5000));
  QVERIFY2(view->error().isEmpty(), qPrintable(view->error()));
  QAbstractItemModelTester tester(view->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(view->model()->rowCount(), 4);
  // The two regressions first (cell 1: latency 0.5 -> 0.7 ms; cell 3: passed -> failed), then cell order.
  auto *table = view->table();
  auto at = [&](int row, int column, int role = Qt::DisplayRole) {
    return table->model()->index(row, column).data(role);
  };
  QCOMPARE(at(0, SweepReportModel::Index).toLongLong(), 1);
  QCOMPARE(at(1, SweepReportModel::Index).toLongLong(), 3);
  QCOMPARE(at(2, SweepReportModel::Index).toLongLong(), 0);
  QVERIFY(at(0, SweepReportModel::Regression).toString().contains("latency (was 0.500 ms)"));
  QVERIFY(at(1, SweepReportModel::Regression).toString().contains("accuracy (was 0.9900, passed)"));
  QVERIFY(at(0, SweepReportModel::Model, SweepReportModel::RegressionRole).toBool());
  QVERIFY(at(0, SweepReportModel::Model, Qt::BackgroundRole).isValid());
  QVERIFY(!at(2, SweepReportModel::Model, Qt::BackgroundRole).isValid());
  QCOMPARE(at(1, SweepReportModel::Status).toString(), QString("failed"));
  QCOMPARE(at(1, SweepReportModel::FirstDivergent).toString(), QString("conv1"));
  QCOMPARE(at(1, SweepReportModel::MinCosine).toString(), QString("0.82000"));
  QVERIFY(at(1, SweepReportModel::Error).toString().startsWith("compare: "));
  QVERIFY(view->summary()->text().contains("2 regression(s)</b> against yesterday"));
  // Sorting by latency puts cell 3 (0.3 ms) first.
  table->sortByColumn(SweepReportModel::Latency, Qt::AscendingOrder);
  QCOMPARE(at(0, SweepReportModel::Index).toLongLong(), 3);
  table->sortByColumn(SweepReportModel::Regression, Qt::AscendingOrder);
  QVERIFY(at(0, SweepReportModel::Model, SweepReportModel::RegressionRole).toBool());

  const int unit = window.fontMetrics().height();
  window.resize(unit * 120, unit * 24);
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  saveScreenshot(window, "sweep-report.png");
}

void TestSweepReport::cellOpensItsRun() {
  QTemporaryDir dir;
  const QString path = writeSweep(dir);
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  SweepReportView *view = window.openSweepReport(path);
  QSignalSpy loaded(view, &SweepReportView::loaded);
  QVERIFY(view->isLoaded() || loaded.wait(5000));
  QCOMPARE(window.openSweepReport(path), view); // focused, not opened twice

  // Cell 3 (row 1) has its deploy's per-layer comparison: the accuracy view opens on it.
  QSignalSpy requested(view, &SweepReportView::cellRequested);
  QVERIFY(view->openCell(1));
  QCOMPARE(requested.count(), 1);
  auto *accuracy = qobject_cast<AccuracyView *>(window.centralTabs()->currentWidget());
  QVERIFY(accuracy);
  QCOMPARE(accuracy->model()->rowCount(), 3);
  QCOMPARE(window.centralTabs()->tabText(window.centralTabs()->currentIndex()),
           QString("Accuracy: mobilenet_v2/INT8/bm1684x"));

  // Cell 1 (row 0) has none: its run folder goes to the desktop.
  UrlCatcher catcher;
  QDesktopServices::setUrlHandler("file", &catcher, "open");
  QVERIFY(view->openCell(0));
  QDesktopServices::unsetUrlHandler("file");
  QCOMPARE(catcher.urls.size(), 1);
  QCOMPARE(catcher.urls.front().toLocalFile(), QDir(dir.path()).filePath("cells/1-resnet18-INT8-bm1684x"));
  QVERIFY(!view->openCell(7));
}

void TestSweepReport::unreadableReport() {
  QTemporaryDir dir;
  QFile file(QDir(dir.path()).filePath("report.json"));
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write(R"({"schema": "tpuc.result", "version": 1})");
  file.close();
  SweepReportView view(file.fileName());
  QSignalSpy loaded(&view, &SweepReportView::loaded);
  QVERIFY(view.isLoaded() || loaded.wait(5000));
  QVERIFY(view.error().startsWith(file.fileName() + ": not a tpuc.sweep_report record"));
  QCOMPARE(view.model()->rowCount(), 0);
  QVERIFY(view.summary()->text().contains("not a tpuc.sweep_report"));
}

QTEST_MAIN(TestSweepReport)
#include "tst_sweepreport.moc"
