//===- LayerGroup.h - Layer groups, time steps and LMEM plans -------------===//
//
// Partitions a graph (ops in topological order) into layer groups: runs of
// consecutive groupable ops whose working set fits LMEM when their outputs
// are cut into slices (N first, then H, then C and W where needed). Each
// group runs as a software pipeline over stages: stage t loads slice t,
// computes slice t-1 and stores slice t-2, so GDMA and TIU overlap. Every
// buffer of every slice is a rectangle on the (time x address) plane, one
// time unit per op of the group within a stage. Ops that cannot be grouped
// (or do not fit even sliced) run as global ops through DDR.
//
// Boundaries: --opt 0 puts every op alone, --opt 1 grows each group
// greedily while it fits, --opt 2 chooses boundaries by dynamic programming
// over the cycle cost model. The DP considers every group the greedy mode
// can form, so it is never worse. Everything is deterministic.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_BACKEND_LAYERGROUP_H
#define TPUC_BACKEND_LAYERGROUP_H

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Backend/CostModel.h"
#include "tpuc/Backend/Graph.h"
#include "tpuc/Backend/LocalMemory.h"
#include "tpuc/Backend/Slicing.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tpuc::backend {

/// One stage of a group's pipeline (on one core: with several cores each runs
/// its own pipeline over its slices).
struct TimeStep {
  int core = 0;  ///< The core running this stage.
  int stage = 0; ///< Stage index on that core: it loads the core's slice `stage`.

  int loadSlice = -1;    ///< Slice whose inputs (and weights) load, or -1.
  int computeSlice = -1; ///< Slice whose ops run, or -1.
  int storeSlice = -1;   ///< Slice whose outputs store, or -1.
  bool loadsWeights = false;
  int64_t tiuCycles = 0, gdmaCycles = 0;
  int64_t cycles = 0; ///< overlappedCycles(tiu, gdma): the engines overlap, contending for LMEM.
};

/// Per-op estimate, summed over the op's slices.
struct OpEstimate {
  int64_t tiuCycles = 0;
  int64_t macs = 0;
  double laneUtilization = 1; ///< Of the whole (unsliced) op.
  double euUtilization = 1;
};

/// A core's part of a global op: the range `range` of the result's dimension
/// `axis` (NCHW view), and the boxes of its operands (globalPartBoxes).
struct GlobalPart {
  int core = 0;
  int axis = 0;
  Range range;
};

/// A group of ops, or a single global op (`global` true, no slices or LMEM).
///
/// With several cores (GroupOptions::cores) the slices are spread over them in
/// balanced contiguous runs, `sliceCore[i]` naming slice i's core; each core
/// runs its own pipeline (its `steps`, in core order) in its own LMEM (its
/// `rects`, in its own time units: the rects of the one-core pipeline of
/// those slices, so the placement holds on every core), and all cores meet in
/// a barrier after the group. A global op with a natural outer dimension is
/// split into `parts`, one per core.
struct LayerGroup {
  bool global = false;
  int cores = 1;                ///< Cores it runs on (0..cores-1).
  std::vector<int> sliceCore;   ///< Per slice: its core.
  std::vector<GlobalPart> parts; ///< Global op split over cores (empty: the whole op on core 0).
  int64_t syncCycles = 0;       ///< Of `cycles`, the barrier after the group (cores > 1).

  std::vector<int> ops; ///< Ascending op indices.
  GroupValues values;
  SliceSpec spec;
  std::vector<SliceBoxes> slices;
  int64_t unitsPerStage = 1; ///< Time units per stage (ops in the group).
  std::vector<TimeStep> steps;
  std::vector<LmemRect> rects;
  LmemAllocation lmem;
  int64_t cycles = 0;
  int64_t tiuCycles = 0, gdmaCycles = 0; ///< Engine busy totals.
  int64_t ddrBytes = 0;                  ///< Bytes moved between DDR and LMEM.
};

