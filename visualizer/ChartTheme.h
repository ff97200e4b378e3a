// Qt Charts on the widget's palette (light or dark): one look for every chart of the studio and tpuc-view.
#ifndef TPUC_VISUALIZER_CHARTTHEME_H
#define TPUC_VISUALIZER_CHARTTHEME_H

#include <QColor>
#include <QPalette>
#include <QString>

class QAbstractAxis;
class QChart;

namespace tpuc::vis {

/// The colour `t` of the way from `a` to `b` (0: a, 1: b), per RGB channel.
QColor blend(const QColor &a, const QColor &b, double t);

/// A chart drawn on the palette: the base colour behind it, no plot-area fill, small margins, the legend at
/// the bottom, `title` in the text colour.
QChart *newChart(const QPalette &palette, const QString &title = {});

/// An axis in the palette's text colour, with a faint grid (and a fainter minor grid) and a stronger line.
void styleAxis(QAbstractAxis *axis, const QPalette &palette);

/// Styles `x` and `y` (styleAxis), adds them at the bottom and the left, and attaches every series the chart
/// holds to both.
void attachAxes(QChart *chart, QAbstractAxis *x, QAbstractAxis *y, const QPalette &palette);

} // namespace tpuc::vis

#endif // TPUC_VISUALIZER_CHARTTHEME_H
