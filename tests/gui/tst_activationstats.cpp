// Activation statistics (issue 21, item 5): the calibration report reader on a known report and on malformed
// ones (one line naming the file and field), the item models under QAbstractItemModelTester, the view's
// banner, filters and selection linking through the context, the charts' threshold lines, the PNG figures;
// with the real engine a synthetic dataset whose thresholds settle at a known sample count (stable_after and
// enough_data through tpuc, the reader and the view), and screenshots of resnet18's report.
#include "Screenshots.h"
#include "tpuc/Support/Npz.h"
#include "tpuc/Testing/TestAssets.h"
#include "ui/StudioContext.h"
#include "ui/views/ActivationStatsModel.h"
#include "ui/views/ActivationStatsView.h"
#include "visualizer/CalibrationCharts.h"

#include <QAbstractItemModelTester>
#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineSeries>
#include <QProcess>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>
#include <random>

using namespace tpuc;
using namespace tpuc::ui;

namespace {

using tpuc::ui::guitest::screenshotDir;

QJsonArray numbers(std::initializer_list<double> values) {
  QJsonArray array;
  for (double v : values)
    array.append(std::isnan(v) ? QJsonValue(QJsonValue::Null) : QJsonValue(v));
  return array;
}

constexpr double kNull = std::numeric_limits<double>::quiet_NaN();

/// A known report of three tensors over 8 samples: conv1 settles after 4 (in time), relu1 only at the end
/// and fc after 7 (both too late: enough data needs every tensor settled by 6).
QJsonObject histogramsJson() {
  auto tensor = [](const QString &name, double absMax, QJsonObject thresholds) {
    return QJsonObject{{"name", name},
                       {"count", 800},
                       {"zeros", 100},
                       {"min", -absMax / 2},
                       {"max", absMax},
                       {"abs_max", absMax},
                       {"mean", 0.25},
                       {"std", 1.5},
                       {"bin_width", absMax / 15},
                       {"histogram", numbers({0, 300, 200, 90, 50, 30, 10, 5, 5, 3, 2, 1, 1, 0, 0, 3})},
                       {"thresholds", thresholds}};
  };
  QJsonArray tensors{tensor("conv1", 4.0,
                            {{"kl", 3.0},
                             {"mse", 2.5},
                             {"max", 4.0},
                             {"percentile9999", 3.5},
                             {"aciq_gauss", QJsonValue::Null},
                             {"aciq_laplace", 2.0}}),
                     tensor("relu1", 2.0,
                            {{"kl", 1.2},
                             {"mse", 1.1},
                             {"max", 2.0},
                             {"percentile9999", 1.9},
                             {"aciq_gauss", 0.9},
                             {"aciq_laplace", 1.0}}),
                     tensor("fc", 8.0,
                            {{"kl", 6.0},
                             {"mse", 5.0},
                             {"max", 8.0},
                             {"percentile9999", 7.0},
                             {"aciq_gauss", 3.0},
                             {"aciq_laplace", 4.0}})};
  return {{"schema", "tpuc.calibration_histograms"},
          {"version", 1},
          {"samples", 8},
          {"bins", 16},
          {"chosen", "kl"},
          {"tensors", tensors}};
}

QJsonObject convergenceJson() {
  QJsonArray tensors{
      QJsonObject{{"name", "conv1"},
                  {"thresholds", numbers({4, 3.5, 3.1, 3.01, 3, 3, 2.99, 3})},
                  {"stable_after", 4}},
      QJsonObject{
          {"name", "relu1"}, {"thresholds", numbers({1, 1, 1, 1, 1, 1, 1, 1.2})}, {"stable_after", 8}},
      QJsonObject{
          {"name", "fc"}, {"thresholds", numbers({2, 3, 4, 5, 5.5, 5.8, 6, kNull})}, {"stable_after", 7}}};
  return {{"schema", "tpuc.calibration_convergence"},
          {"version", 1},
          {"method", "kl"},
          {"tolerance", 0.01},
          {"samples", 8},
          {"checkpoints", numbers({1, 2, 3, 4, 5, 6, 7, 8})},
          {"stable_after", 8},
          {"enough_data", false},
          {"tensors", tensors}};
}

QByteArray bytes(const QJsonObject &object) { return QJsonDocument(object).toJson(); }

/// `root` with the value at `path` (object keys, array indices) replaced, or removed when `value` is
/// undefined.
QJsonValue replaced(const QJsonValue &root, QStringList path, const QJsonValue &value) {
  if (path.isEmpty())
    return value;
  const QString key = path.takeFirst();
  if (root.isArray()) {
    QJsonArray array = root.toArray();
    const int i = key.toInt();
    if (value.isUndefined() && path.isEmpty())
      array.removeAt(i);
    else
      array[i] = replaced(array[i], path, value);
    return array;
  }
  QJsonObject object = root.toObject();
  if (value.isUndefined() && path.isEmpty())
    object.remove(key);
  else
    object[key] = replaced(object[key], path, value);
  return object;
}

bool writeReport(const QString &dir, const QByteArray &histograms, const QByteArray &convergence) {
  QDir().mkpath(dir);
  QFile h(dir + "/histograms.json"), c(dir + "/convergence.json");
  return h.open(QIODevice::WriteOnly) && h.write(histograms) == histograms.size() &&
         c.open(QIODevice::WriteOnly) && c.write(convergence) == convergence.size();
}

vis::CalibrationReport knownReport() {
  Result<vis::CalibrationReport> report =
      vis::parseCalibrationReport(bytes(histogramsJson()), "h.json", bytes(convergenceJson()), "c.json");
  if (!report)
    qFatal("the known report does not parse: %s", report.error().c_str());
  return *report;
}

QLineSeries *seriesNamed(QChart *chart, const QString &prefix) {
  for (QAbstractSeries *s : chart->series())
    if (s->name().startsWith(prefix))
      return qobject_cast<QLineSeries *>(s);
  return nullptr;
}

#ifdef TPUC_ENGINE
/// Runs tpuc; an empty string when it exited 0, else its exit code and output.
QString runTpuc(const QStringList &arguments, const QString &dir) {
  QProcess tpuc;
  tpuc.setWorkingDirectory(dir);
  tpuc.setProcessChannelMode(QProcess::MergedChannels);
  tpuc.start(QStringLiteral(TPUC_ENGINE), arguments);
  if (!tpuc.waitForFinished(300000))
    return QStringLiteral("tpuc %1 did not finish").arg(arguments.join(' '));
  if (tpuc.exitStatus() == QProcess::NormalExit && tpuc.exitCode() == 0)
    return {};
  return QStringLiteral("tpuc %1: exit %2\n%3")
      .arg(arguments.join(' '))
      .arg(tpuc.exitCode())
      .arg(QString::fromUtf8(tpuc.readAll()));
}
#endif

} // namespace

