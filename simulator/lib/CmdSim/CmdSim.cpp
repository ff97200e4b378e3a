//===- CmdSim.cpp - Dependencies, cycles, bounds and hazards of command streams ===//

#include "tpuc/Simulator/CmdSim.h"

#include "tpuc/Backend/Graph.h"

#include <algorithm>
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
};

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
    out.push_back({t.space, t.address, t.address + extent(chip, t), write});
  }
  return out;
}

std::string where(const Stage &s, const Command &c) {
  return std::string(engineName(c.engine)) + " #" + std::to_string(c.id) + " (" + cmdKindName(c.kind) + " '" +
         (c.op < s.ops.size() ? s.ops[c.op].name : "?") + "')";
}

void checkBounds(const backend::ChipProfile &chip, const Stage &s, const Command &c,
                 std::vector<std::string> &errs) {
  for (const TensorRef &t : c.operands) {
    uint64_t end = t.address + extent(chip, t);
    if (t.space == MemSpace::LMEM) {
      if (end > static_cast<uint64_t>(chip.lmemBytesPerLane) || t.lane >= static_cast<uint64_t>(chip.lanes))
        errs.push_back(where(s, c) + ": LMEM operand [" + std::to_string(t.address) + ", " +
                       std::to_string(end) + ") outside the " + std::to_string(chip.lmemBytesPerLane) +
                       "-byte lane");
    } else {
      bool coeff = end <= s.coeffBytes;
      bool act = t.address >= s.activationBase && end <= s.activationBase + s.activationBytes;
      if (!coeff && !act)
        errs.push_back(where(s, c) + ": DDR operand [" + std::to_string(t.address) + ", " +
                       std::to_string(end) + ") outside the coefficient and activation regions");
    }
  }
}

bool conflict(const std::vector<Span> &a, const std::vector<Span> &b) {
  for (const Span &x : a)
    for (const Span &y : b)
      if (x.space == y.space && (x.write || y.write) && x.begin < y.end && y.begin < x.end)
        return true;
  return false;
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

/// LMEM and DDR activation occupancy of a finished schedule.
void occupancy(const backend::ChipProfile &chip, const Stage &s, SimResult &r) {
  uint64_t block = static_cast<uint64_t>(std::max<int64_t>(chip.lmemAlignment, 1));
  LiveBlocks lmem(0, static_cast<uint64_t>(chip.lmemBytesPerLane), block);
  LiveBlocks ddr(s.activationBase, s.activationBytes, block);
  for (const TensorDesc &in : s.inputs)
    ddr.touch(in.address, in.address + in.bytes, true, 0, 0);
  std::vector<const TraceEvent *> order;
  for (const TraceEvent &ev : r.events)
    order.push_back(&ev);
  std::stable_sort(order.begin(), order.end(),
                   [](const TraceEvent *a, const TraceEvent *b) { return a->start < b->start; });
  for (const TraceEvent *ev : order) {
    const Command &c = (ev->engine == Engine::TIU ? s.tiu : s.gdma)[ev->id - 1];
    auto sp = spans(chip, c);
    for (int pass = 0; pass < 2; ++pass) // reads first: an op may read and write the same buffer
      for (const Span &x : sp)
        if (x.write == (pass == 1))
          (x.space == MemSpace::LMEM ? lmem : ddr).touch(x.begin, x.end, x.write, ev->start, ev->end);
  }
  for (const TensorDesc &out : s.outputs)
    ddr.touch(out.address, out.address + out.bytes, false, r.totalCycles, r.totalCycles);
  r.lmem = lmem.finish();
  r.ddr = ddr.finish();
}

} // namespace

