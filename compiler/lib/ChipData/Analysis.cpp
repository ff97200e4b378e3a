//===- Analysis.cpp - LOD, idle attribution, critical path, occupancy -----===//

#include "tpuc/ChipData/Analysis.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace tpuc::chip {

BusyIndex::BusyIndex(const std::vector<Command> &commands) : cmds(&commands), cum(commands.size() + 1, 0) {
  for (size_t i = 0; i < commands.size(); ++i)
    cum[i + 1] = cum[i] + commands[i].duration();
}

size_t BusyIndex::firstEndingAfter(int64_t t) const {
  if (!cmds)
    return 0;
  // Commands of one engine do not overlap, so their ends ascend with their starts.
  auto it = std::upper_bound(cmds->begin(), cmds->end(), t, [](int64_t v, const Command &c) { return v < c.end; });
  return static_cast<size_t>(it - cmds->begin());
}

int64_t BusyIndex::busy(int64_t t0, int64_t t1) const {
  if (!cmds || t1 <= t0)
    return 0;
  size_t a = firstEndingAfter(t0);
  auto it = std::lower_bound(cmds->begin() + static_cast<std::ptrdiff_t>(a), cmds->end(), t1,
                             [](const Command &c, int64_t v) { return c.start < v; });
  size_t b = static_cast<size_t>(it - cmds->begin()); // commands [a, b) overlap [t0, t1)
  if (b <= a)
    return 0;
  int64_t total = cum[b] - cum[a];
  // Clip the two ends.
  total -= std::max<int64_t>(0, t0 - (*cmds)[a].start);
  total -= std::max<int64_t>(0, (*cmds)[b - 1].end - t1);
  return total;
}

std::vector<LodColumn> aggregateColumns(const std::vector<Command> &commands, const BusyIndex &index, int64_t t0,
                                        int64_t t1, int columns) {
  std::vector<LodColumn> out(static_cast<size_t>(std::max(columns, 0)));
  if (columns <= 0 || t1 <= t0)
    return out;
  std::vector<int64_t> best(out.size(), 0);
  const double width = static_cast<double>(t1 - t0) / columns;
  // Column k covers [edge(k), edge(k + 1)): integer edges, so the columns tile [t0, t1) exactly.
  auto edge = [&](int64_t k) { return k >= columns ? t1 : t0 + static_cast<int64_t>(std::floor(k * width)); };
  auto firstStartingAt = [&](size_t from, int64_t t) {
    return static_cast<size_t>(std::lower_bound(commands.begin() + static_cast<std::ptrdiff_t>(from), commands.end(), t,
                                                [](const Command &c, int64_t v) { return c.start < v; }) -
                               commands.begin());
  };
  const size_t first = index.firstEndingAfter(t0), last = firstStartingAt(first, t1);
  if (last - first > 8 * static_cast<size_t>(columns)) {
    for (int k = 0; k < columns; ++k) {
      const int64_t a = edge(k), b = edge(k + 1);
      LodColumn &col = out[static_cast<size_t>(k)];
      col.busy = index.busy(a, b);
      if (col.busy <= 0)
        continue;
      const size_t i0 = index.firstEndingAfter(a), i1 = firstStartingAt(i0, b);
      col.count = static_cast<uint32_t>(std::min<size_t>(i1 - i0, UINT32_MAX));
      const size_t mid = index.firstEndingAfter((a + b) / 2);
      col.dominant = static_cast<int32_t>(mid < i1 && commands[mid].start <= (a + b) / 2 ? mid : i0);
    }
    return out;
  }
  for (size_t i = first; i < last; ++i) {
    const Command &c = commands[i];
    int64_t s = std::max(c.start, t0), e = std::min(c.end, t1);
    if (e <= s)
      continue;
    int64_t k0 = std::clamp<int64_t>(static_cast<int64_t>((s - t0) / width), 0, columns - 1);
    while (k0 > 0 && edge(k0) > s)
      --k0;
    while (k0 + 1 < columns && edge(k0 + 1) <= s)
      ++k0;
    for (int64_t k = k0; k < columns && edge(k) < e; ++k) {
      int64_t overlap = std::min(e, edge(k + 1)) - std::max(s, edge(k));
      if (overlap <= 0)
        continue;
      LodColumn &col = out[static_cast<size_t>(k)];
      col.busy += overlap;
      ++col.count;
      if (overlap > best[static_cast<size_t>(k)]) {
        best[static_cast<size_t>(k)] = overlap;
        col.dominant = static_cast<int32_t>(i);
      }
    }
  }
  return out;
}