class TestActivationStats : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void readerReadsAKnownReport();
  void readerRejectsMalformedReports_data();
  void readerRejectsMalformedReports();
  void modelsPassTheTesterAndSortAndFilter();
  void viewShowsTheReportAndFollowsTheSelection();
  void viewShowsWhyAReportIsMalformed();
  void chartsDrawEveryThresholdWithTheChosenOneSolid();
  void figuresAreWrittenAtTheirSize();
  void convergenceKnownAnswer_data();
  void convergenceKnownAnswer();
  void resnet18Screenshots();
};

void TestActivationStats::readerReadsAKnownReport() {
  const vis::CalibrationReport r = knownReport();
  QCOMPARE(r.samples, 8);
  QCOMPARE(r.bins, 16);
  QCOMPARE(r.chosen, QString("kl"));
  QCOMPARE(r.method, QString("kl"));
  QCOMPARE(r.highlightedMethod(), QString("kl"));
  QCOMPARE(r.checkpoints, (QVector<qint64>{1, 2, 3, 4, 5, 6, 7, 8}));
  QCOMPARE(r.stableAfter, 8);
  QVERIFY(!r.enoughData);
  QCOMPARE(r.tensors.size(), 3);
  const vis::TensorReport &conv = r.tensors[0];
  QCOMPARE(conv.name, QString("conv1"));
  QCOMPARE(conv.histogram.size(), 16);
  QCOMPARE(conv.histogram[1], 300.0);
  QCOMPARE(conv.threshold("kl"), 3.0);
  QVERIFY(std::isnan(conv.threshold("aciq_gauss"))); // null in the file
  QVERIFY(std::isnan(conv.threshold("octav")));      // not in the file
  QCOMPARE(conv.thresholds.size(), 6);
  QCOMPARE(conv.finalThreshold(), 3.0);
  QCOMPARE(conv.stableAfter, 4);
  QVERIFY(std::isnan(r.tensors[2].finalThreshold()));
  // Settled: with a quarter of the 8 samples left (by 6). relu1 settled last, then fc.
  QVERIFY(r.settled(conv));
  QVERIFY(!r.settled(r.tensors[1]));
  QVERIFY(!r.settled(r.tensors[2]));
  QCOMPARE(r.unsettled(), (QVector<int>{1, 2}));
  QCOMPARE(r.indexOf("fc"), 2);
  QCOMPARE(r.indexOf("nothere"), -1);
  // search_threshold's table comes from candidates the report does not hold: convergence's method is shown.
  QJsonObject h = histogramsJson();
  h["chosen"] = "search_threshold";
  auto searched = vis::parseCalibrationReport(bytes(h), "h.json", bytes(convergenceJson()), "c.json");
  QVERIFY2(searched, searched.error().c_str());
  QCOMPARE(searched->highlightedMethod(), QString("kl"));
  // Fewer than 4 samples never settle.
  QJsonObject few = histogramsJson(), fewc = convergenceJson();
  few["samples"] = 3;
  fewc["samples"] = 3;
  fewc["checkpoints"] = numbers({1, 2, 3});
  for (int i = 0; i < 3; ++i) {
    fewc = replaced(fewc, {"tensors", QString::number(i), "thresholds"}, numbers({1, 1, 1})).toObject();
    fewc = replaced(fewc, {"tensors", QString::number(i), "stable_after"}, 1).toObject();
  }
  auto small = vis::parseCalibrationReport(bytes(few), "h.json", bytes(fewc), "c.json");
  QVERIFY2(small, small.error().c_str());
  QVERIFY(!small->settled(small->tensors[0]));
  QVERIFY(vis::convergenceVerdict(*small).contains("at least 4"));
}

