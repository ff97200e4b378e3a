//===- Explain.cpp - Why the layer-group planner cut where it did ---------===//

#include "tpuc/Backend/Explain.h"

#include <algorithm>

namespace tpuc::backend {

const char *cutReasonName(CutReason r) {
  switch (r) {
  case CutReason::NoLocalForm:
    return "no_local_form";
  case CutReason::Lmem:
    return "lmem";
  case CutReason::Weights:
    return "weights";
  case CutReason::Halo:
    return "halo";
  case CutReason::Cost:
    return "cost";
  case CutReason::MaxOps:
    return "max_ops";
  }
  return "?";
}

namespace {

/// 12288 -> "12,288".
std::string grouped(int64_t x) {
  std::string digits = std::to_string(x < 0 ? -x : x), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return x < 0 ? "-" + out : out;
}

std::string quoted(const std::string &name) { return "'" + name + "'"; }

/// Cuts per dimension, "n x c x h x w".
std::string sliceText(const SliceSpec &s) {
  return std::to_string(s.n) + "x" + std::to_string(s.c) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w);
}

/// "'a' input (slice 2) 40,960 B, 'w' weight 32,768 B, and 3 more".
std::string liveText(const Graph &g, const std::vector<LmemRect> &live) {
  constexpr size_t kShown = 4;
  std::string out;
  for (size_t i = 0; i < live.size() && i < kShown; ++i) {
    const LmemRect &r = live[i];
    out += (i ? ", " : "") + quoted(g.values[r.value].name) + " " + bufferKindName(r.kind);
    if (r.slice >= 0)
      out += " (slice " + std::to_string(r.slice) + ")";
    out += " " + grouped(r.size) + " B";
  }
  if (live.size() > kShown)
    out += ", and " + std::to_string(live.size() - kShown) + " more";
  return out;
}

/// "at time step 7 (op 'y' of slice 2)": time units count ops within
/// pipeline stages.
std::string unitText(const Graph &g, const GroupDiagnosis &d) {
  std::string out = "at time step " + std::to_string(d.timeUnit) + " (";
  int64_t stage = d.timeUnit / d.unitsPerStage;
  if (d.computeSlice >= 0)
    out += "op " + quoted(g.ops[d.unitOp].name) + " of slice " + std::to_string(d.computeSlice);
  else
    out += "stage " + std::to_string(stage) + (stage == 0 ? ", loads only" : ", stores only");
  return out + ")";
}

/// What keeps the ops of `d` out of LMEM, in one phrase.
std::string memoryText(const Graph &g, const GroupDiagnosis &d) {
  const std::string cap = grouped(d.capacity);
  switch (d.obstacle) {
  case GroupObstacle::Weights:
    return "the resident weights alone need " + grouped(d.needed) + " of " + cap + " B/lane (short by " +
           grouped(d.needed - d.capacity) + "): " + liveText(g, d.live);
  case GroupObstacle::Placement:
    return "LMEM placement fails at every slicing tried, though at slices " + sliceText(d.spec) +
           " the most live at once fits: " + grouped(d.needed) + " of " + cap + " B/lane " + unitText(g, d);
  case GroupObstacle::Halo:
    if (d.timeUnit < 0)
      return "cannot be sliced: " + d.detail;
    return "H cannot be cut into more than " + std::to_string(d.spec.h) + " slices (" +
           quoted(g.values[d.hLimit].name) + " has " + std::to_string(g.values[d.hLimit].dim(2)) +
           " rows) and " + d.detail + ": LMEM short by " + grouped(d.needed - d.capacity) + " B/lane " +
           unitText(g, d) + ": live " + liveText(g, d.live);
  default:
    return "LMEM short by " + grouped(d.needed - d.capacity) + " B/lane " + unitText(g, d) + ", " +
           grouped(d.needed) + " of " + cap + " at its finest slicing " + sliceText(d.spec) + ": live " +
           liveText(g, d.live);
  }
}

CutReason reasonOf(GroupObstacle o) {
  switch (o) {
  case GroupObstacle::NotGroupable:
    return CutReason::NoLocalForm;
  case GroupObstacle::Weights:
    return CutReason::Weights;
  case GroupObstacle::Halo:
    return CutReason::Halo;
  default:
    return CutReason::Lmem; // Lmem, and Placement: no slicing fits in LMEM
  }
}

/// Cycles of `ops` planned as one group, else op by op (as the planners do
/// alone: in LMEM when the op fits, else global).
int64_t cyclesAlone(const ChipProfile &chip, const Graph &g, const std::vector<int> &ops,
                    const GroupOptions &options) {
  if (ops.empty())
    return 0;
  if (auto grp = planGroup(chip, g, ops, options))
    return grp->cycles;
  int64_t total = 0;
  for (int o : ops) {
    std::optional<LayerGroup> one = g.isGroupable(o) ? planGroup(chip, g, {o}, options) : std::nullopt;
    int64_t global = planGlobal(chip, g, o, options.cores).cycles;
    // As planSingle: an op of a row group runs global when that is cheaper.
    total += one ? (g.cutsRowsOnly(o) ? std::min(one->cycles, global) : one->cycles) : global;
  }
  return total;
}

GroupCut explainGlobal(const ChipProfile &chip, const Graph &g, int gi, int op, const GroupOptions &options) {
  GroupCut cut;
  cut.group = gi;
  cut.global = true;
  cut.op = op;
  const std::string name = quoted(g.ops[op].name);
  if (!g.isGroupable(op)) {
    cut.reason = CutReason::NoLocalForm;
    cut.message = "runs as a global op: " + name + " (" + opKindName(g.ops[op].kind) + ") has no LMEM form";
    return cut;
  }
  if (auto one = planGroup(chip, g, {op}, options)) {
    // It has an LMEM group, but the global op is cheaper (planSingle: a row group's thin slices).
    cut.reason = CutReason::Cost;
    cut.cyclesSplit = planGlobal(chip, g, op, options.cores).cycles;
    cut.cyclesMerged = one->cycles;
    cut.message = "runs as a global op: the cost model prefers it, " + grouped(cut.cyclesSplit) +
                  " cycles against " + grouped(cut.cyclesMerged) + " as an LMEM group";
    return cut;
  }
  cut.memory = diagnoseGroup(chip, g, {op});
  cut.reason = reasonOf(cut.memory.obstacle);
  cut.message = "runs as a global op: " + memoryText(g, cut.memory);
  return cut;
}

GroupCut explainBoundary(const ChipProfile &chip, const Graph &g, const LayerGroupPlan &plan, int gi,
                         const GroupOptions &options) {
  const LayerGroup &grp = plan.groups[gi], &next = plan.groups[gi + 1];
  GroupCut cut;
  cut.group = gi;
  cut.op = next.ops.front();
  const std::string head = "ends before " + quoted(g.ops[cut.op].name) + ": ";
  if (!g.isGroupable(cut.op)) {
    cut.reason = CutReason::NoLocalForm;
    cut.message = head + quoted(g.ops[cut.op].name) + " (" + opKindName(g.ops[cut.op].kind) +
                  ") has no LMEM form and runs as a global op";
    return cut;
  }
  if (options.opt <= 0) {
    cut.reason = CutReason::MaxOps;
    cut.maxOps = 1;
    cut.message = head + "--opt 0 plans every op alone";
    return cut;
  }
  const int maxLen = std::max(1, options.maxGroupOps);
  if (static_cast<int>(grp.ops.size()) >= maxLen) {
    cut.reason = CutReason::MaxOps;
    cut.maxOps = maxLen;
    cut.message = head + "the group has " + std::to_string(grp.ops.size()) + " ops, the most the planner considers";
    return cut;
  }
  std::vector<int> extended = grp.ops;
  extended.push_back(cut.op);
  std::optional<LayerGroup> withNext = planGroup(chip, g, extended, options);
  if (!withNext) {
    cut.memory = diagnoseGroup(chip, g, extended);
    cut.reason = reasonOf(cut.memory.obstacle);
    cut.message = head + memoryText(g, cut.memory);
    return cut;
  }
  cut.reason = CutReason::Cost;
  cut.cyclesSplit = grp.cycles + next.cycles;
  std::vector<int> both = grp.ops;
  both.insert(both.end(), next.ops.begin(), next.ops.end());
  std::optional<LayerGroup> merged;
  if (next.ops.size() == 1)
    merged = std::move(withNext);
  else if (!next.global && static_cast<int>(both.size()) <= maxLen)
    merged = planGroup(chip, g, both, options);
  std::string other;
  if (merged) {
    cut.cyclesMerged = merged->cycles;
    other = " as one group";
  } else {
    std::vector<int> rest(next.ops.begin() + 1, next.ops.end());
    cut.cyclesMerged = withNext->cycles + cyclesAlone(chip, g, rest, options);
    other = " with " + quoted(g.ops[cut.op].name) + " joined and the rest of group " + std::to_string(gi + 1) +
            " planned alone";
  }
  const std::string split = grouped(cut.cyclesSplit) + " cycles as groups " + std::to_string(gi) + " and " +
                            std::to_string(gi + 1);
  if (cut.cyclesSplit == cut.cyclesMerged)
    cut.message = head + "merging saves nothing: " + split + ", the same" + other;
  else
    cut.message = head + "the cost model prefers the split: " + split + " vs " + grouped(cut.cyclesMerged) + other;
  return cut;
}

} // namespace

std::vector<GroupCut> explainCuts(const ChipProfile &chip, const Graph &g, const LayerGroupPlan &plan,
                                  const GroupOptions &options) {
  std::vector<GroupCut> cuts;
  for (size_t i = 0; i < plan.groups.size(); ++i) {
    const LayerGroup &grp = plan.groups[i];
    if (grp.global)
      cuts.push_back(explainGlobal(chip, g, static_cast<int>(i), grp.ops.front(), options));
    else if (i + 1 < plan.groups.size())
      cuts.push_back(explainBoundary(chip, g, plan, static_cast<int>(i), options));
  }
  return cuts;
}

} // namespace tpuc::backend
