//===- CmdSim.cpp - Dependencies, cycles, bounds and hazards of command streams ===//

#include "tpuc/Simulator/CmdSim.h"

#include "tpuc/Backend/Graph.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <tuple>
#include <unordered_map>

namespace tpuc::cmdsim {

using namespace codegen;

namespace {

/// Byte range [begin, end) an operand touches (per lane for LMEM).
struct Span {
  MemSpace space;
  uint64_t begin, end;
  bool write;
  const TensorRef *ref = nullptr; ///< The operand (for the exact test of two boxes of one tensor).
};

/// Whether two operands whose byte ranges overlap really share bytes. Boxes of one tensor (same
/// element-0 address and strides: slices of a tensor that two cores store at once, the column tiles of a
/// streamed weight in LMEM that one engine loads while the other reads the tiles before) share bytes
/// only when the boxes intersect; anything else is judged by the byte ranges. In LMEM the lane dimension
/// does not advance the address by its stride at every step, so two boxes compare only when they hold
/// the same channels (the same lanes and rows of them).
bool touchSameBytes(const Span &a, const Span &b) {
  if (!a.ref || !b.ref || a.ref->stride != b.ref->stride || a.ref->dtype != b.ref->dtype)
    return true;
  const bool lmem = a.space == MemSpace::LMEM;
  if (lmem && (a.ref->lane != b.ref->lane || a.ref->origin[1] != b.ref->origin[1] ||
               a.ref->shape[1] != b.ref->shape[1]))
    return true;
  auto base = [&](const TensorRef &t) {
    int64_t at = static_cast<int64_t>(t.address);
    for (int i = 0; i < 4; ++i)
      if (!(lmem && i == 1))
        at -= t.origin[i] * t.stride[i];
    return at;
  };
  if (base(*a.ref) != base(*b.ref))
    return true;
  for (int i = 0; i < 4; ++i)
    if (!(lmem && i == 1) && (a.ref->origin[i] + a.ref->shape[i] <= b.ref->origin[i] ||
                              b.ref->origin[i] + b.ref->shape[i] <= a.ref->origin[i]))
      return false;
  return true;
}

uint64_t extent(const backend::ChipProfile &chip, const TensorRef &t) {
  int64_t ds = backend::dtypeBytes(static_cast<backend::DType>(t.dtype));
  for (int64_t s : t.shape)
    if (s <= 0)
      return 0;
  int64_t last = ds;
  for (int i = 0; i < 4; ++i) {
    int64_t steps = t.shape[i] - 1;
    // Along the lane dimension only every `lanes`-th step advances the address.
    bool laneDim = t.space == MemSpace::LMEM && i == 1;
    if (laneDim)
      steps = (t.lane + t.shape[i] - 1) / chip.lanes;
    last += steps * t.stride[i];
  }
  return static_cast<uint64_t>(last);
}

std::vector<Span> spans(const backend::ChipProfile &chip, const Command &c) {
  std::vector<Span> out;
  for (size_t i = 0; i < c.operands.size(); ++i) {
    const TensorRef &t = c.operands[i];
    bool write = c.engine == Engine::GDMA ? i == 1 : i < c.numOutputs;
    out.push_back({t.space, t.address, t.address + extent(chip, t), write, &t});
  }
  return out;
}

void checkBounds(const backend::ChipProfile &chip, const Stage &s, const Command &c, size_t core,
                 std::vector<std::string> &errs) {
  for (const TensorRef &t : c.operands) {
    uint64_t end = t.address + extent(chip, t);
    if (t.space == MemSpace::LMEM) {
      if (end > static_cast<uint64_t>(chip.lmemBytesPerLane) || t.lane >= static_cast<uint64_t>(chip.lanes))
        errs.push_back(commandLabel(s, c, core) + ": LMEM operand [" + std::to_string(t.address) + ", " +
                       std::to_string(end) + ") outside the " + std::to_string(chip.lmemBytesPerLane) +
                       "-byte lane");
    } else {
      bool coeff = end <= s.coeffBytes;
      bool act = t.address >= s.activationBase && end <= s.activationBase + s.activationBytes;
      if (!coeff && !act)
        errs.push_back(commandLabel(s, c, core) + ": DDR operand [" + std::to_string(t.address) + ", " +
                       std::to_string(end) + ") outside the coefficient and activation regions");
    }
  }
}

/// Live intervals of memory blocks from the schedule (SimResult::lmem / ddr).
class LiveBlocks {
public:
  LiveBlocks(uint64_t base, uint64_t bytes, uint64_t block)
      : base(base), block(block), start((bytes + block - 1) / block, -1), lastRead(start.size(), -1) {}