void TestActivationStats::readerRejectsMalformedReports_data() {
  QTest::addColumn<bool>("inHistograms");
  QTest::addColumn<QStringList>("path");
  QTest::addColumn<QJsonValue>("value");
  QTest::addColumn<QString>("error");
  const QJsonValue removed(QJsonValue::Undefined);
  QTest::newRow("schema") << true << QStringList{"schema"} << QJsonValue("tpuc.result")
                          << "h.json: schema: expected 'tpuc.calibration_histograms', found 'tpuc.result'";
  QTest::newRow("newer version") << false << QStringList{"version"} << QJsonValue(2)
                                 << "c.json: version: version 2 is not one this studio reads (1 to 1)";
  QTest::newRow("no tensors") << true << QStringList{"tensors"} << removed << "h.json: tensors: missing";
  QTest::newRow("tensors not an array")
      << true << QStringList{"tensors"} << QJsonValue(3) << "h.json: tensors: expected an array";
  QTest::newRow("tensor not an object") << true << QStringList{"tensors", "1"} << QJsonValue("relu1")
                                        << "h.json: tensors[1]: expected an object";
  QTest::newRow("nameless tensor") << true << QStringList{"tensors", "0", "name"} << removed
                                   << "h.json: tensors[0].name: missing";
  QTest::newRow("empty name") << true << QStringList{"tensors", "0", "name"} << QJsonValue("")
                              << "h.json: tensors[0].name: empty";
  QTest::newRow("twice") << true << QStringList{"tensors", "2", "name"} << QJsonValue("conv1")
                         << "h.json: tensors[2].name: 'conv1' is listed twice (also tensors[0])";
  QTest::newRow("bin text") << true << QStringList{"tensors", "1", "histogram", "3"} << QJsonValue("many")
                            << "h.json: tensors[1].histogram[3]: expected a number or null";
  QTest::newRow("negative bin") << true << QStringList{"tensors", "1", "histogram", "3"} << QJsonValue(-2)
                                << "h.json: tensors[1].histogram[3]: expected a count (a number >= 0)";
  QTest::newRow("null bin") << true << QStringList{"tensors", "1", "histogram", "0"}
                            << QJsonValue(QJsonValue::Null)
                            << "h.json: tensors[1].histogram[0]: expected a count (a number >= 0)";
  QTest::newRow("fractional count") << true << QStringList{"tensors", "0", "count"} << QJsonValue(2.5)
                                    << "h.json: tensors[0].count: expected a non-negative integer";
  QTest::newRow("threshold text") << true << QStringList{"tensors", "2", "thresholds", "kl"}
                                  << QJsonValue("6")
                                  << "h.json: tensors[2].thresholds.kl: expected a number or null";
  QTest::newRow("no thresholds") << true << QStringList{"tensors", "0", "thresholds"} << removed
                                 << "h.json: tensors[0].thresholds: missing";
  QTest::newRow("negative width") << true << QStringList{"tensors", "0", "bin_width"} << QJsonValue(-1)
                                  << "h.json: tensors[0].bin_width: negative";
  QTest::newRow("samples disagree") << false << QStringList{"samples"} << QJsonValue(9)
                                    << "c.json: samples: 9, but histograms.json counts 8 samples";
  QTest::newRow("checkpoints out of order")
      << false << QStringList{"checkpoints", "3"} << QJsonValue(2)
      << "c.json: checkpoints[3]: 2 is not an increasing sample count within 1..8";
  QTest::newRow("checkpoint beyond the samples")
      << false << QStringList{"checkpoints", "7"} << QJsonValue(9)
      << "c.json: checkpoints[7]: 9 is not an increasing sample count within 1..8";
  QTest::newRow("short series") << false << QStringList{"tensors", "1", "thresholds", "7"} << removed
                                << "c.json: tensors[1].thresholds: 7 values for 8 checkpoints";
  QTest::newRow("unknown tensor") << false << QStringList{"tensors", "2", "name"} << QJsonValue("fc2")
                                  << "c.json: tensors[2].name: 'fc2' is not in histograms.json";
  QTest::newRow("stable after the end")
      << false << QStringList{"tensors", "0", "stable_after"} << QJsonValue(9)
      << "c.json: tensors[0].stable_after: 9 is more than the 8 samples";
  QTest::newRow("verdict not a boolean") << false << QStringList{"enough_data"} << QJsonValue("no")
                                         << "c.json: enough_data: expected true or false";
  QTest::newRow("tolerance") << false << QStringList{"tolerance"} << QJsonValue(0)
                             << "c.json: tolerance: expected a fraction between 0 and 1";
}

