// Qt Charts of calibration reports: histogram with thresholds, convergence per tensor and overall, and the
// PNG figures of `tpuc view calibration`.
#include "visualizer/CalibrationCharts.h"
#include "visualizer/ChartTheme.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QFile>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPixmap>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QSplitter>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tpuc::vis {

namespace {

/// Where a threshold settled: in time (green) or too late to confirm (vermillion); both read on light and
/// dark.
const QColor kSettledColor(0x2e, 0xa0, 0x43), kLateColor(0xd5, 0x5e, 0x00);
/// Log axes cannot show 0: empty bins sit on this baseline.
constexpr double kBaseline = 0.5;
/// Relative thresholds beyond this are clipped in the convergence charts, so the ±1 % band stays visible
/// next to a first sample that was far off.
constexpr double kRatioClip = 3.0;

QLineSeries *verticalLine(double x, double y0, double y1, const QPen &pen, const QString &name) {
  auto *line = new QLineSeries;
  line->setName(name);
  line->setPen(pen);
  line->append(x, y0);
  line->append(x, y1);
  return line;
}

/// The tolerance band around 1 from x0 to x1.
QAreaSeries *band(double x0, double x1, double tolerance, const QPalette &palette) {
  auto *upper = new QLineSeries, *lower = new QLineSeries;
  upper->append(x0, 1 + tolerance);
  upper->append(x1, 1 + tolerance);
  lower->append(x0, 1 - tolerance);
  lower->append(x1, 1 - tolerance);
  auto *area = new QAreaSeries(upper, lower);
  area->setName(QCoreApplication::translate("CalibrationCharts", "±%1 % of the final value")
                    .arg(tolerance * 100, 0, 'g', 3));
  QColor fill = palette.color(QPalette::Highlight);
  fill.setAlphaF(0.22f);
  area->setBrush(fill);
  QColor edge = palette.color(QPalette::Highlight);
  edge.setAlphaF(0.6f);
  area->setPen(QPen(edge, 1));
  return area;
}

/// The y range of relative thresholds: around the band, clipped to [0, kRatioClip].
std::pair<double, double> ratioRange(double lo, double hi, double tolerance, bool *clipped) {
  lo = std::min(lo, 1 - 2 * tolerance);
  hi = std::max(hi, 1 + 2 * tolerance);
  *clipped = lo < 0 || hi > kRatioClip;
  lo = std::max(lo, 0.0);
  hi = std::min(hi, kRatioClip);
  const double pad = (hi - lo) * 0.06;
  return {std::max(0.0, lo - pad), hi + pad};
}

/// The y axis of relative thresholds from `lo` to `hi` (see ratioRange), at round numbers.
QValueAxis *ratioAxis(double lo, double hi, double tolerance) {
  bool clipped = false;
  const auto [y0, y1] = ratioRange(lo, hi, tolerance, &clipped);
  auto *y = new QValueAxis;
  y->setTitleText(
      clipped ? QCoreApplication::translate("CalibrationCharts", "ratio (clipped to 0–%1)").arg(kRatioClip)
              : QCoreApplication::translate("CalibrationCharts", "ratio"));
  y->setRange(y0, y1);
  y->applyNiceNumbers();
  y->setLabelFormat(QStringLiteral("%.3g"));
  return y;
}

/// 1, 2 or 5 times a power of ten, at least `rough`.
double niceStep(double rough) {
  const double power = std::pow(10.0, std::floor(std::log10(std::max(rough, 1e-12))));
  for (double m : {1.0, 2.0, 5.0})
    if (m * power >= rough)
      return m * power;
  return 10 * power;
}

/// 0 to the sample count exactly (the last checkpoint on the right edge), ticks at round counts.
QValueAxis *samplesAxis(const CalibrationReport &report) {
  auto *x = new QValueAxis;
  const double n = std::max<double>(1, static_cast<double>(report.samples));
  x->setTitleText(QCoreApplication::translate("CalibrationCharts", "samples"));
  x->setRange(0, n);
  x->setLabelFormat(QStringLiteral("%d"));
  x->setTickType(QValueAxis::TicksDynamic);
  x->setTickAnchor(0);
  x->setTickInterval(std::max(1.0, niceStep(n / 8)));
  return x;
}

/// "/layer1/layer1.1/…/Conv_output_0": long tensor names elided in the middle for legends.
QString elided(const QString &name, int length = 40) {
  return name.size() <= length ? name
                               : name.left(length / 2 - 1) + QStringLiteral("…") + name.right(length / 2);
}

/// The colours of highlighted tensors in the overview (apart from the method colours).
QColor seriesColor(int i) {
  static const QColor colors[] = {QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd),
                                  QColor(0x8c, 0x56, 0x4b), QColor(0x17, 0xbe, 0xcf),
                                  QColor(0xbc, 0xbd, 0x22), QColor(0x7f, 0x7f, 0x7f)};
  return colors[i % 6];
}