  void touch(uint64_t begin, uint64_t end, bool write, int64_t t0, int64_t t1) {
    if (end <= base || begin >= base + start.size() * block)
      return;
    uint64_t b0 = (std::max(begin, base) - base) / block;
    uint64_t b1 = std::min<uint64_t>((std::min(end, base + start.size() * block) - base + block - 1) / block,
                                     start.size());
    for (uint64_t b = b0; b < b1; ++b) {
      if (write) {
        close(b);
        start[b] = t0;
        lastRead[b] = t1;
      } else if (start[b] >= 0) {
        lastRead[b] = std::max(lastRead[b], t1);
      }
    }
  }

  Occupancy finish(int64_t keepUntil = -1) {
    for (size_t b = 0; b < start.size(); ++b) {
      if (keepUntil >= 0 && start[b] >= 0)
        lastRead[b] = std::max(lastRead[b], keepUntil);
      close(b);
    }
    flush();
    std::vector<std::pair<int64_t, int64_t>> changes(deltas.begin(), deltas.end());
    std::sort(changes.begin(), changes.end());
    Occupancy o;
    int64_t live = 0;
    for (const auto &[t, delta] : changes) {
      live += delta;
      o.steps.push_back({t, live});
      o.peak = std::max(o.peak, live);
    }
    return o;
  }

private:
  void close(size_t b) {
    if (start[b] >= 0 && lastRead[b] > start[b]) {
      // Neighbouring blocks mostly share their interval: count them as one run.
      if (run.bytes == 0 || run.start != start[b] || run.end != lastRead[b]) {
        flush();
        run = {start[b], lastRead[b], 0};
      }
      run.bytes += static_cast<int64_t>(block);
    }
    start[b] = -1;
  }

  void flush() {
    if (run.bytes) {
      deltas[run.start] += run.bytes;
      deltas[run.end] -= run.bytes;
    }
    run.bytes = 0;
  }