void TestActivationStats::readerRejectsMalformedReports() {
  QFETCH(bool, inHistograms);
  QFETCH(QStringList, path);
  QFETCH(QJsonValue, value);
  QFETCH(QString, error);
  QJsonObject h = histogramsJson(), c = convergenceJson();
  (inHistograms ? h : c) = replaced(inHistograms ? h : c, path, value).toObject();
  Result<vis::CalibrationReport> report = vis::parseCalibrationReport(bytes(h), "h.json", bytes(c), "c.json");
  QVERIFY(!report);
  QCOMPARE(QString::fromStdString(report.error()), error);
}

void TestActivationStats::modelsPassTheTesterAndSortAndFilter() {
  ActivationStatsModel model;
  ActivationStatsFilter filter;
  filter.setSourceModel(&model);
  QAbstractItemModelTester modelTester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(model.rowCount(), 0);
  model.setReport(std::make_shared<const vis::CalibrationReport>(knownReport()));
  QCOMPARE(model.rowCount(), 3);
  QCOMPARE(model.headerData(ActivationStatsModel::Threshold, Qt::Horizontal, Qt::DisplayRole).toString(),
           QString("kl threshold"));
  QCOMPARE(model.index(0, ActivationStatsModel::Threshold).data().toString(), QString("3"));
  QCOMPARE(model.index(2, ActivationStatsModel::StableAfter).data().toLongLong(), 7);
  QCOMPARE(model.index(0, ActivationStatsModel::Settled).data().toString(), QString("settled"));
  QCOMPARE(model.index(1, ActivationStatsModel::Settled).data().toString(), QString("not settled"));
  // Sorting by "settled after", latest first: relu1 (8), fc (7), conv1 (4).
  filter.sort(ActivationStatsModel::StableAfter, Qt::DescendingOrder);
  QStringList order;
  for (int row = 0; row < filter.rowCount(); ++row)
    order << filter.index(row, ActivationStatsModel::Name).data().toString();
  QCOMPARE(order, (QStringList{"relu1", "fc", "conv1"}));
  filter.setOnlyUnsettled(true);
  QCOMPARE(filter.rowCount(), 2);
  filter.setNameFilter("RELU");
  QCOMPARE(filter.rowCount(), 1);
  QCOMPARE(filter.index(0, ActivationStatsModel::Name).data().toString(), QString("relu1"));
  filter.setOnlyUnsettled(false);
  filter.setNameFilter("");
  QCOMPARE(filter.rowCount(), 3);
  model.setReport(nullptr);
  QCOMPARE(filter.rowCount(), 0);
}

