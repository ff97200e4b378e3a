//===- Plan.h - The backend plan (`<stem>_plan.json`) as plain data -------===//
//
// What the studio's chip views read of a deploy: layer groups with their
// slices, pipeline stages and LMEM rectangles, the DDR buffers with
// lifetimes, per-op estimates and the planner's reasons for every cut.
// Reads schema "tpuc-backend-plan" versions 1 to 3 (docs/BACKEND.md; version
// 3 says which core runs each slice, stage, LMEM buffer and global-op part).
// Names are interned: groups, rects and buffers refer to values and ops by
// index. No MLIR, no Qt.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_CHIPDATA_PLAN_H
#define TPUC_CHIPDATA_PLAN_H

#include "tpuc/Backend/LocalMemory.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tpuc::chip {

/// The chip the plan was made for.
struct ChipInfo {
  std::string name;
  int64_t lanes = 0, euBytes = 0, lmemBytesPerLane = 0, lmemBanks = 0;
  double frequencyMhz = 0;
  int64_t bankBytes() const { return lmemBanks > 0 ? lmemBytesPerLane / lmemBanks : lmemBytesPerLane; }
};

/// A tensor of the backend graph (activation or weight).
struct PlanValue {
  std::string name;
  std::vector<int64_t> shape; ///< Empty when the plan (version 1) does not say.
  std::string dtype;
  int64_t bytes = 0;
  bool weight = false;
  /// Dimension `i` of the NCHW view (trailing 1s for lower ranks); 0 when the shape is unknown.
  int64_t dim(int i) const;
};

/// Half-open index range.
struct Span {
  int64_t begin = 0, end = 0;
  int64_t size() const { return end - begin; }
  friend bool operator==(const Span &, const Span &) = default;
};
/// A box of an NCHW tensor.
using Box = std::array<Span, 4>;

// The planner's buffer kinds, by the names the plan writer gives them.
using backend::BufferKind;
using backend::bufferKindName;

/// One LMEM buffer: bytes [addr, addr + size) of every lane during time units [t0, t1) (of its core).
struct LmemRect {
  int value = -1;
  int slice = -1; ///< -1: a whole-group buffer (resident weight).
  BufferKind kind = BufferKind::Intermediate;
  int64_t t0 = 0, t1 = 0, addr = 0, size = 0;
  int core = 0; ///< The core whose LMEM holds it (plan version 3).
};

/// One pipeline stage of a group (on one core: each core runs its own pipeline over its slices).
struct TimeStep {
  int core = 0, stage = 0; ///< The core, and the stage's index on it.
  int loadSlice = -1, computeSlice = -1, storeSlice = -1; ///< -1: none.
  bool loadsWeights = false;
  int64_t tiuCycles = 0, gdmaCycles = 0, cycles = 0;
  bool gdmaBound() const { return gdmaCycles > tiuCycles; }
};

/// The boxes of one slice: per value index.
struct SliceBoxes {
  std::vector<std::pair<int, Box>> values, stores;
  const Box *valueBox(int value) const;
};

/// A core's part of a split global op: range [begin, end) of the result's dimension `axis` (NCHW view).
struct GlobalPart {
  int core = 0, axis = 0;
  int64_t begin = 0, end = 0;
};