  uint64_t base, block;
  std::vector<int64_t> start, lastRead;
  /// Bytes becoming live (+) or dead (-) per cycle: blocks start and end at command boundaries, so this
  /// stays as small as the schedule however many blocks the commands touch.
  std::unordered_map<int64_t, int64_t> deltas;
  struct {
    int64_t start = 0, end = 0, bytes = 0;
  } run; ///< Blocks closed last with the same interval, not yet in `deltas`.
};

/// LMEM (per core) and DDR activation occupancy of a finished schedule.
void occupancy(const backend::ChipProfile &chip, const Stage &s, SimResult &r) {
  uint64_t block = static_cast<uint64_t>(std::max<int64_t>(chip.lmemAlignment, 1));
  std::vector<LiveBlocks> lmem(s.cores.size(), LiveBlocks(0, static_cast<uint64_t>(chip.lmemBytesPerLane), block));
  LiveBlocks ddr(s.activationBase, s.activationBytes, block);
  for (const TensorDesc &in : s.inputs)
    ddr.touch(in.address, in.address + in.bytes, true, 0, 0);
  std::vector<const TraceEvent *> order;
  for (const TraceEvent &ev : r.events)
    order.push_back(&ev);
  std::stable_sort(order.begin(), order.end(),
                   [](const TraceEvent *a, const TraceEvent *b) { return a->start < b->start; });
  for (const TraceEvent *ev : order) {
    auto sp = spans(chip, commandOf(s, *ev));
    for (int pass = 0; pass < 2; ++pass) // reads first: an op may read and write the same buffer
      for (const Span &x : sp)
        if (x.write == (pass == 1))
          (x.space == MemSpace::LMEM ? lmem[ev->core] : ddr).touch(x.begin, x.end, x.write, ev->start, ev->end);
  }
  for (const TensorDesc &out : s.outputs)
    ddr.touch(out.address, out.address + out.bytes, false, r.totalCycles, r.totalCycles);
  r.lmem.clear();
  for (LiveBlocks &l : lmem)
    r.lmem.push_back(l.finish());
  r.ddr = ddr.finish();
}

/// One engine of one core while the schedule runs.
struct Lane {
  int core = 0;
  Engine engine = Engine::TIU;
  const std::vector<Command> *stream = nullptr;
  size_t next = 0;          ///< Index of the next command to start.
  size_t first = 0, limit = 0; ///< The block execution's range of the stream.
  std::vector<int64_t> end; ///< Per command, its end (once known).
  bool running = false;
  int64_t start = 0;
  double fixedLeft = 0;     ///< Cycles of the part that does not move DDR data still to run.
  double ddrLeft = 0;       ///< DDR cycles still to move (at the full bandwidth).
  double contended = 0;     ///< Cycles the running command lost to the other engine of its core.
  int64_t releaseAt = -1;   ///< A barrier's end, once every stream has reached it.
  int barrier = -1;         ///< The barrier it waits in.
  int barriersPassed = 0;
  const Command &current() const { return (*stream)[next]; }
  bool done() const { return !running && next >= limit; }
};

/// Commands running at once on different engines must not touch the same bytes with a write; LMEM is
/// per core.
void checkHazards(const backend::ChipProfile &chip, const Stage &s, SimResult &r) {
  struct Run {
    int64_t start, end;
    int core;
    Engine engine;
    const Command *c;
  };
  std::vector<Run> runs;
  runs.reserve(r.events.size());
  for (const TraceEvent &ev : r.events) {
    const Command &c = commandOf(s, ev);
    if (c.kind != CmdKind::Sync)
      runs.push_back({ev.start, ev.end, static_cast<int>(ev.core), ev.engine, &c});
  }
  std::stable_sort(runs.begin(), runs.end(), [](const Run &a, const Run &b) { return a.start < b.start; });
  std::vector<std::pair<size_t, std::vector<Span>>> active;
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run &x = runs[i];
    std::erase_if(active, [&](const auto &a) { return runs[a.first].end <= x.start; });
    std::vector<Span> mine = spans(chip, *x.c);
    for (const auto &[j, theirs] : active) {
      const Run &y = runs[j];
      bool conflict = false;
      for (const Span &a : mine)
        for (const Span &b : theirs)
          conflict |= a.space == b.space && (a.space == MemSpace::DDR || x.core == y.core) && (a.write || b.write) &&
                      a.begin < b.end && b.begin < a.end && touchSameBytes(a, b);
      if (conflict) {
        // Name the TIU command first (one core) and the earlier core first.
        bool tiuFirst = x.core == y.core ? x.engine == Engine::TIU : x.core < y.core;
        const Run &p = tiuFirst ? x : y, &q = tiuFirst ? y : x;
        r.errors.push_back("hazard: " + commandLabel(s, *p.c, p.core) + " and " + commandLabel(s, *q.c, q.core) +
                           " run at the same time on overlapping memory");
      }
    }
    active.emplace_back(i, std::move(mine));
  }
}

} // namespace

std::string commandLabel(const Stage &s, const Command &c, size_t core) {
  return (s.cores.size() > 1 ? "core " + std::to_string(core) + " " : std::string()) + engineName(c.engine) + " #" +
         std::to_string(c.id) + " (" + cmdKindName(c.kind) + " '" + (c.op < s.ops.size() ? s.ops[c.op].name : "?") +
         "')";
}

namespace {

/// Schedules executions of blocks (per core, a range of each stream) one after another on the engines of
/// a stage. Each execution starts once the previous one has ended; within it, a command starts when its
/// engine is free and the awaited command of the other engine has finished (a wait on a command before
/// the block's range was satisfied by an earlier execution), and the k-th barrier of every stream in
/// the execution is barrier k. A stage without blocks is one execution of its whole streams.
class Scheduler {
public:
  Scheduler(const backend::ChipProfile &chip, const Stage &s, SimResult &r) : chip(chip), s(s), r(r) {
    for (size_t k = 0; k < s.cores.size(); ++k)
      for (Engine e : {Engine::TIU, Engine::GDMA}) {
        Lane l;
        l.core = static_cast<int>(k);
        l.engine = e;
        l.stream = &s.cores[k].of(e);
        l.end.assign(l.stream->size(), -1);
        lanes.push_back(std::move(l));
      }
  }