void TestActivationStats::viewShowsTheReportAndFollowsTheSelection() {
  QTemporaryDir dir;
  QVERIFY(writeReport(dir.path(), bytes(histogramsJson()), bytes(convergenceJson())));
  StudioContext context;
  ActivationStatsView view(&context, QString());
  QSignalSpy loaded(&view, &ActivationStatsView::loaded);
  view.load(dir.path());
  QVERIFY(loaded.wait(10000));
  QCOMPARE(loaded.front().front().toBool(), true);
  QVERIFY(view.error().isEmpty());
  QCOMPARE(view.model()->rowCount(), 3);
  // The banner: not enough data, naming the tensors that settled last.
  const QString banner = view.banner()->text();
  QVERIFY2(banner.contains("Add more samples") && banner.contains("2 of 3 kl thresholds") &&
               banner.contains("relu1 (after 8)") && banner.contains("fc (after 7)"),
           qPrintable(banner));
  // It opens on the tensor that settled last, without publishing a selection nobody made.
  QCOMPARE(view.currentTensor(), QString("relu1"));
  QCOMPARE(view.figure()->tensor(), 1);
  QVERIFY(context.selectedOp().isEmpty());
  // An op selected elsewhere selects its row and figure; a row selected here is published.
  context.selectOp("fc");
  QCOMPARE(view.currentTensor(), QString("fc"));
  QCOMPARE(view.figure()->tensor(), 2);
  QSignalSpy published(&context, &StudioContext::opSelectionChanged);
  view.table()->setCurrentIndex(
      view.filter()->mapFromSource(view.model()->index(0, ActivationStatsModel::Name)));
  QCOMPARE(context.selectedOp(), QString("conv1"));
  QCOMPARE(published.size(), 1);
  // A selection hidden by the filter shows every tensor again.
  view.onlyUnsettled()->setChecked(true);
  QCOMPARE(view.filter()->rowCount(), 2);
  context.selectOp("relu1");
  QCOMPARE(view.currentTensor(), QString("relu1"));
  context.selectOp("conv1");
  QCOMPARE(view.currentTensor(), QString("conv1"));
  QVERIFY(!view.onlyUnsettled()->isChecked());
  QCOMPARE(view.filter()->rowCount(), 3);
  // An op the report does not have leaves the selection alone.
  context.selectOp("not_a_tensor");
  QCOMPARE(view.currentTensor(), QString("conv1"));
  // A second view opening while an op is selected starts on it.
  ActivationStatsView second(&context, dir.path());
  QSignalSpy secondLoaded(&second, &ActivationStatsView::loaded);
  context.selectOp("fc");
  QVERIFY(secondLoaded.wait(10000));
  QCOMPARE(second.currentTensor(), QString("fc"));
}

void TestActivationStats::viewShowsWhyAReportIsMalformed() {
  QTemporaryDir dir;
  QJsonObject h = histogramsJson();
  h = replaced(h, {"tensors", "1", "histogram", "2"}, QJsonValue("x")).toObject();
  QVERIFY(writeReport(dir.path(), bytes(h), bytes(convergenceJson())));
  StudioContext context;
  QStringList logged;
  connect(&context, &StudioContext::logMessage, [&](LogLevel, const QString &text) { logged << text; });
  ActivationStatsView view(&context, dir.path());
  QSignalSpy loaded(&view, &ActivationStatsView::loaded);
  QVERIFY(loaded.wait(10000));
  QCOMPARE(loaded.front().front().toBool(), false);
  const QString expected =
      QDir(dir.path()).filePath("histograms.json") + ": tensors[1].histogram[2]: expected a number or null";
  QCOMPARE(view.error(), expected);
  QVERIFY2(view.banner()->text().contains(expected.toHtmlEscaped()), qPrintable(view.banner()->text()));
  QCOMPARE(view.model()->rowCount(), 0);
  QCOMPARE(view.figure()->tensor(), -1);
  QVERIFY2(!logged.isEmpty() && logged.back().contains(expected), qPrintable(logged.join('\n')));
  view.resize(1000, 500);
  QVERIFY(view.grab().save(screenshotDir() + "/activation-stats-malformed.png"));
  // Not JSON at all, and a folder without a report.
  QFile broken(dir.filePath("convergence.json"));
  QVERIFY(broken.open(QIODevice::WriteOnly));
  broken.write("{\"schema\": ");
  broken.close();
  QVERIFY(writeReport(dir.path() + "/ok", bytes(histogramsJson()), "{\"schema\": "));
  view.load(dir.path() + "/ok");
  QVERIFY(loaded.wait(10000));
  QVERIFY2(view.error().startsWith(QDir(dir.path() + "/ok").filePath("convergence.json") + ": not JSON: "),
           qPrintable(view.error()));
  view.load(dir.path() + "/none");
  QVERIFY(loaded.wait(10000));
  QVERIFY2(view.error().startsWith(QDir(dir.path() + "/none").filePath("histograms.json") + ": cannot read"),
           qPrintable(view.error()));
  // A good report after a bad one shows again.
  view.load(dir.path() + "/ok");
  QVERIFY(writeReport(dir.path() + "/ok", bytes(histogramsJson()), bytes(convergenceJson())));
  view.load(dir.path() + "/ok");
  QTRY_VERIFY(view.model()->rowCount() == 3 && view.error().isEmpty());
}