QString tensorLabel(const TensorReport &t) {
  return QCoreApplication::translate("CalibrationCharts", "%1 (after %2)")
      .arg(elided(t.name, 36), QString::number(t.stableAfter));
}

/// The dotted line at the sample count by which a threshold must settle to leave a quarter of the samples to
/// confirm it ("enough data"), on a chart of `report` spanning y0..y1.
void addConfirmLine(QChart *chart, const CalibrationReport &report, const QPalette &palette, double y0,
                    double y1) {
  if (report.samples < 4)
    return;
  const qint64 confirmBy = report.samples - report.samples / 4;
  chart->addSeries(verticalLine(
      static_cast<double>(confirmBy), y0, y1,
      QPen(blend(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.5), 1, Qt::DotLine),
      QCoreApplication::translate("CalibrationCharts", "enough if settled by %1").arg(confirmBy)));
}

} // namespace

QColor methodColor(const QString &method) {
  if (method == QLatin1String("kl"))
    return QColor(0x00, 0x72, 0xb2);
  if (method == QLatin1String("mse"))
    return QColor(0x00, 0x9e, 0x73);
  if (method == QLatin1String("max"))
    return QColor(0xd5, 0x5e, 0x00);
  if (method == QLatin1String("percentile9999"))
    return QColor(0xcc, 0x79, 0xa7);
  if (method == QLatin1String("aciq_gauss"))
    return QColor(0xe6, 0x9f, 0x00);
  if (method == QLatin1String("aciq_laplace"))
    return QColor(0x56, 0xb4, 0xe9);
  return QColor(0x88, 0x88, 0x88);
}

QString thresholdText(double value) {
  return std::isfinite(value) ? QString::number(value, 'g', 4) : QStringLiteral("—");
}

