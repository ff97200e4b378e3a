// The layer-group drawings, shared by the studio's LayerGroupView and `tpuc view groups`: the strip of all
// groups (width = cycles), a group's LMEM chart (time unit x address per lane, one rectangle per buffer,
// banks, capacity, wrap-around split) and its slices drawn over a tensor's shape (H/W cuts with halos).
#ifndef TPUC_VISUALIZER_GROUPPAINTERS_H
#define TPUC_VISUALIZER_GROUPPAINTERS_H

#include "tpuc/ChipData/Run.h"
#include "visualizer/ChipCanvas.h"
#include "visualizer/ChipStyle.h"

#include <memory>

namespace tpuc::vis {

/// All groups side by side, each as wide as its share of the plan's cycles (at least `minWidth`).
class GroupStrip {
public:
  void setRun(std::shared_ptr<const chip::ChipRun> run) { m_run = std::move(run); }
  void paint(Canvas &c, const QRectF &area, const ChipStyle &s, int selectedGroup) const;
  /// The group under `p` when painted into `area`, or -1.
  int groupAt(const QRectF &area, QPointF p) const;
  QRectF groupRect(const QRectF &area, int group) const;
  /// Height the strip wants (two text lines).
  static double preferredHeight(const Canvas &c) { return 2.4 * c.lineHeight(); }

private:
  std::vector<double> edges(const QRectF &area) const;
  std::shared_ptr<const chip::ChipRun> m_run;
};

/// One group's LMEM: x = time unit (stage boundaries every units_per_stage), y = address per lane (0 at the
/// bottom, the capacity on top), a rectangle per buffer: inputs/outputs solid, weights hatched,
/// intermediates dotted; bank boundaries dashed; a buffer that wraps past the capacity is drawn as two
/// pieces joined by a zigzag.
class LmemChart {
public:
  void setGroup(std::shared_ptr<const chip::ChipRun> run, int group);
  int group() const { return m_group; }
  /// With `fit`, the address axis ends a little above the group's peak when that is under 60 % of the lane
  /// (small buffers stay readable), unless a buffer wraps around; else it spans the whole lane.
  void setFitToPeak(bool fit) { m_fit = fit; }
  /// The top of the address axis in bytes for the current group.
  double axisTop() const;
  /// Paints into `area`; buffers of value `selectedValue` are outlined, rect `hovered` lightened.
  void paint(Canvas &c, const QRectF &area, const ChipStyle &s, int selectedValue, int hovered) const;
  /// The rect (index into the group's rects) under `p` when painted into `area` with `font`, or -1.
  int rectAt(const QFont &font, const QRectF &area, QPointF p) const;
  /// "value · input · slice 2 · 12,288 B/lane at 0x3000 · units 4–9 (stages 1–2)".
  QString describe(int rect) const;
  /// The plot area inside `area` (axes outside it) for text in `font`.
  QRectF plotRect(const QFont &font, const QRectF &area) const;
  /// The pieces a rect is drawn as (two when it wraps around the capacity).
  std::vector<QRectF> pieces(const QRectF &plot, int rect) const;
  /// The time unit at x, or -1 outside the plot.
  int64_t unitAt(const QFont &font, const QRectF &area, double x) const;

private:
  std::shared_ptr<const chip::ChipRun> m_run;
  int m_group = -1;
  bool m_fit = false;
};

/// The slices of one group drawn over the H x W plane of a value: each slice's box outlined, the rows
/// two slices both read (halo) hatched, with a line per slice naming its rows and columns.
class SliceShape {
public:
  void setValue(std::shared_ptr<const chip::ChipRun> run, int group, int value);
  void paint(Canvas &c, const QRectF &area, const ChipStyle &s, int selectedSlice) const;
  int value() const { return m_value; }

private:
  std::shared_ptr<const chip::ChipRun> m_run;
  int m_group = -1, m_value = -1;
};

/// Ticks for an axis over [lo, hi]: about `count` round numbers (1, 2, 5 x 10^k).
std::vector<double> niceTicks(double lo, double hi, int count);
/// Ticks for a byte axis over [0, hi]: multiples of a power of two (16 KiB, 64 KiB, ...), at most `count`+1.
std::vector<double> byteTicks(double hi, int count);

/// The last part of a tensor name ("/layer1/layer1.0/conv1/Conv" -> "conv1/Conv"), for labels.
QString shortName(const std::string &name);

} // namespace tpuc::vis

#endif