  /// Runs one execution of `ranges` (one per core) from cycle `at`, its events tagged `execution`.
  /// False after an error (a wait beyond the block, a deadlock) in r.errors.
  bool run(const std::vector<Block::Range> &ranges, int64_t at, uint32_t execution);

  int64_t latest = 0; ///< The end of the last command so far.

private:
  Lane &other(const Lane &l) { return lanes[2 * l.core + (l.engine == Engine::TIU ? 1 : 0)]; }

  const backend::ChipProfile &chip;
  const Stage &s;
  SimResult &r;
  std::vector<Lane> lanes;
};

bool Scheduler::run(const std::vector<Block::Range> &ranges, int64_t startAt, uint32_t execution) {
  for (Lane &l : lanes) {
    const Block::Range &range = ranges[l.core];
    bool tiu = l.engine == Engine::TIU;
    l.first = tiu ? range.tiuBegin : range.gdmaBegin;
    l.limit = tiu ? range.tiuEnd : range.gdmaEnd;
    l.next = l.first;
    std::fill(l.end.begin() + l.first, l.end.begin() + l.limit, -1); // a block run again starts afresh
    l.running = false;
    l.barrier = -1;
    l.releaseAt = -1;
    l.barriersPassed = 0;
  }
  // Barrier b: how many streams reached it, the last arrival.
  std::vector<int> arrived;
  std::vector<int64_t> lastArrival;
  int64_t now = startAt;
  auto finish = [&](Lane &l, int64_t at) {
    const Command &c = l.current();
    l.end[l.next] = at;
    latest = std::max(latest, at);
    CoreTiming &ct = r.cores[l.core];
    bool tiu = l.engine == Engine::TIU;
    if (c.kind == CmdKind::Sync) {
      (tiu ? ct.tiuSync : ct.gdmaSync) += at - l.start;
      ++l.barriersPassed;
    } else {
      (tiu ? ct.tiuBusy : ct.gdmaBusy) += at - l.start;
      (tiu ? r.tiuBusy : r.gdmaBusy) += at - l.start;
      int64_t lost = static_cast<int64_t>(std::llround(l.contended));
      r.contentionCycles += lost;
      r.ddrSharedCycles += std::max<int64_t>(0, at - l.start - std::max<int64_t>(1, c.cycles) - lost);
    }
    r.events.push_back({l.engine, c.id, l.start, at, static_cast<uint32_t>(l.core), execution});
    l.running = false;
    l.barrier = -1;
    l.releaseAt = -1;
    ++l.next;
  };
  while (true) {
    // Start what can start now (a barrier's last arrival releases it, which lets nothing else start at
    // once: its end lies ahead).
    bool started = true;
    while (started) {
      started = false;
      for (Lane &l : lanes) {
        if (l.running || l.next >= l.limit)
          continue;
        const Command &c = l.current();
        Lane &o = other(l);
        if (c.wait > o.stream->size()) {
          r.errors.push_back(commandLabel(s, c, l.core) + ": waits on missing id " + std::to_string(c.wait));
          return false;
        }
        if (c.wait > o.limit) {
          r.errors.push_back(commandLabel(s, c, l.core) + ": waits on id " + std::to_string(c.wait) +
                             " after its block's last " + engineName(o.engine) + " command");
          return false;
        }
        // Ids up to the block's first were completed by earlier blocks.
        if (c.wait > o.first && (o.end[c.wait - 1] < 0 || o.end[c.wait - 1] > now))
          continue; // the awaited command has not finished
        l.running = true;
        l.start = now;
        started = true;
        if (c.kind == CmdKind::Sync) {
          int b = l.barriersPassed;
          if (b >= static_cast<int>(arrived.size())) {
            arrived.resize(b + 1, 0);
            lastArrival.resize(b + 1, 0);
          }
          l.barrier = b;
          lastArrival[b] = std::max(lastArrival[b], now);
          if (++arrived[b] == static_cast<int>(lanes.size())) {
            ++r.barriers;
            for (Lane &x : lanes)
              if (x.running && x.barrier == b)
                x.releaseAt = lastArrival[b] + std::max<int64_t>(1, x.current().cycles);
          }
          continue;
        }
        int64_t cycles = std::max<int64_t>(1, c.cycles);
        int64_t ddr = std::clamp<int64_t>(c.ddrCycles, 0, cycles);
        l.fixedLeft = static_cast<double>(cycles - ddr);
        l.ddrLeft = static_cast<double>(ddr);
        l.contended = 0;
      }
    }
    bool allDone = true;
    for (const Lane &l : lanes)
      allDone &= l.done();
    if (allDone)
      break;
    // The next moment something changes: a fixed part ends, a barrier releases, or a DDR part ends.
    // While k commands share the DDR each moves at 1/k of the bandwidth; while both engines of a core
    // run commands, each runs at 1 / (1 + npu.engine_contention) of its speed (the LMEM banks they
    // share), the cost model's overlappedCycles.
    auto working = [](const Lane &l) { return l.running && l.barrier < 0; };
    const double contendedRate = 1.0 / (1.0 + chip.engineContention);
    std::vector<double> rate(lanes.size(), 1.0);
    int sharing = 0;
    for (size_t i = 0; i < lanes.size(); ++i) {
      const Lane &l = lanes[i];
      if (!working(l))
        continue;
      if (working(other(l)))
        rate[i] = contendedRate;
      sharing += l.fixedLeft <= 1e-9 && l.ddrLeft > 1e-9;
    }
    int64_t next = INT64_MAX;
    for (size_t i = 0; i < lanes.size(); ++i) {
      const Lane &l = lanes[i];
      if (!l.running)
        continue;
      if (l.barrier >= 0) {
        if (l.releaseAt >= 0)
          next = std::min(next, l.releaseAt);
      } else if (l.fixedLeft > 1e-9) {
        next = std::min(
            next, now + std::max<int64_t>(1, static_cast<int64_t>(std::ceil(l.fixedLeft / rate[i] - 1e-6))));
      } else if (l.ddrLeft > 1e-9) {
        next = std::min(next, now + std::max<int64_t>(1, static_cast<int64_t>(std::ceil(
                                                             l.ddrLeft * sharing / rate[i] - 1e-6))));
      } else {
        next = std::min(next, now); // nothing left: it ends now
      }
    }
    if (next == INT64_MAX) {
      std::string blocked;
      for (const Lane &l : lanes) {
        if (l.next >= l.limit)
          continue;
        const Command &c = l.current();
        blocked += (blocked.empty() ? "" : ", ") + commandLabel(s, c, l.core) +
                   (c.kind == CmdKind::Sync ? " waits at barrier " + std::to_string(l.barriersPassed)
                                            : " waits on " + std::string(engineName(other(l).engine)) + " #" +
                                                  std::to_string(c.wait));
      }
      r.errors.push_back("deadlock: " + blocked);
      return false;
    }
    const double dt = static_cast<double>(next - now);
    for (size_t i = 0; i < lanes.size(); ++i) {
      Lane &l = lanes[i];
      if (!working(l))
        continue;
      l.contended += dt * (1.0 - rate[i]);
      if (l.fixedLeft > 1e-9)
        l.fixedLeft = std::max(0.0, l.fixedLeft - dt * rate[i]);
      else if (l.ddrLeft > 1e-9)
        l.ddrLeft = std::max(0.0, l.ddrLeft - dt * rate[i] / sharing);
    }
    now = next;
    for (Lane &l : lanes) {
      if (!l.running)
        continue;
      if (l.barrier >= 0 ? l.releaseAt >= 0 && l.releaseAt <= now : l.fixedLeft <= 1e-9 && l.ddrLeft <= 1e-9)
        finish(l, now);
    }
  }
  return true;
}

/// The block sequence the static rule takes (CmdSim.h), or an error in `errs`.
std::vector<uint32_t> staticPath(const Stage &s, std::vector<std::string> &errs) {
  if (s.blocks.empty())
    return {0};
  std::vector<uint32_t> path;
  std::vector<bool> reached(s.blocks.size(), false);
  for (uint32_t b = 0; b < s.blocks.size();) {
    if (path.size() >= kMaxBlockExecutions) {
      errs.push_back("control flow did not end after " + std::to_string(kMaxBlockExecutions) + " blocks");
      return {};
    }
    path.push_back(b);
    const Terminator &t = s.blocks[b].terminator;
    uint32_t next = t.kind == Terminator::Kind::Next   ? b + 1
                    : t.kind == Terminator::Kind::Jump ? t.target
                    : reached[b]                       ? t.elseTarget
                                                       : t.target;
    reached[b] = true;
    if (next > s.blocks.size()) {
      errs.push_back("block " + std::to_string(b) + " goes on with block " + std::to_string(next) + " of " +
                     std::to_string(s.blocks.size()));
      return {};
    }
    b = next;
  }
  return path;
}

} // namespace