QChart *makeHistogramChart(const CalibrationReport &report, int tensor, const QPalette &palette,
                           int maxBars) {
  const TensorReport &t = report.tensors[tensor];
  const QString highlighted = report.highlightedMethod();
  QChart *chart = newChart(
      palette, QCoreApplication::translate("CalibrationCharts", "%1: %2 values (%3 zeros), range %4 … %5")
                   .arg(t.name, QString::number(t.count), QString::number(t.zeros), thresholdText(t.min),
                        thresholdText(t.max)));
  // Merge neighbouring bins so a bar is at least a pixel or so wide; the counts add up.
  const qsizetype bins = t.histogram.size();
  const qsizetype factor = std::max<qsizetype>(1, (bins + maxBars - 1) / std::max(1, maxBars));
  const double width = std::isfinite(t.binWidth) ? t.binWidth : 0.0;
  double top = 1;
  double right = std::isfinite(t.absMax) ? t.absMax : 0.0;
  if (width > 0 && bins > 0) {
    auto *upper = new QLineSeries, *lower = new QLineSeries;
    for (qsizetype k = 0; k * factor < bins; ++k) {
      double count = 0;
      for (qsizetype j = k * factor; j < std::min(bins, (k + 1) * factor); ++j)
        count += t.histogram[j];
      // Bin j is centred at j * width (TPU-MLIR's layout): a merged bar spans its first to last bin.
      const double x0 = std::max(0.0, (static_cast<double>(k * factor) - 0.5) * width);
      const double x1 = (static_cast<double>(std::min(bins, (k + 1) * factor)) - 0.5) * width;
      const double y = std::max(count, kBaseline);
      upper->append(x0, y);
      upper->append(x1, y);
      top = std::max(top, count);
      right = std::max(right, x1);
    }
    lower->append(0, kBaseline);
    lower->append(right, kBaseline);
    auto *area = new QAreaSeries(upper, lower);
    area->setName(factor > 1
                      ? QCoreApplication::translate("CalibrationCharts", "count (%1 bins a bar)").arg(factor)
                      : QCoreApplication::translate("CalibrationCharts", "count"));
    area->setBrush(blend(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.35));
    area->setPen(QPen(blend(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.55), 1));
    chart->addSeries(area);
  }
  for (const MethodThreshold &m : t.thresholds)
    if (std::isfinite(m.value))
      right = std::max(right, m.value);
  right = std::max(right, 1e-5) * 1.04;
  const double ceiling = std::max(10.0, top * 3);
  // Seven entries with values: a column on the right reads better than a clipped row.
  chart->legend()->setAlignment(Qt::AlignRight);
  // The highlighted method last, so its line is drawn on top.
  QVector<MethodThreshold> ordered = t.thresholds;
  std::stable_partition(ordered.begin(), ordered.end(),
                        [&](const MethodThreshold &m) { return m.method != highlighted; });
  for (const MethodThreshold &m : ordered) {
    if (!std::isfinite(m.value))
      continue;
    const bool chosen = m.method == highlighted;
    QPen pen(methodColor(m.method), chosen ? 3.5 : 1.6, chosen ? Qt::SolidLine : Qt::DashLine);
    const QString name = chosen ? QCoreApplication::translate("CalibrationCharts", "%1 %2 (chosen)")
                                      .arg(m.method, thresholdText(m.value))
                                : QStringLiteral("%1 %2").arg(m.method, thresholdText(m.value));
    chart->addSeries(verticalLine(m.value, kBaseline, ceiling, pen, name));
  }
  auto *x = new QValueAxis;
  x->setTitleText(QCoreApplication::translate("CalibrationCharts", "|x|"));
  x->setRange(0, right);
  x->setTickType(QValueAxis::TicksDynamic);
  x->setTickAnchor(0);
  x->setTickInterval(niceStep(right / 8));
  x->setLabelFormat(QStringLiteral("%.3g"));
  auto *y = new QLogValueAxis;
  y->setBase(10);
  y->setTitleText(QCoreApplication::translate("CalibrationCharts", "count (log)"));
  y->setRange(kBaseline, ceiling);
  y->setLabelFormat(QStringLiteral("%.0e"));
  attachAxes(chart, x, y, palette);
  return chart;
}

