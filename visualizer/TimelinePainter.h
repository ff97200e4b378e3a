// The engine timeline, shared by the studio's EngineTimeline and `tpuc view timeline`: a Gantt of the TIU
// and GDMA commands with lanes for layer groups and ops above them, drawn with level of detail (what falls
// into one pixel is aggregated; a million commands stay smooth), the critical path, the selected op, and
// per-engine busy share and idle attribution.
#ifndef TPUC_VISUALIZER_TIMELINEPAINTER_H
#define TPUC_VISUALIZER_TIMELINEPAINTER_H

#include "tpuc/ChipData/Run.h"
#include "visualizer/ChipCanvas.h"
#include "visualizer/ChipStyle.h"

#include <memory>
#include <span>

namespace tpuc::vis {

/// Rows of the timeline, top to bottom.
enum class TimelineRow { None = -1, Groups = 0, Ops = 1, TIU = 2, GDMA = 3 };

/// What a point of the timeline hits.
struct TimelineHit {
  TimelineRow row = TimelineRow::None;
  int index = -1; ///< Group span, op run or command index in its engine's list.
};

struct TimelineState {
  int64_t t0 = 0, t1 = 0; ///< Visible cycles [t0, t1).
  int selectedOp = -1;    ///< Trace op index.
  TimelineHit hovered;
  bool showCritical = true;
  int64_t cursor = -1;
};

class TimelinePainter {
public:
  void setRun(std::shared_ptr<const chip::ChipRun> run);
  const chip::ChipRun *run() const { return m_run.get(); }
  /// Paints into `area`. On a full-detail canvas (SVG) every command, group and op run is one element.
  void paint(Canvas &c, const QRectF &area, const ChipStyle &s, const TimelineState &state) const;
  TimelineHit hitTest(const QFont &font, const QRectF &area, const TimelineState &state, QPointF p) const;
  /// Tooltip text of a hit: a command's kind, op, group/slice/step, cycles, dependency and critical flag.
  QString describe(const TimelineHit &hit) const;
  /// The trace op of a hit (-1: none).
  int opOf(const TimelineHit &hit) const;
  /// The time range of a hit (for zoom-to).
  std::pair<int64_t, int64_t> rangeOf(const TimelineHit &hit) const;
  /// The plot's x extent inside `area` (row labels on the left).
  QRectF plotRect(const QFont &font, const QRectF &area) const;
  /// The cycle at x for the window of `state`.
  int64_t cycleAt(const QFont &font, const QRectF &area, const TimelineState &state, double x) const;

private:
  struct Rows {
    QRectF ruler, plot, footer;
    QRectF row[4];
    double label;
  };
  Rows layout(const QFont &font, const QRectF &area) const;
  /// One row. `critical`/`criticalCount`: the critical flags and their prefix counts of `cmds` (null for
  /// the op lane); `selected`: indices into `selectedOf` of the selected op's commands.
  void paintRow(Canvas &c, const QRectF &row, const ChipStyle &s, const TimelineState &st,
                const std::vector<chip::Command> &cmds, const chip::BusyIndex &index, TimelineRow kind,
                const std::vector<uint8_t> *critical, const std::vector<uint32_t> *criticalCount,
                std::span<const uint32_t> selected, const std::vector<chip::Command> &selectedOf) const;
  void paintSpans(Canvas &c, const QRectF &row, const ChipStyle &s, const TimelineState &st) const;
  std::shared_ptr<const chip::ChipRun> m_run;
  /// Op runs as commands (start, end, op) so the op lane shares the rows' level of detail.
  std::vector<chip::Command> m_opRuns;
  chip::BusyIndex m_opIndex;
};

} // namespace tpuc::vis

#endif
