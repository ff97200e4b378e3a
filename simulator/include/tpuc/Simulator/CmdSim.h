//===- CmdSim.h - Command-level simulator of .tpum command streams --------===//
//
// Executes a stage's two command streams (TIU, GDMA) in order per engine,
// honouring the cross-engine waits, with the cost model's cycles per
// command, so the engines overlap as the schedule allows. Checks every
// operand against LMEM (per lane) and DDR bounds and the stage's regions,
// and every pair of commands running at the same time on different engines
// for conflicting accesses (one writes bytes the other reads or writes).
// Produces a trace (Chrome trace-event JSON with a summary). Timing and
// checking only: computing the tensors per slice is left for later (the
// Tpu functional simulator runs whole ops on MLIR, not LMEM slices).
// MLIR-free and Qt-free.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_SIMULATOR_CMDSIM_H
#define TPUC_SIMULATOR_CMDSIM_H

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Codegen/ModelFile.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tpuc::cmdsim {

/// One executed command.
struct TraceEvent {
  codegen::Engine engine = codegen::Engine::TIU;
  uint32_t id = 0;
  int64_t start = 0, end = 0; ///< Cycles.
};

/// Memory in use over time: (cycle, bytes) at every change, in time order.
struct Occupancy {
  std::vector<std::pair<int64_t, int64_t>> steps;
  int64_t peak = 0;
};

/// The outcome of simulating one stage.
struct SimResult {
  int64_t totalCycles = 0;
  int64_t tiuBusy = 0, gdmaBusy = 0; ///< Cycles each engine was running.
  std::vector<TraceEvent> events;    ///< In completion order.
  /// LMEM bytes per lane and DDR activation-region bytes holding data a later command reads (or a
  /// stage output): a block is live from the command writing it (time 0 for the stage's inputs) to the
  /// end of the last command reading it before it is written again. Blocks of the LMEM alignment.
  Occupancy lmem, ddr;
  /// Problems found (bounds, regions, hazards, deadlock), one line each.
  std::vector<std::string> errors;
};

/// `cycles` of `chip`'s clock in milliseconds.
inline double latencyMs(const backend::ChipProfile &chip, int64_t cycles) {
  return static_cast<double>(cycles) / chip.frequencyMhz / 1000.0;
}

/// Simulates `stage` on `chip`.
SimResult simulateStage(const backend::ChipProfile &chip, const codegen::Stage &stage);

/// The trace as Chrome / Perfetto trace-event JSON (schema "tpuc-cmd-trace", version 2,
/// docs/MODEL_FORMAT.md): a header with the chip, frequency, stage, total cycles, latency, busy cycles per
/// engine, LMEM / DDR peaks, the stage's DDR regions, errors and "ops" (every op of the stage by tensor
/// name, index = args.op, with its simulated TIU / GDMA cycles and command count), then "traceEvents":
/// metadata naming the process and the TIU (tid 0) / GDMA (tid 1) threads, one "X" event per command
/// (ts/dur in microseconds; args id, wait, op, group, slice, step, start/end cycles, cost-model cycles,
/// and for GDMA the DDR address, bytes moved and whether it is a weight), one "s"/"f" flow pair per
/// command that waits, and "C" counters LMEM {bytes_per_lane} / DDR {activation_bytes} with their cycle.
/// The layout is part of the schema, so readers can stream it: the header ends with the line
/// ` "traceEvents": [`, every event is one line, and the document ends with the line `]}`.
std::string traceJson(const backend::ChipProfile &chip, const codegen::Stage &stage, const SimResult &r);

} // namespace tpuc::cmdsim

#endif // TPUC_SIMULATOR_CMDSIM_H