QChart *makeConvergenceChart(const CalibrationReport &report, int tensor, const QPalette &palette) {
  const TensorReport &t = report.tensors[tensor];
  const double final = t.finalThreshold();
  const bool settled = report.settled(t);
  QChart *chart = newChart(
      palette,
      QCoreApplication::translate("CalibrationCharts", "%1 threshold %2; %3")
          .arg(report.method, thresholdText(final),
               t.stableAfter > 0
                   ? QCoreApplication::translate("CalibrationCharts", "within ±%1 % from %2 of %3 samples%4")
                         .arg(report.tolerance * 100, 0, 'g', 3)
                         .arg(t.stableAfter)
                         .arg(report.samples)
                         .arg(settled ? QString()
                                      : QCoreApplication::translate("CalibrationCharts", " (too late)"))
                   : QCoreApplication::translate("CalibrationCharts", "no convergence recorded")));
  const double xEnd = std::max<double>(1, static_cast<double>(report.samples));
  chart->addSeries(band(0, xEnd, report.tolerance, palette));
  auto *series = new QLineSeries;
  series->setName(
      QCoreApplication::translate("CalibrationCharts", "%1 threshold / final").arg(report.method));
  series->setPen(QPen(methodColor(report.method), 2));
  series->setPointsVisible(true);
  double lo = 1, hi = 1;
  double stableRatio = std::numeric_limits<double>::quiet_NaN();
  for (qsizetype i = 0; i < t.convergence.size() && i < report.checkpoints.size(); ++i) {
    if (!std::isfinite(t.convergence[i]) || !(std::abs(final) > 0))
      continue;
    const double ratio = t.convergence[i] / final;
    series->append(static_cast<double>(report.checkpoints[i]), ratio);
    lo = std::min(lo, ratio);
    hi = std::max(hi, ratio);
    if (report.checkpoints[i] == t.stableAfter)
      stableRatio = ratio;
  }
  chart->addSeries(series);
  QValueAxis *y = ratioAxis(lo, hi, report.tolerance);
  const double y0 = y->min(), y1 = y->max();
  addConfirmLine(chart, report, palette, y0, y1);
  if (t.stableAfter > 0) {
    const QColor mark = settled ? kSettledColor : kLateColor;
    chart->addSeries(verticalLine(
        static_cast<double>(t.stableAfter), y0, y1, QPen(mark, 1.5, Qt::DashLine),
        QCoreApplication::translate("CalibrationCharts", "settled after %1").arg(t.stableAfter)));
    if (std::isfinite(stableRatio)) {
      auto *point = new QScatterSeries;
      point->setMarkerSize(12);
      point->setColor(mark);
      point->setBorderColor(palette.color(QPalette::Base));
      point->append(static_cast<double>(t.stableAfter), std::clamp(stableRatio, y0, y1));
      chart->addSeries(point);
      chart->legend()->markers(point).value(0)->setVisible(false);
    }
  }
  QValueAxis *x = samplesAxis(report);
  attachAxes(chart, x, y, palette);
  return chart;
}

QChart *makeConvergenceOverviewChart(const CalibrationReport &report, const QPalette &palette,
                                     int highlighted) {
  const QVector<int> worst = report.unsettled();
  // The latest-settling tensors get colours: the unsettled ones first, else simply the latest.
  QVector<int> named = worst.mid(0, highlighted);
  if (named.isEmpty()) {
    QVector<int> all(report.tensors.size());
    std::iota(all.begin(), all.end(), 0);
    std::stable_sort(all.begin(), all.end(), [&](int a, int b) {
      return report.tensors[a].stableAfter > report.tensors[b].stableAfter;
    });
    named = all.mid(0, std::min<qsizetype>(highlighted, all.size()));
  }
  QChart *chart = newChart(
      palette, QCoreApplication::translate(
                   "CalibrationCharts",
                   "%1 thresholds of %2 tensors as samples are added (relative to their final values)")
                   .arg(report.method, QString::number(report.tensors.size())));
  chart->legend()->setAlignment(Qt::AlignRight);
  const double xEnd = std::max<double>(1, static_cast<double>(report.samples));
  chart->addSeries(band(0, xEnd, report.tolerance, palette));
  double lo = 1, hi = 1;
  QColor faint = blend(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.3);
  QList<QLineSeries *> faintSeries;
  auto seriesOf = [&](const TensorReport &t) {
    auto *series = new QLineSeries;
    const double final = t.finalThreshold();
    for (qsizetype i = 0; i < t.convergence.size() && i < report.checkpoints.size(); ++i)
      if (std::isfinite(t.convergence[i]) && std::abs(final) > 0) {
        const double ratio = t.convergence[i] / final;
        series->append(static_cast<double>(report.checkpoints[i]), ratio);
        lo = std::min(lo, ratio);
        hi = std::max(hi, ratio);
      }
    return series;
  };
  for (int i = 0; i < report.tensors.size(); ++i) {
    if (named.contains(i))
      continue;
    QLineSeries *series = seriesOf(report.tensors[i]);
    series->setPen(QPen(faint, 1));
    chart->addSeries(series);
    faintSeries.push_back(series);
  }
  for (int k = 0; k < named.size(); ++k) {
    QLineSeries *series = seriesOf(report.tensors[named[k]]);
    series->setName(tensorLabel(report.tensors[named[k]]));
    series->setPen(QPen(seriesColor(k), 2.2));
    chart->addSeries(series);
  }
  QValueAxis *y = ratioAxis(lo, hi, report.tolerance);
  const double y0 = y->min(), y1 = y->max();
  addConfirmLine(chart, report, palette, y0, y1);
  if (report.stableAfter > 0)
    chart->addSeries(verticalLine(
        static_cast<double>(report.stableAfter), y0, y1,
        QPen(report.enoughData ? kSettledColor : kLateColor, 1.8, Qt::DashLine),
        QCoreApplication::translate("CalibrationCharts", "all settled after %1").arg(report.stableAfter)));
  QValueAxis *x = samplesAxis(report);
  attachAxes(chart, x, y, palette);
  for (QLineSeries *series : faintSeries)
    for (QLegendMarker *marker : chart->legend()->markers(series))
      marker->setVisible(false);
  return chart;
}

