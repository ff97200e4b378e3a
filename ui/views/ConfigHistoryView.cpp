// The run history of one compile configuration: output accuracy and simulated latency per deploy run.
#include "ui/views/ConfigHistoryView.h"
#include "visualizer/ChartTheme.h"

#include "ui/MixedPrecision.h"
#include "ui/StudioContext.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QContextMenuEvent>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMenu>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace tpuc::ui {

namespace {

using vis::blend;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Okabe–Ito: accuracy blue, worst sample sky blue, latency orange, failures vermillion.
const QColor kCosColor(0x00, 0x72, 0xb2), kMinColor(0x56, 0xb4, 0xe9), kLatencyColor(0xe6, 0x9f, 0x00),
    kFailedColor(0xd5, 0x5e, 0x00);

QString number(double v, int digits) {
  return std::isnan(v) ? QStringLiteral("–") : QString::number(v, 'f', digits);
}

/// The finite number of a JSON value, else NaN.
double finite(const QJsonValue &v) {
  return v.isDouble() && std::isfinite(v.toDouble()) ? v.toDouble() : kNaN;
}

double nanMin(double a, double b) { return std::isnan(a) ? b : std::isnan(b) ? a : std::min(a, b); }

HistoryPoint pointOf(const project::RunRecord &run) {
  HistoryPoint p{run.id,
                 QString::fromStdString(run.finished),
                 QString::fromStdString(run.status),
                 run.status != "ok",
                 1,
                 kNaN,
                 kNaN,
                 kNaN};
  const QJsonObject summary = QJsonDocument::fromJson(QByteArray::fromStdString(run.summaryJson)).object();
  const QString result = summary.value(QStringLiteral("resultStatus")).toString();
  if (p.failed && (result == QLatin1String("failed") || result == QLatin1String("error")))
    p.status = result; // the engine's word: accuracy below tolerance ("failed") or an error
  p.latencyMs =
      run.latencyMs > 0 ? run.latencyMs : finite(summary.value(QStringLiteral("simulatedLatencyMs")));
  // The outputs of the run's (first) sample: summary "compare" (deploy's output tensors).
  const QJsonArray outputs = summary.value(QStringLiteral("compare")).toArray();
  for (const QJsonValue &o : outputs)
    p.outputCos = nanMin(p.outputCos, finite(o.toObject().value(QStringLiteral("cosine"))));
  p.minCos = p.outputCos;
  const double samples = finite(summary.value(QStringLiteral("samples")));
  if (!std::isnan(samples) && samples > 1) {
    // Many samples: each output's mean and lowest cosine over the samples (its layer row), the lowest output.
    p.samples = static_cast<int>(samples);
    std::unordered_map<QString, QJsonObject> rows;
    for (const QJsonValue &v :
         QJsonDocument::fromJson(QByteArray::fromStdString(run.layerMetricsJson)).array())
      rows.emplace(v.toObject().value(QStringLiteral("name")).toString(), v.toObject());
    double mean = kNaN, low = kNaN;
    for (const QJsonValue &o : outputs)
      if (auto it = rows.find(o.toObject().value(QStringLiteral("name")).toString()); it != rows.end()) {
        mean = nanMin(mean, finite(it->second.value(QStringLiteral("meanCosine"))));
        low = nanMin(low, finite(it->second.value(QStringLiteral("minCosine"))));
      }
    if (!std::isnan(mean)) {
      p.outputCos = mean;
      p.minCos = low;
    }
  }
  return p;
}

/// Axis range [low, high] of `values` with a margin; `floor` keeps a flat series from collapsing.
std::pair<double, double> rangeOf(const std::vector<double> &values, double floor) {
  double low = kNaN, high = kNaN;
  for (double v : values)
    if (!std::isnan(v)) {
      low = nanMin(low, v);
      high = std::isnan(high) ? v : std::max(high, v);
    }
  if (std::isnan(low))
    return {0, 1};
  const double span = std::max(floor, high - low);
  return {low - span * 0.15, high + span * 0.15};
}

QString format(double span) {
  return span < 0.001  ? QStringLiteral("%.6f")
         : span < 0.01 ? QStringLiteral("%.5f")
         : span < 0.1  ? QStringLiteral("%.4f")
                       : QStringLiteral("%.3f");
}

} // namespace

