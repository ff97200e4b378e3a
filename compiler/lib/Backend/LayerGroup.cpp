//===- LayerGroup.cpp - Group boundaries (greedy, DP) and plan checks -----===//

#include "tpuc/Backend/LayerGroup.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace tpuc::backend {

namespace {

std::vector<int> opRange(int begin, int end) {
  std::vector<int> r;
  for (int i = begin; i < end; ++i)
    r.push_back(i);
  return r;
}

/// The group for a single op: an LMEM group when it is groupable and fits,
/// else a global op. An op of a row group (a matmul, a rank-2/3 element-wise
/// op) runs global when that is cheaper: its row slices of a [M, 1, K] or
/// [M, K] tensor put few channels on the lanes. `fits` tells whether the op
/// has an LMEM group at all (the start of a longer one).
LayerGroup planSingle(const ChipProfile &chip, const Graph &g, int op, const GroupOptions &options,
                      bool *fits = nullptr) {
  if (fits)
    *fits = false;
  if (g.isGroupable(op))
    if (auto grp = planGroup(chip, g, {op}, options)) {
      if (fits)
        *fits = true;
      if (g.cutsRowsOnly(op)) {
        LayerGroup global = planGlobal(chip, g, op, options.cores);
        if (global.cycles < grp->cycles)
          return global;
      }
      return std::move(*grp);
    }
  return planGlobal(chip, g, op, options.cores);
}

void finish(const ChipProfile &chip, const Graph &g, LayerGroupPlan &plan) {
  plan.groupOfOp.assign(g.ops.size(), -1);
  plan.opCosts.assign(g.ops.size(), {});
  plan.totalCycles = 0;
  for (size_t gi = 0; gi < plan.groups.size(); ++gi) {
    const LayerGroup &grp = plan.groups[gi];
    plan.totalCycles += grp.cycles;
    for (int o : grp.ops)
      plan.groupOfOp[o] = static_cast<int>(gi);
    for (int o : grp.ops) {
      const Op &op = g.ops[o];
      OpEstimate &e = plan.opCosts[o];
      TiuCost whole = tiuCost(chip, g, op, fullBox(g.values[op.outputs[0]]));
      e.laneUtilization = whole.laneUtilization;
      e.euUtilization = whole.euUtilization;
      if (grp.global) {
        e.tiuCycles = isInPlace(g, o) ? 0 : whole.cycles;
        e.macs = whole.macs;
        continue;
      }
      for (const SliceBoxes &s : grp.slices) {
        TiuCost c = tiuCost(chip, g, op, s.value.at(op.outputs[0]));
        e.tiuCycles += c.cycles;
        e.macs += c.macs;
      }
    }
  }
}

} // namespace