QString convergenceVerdict(const CalibrationReport &report, bool *enough, int named) {
  const QString tolerance = QString::number(report.tolerance * 100, 'g', 3);
  if (enough)
    *enough = report.enoughData;
  if (report.enoughData)
    return QCoreApplication::translate(
               "CalibrationCharts",
               "<b>Enough data:</b> every %1 threshold settled within %2 % after %3 of %4 samples.")
        .arg(report.method, tolerance, QString::number(report.stableAfter), QString::number(report.samples));
  if (report.samples < 4)
    return QCoreApplication::translate(
               "CalibrationCharts",
               "<b>Add more samples:</b> %1 sample(s) cannot show whether the thresholds settle "
               "(at least 4 are needed).")
        .arg(report.samples);
  const QVector<int> worst = report.unsettled();
  QStringList names;
  for (int i = 0; i < std::min<int>(named, static_cast<int>(worst.size())); ++i) {
    const TensorReport &t = report.tensors[worst[i]];
    names << QCoreApplication::translate("CalibrationCharts", "%1 (after %2)")
                 .arg(t.name.toHtmlEscaped(), QString::number(t.stableAfter));
  }
  const qint64 confirmBy = report.samples - report.samples / 4;
  QString text = QCoreApplication::translate(
                     "CalibrationCharts",
                     "<b>Add more samples:</b> %1 of %2 %3 thresholds settled within %4 % only after "
                     "%5 samples (all after %6 of %7; enough data needs every one settled by %5).")
                     .arg(QString::number(worst.size()), QString::number(report.tensors.size()),
                          report.method, tolerance, QString::number(confirmBy),
                          QString::number(report.stableAfter), QString::number(report.samples));
  if (!names.isEmpty())
    text += QCoreApplication::translate("CalibrationCharts", " Latest: %1.")
                .arg(names.join(QStringLiteral(", ")));
  return text;
}

QColor verdictColor(const QPalette &palette, bool enough) {
  const QColor hue = enough ? QColor(0x2e, 0xa0, 0x43) : QColor(0xe6, 0x9f, 0x00);
  return blend(palette.color(QPalette::Base), hue,
               palette.color(QPalette::Base).lightnessF() < 0.5 ? 0.45 : 0.28);
}

CalibrationTensorFigure::CalibrationTensorFigure(QWidget *parent)
    : QWidget(parent), m_histogram(new QChartView(this)), m_convergence(new QChartView(this)) {
  auto *splitter = new QSplitter(Qt::Vertical, this);
  for (QChartView *view : {m_histogram, m_convergence}) {
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(fontMetrics().height() * 10);
    splitter->addWidget(view);
  }
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(splitter);
  rebuild();
}