std::vector<HistoryPoint> configHistory(const project::Project &project, qint64 configId) {
  std::vector<HistoryPoint> points;
  for (const project::RunRecord &run : project.runs)
    if (isDeployRun(run) && configOfRun(project, run.id) == configId)
      points.push_back(pointOf(run));
  std::stable_sort(points.begin(), points.end(),
                   [](const HistoryPoint &a, const HistoryPoint &b) { return a.runId < b.runId; });
  return points;
}

ConfigHistoryView::ConfigHistoryView(StudioContext *context, qint64 configId, QWidget *parent)
    : QWidget(parent), m_context(context), m_configId(configId) {
  m_summary = new QLabel;
  m_summary->setWordWrap(true);
  m_summary->setTextFormat(Qt::RichText);
  m_chart = new QChartView;
  m_chart->setRenderHint(QPainter::Antialiasing);
  m_chart->setMinimumHeight(fontMetrics().height() * 16);
  m_chart->viewport()->installEventFilter(this);
  m_chart->viewport()->setMouseTracking(true);
  m_runs = new QTreeWidget;
  m_runs->setRootIsDecorated(false);
  m_runs->setHeaderLabels({tr("run"), tr("finished (UTC)"), tr("status"), tr("samples"), tr("output cos"),
                           tr("worst sample cos"), tr("simulated ms")});
  m_runs->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_runs, &QTreeWidget::itemActivated, this,
          [this](QTreeWidgetItem *item) { Q_EMIT runActivated(item->data(0, Qt::UserRole).toLongLong()); });
  connect(m_runs, &QWidget::customContextMenuRequested, this, [this](const QPoint &pos) {
    if (QTreeWidgetItem *item = m_runs->itemAt(pos))
      showMenu(item->data(0, Qt::UserRole).toLongLong(), m_runs->viewport()->mapToGlobal(pos));
  });
  auto *split = new QSplitter(Qt::Vertical);
  split->addWidget(m_chart);
  split->addWidget(m_runs);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 1);
  m_runs->setMinimumHeight(fontMetrics().height() * 8);
  auto *layout = new QVBoxLayout(this);
  layout->addWidget(m_summary);
  layout->addWidget(split, 1);
  connect(context, &StudioContext::projectChanged, this, [this](Section section) {
    if (section == Section::Runs || section == Section::CompileConfigs)
      refresh();
  });
  connect(context, &StudioContext::projectLoaded, this, &ConfigHistoryView::refresh);
  connect(context, &StudioContext::runFinished, this, &ConfigHistoryView::refresh);
  refresh();
}

void ConfigHistoryView::refresh() {
  const project::Project &p = m_context->project();
  const project::CompileConfig *config = nullptr;
  for (const project::CompileConfig &c : p.compileConfigs)
    if (c.id == m_configId)
      config = &c;
  m_points = config ? configHistory(p, m_configId) : std::vector<HistoryPoint>();
  QString text;
  if (!config) {
    text = tr("The configuration is no longer in the project.");
  } else {
    const int failed = static_cast<int>(
        std::count_if(m_points.begin(), m_points.end(), [](const HistoryPoint &h) { return h.failed; }));
    text = tr("<b>%1</b> (%2 on %3): %n deploy run(s)", nullptr, static_cast<int>(m_points.size()))
               .arg(QString::fromStdString(config->name).toHtmlEscaped(),
                    QString::fromStdString(config->precision).toHtmlEscaped(),
                    QString::fromStdString(config->chip).toHtmlEscaped());
    if (failed)
      text += tr(", %n failed", nullptr, failed);
    if (!m_points.empty()) {
      const HistoryPoint &last = m_points.back();
      text += last.failed ? tr("; newest #%1 %2").arg(last.runId).arg(last.status)
                          : tr("; newest #%1: output cos %2, simulated %3 ms")
                                .arg(last.runId)
                                .arg(number(last.outputCos, 6), number(last.latencyMs, 4));
    }
    text +=
        tr("<br>Click a point to open its run's accuracy; right-click to compare it with the run before.");
  }
  m_summary->setText(text);
  m_runs->clear();
  for (const HistoryPoint &h : m_points) {
    auto *item = new QTreeWidgetItem(m_runs, {QStringLiteral("#%1").arg(h.runId), h.finished, h.status,
                                              QString::number(h.samples), number(h.outputCos, 6),
                                              h.samples > 1 ? number(h.minCos, 6) : QStringLiteral("–"),
                                              number(h.latencyMs, 4)});
    item->setData(0, Qt::UserRole, h.runId);
    if (h.failed)
      for (int c = 0; c < m_runs->columnCount(); ++c)
        item->setForeground(c, kFailedColor);
  }
  for (int c = 0; c < m_runs->columnCount(); ++c)
    m_runs->resizeColumnToContents(c);
  rebuildChart();
}

