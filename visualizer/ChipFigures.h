// Whole-page figures of the chip views for exports and `tpuc view`: the same painters the studio's views use,
// laid out on one page and written as SVG (every group, buffer and command one element with class and
// data-op) or PNG.
#ifndef TPUC_VISUALIZER_CHIPFIGURES_H
#define TPUC_VISUALIZER_CHIPFIGURES_H

#include "tpuc/ChipData/Run.h"
#include "visualizer/ChipCanvas.h"
#include "visualizer/ChipStyle.h"

#include <QSize>
#include <QString>

#include <memory>

namespace tpuc::vis {

enum class ChipFigure { Groups, Memory, Timeline };

struct FigureOptions {
  QSize size{1600, 1000};
  bool dark = false;
  int group = -1;          ///< Groups: the group detailed (-1: the one with the highest LMEM peak).
  int64_t t0 = 0, t1 = 0;  ///< Memory/timeline: the cycles shown (t1 <= t0: the whole run).
  QString selectedOp;      ///< Highlighted everywhere (tensor name).
  bool showCritical = true;
};

/// The palette `tpuc view` draws with (light or dark), independent of the desktop's.
QPalette figurePalette(bool dark);
/// The group a groups figure details by default: the LMEM group with the highest peak (else 0).
int defaultFigureGroup(const chip::ChipRun &run);
/// Paints `figure` into `area`.
void paintFigure(Canvas &c, const QRectF &area, const ChipStyle &s, const std::shared_ptr<const chip::ChipRun> &run,
                 ChipFigure figure, const FigureOptions &options);
/// Renders to `path` as "svg" or "png"; false with a one-line error naming the file or what is missing.
bool renderFigure(const std::shared_ptr<const chip::ChipRun> &run, ChipFigure figure, const FigureOptions &options,
                  const QString &format, const QString &path, QString *error);
/// What a figure needs that the run lacks ("" when it can be drawn): groups and memory need a plan,
/// the timeline a trace.
QString missingFor(const chip::ChipRun &run, ChipFigure figure);

} // namespace tpuc::vis

#endif