void CalibrationTensorFigure::setTensor(std::shared_ptr<const CalibrationReport> report, int tensor) {
  m_report = std::move(report);
  m_tensor = m_report && tensor >= 0 && tensor < m_report->tensors.size() ? tensor : -1;
  rebuild();
}

void CalibrationTensorFigure::changeEvent(QEvent *event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange)
    rebuild();
}

void CalibrationTensorFigure::rebuild() {
  const QPalette pal = palette();
  QChart *histogram = nullptr, *convergence = nullptr;
  if (m_tensor >= 0) {
    histogram = makeHistogramChart(*m_report, m_tensor, pal);
    convergence = makeConvergenceChart(*m_report, m_tensor, pal);
  } else {
    histogram = newChart(pal, tr("Select a tensor to see its histogram and thresholds"));
    convergence = newChart(pal, QString());
  }
  for (auto [view, chart] : {std::pair{m_histogram, histogram}, std::pair{m_convergence, convergence}}) {
    QChart *old = view->chart();
    view->setChart(chart);
    delete old;
  }
}

CalibrationOverviewFigure::CalibrationOverviewFigure(QWidget *parent)
    : QWidget(parent), m_banner(new QLabel(this)), m_chart(new QChartView(this)) {
  m_banner->setWordWrap(true);
  m_banner->setTextFormat(Qt::RichText);
  m_banner->setAutoFillBackground(true);
  m_banner->setMargin(fontMetrics().height() / 2);
  m_chart->setRenderHint(QPainter::Antialiasing);
  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(m_banner);
  layout->addWidget(m_chart, 1);
  rebuild();
}

void CalibrationOverviewFigure::setReport(std::shared_ptr<const CalibrationReport> report) {
  m_report = std::move(report);
  rebuild();
}

void CalibrationOverviewFigure::setBannerVisible(bool visible) {
  m_bannerVisible = visible;
  m_banner->setVisible(m_bannerVisible && m_report != nullptr);
}

void CalibrationOverviewFigure::changeEvent(QEvent *event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange)
    rebuild();
}

void CalibrationOverviewFigure::rebuild() {
  const QPalette pal = palette();
  bool enough = false;
  m_banner->setText(m_report ? convergenceVerdict(*m_report, &enough) : QString());
  QPalette bannerPalette = pal;
  bannerPalette.setColor(QPalette::Window, verdictColor(pal, enough));
  bannerPalette.setColor(QPalette::WindowText, pal.color(QPalette::Text));
  m_banner->setPalette(bannerPalette);
  m_banner->setVisible(m_bannerVisible && m_report != nullptr);
  QChart *chart = m_report ? makeConvergenceOverviewChart(*m_report, pal) : newChart(pal, QString());
  QChart *old = m_chart->chart();
  m_chart->setChart(chart);
  delete old;
}

QString tensorFigureName(const CalibrationReport &report, int index) {
  static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9_.-]+"));
  QString name = report.tensors[index].name;
  name.replace(unsafe, QStringLiteral("_"));
  name = name.left(80);
  const int digits =
      static_cast<int>(QString::number(std::max<qsizetype>(1, report.tensors.size() - 1)).size());
  return QStringLiteral("tensor-%1-%2.png").arg(index, std::max(3, digits), 10, QLatin1Char('0')).arg(name);
}

namespace {

/// Lays `widget` out at `size` without showing it on a screen and saves what it paints.
bool saveFigure(QWidget &widget, QSize size, const QString &path) {
  widget.resize(size);
  widget.setAttribute(Qt::WA_DontShowOnScreen);
  widget.show();
  QCoreApplication::processEvents();
  return widget.grab().save(path, "PNG");
}

} // namespace

