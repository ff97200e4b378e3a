//===- Run.h - A deploy's plan and trace with everything the views derive -===//
//
// One immutable snapshot per deploy or run record: the plan, the trace when
// there is one, and the analyses computed once when it is loaded (busy
// indexes, idle attribution, critical path, spans, DDR occupancy, LMEM
// planned vs simulated). Views share it read-only; it is made off the UI
// thread. No Qt.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_CHIPDATA_RUN_H
#define TPUC_CHIPDATA_RUN_H

#include "tpuc/ChipData/Analysis.h"

#include <memory>
#include <optional>
#include <span>
#include <string>

namespace tpuc::chip {

class ChipRun {
public:
  ChipRun(const ChipRun &) = delete;
  ChipRun &operator=(const ChipRun &) = delete;

  /// Reads a plan and/or a trace (either path may be empty, not both) and derives the analyses; of a
  /// trace of several cores, core `core`'s commands and LMEM (Trace::cores says how many there are).
  static llvm::Expected<std::shared_ptr<const ChipRun>> load(const std::string &planPath,
                                                             const std::string &tracePath, int core = 0);
  /// Wraps data already in memory (tests, benchmarks).
  static std::shared_ptr<const ChipRun> make(std::optional<Plan> plan, std::optional<Trace> trace);

  const Plan *plan() const { return m_plan ? &*m_plan : nullptr; }
  const Trace *trace() const { return m_trace ? &*m_trace : nullptr; }
  std::string planPath, tracePath;

  // Trace analyses (empty without a trace).
  const BusyIndex &busy(Engine e) const { return m_busy[static_cast<int>(e)]; }
  const CriticalPath &critical() const { return m_critical; }
  const std::array<EngineIdle, kEngines> &idle() const { return m_idle; }
  const std::vector<Interval> &groupSpans() const { return m_groupSpans; }
  const std::vector<Interval> &opRuns() const { return m_opRuns; }
  const std::vector<Interval> &stepSpans() const { return m_stepSpans; }
  // Plan analyses.
  const DdrOccupancy &ddr() const { return m_ddr; }
  // Both.
  const std::vector<CounterSample> &plannedLmem() const { return m_plannedLmem; }
  const std::vector<Divergence> &divergences() const { return m_divergences; }

  /// The commands of trace op `op` on an engine: indices into Trace::commands, in start order.
  std::span<const uint32_t> commandsOf(Engine e, int op) const;

  /// Op names shared by plan and trace (TPU-MLIR tensor names): the trace op of a plan op and back, -1
  /// when the other side has no op of that name.
  int traceOpOf(int planOp) const;
  int planOpOf(int traceOp) const;
  /// The name of a plan op / trace op ("" when out of range).
  std::string planOpName(int op) const;
  std::string traceOpName(int op) const;
  /// The cycle range a plan group covers in the trace, or {-1, -1}.
  std::pair<int64_t, int64_t> groupTime(int group) const;
  /// The group running at `cycle` (the last span starting at or before it that still runs), or -1.
  int groupAt(int64_t cycle) const;

private:
  ChipRun() = default;
  void derive();

  std::optional<Plan> m_plan;
  std::optional<Trace> m_trace;
  std::array<BusyIndex, kEngines> m_busy;
  CriticalPath m_critical;
  std::array<EngineIdle, kEngines> m_idle;
  std::vector<Interval> m_groupSpans, m_opRuns, m_stepSpans;
  DdrOccupancy m_ddr;
  std::vector<CounterSample> m_plannedLmem;
  std::vector<Divergence> m_divergences;
  std::vector<int> m_planToTrace, m_traceToPlan;
  std::vector<int> m_groupSpanIndex; ///< Per plan group, index into m_groupSpans or -1.
  /// Per engine, commands grouped by op (CSR): op o's are m_opCommands[m_opStart[o] .. m_opStart[o + 1]).
  std::array<std::vector<uint32_t>, kEngines> m_opStart, m_opCommands;
};

/// Memory as one CSV table (long format, one record per row): `ddr_buffer` and `weight` rows from the plan's
/// DDR plan, `lmem_rect` rows per group, and with a trace the `lmem_planned` / `lmem_simulated` step
/// functions over cycles (and the simulated DDR counter, `ddr_simulated`). Columns: record,group,value,kind,slice,address,size,start,end,cycle,bytes.
std::string memoryCsv(const ChipRun &run);

} // namespace tpuc::chip

#endif // TPUC_CHIPDATA_RUN_H