LayerGroupPlan planLayerGroups(const ChipProfile &chip, const Graph &g, const GroupOptions &options) {
  LayerGroupPlan plan;
  plan.chip = chip.name;
  plan.opt = options.opt;
  plan.cores = std::max(1, options.cores);
  const int n = static_cast<int>(g.ops.size());
  const int maxLen = std::max(1, options.maxGroupOps);

  if (options.opt <= 0) {
    for (int i = 0; i < n; ++i)
      plan.groups.push_back(planSingle(chip, g, i, options));
  } else if (options.opt == 1) {
    int i = 0;
    while (i < n) {
      bool fits = false;
      LayerGroup best = planSingle(chip, g, i, options, &fits);
      int end = i + 1;
      if (fits)
        for (int j = i + 2; j <= n && j - i <= maxLen && g.isGroupable(j - 1); ++j) {
          auto grp = planGroup(chip, g, opRange(i, j), options);
          if (!grp)
            break;
          best = std::move(*grp);
          end = j;
        }
      plan.groups.push_back(std::move(best));
      i = end;
    }
  } else {
    // cost[j]: cheapest plan of ops [0, j). From every start i, extend the
    // group exactly as the greedy mode would, so every greedy group is a
    // candidate and the DP result is never worse.
    constexpr int64_t inf = std::numeric_limits<int64_t>::max();
    std::vector<int64_t> cost(n + 1, inf);
    std::vector<int> from(n + 1, -1);
    cost[0] = 0;
    for (int i = 0; i < n; ++i) {
      if (cost[i] == inf)
        continue;
      bool fits = false;
      LayerGroup single = planSingle(chip, g, i, options, &fits);
      if (cost[i] + single.cycles < cost[i + 1]) {
        cost[i + 1] = cost[i] + single.cycles;
        from[i + 1] = i;
      }
      if (!fits)
        continue;
      for (int j = i + 2; j <= n && j - i <= maxLen && g.isGroupable(j - 1); ++j) {
        auto grp = planGroup(chip, g, opRange(i, j), options);
        if (!grp)
          break;
        if (cost[i] + grp->cycles < cost[j]) {
          cost[j] = cost[i] + grp->cycles;
          from[j] = i;
        }
      }
    }
    std::vector<std::pair<int, int>> spans;
    for (int j = n; j > 0; j = from[j])
      spans.emplace_back(from[j], j);
    std::reverse(spans.begin(), spans.end());
    for (auto [b, e] : spans)
      plan.groups.push_back(e - b == 1 ? planSingle(chip, g, b, options)
                                       : std::move(*planGroup(chip, g, opRange(b, e), options)));
  }
  finish(chip, g, plan);
  return plan;
}