/// Knobs of the partition.
struct GroupOptions {
  int opt = 2;             ///< 0: one op per group, 1: greedy, 2: DP.
  int maxGroupOps = 24;    ///< Longest group considered.
  int extraSliceTries = 2; ///< Also try H cut 2x, 4x finer; keep the cheapest.
  /// Cores to spread work over (`tpuc deploy --num_core`): slices of a group, parts of a global op.
  int cores = 1;
};

/// The whole partition.
struct LayerGroupPlan {
  std::string chip;
  int opt = 2;
  int cores = 1; ///< GroupOptions::cores it was planned for.
  std::vector<LayerGroup> groups;
  std::vector<int> groupOfOp;      ///< Index into groups, per op.
  std::vector<OpEstimate> opCosts; ///< Per op.
  int64_t totalCycles = 0;
};

/// True when `concat` can be done by its producers writing into one DDR
/// buffer: all dimensions before the axis are 1, and every operand is a
/// distinct op result that is no reshape or concat result and feeds no
/// other concat.
bool canConcatInPlace(const Graph &g, int concatOp);

/// True when op `op` needs no command (reshape, in-place concat).
bool isInPlace(const Graph &g, int op);

/// A row group streams its matmuls' weights (docs/BACKEND.md, "Streamed weights"): each loads in stage
/// 1 as soon as the stage starts, in column tiles, and the matmul computes the first slice of its core
/// tile by tile, each tile once its part of the weight is in. The column ranges of box `out` of matmul
/// `op`'s result: about sqrt(min(weight load, compute) / DMA latency) tiles of whole lane multiples (the
/// tiles' latencies against the last tile's compute left after the last load); one range for other ops.
std::vector<Range> columnTiles(const ChipProfile &chip, const Graph &g, const Op &op, const Box &out);

/// The box of weight `w` of matmul `op` that the output columns `cols` read: the columns of the matrix
/// and of a bias running along them; the whole weight otherwise.
Box columnTileWeight(const Graph &g, const Op &op, int w, const Range &cols);

/// Box `out` of `op`'s result with its last axis (the matmul's columns) limited to `cols`.
Box columnTileOutput(const Graph &g, const Op &op, const Box &out, const Range &cols);

/// GDMA cycles of loading box `b` of weight `w` from the coefficient region: its contiguous runs (a range
/// of dim 0 is one run, a column tile of a [K, N] matrix one per row).
int64_t weightBoxDmaCycles(const ChipProfile &chip, const Value &w, const Box &b);

/// The resident-weight loads of op `op` of a group, per column tile of `tiles` (one range when it is not
/// streamed): each of `weights` (the resident weights `op` reads first) with the first load, except a
/// streamed matmul's matrix and a bias along its columns, whose columns j load with tile j. Each load is
/// (weight, box); `whole` holds every weight's resident box. What the planner prices and codegen issues.
std::vector<std::vector<std::pair<int, Box>>> residentWeightLoads(const Graph &g, const Op &op,
                                                                  const std::vector<Range> &tiles,
                                                                  const std::vector<int> &weights,
                                                                  const std::map<int, Box> &whole);

/// The stage (0 or 1) in which a group loads its resident weight `w`, first read by op `firstUse` (its
/// position in the group): the first op's in stage 0 (with the first slice's inputs), except a streamed
/// matmul's; the others in stage 1.
int residentWeightStage(const Graph &g, const std::vector<int> &ops, bool streamed, int64_t firstUse);

/// Plans the ops `ops` (consecutive, groupable) as one group with the
/// cheapest slicing that fits; nullopt when none does.
std::optional<LayerGroup> planGroup(const ChipProfile &chip, const Graph &g, const std::vector<int> &ops,
                                    const GroupOptions &options = {});

