//===- Analysis.h - What the chip views compute from a plan and a trace ---===//
//
// Plain computations behind the views, kept apart from drawing so they are
// tested with known answers: level-of-detail aggregation of a command row
// into pixel columns (sums equal the raw busy time), idle attribution (what
// each engine waited for), the critical path, the time spans of groups,
// stages and ops, DDR occupancy over the plan's group steps, and LMEM
// planned vs simulated over time with divergences. No Qt.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_CHIPDATA_ANALYSIS_H
#define TPUC_CHIPDATA_ANALYSIS_H

#include "tpuc/ChipData/Plan.h"
#include "tpuc/ChipData/Trace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tpuc::chip {

/// Busy time of one engine's commands (in start order, not overlapping) by prefix sums.
class BusyIndex {
public:
  BusyIndex() = default;
  explicit BusyIndex(const std::vector<Command> &commands);
  /// Cycles some command runs within [t0, t1).
  int64_t busy(int64_t t0, int64_t t1) const;
  /// Index of the first command ending after `t` (commands.size() when none).
  size_t firstEndingAfter(int64_t t) const;
  int64_t total() const { return cum.empty() ? 0 : cum.back(); }

private:
  const std::vector<Command> *cmds = nullptr;
  std::vector<int64_t> cum; ///< cum[i] = duration of commands [0, i).
};

/// One pixel column of a row.
struct LodColumn {
  int64_t busy = 0;      ///< Cycles covered by commands.
  int32_t dominant = -1; ///< Command (index in the row) covering most of the column.
  uint32_t count = 0;    ///< Commands touching the column.
};

/// Aggregates the commands of a row that overlap [t0, t1) into `columns` equal columns; the columns tile
/// the range, so their busy cycles sum to the row's busy time in it exactly. Up to 8 commands per column
/// on average, each command is visited (work ~ commands in range + columns) and `dominant` is the one
/// covering most of its column; beyond that every column is summed from the prefix sums in O(log n) and
/// `dominant` is the command at the column's middle (or the first in it), so the work no longer grows with
/// the commands a zoomed-out view holds.
std::vector<LodColumn> aggregateColumns(const std::vector<Command> &commands, const BusyIndex &index, int64_t t0,
                                        int64_t t1, int columns);

/// A labelled interval of a lane (a group, an op's run of TIU commands, a pipeline stage).
struct Interval {
  int64_t start = 0, end = 0;
  int id = -1; ///< Group index, op index, ...
  int step = -1;
};

/// [first start, last end] of each group's commands on both engines, in start order.
std::vector<Interval> groupSpans(const Trace &t);
/// Runs of consecutive TIU commands of one op (id = op), in start order.
std::vector<Interval> opRuns(const Trace &t);
/// [first start, last end] of the commands of each (group, step), id = group, in start order.
std::vector<Interval> stepSpans(const Trace &t);

/// What kept an engine idle.
struct IdleCause {
  Engine waitedOn = Engine::GDMA; ///< The engine whose command it waited for.
  int op = -1;
  CmdKind kind = CmdKind::Compute; ///< With op < 0: no command (a gap nothing explains, the end of the run).
  bool weight = false;
  bool tail = false; ///< After the engine's last command, until the run ends.
  int64_t cycles = 0;
  std::string text; ///< "GDMA loads of layer3.0.conv1's weights"
};

struct EngineIdle {
  int64_t busy = 0, idle = 0;
  double busyShare = 0, idleShare = 0; ///< Of the run's total cycles.
  std::vector<IdleCause> causes;       ///< Largest first.
  /// "TIU idle 18 % of the run, 60 % of that waiting on GDMA loads of layer3.0.conv1's weights".
  std::string summary;
  /// The idle time by what was waited for, largest first: "weight loads 64 %, input loads 21 %, stores 9 %,
  /// the end of the run 6 %" (empty when the engine was never idle).
  std::string breakdown;
};

/// For each gap of an engine, the command of the other engine it waited for (its start is that
/// command's end); the tail after its last command is charged to the other engine's commands still
/// running. Causes are summed by (op, kind, weight).
std::array<EngineIdle, kEngines> attributeIdle(const Trace &t);

/// The chain of commands that sets the run's length: from the command ending last, back through the
/// command each one started after (its dependency when that ended at its start, else its predecessor
/// on the engine). Per engine, a flag per command.
struct CriticalPath {
  std::array<std::vector<uint8_t>, kEngines> on;
  /// Per engine: count[i] = critical commands among the first i (views test a range in O(1)).
  std::array<std::vector<uint32_t>, kEngines> count;
  std::vector<std::pair<Engine, int>> chain; ///< Latest first.
  int64_t cycles = 0;                        ///< Sum of the chain's durations.
  std::array<int64_t, kEngines> engineCycles{}; ///< Of which on each engine.
};
CriticalPath criticalPath(const Trace &t);

/// DDR activation bytes live at each group step of the plan (shared storage counted once), their
/// maximum (the lower bound no placement can beat) and the packing efficiency peak / lower bound.
struct DdrOccupancy {
  std::vector<int64_t> liveBytes; ///< Per group step.
  int64_t lowerBound = 0, peak = 0;
  double efficiency() const { return lowerBound ? static_cast<double>(peak) / lowerBound : 1.0; }
};
DdrOccupancy ddrOccupancy(const Plan &p);

/// Bytes per lane the plan has live at each time unit of a group's LMEM chart (of core `core`'s LMEM;
/// -1: every rect, as for one core).
std::vector<int64_t> lmemUnitOccupancy(const Group &g, int core = -1);

/// LMEM bytes per lane over simulated time, as the plan sees it: each (group, step) span of the trace
/// holds the most bytes live in that stage's time units (overlapping spans: the larger).
std::vector<CounterSample> plannedLmemOverTime(const Plan &p, const Trace &t);

/// A time range where the simulated LMEM occupancy exceeds the planned one.
struct Divergence {
  int64_t start = 0, end = 0;
  int64_t planned = 0, simulated = 0; ///< At the worst point.
  int group = -1, step = -1;
};
/// Where `simulated` is above `planned` (both step functions over cycles), merged into ranges.
std::vector<Divergence> lmemDivergences(const std::vector<CounterSample> &planned,
                                        const std::vector<CounterSample> &simulated, const Trace &t);

/// Value of a step function at `cycle` (0 before its first sample).
int64_t valueAt(const std::vector<CounterSample> &samples, int64_t cycle);

} // namespace tpuc::chip

#endif // TPUC_CHIPDATA_ANALYSIS_H