SimResult simulateStage(const backend::ChipProfile &chip, const Stage &s) {
  SimResult r;
  std::vector<uint32_t> path = staticPath(s, r.errors);
  if (!r.errors.empty())
    return r;
  return simulateStage(chip, s, path);
}

SimResult simulateStage(const backend::ChipProfile &chip, const Stage &s, const std::vector<uint32_t> &path) {
  SimResult r;
  r.cores.assign(s.cores.size(), CoreTiming());
  r.path = path;
  for (size_t k = 0; k < s.cores.size(); ++k)
    for (Engine e : {Engine::TIU, Engine::GDMA})
      for (const Command &c : s.cores[k].of(e))
        checkBounds(chip, s, c, k, r.errors);
  // A stage without blocks is one block of its whole streams.
  std::vector<std::vector<Block::Range>> blocks;
  if (s.blocks.empty()) {
    blocks.emplace_back();
    for (const CoreStreams &core : s.cores)
      blocks.back().push_back(
          {0, static_cast<uint32_t>(core.tiu.size()), 0, static_cast<uint32_t>(core.gdma.size())});
  }
  for (size_t b = 0; b < s.blocks.size(); ++b) {
    const std::vector<Block::Range> &ranges = s.blocks[b].cores;
    bool inside = ranges.size() == s.cores.size();
    for (size_t k = 0; inside && k < ranges.size(); ++k)
      inside = ranges[k].tiuBegin <= ranges[k].tiuEnd && ranges[k].tiuEnd <= s.cores[k].tiu.size() &&
               ranges[k].gdmaBegin <= ranges[k].gdmaEnd && ranges[k].gdmaEnd <= s.cores[k].gdma.size();
    if (!inside) {
      r.errors.push_back("block " + std::to_string(b) +
                         ": its ranges do not fit the stage's cores and streams");
      return r;
    }
    blocks.push_back(ranges);
  }
  Scheduler scheduler(chip, s, r);
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] >= blocks.size()) {
      r.errors.push_back("block path: block " + std::to_string(path[i]) + " of " +
                         std::to_string(blocks.size()));
      return r;
    }
    if (!scheduler.run(blocks[path[i]], scheduler.latest, static_cast<uint32_t>(i)))
      return r;
  }
  r.totalCycles = scheduler.latest;
  occupancy(chip, s, r);
  checkHazards(chip, s, r);
  return r;
}

