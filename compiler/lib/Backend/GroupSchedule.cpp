//===- GroupSchedule.cpp - One group: slicing, pipeline stages, LMEM ------===//

#include "tpuc/Backend/LayerGroup.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace tpuc::backend {

bool canConcatInPlace(const Graph &g, int concatOp) {
  const Op &op = g.ops[concatOp];
  if (op.kind != OpKind::Concat)
    return false;
  // A weight operand lives in the coefficient area: the concat copies it, so it is never in place.
  if (!op.weights.empty())
    return false;
  const Value &res = g.values[op.outputs[0]];
  for (int64_t d = 0; d < op.axis; ++d)
    if (res.shape[d] != 1)
      return false;
  std::set<int> seen;
  for (int v : op.inputs) {
    const Value &in = g.values[v];
    if (!seen.insert(v).second || in.producer < 0 || g.isOutput(v))
      return false;
    OpKind pk = g.ops[in.producer].kind;
    // A control marker's result (a loop slot, an If result) keeps storage of its own: copies write it.
    if (pk == OpKind::Reshape || pk == OpKind::Concat || g.ops[in.producer].control != Control::None)
      return false;
    for (int u : in.users)
      if (u != concatOp && g.ops[u].kind == OpKind::Concat)
        return false;
  }
  return true;
}

bool isInPlace(const Graph &g, int op) {
  return g.ops[op].kind == OpKind::Reshape || canConcatInPlace(g, op);
}

namespace {

/// The box axis (NCHW index) of the last dimension of `v`, for ranks up to 4.
int lastBoxAxis(const Value &v) { return static_cast<int>(std::clamp<size_t>(v.shape.size(), 1, 4)) - 1; }

} // namespace

std::vector<Range> columnTiles(const ChipProfile &chip, const Graph &g, const Op &op, const Box &out) {
  const Value &res = g.values[op.outputs[0]];
  const int last = lastBoxAxis(res);
  const Range cols = out.dims[last];
  if (op.kind != OpKind::MatMul || op.weights.empty() || res.shape.size() > 4 || cols.size() <= chip.lanes)
    return {cols};
  const Value &w = g.values[op.weights[0]];
  const int64_t load = weightBoxDmaCycles(chip, w, fullBox(w));
  const int64_t compute = tiuCost(chip, g, op, out).cycles;
  const double ideal = std::sqrt(static_cast<double>(std::min(load, compute)) /
                                 static_cast<double>(std::max<int64_t>(1, chip.gdmaLatencyCycles)));
  const int64_t most = ceilDiv(cols.size(), chip.lanes);
  const int64_t tiles = std::clamp<int64_t>(std::llround(ideal), 1, most);
  const int64_t width = chip.lanes * ceilDiv(ceilDiv(cols.size(), tiles), chip.lanes);
  std::vector<Range> ranges;
  for (int64_t c = cols.begin; c < cols.end; c += width)
    ranges.push_back({c, std::min(cols.end, c + width)});
  return ranges;
}

Box columnTileWeight(const Graph &g, const Op &op, int w, const Range &cols) {
  const Value &val = g.values[w];
  Box b = fullBox(val);
  const int64_t n = g.values[op.outputs[0]].shape.back();
  if (op.kind != OpKind::MatMul)
    return b;
  if (w == op.weights[0] && val.shape.size() == 2) {
    const int axis = op.weightColumnsFirst ? 0 : 1;
    if (val.dim(axis) == n)
      b.dims[axis] = cols;
    return b;
  }
  const int last = lastBoxAxis(val);
  if (val.shape.size() <= 4 && val.elements() == n && val.dim(last) == n)
    b.dims[last] = cols;
  return b;
}

Box columnTileOutput(const Graph &g, const Op &op, const Box &out, const Range &cols) {
  Box b = out;
  b.dims[lastBoxAxis(g.values[op.outputs[0]])] = cols;
  return b;
}

int64_t weightBoxDmaCycles(const ChipProfile &chip, const Value &w, const Box &b) {
  const int64_t bytes = b.elements() * dtypeBytes(w.dtype);
  return dmaCycles(chip, bytes, ddrRunBytes(w, b));
}

std::vector<std::vector<std::pair<int, Box>>> residentWeightLoads(const Graph &g, const Op &op,
                                                                  const std::vector<Range> &tiles,
                                                                  const std::vector<int> &weights,
                                                                  const std::map<int, Box> &whole) {
  std::vector<std::vector<std::pair<int, Box>>> loads(tiles.size());
  for (size_t j = 0; j < tiles.size(); ++j)
    for (int w : weights) {
      const Box &all = whole.at(w);
      Box box = tiles.size() > 1 ? columnTileWeight(g, op, w, tiles[j]) : all;
      if (j == 0 || box != all)
        loads[j].emplace_back(w, box);
    }
  return loads;
}

int residentWeightStage(const Graph &g, const std::vector<int> &ops, bool streamed, int64_t firstUse) {
  if (firstUse != 0)
    return 1;
  return streamed && g.ops[ops[0]].kind == OpKind::MatMul ? 1 : 0;
}