void TestActivationStats::chartsDrawEveryThresholdWithTheChosenOneSolid() {
  const vis::CalibrationReport r = knownReport();
  QPalette palette;
  std::unique_ptr<QChart> histogram(vis::makeHistogramChart(r, 0, palette, 4));
  // The histogram (16 bins merged 4 to a bar: 4 bars, the counts summed) and the five finite thresholds;
  // aciq_gauss is null and has no line.
  QAreaSeries *area = nullptr;
  int lines = 0;
  for (QAbstractSeries *s : histogram->series()) {
    if (auto *a = qobject_cast<QAreaSeries *>(s))
      area = a;
    else
      ++lines;
  }
  QVERIFY(area);
  QCOMPARE(lines, 5);
  QCOMPARE(area->upperSeries()->count(), 8);
  QCOMPARE(area->upperSeries()->at(0).y(), 0.0 + 300 + 200 + 90);
  QCOMPARE(area->upperSeries()->at(7).y(), 4.0); // bins 12..15: 1, 0, 0, 3
  QVERIFY(!seriesNamed(histogram.get(), "aciq_gauss"));
  QLineSeries *kl = seriesNamed(histogram.get(), "kl 3 (chosen)");
  QVERIFY(kl);
  QCOMPARE(kl->at(0).x(), 3.0);
  QCOMPARE(kl->pen().style(), Qt::SolidLine);
  for (const char *method : {"mse 2.5", "max 4", "percentile9999 3.5", "aciq_laplace 2"}) {
    QLineSeries *line = seriesNamed(histogram.get(), method);
    QVERIFY2(line, method);
    QCOMPARE(line->pen().style(), Qt::DashLine);
    QVERIFY(line->pen().widthF() < kl->pen().widthF());
    QCOMPARE(line->pen().color(), vis::methodColor(QString(method).section(' ', 0, 0)));
  }
  // Convergence: the threshold relative to its final value at each checkpoint, the band and the marker.
  std::unique_ptr<QChart> convergence(vis::makeConvergenceChart(r, 0, palette));
  QLineSeries *ratio = seriesNamed(convergence.get(), "kl threshold / final");
  QVERIFY(ratio);
  QCOMPARE(ratio->count(), 8);
  QCOMPARE(ratio->at(0), QPointF(1, 4.0 / 3.0));
  QCOMPARE(ratio->at(7), QPointF(8, 1.0));
  QLineSeries *settled = seriesNamed(convergence.get(), "settled after 4");
  QVERIFY(settled);
  QCOMPARE(settled->at(0).x(), 4.0);
  QVERIFY(seriesNamed(convergence.get(), "enough if settled by 6"));
  bool band = false;
  for (QAbstractSeries *s : convergence->series())
    if (auto *a = qobject_cast<QAreaSeries *>(s);
        a && a->upperSeries()->at(0).y() == 1.01 && a->lowerSeries()->at(0).y() == 0.99)
      band = true;
  QVERIFY(band);
  // fc's last threshold is null: no final value, no ratios, and no crash.
  std::unique_ptr<QChart> empty(vis::makeConvergenceChart(r, 2, palette));
  QCOMPARE(seriesNamed(empty.get(), "kl threshold / final")->count(), 0);
  // The overview colours the tensors that settled last and names them.
  std::unique_ptr<QChart> overview(vis::makeConvergenceOverviewChart(r, palette, 1));
  QVERIFY(seriesNamed(overview.get(), "relu1 (after 8)"));
  QVERIFY(!seriesNamed(overview.get(), "fc (after"));
  QVERIFY(seriesNamed(overview.get(), "all settled after 8"));
}