namespace {

/// A time in µs at 0.1 ns resolution (four decimals), as a JSON number; whole numbers stay integers.
nlohmann::ordered_json decimal(double x) {
  double r = std::round(x * 1e4) / 1e4;
  if (r == 0)
    return 0; // never -0
  if (r == std::floor(r) && std::fabs(r) < 9e15)
    return static_cast<int64_t>(r);
  return r;
}

/// One JSON value per line: control characters in names cannot break a line, bytes that are not UTF-8
/// are replaced, so the streamed reader always gets whole events.
std::string line(const nlohmann::ordered_json &value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// The DDR operand of a GDMA command (load, copy: the source; store: the destination), or null.
const TensorRef *ddrOperand(const Command &c) {
  if (c.operands.size() < 2)
    return nullptr;
  const TensorRef &t = c.operands[c.kind == CmdKind::Store ? 1 : 0];
  return t.space == MemSpace::DDR ? &t : nullptr;
}

} // namespace

std::string traceJson(const backend::ChipProfile &chip, const Stage &s, const SimResult &r) {
  const double usPerCycle = 1.0 / chip.frequencyMhz;
  auto us = [&](int64_t cycles) { return decimal(static_cast<double>(cycles) * usPerCycle); };
  const size_t cores = s.cores.size();
  // An op is named by its tensor, as dumps and the studio's graph name it; a control-flow marker (named
  // tensors but no program: the names are what its copies read and write, ModelFile.h) by its own name, as
  // the plan names it.
  auto opName = [&](uint32_t op) {
    if (op >= s.ops.size())
      return std::string("?");
    const OpInfo &info = s.ops[op];
    const bool marker = info.program.empty() && !info.operandNames.empty();
    return info.resultNames.empty() || marker ? info.name : info.resultNames[0];
  };
  using Json = nlohmann::ordered_json;
  std::ostringstream os;
  // Header: everything before the "traceEvents": [ line (docs/MODEL_FORMAT.md, trace version 2), written
  // as one object whose closing brace is left off; then the ops and events one per line, so a reader
  // streams the events without holding the file.
  Json header;
  header["schema"] = "tpuc-cmd-trace";
  header["version"] = 2;
  header["chip"] = chip.name;
  header["frequency_mhz"] = decimal(chip.frequencyMhz);
  header["stage"] = s.name;
  header["cores"] = cores;
  header["total_cycles"] = r.totalCycles;
  header["latency_us"] = us(r.totalCycles);
  header["tiu_busy"] = r.tiuBusy;
  header["gdma_busy"] = r.gdmaBusy;
  header["lmem_peak"] = r.lmemPeak();
  header["ddr_activation_peak"] = r.ddr.peak;
  header["coeff_bytes"] = s.coeffBytes;
  header["activation_base"] = s.activationBase;
  header["activation_bytes"] = s.activationBytes;
  header["barriers"] = r.barriers;
  header["ddr_shared_cycles"] = r.ddrSharedCycles;
  header["contention_cycles"] = r.contentionCycles;
  Json coreBusy = Json::array();
  for (size_t k = 0; k < cores; ++k) {
    CoreTiming t = k < r.cores.size() ? r.cores[k] : CoreTiming();
    coreBusy.push_back({{"tiu", t.tiuBusy},
                        {"gdma", t.gdmaBusy},
                        {"tiu_sync", t.tiuSync},
                        {"gdma_sync", t.gdmaSync},
                        {"lmem_peak", k < r.lmem.size() ? r.lmem[k].peak : 0}});
  }
  header["core_busy"] = std::move(coreBusy);
  header["displayTimeUnit"] = "ns";
  header["errors"] = r.errors;
  std::string headerText = line(header);
  headerText.pop_back(); // the closing brace: ops and events follow
  os << headerText << ",\n \"ops\": [";
  // Per op: the simulated cycles of its commands on each engine (the studio's cycles overlay) and how many
  // commands it has (barriers are nobody's work). Every op, so that args.op of an event indexes this list.
  std::vector<int64_t> tiu(s.ops.size(), 0), gdma(s.ops.size(), 0), commands(s.ops.size(), 0);
  for (const CoreStreams &core : s.cores)
    for (const std::vector<Command> *stream : {&core.tiu, &core.gdma})
      for (const Command &c : *stream)
        if (c.op < s.ops.size() && c.kind != CmdKind::Sync)
          ++commands[c.op];
  for (const TraceEvent &ev : r.events) {
    const Command &c = commandOf(s, ev);
    if (c.op < s.ops.size() && c.kind != CmdKind::Sync)
      (ev.engine == Engine::TIU ? tiu : gdma)[c.op] += ev.end - ev.start;
  }
  for (size_t i = 0; i < s.ops.size(); ++i)
    os << (i ? ",\n  " : "\n  ")
       << line({{"name", opName(static_cast<uint32_t>(i))},
                {"type", s.ops[i].type},
                {"tiu_cycles", tiu[i]},
                {"gdma_cycles", gdma[i]},
                {"commands", commands[i]}});
  os << "\n ],\n \"traceEvents\": [\n";
  // Events, one per line; every line but the last ends with a comma. One process per core.
  for (size_t k = 0; k < cores; ++k) {
    std::string process =
        s.name + " on " + chip.name + (cores > 1 ? " core " + std::to_string(k) : std::string());
    os << (k ? ",\n  " : "  ")
       << line({{"name", "process_name"}, {"ph", "M"}, {"pid", k}, {"args", {{"name", process}}}}) << ",\n  "
       << line({{"name", "thread_name"}, {"ph", "M"}, {"pid", k}, {"tid", 0}, {"args", {{"name", "TIU"}}}})
       << ",\n  "
       << line({{"name", "thread_name"}, {"ph", "M"}, {"pid", k}, {"tid", 1}, {"args", {{"name", "GDMA"}}}});
  }
  // Start cycle of every command that ran, per core, engine and id, for the flows.
  std::vector<std::vector<int64_t>> startOf;
  for (const CoreStreams &core : s.cores) {
    startOf.emplace_back(core.tiu.size() + 1, -1);
    startOf.emplace_back(core.gdma.size() + 1, -1);
  }
  std::vector<int> barrierOf(2 * cores, 0);
  // Per event, the start of the command it waited on: the latest run of that id so far, since events come
  // in completion order and the awaited command completed before the waiting one started (a block run
  // several times waits on its own run's commands).
  std::vector<int64_t> awaitedStart(r.events.size(), -1);
  for (size_t i = 0; i < r.events.size(); ++i) {
    const TraceEvent &ev = r.events[i];
    const Command &c = commandOf(s, ev);
    const int tid = ev.engine == Engine::TIU ? 0 : 1;
    if (const auto &starts = startOf[2 * ev.core + 1 - tid]; c.wait > 0 && c.wait < starts.size())
      awaitedStart[i] = starts[c.wait];
    startOf[2 * ev.core + tid][ev.id] = ev.start;
    Json args = {{"id", c.id},        {"wait", c.wait},   {"op", c.op},
                 {"group", c.group},  {"slice", c.slice}, {"step", c.step},
                 {"start", ev.start}, {"end", ev.end},    {"cycles", c.cycles}};
    // Events of one engine complete in order; barriers are numbered across block executions.
    if (c.kind == CmdKind::Sync)
      args["barrier"] = barrierOf[2 * ev.core + tid]++;
    if (!s.blocks.empty() && ev.execution < r.path.size())
      args["block"] = r.path[ev.execution];
    if (ev.engine == Engine::GDMA)
      if (const TensorRef *t = ddrOperand(c)) {
        int64_t elements = 1;
        for (int64_t d : t->shape)
          elements *= d;
        args["ddr"] = t->address;
        args["bytes"] = elements * backend::dtypeBytes(static_cast<backend::DType>(t->dtype));
        args["weight"] = t->address < s.coeffBytes;
      }
    os << ",\n  "
       << line({{"name", opName(c.op)},
                {"cat", cmdKindName(c.kind)},
                {"ph", "X"},
                {"pid", ev.core},
                {"tid", tid},
                {"ts", us(ev.start)},
                {"dur", us(ev.end - ev.start)},
                {"args", std::move(args)}});
  }
  // A flow from the awaited command (the core's other engine) to each command that waits.
  uint64_t flow = 0;
  for (size_t i = 0; i < r.events.size(); ++i) {
    const TraceEvent &ev = r.events[i];
    const int tid = ev.engine == Engine::TIU ? 0 : 1, other = 1 - tid;
    if (awaitedStart[i] < 0)
      continue;
    ++flow;
    os << ",\n  "
       << line({{"name", "wait"},
                {"cat", "dep"},
                {"ph", "s"},
                {"id", flow},
                {"pid", ev.core},
                {"tid", other},
                {"ts", us(awaitedStart[i])}})
       << ",\n  "
       << line({{"name", "wait"},
                {"cat", "dep"},
                {"ph", "f"},
                {"bp", "e"},
                {"id", flow},
                {"pid", ev.core},
                {"tid", tid},
                {"ts", us(ev.start)}});
  }
  // Occupancy counters at every change: each core's LMEM (its process), then the one DDR (process 0).
  for (size_t k = 0; k < r.lmem.size(); ++k)
    for (const auto &[t, bytes] : r.lmem[k].steps)
      os << ",\n  "
         << line({{"name", "LMEM"},
                  {"ph", "C"},
                  {"pid", k},
                  {"ts", us(t)},
                  {"cycle", t},
                  {"args", {{"bytes_per_lane", bytes}}}});
  for (const auto &[t, bytes] : r.ddr.steps)
    os << ",\n  "
       << line({{"name", "DDR"},
                {"ph", "C"},
                {"pid", 0},
                {"ts", us(t)},
                {"cycle", t},
                {"args", {{"activation_bytes", bytes}}}});
  os << "\n]}\n";
  return os.str();
}

} // namespace tpuc::cmdsim