namespace {

/// How operand `v` of global op `op` follows a split of its result along `axis`: 1 cut the same way,
/// 0 read whole, -1 the op cannot be split so.
int followsSplit(const Graph &g, const Op &op, int v, bool lhs, int axis) {
  const Value &res = g.values[op.outputs[0]], &val = g.values[v];
  const size_t rank = res.shape.size();
  if (op.kind == OpKind::Conv)
    return lhs ? 1 : 0; // cut along N: the filters and the bias are read whole
  if (isRowNorm(op.kind) && !lhs)
    return 0; // gamma and beta run along the last axis, never cut: read whole
  if (op.kind == OpKind::MatMul && !lhs) {
    // The right-hand side and the bias: a batch dimension of the same rank follows the result, a
    // lower-rank operand broadcasts over the batch.
    if (val.shape.size() != rank)
      return 0;
  }
  if (val.shape.size() != rank)
    return -1;
  return val.dim(axis) == res.dim(axis) ? 1 : val.dim(axis) == 1 ? 0 : -1;
}

} // namespace

int globalSplitAxis(const Graph &g, int o, int cores) {
  if (cores < 2 || isInPlace(g, o))
    return -1;
  const Op &op = g.ops[o];
  if (op.outputs.size() != 1 || op.inputs.empty())
    return -1;
  const Value &res = g.values[op.outputs[0]];
  const int rank = static_cast<int>(res.shape.size());
  if (rank == 0 || rank > 4)
    return -1;
  std::vector<int> axes;
  switch (op.kind) {
  case OpKind::GlobalPool:
  case OpKind::Pool:
  case OpKind::Eltwise:
  case OpKind::Unary:
    axes = {0, 1}; // images and channels are independent
    break;
  case OpKind::Conv:
    axes = {0}; // a full conv reads every input channel: images only
    break;
  case OpKind::LayerNorm:
  case OpKind::RMSNorm:
  case OpKind::Softmax:
    // Rows are independent: any axis but the last (the normalized one).
    if (rank >= 2)
      axes = rank >= 3 ? std::vector<int>{0, 1} : std::vector<int>{0};
    break;
  case OpKind::MatMul:
    // Batch dimensions only: the rows of a transposed left-hand side are not its dimension rank-2, and
    // a per-column requantization must not meet a cut of dimension 1 that happens to match.
    if (rank >= 3)
      axes = {0};
    break;
  default:
    break;
  }
  for (int axis : axes) {
    if (axis >= rank || res.shape[axis] < cores)
      continue;
    bool ok = true;
    for (size_t i = 0; i < op.inputs.size() && ok; ++i)
      ok = followsSplit(g, op, op.inputs[i], i == 0, axis) >= 0;
    for (size_t i = 0; i < op.weights.size() && ok; ++i)
      ok = followsSplit(g, op, op.weights[i], false, axis) >= 0;
    if (ok)
      return axis;
  }
  return -1;
}

std::vector<Box> globalPartBoxes(const Graph &g, const Op &op, int axis, const Range &range) {
  std::vector<Box> boxes;
  auto cut = [&](int v, int follows) {
    Box b = fullBox(g.values[v]);
    if (follows > 0)
      b.dims[axis] = range;
    boxes.push_back(b);
  };
  for (int v : op.outputs)
    cut(v, 1);
  for (size_t i = 0; i < op.inputs.size(); ++i)
    cut(op.inputs[i], followsSplit(g, op, op.inputs[i], i == 0, axis));
  for (int v : op.weights)
    cut(v, followsSplit(g, op, v, false, axis));
  return boxes;
}

LayerGroup planGlobal(const ChipProfile &chip, const Graph &g, int op, int cores) {
  LayerGroup group;
  group.global = true;
  group.ops = {op};
  group.values = classifyValues(g, group.ops);
  const Op &o = g.ops[op];
  GlobalCost c = globalOpCost(chip, g, o, isInPlace(g, op));
  group.cycles = c.cycles;
  group.tiuCycles = c.tiu;
  group.gdmaCycles = c.dma;
  if (!isInPlace(g, op)) {
    for (int v : group.values.inputs)
      group.ddrBytes += g.values[v].bytes();
    for (int v : group.values.weights)
      group.ddrBytes += g.values[v].bytes();
    for (int v : o.outputs)
      group.ddrBytes += g.values[v].bytes();
  }
  int axis = o.control == Control::None ? globalSplitAxis(g, op, cores) : -1; // markers run on core 0
  if (axis < 0)
    return group;
  // One part per core, run at the same time: each core's engines are its own, the DDR bandwidth is
  // shared, and a barrier follows.
  const int64_t extent = g.values[o.outputs[0]].dim(axis);
  const int used = static_cast<int>(std::min<int64_t>(cores, extent));
  int64_t slowest = 0, transfers = 0;
  group.tiuCycles = group.gdmaCycles = group.ddrBytes = 0;
  for (int k = 0; k < used; ++k) {
    GlobalPart part{k, axis, splitRange(extent, used, k)};
    std::vector<Box> boxes = globalPartBoxes(g, o, axis, part.range);
    GlobalCost pc = globalPartCost(chip, g, o, boxes);
    slowest = std::max(slowest, pc.cycles);
    transfers += pc.transfer;
    group.tiuCycles += pc.tiu;
    group.gdmaCycles += pc.dma;
    size_t b = 0;
    for (const auto *list : {&o.outputs, &o.inputs, &o.weights})
      for (int v : *list)
        group.ddrBytes += boxes[b++].elements() * dtypeBytes(g.values[v].dtype);
    group.parts.push_back(part);
  }
  group.cores = used;
  group.syncCycles = chip.syncCycles;
  group.cycles = std::max(slowest, transfers + chip.gdmaLatencyCycles + chip.tiuCommandCycles) + group.syncCycles;
  return group;
}

