//===- Trace.h - The engine trace (`<stem>_trace.json`) as plain data -----===//
//
// Every TIU and GDMA command of a command-level simulation with its start
// and end cycle, dependency, op, group, slice and step, and the LMEM / DDR
// occupancy counters, of one core of the chip (a trace of several cores
// holds each core as a process: pid = core). Reads schema "tpuc-cmd-trace" versions 1 and 2
// (docs/MODEL_FORMAT.md). Version 2 files are streamed line by line in
// bounded memory and parsed on two threads (a million commands take well
// under a second); any other layout of valid JSON is read whole. No MLIR,
// no Qt.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_CHIPDATA_TRACE_H
#define TPUC_CHIPDATA_TRACE_H

#include "tpuc/Codegen/ModelFile.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tpuc::chip {

// The model file's engines and command kinds, by the names the trace writer gives them.
using codegen::CmdKind;
using codegen::cmdKindName;
using codegen::Engine;
using codegen::engineName;
constexpr int kEngines = 2;

/// One executed command (56 bytes: a million of them fit in 56 MB).
struct Command {
  int64_t start = 0, end = 0; ///< Cycles, half-open.
  uint64_t ddr = 0;           ///< GDMA: DDR address of its DDR operand (version 2).
  uint32_t id = 0;            ///< 1-based, in issue order on its engine.
  uint32_t wait = 0;          ///< Id on the other engine it waits for (0: none).
  int32_t op = -1;            ///< Index into Trace::ops.
  int32_t group = -1, slice = -1, step = -1;
  uint32_t bytes = 0; ///< GDMA: bytes moved (version 2).
  CmdKind kind = CmdKind::Compute; ///< A category the model file does not know: the engine's generic kind.
  Engine engine = Engine::TIU;
  bool weight = false; ///< GDMA: the DDR operand is in the coefficient region.
  int64_t duration() const { return end - start; }
};

/// An op of the traced stage.
struct TraceOp {
  std::string name, type;
  int64_t tiuCycles = 0, gdmaCycles = 0;
  int commands = 0;
};

/// A counter sample: from `cycle` on, `bytes` are live.
struct CounterSample {
  int64_t cycle = 0, bytes = 0;
};

/// One core's share of a trace of several cores (the header's `core_busy`).
struct CoreBusy {
  int64_t tiu = 0, gdma = 0;         ///< Cycles running commands (barriers left out).
  int64_t tiuSync = 0, gdmaSync = 0; ///< Cycles in barriers, waiting for the other cores included.
  int64_t lmemPeak = 0;
};

struct Trace {
  int version = 0;
  int cores = 1; ///< Cores of the traced stage.
  int core = 0;  ///< The core whose commands and LMEM counters this holds (busy and LMEM peak are its own).
  std::vector<CoreBusy> coreBusy; ///< Per core (several cores only).
  std::string chip, stage;
  double frequencyMhz = 0;
  int64_t totalCycles = 0, tiuBusy = 0, gdmaBusy = 0, lmemPeak = 0, ddrPeak = 0;
  int64_t coeffBytes = 0, activationBase = 0, activationBytes = 0;
  std::vector<std::string> errors;
  std::vector<TraceOp> ops;
  /// Per engine, in start order (the engines run their streams in order, so also in id order).
  std::array<std::vector<Command>, kEngines> commands;
  std::vector<CounterSample> lmem, ddr;

  const std::vector<Command> &of(Engine e) const { return commands[static_cast<int>(e)]; }
  size_t commandCount() const { return commands[0].size() + commands[1].size(); }
  /// The command of engine `e` with id `id` (its first run when a loop ran it several times), or null.
  const Command *byId(Engine e, uint32_t id) const;
  int opIndex(std::string_view name) const;
  double cyclesToUs(int64_t cycles) const { return frequencyMhz > 0 ? cycles / frequencyMhz : 0; }

  std::unordered_map<std::string, int> opByName;
  /// Per engine: position of id-1 in `commands` when ids are not 1..N in order (else empty).
  std::array<std::vector<int32_t>, kEngines> idIndex;
};

/// Parses a trace held in memory; `source` names it in errors.
/// `core` selects which core's commands and LMEM counters to keep (DDR is the chip's); one out of range
/// is an error naming the trace's cores.
llvm::Expected<Trace> parseTrace(std::string_view text, std::string_view source, int core = 0);
/// Reads a trace file (streamed when it has version 2's layout).
llvm::Expected<Trace> readTraceFile(const std::string &path, int core = 0);
/// Reads the summary and the op table only (a version-2 file's header: milliseconds for any size); other
/// layouts are read whole.
llvm::Expected<Trace> readTraceSummary(const std::string &path);

} // namespace tpuc::chip

#endif // TPUC_CHIPDATA_TRACE_H