void TestActivationStats::figuresAreWrittenAtTheirSize() {
  QTemporaryDir dir;
  const vis::CalibrationReport r = knownReport();
  Result<QStringList> written = vis::writeCalibrationFigures(r, dir.path(), QSize(640, 480), QPalette(), 2);
  QVERIFY2(written, written.error().c_str());
  // The overview, the two tensors that did not settle (latest first), the index.
  const QStringList expected{dir.filePath("overview.png"), dir.filePath("tensor-001-relu1.png"),
                             dir.filePath("tensor-002-fc.png"), dir.filePath("index.html")};
  QCOMPARE(*written, expected);
  for (const QString &png : expected.mid(0, 3)) {
    QImage image(png);
    QVERIFY2(!image.isNull(), qPrintable(png));
    QCOMPARE(image.size(), QSize(640, 480));
  }
  QFile index(dir.filePath("index.html"));
  QVERIFY(index.open(QIODevice::ReadOnly));
  const QString html = QString::fromUtf8(index.readAll());
  QVERIFY(html.contains("<a href=\"tensor-001-relu1.png\">"));
  QVERIFY(html.contains("not drawn (at most 2 figures)")); // conv1
  QVERIFY(html.contains("Add more samples"));
  QCOMPARE(vis::tensorFigureName(r, 0), QString("tensor-000-conv1.png"));
}

void TestActivationStats::convergenceKnownAnswer_data() {
  QTest::addColumn<int>("samples");
  QTest::addColumn<int>("settlesAt");   ///< the sample that reaches the maximum
  QTest::addColumn<int>("stableAfter"); ///< the first checkpoint at or after it
  QTest::addColumn<bool>("enough");
  // Enough data needs every threshold settled with a quarter of the samples left: by 9 of 12, 30 of 40.
  QTest::newRow("12, settles at 5") << 12 << 5 << 5 << true;
  QTest::newRow("12, settles at 9 (the last in time)") << 12 << 9 << 9 << true;
  QTest::newRow("12, settles at 10") << 12 << 10 << 10 << false;
  // 40 samples: checkpoints 1..16, then every 2 (ceil(40/32)), so a threshold settling at 25 is seen at 26.
  QTest::newRow("40, settles at 25") << 40 << 25 << 26 << true;
  QTest::newRow("40, settles at 31") << 40 << 31 << 32 << false;
}

void TestActivationStats::convergenceKnownAnswer() {
#ifndef TPUC_ENGINE
  QSKIP("the tpuc target is not part of this build");
#else
  QFETCH(int, samples);
  QFETCH(int, settlesAt);
  QFETCH(int, stableAfter);
  QFETCH(bool, enough);
  QTemporaryDir dir;
  // x -> x + x -> relu: every tensor's maximum is the input's, times two after the add.
  QFile mlir(dir.filePath("tiny.mlir"));
  QVERIFY(mlir.open(QIODevice::WriteOnly));
  mlir.write(R"(module attributes {top.state = #top.state<TOP_F32>} {
  func.func @main(%arg0: tensor<1x8xf32>) -> (tensor<1x8xf32> {top.name = "r"}) {
    %x = top.input %arg0 : tensor<1x8xf32> -> tensor<1x8xf32> loc("x")
    %a = top.add %x, %x : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32> loc("a")
    %r = top.relu %a : tensor<1x8xf32> -> tensor<1x8xf32> loc("r")
    return %r : tensor<1x8xf32>
  }
}
)");
  mlir.close();
  // Before sample k the peaks climb from half the maximum to below 90 % of it (never within 1 %); sample k
  // reaches the maximum M; every later sample draws from the same bounded distribution, below M.
  const float M = 5.0f;
  QFile list(dir.filePath("samples.txt"));
  QVERIFY(list.open(QIODevice::WriteOnly));
  std::mt19937 random(7);
  std::uniform_real_distribution<float> below(0.3f, 0.95f);
  for (int i = 1; i <= samples; ++i) {
    const float peak = i < settlesAt    ? M * (0.5f + 0.4f * float(i) / float(settlesAt))
                       : i == settlesAt ? M
                                        : M * below(random);
    std::vector<float> values{peak, -peak / 2, peak / 4, 0.1f, -0.3f * peak, 0.2f, peak / 8, 0.0f};
    const QString file = dir.filePath(QStringLiteral("s%1.npy").arg(i, 3, 10, QLatin1Char('0')));
    writeNpy(file.toStdString(), Tensor::fromValues<float>({1, 8}, values));
    list.write(file.toUtf8() + '\n');
  }
  list.close();
  const QString run =
      runTpuc({"calibrate", "tiny.mlir", "--data_list", "samples.txt", "--cali_method", "max", "--threads",
               "2", "--report", "report", "--report_figures", "0", "-o", "table"},
              dir.path());
  QVERIFY2(run.isEmpty(), qPrintable(run));
  Result<vis::CalibrationReport> report = vis::readCalibrationReport(dir.filePath("report"));
  QVERIFY2(report, report.error().c_str());
  QCOMPARE(report->method, QString("max"));
  QCOMPARE(report->samples, samples);
  QCOMPARE(report->tensors.size(), 3);
  for (const vis::TensorReport &t : report->tensors) {
    QCOMPARE(t.stableAfter, stableAfter);
    QCOMPARE(report->settled(t), enough);
  }
  QCOMPARE(report->tensors[0].finalThreshold(), double(M));
  QCOMPARE(report->tensors[1].finalThreshold(), double(2 * M));
  QCOMPARE(report->stableAfter, stableAfter);
  QCOMPARE(report->enoughData, enough);
  QCOMPARE(report->unsettled().size(), enough ? 0 : 3);
  // The view says the same to the user.
  StudioContext context;
  ActivationStatsView view(&context, dir.filePath("report"));
  QSignalSpy loaded(&view, &ActivationStatsView::loaded);
  QVERIFY(loaded.wait(10000));
  const QString banner = view.banner()->text();
  if (enough)
    QVERIFY2(banner.contains(
                 QStringLiteral(
                     "<b>Enough data:</b> every max threshold settled within 1 % after %1 of %2 samples")
                     .arg(stableAfter)
                     .arg(samples)),
             qPrintable(banner));
  else
    QVERIFY2(banner.contains("<b>Add more samples:</b> 3 of 3 max thresholds") &&
                 banner.contains(QStringLiteral("(all after %1 of %2;").arg(stableAfter).arg(samples)) &&
                 banner.contains(QStringLiteral("x (after %1)").arg(stableAfter)),
             qPrintable(banner));
