//===- GroupSchedule.cpp - One group: slicing, pipeline stages, LMEM ------===//

#include "tpuc/Backend/LayerGroup.h"

#include <algorithm>
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
    if (pk == OpKind::Reshape || pk == OpKind::Concat)
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

LayerGroup planGlobal(const ChipProfile &chip, const Graph &g, int op) {
  LayerGroup group;
  group.global = true;
  group.ops = {op};
  group.values = classifyValues(g, group.ops);
  GlobalCost c = globalOpCost(chip, g, g.ops[op], isInPlace(g, op));
  group.cycles = c.cycles;
  group.tiuCycles = c.tiu;
  group.gdmaCycles = c.dma;
  if (!isInPlace(g, op)) {
    for (int v : group.values.inputs)
      group.ddrBytes += g.values[v].bytes();
    for (int v : group.values.weights)
      group.ddrBytes += g.values[v].bytes();
    for (int v : g.ops[op].outputs)
      group.ddrBytes += g.values[v].bytes();
  }
  return group;
}

namespace {

/// Bytes per lane of `box` of activation `v`: channels start at lane
/// c.begin % lanes.
int64_t boxBytes(const ChipProfile &chip, const Value &v, const Box &b) {
  int64_t c = b.c().begin % chip.lanes + b.c().size();
  return activationBytesPerLane(chip, b.n().size(), c, b.h().size(), b.w().size(), v.dtype);
}

int64_t weightBytes(const ChipProfile &chip, const Value &w, const Box &b) {
  int64_t oc = b.dims[0].size();
  int64_t per = w.elements() / std::max<int64_t>(1, w.dim(0));
  return weightBytesPerLane(chip, b.dims[0].begin % chip.lanes + oc, per, w.dtype);
}

int64_t weightDmaCycles(const ChipProfile &chip, const Value &w, const Box &b) {
  int64_t per = w.elements() / std::max<int64_t>(1, w.dim(0));
  int64_t bytes = b.dims[0].size() * per * dtypeBytes(w.dtype);
  return dmaCycles(chip, bytes, bytes);
}

/// Builds the group for `spec`. Without `allocate` it stops once the
/// rectangles exist and their lower bound fits (the cheap test the slicing
/// search bisects with).
std::optional<LayerGroup> buildGroup(const ChipProfile &chip, const Graph &g, const std::vector<int> &ops,
                                     const SliceSpec &spec, bool allocate) {
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
  const bool weightsPerSlice = spec.c > 1;

  // Rectangles, and the rect index of each (slice, value) for bank pairs.
  std::vector<LmemRect> &rects = group.rects;
  std::map<std::pair<int64_t, int>, int> rectOf;
  auto addRect = [&](int value, int64_t slice, BufferKind kind, int64_t t0, int64_t t1, int64_t size) {
    LmemRect r;
    r.value = value;
    r.slice = static_cast<int>(slice);
    r.kind = kind;
    r.tStart = t0;
    r.tEnd = t1;
    r.size = size;
    rects.push_back(r);
    rectOf[{slice, value}] = static_cast<int>(rects.size()) - 1;
  };
  // Resident weights load just before their op first runs: the first op's
  // in stage 0, op k's in stage 1 while ops 0..k-1 compute slice 0 (unit
  // k-1). They stay until the op's last slice.
  auto firstUse = [&](int v) {
    int64_t first = L;
    for (int u : g.values[v].users)
      if (auto it = local.find(u); it != local.end())
        first = std::min(first, it->second);
    return first;
  };
  if (!weightsPerSlice)
    for (int w : group.values.weights) {
      int64_t k = firstUse(w);
      addRect(w, -1, BufferKind::Weight, k == 0 ? 0 : L + k - 1, S * L + lastUse(w) + 1,
              weightBytes(chip, g.values[w], group.slices[0].weight.at(w)));
    }
  for (int64_t i = 0; i < S; ++i) {
    const SliceBoxes &s = group.slices[i];
    for (int v : group.values.inputs)
      addRect(v, i, BufferKind::Input, i * L, (i + 1) * L + lastUse(v) + 1,
              boxBytes(chip, g.values[v], s.value.at(v)));
    if (weightsPerSlice)
      for (int w : group.values.weights) {
        int64_t user = lastUse(w);
        addRect(w, i, BufferKind::Weight, i * L, (i + 1) * L + user + 1,
                weightBytes(chip, g.values[w], s.weight.at(w)));
      }
    for (int v : group.values.intermediates) {
      int64_t p = local.at(g.values[v].producer);
      addRect(v, i, BufferKind::Intermediate, (i + 1) * L + p, (i + 1) * L + lastUse(v) + 1,
              boxBytes(chip, g.values[v], s.value.at(v)));
    }
    for (int v : group.values.outputs) {
      int64_t p = local.at(g.values[v].producer);
      addRect(v, i, BufferKind::Output, (i + 1) * L + p, (i + 3) * L,
              boxBytes(chip, g.values[v], s.value.at(v)));
    }
  }
  if (lmemLowerBound(rects) > chip.lmemBytesPerLane)
    return std::nullopt;
  if (!allocate)
    return group;
  // An op should not read and write the same bank.
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
  std::vector<int64_t> loadCycles(S, 0), storeCycles(S, 0), tiuCycles(S, 0);
  int64_t residentWeights[2] = {0, 0}; // loaded in stage 0, stage 1
  for (int64_t i = 0; i < S; ++i) {
    const SliceBoxes &s = group.slices[i];
    for (int v : group.values.inputs) {
      loadCycles[i] += dmaBoxCycles(chip, g.values[v], s.value.at(v));
      group.ddrBytes += s.value.at(v).elements() * dtypeBytes(g.values[v].dtype);
    }
    for (int w : group.values.weights) {
      int64_t c = weightDmaCycles(chip, g.values[w], s.weight.at(w));
      int64_t per = g.values[w].elements() / std::max<int64_t>(1, g.values[w].dim(0));
      int64_t bytes = s.weight.at(w).dims[0].size() * per * dtypeBytes(g.values[w].dtype);
      if (weightsPerSlice) {
        loadCycles[i] += c;
        group.ddrBytes += bytes;
      } else if (i == 0) {
        residentWeights[firstUse(w) == 0 ? 0 : 1] += c;
        group.ddrBytes += bytes;
      }
    }
    for (int v : group.values.outputs) {
      storeCycles[i] += dmaBoxCycles(chip, g.values[v], s.store.at(v));
      group.ddrBytes += s.store.at(v).elements() * dtypeBytes(g.values[v].dtype);
    }
    for (int o : ops)
      tiuCycles[i] += tiuCost(chip, g, g.ops[o], s.value.at(g.ops[o].outputs[0])).cycles;
  }
  for (int64_t t = 0; t < S + 2; ++t) {
    TimeStep st;
    if (t < S) {
      st.loadSlice = static_cast<int>(t);
      st.gdmaCycles += loadCycles[t];
    }
    if (t < 2 && residentWeights[t]) {
      st.loadsWeights = true;
      st.gdmaCycles += residentWeights[t];
    }
    if (t >= 1 && t <= S) {
      st.computeSlice = static_cast<int>(t - 1);
      st.tiuCycles = tiuCycles[t - 1];
    }
    if (t >= 2) {
      st.storeSlice = static_cast<int>(t - 2);
      st.gdmaCycles += storeCycles[t - 2];
    }
    st.cycles = std::max(st.tiuCycles, st.gdmaCycles);
    group.cycles += st.cycles;
    group.tiuCycles += st.tiuCycles;
    group.gdmaCycles += st.gdmaCycles;
    group.steps.push_back(st);
  }
  return group;
}

/// Resident weight bytes per lane of `ops` when C is not cut.
int64_t residentWeightBytes(const ChipProfile &chip, const Graph &g, const std::vector<int> &ops) {
  int64_t total = 0;
  for (int o : ops)
    for (int w : g.ops[o].weights)
      total += weightBytes(chip, g.values[w], fullBox(g.values[w]));
  return total;
}

} // namespace