SimResult simulateStage(const backend::ChipProfile &chip, const Stage &s) {
  SimResult r;
  const std::vector<Command> *streams[2] = {&s.tiu, &s.gdma};
  std::vector<int64_t> endOf[2] = {std::vector<int64_t>(s.tiu.size()), std::vector<int64_t>(s.gdma.size())};
  size_t next[2] = {0, 0};
  int64_t freeAt[2] = {0, 0};
  for (int e = 0; e < 2; ++e)
    for (const Command &c : *streams[e])
      checkBounds(chip, s, c, r.errors);
  while (next[0] < s.tiu.size() || next[1] < s.gdma.size()) {
    bool progressed = false;
    for (int e = 0; e < 2; ++e) {
      int o = 1 - e;
      while (next[e] < streams[e]->size()) {
        const Command &c = (*streams[e])[next[e]];
        if (c.wait > streams[o]->size()) {
          r.errors.push_back(where(s, c) + ": waits on missing id " + std::to_string(c.wait));
          return r;
        }
        if (c.wait > next[o])
          break; // the awaited command has not run yet
        int64_t start = std::max(freeAt[e], c.wait ? endOf[o][c.wait - 1] : 0);
        int64_t end = start + std::max<int64_t>(1, c.cycles);
        endOf[e][next[e]] = end;
        freeAt[e] = end;
        (e == 0 ? r.tiuBusy : r.gdmaBusy) += end - start;
        r.events.push_back({c.engine, c.id, start, end});
        ++next[e];
        progressed = true;
      }
    }
    if (!progressed) {
      r.errors.push_back("deadlock: " + where(s, s.tiu[next[0]]) + " waits on GDMA #" +
                         std::to_string(s.tiu[next[0]].wait) + ", " + where(s, s.gdma[next[1]]) +
                         " waits on TIU #" + std::to_string(s.gdma[next[1]].wait));
      return r;
    }
  }
  r.totalCycles = std::max(freeAt[0], freeAt[1]);
  occupancy(chip, s, r);
  // Hazards: commands of different engines overlapping in time must not touch the same bytes with a write.
  std::vector<std::vector<Span>> gdmaSpans;
  for (const Command &c : s.gdma)
    gdmaSpans.push_back(spans(chip, c));
  size_t lo = 0;
  for (size_t i = 0; i < s.tiu.size(); ++i) {
    int64_t start = endOf[0][i] - std::max<int64_t>(1, s.tiu[i].cycles), end = endOf[0][i];
    auto ts = spans(chip, s.tiu[i]);
    while (lo < s.gdma.size() && endOf[1][lo] <= start)
      ++lo;
    for (size_t j = lo; j < s.gdma.size(); ++j) {
      int64_t gs = endOf[1][j] - std::max<int64_t>(1, s.gdma[j].cycles);
      if (gs >= end)
        break;
      if (endOf[1][j] > start && conflict(ts, gdmaSpans[j]))
        r.errors.push_back("hazard: " + where(s, s.tiu[i]) + " and " + where(s, s.gdma[j]) +
                           " run at the same time on overlapping memory");
    }
  }
  return r;
}