namespace {

std::vector<Interval> spansBy(const Trace &t, bool byStep) {
  std::map<std::pair<int, int>, Interval> spans;
  for (const auto &cmds : t.commands) {
    // Commands of one (group, step) come in runs: look the key up once per run.
    std::pair<int, int> lastKey{-2, -2};
    Interval *last = nullptr;
    for (const Command &c : cmds) {
      if (c.group < 0 || (byStep && c.step < 0))
        continue;
      auto key = std::make_pair(c.group, byStep ? c.step : -1);
      if (key != lastKey) {
        auto [it, inserted] = spans.try_emplace(key, Interval{c.start, c.end, c.group, key.second});
        last = &it->second;
        lastKey = key;
      }
      last->start = std::min(last->start, c.start);
      last->end = std::max(last->end, c.end);
    }
  }
  std::vector<Interval> out;
  out.reserve(spans.size());
  for (auto &[key, span] : spans)
    out.push_back(span);
  std::stable_sort(out.begin(), out.end(), [](const Interval &a, const Interval &b) { return a.start < b.start; });
  return out;
}

std::string opName(const Trace &t, int op) {
  return op >= 0 && op < static_cast<int>(t.ops.size()) ? t.ops[op].name : std::string("?");
}

std::string causeText(const Trace &t, const IdleCause &c) {
  std::string op = opName(t, c.op);
  std::string engine = engineName(c.waitedOn);
  switch (c.kind) {
  case CmdKind::Load:
    return engine + " loads of " + op + (c.weight ? "'s weights" : "'s inputs");
  case CmdKind::Store:
    return engine + " stores of " + op;
  case CmdKind::Copy:
    return engine + " copies for " + op;
  case CmdKind::Compute:
    return engine + " compute of " + op;
  case CmdKind::Global:
    return engine + " global op " + op;
  case CmdKind::Sync:
    return "the other cores at the barrier after " + op;
  }
  return engine + " commands of " + op;
}

std::string percent(double share) {
  std::ostringstream os;
  double p = 100.0 * share;
  os.precision(p < 10 && p > 0 ? 1 : 0);
  os << std::fixed << p << " %";
  return os.str();
}

} // namespace

std::vector<Interval> groupSpans(const Trace &t) { return spansBy(t, false); }
std::vector<Interval> stepSpans(const Trace &t) { return spansBy(t, true); }

std::vector<Interval> opRuns(const Trace &t) {
  std::vector<Interval> out;
  for (const Command &c : t.of(Engine::TIU)) {
    if (c.kind == CmdKind::Sync) // a barrier computes nothing
      continue;
    if (!out.empty() && out.back().id == c.op && out.back().end == c.start) {
      out.back().end = c.end;
      continue;
    }
    out.push_back({c.start, c.end, c.op, c.step});
  }
  return out;
}

