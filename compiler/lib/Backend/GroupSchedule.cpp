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
  const bool weightsPerSlice = spec.c > 1;

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
  // k-1). They stay until the op's last slice.
  if (!weightsPerSlice)
    for (int w : group.values.weights) {
      int64_t k = firstUse(g, ops, w);
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
  return group;
}

/// Builds the group for `spec`. Without `allocate` it stops once the
/// rectangles exist and their lower bound fits (the cheap test the slicing
/// search bisects with).
std::optional<LayerGroup> buildGroup(const ChipProfile &chip, const Graph &g, const std::vector<int> &ops,
                                     const SliceSpec &spec, bool allocate) {
  std::optional<LayerGroup> built = buildRects(chip, g, ops, spec);
  if (!built)
    return std::nullopt;
  LayerGroup &group = *built;
  std::vector<LmemRect> &rects = group.rects;
  const int64_t S = static_cast<int64_t>(group.slices.size());
  const bool weightsPerSlice = spec.c > 1;
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
        residentWeights[firstUse(g, ops, w) == 0 ? 0 : 1] += c;
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
};

SliceSearch sliceSearch(const ChipProfile &chip, const Graph &g, const std::vector<int> &ops) {
  SliceSearch s;
  for (int v : classifyValues(g, ops).outputs) {
    s.maxN = std::min(s.maxN, g.values[v].dim(0));
    s.maxC = std::min(s.maxC, g.values[v].dim(1));
    s.maxH = std::min(s.maxH, g.values[v].dim(2));
    s.maxW = std::min(s.maxW, g.values[v].dim(3));
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
    SliceSpec spec{search.maxN, c, search.maxH, w};
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
  d.obstacle = lmemLowerBound(oneRow) <= chip.lmemBytesPerLane ? GroupObstacle::Halo : GroupObstacle::Lmem;
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
                                            const std::vector<int> &ops, const SliceSpec &spec) {
  return buildGroup(chip, g, ops, spec, /*allocate=*/true);
}

std::optional<LayerGroup> planGroup(const ChipProfile &chip, const Graph &g, const std::vector<int> &ops,
                                    const GroupOptions &options) {
  for (int o : ops)
    if (!g.isGroupable(o))
      return std::nullopt;
  SliceSearch search = sliceSearch(chip, g, ops);
  const int64_t maxN = search.maxN, maxH = search.maxH;
  auto tryPlan = [&](const SliceSpec &spec) { return buildGroup(chip, g, ops, spec, /*allocate=*/true); };
  auto boundFits = [&](const SliceSpec &spec) {
    return buildGroup(chip, g, ops, spec, /*allocate=*/false).has_value();
  };
  std::optional<LayerGroup> best;
  for (auto [c, w] : search.cw) {
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