namespace {

/// A JSON string's contents: `"` and `\` escaped, control characters dropped (one event per line).
std::string jsonText(const std::string &t) {
  std::string o;
  o.reserve(t.size());
  for (char ch : t) {
    if (static_cast<unsigned char>(ch) < 0x20)
      continue;
    if (ch == '"' || ch == '\\')
      o += '\\';
    o += ch;
  }
  return o;
}

/// A non-negative number with at most four decimals and no trailing zeros (0.1 ns resolution in µs).
std::string decimal(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f", x);
  std::string t = buf;
  while (!t.empty() && t.back() == '0')
    t.pop_back();
  if (!t.empty() && t.back() == '.')
    t.pop_back();
  return t == "-0" ? "0" : t;
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
  auto commandOf = [&](const TraceEvent &ev) -> const Command & {
    return (ev.engine == Engine::TIU ? s.tiu : s.gdma)[ev.id - 1];
  };
  // An op is named by its tensor, as dumps and the studio's graph name it.
  auto opName = [&](uint32_t op) {
    if (op >= s.ops.size())
      return std::string("?");
    return s.ops[op].resultNames.empty() ? s.ops[op].name : s.ops[op].resultNames[0];
  };
  std::ostringstream os;
  // Header: everything before the " \"traceEvents\": [" line (docs/MODEL_FORMAT.md, trace version 2).
  os << "{\"schema\": \"tpuc-cmd-trace\", \"version\": 2, \"chip\": \"" << jsonText(chip.name)
     << "\", \"frequency_mhz\": " << decimal(chip.frequencyMhz) << ", \"stage\": \"" << jsonText(s.name) << "\",\n"
     << " \"total_cycles\": " << r.totalCycles << ", \"latency_us\": " << us(r.totalCycles)
     << ", \"tiu_busy\": " << r.tiuBusy << ", \"gdma_busy\": " << r.gdmaBusy << ", \"lmem_peak\": " << r.lmem.peak
     << ",\n \"ddr_activation_peak\": " << r.ddr.peak << ", \"coeff_bytes\": " << s.coeffBytes
     << ", \"activation_base\": " << s.activationBase << ", \"activation_bytes\": " << s.activationBytes << ",\n"
     << " \"displayTimeUnit\": \"ns\", \"errors\": [";
  for (size_t i = 0; i < r.errors.size(); ++i)
    os << (i ? ", " : "") << "\"" << jsonText(r.errors[i]) << "\"";
  os << "],\n \"ops\": [";
  // Per op: the simulated cycles of its commands on each engine (the studio's cycles overlay) and how many
  // commands it has. Every op, so that args.op of an event indexes this list.
  std::vector<int64_t> tiu(s.ops.size(), 0), gdma(s.ops.size(), 0), commands(s.ops.size(), 0);
  for (const std::vector<Command> *stream : {&s.tiu, &s.gdma})
    for (const Command &c : *stream)
      if (c.op < s.ops.size())
        ++commands[c.op];
  for (const TraceEvent &ev : r.events) {
    const Command &c = commandOf(ev);
    if (c.op < s.ops.size())
      (ev.engine == Engine::TIU ? tiu : gdma)[c.op] += ev.end - ev.start;
  }
  for (size_t i = 0; i < s.ops.size(); ++i)
    os << (i ? ",\n  " : "\n  ") << "{\"name\": \"" << jsonText(opName(static_cast<uint32_t>(i)))
       << "\", \"type\": \"" << jsonText(s.ops[i].type) << "\", \"tiu_cycles\": " << tiu[i]
       << ", \"gdma_cycles\": " << gdma[i] << ", \"commands\": " << commands[i] << "}";
  os << "\n ],\n \"traceEvents\": [\n";
  // Events, one per line; every line but the last ends with a comma.
  os << "  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"name\": \"" << jsonText(s.name)
     << " on " << jsonText(chip.name) << "\"}},\n"
     << "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"args\": {\"name\": \"TIU\"}},\n"
     << "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 1, \"args\": {\"name\": \"GDMA\"}}";
  // Start cycle of every command that ran, per engine and id, for the flows.
  std::vector<int64_t> startOf[2] = {std::vector<int64_t>(s.tiu.size() + 1, -1),
                                     std::vector<int64_t>(s.gdma.size() + 1, -1)};
  for (const TraceEvent &ev : r.events) {
    const Command &c = commandOf(ev);
    const int tid = ev.engine == Engine::TIU ? 0 : 1;
    startOf[tid][ev.id] = ev.start;
    os << ",\n  {\"name\": \"" << jsonText(opName(c.op)) << "\", \"cat\": \"" << cmdKindName(c.kind)
       << "\", \"ph\": \"X\", \"pid\": 0, \"tid\": " << tid << ", \"ts\": " << us(ev.start)
       << ", \"dur\": " << us(ev.end - ev.start) << ", \"args\": {\"id\": " << c.id << ", \"wait\": " << c.wait
       << ", \"op\": " << c.op << ", \"group\": " << c.group << ", \"slice\": " << c.slice
       << ", \"step\": " << c.step << ", \"start\": " << ev.start << ", \"end\": " << ev.end
       << ", \"cycles\": " << c.cycles;
    if (ev.engine == Engine::GDMA)
      if (const TensorRef *t = ddrOperand(c)) {
        int64_t elements = 1;
        for (int64_t d : t->shape)
          elements *= d;
        int64_t bytes = elements * backend::dtypeBytes(static_cast<backend::DType>(t->dtype));
        os << ", \"ddr\": " << t->address << ", \"bytes\": " << bytes
           << ", \"weight\": " << (t->address < s.coeffBytes ? "true" : "false");
      }
    os << "}}";
  }
  // A flow from the awaited command (the other engine) to each command that waits.
  uint64_t flow = 0;
  for (const TraceEvent &ev : r.events) {
    const Command &c = commandOf(ev);
    const int tid = ev.engine == Engine::TIU ? 0 : 1, other = 1 - tid;
    if (c.wait == 0 || c.wait >= startOf[other].size() || startOf[other][c.wait] < 0)
      continue;
    ++flow;
    os << ",\n  {\"name\": \"wait\", \"cat\": \"dep\", \"ph\": \"s\", \"id\": " << flow
       << ", \"pid\": 0, \"tid\": " << other << ", \"ts\": " << us(startOf[other][c.wait]) << "}"
       << ",\n  {\"name\": \"wait\", \"cat\": \"dep\", \"ph\": \"f\", \"bp\": \"e\", \"id\": " << flow
       << ", \"pid\": 0, \"tid\": " << tid << ", \"ts\": " << us(ev.start) << "}";
  }
  for (const auto &[occ, name, field] : {std::tuple{&r.lmem, "LMEM", "bytes_per_lane"},
                                          std::tuple{&r.ddr, "DDR", "activation_bytes"}})
    for (const auto &[t, bytes] : occ->steps)
      os << ",\n  {\"name\": \"" << name << "\", \"ph\": \"C\", \"pid\": 0, \"ts\": " << us(t)
         << ", \"cycle\": " << t << ", \"args\": {\"" << field << "\": " << bytes << "}}";
  os << "\n]}\n";
  return os.str();
}

} // namespace tpuc::cmdsim