void ConfigHistoryView::rebuildChart() {
  const QPalette pal = palette();
  const QColor text = pal.color(QPalette::Text), base = pal.color(QPalette::Base);
  QChart *chart = vis::newChart(pal, tr("deploy runs over time: output cosine and simulated latency"));

  const qreal marker = fontMetrics().height() * 0.7;
  auto *cosLine = new QLineSeries;
  cosLine->setName(tr("output cos (lowest output; mean over samples)"));
  cosLine->setPen(QPen(kCosColor, 2));
  auto *cosPoints = new QScatterSeries;
  cosPoints->setColor(kCosColor);
  cosPoints->setBorderColor(base);
  cosPoints->setMarkerSize(marker);
  auto *minPoints = new QScatterSeries;
  minPoints->setName(tr("worst sample"));
  minPoints->setColor(kMinColor);
  minPoints->setBorderColor(base);
  minPoints->setMarkerSize(marker * 0.7);
  auto *latLine = new QLineSeries;
  latLine->setName(tr("simulated latency (ms)"));
  latLine->setPen(QPen(kLatencyColor, 2, Qt::DashLine));
  auto *latPoints = new QScatterSeries;
  latPoints->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
  latPoints->setColor(kLatencyColor);
  latPoints->setBorderColor(base);
  latPoints->setMarkerSize(marker * 0.8);
  auto *failed = new QScatterSeries;
  failed->setName(tr("failed run"));
  failed->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
  failed->setColor(kFailedColor);
  failed->setBorderColor(text);
  failed->setMarkerSize(marker * 1.3);

  std::vector<double> cosines, latencies;
  for (const HistoryPoint &h : m_points) {
    cosines.push_back(h.outputCos);
    if (h.samples > 1)
      cosines.push_back(h.minCos);
    latencies.push_back(h.latencyMs);
  }
  auto [cosLow, cosHigh] = rangeOf(cosines, 1e-5);
  // A cosine is at most 1: the axis stops there unless a margin is all that goes past it.
  double cosMax = kNaN;
  for (double c : cosines)
    if (!std::isnan(c))
      cosMax = std::isnan(cosMax) ? c : std::max(cosMax, c);
  if (!std::isnan(cosMax) && cosMax < 1.0)
    cosHigh = std::min(cosHigh, 1.0);
  const auto [latLow, latHigh] = rangeOf(latencies, 1e-4);
  for (size_t i = 0; i < m_points.size(); ++i) {
    const HistoryPoint &h = m_points[i];
    const double x = static_cast<double>(i);
    if (!std::isnan(h.outputCos)) {
      cosLine->append(x, h.outputCos);
      if (!h.failed)
        cosPoints->append(x, h.outputCos);
    }
    if (h.samples > 1 && !std::isnan(h.minCos))
      minPoints->append(x, h.minCos);
    if (!std::isnan(h.latencyMs)) {
      latLine->append(x, h.latencyMs);
      latPoints->append(x, h.latencyMs);
    }
    // A failure sits on its cosine, or on the axis floor when it has none.
    if (h.failed)
      failed->append(x, std::isnan(h.outputCos) ? cosLow + (cosHigh - cosLow) * 0.04 : h.outputCos);
  }
  for (QAbstractSeries *s :
       std::initializer_list<QAbstractSeries *>{cosLine, cosPoints, minPoints, failed, latLine, latPoints})
    chart->addSeries(s);

  // x: one slot per run, labelled #id (every k-th when they would crowd).
  auto *x = new QCategoryAxis;
  x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  x->setTitleText(tr("run (oldest → newest)"));
  const int n = static_cast<int>(m_points.size());
  x->setRange(-0.5, std::max(0.5, n - 0.5));
  const int step = std::max(1, (n + 19) / 20);
  for (int i = 0; i < n; i += step)
    x->append(QStringLiteral("#%1").arg(m_points[static_cast<size_t>(i)].runId), i);
  auto *yCos = new QValueAxis;
  yCos->setTitleText(tr("output cosine"));
  yCos->setRange(cosLow, cosHigh);
  yCos->setLabelFormat(format(cosHigh - cosLow));
  yCos->setTickCount(5);
  auto *yLat = new QValueAxis;
  yLat->setTitleText(tr("simulated latency (ms)"));
  yLat->setRange(std::max(0.0, latLow), latHigh);
  yLat->setLabelFormat(format(latHigh - latLow));
  yLat->setTickCount(5);
  yLat->setGridLineVisible(false);
  for (QAbstractAxis *axis : std::initializer_list<QAbstractAxis *>{x, yCos, yLat})
    vis::styleAxis(axis, pal);
  yLat->setLabelsColor(blend(base, kLatencyColor, 0.85));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(yCos, Qt::AlignLeft);
  chart->addAxis(yLat, Qt::AlignRight);
  for (QAbstractSeries *s : chart->series()) {
    s->attachAxis(x);
    s->attachAxis(s == latLine || s == latPoints ? yLat : yCos);
  }
  // The legend names the lines, the worst samples and the failures; the points belong to their lines.
  for (QLegendMarker *m : chart->legend()->markers())
    m->setVisible(m->series() != cosPoints && m->series() != latPoints &&
                  (m->series() != minPoints || minPoints->count() > 0) &&
                  (m->series() != failed || failed->count() > 0));
  QChart *old = m_chart->chart();
  m_chart->setChart(chart);
  delete old;
}

