// A histogram widget drawn with QPainter from the palette and font metrics.
#include "visualizer/HistogramView.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace tpuc::vis {

Histogram Histogram::of(const QVector<double> &values, int bins) {
  Histogram h;
  if (values.isEmpty() || bins <= 0)
    return h;
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  h.lo = *lo;
  h.hi = *hi;
  if (h.hi == h.lo)
    bins = 1;
  h.counts.fill(0, bins);
  double width = (h.hi - h.lo) / bins;
  for (double v : values) {
    int bin = width > 0 ? static_cast<int>(std::floor((v - h.lo) / width)) : 0;
    ++h.counts[std::clamp(bin, 0, bins - 1)];
  }
  return h;
}

int Histogram::maxCount() const { return counts.isEmpty() ? 0 : *std::max_element(counts.begin(), counts.end()); }

HistogramView::HistogramView(QWidget *parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void HistogramView::setValues(const QVector<double> &values, int bins) {
  m_histogram = Histogram::of(values, bins);
  m_valueCount = static_cast<int>(values.size());
  update();
}

void HistogramView::setTitle(const QString &title) {
  m_title = title;
  update();
}

QSize HistogramView::sizeHint() const {
  QFontMetrics fm = fontMetrics();
  return {fm.averageCharWidth() * 48, fm.height() * 12};
}

QSize HistogramView::minimumSizeHint() const {
  QFontMetrics fm = fontMetrics();
  return {fm.averageCharWidth() * 16, fm.height() * 5};
}

void HistogramView::paintEvent(QPaintEvent *) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing, false);
  const QPalette &pal = palette();
  const QFontMetrics fm = fontMetrics();
  const int pad = fm.height() / 2;
  painter.fillRect(rect(), pal.base());

  QRect area = rect().adjusted(pad, pad, -pad, -pad);
  if (!m_title.isEmpty()) {
    painter.setPen(pal.color(QPalette::Text));
    painter.drawText(area.left(), area.top() + fm.ascent(), m_title);
    area.setTop(area.top() + fm.height() + pad / 2);
  }
  QString maxLabel = QString::number(m_histogram.maxCount());
  int axisWidth = fm.horizontalAdvance(maxLabel) + pad;
  QRect plot = area.adjusted(axisWidth, 0, 0, -(fm.height() + pad / 2));
  if (plot.width() <= 0 || plot.height() <= 0)
    return;

  painter.setPen(pal.color(QPalette::PlaceholderText));
  if (m_histogram.counts.isEmpty()) {
    painter.drawText(plot, Qt::AlignCenter, tr("No data"));
    return;
  }
  // Axes and labels.
  painter.drawLine(plot.bottomLeft(), plot.bottomRight());
  painter.drawLine(plot.bottomLeft(), plot.topLeft());
  painter.drawText(QRect(area.left(), plot.top(), axisWidth - pad / 2, fm.height()),
                   Qt::AlignRight | Qt::AlignTop, maxLabel);
  painter.drawText(QRect(area.left(), plot.bottom() - fm.height(), axisWidth - pad / 2, fm.height()),
                   Qt::AlignRight | Qt::AlignBottom, QStringLiteral("0"));
  QRect labels(plot.left(), plot.bottom() + pad / 2, plot.width(), fm.height());
  painter.drawText(labels, Qt::AlignLeft, QString::number(m_histogram.lo, 'g', 4));
  painter.drawText(labels, Qt::AlignRight, QString::number(m_histogram.hi, 'g', 4));
  painter.drawText(labels, Qt::AlignHCenter, m_valueCount == 1 ? tr("1 value") : tr("%1 values").arg(m_valueCount));

  // Bars: a one-device-pixel gap keeps neighbours apart without a fixed size in logical pixels.
  const int bins = static_cast<int>(m_histogram.counts.size());
  const double barWidth = static_cast<double>(plot.width()) / bins;
  const double maxCount = std::max(1, m_histogram.maxCount());
  const QColor fill = pal.color(QPalette::Highlight);
  for (int i = 0; i < bins; ++i) {
    double height = plot.height() * m_histogram.counts[i] / maxCount;
    QRectF bar(plot.left() + i * barWidth + 1, plot.bottom() - height, std::max(1.0, barWidth - 1), height);
    painter.fillRect(bar, fill);
  }
}

} // namespace tpuc::vis