namespace {

/// Bytes per lane of `box` of activation `v`: channels start at lane
/// c.begin % lanes.
int64_t boxBytes(const ChipProfile &chip, const Value &v, const Box &b) {
  int64_t c = b.c().begin % chip.lanes + b.c().size();
  return activationBytesPerLane(chip, b.n().size(), c, b.h().size(), b.w().size(), v.dtype);
}

/// Bytes per lane a row normalization keeps behind its result's box `b` for the per-row statistics it
/// computes on the way, in f32 (layernorm: mean and reciprocal root; softmax: max and sum; RMS norm: the
/// reciprocal root): the box with its last axis holding those values. 0 for other ops' results.
int64_t statsBytes(const ChipProfile &chip, const Graph &g, int v, const Box &b) {
  const Value &val = g.values[v];
  if (val.producer < 0 || !isRowNorm(g.ops[val.producer].kind))
    return 0;
  const int64_t perRow = g.ops[val.producer].kind == OpKind::RMSNorm ? 1 : 2;
  const int last = static_cast<int>(std::clamp<size_t>(val.shape.size(), 1, 4)) - 1;
  Box stats = b;
  stats.dims[last] = {0, perRow};
  int64_t c = stats.c().begin % chip.lanes + stats.c().size();
  return activationBytesPerLane(chip, stats.n().size(), c, stats.h().size(), stats.w().size(), DType::F32);
}

int64_t weightBytes(const ChipProfile &chip, const Value &w, const Box &b) {
  int64_t oc = b.dims[0].size();
  int64_t per = w.elements() / std::max<int64_t>(1, w.dim(0));
  return weightBytesPerLane(chip, b.dims[0].begin % chip.lanes + oc, per, w.dtype);
}

/// Position in `ops` (ascending) of the first op reading `v`; ops.size()
/// when none does.
int64_t firstUse(const Graph &g, const std::vector<int> &ops, int v) {
  for (int u : g.values[v].users)
    if (auto it = std::lower_bound(ops.begin(), ops.end(), u); it != ops.end() && *it == u)
      return it - ops.begin();
  return static_cast<int64_t>(ops.size());
}

/// The slices of `ops` cut by `spec` and the LMEM rectangles of every
/// buffer (not placed, no cycles); nullopt when `spec` cannot cut the
/// outputs. What the slicing search and diagnoseGroup measure.
std::optional<LayerGroup> buildRects(const ChipProfile &chip, const Graph &g, const std::vector<int> &ops,
                                     const SliceSpec &spec) {
  LayerGroup group;
  group.ops = ops;
  group.spec = spec;
  group.values = classifyValues(g, ops);
  SlicePlan sp = propagateSlices(g, ops, group.values, spec);
  if (!sp.error.empty())
    return std::nullopt;
  group.slices = std::move(sp.slices);

  const int64_t L = static_cast<int64_t>(ops.size());
  const int64_t S = static_cast<int64_t>(group.slices.size());
  group.unitsPerStage = L;
  std::map<int, int64_t> local; // op -> position in the group
  for (int64_t k = 0; k < L; ++k)
    local[ops[k]] = k;
  auto lastUse = [&](int v) {
    int64_t last = -1;
    for (int u : g.values[v].users)
      if (auto it = local.find(u); it != local.end())
        last = std::max(last, it->second);
    return last;
  };
  const bool perSlice = weightsPerSlice(g, ops, spec);

  std::vector<LmemRect> &rects = group.rects;
  auto addRect = [&](int value, int64_t slice, BufferKind kind, int64_t t0, int64_t t1, int64_t size) {
    LmemRect r;
    r.value = value;
    r.slice = static_cast<int>(slice);
    r.kind = kind;
    r.tStart = t0;
    r.tEnd = t1;
    r.size = size;
    rects.push_back(r);
  };
  // Resident weights load just before their op first runs: the first op's
  // in stage 0, op k's in stage 1 while ops 0..k-1 compute slice 0 (unit
  // k-1); a row group's (streamed) from the start of stage 1. They stay
  // until the op's last slice.
  const bool streamed = !perSlice && cutRule(g, ops).rowsOnly;
  if (!perSlice)
    for (int w : group.values.weights) {
      int64_t k = firstUse(g, ops, w);
      const int64_t start = k == 0 ? 0 : streamed ? L : L + k - 1;
      addRect(w, -1, BufferKind::Weight, start, S * L + lastUse(w) + 1,
              weightBytes(chip, g.values[w], group.slices[0].weight.at(w)));
    }
  for (int64_t i = 0; i < S; ++i) {
    const SliceBoxes &s = group.slices[i];
    for (int v : group.values.inputs)
      addRect(v, i, BufferKind::Input, i * L, (i + 1) * L + lastUse(v) + 1,
              boxBytes(chip, g.values[v], s.value.at(v)));
    if (perSlice)
      for (int w : group.values.weights) {
        int64_t user = lastUse(w);
        addRect(w, i, BufferKind::Weight, i * L, (i + 1) * L + user + 1,
                weightBytes(chip, g.values[w], s.weight.at(w)));
      }
    for (int v : group.values.intermediates) {
      int64_t p = local.at(g.values[v].producer);
      addRect(v, i, BufferKind::Intermediate, (i + 1) * L + p, (i + 1) * L + lastUse(v) + 1,
              boxBytes(chip, g.values[v], s.value.at(v)) + statsBytes(chip, g, v, s.value.at(v)));
    }
    for (int v : group.values.outputs) {
      int64_t p = local.at(g.values[v].producer);
      addRect(v, i, BufferKind::Output, (i + 1) * L + p, (i + 3) * L,
              boxBytes(chip, g.values[v], s.value.at(v)) + statsBytes(chip, g, v, s.value.at(v)));
    }
  }
  return group;
}

/// The engines' work of each slice of a group, from which every core's pipeline stages follow.
struct SliceWork {
  std::vector<int64_t> load, store, tiu;   ///< Per slice: GDMA cycles of its loads, stores; TIU cycles.
  std::vector<int64_t> loadXfer, storeXfer; ///< Of those GDMA cycles, the transfers (no latencies).
  int64_t weights[2] = {0, 0}, weightsXfer[2] = {0, 0}; ///< Resident weights loaded in stage 0, stage 1.
  /// A row group prices its stage 1 as codegen orders it (`rowChain`): per op of the first slice its TIU
  /// commands (a streamed matmul's column tiles) and the loads of the resident weights it reads first in
  /// stage 1 (one per tile of a streamed matmul). Empty for other groups.
  std::vector<std::vector<int64_t>> opTiu, opLoads;
  /// The tiled TIU cycles of each slice when it is the first its core computes (stage 1).
  std::vector<int64_t> firstTiu;
};

/// Stage 1 of a row group as the command streams run it: the GDMA loads slice 1's inputs (`inputs`),
/// then op by op the resident weights it reads first, back to back (their LMEM is free from the stage's
/// start); each TIU command of op k runs once op k's previous command (or op k-1's last) has and its
/// part of the weights is in (a streamed matmul's tile j waits for load j). Large matmul weights make
/// this a chain the overlap of the totals hides.
int64_t rowChain(const SliceWork &w, int64_t inputs) {
  const size_t L = w.opTiu.size();
  std::vector<int64_t> tiuEnd(L, 0);
  int64_t gdma = inputs;
  for (size_t k = 0; k < L; ++k) {
    const std::vector<int64_t> &loads = w.opLoads[k], &tiu = w.opTiu[k];
    std::vector<int64_t> ready;
    if (!loads.empty()) {
      for (int64_t c : loads)
        ready.push_back(gdma += c);
    }
    int64_t t = k >= 1 ? tiuEnd[k - 1] : 0;
    for (size_t j = 0; j < tiu.size(); ++j) {
      int64_t in = ready.empty() ? 0 : ready.size() == tiu.size() ? ready[j] : ready.back();
      t = std::max(t, in) + tiu[j];
    }
    tiuEnd[k] = t;
  }
  return std::max(L ? tiuEnd[L - 1] : 0, gdma);
}

/// The pipeline of slices [first, first + count) on `core`: stage t loads slice first+t, computes
/// first+t-1, stores first+t-2; resident weights in stages 0 and 1. `xfer[t]` receives each stage's
/// GDMA transfer cycles.
std::vector<TimeStep> corePipeline(const ChipProfile &chip, const SliceWork &w, int core, int64_t first,
                                   int64_t count, std::vector<int64_t> &xfer) {
  std::vector<TimeStep> steps;
  xfer.assign(static_cast<size_t>(count + 2), 0);
  for (int64_t t = 0; t < count + 2; ++t) {
    TimeStep st;
    st.core = core;
    st.stage = static_cast<int>(t);
    if (t < count) {
      st.loadSlice = static_cast<int>(first + t);
      st.gdmaCycles += w.load[first + t];
      xfer[t] += w.loadXfer[first + t];
    }
    if (t < 2 && w.weights[t]) {
      st.loadsWeights = true;
      st.gdmaCycles += w.weights[t];
      xfer[t] += w.weightsXfer[t];
    }
    if (t >= 1 && t <= count) {
      st.computeSlice = static_cast<int>(first + t - 1);
      st.tiuCycles = t == 1 && !w.firstTiu.empty() ? w.firstTiu[first] : w.tiu[first + t - 1];
    }
    if (t >= 2) {
      st.storeSlice = static_cast<int>(first + t - 2);
      st.gdmaCycles += w.store[first + t - 2];
      xfer[t] += w.storeXfer[first + t - 2];
    }
    st.cycles = overlappedCycles(chip, st.tiuCycles, st.gdmaCycles);
    if (t == 1 && !w.opTiu.empty())
      st.cycles = std::max(st.cycles, rowChain(w, count > 1 ? w.load[first + 1] : 0));
    steps.push_back(st);
  }
  return steps;
}

/// Spreads the group's slices over `cores` cores in balanced contiguous runs: each core's stages, its
/// LMEM rects (the one-core rects of its slices in its own time units; resident weights on every core)
/// and the estimate: stage t of every core runs at once, so it takes the slowest core (its TIU and
/// GDMA side by side, overlappedCycles) or all cores' transfers through the one DDR, whichever is
/// longest; then the barrier.
void spreadOverCores(const ChipProfile &chip, LayerGroup &group, const SliceWork &w, int cores) {
  const int64_t S = static_cast<int64_t>(group.slices.size()), L = group.unitsPerStage;
  const int used = static_cast<int>(std::min<int64_t>(cores, S));
  std::vector<LmemRect> rects;
  std::vector<std::vector<TimeStep>> perCore;
  std::vector<std::vector<int64_t>> xfers;
  group.sliceCore.assign(static_cast<size_t>(S), 0);
  for (int k = 0; k < used; ++k) {
    Range mine = splitRange(S, used, k);
    for (int64_t i = mine.begin; i < mine.end; ++i)
      group.sliceCore[i] = k;
    std::vector<int64_t> xfer;
    perCore.push_back(corePipeline(chip, w, k, mine.begin, mine.size(), xfer));
    xfers.push_back(std::move(xfer));
    for (LmemRect r : group.rects) {
      r.core = k;
      if (r.slice < 0) {
        r.tEnd -= (S - mine.size()) * L; // resident until the core's last slice
      } else {
        if (r.slice < mine.begin || r.slice >= mine.end)
          continue;
        r.tStart -= mine.begin * L;
        r.tEnd -= mine.begin * L;
      }
      rects.push_back(r);
    }
  }
  group.rects = std::move(rects);
  group.cores = used;
  group.steps.clear();
  group.cycles = group.tiuCycles = group.gdmaCycles = 0;
  size_t stages = 0;
  for (const auto &steps : perCore)
    stages = std::max(stages, steps.size());
  for (size_t t = 0; t < stages; ++t) {
    int64_t slowest = 0, ddr = 0;
    for (int k = 0; k < used; ++k)
      if (t < perCore[k].size()) {
        slowest = std::max(slowest, perCore[k][t].cycles); // its engines side by side
        ddr += xfers[k][t];
      }
    group.cycles += std::max(slowest, ddr);
  }
  for (auto &steps : perCore)
    for (const TimeStep &st : steps) {
      group.tiuCycles += st.tiuCycles;
      group.gdmaCycles += st.gdmaCycles;
      group.steps.push_back(st);
    }
  int64_t peak = 0;
  for (const LmemRect &r : group.rects)
    peak = std::max(peak, r.addr + r.size);
  group.lmem.peakBytes = peak;
  group.lmem.lowerBound = lmemLowerBound(group.rects);
  if (used > 1) {
    group.syncCycles = chip.syncCycles;
    group.cycles += group.syncCycles;
  }
}

/// Builds the group for `spec`. Without `allocate` it stops once the
/// rectangles exist and their lower bound fits (the cheap test the slicing
/// search bisects with).
std::optional<LayerGroup> buildGroup(const ChipProfile &chip, const Graph &g, const std::vector<int> &ops,
                                     const SliceSpec &spec, bool allocate, int cores = 1) {
  std::optional<LayerGroup> built = buildRects(chip, g, ops, spec);
  if (!built)
    return std::nullopt;
  LayerGroup &group = *built;
  std::vector<LmemRect> &rects = group.rects;
  const int64_t S = static_cast<int64_t>(group.slices.size());
  const bool perSlice = weightsPerSlice(g, ops, spec);
  if (lmemLowerBound(rects) > chip.lmemBytesPerLane)
    return std::nullopt;
  if (!allocate)
    return built;
  // An op should not read and write the same bank.
  std::map<std::pair<int64_t, int>, int> rectOf; // (slice, value) -> rect
  for (size_t k = 0; k < rects.size(); ++k)
    rectOf[{rects[k].slice, rects[k].value}] = static_cast<int>(k);
  std::vector<std::pair<int, int>> avoid;
  for (int64_t i = 0; i < S; ++i)
    for (int o : ops) {
      const Op &op = g.ops[o];
      int out = rectOf.at({i, op.outputs[0]});
      for (int v : op.inputs)
        avoid.emplace_back(out, rectOf.at({i, v}));
    }
  group.lmem = allocateLmem(chip, rects, avoid);
  if (!group.lmem.ok)
    return std::nullopt;

  // Pipeline stages and their cycles.
  SliceWork w;
  w.load.assign(S, 0);
  w.store.assign(S, 0);
  w.tiu.assign(S, 0);
  w.loadXfer.assign(S, 0);
  w.storeXfer.assign(S, 0);
  for (int64_t i = 0; i < S; ++i) {
    const SliceBoxes &s = group.slices[i];
    for (int v : group.values.inputs) {
      const Box &b = s.value.at(v);
      int64_t c = dmaBoxCycles(chip, g.values[v], b);
      w.load[i] += c;
      w.loadXfer[i] += c ? c - chip.gdmaLatencyCycles : 0;
      group.ddrBytes += b.elements() * dtypeBytes(g.values[v].dtype);
    }
    if (perSlice)
      for (int wv : group.values.weights) {
        const Box &b = s.weight.at(wv);
        int64_t c = weightBoxDmaCycles(chip, g.values[wv], b);
        w.load[i] += c;
        w.loadXfer[i] += c ? c - chip.gdmaLatencyCycles : 0;
        group.ddrBytes += b.elements() * dtypeBytes(g.values[wv].dtype);
      }
    for (int v : group.values.outputs) {
      const Box &b = s.store.at(v);
      int64_t c = dmaBoxCycles(chip, g.values[v], b);
      w.store[i] += c;
      w.storeXfer[i] += c ? c - chip.gdmaLatencyCycles : 0;
      group.ddrBytes += b.elements() * dtypeBytes(g.values[v].dtype);
    }
    for (int o : ops)
      w.tiu[i] += tiuCost(chip, g, g.ops[o], s.value.at(g.ops[o].outputs[0])).cycles;
  }
  // Resident weights, loaded once per core that runs slices (below), each with the op that reads it
  // first: in stage 0 or 1 (residentWeightStage); a streamed matmul's (a row group's) in column tiles,
  // a weight that does not run along the columns with the first tile.
  const bool streamed = !perSlice && cutRule(g, ops).rowsOnly;
  std::set<int> resident;
  if (!perSlice)
    resident.insert(group.values.weights.begin(), group.values.weights.end());
  const SliceBoxes &first = group.slices[0];
  std::vector<std::vector<Range>> opTiles; // per op, the column tiles of its first slice
  for (size_t k = 0; k < ops.size(); ++k) {
    const Op &op = g.ops[ops[k]];
    opTiles.push_back(streamed ? columnTiles(chip, g, op, first.value.at(op.outputs[0]))
                               : std::vector<Range>(1));
    const std::vector<Range> &tiles = opTiles.back();
    const int stage = residentWeightStage(g, ops, streamed, static_cast<int64_t>(k));
    std::vector<int> mine;
    for (int wv : op.weights)
      if (resident.count(wv) && firstUse(g, ops, wv) == static_cast<int64_t>(k))
        mine.push_back(wv);
    std::vector<int64_t> loads(tiles.size(), 0);
    const auto perTile = residentWeightLoads(g, op, tiles, mine, first.weight);
    for (size_t j = 0; j < tiles.size(); ++j)
      for (const auto &[wv, b] : perTile[j]) {
        int64_t c = weightBoxDmaCycles(chip, g.values[wv], b);
        loads[j] += c;
        w.weights[stage] += c;
        w.weightsXfer[stage] += c ? c - chip.gdmaLatencyCycles : 0;
        group.ddrBytes += b.elements() * dtypeBytes(g.values[wv].dtype);
      }
    if (!streamed)
      continue;
    w.opLoads.push_back(stage == 1 && std::any_of(loads.begin(), loads.end(), [](int64_t c) { return c > 0; })
                            ? loads
                            : std::vector<int64_t>{});
    std::vector<int64_t> tiu;
    for (const Range &cols : tiles)
      tiu.push_back(
          tiuCost(chip, g, op, columnTileOutput(g, op, first.value.at(op.outputs[0]), cols)).cycles);
    w.opTiu.push_back(std::move(tiu));
  }
  if (streamed) {
    // The first slice a core computes runs its matmuls in column tiles (those of slice 0: a row group
    // never cuts the columns).
    w.firstTiu.assign(S, 0);
    for (int64_t i = 0; i < S; ++i)
      for (size_t k = 0; k < ops.size(); ++k) {
        const Op &op = g.ops[ops[k]];
        const Box &out = group.slices[i].value.at(op.outputs[0]);
        for (const Range &cols : opTiles[k])
          w.firstTiu[i] += tiuCost(chip, g, op, columnTileOutput(g, op, out, cols)).cycles;
      }
  }
  if (cores > 1 && S > 1) {
    // Every core loads the resident weights into its own LMEM.
    int64_t residentBytes = 0;
    if (!perSlice)
      for (int wv : group.values.weights) {
        int64_t per = g.values[wv].elements() / std::max<int64_t>(1, g.values[wv].dim(0));
        residentBytes += group.slices[0].weight.at(wv).dims[0].size() * per * dtypeBytes(g.values[wv].dtype);
      }
    group.ddrBytes += residentBytes * (std::min<int64_t>(cores, S) - 1);
    spreadOverCores(chip, group, w, cores);
    return built;
  }
  std::vector<int64_t> xfer;
  group.sliceCore.assign(static_cast<size_t>(S), 0);
  group.steps = corePipeline(chip, w, 0, 0, S, xfer);
  for (const TimeStep &st : group.steps) {
    group.cycles += st.cycles;
    group.tiuCycles += st.tiuCycles;
    group.gdmaCycles += st.gdmaCycles;
  }
  return built;
}

/// Resident weight bytes per lane of `ops` when C is not cut.
int64_t residentWeightBytes(const ChipProfile &chip, const Graph &g, const std::vector<int> &ops) {
  int64_t total = 0;
  for (int o : ops)
    for (int w : g.ops[o].weights)
      total += weightBytes(chip, g.values[w], fullBox(g.values[w]));
  return total;
}

/// What planGroup searches for `ops`: the most pieces each dimension of the
/// outputs can be cut into, and the (c, w) cuts it tries in order. C and W
/// are cut only for a single op (in a chain they would recompute the
/// producers of every full conv per slice), and C only first when the
/// weights alone do not fit; none for a chain whose weights do not fit.
struct SliceSearch {
  int64_t maxN = INT64_MAX, maxC = INT64_MAX, maxH = INT64_MAX, maxW = INT64_MAX;
  std::vector<std::pair<int64_t, int64_t>> cw;
  CutRule rule;
  /// The most pieces the axis cut after N can take (1 when the rule has none).
  int64_t maxAxis = 1;
};

SliceSearch sliceSearch(const ChipProfile &chip, const Graph &g, const std::vector<int> &ops) {
  SliceSearch s;
  for (int v : classifyValues(g, ops).outputs) {
    s.maxN = std::min(s.maxN, g.values[v].dim(0));
    s.maxC = std::min(s.maxC, g.values[v].dim(1));
    s.maxH = std::min(s.maxH, g.values[v].dim(2));
    s.maxW = std::min(s.maxW, g.values[v].dim(3));
  }
  s.rule = cutRule(g, ops);
  const int64_t maxOf[4] = {s.maxN, s.maxC, s.maxH, s.maxW};
  s.maxAxis = s.rule.axis >= 0 ? maxOf[s.rule.axis] : 1;
  if (s.rule.rowsOnly) {
    // Rows only: the weights stay whole and resident (a matmul reads every column for each row).
    if (s.rule.ok && residentWeightBytes(chip, g, ops) < chip.lmemBytesPerLane)
      s.cw.emplace_back(1, 1);
    return s;
  }
  bool single = ops.size() == 1;
  if (residentWeightBytes(chip, g, ops) < chip.lmemBytesPerLane)
    s.cw.emplace_back(1, 1);
  else if (!single)
    return s;
  if (single) {
    // Finer than one channel per lane saves no lane memory.
    for (int64_t c = 2; c <= std::min(s.maxC, 2 * ceilDiv(s.maxC, chip.lanes)); c *= 2)
      s.cw.emplace_back(c, 1);
    for (int64_t w = 2; w <= s.maxW; w *= 2)
      s.cw.emplace_back(1, w);
  }
  return s;
}

/// Sorts by decreasing size, keeping the order of equal sizes.
void largestFirst(std::vector<LmemRect> &rects) {
  std::vector<size_t> order(rects.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return rects[a].size != rects[b].size ? rects[a].size > rects[b].size : a < b;
  });
  std::vector<LmemRect> sorted;
  sorted.reserve(rects.size());
  for (size_t i : order)
    sorted.push_back(rects[i]);
  rects = std::move(sorted);
}