std::array<EngineIdle, kEngines> attributeIdle(const Trace &t) {
  std::array<EngineIdle, kEngines> result;
  const int64_t total = t.totalCycles;
  for (int e = 0; e < kEngines; ++e) {
    const Engine self = static_cast<Engine>(e), other = static_cast<Engine>(1 - e);
    const auto &cmds = t.of(self);
    EngineIdle &r = result[e];
    std::map<std::tuple<int, int, bool, bool>, int64_t> sums; // (op, kind, weight, tail) -> cycles
    int64_t prevEnd = 0;
    for (const Command &c : cmds) {
      int64_t gap = c.start - prevEnd;
      prevEnd = std::max(prevEnd, c.end);
      if (c.kind == CmdKind::Sync) {
        // A barrier (several cores) is time spent waiting for the other cores, not work.
        r.idle += c.duration() + std::max<int64_t>(gap, 0);
        sums[{c.op, static_cast<int>(CmdKind::Sync), false, false}] += c.duration() + std::max<int64_t>(gap, 0);
        continue;
      }
      r.busy += c.duration();
      if (gap <= 0)
        continue;
      r.idle += gap;
      // The engine starts a command when it is free and the awaited command has ended; a gap therefore
      // ends at the awaited command's end.
      const Command *awaited = t.byId(other, c.wait);
      if (awaited && awaited->end == c.start)
        sums[{awaited->op, static_cast<int>(awaited->kind), awaited->weight, false}] += gap;
      else
        sums[{-1, static_cast<int>(CmdKind::Compute), false, false}] += gap;
    }
    // The tail: the other engine is still running.
    if (prevEnd < total) {
      int64_t tail = total - prevEnd;
      r.idle += tail;
      const auto &others = t.of(other);
      int64_t charged = 0;
      BusyIndex idx(others);
      for (size_t i = idx.firstEndingAfter(prevEnd); i < others.size(); ++i) {
        const Command &o = others[i];
        int64_t overlap = std::min(o.end, total) - std::max(o.start, prevEnd);
        if (overlap <= 0)
          continue;
        sums[{o.op, static_cast<int>(o.kind), o.weight, true}] += overlap;
        charged += overlap;
      }
      if (tail > charged)
        sums[{-1, static_cast<int>(CmdKind::Compute), false, true}] += tail - charged;
    }
    for (auto &[key, cycles] : sums) {
      IdleCause c;
      c.waitedOn = other;
      c.op = std::get<0>(key);
      c.kind = static_cast<CmdKind>(std::get<1>(key));
      c.weight = std::get<2>(key);
      c.tail = std::get<3>(key);
      c.cycles = cycles;
      if (c.op < 0)
        c.text = c.tail ? "the end of the run" : "nothing recorded (no dependency ended then)";
      else
        c.text = causeText(t, c) + (c.tail ? " (after its last command)" : "");
      r.causes.push_back(std::move(c));
    }
    std::stable_sort(r.causes.begin(), r.causes.end(),
                     [](const IdleCause &a, const IdleCause &b) { return a.cycles > b.cycles; });
    r.busyShare = total ? static_cast<double>(r.busy) / total : 0;
    r.idleShare = total ? static_cast<double>(r.idle) / total : 0;
    std::string s = std::string(engineName(self)) + " idle " + percent(r.idleShare) + " of the run";
    if (!r.causes.empty() && r.idle > 0)
      s += ", " + percent(static_cast<double>(r.causes.front().cycles) / r.idle) + " of that waiting on " +
           r.causes.front().text;
    r.summary = s;
    // By kind of wait.
    std::map<std::string, int64_t> byKind;
    for (const IdleCause &c : r.causes) {
      std::string kind = c.op < 0 ? (c.tail ? "the end of the run" : "unexplained gaps")
                         : c.kind == CmdKind::Load ? (c.weight ? "weight loads" : "input loads")
                         : c.kind == CmdKind::Store ? "stores"
                         : c.kind == CmdKind::Copy ? "copies"
                         : c.kind == CmdKind::Compute ? "compute"
                         : c.kind == CmdKind::Sync    ? "barriers"
                                                      : "global ops";
      byKind[kind] += c.cycles;
    }
    std::vector<std::pair<int64_t, std::string>> kinds;
    for (auto &[kind, cycles] : byKind)
      kinds.emplace_back(cycles, kind);
    std::stable_sort(kinds.begin(), kinds.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    for (auto &[cycles, kind] : kinds)
      r.breakdown += (r.breakdown.empty() ? "" : ", ") + kind + " " + percent(static_cast<double>(cycles) / r.idle);
  }
  return result;
}

CriticalPath criticalPath(const Trace &t) {
  CriticalPath cp;
  for (int e = 0; e < kEngines; ++e)
    cp.on[e].assign(t.commands[e].size(), 0);
  // Start at the command ending last.
  int engine = -1;
  int64_t index = -1;
  for (int e = 0; e < kEngines; ++e)
    if (!t.commands[e].empty() && (engine < 0 || t.commands[e].back().end > t.commands[engine][index].end)) {
      engine = e;
      index = static_cast<int64_t>(t.commands[e].size()) - 1;
    }
  while (engine >= 0 && index >= 0 && !cp.on[engine][index]) {
    const Command &c = t.commands[engine][index];
    cp.on[engine][index] = 1;
    cp.chain.emplace_back(static_cast<Engine>(engine), static_cast<int>(index));
    cp.cycles += c.duration();
    cp.engineCycles[engine] += c.duration();
    if (c.start == 0)
      break;
    const Engine other = static_cast<Engine>(1 - engine);
    const Command *dep = t.byId(other, c.wait);
    if (dep && dep->end == c.start) {
      engine = 1 - engine;
      index = dep - t.commands[engine].data();
    } else if (index > 0 && t.commands[engine][index - 1].end == c.start) {
      --index;
    } else {
      // A gap no dependency explains (a foreign trace): continue from the latest command of either
      // engine that ended before this one started.
      int best = -1;
      int64_t bestIndex = -1, bestEnd = -1;
      for (int e = 0; e < kEngines; ++e) {
        const auto &cmds = t.commands[e];
        auto it = std::upper_bound(cmds.begin(), cmds.end(), c.start,
                                   [](int64_t v, const Command &x) { return v < x.end; });
        if (it == cmds.begin())
          continue;
        --it;
        if (it->end > bestEnd) {
          best = e;
          bestEnd = it->end;
          bestIndex = it - cmds.begin();
        }
      }
      engine = best;
      index = bestIndex;
    }
  }
  for (int e = 0; e < kEngines; ++e) {
    cp.count[e].assign(cp.on[e].size() + 1, 0);
    for (size_t i = 0; i < cp.on[e].size(); ++i)
      cp.count[e][i + 1] = cp.count[e][i] + cp.on[e][i];
  }
  return cp;
}

DdrOccupancy ddrOccupancy(const Plan &p) {
  DdrOccupancy o;
  int64_t steps = static_cast<int64_t>(p.groups.size());
  for (const DdrBuffer &b : p.gmem.buffers)
    steps = std::max(steps, b.end + 1);
  std::vector<int64_t> delta(static_cast<size_t>(steps + 1), 0);
  for (const DdrBuffer &b : p.gmem.buffers) {
    if (b.root != b.value && b.root >= 0)
      continue; // a view into another buffer's storage
    delta[static_cast<size_t>(std::max<int64_t>(b.start, 0))] += b.size;
    delta[static_cast<size_t>(b.end + 1)] -= b.size;
    o.peak = std::max(o.peak, b.address - p.gmem.activationBase + b.size);
  }
  o.liveBytes.resize(static_cast<size_t>(steps));
  int64_t live = 0;
  for (int64_t s = 0; s < steps; ++s) {
    live += delta[static_cast<size_t>(s)];
    o.liveBytes[static_cast<size_t>(s)] = live;
    o.lowerBound = std::max(o.lowerBound, live);
  }
  if (p.gmem.activationPeak > 0)
    o.peak = std::max(o.peak, p.gmem.activationPeak);
  return o;
}

std::vector<int64_t> lmemUnitOccupancy(const Group &g, int core) {
  int64_t units = g.timeUnits(core);
  std::vector<int64_t> delta(static_cast<size_t>(units + 1), 0);
  for (const LmemRect &r : g.rects) {
    if (core >= 0 && r.core != core)
      continue;
    delta[static_cast<size_t>(r.t0)] += r.size;
    delta[static_cast<size_t>(r.t1)] -= r.size;
  }
  std::vector<int64_t> out(static_cast<size_t>(units));
  int64_t live = 0;
  for (int64_t u = 0; u < units; ++u) {
    live += delta[static_cast<size_t>(u)];
    out[static_cast<size_t>(u)] = live;
  }
  return out;
}

std::vector<CounterSample> plannedLmemOverTime(const Plan &p, const Trace &t) {
  // Planned bytes of each (group, step): the most live in the stage's time units.
  struct Edge {
    int64_t cycle;
    bool open;
    int64_t bytes;
  };
  std::vector<Edge> edges;
  std::vector<std::vector<int64_t>> perUnit(p.groups.size());
  // A group's buffers stay allocated between its stages: each stage's span reaches to the next stage's
  // start (an engine waiting between two stages does not free LMEM).
  std::vector<Interval> spans = stepSpans(t);
  std::vector<Interval *> byGroup;
  for (Interval &s : spans)
    byGroup.push_back(&s);
  std::stable_sort(byGroup.begin(), byGroup.end(), [](const Interval *a, const Interval *b) {
    return a->id != b->id ? a->id < b->id : a->step < b->step;
  });
  for (size_t i = 0; i + 1 < byGroup.size(); ++i)
    if (byGroup[i]->id == byGroup[i + 1]->id)
      byGroup[i]->end = std::max(byGroup[i]->end, byGroup[i + 1]->start);
  for (const Interval &s : spans) {
    if (s.id < 0 || s.id >= static_cast<int>(p.groups.size()) || p.groups[s.id].global)
      continue;
    const Group &g = p.groups[s.id];
    std::vector<int64_t> &units = perUnit[s.id];
    if (units.empty())
      units = lmemUnitOccupancy(g, t.cores > 1 ? t.core : -1); // the traced core's own LMEM
    int64_t bytes = 0;
    for (int64_t u = s.step * g.unitsPerStage;
         u < (s.step + 1) * g.unitsPerStage && u < static_cast<int64_t>(units.size()); ++u)
      bytes = std::max(bytes, units[static_cast<size_t>(u)]);
    edges.push_back({s.start, true, bytes});
    edges.push_back({s.end, false, bytes});
  }
  std::stable_sort(edges.begin(), edges.end(), [](const Edge &a, const Edge &b) {
    return a.cycle != b.cycle ? a.cycle < b.cycle : (!a.open && b.open); // closes first
  });
  std::vector<CounterSample> out;
  std::multiset<int64_t> active;
  for (size_t i = 0; i < edges.size();) {
    int64_t cycle = edges[i].cycle;
    for (; i < edges.size() && edges[i].cycle == cycle; ++i) {
      if (edges[i].open)
        active.insert(edges[i].bytes);
      else
        active.erase(active.find(edges[i].bytes));
    }
    int64_t value = active.empty() ? 0 : *active.rbegin();
    if (out.empty() || out.back().bytes != value)
      out.push_back({cycle, value});
  }
  return out;
}

int64_t valueAt(const std::vector<CounterSample> &samples, int64_t cycle) {
  auto it = std::upper_bound(samples.begin(), samples.end(), cycle,
                             [](int64_t c, const CounterSample &s) { return c < s.cycle; });
  return it == samples.begin() ? 0 : std::prev(it)->bytes;
}

std::vector<Divergence> lmemDivergences(const std::vector<CounterSample> &planned,
                                        const std::vector<CounterSample> &simulated, const Trace &t) {
  std::vector<int64_t> cycles;
  for (const auto *samples : {&planned, &simulated})
    for (const CounterSample &s : *samples)
      cycles.push_back(s.cycle);
  std::sort(cycles.begin(), cycles.end());
  cycles.erase(std::unique(cycles.begin(), cycles.end()), cycles.end());
  std::vector<Interval> steps = stepSpans(t);
  auto stepAt = [&](int64_t cycle) -> const Interval * {
    // Spans are in start order and barely overlap: the last one starting at or before `cycle`.
    auto it = std::upper_bound(steps.begin(), steps.end(), cycle,
                               [](int64_t c, const Interval &s) { return c < s.start; });
    if (it == steps.begin() || std::prev(it)->end <= cycle)
      return nullptr;
    return &*std::prev(it);
  };
  std::vector<Divergence> out;
  bool open = false;
  for (size_t i = 0; i < cycles.size(); ++i) {
    int64_t c = cycles[i], next = i + 1 < cycles.size() ? cycles[i + 1] : std::max(c + 1, t.totalCycles);
    int64_t pl = valueAt(planned, c), sim = valueAt(simulated, c);
    if (sim > pl) {
      if (!open) {
        out.push_back({c, next, pl, sim, -1, -1});
        open = true;
      }
      Divergence &d = out.back();
      d.end = next;
      if (sim - pl > d.simulated - d.planned) {
        d.planned = pl;
        d.simulated = sim;
        if (const Interval *s = stepAt(c)) {
          d.group = s->id;
          d.step = s->step;
        }
      }
      if (d.group < 0)
        if (const Interval *s = stepAt(c)) {
          d.group = s->id;
          d.step = s->step;
        }
    } else {
      open = false;
    }
  }
  return out;
}

} // namespace tpuc::chip
