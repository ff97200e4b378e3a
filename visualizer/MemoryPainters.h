// The memory drawings, shared by the studio's MemoryTimeline and `tpuc view memory`: DDR buffers over the
// plan's group steps with the occupancy curve, its lower bound and the coefficient region apart; LMEM over
// simulated time, planned (from the plan's rectangles) against simulated (the trace's counter), with every
// divergence flagged.
#ifndef TPUC_VISUALIZER_MEMORYPAINTERS_H
#define TPUC_VISUALIZER_MEMORYPAINTERS_H

#include "tpuc/ChipData/Run.h"
#include "visualizer/ChipCanvas.h"
#include "visualizer/ChipStyle.h"

#include <memory>

namespace tpuc::vis {

/// DDR: x = group step, y = offset in the activation region; one rectangle per buffer over its lifetime.
class DdrChart {
public:
  void setRun(std::shared_ptr<const chip::ChipRun> run);
  /// `cursorStep` < 0: none; buffers of value `selectedValue` outlined.
  void paint(Canvas &c, const QRectF &area, const ChipStyle &s, int cursorStep, int selectedValue) const;
  /// The buffer (index into gmem.buffers) under `p`, or -1; a weight of the coefficient strip as
  /// -2 - index.
  int itemAt(const QFont &font, const QRectF &area, QPointF p) const;
  QString describe(int item) const;
  /// The group step at x, or -1.
  int stepAt(const QFont &font, const QRectF &area, double x) const;
  /// The op a buffer or weight belongs to (its producer, or the first op of the group reading it), or -1.
  int opOf(int item) const;

private:
  struct Layout {
    QRectF coeff, plot;
  };
  Layout layout(const QFont &font, const QRectF &area) const;
  QRectF bufferRect(const QRectF &plot, const chip::DdrBuffer &b) const;
  std::vector<QRectF> weightRects(const QRectF &strip) const;
  std::shared_ptr<const chip::ChipRun> m_run;
  std::vector<int> m_weightGroup; ///< Per gmem weight: the first group using it.
  int64_t m_steps = 1, m_height = 1;
};

/// LMEM bytes per lane over simulated cycles [t0, t1): planned (area) vs simulated (line).
class LmemTimeChart {
public:
  void setRun(std::shared_ptr<const chip::ChipRun> run) { m_run = std::move(run); }
  void paint(Canvas &c, const QRectF &area, const ChipStyle &s, int64_t t0, int64_t t1, int64_t cursor) const;
  /// The cycle at x, or -1.
  int64_t cycleAt(const QFont &font, const QRectF &area, int64_t t0, int64_t t1, double x) const;
  /// Index of the divergence under x, or -1.
  int divergenceAt(const QFont &font, const QRectF &area, int64_t t0, int64_t t1, double x) const;
  QString describeDivergence(int index) const;
  QRectF plotRect(const QFont &font, const QRectF &area) const;

private:
  std::shared_ptr<const chip::ChipRun> m_run;
};

/// The largest value of a step function in each of `columns` equal columns of [t0, t1) (the value holding
/// at a column's start counts): what a curve of many samples draws at one pixel each.
std::vector<int64_t> envelope(const std::vector<chip::CounterSample> &samples, int64_t t0, int64_t t1, int columns);

} // namespace tpuc::vis

#endif
