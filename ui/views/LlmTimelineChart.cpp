// The LLM timeline chart: stage runs as points (x: when, y: how long, simulated) and the KV cache's fill.
#include "ui/views/LlmTimelineChart.h"
#include "visualizer/ChartTheme.h"

#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <array>
#include <cmath>

namespace tpuc::ui {
namespace {

using vis::blend;
using vis::styleAxis;

// Okabe-Ito hues, distinguishable with colour-blindness, on light and dark bases.
const std::array<QColor, 4> kKindColors = {QColor(0x00, 0x72, 0xb2), QColor(0xe6, 0x9f, 0x00),
                                           QColor(0x00, 0x9e, 0x73), QColor(0xcc, 0x79, 0xa7)};

/// A round upper bound for an axis (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten).
double niceCeil(double v) {
  if (!(v > 0))
    return 1;
  double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
    if (m * p >= v)
      return m * p;
  return 10 * p;
}

} // namespace

QString timelineKindName(LlmTimelinePoint::Kind kind) {
  switch (kind) {
  case LlmTimelinePoint::Kind::Prefill:
    return QStringLiteral("prefill");
  case LlmTimelinePoint::Kind::PrefillKv:
    return QStringLiteral("prefill_kv");
  case LlmTimelinePoint::Kind::Decode:
    return QStringLiteral("decode");
  case LlmTimelinePoint::Kind::Head:
    return QStringLiteral("lm_head");
  }
  return QStringLiteral("decode");
}

LlmTimelineChart::LlmTimelineChart(QWidget *parent) : QWidget(parent), m_chart(new QChart) {
  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_summary = new QLabel(this);
  m_summary->setObjectName("timelineSummary");
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_summary);
  m_view = new QChartView(m_chart, this);
  m_view->setRenderHint(QPainter::Antialiasing);
  m_view->setMinimumHeight(fontMetrics().height() * 14);
  layout->addWidget(m_view, 1);
  m_chart->legend()->setAlignment(Qt::AlignBottom);
  rebuild();
}

void LlmTimelineChart::changeEvent(QEvent *event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange)
    rebuild(); // the chart's colours come from the palette
}

void LlmTimelineChart::setPoints(const std::vector<LlmTimelinePoint> &points, int seqLength) {
  m_points = points;
  m_seqLength = seqLength;
  rebuild();
}

void LlmTimelineChart::rebuild() {
  const QPalette palette = this->palette();
  m_chart->removeAllSeries();
  for (QAbstractAxis *axis : m_chart->axes()) {
    m_chart->removeAxis(axis);
    delete axis;
  }
  m_chart->setBackgroundBrush(palette.color(QPalette::Base));
  m_chart->setPlotAreaBackgroundVisible(false);
  m_chart->legend()->setLabelColor(palette.color(QPalette::Text));
  m_chart->setTitleBrush(palette.color(QPalette::Text));
  m_chart->setTitle(QString());

  std::array<QScatterSeries *, 4> series{};
  std::array<double, 4> totals{};
  std::array<int, 4> counts{};
  const std::array<QScatterSeries::MarkerShape, 4> shapes = {
      QScatterSeries::MarkerShapeRectangle, QScatterSeries::MarkerShapeRotatedRectangle,
      QScatterSeries::MarkerShapeCircle, QScatterSeries::MarkerShapeTriangle};
  const double marker = fontMetrics().height() * 0.6;
  for (size_t k = 0; k < series.size(); ++k) {
    series[k] = new QScatterSeries;
    series[k]->setMarkerShape(shapes[k]);
    series[k]->setMarkerSize(k < 2 ? marker * 1.3 : marker);
    series[k]->setColor(kKindColors[k]);
    series[k]->setBorderColor(blend(kKindColors[k], palette.color(QPalette::Text), 0.35));
  }
  auto *kv = new QLineSeries;
  QPen kvPen(blend(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.55));
  kvPen.setWidthF(1.5);
  kv->setPen(kvPen);
  double end = 0, longest = 0;
  int kvMax = 0, turns = 0;
  kv->append(0, 0);
  for (const LlmTimelinePoint &p : m_points) {
    size_t k = static_cast<size_t>(p.kind);
    series[k]->append(p.startMs + p.durationMs / 2, p.durationMs); // at the middle of its run
    totals[k] += p.durationMs;
    ++counts[k];
    end = std::max(end, p.startMs + p.durationMs);
    longest = std::max(longest, p.durationMs);
    // The cache fills when the step ends; a new conversation empties it (a drop in kvAfter).
    kv->append(p.startMs + p.durationMs, p.kvAfter);
    kvMax = std::max(kvMax, p.kvAfter);
    turns = std::max(turns, p.turn + 1);
  }
  for (size_t k = 0; k < series.size(); ++k) {
    auto kind = static_cast<LlmTimelinePoint::Kind>(k);
    series[k]->setName(timelineKindName(kind));
    m_chart->addSeries(series[k]);
  }
  kv->setName(tr("KV cache"));
  m_chart->addSeries(kv);

  auto *x = new QValueAxis;
  x->setTitleText(tr("simulated time of the conversation (ms)"));
  x->setRange(0, niceCeil(end > 0 ? end * 1.02 : 1));
  x->setLabelFormat("%.3g");
  auto *y = new QValueAxis;
  y->setTitleText(tr("step (ms)"));
  y->setRange(0, niceCeil(longest > 0 ? longest * 1.1 : 1));
  y->setLabelFormat("%.3g");
  auto *yKv = new QValueAxis;
  yKv->setTitleText(tr("KV tokens"));
  yKv->setRange(0, std::max(m_seqLength, kvMax));
  yKv->setLabelFormat("%d");
  for (QAbstractAxis *axis :
       {static_cast<QAbstractAxis *>(x), static_cast<QAbstractAxis *>(y), static_cast<QAbstractAxis *>(yKv)})
    styleAxis(axis, palette);
  m_chart->addAxis(x, Qt::AlignBottom);
  m_chart->addAxis(y, Qt::AlignLeft);
  m_chart->addAxis(yKv, Qt::AlignRight);
  for (QScatterSeries *s : series) {
    s->attachAxis(x);
    s->attachAxis(y);
  }
  kv->attachAxis(x);
  kv->attachAxis(yKv);

  if (m_points.empty()) {
    m_summary->setText(
        tr("<b>Timeline</b>: the stage runs of the conversation (prefill chunks, decode steps) "
           "appear here with their simulated time."));
    return;
  }
  m_summary->setText(
      tr("<b>Timeline</b> (simulated): %1 turn(s), %2 ms in all · prefill %3 ms over %4 "
         "chunk(s) · prefill with history KV %5 ms over %6 chunk(s) · decode and heads %7 ms over "
         "%8 token(s) · KV cache %9 of %10 tokens.")
          .arg(turns)
          .arg(end, 0, 'f', 3)
          .arg(totals[0], 0, 'f', 3)
          .arg(counts[0])
          .arg(totals[1], 0, 'f', 3)
          .arg(counts[1])
          .arg(totals[2] + totals[3], 0, 'f', 3)
          .arg(counts[2] + counts[3])
          .arg(m_points.back().kvAfter)
          .arg(m_seqLength));
}

} // namespace tpuc::ui