/// The first time unit at which the most bytes are live, and that amount.
std::pair<int64_t, int64_t> worstUnit(const std::vector<LmemRect> &rects) {
  int64_t units = 0;
  for (const LmemRect &r : rects)
    units = std::max(units, r.tEnd);
  std::vector<int64_t> delta(static_cast<size_t>(units) + 1, 0);
  for (const LmemRect &r : rects) {
    delta[r.tStart] += r.size;
    delta[r.tEnd] -= r.size;
  }
  int64_t live = 0, best = -1, at = 0;
  for (int64_t t = 0; t < units; ++t) {
    live += delta[t];
    if (live > best) {
      best = live;
      at = t;
    }
  }
  return {at, std::max<int64_t>(best, 0)};
}

} // namespace

const char *groupObstacleName(GroupObstacle o) {
  switch (o) {
  case GroupObstacle::None:
    return "none";
  case GroupObstacle::NotGroupable:
    return "not_groupable";
  case GroupObstacle::Weights:
    return "weights";
  case GroupObstacle::Lmem:
    return "lmem";
  case GroupObstacle::Halo:
    return "halo";
  case GroupObstacle::Placement:
    return "placement";
  }
  return "?";
}

GroupDiagnosis diagnoseGroup(const ChipProfile &chip, const Graph &g, const std::vector<int> &ops) {
  GroupDiagnosis d;
  d.capacity = chip.lmemBytesPerLane;
  for (int o : ops)
    if (!g.isGroupable(o)) {
      d.obstacle = GroupObstacle::NotGroupable;
      d.op = o;
      return d;
    }
  SliceSearch search = sliceSearch(chip, g, ops);
  if (search.cw.empty()) {
    d.obstacle = GroupObstacle::Weights;
    d.needed = residentWeightBytes(chip, g, ops);
    for (int o : ops)
      for (int w : g.ops[o].weights) {
        LmemRect r;
        r.value = w;
        r.kind = BufferKind::Weight;
        r.size = weightBytes(chip, g.values[w], fullBox(g.values[w]));
        d.live.push_back(r);
      }
    largestFirst(d.live);
    return d;
  }
  // The finest slicing of each (c, w) pair the search tries; the one whose
  // lower bound comes closest to fitting speaks for all.
  std::optional<LayerGroup> best;
  int64_t bestBound = INT64_MAX;
  for (auto [c, w] : search.cw) {
    SliceSpec spec{search.maxN, c, 1, w};
    if (search.rule.axis >= 0)
      cutAlong(spec, search.rule.axis) = search.maxAxis;
    std::optional<LayerGroup> built = buildRects(chip, g, ops, spec);
    if (!built) {
      if (!best && d.detail.empty()) {
        d.spec = spec;
        d.detail = propagateSlices(g, ops, classifyValues(g, ops), spec).error;
      }
      continue;
    }
    int64_t bound = lmemLowerBound(built->rects);
    if (bound < bestBound) {
      bestBound = bound;
      best = std::move(built);
    }
  }
  if (!best) {
    d.obstacle = GroupObstacle::Halo;
    return d;
  }
  d.detail.clear();
  d.spec = best->spec;
  for (int v : best->values.outputs)
    if (d.hLimit < 0 || g.values[v].dim(2) < g.values[d.hLimit].dim(2))
      d.hLimit = v;
  d.unitsPerStage = best->unitsPerStage;
  auto [unit, live] = worstUnit(best->rects);
  d.timeUnit = unit;
  d.needed = live;
  const int64_t L = best->unitsPerStage, S = static_cast<int64_t>(best->slices.size());
  d.unitOp = ops[unit % L];
  int64_t stage = unit / L;
  d.computeSlice = stage >= 1 && stage <= S ? static_cast<int>(stage - 1) : -1;
  for (const LmemRect &r : best->rects)
    if (r.tStart <= unit && unit < r.tEnd)
      d.live.push_back(r);
  largestFirst(d.live);
  if (live <= chip.lmemBytesPerLane) {
    d.obstacle = GroupObstacle::Placement;
    return d;
  }
  // Would it fit if every activation buffer held a single row? Then rows
  // per slice are what overflow: the H cut cannot go finer than the
  // outputs' rows, or the halos are larger than the slices.
  std::vector<LmemRect> oneRow = best->rects;
  for (LmemRect &r : oneRow) {
    if (r.kind == BufferKind::Weight)
      continue;
    const Box &b = best->slices[r.slice].value.at(r.value);
    int64_t c = b.c().begin % chip.lanes + b.c().size();
    r.size = activationBytesPerLane(chip, b.n().size(), c, 1, b.w().size(), g.values[r.value].dtype);
  }
  // A row group has no halo: its finest cut holds its fewest rows.
  d.obstacle = !search.rule.rowsOnly && lmemLowerBound(oneRow) <= chip.lmemBytesPerLane ? GroupObstacle::Halo
                                                                                        : GroupObstacle::Lmem;
  if (d.obstacle == GroupObstacle::Halo) {
    // The live activation holding the most rows per slice, against the rows
    // of its own tensor a slice would hold without halo.
    const LmemRect *tallest = nullptr;
    int64_t rows = 0;
    for (const LmemRect &r : d.live)
      if (r.kind != BufferKind::Weight) {
        int64_t h = best->slices[r.slice].value.at(r.value).h().size();
        if (h > rows) {
          rows = h;
          tallest = &r;
        }
      }
    if (tallest) {
      const Value &v = g.values[tallest->value];
      int64_t own = ceilDiv(v.dim(2), d.spec.h);
      d.detail = "'" + v.name + "' still holds " + std::to_string(rows) + " rows per slice";
      if (rows > 2 * own)
        d.detail += " (" + std::to_string(own) + " of its own, " + std::to_string(rows - own) + " of halo)";
    }
  }
  return d;
}

