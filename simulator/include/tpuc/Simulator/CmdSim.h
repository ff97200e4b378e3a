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

/// The outcome of simulating one stage.
struct SimResult {
  int64_t totalCycles = 0;
  int64_t tiuBusy = 0, gdmaBusy = 0; ///< Cycles each engine was running.
  std::vector<TraceEvent> events;    ///< In completion order.
  /// Problems found (bounds, regions, hazards, deadlock), one line each.
  std::vector<std::string> errors;
};

/// `cycles` of `chip`'s clock in milliseconds.
inline double latencyMs(const backend::ChipProfile &chip, int64_t cycles) {
  return static_cast<double>(cycles) / chip.frequencyMhz / 1000.0;
}

/// Simulates `stage` on `chip`.
SimResult simulateStage(const backend::ChipProfile &chip, const codegen::Stage &stage);

/// The trace as JSON: {"schema": "tpuc-cmd-trace", "version": 1, "chip", "total_cycles", "latency_us",
/// "tiu_busy", "gdma_busy", "errors", "ops": [{"name" (the op's tensor name), "type", "tiu_cycles",
/// "gdma_cycles"}] (ops with commands), "traceEvents": [Chrome "X" events, tid 0 TIU / 1 GDMA, ts/dur in
/// microseconds, args: id, wait, kind, group, slice, step, cycles]}.
std::string traceJson(const backend::ChipProfile &chip, const codegen::Stage &stage, const SimResult &r);

} // namespace tpuc::cmdsim

#endif // TPUC_SIMULATOR_CMDSIM_H