/// A layer group, or a single global op (`global`: no slices, no LMEM).
struct Group {
  int id = 0;
  bool global = false;
  /// A control-flow marker's group: "if_branch", "if_else", "if_join", "loop_init" or "loop_back" (its
  /// branch and DDR copies, docs/BACKEND.md "Control flow"); empty for every other group.
  std::string control;
  int cores = 1;              ///< Cores it runs on (version 3).
  int64_t syncCycles = 0;     ///< Of `cycles`, the barrier after it.
  std::vector<int> sliceCore; ///< Per slice, its core (all 0 before version 3).
  std::vector<GlobalPart> parts;
  std::vector<int> ops; ///< Op indices.
  std::vector<int> inputs, outputs, intermediates, weights; ///< Value indices.
  int64_t cycles = 0, tiuCycles = 0, gdmaCycles = 0, ddrBytes = 0;
  std::array<int64_t, 4> cuts{1, 1, 1, 1}; ///< Slices per n, c, h, w.
  std::vector<SliceBoxes> slices;
  int64_t unitsPerStage = 1;
  std::vector<TimeStep> steps;
  int64_t lmemPeak = 0, lmemLowerBound = 0;
  int bankConflicts = 0;
  std::vector<LmemRect> rects;
  /// "memory" when GDMA is busier than TIU, else "compute".
  bool memoryBound() const { return gdmaCycles > tiuCycles; }
  /// Time units of the group's LMEM chart (the latest rect end; of one core's rects when core >= 0).
  int64_t timeUnits(int core = -1) const;
  /// Stages core `core` runs.
  int64_t stagesOn(int core) const;
};

/// A buffer of the planner's reason ("live" list of a cut).
struct LiveBuffer {
  int value = -1;
  BufferKind kind = BufferKind::Intermediate;
  int slice = -1;
  int64_t size = 0;
};

/// Why the planner ended a group where it did, or kept an op global (plan version 2).
struct Cut {
  int group = -1;
  bool global = false; ///< false: the boundary after `group`; true: why `group` is a global op.
  int op = -1;         ///< The op across the boundary, or the global op.
  std::string reason;  ///< no_local_form, lmem, weights, halo, cost, max_ops.
  std::string message; ///< One line.
  int64_t needed = 0, capacity = 0, shortBytes = 0, timeUnit = -1, stage = -1;
  int unitOp = -1;
  std::vector<LiveBuffer> live;
  int64_t cyclesSplit = 0, cyclesMerged = 0;
};

/// One activation's place in DDR.
struct DdrBuffer {
  int value = -1, root = -1;
  int64_t offset = 0, address = 0, size = 0;
  int64_t start = 0, end = 0; ///< Group steps, inclusive.
  bool io = false;
};

struct DdrWeight {
  int value = -1;
  int64_t address = 0, size = 0;
};

struct Gmem {
  int64_t coeffBytes = 0, activationBase = 0, activationPeak = 0, lowerBound = 0;
  std::string strategy;
  std::vector<DdrBuffer> buffers;
  std::vector<DdrWeight> weights;
};

/// Per-op estimate.
struct PlanOp {
  std::string name, kind;
  int group = -1;
  int64_t tiuCycles = 0, macs = 0;
  double laneUtilization = 1, euUtilization = 1;
};

/// The whole plan.
struct Plan {
  int version = 0;
  ChipInfo chip;
  int opt = 0;
  int cores = 1; ///< Cores the plan spreads work over (`--num_core`; 1 before version 3).
  int64_t syncCycles = 0;
  int64_t totalCycles = 0;
  double latencyUs = 0;
  std::vector<PlanValue> values;
  std::vector<PlanOp> ops;
  std::vector<Group> groups;
  std::vector<Cut> cuts;
  Gmem gmem;

  /// Index of the value / op of that name, or -1.
  int valueIndex(std::string_view name) const;
  int opIndex(std::string_view name) const;
  /// The op a click on a value selects: the op producing it (same name, TPU-MLIR's naming), else the
  /// first op of `group` reading it (weights, graph inputs); -1 when none.
  int opOfValue(int value, int group = -1) const;
  /// Index of the group holding op `op`, or -1.
  int groupOfOp(int op) const { return op >= 0 && op < static_cast<int>(ops.size()) ? ops[op].group : -1; }

  std::unordered_map<std::string, int> valueByName, opByName;
};

/// Parses a plan document; `source` names it in errors ("<source>: groups[3].lmem.rects[2]: ...").
llvm::Expected<Plan> parsePlan(std::string_view text, std::string_view source);
/// Reads and parses a plan file.
llvm::Expected<Plan> readPlanFile(const std::string &path);

} // namespace tpuc::chip

#endif // TPUC_CHIPDATA_PLAN_H