std::vector<std::string> validatePlan(const ChipProfile &chip, const Graph &g, const LayerGroupPlan &plan) {
  std::vector<std::string> errors;
  int next = 0;
  for (size_t gi = 0; gi < plan.groups.size(); ++gi) {
    const LayerGroup &grp = plan.groups[gi];
    std::string where = "group " + std::to_string(gi) + ": ";
    for (int o : grp.ops) {
      if (o != next)
        errors.push_back(where + "op " + std::to_string(o) + " out of order (expected " +
                         std::to_string(next) + ")");
      next = o + 1;
    }
    if (grp.global) {
      if (grp.ops.size() != 1)
        errors.push_back(where + "a global group holds one op");
      // Parts of a split global op: cores 0.., ranges tiling the split dimension in order.
      int64_t next = 0;
      for (size_t k = 0; k < grp.parts.size(); ++k) {
        const GlobalPart &p = grp.parts[k];
        if (p.core != static_cast<int>(k) || p.range.begin != next || p.range.empty())
          errors.push_back(where + "part " + std::to_string(k) + " does not continue the split");
        next = p.range.end;
      }
      if (!grp.parts.empty() && !grp.ops.empty() &&
          next != g.values[g.ops[grp.ops[0]].outputs[0]].dim(grp.parts[0].axis))
        errors.push_back(where + "parts do not cover the result");
      continue;
    }
    for (int o : grp.ops)
      if (!g.isGroupable(o))
        errors.push_back(where + "op '" + g.ops[o].name + "' is not groupable");
    if (grp.slices.size() != static_cast<size_t>(grp.spec.count()))
      errors.push_back(where + "slice count differs from the spec");
    // Each core runs a pipeline over a contiguous run of slices: its first slice and count.
    std::vector<int64_t> firstOf(static_cast<size_t>(std::max(grp.cores, 1)), -1), countOf(firstOf.size(), 0);
    if (grp.sliceCore.size() != grp.slices.size())
      errors.push_back(where + "no core for every slice");
    for (size_t si = 0; si < grp.sliceCore.size(); ++si) {
      int k = grp.sliceCore[si];
      if (k < 0 || k >= grp.cores || (si > 0 && k < grp.sliceCore[si - 1])) {
        errors.push_back(where + "slice " + std::to_string(si) + " on core " + std::to_string(k) +
                         " out of order or range");
        continue;
      }
      if (firstOf[k] < 0)
        firstOf[k] = static_cast<int64_t>(si);
      ++countOf[k];
    }
    size_t expectedSteps = 0;
    for (int64_t c : countOf)
      expectedSteps += c ? static_cast<size_t>(c) + 2 : 0;
    if (grp.steps.size() != expectedSteps)
      errors.push_back(where + "expected slices + 2 pipeline stages per core");
    std::set<int> inGroup(grp.ops.begin(), grp.ops.end());
    // Stored boxes tile each output exactly: disjoint, summing to the whole.
    for (int v : grp.values.outputs) {
      int64_t total = 0;
      std::vector<Box> seen;
      for (const SliceBoxes &s : grp.slices) {
        const Box &b = s.store.at(v);
        total += b.elements();
        for (const Box &o : seen) {
          bool overlap = true;
          for (int d = 0; d < 4; ++d)
            overlap &= b.dims[d].begin < o.dims[d].end && o.dims[d].begin < b.dims[d].end;
          if (overlap)
            errors.push_back(where + "stores of '" + g.values[v].name + "' overlap");
        }
        seen.push_back(b);
      }
      if (total != g.values[v].elements())
        errors.push_back(where + "stores of '" + g.values[v].name + "' do not cover it");
    }
    // Each op's operands hold what the op reads; results hold what users
    // inside the group read.
    for (size_t si = 0; si < grp.slices.size(); ++si)
      for (int o : grp.ops) {
        const Op &op = g.ops[o];
        const Box &out = grp.slices[si].value.at(op.outputs[0]);
        for (size_t k = 0; k < op.inputs.size(); ++k) {
          Box need = inputBoxFor(g, op, static_cast<int>(k), out);
          const Box &have = grp.slices[si].value.at(op.inputs[k]);
          if (hull(need, have) != have)
            errors.push_back(where + "slice " + std::to_string(si) + ": '" + op.name +
                             "' reads beyond its operand's box");
        }
      }
    // Every value an op touches sits in LMEM when the op runs (unit k of
    // the stage after its slice loads), in a rect big enough for its box.
    std::map<std::tuple<int, int, int>, const LmemRect *> rectOf; // (core, slice, value)
    for (const LmemRect &r : grp.rects)
      rectOf[{r.core, r.slice, r.value}] = &r;
    const int64_t L = grp.unitsPerStage;
    for (size_t si = 0; si < grp.slices.size() && si < grp.sliceCore.size(); ++si)
      for (size_t k = 0; k < grp.ops.size(); ++k) {
        const Op &op = g.ops[grp.ops[k]];
        const int core = grp.sliceCore[si];
        if (core < 0 || core >= grp.cores)
          break;
        // The unit on the slice's core: its pipeline starts at the core's first slice.
        const int64_t t = (static_cast<int64_t>(si) - firstOf[core] + 1) * L + static_cast<int64_t>(k);
        std::vector<int> touched = op.inputs;
        touched.insert(touched.end(), op.outputs.begin(), op.outputs.end());
        touched.insert(touched.end(), op.weights.begin(), op.weights.end());
        for (int v : touched) {
          auto it = rectOf.find({core, static_cast<int>(si), v});
          if (it == rectOf.end())
            it = rectOf.find({core, -1, v});
          std::string what = where + "slice " + std::to_string(si) + ": '" + g.values[v].name + "'";
          if (it == rectOf.end()) {
            errors.push_back(what + " has no LMEM buffer");
            continue;
          }
          const LmemRect &r = *it->second;
          if (r.tStart > t || r.tEnd <= t)
            errors.push_back(what + " is not live when '" + op.name + "' runs");
          if (!g.values[v].isWeight) {
            const Box &b = grp.slices[si].value.at(v);
            int64_t c = b.c().begin % chip.lanes + b.c().size();
            if (r.size <
                activationBytesPerLane(chip, b.n().size(), c, b.h().size(), b.w().size(), g.values[v].dtype))
              errors.push_back(what + " buffer smaller than its box");
          }
        }
      }
    for (const std::string &e : validateLmem(chip, grp.rects))
      errors.push_back(where + e);
  }
  if (next != static_cast<int>(g.ops.size()))
    errors.push_back("plan covers " + std::to_string(next) + " of " + std::to_string(g.ops.size()) + " ops");
  return errors;
}

} // namespace tpuc::backend