/// What keeps ops from forming one group (diagnoseGroup).
enum class GroupObstacle {
  None,
  NotGroupable, ///< An op has no LMEM form (Graph::isGroupable).
  Weights,      ///< The resident weights alone exceed LMEM (a chain: C is not cut).
  Lmem,         ///< The working set exceeds LMEM even at the finest slicing.
  Halo,         ///< It would fit with one row per buffer: the H cut cannot go finer
                ///< than the outputs' rows, or the halos exceed the slices.
  Placement,    ///< The lower bound fits but no slicing tried could be placed.
};
/// "none", "not_groupable", "weights", "lmem", "halo", "placement".
const char *groupObstacleName(GroupObstacle o);

/// Why planGroup found no slicing for some ops: the LMEM lower bound at the
/// finest slicing its search tries (of its (c, w) cuts, the one closest to
/// fitting), with the worst time unit and what is live then.
struct GroupDiagnosis {
  GroupObstacle obstacle = GroupObstacle::None;
  int op = -1;              ///< NotGroupable: the op.
  SliceSpec spec;           ///< The finest slicing examined.
  int64_t needed = 0;       ///< Bytes per lane live at timeUnit (Weights: resident weight bytes).
  int64_t capacity = 0;     ///< LMEM bytes per lane.
  int64_t timeUnit = -1;    ///< First time unit with the most bytes live (-1 for Weights).
  int64_t unitsPerStage = 1;
  int unitOp = -1;          ///< Graph op running at timeUnit (its unit % unitsPerStage).
  int computeSlice = -1;    ///< Slice that stage computes; -1 in a load- or store-only stage.
  std::vector<LmemRect> live; ///< Buffers live at timeUnit (Weights: every weight), largest first.
  int hLimit = -1;          ///< Halo: the group output whose rows bound the H cut.
  std::string detail;       ///< Halo: what holds too many rows, or the slicing error.
};

/// Why `ops` (consecutive) cannot be planned as one group; meant for ops
/// planGroup rejected (a few rectangle builds, no placement). Deterministic.
GroupDiagnosis diagnoseGroup(const ChipProfile &chip, const Graph &g, const std::vector<int> &ops);

/// Plans a group of the ops `ops` with exactly `spec` on `cores` cores;
/// nullopt when it does not fit LMEM.
std::optional<LayerGroup> planGroupWithSpec(const ChipProfile &chip, const Graph &g,
                                            const std::vector<int> &ops, const SliceSpec &spec, int cores = 1);

/// Plans op `op` as a global op, split over `cores` cores when it has a
/// natural outer dimension (globalSplitAxis).
LayerGroup planGlobal(const ChipProfile &chip, const Graph &g, int op, int cores = 1);

/// The dimension (NCHW view) along which global op `op` splits into `cores`
/// independent parts, or -1: the outermost of N, C of a pool / global pool /
/// elementwise / unary op (N of a conv; the batch or row dimensions of a
/// matmul's result, never its features; N, C of a row normalization but never
/// its last axis) that has at least `cores` elements and along which every
/// operand either has the result's extent (and is cut the same way) or is
/// broadcast (1) or, for a matmul's right-hand side and bias and a
/// normalization's gamma and beta, not indexed at all. Ranks up to 4, one
/// result; reshapes, concats and other ops are not split.
int globalSplitAxis(const Graph &g, int op, int cores);

/// The boxes the part `range` of dimension `axis` of global op `op` touches:
/// one per output, input and weight, in that order (the command's operands).
std::vector<Box> globalPartBoxes(const Graph &g, const Op &op, int axis, const Range &range);

/// Partitions the whole graph. The graph must verify.
LayerGroupPlan planLayerGroups(const ChipProfile &chip, const Graph &g, const GroupOptions &options = {});

/// Independent checks of a plan: every op in exactly one group, in order;
/// group ops consecutive; per slice, stored boxes tile each output exactly;
/// every op's operand boxes cover what it reads; LMEM rects valid. Returns
/// one line per problem.
std::vector<std::string> validatePlan(const ChipProfile &chip, const Graph &g, const LayerGroupPlan &plan);

} // namespace tpuc::backend

#endif // TPUC_BACKEND_LAYERGROUP_H