#endif
}

void TestActivationStats::resnet18Screenshots() {
#ifndef TPUC_ENGINE
  QSKIP("the tpuc target is not part of this build");
#else
  const QString assets = QString::fromStdString(testsupport::assetsDir());
  const QString onnx = assets + "/models/resnet18.onnx";
  QVERIFY2(QFileInfo::exists(onnx), qPrintable(onnx + " is missing: " + testsupport::kFetchHint));
  QTemporaryDir dir;
  QFile list(dir.filePath("photos.txt"));
  QVERIFY(list.open(QIODevice::WriteOnly));
  const QFileInfoList photos =
      QDir(assets + "/images").entryInfoList({"*.jpg", "*.png"}, QDir::Files, QDir::Name);
  QVERIFY(photos.size() >= 8);
  for (const QFileInfo &photo : photos)
    list.write(photo.absoluteFilePath().toUtf8() + '\n');
  list.close();
  QString run = runTpuc({"transform", "--model_name", "resnet18", "--model_def", onnx, "--input_shapes",
                         "[[1,3,224,224]]", "--mean", "123.675,116.28,103.53", "--scale",
                         "0.0171,0.0175,0.0174", "--pixel_format", "rgb", "--mlir", "resnet18.mlir"},
                        dir.path());
  QVERIFY2(run.isEmpty(), qPrintable(run));
  run = runTpuc({"calibrate", "resnet18.mlir", "--data_list", "photos.txt", "--report", "report",
                 "--report_figures", "0", "-o", "table"},
                dir.path());
  QVERIFY2(run.isEmpty(), qPrintable(run));
  StudioContext context;
  ActivationStatsView view(&context, dir.filePath("report"));
  QSignalSpy loaded(&view, &ActivationStatsView::loaded);
  QVERIFY(loaded.wait(20000));
  QVERIFY2(view.error().isEmpty(), qPrintable(view.error()));
  QVERIFY(view.model()->rowCount() > 20);
  view.resize(1600, 1000);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  QVERIFY(view.grab().save(screenshotDir() + "/activation-stats-resnet18.png"));
  view.charts()->setCurrentIndex(1);
  QVERIFY(view.grab().save(screenshotDir() + "/activation-stats-resnet18-all.png"));
  view.charts()->setCurrentIndex(0);
  view.onlyUnsettled()->setChecked(true);
  const QVector<int> unsettled = view.report()->unsettled();
  QVERIFY(unsettled.size() >= 2); // 21 photos are not enough for resnet18's kl thresholds
  context.selectOp(view.report()->tensors[unsettled[1]].name);
  QCOMPARE(view.filter()->rowCount(), unsettled.size());
  QVERIFY(view.grab().save(screenshotDir() + "/activation-stats-resnet18-selected.png"));
#endif
}

QTEST_MAIN(TestActivationStats)
#include "tst_activationstats.moc"