Result<QStringList> writeCalibrationFigures(const CalibrationReport &report, const QString &outDir,
                                            QSize size, const QPalette &palette, int maxTensors) {
  if (!QDir().mkpath(outDir))
    return Failure{QStringLiteral("%1: cannot create the folder").arg(outDir).toStdString()};
  QDir dir(outDir);
  QStringList written;
  auto shared = std::make_shared<CalibrationReport>(report);
  CalibrationOverviewFigure overview;
  overview.setPalette(palette);
  overview.setReport(shared);
  const QString overviewPath = dir.filePath(QStringLiteral("overview.png"));
  if (!saveFigure(overview, size, overviewPath))
    return Failure{QStringLiteral("%1: cannot write the PNG").arg(overviewPath).toStdString()};
  written << overviewPath;
  // The tensors that need a look first (did not settle, latest first), then graph order.
  QVector<int> order = report.unsettled();
  for (int i = 0; i < report.tensors.size(); ++i)
    if (!order.contains(i))
      order.push_back(i);
  QVector<bool> drawn(report.tensors.size(), false);
  CalibrationTensorFigure figure;
  figure.setPalette(palette);
  for (int k = 0; k < std::min<int>(maxTensors, static_cast<int>(order.size())); ++k) {
    figure.setTensor(shared, order[k]);
    const QString path = dir.filePath(tensorFigureName(report, order[k]));
    if (!saveFigure(figure, size, path))
      return Failure{QStringLiteral("%1: cannot write the PNG").arg(path).toStdString()};
    drawn[order[k]] = true;
    written << path;
  }
  // index.html: the verdict, the overview and every tensor with its figure (or why it has none).
  QString html =
      QStringLiteral("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Calibration report</title>"
                     "<style>body{font-family:sans-serif}td,th{padding:2px 8px;text-align:left}"
                     "td.n{text-align:right}</style></head><body>\n");
  html += QStringLiteral("<h1>Calibration report: %1 tensors, %2 samples, thresholds by %3</h1>\n<p>%4</p>\n")
              .arg(report.tensors.size())
              .arg(report.samples)
              .arg(report.chosen.toHtmlEscaped(), convergenceVerdict(report));
  html +=
      QStringLiteral(
          "<p><img src=\"overview.png\" alt=\"convergence of every tensor\"></p>\n<table>\n"
          "<tr><th>#</th><th>tensor</th><th>%1 threshold</th><th>min</th><th>max</th><th>settled after</th>"
          "<th></th><th>figure</th></tr>\n")
          .arg(report.highlightedMethod().toHtmlEscaped());
  for (int i = 0; i < report.tensors.size(); ++i) {
    const TensorReport &t = report.tensors[i];
    const QString file = tensorFigureName(report, i);
    html +=
        QStringLiteral("<tr><td class=\"n\">%1</td><td>%2</td><td class=\"n\">%3</td><td class=\"n\">%4</td>"
                       "<td class=\"n\">%5</td><td class=\"n\">%6</td><td>%7</td><td>%8</td></tr>\n")
            .arg(QString::number(i), t.name.toHtmlEscaped(),
                 thresholdText(t.threshold(report.highlightedMethod())), thresholdText(t.min),
                 thresholdText(t.max), QString::number(t.stableAfter),
                 report.settled(t) ? QString() : QStringLiteral("not settled"),
                 drawn[i] ? QStringLiteral("<a href=\"%1\">%1</a>").arg(file.toHtmlEscaped())
                          : QStringLiteral("not drawn (at most %1 figures)").arg(maxTensors));
  }
  html += QStringLiteral("</table>\n</body></html>\n");
  const QString indexPath = dir.filePath(QStringLiteral("index.html"));
  QFile index(indexPath);
  if (!index.open(QIODevice::WriteOnly | QIODevice::Truncate) || index.write(html.toUtf8()) < 0 ||
      !index.flush())
    return Failure{QStringLiteral("%1: cannot write: %2").arg(indexPath, index.errorString()).toStdString()};
  written << indexPath;
  return written;
}

} // namespace tpuc::vis
