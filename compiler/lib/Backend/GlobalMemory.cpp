//===- GlobalMemory.cpp - Coefficient region and activation addresses -----===//

#include "tpuc/Backend/GlobalMemory.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>

namespace tpuc::backend {

const char *gmemStrategyName(GmemStrategy s) {
  switch (s) {
  case GmemStrategy::BySize:
    return "by_size";
  case GmemStrategy::ByFirstUse:
    return "by_first_use";
  case GmemStrategy::ByDuration:
    return "by_duration";
  case GmemStrategy::ByArea:
    return "by_area";
  case GmemStrategy::BestFit:
    return "best_fit";
  }
  return "?";
}

std::vector<GmemStrategy> allGmemStrategies() {
  return {GmemStrategy::BySize, GmemStrategy::ByFirstUse, GmemStrategy::ByDuration, GmemStrategy::ByArea,
          GmemStrategy::BestFit};
}

int64_t assignIntervals(std::vector<Interval> &iv, int64_t align, GmemStrategy strategy) {
  std::vector<size_t> order(iv.size());
  std::iota(order.begin(), order.end(), 0);
  auto dur = [&](size_t i) { return iv[i].end - iv[i].start + 1; };
  // Strategy key first, then the index: a total order, so std::sort is
  // deterministic.
  auto key = [&](size_t i) -> std::pair<int64_t, int64_t> {
    switch (strategy) {
    case GmemStrategy::BySize:
    case GmemStrategy::BestFit:
      return {-iv[i].size, iv[i].start};
    case GmemStrategy::ByFirstUse:
      return {iv[i].start, -iv[i].size};
    case GmemStrategy::ByDuration:
      return {-dur(i), -iv[i].size};
    case GmemStrategy::ByArea:
      return {-iv[i].size * dur(i), 0};
    }
    return {0, 0};
  };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    auto ka = key(a), kb = key(b);
    return ka != kb ? ka < kb : a < b;
  });
  for (Interval &i : iv)
    i.address = -1;
  int64_t peak = 0;
  std::vector<size_t> placed;
  for (size_t idx : order) {
    Interval &cur = iv[idx];
    std::vector<std::pair<int64_t, int64_t>> busy; // [addr, end) by address
    for (size_t p : placed)
      if (iv[p].start <= cur.end && cur.start <= iv[p].end)
        busy.emplace_back(iv[p].address, iv[p].address + iv[p].size);
    std::sort(busy.begin(), busy.end());
    int64_t chosen = -1, chosenGap = INT64_MAX, at = 0;
    for (auto [b0, b1] : busy) {
      if (at + cur.size <= b0) {
        int64_t gap = b0 - at;
        if (strategy != GmemStrategy::BestFit) {
          chosen = at;
          break;
        }
        if (gap < chosenGap) {
          chosen = at;
          chosenGap = gap;
        }
      }
      at = std::max(at, alignUp(b1, align));
    }
    if (chosen < 0)
      chosen = at; // Above everything live.
    cur.address = chosen;
    peak = std::max(peak, chosen + cur.size);
    placed.push_back(idx);
  }
  return alignUp(peak, align);
}

int64_t intervalLowerBound(const std::vector<Interval> &iv, int64_t align) {
  std::vector<std::pair<int64_t, int64_t>> events;
  for (const Interval &i : iv) {
    events.emplace_back(i.start, alignUp(i.size, align));
    events.emplace_back(i.end + 1, -alignUp(i.size, align));
  }
  std::sort(events.begin(), events.end());
  int64_t live = 0, best = 0;
  for (auto [t, d] : events) {
    live += d;
    best = std::max(best, live);
  }
  return best;
}