std::optional<LayerGroup> planGroupWithSpec(const ChipProfile &chip, const Graph &g,
                                            const std::vector<int> &ops, const SliceSpec &spec) {
  return buildGroup(chip, g, ops, spec, /*allocate=*/true);
}

std::optional<LayerGroup> planGroup(const ChipProfile &chip, const Graph &g, const std::vector<int> &ops,
                                    const GroupOptions &options) {
  for (int o : ops)
    if (!g.isGroupable(o))
      return std::nullopt;
  GroupValues vals = classifyValues(g, ops);
  int64_t maxN = INT64_MAX, maxC = INT64_MAX, maxH = INT64_MAX, maxW = INT64_MAX;
  for (int v : vals.outputs) {
    maxN = std::min(maxN, g.values[v].dim(0));
    maxC = std::min(maxC, g.values[v].dim(1));
    maxH = std::min(maxH, g.values[v].dim(2));
    maxW = std::min(maxW, g.values[v].dim(3));
  }
  auto tryPlan = [&](const SliceSpec &spec) { return buildGroup(chip, g, ops, spec, /*allocate=*/true); };
  auto boundFits = [&](const SliceSpec &spec) {
    return buildGroup(chip, g, ops, spec, /*allocate=*/false).has_value();
  };
  // C and W cuts only for a single op (in a chain they would recompute the
  // producers of every full conv per slice), and C only first when the
  // weights alone do not fit.
  std::vector<std::pair<int64_t, int64_t>> cw;
  bool single = ops.size() == 1;
  if (residentWeightBytes(chip, g, ops) < chip.lmemBytesPerLane)
    cw.emplace_back(1, 1);
  else if (!single)
    return std::nullopt;
  if (single) {
    // Finer than one channel per lane saves no lane memory.
    for (int64_t c = 2; c <= std::min(maxC, 2 * ceilDiv(maxC, chip.lanes)); c *= 2)
      cw.emplace_back(c, 1);
    for (int64_t w = 2; w <= maxW; w *= 2)
      cw.emplace_back(1, w);
  }
  std::optional<LayerGroup> best;
  for (auto [c, w] : cw) {
    // N first: the smallest n cut that fits with H whole, else n whole and
    // the smallest H cut whose lower bound fits (bisection: the working
    // set shrinks with the cut up to halo and alignment noise), then a few
    // finer cuts when placement fails.
    SliceSpec base;
    base.c = c;
    base.w = w;
    for (int64_t n = 1; n <= maxN && !best; ++n) {
      base.n = n;
      base.h = 1;
      if (boundFits(base))
        best = tryPlan(base);
    }
    if (!best) {
      base.n = maxN;
      base.h = maxH;
      if (!boundFits(base))
        continue;
      int64_t lo = 0, hi = maxH; // hi fits
      while (hi - lo > 1) {
        int64_t mid = (lo + hi) / 2;
        base.h = mid;
        (boundFits(base) ? hi : lo) = mid;
      }
      for (int64_t h = hi; h <= maxH && h < hi + 4 && !best; ++h) {
        base.h = h;
        best = tryPlan(base);
      }
      if (!best) {
        base.h = maxH;
        best = tryPlan(base);
      }
    }
    if (best)
      break;
  }
  if (!best)
    return std::nullopt;
  // Finer H cuts pipeline better but cost halos and command latency.
  SliceSpec spec = best->spec;
  for (int k = 0; k < options.extraSliceTries; ++k) {
    spec.h *= 2;
    if (spec.h > maxH)
      break;
    if (auto alt = planGroupWithSpec(chip, g, ops, spec); alt && alt->cycles < best->cycles)
      best = std::move(alt);
  }
  return best;
}

} // namespace tpuc::backend