std::optional<LayerGroup> planGroupWithSpec(const ChipProfile &chip, const Graph &g,
                                            const std::vector<int> &ops, const SliceSpec &spec, int cores) {
  return buildGroup(chip, g, ops, spec, /*allocate=*/true, cores);
}

std::optional<LayerGroup> planGroup(const ChipProfile &chip, const Graph &g, const std::vector<int> &ops,
                                    const GroupOptions &options) {
  for (int o : ops)
    if (!g.isGroupable(o))
      return std::nullopt;
  SliceSearch search = sliceSearch(chip, g, ops);
  const int64_t maxN = search.maxN;
  // The axis cut after N (H for a conv chain, the row axis before the last for a row group) and its
  // most pieces; a rank-2 row group cuts N only.
  const int axis = search.rule.axis;
  const int64_t maxA = search.maxAxis;
  const int cores = std::max(1, options.cores);
  auto tryPlan = [&](const SliceSpec &spec) { return buildGroup(chip, g, ops, spec, /*allocate=*/true, cores); };
  auto boundFits = [&](const SliceSpec &spec) {
    return buildGroup(chip, g, ops, spec, /*allocate=*/false).has_value();
  };
  std::optional<LayerGroup> best;
  for (auto [c, w] : search.cw) {
    // N first: the smallest n cut that fits with H whole, else n whole and
    // the smallest H cut whose lower bound fits (bisection: the working
    // set shrinks with the cut up to halo and alignment noise), then a few
    // finer cuts when placement fails. A row group (no halo) bisects N too.
    SliceSpec base;
    base.c = c;
    base.w = w;
    if (search.rule.rowsOnly) {
      base.n = maxN;
      if (boundFits(base)) {
        int64_t lo = 0, hi = maxN;
        while (hi - lo > 1) {
          int64_t mid = (lo + hi) / 2;
          base.n = mid;
          (boundFits(base) ? hi : lo) = mid;
        }
        for (int64_t n = hi; n <= maxN && n < hi + 4 && !best; ++n) {
          base.n = n;
          best = tryPlan(base);
        }
      }
    } else {
      for (int64_t n = 1; n <= maxN && !best; ++n) {
        base.n = n;
        base.h = 1;
        if (boundFits(base))
          best = tryPlan(base);
      }
    }
    if (!best && axis >= 0) {
      base.n = maxN;
      cutAlong(base, axis) = maxA;
      if (!boundFits(base))
        continue;
      int64_t lo = 0, hi = maxA; // hi fits
      while (hi - lo > 1) {
        int64_t mid = (lo + hi) / 2;
        cutAlong(base, axis) = mid;
        (boundFits(base) ? hi : lo) = mid;
      }
      for (int64_t h = hi; h <= maxA && h < hi + 4 && !best; ++h) {
        cutAlong(base, axis) = h;
        best = tryPlan(base);
      }
      if (!best) {
        cutAlong(base, axis) = maxA;
        best = tryPlan(base);
      }
    }
    if (best)
      break;
  }
  if (!best)
    return std::nullopt;
  // Finer H cuts pipeline better but cost halos and command latency. A row group refines the row axis
  // that has rows ([M, 1, K] tensors keep their rows in N).
  const SliceSpec found = best->spec;
  SliceSpec spec = found;
  const bool refineN = search.rule.rowsOnly && maxA <= 1;
  const int fine = refineN ? 0 : axis;
  const int64_t maxFine = refineN ? maxN : maxA;
  for (int k = 0; k < options.extraSliceTries && fine >= 0; ++k) {
    cutAlong(spec, fine) *= 2;
    if (cutAlong(spec, fine) > maxFine)
      break;
    if (auto alt = tryPlan(spec); alt && alt->cycles < best->cycles)
      best = std::move(alt);
  }
  // With several cores a group of fewer slices than cores leaves cores idle: also try cutting N (no
  // halo), H, or for a single op C (each core then loads only its output channels' weights), into
  // enough pieces for every core.
  if (cores > 1 && found.count() < cores) {
    int64_t factor = ceilDiv(cores, found.count());
    std::vector<SliceSpec> wider;
    if (found.n * factor <= maxN)
      wider.push_back({found.n * factor, found.c, found.h, found.w});
    if (axis >= 0) {
      SliceSpec alt = found;
      int64_t pieces = cutAlong(alt, axis) * factor;
      cutAlong(alt, axis) = pieces;
      if (pieces <= maxA)
        wider.push_back(alt);
    }
    if (ops.size() == 1 && !search.rule.rowsOnly && found.c * factor <= search.maxC)
      wider.push_back({found.n, found.c * factor, found.h, found.w});
    for (const SliceSpec &alt : wider)
      if (auto plan = tryPlan(alt); plan && plan->cycles < best->cycles)
        best = std::move(plan);
  }
  return best;
}

} // namespace tpuc::backend