GmemPlan planGlobalMemory(const ChipProfile &chip, const Graph &g, const LayerGroupPlan &lg) {
  GmemPlan plan;
  // Coefficients, once each, in first-use order.
  std::vector<bool> weightSeen(g.values.size(), false);
  int64_t at = 0;
  for (const Op &op : g.ops)
    for (int w : op.weights) {
      if (weightSeen[w])
        continue;
      weightSeen[w] = true;
      at = alignUp(at, chip.coeffAlignment);
      plan.weights.push_back({w, at, g.values[w].bytes()});
      at += g.values[w].bytes();
    }
  plan.coeffBytes = alignUp(at, chip.coeffAlignment);
  plan.activationBase = alignUp(plan.coeffBytes, chip.gmemAlignment);

  // Which activations live in DDR, and their lifetimes in group steps.
  const int64_t last = static_cast<int64_t>(lg.groups.size()) - 1;
  std::map<int, GmemBuffer> live; // by value, deterministic order
  auto touch = [&](int v, int64_t step) {
    auto [it, fresh] = live.try_emplace(v);
    GmemBuffer &b = it->second;
    if (fresh) {
      b.value = v;
      b.root = v;
      b.size = g.values[v].bytes();
      b.start = b.end = step;
    }
    b.start = std::min(b.start, step);
    b.end = std::max(b.end, step);
  };
  for (size_t gi = 0; gi < lg.groups.size(); ++gi) {
    const LayerGroup &grp = lg.groups[gi];
    for (int v : grp.values.inputs)
      touch(v, static_cast<int64_t>(gi));
    for (int v : grp.values.outputs)
      touch(v, static_cast<int64_t>(gi));
  }
  for (int v : g.inputs) {
    touch(v, 0);
    live[v].io = true;
  }
  for (int v : g.outputs) {
    touch(v, last < 0 ? 0 : last);
    live[v].end = std::max<int64_t>(0, last);
    live[v].io = true;
  }
  for (auto &[v, b] : live)
    if (g.values[v].producer >= 0)
      b.start = std::min<int64_t>(b.start, lg.groupOfOp[g.values[v].producer]);
  // Control flow: a loop's slots and captures survive its whole body, an If's results both branches.
  for (const KeepAlive &k : g.keepAlive) {
    touch(k.value, lg.groupOfOp[k.from]);
    touch(k.value, lg.groupOfOp[k.to]);
  }

  // In-place sharing: a reshape's result lives in its operand's storage;
  // an in-place concat's operands live inside its result.
  for (size_t o = 0; o < g.ops.size(); ++o) {
    const Op &op = g.ops[o];
    if (op.kind == OpKind::Reshape && live.count(op.inputs[0]) && live.count(op.outputs[0])) {
      GmemBuffer &out = live[op.outputs[0]];
      const GmemBuffer &in = live[op.inputs[0]];
      out.root = in.root;
      out.offset = in.offset;
    } else if (canConcatInPlace(g, static_cast<int>(o))) {
      int64_t off = 0;
      bool all = live.count(op.outputs[0]) > 0;
      for (int v : op.inputs)
        all &= live.count(v) > 0;
      if (!all)
        continue;
      for (int v : op.inputs) {
        live[v].root = op.outputs[0];
        live[v].offset = off;
        off += g.values[v].bytes();
      }
    }
  }
  // Roots whose own root moved (a reshape of a concat operand): follow.
  for (auto &[v, b] : live) {
    int r = b.root;
    int64_t off = b.offset;
    while (live.at(r).root != r) {
      off += live.at(r).offset;
      r = live.at(r).root;
    }
    b.root = r;
    b.offset = off;
    plan.sharedBuffers += r != v;
  }
  // One interval per root, spanning its members' lifetimes.
  std::map<int, size_t> slot;
  std::vector<Interval> intervals;
  for (auto &[v, b] : live) {
    auto [it, fresh] = slot.try_emplace(b.root, intervals.size());
    if (fresh)
      intervals.push_back({g.values[b.root].bytes(), b.start, b.end, -1});
    Interval &iv = intervals[it->second];
    iv.start = std::min(iv.start, b.start);
    iv.end = std::max(iv.end, b.end);
  }
  plan.lowerBound = intervalLowerBound(intervals, chip.gmemAlignment);
  std::vector<Interval> best;
  int64_t bestPeak = INT64_MAX;
  for (GmemStrategy s : allGmemStrategies()) {
    std::vector<Interval> trial = intervals;
    int64_t peak = assignIntervals(trial, chip.gmemAlignment, s);
    plan.tried.emplace_back(gmemStrategyName(s), peak);
    if (peak < bestPeak) {
      bestPeak = peak;
      best = std::move(trial);
      plan.strategy = gmemStrategyName(s);
    }
  }
  plan.activationPeak = intervals.empty() ? 0 : bestPeak;
  for (auto &[v, b] : live) {
    b.address = plan.activationBase + best[slot.at(b.root)].address + b.offset;
    plan.buffers.push_back(b);
  }
  if (plan.totalBytes() > chip.ddrBytes)
    throw std::runtime_error("chip " + chip.name + ": model needs " + std::to_string(plan.totalBytes()) +
                             " bytes of DDR, the profile has " + std::to_string(chip.ddrBytes));
  return plan;
}

std::vector<std::string> validateGmem(const ChipProfile &chip, const Graph &g, const GmemPlan &plan) {
  std::vector<std::string> errors;
  for (size_t i = 0; i < plan.weights.size(); ++i) {
    const GmemWeight &w = plan.weights[i];
    if (w.address % chip.coeffAlignment)
      errors.push_back("weight '" + g.values[w.value].name + "' misaligned");
    if (w.address + w.size > plan.coeffBytes)
      errors.push_back("weight '" + g.values[w.value].name + "' outside the coefficient region");
    if (i && plan.weights[i - 1].address + plan.weights[i - 1].size > w.address)
      errors.push_back("weight '" + g.values[w.value].name + "' overlaps the previous one");
  }
  std::map<int, const GmemBuffer *> byValue;
  for (const GmemBuffer &b : plan.buffers)
    byValue[b.value] = &b;
  for (const GmemBuffer &b : plan.buffers) {
    const GmemBuffer &root = *byValue.at(b.root);
    if (b.address < plan.activationBase || b.address + b.size > plan.activationBase + plan.activationPeak)
      errors.push_back("'" + g.values[b.value].name + "' outside the activation region");
    if (b.offset + b.size > root.size)
      errors.push_back("'" + g.values[b.value].name + "' does not fit inside '" + g.values[b.root].name +
                       "'");
    if (b.root == b.value && b.address % chip.gmemAlignment)
      errors.push_back("'" + g.values[b.value].name + "' misaligned");
  }
  for (size_t i = 0; i < plan.buffers.size(); ++i)
    for (size_t j = i + 1; j < plan.buffers.size(); ++j) {
      const GmemBuffer &a = plan.buffers[i], &b = plan.buffers[j];
      if (a.root == b.root)
        continue;
      bool together = a.start <= b.end && b.start <= a.end;
      bool overlap = a.address < b.address + b.size && b.address < a.address + a.size;
      if (together && overlap)
        errors.push_back("'" + g.values[a.value].name + "' and '" + g.values[b.value].name +
                         "' are live together and overlap");
    }
  return errors;
}

} // namespace tpuc::backend
