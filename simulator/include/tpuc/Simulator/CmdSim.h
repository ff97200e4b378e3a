//===- CmdSim.h - Command-level simulator of .tpum command streams --------===//
//
// Executes a stage's command streams, two (TIU, GDMA) per core, in order per
// engine, honouring the waits on the core's other engine and the barriers
// across cores, with the cost model's cycles per command, so the engines
// overlap as the schedule allows. Every core has its own engines and LMEM;
// the DDR and its bandwidth are shared: while k commands of any cores move
// DDR data at once, each moves at 1/k of the bandwidth (its DDR cycles
// stretch). A barrier ends the chip's sync cycles after the last stream
// reached it. Checks every operand against LMEM (per lane) and DDR bounds and
// the stage's regions, and every pair of commands running at the same time on
// different engines for conflicting accesses (one writes bytes the other
// reads or writes; LMEM only within a core). Produces a trace (Chrome
// trace-event JSON with a summary). MLIR-free and Qt-free.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_SIMULATOR_CMDSIM_H
#define TPUC_SIMULATOR_CMDSIM_H

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Codegen/ModelFile.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace tpuc::cmdsim {

/// One executed command.
struct TraceEvent {
  codegen::Engine engine = codegen::Engine::TIU;
  uint32_t id = 0;
  int64_t start = 0, end = 0; ///< Cycles.
  uint32_t core = 0;
  /// The block execution it ran in: an index into SimResult::path (a block run several times, a loop's
  /// body, has events in each).
  uint32_t execution = 0;
};

/// The command an event ran.
inline const codegen::Command &commandOf(const codegen::Stage &s, const TraceEvent &ev) {
  return s.cores[ev.core].of(ev.engine)[ev.id - 1];
}

/// A command as messages name it: `[core K ]TIU #12 (compute 'conv1')` (the core only with several).
std::string commandLabel(const codegen::Stage &s, const codegen::Command &c, size_t core);

/// What one core's engines did.
struct CoreTiming {
  int64_t tiuBusy = 0, gdmaBusy = 0; ///< Cycles running commands (barriers left out).
  int64_t tiuSync = 0, gdmaSync = 0; ///< Cycles each engine spent in barriers (waiting included).
};

/// Memory in use over time: (cycle, bytes) at every change, in time order.
struct Occupancy {
  std::vector<std::pair<int64_t, int64_t>> steps;
  int64_t peak = 0;
};

/// The outcome of simulating one stage.
struct SimResult {
  int64_t totalCycles = 0;
  int64_t tiuBusy = 0, gdmaBusy = 0; ///< Cycles each engine was running, summed over cores (no barriers).
  std::vector<CoreTiming> cores;     ///< Per core.
  int64_t barriers = 0;              ///< Barriers the cores met at.
  /// Cycles commands took beyond their cost-model cycles because other transfers shared the DDR.
  int64_t ddrSharedCycles = 0;
  /// Cycles commands lost because the other engine of their core ran at the same time
  /// (npu.engine_contention: both contend for the LMEM banks).
  int64_t contentionCycles = 0;
  std::vector<TraceEvent> events;    ///< In completion order.
  /// The blocks executed, in order (Stage::blocks; a stage without blocks is the one block 0 of all its
  /// commands).
  std::vector<uint32_t> path;
  /// LMEM bytes per lane (per core) and DDR activation-region bytes holding data a later command reads
  /// (or a stage output): a block is live from the command writing it (time 0 for the stage's inputs) to
  /// the end of the last command reading it before it is written again. Blocks of the LMEM alignment.
  std::vector<Occupancy> lmem;
  Occupancy ddr;
  /// The largest LMEM occupancy of any core.
  int64_t lmemPeak() const {
    int64_t p = 0;
    for (const Occupancy &o : lmem)
      p = std::max(p, o.peak);
    return p;
  }
  /// Problems found (bounds, regions, hazards, deadlock), one line each.
  std::vector<std::string> errors;
};

/// `cycles` of `chip`'s clock in milliseconds.
inline double latencyMs(const backend::ChipProfile &chip, int64_t cycles) {
  return static_cast<double>(cycles) / chip.frequencyMhz / 1000.0;
}

/// The most block executions one run of a stage may take: beyond it the control flow is taken not to end.
inline constexpr size_t kMaxBlockExecutions = 1000000;

/// Simulates `stage` on `chip` without its data, so a stage with control flow follows the **static
/// path**: from block 0, Next goes on with the following block, Jump with its target, and a Branch with
/// its `target` the first time that block's terminator is reached and with its `elseTarget` every time
/// after (an If runs its then-branch; a loop whose header branches into the body while it continues runs
/// the body once). A path longer than kMaxBlockExecutions is an error ("control flow did not end after
/// 1000000 blocks").
SimResult simulateStage(const backend::ChipProfile &chip, const codegen::Stage &stage);

/// Simulates `stage` along `path`, the blocks executed in order (a stage without blocks has the one block
/// 0; the terminators are not consulted: StageRunner records the path its data took). Each block
/// execution is scheduled as a whole stage would be, restricted to the block's commands, from the cycle
/// the previous execution ended: a wait on a command before the block's range is already satisfied, and
/// barriers count from 0 in every execution. Events of a block run several times appear once per run.
SimResult simulateStage(const backend::ChipProfile &chip, const codegen::Stage &stage,
                        const std::vector<uint32_t> &path);

/// The trace as Chrome / Perfetto trace-event JSON (schema "tpuc-cmd-trace", version 2,
/// docs/MODEL_FORMAT.md): a header with the chip, frequency, stage, cores, total cycles, latency, busy
/// cycles per engine (and per core), LMEM / DDR peaks, the stage's DDR regions, errors and "ops" (every op
/// of the stage by tensor name, index = args.op, with its simulated TIU / GDMA cycles and command count),
/// then "traceEvents": metadata naming one process per core (pid = core) and its TIU (tid 0) / GDMA
/// (tid 1) threads, one "X" event per command (ts/dur in microseconds; args id, wait, op, group, slice,
/// step, start/end cycles, cost-model cycles, for GDMA the DDR address, bytes moved and whether it is a
/// weight, for a barrier its number), one "s"/"f" flow pair per command that waits, and "C" counters
/// LMEM {bytes_per_lane} (per core) / DDR {activation_bytes} (pid 0) with their cycle.
/// The layout is part of the schema, so readers can stream it: the header ends with the line
/// ` "traceEvents": [`, every event is one line, and the document ends with the line `]}`.
std::string traceJson(const backend::ChipProfile &chip, const codegen::Stage &stage, const SimResult &r);

} // namespace tpuc::cmdsim

#endif // TPUC_SIMULATOR_CMDSIM_H