qint64 ConfigHistoryView::runAt(const QPoint &pos) const {
  QChart *chart = m_chart->chart();
  if (!chart || m_points.empty() || chart->series().isEmpty())
    return -1;
  // Nearest run slot along x (every series shares the x axis), if the pointer is inside the plot.
  const QPointF scene = m_chart->mapToScene(pos);
  if (!chart->plotArea().contains(chart->mapFromScene(scene)))
    return -1;
  const QPointF value = chart->mapToValue(chart->mapFromScene(scene), chart->series().front());
  const long slot = std::lround(value.x());
  if (slot < 0 || slot >= static_cast<long>(m_points.size()))
    return -1;
  return std::abs(value.x() - static_cast<double>(slot)) <= 0.4 ? m_points[static_cast<size_t>(slot)].runId
                                                                : -1;
}

qint64 ConfigHistoryView::previousRun(qint64 runId) const {
  for (size_t i = 1; i < m_points.size(); ++i)
    if (m_points[i].runId == runId)
      return m_points[i - 1].runId;
  return -1;
}

void ConfigHistoryView::showMenu(qint64 runId, const QPoint &globalPos) {
  QMenu menu(this);
  menu.addAction(tr("Open Accuracy of Run #%1").arg(runId), this,
                 [this, runId] { Q_EMIT runActivated(runId); });
  const qint64 previous = previousRun(runId);
  QAction *compare =
      menu.addAction(previous < 0 ? tr("Compare with Previous (no earlier run)")
                                  : tr("Compare with Previous (#%1 → #%2)").arg(previous).arg(runId),
                     this, [this, previous, runId] { Q_EMIT compareRequested(previous, runId); });
  compare->setEnabled(previous >= 0);
  menu.exec(globalPos);
}

bool ConfigHistoryView::eventFilter(QObject *watched, QEvent *event) {
  if (watched == m_chart->viewport()) {
    if (event->type() == QEvent::MouseButtonRelease) {
      auto *mouse = static_cast<QMouseEvent *>(event);
      if (mouse->button() == Qt::LeftButton)
        if (const qint64 run = runAt(mouse->position().toPoint()); run >= 0) {
          Q_EMIT runActivated(run);
          return true;
        }
    } else if (event->type() == QEvent::ContextMenu) {
      auto *menu = static_cast<QContextMenuEvent *>(event);
      if (const qint64 run = runAt(menu->pos()); run >= 0) {
        showMenu(run, menu->globalPos());
        return true;
      }
    } else if (event->type() == QEvent::MouseMove) {
      const qint64 run = runAt(static_cast<QMouseEvent *>(event)->position().toPoint());
      m_chart->viewport()->setCursor(run >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
      m_chart->setToolTip(run >= 0 ? tr("Run #%1: click for its accuracy, right-click to compare").arg(run)
                                   : QString());
    }
  }
  return QWidget::eventFilter(watched, event);
}

void ConfigHistoryView::changeEvent(QEvent *event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange)
    rebuildChart();
}

} // namespace tpuc::ui
