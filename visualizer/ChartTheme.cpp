// Qt Charts on the widget's palette (ChartTheme.h).
#include "visualizer/ChartTheme.h"

#include <QAbstractAxis>
#include <QAbstractSeries>
#include <QChart>
#include <QLegend>
#include <QValueAxis>

namespace tpuc::vis {

QColor blend(const QColor &a, const QColor &b, double t) {
  return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - t) + b.redF() * t),
                          static_cast<float>(a.greenF() * (1 - t) + b.greenF() * t),
                          static_cast<float>(a.blueF() * (1 - t) + b.blueF() * t));
}

QChart *newChart(const QPalette &palette, const QString &title) {
  auto *chart = new QChart;
  chart->setBackgroundBrush(palette.color(QPalette::Base));
  chart->setBackgroundRoundness(0);
  chart->setPlotAreaBackgroundVisible(false);
  chart->setMargins(QMargins(4, 4, 4, 4));
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->legend()->setLabelColor(palette.color(QPalette::Text));
  chart->setTitleBrush(palette.color(QPalette::Text));
  chart->setTitle(title);
  return chart;
}

void styleAxis(QAbstractAxis *axis, const QPalette &palette) {
  axis->setLabelsColor(palette.color(QPalette::Text));
  axis->setTitleBrush(palette.color(QPalette::Text));
  axis->setGridLineColor(blend(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.12));
  axis->setLinePenColor(blend(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.4));
  if (auto *value = qobject_cast<QValueAxis *>(axis))
    value->setMinorGridLineColor(blend(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.06));
}

void attachAxes(QChart *chart, QAbstractAxis *x, QAbstractAxis *y, const QPalette &palette) {
  styleAxis(x, palette);
  styleAxis(y, palette);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  for (QAbstractSeries *series : chart->series()) {
    series->attachAxis(x);
    series->attachAxis(y);
  }
}

} // namespace tpuc::vis
