//===- Trace.cpp - Reader of the engine trace JSON (streamed, two threads) ===//
//
// simdjson's On-Demand parser reads each event in place. A version-2 file is
// read in 16 MB chunks: the header (everything before the
// ` "traceEvents": [` line) is parsed as a document of its own, then every
// event line as one small document, the lines of a chunk split over two
// threads. Anything else that is valid JSON (version 1, a trace re-saved by
// another tool) is parsed as one document.
//
//===----------------------------------------------------------------------===//

#include "tpuc/ChipData/Trace.h"


#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>

namespace tpuc::chip {

const Command *Trace::byId(Engine e, uint32_t id) const {
  const auto &cmds = of(e);
  const auto &index = idIndex[static_cast<int>(e)];
  if (id == 0)
    return nullptr;
  if (index.empty())
    return id <= cmds.size() ? &cmds[id - 1] : nullptr;
  if (id > index.size() || index[id - 1] < 0)
    return nullptr;
  return &cmds[index[id - 1]];
}

int Trace::opIndex(std::string_view name) const {
  auto it = opByName.find(std::string(name));
  return it == opByName.end() ? -1 : it->second;
}


namespace dom = simdjson::dom;

namespace {

/// Integers the views compute with stay within 2^42 (see JsonFields.h).
constexpr int64_t kLimit = int64_t(1) << 42;

/// Thrown inside the reader, converted to llvm::Error at its edge.
struct ParseError {
  std::string what;
};

[[noreturn]] inline void fail(const std::string &what) { throw ParseError{what}; }

/// What events of one batch produce.
struct Batch {
  std::vector<Command> commands;
  std::vector<CounterSample> lmem, ddr;
  /// Version 1 names ops by name in events: (command index, name) resolved afterwards.
  std::vector<std::pair<size_t, std::string>> opNames;
};

/// What an event needs of the header.
struct Context {
  int version = 2;
  double frequencyMhz = 0;
  int core = 0; ///< Commands and LMEM counters of other cores (pid) are skipped.
};

inline int64_t cyclesOf(double us, const Context &ctx) { return std::llround(us * ctx.frequencyMhz); }

void check(simdjson::error_code e, const char *what) {
  if (e)
    fail(std::string(what) + ": " + simdjson::error_message(e));
}

/// A number as an integer (integral doubles accepted), within the limit.
int64_t toInt(dom::element v, const char *field) {
  if (v.is_int64()) {
    int64_t i = v.get_int64().value_unsafe();
    if (i >= -kLimit && i <= kLimit)
      return i;
  } else if (v.is_double()) {
    double d = v.get_double().value_unsafe();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) <= static_cast<double>(kLimit))
      return static_cast<int64_t>(d);
  }
  fail(std::string(field) + ": expected an integer of at most 2^42");
}

double toDouble(dom::element v, const char *field) {
  double d;
  check(v.get_double().get(d), field);
  if (!std::isfinite(d) || std::fabs(d) > 1e15)
    fail(std::string(field) + ": number out of range");
  return d;
}

std::string_view toString(dom::element v, const char *field) {
  std::string_view s;
  check(v.get_string().get(s), field);
  return s;
}

bool toBool(dom::element v, const char *field) {
  bool b;
  check(v.get_bool().get(b), field);
  return b;
}

/// The kind of a command from its category; a category the model file does not know takes the engine's
/// generic kind (a foreign trace).
CmdKind kindOf(std::string_view cat, Engine engine) {
  for (CmdKind k : {CmdKind::Load, CmdKind::Store, CmdKind::Copy, CmdKind::Compute, CmdKind::Global, CmdKind::Sync})
    if (cat == cmdKindName(k))
      return k;
  return engine == Engine::TIU ? CmdKind::Compute : CmdKind::Copy;
}

/// A key's length and first two characters: distinct for every key readEvent knows.
constexpr uint32_t keyCode(std::string_view k) {
  return static_cast<uint32_t>(k.size() << 16) | (k.size() > 0 ? static_cast<uint8_t>(k[0]) << 8 : 0u) |
         (k.size() > 1 ? static_cast<uint8_t>(k[1]) : 0u);
}

/// Reads one trace event into `out`; events that are neither commands nor known counters are skipped.
void readEvent(dom::object obj, const Context &ctx, Batch &out) {
  std::string_view name, cat, ph;
  int64_t tid = -1, pid = 0, cycle = -1;
  double ts = 0, dur = 0;
  bool hasTs = false;
  Command c;
  int64_t start = -1, end = -1, id = 0, wait = 0, op = -1, counter = -1;
  // Keys are told apart by length and first two characters (one switch), then confirmed: a million events
  // compare ~25 keys each.
  for (dom::key_value_pair field : obj) {
    std::string_view key = field.key;
    dom::element v = field.value;
    switch (keyCode(key)) {
    case keyCode("name"):
      if (key == "name")
        name = toString(v, "name");
      break;
    case keyCode("cat"):
      if (key == "cat")
        cat = toString(v, "cat");
      break;
    case keyCode("ph"):
      if (key == "ph")
        ph = toString(v, "ph");
      break;
    case keyCode("tid"):
      if (key == "tid")
        tid = toInt(v, "tid");
      break;
    case keyCode("pid"):
      if (key == "pid")
        pid = toInt(v, "pid");
      break;
    case keyCode("ts"):
      if (key == "ts") {
        ts = toDouble(v, "ts");
        hasTs = true;
      }
      break;
    case keyCode("dur"):
      if (key == "dur")
        dur = toDouble(v, "dur");
      break;
    case keyCode("cycle"):
      if (key == "cycle")
        cycle = toInt(v, "cycle");
      break;
    case keyCode("args"): {
      if (key != "args")
        break;
      dom::object args;
      check(v.get_object().get(args), "args");
      for (dom::key_value_pair af : args) {
        std::string_view ak = af.key;
        dom::element av = af.value;
        switch (keyCode(ak)) {
        case keyCode("id"):
          if (ak == "id")
            id = toInt(av, "args.id");
          break;
        case keyCode("wait"):
          if (ak == "wait")
            wait = toInt(av, "args.wait");
          break;
        case keyCode("op"):
          if (ak == "op")
            op = toInt(av, "args.op");
          break;
        case keyCode("group"):
          if (ak == "group")
            c.group = static_cast<int32_t>(std::clamp<int64_t>(toInt(av, "args.group"), -1, INT32_MAX));
          break;
        case keyCode("slice"):
          if (ak == "slice")
            c.slice = static_cast<int32_t>(std::clamp<int64_t>(toInt(av, "args.slice"), -1, INT32_MAX));
          break;
        case keyCode("step"):
          if (ak == "step")
            c.step = static_cast<int32_t>(std::clamp<int64_t>(toInt(av, "args.step"), -1, INT32_MAX));
          break;
        case keyCode("start"):
          if (ak == "start")
            start = toInt(av, "args.start");
          break;
        case keyCode("end"):
          if (ak == "end")
            end = toInt(av, "args.end");
          break;
        case keyCode("ddr"):
          if (ak == "ddr")
            c.ddr = static_cast<uint64_t>(std::max<int64_t>(0, toInt(av, "args.ddr")));
          break;
        case keyCode("bytes"):
          if (ak == "bytes")
            c.bytes = static_cast<uint32_t>(std::clamp<int64_t>(toInt(av, "args.bytes"), 0, UINT32_MAX));
          break;
        case keyCode("weight"):
          if (ak == "weight")
            c.weight = toBool(av, "args.weight");
          break;
        case keyCode("bytes_per_lane"):
        case keyCode("activation_bytes"):
          if (ak == "bytes_per_lane" || ak == "activation_bytes")
            counter = toInt(av, "counter value");
          break;
        default: // cycles, type, and whatever else a tool adds
          break;
        }
      }
      break;
    }
    default:
      break;
    }
  }
  if (ph == "C") {
    // One DDR for the chip; each core's own LMEM (its process).
    if (counter < 0 || (name != "LMEM" && name != "DDR") || (name == "LMEM" && pid != ctx.core))
      return;
    if (cycle < 0)
      cycle = hasTs ? cyclesOf(ts, ctx) : 0;
    if (cycle < 0)
      fail("counter at a negative time");
    (name == "LMEM" ? out.lmem : out.ddr).push_back({cycle, counter});
    return;
  }
  if (ph != "X" || (tid != 0 && tid != 1) || pid != ctx.core)
    return;
  if (!hasTs)
    fail("command without ts");
  c.engine = tid == 0 ? Engine::TIU : Engine::GDMA;
  c.kind = kindOf(cat, c.engine);
  if (start < 0)
    start = cyclesOf(ts, ctx);
  if (end < 0)
    end = std::max(start + 1, cyclesOf(ts + dur, ctx));
  if (start < 0 || end < start)
    fail("command " + std::to_string(id) + " ends before it starts");
  if (id < 1 || id > UINT32_MAX || wait < 0 || wait > UINT32_MAX)
    fail("command id or wait out of range");
  c.start = start;
  c.end = end;
  c.id = static_cast<uint32_t>(id);
  c.wait = static_cast<uint32_t>(wait);
  if (ctx.version >= 2) {
    c.op = static_cast<int32_t>(std::clamp<int64_t>(op, -1, INT32_MAX));
  } else {
    out.opNames.emplace_back(out.commands.size(), std::string(name));
  }
  out.commands.push_back(c);
}

/// Reads a header field (a key of the root object other than traceEvents); unknown keys are skipped.
void readHeaderField(std::string_view key, dom::element v, Trace &t) {
  if (key == "schema") {
    if (toString(v, "schema") != "tpuc-cmd-trace")
      fail("schema: not a tpuc-cmd-trace document");
  } else if (key == "version")
    t.version = static_cast<int>(toInt(v, "version"));
  else if (key == "chip")
    t.chip = std::string(toString(v, "chip"));
  else if (key == "stage")
    t.stage = std::string(toString(v, "stage"));
  else if (key == "frequency_mhz")
    t.frequencyMhz = toDouble(v, "frequency_mhz");
  else if (key == "total_cycles")
    t.totalCycles = toInt(v, "total_cycles");
  else if (key == "latency_us") {
    double us = toDouble(v, "latency_us");
    if (t.frequencyMhz <= 0 && us > 0 && t.totalCycles > 0)
      t.frequencyMhz = t.totalCycles / us; // version 1 has no frequency
  } else if (key == "cores") {
    int64_t n = toInt(v, "cores");
    if (n < 1 || n > 64)
      fail("cores: " + std::to_string(n) + " (1 to 64)");
    t.cores = static_cast<int>(n);
  } else if (key == "core_busy") {
    dom::array cores;
    check(v.get_array().get(cores), "core_busy");
    t.coreBusy.clear();
    for (auto e : cores) {
      dom::object o;
      check(e.get_object().get(o), "core_busy[]");
      CoreBusy b;
      for (dom::key_value_pair f : o) {
        std::string_view k = f.key;
        if (k == "tiu")
          b.tiu = toInt(f.value, "core_busy[].tiu");
        else if (k == "gdma")
          b.gdma = toInt(f.value, "core_busy[].gdma");
        else if (k == "tiu_sync")
          b.tiuSync = toInt(f.value, "core_busy[].tiu_sync");
        else if (k == "gdma_sync")
          b.gdmaSync = toInt(f.value, "core_busy[].gdma_sync");
        else if (k == "lmem_peak")
          b.lmemPeak = toInt(f.value, "core_busy[].lmem_peak");
      }
      t.coreBusy.push_back(b);
    }
  } else if (key == "tiu_busy")
    t.tiuBusy = toInt(v, "tiu_busy");
  else if (key == "gdma_busy")
    t.gdmaBusy = toInt(v, "gdma_busy");
  else if (key == "lmem_peak")
    t.lmemPeak = toInt(v, "lmem_peak");
  else if (key == "ddr_activation_peak")
    t.ddrPeak = toInt(v, "ddr_activation_peak");
  else if (key == "coeff_bytes")
    t.coeffBytes = toInt(v, "coeff_bytes");
  else if (key == "activation_base")
    t.activationBase = toInt(v, "activation_base");
  else if (key == "activation_bytes")
    t.activationBytes = toInt(v, "activation_bytes");
  else if (key == "errors") {
    dom::array errors;
    check(v.get_array().get(errors), "errors");
    for (auto e : errors) {
      std::string_view s;
      check(e.get_string().get(s), "errors[]");
      t.errors.emplace_back(s);
    }
  } else if (key == "ops") {
    dom::array ops;
    check(v.get_array().get(ops), "ops");
    for (auto e : ops) {
      dom::object o;
      check(e.get_object().get(o), "ops[]");
      TraceOp op;
      for (dom::key_value_pair f : o) {
        std::string_view k = f.key;
        dom::element ov = f.value;
        if (k == "name")
          op.name = std::string(toString(ov, "ops[].name"));
        else if (k == "type")
          op.type = std::string(toString(ov, "ops[].type"));
        else if (k == "tiu_cycles")
          op.tiuCycles = toInt(ov, "ops[].tiu_cycles");
        else if (k == "gdma_cycles")
          op.gdmaCycles = toInt(ov, "ops[].gdma_cycles");
        else if (k == "commands")
          op.commands = static_cast<int>(std::clamp<int64_t>(toInt(ov, "ops[].commands"), 0, INT32_MAX));
      }
      t.opByName.emplace(op.name, static_cast<int>(t.ops.size()));
      t.ops.push_back(std::move(op));
    }
  }
}

/// After the header: checks the requested core and takes its engines' busy cycles and LMEM peak (the
/// header's own figures are the chip's: summed over cores, the largest LMEM).
void selectCore(Trace &t, int core) {
  if (core < 0 || core >= t.cores)
    fail("core " + std::to_string(core) + " requested, but the trace has " + std::to_string(t.cores) +
         (t.cores == 1 ? " core" : " cores"));
  t.core = core;
  if (t.cores > 1 && static_cast<size_t>(core) < t.coreBusy.size()) {
    const CoreBusy &b = t.coreBusy[core];
    t.tiuBusy = b.tiu;
    t.gdmaBusy = b.gdma;
    t.lmemPeak = b.lmemPeak;
  }
}

/// Parses a whole document (version 1, foreign layouts, and a version-2 header closed by an empty
/// event list).
void parseDocument(dom::parser &parser, const char *data, size_t size, Trace &t, Batch &events, int core) {
  dom::element doc;
  check(parser.parse(data, size, /*realloc_if_needed=*/false).get(doc), "not valid JSON");
  dom::object root;
  check(doc.get_object().get(root), "not a JSON object");
  bool sawSchema = false;
  for (dom::key_value_pair field : root) {
    std::string_view key = field.key;
    dom::element v = field.value;
    if (key == "traceEvents") {
      if (!sawSchema)
        fail("schema must come before traceEvents");
      if (t.version < 1 || t.version > 2)
        fail("version " + std::to_string(t.version) + " is not supported (1 and 2 are)");
      if (t.frequencyMhz <= 0)
        fail("no frequency_mhz (or latency_us and total_cycles) before traceEvents");
      Context ctx{t.version, t.frequencyMhz, core};
      dom::array arr;
      check(v.get_array().get(arr), "traceEvents");
      size_t i = 0;
      for (auto e : arr) {
        dom::object o;
        check(e.get_object().get(o), "traceEvents[]");
        try {
          readEvent(o, ctx, events);
        } catch (ParseError &err) {
          fail("traceEvents[" + std::to_string(i) + "]: " + err.what);
        }
        ++i;
      }
    } else {
      if (key == "schema")
        sawSchema = true;
      readHeaderField(key, v, t);
    }
  }
  if (!sawSchema)
    fail("schema: missing");
}

/// Parses event lines [begin, end) of `lines` (each followed by readable bytes in the chunk buffer).
void parseLines(dom::parser &parser, const std::vector<std::string_view> &lines, size_t begin, size_t end,
                const char *bufferEnd, const Context &ctx, Batch &out, std::string &error) {
  try {
    out.commands.reserve(out.commands.size() + (end - begin));
    for (size_t i = begin; i < end; ++i) {
      std::string_view text = lines[i];
      // The chunk buffer holds readable bytes after every line, so simdjson needs no copy.
      if (static_cast<size_t>(bufferEnd - text.data()) < text.size() + simdjson::SIMDJSON_PADDING)
        fail("internal: line without padding");
      dom::element doc;
      check(parser.parse(text.data(), text.size(), /*realloc_if_needed=*/false).get(doc), "not valid JSON");
      dom::object obj;
      check(doc.get_object().get(obj), "not an object");
      try {
        readEvent(obj, ctx, out);
      } catch (ParseError &e) {
        fail(e.what);
      }
    }
  } catch (ParseError &e) {
    error = e.what;
  }
}


/// Merges batches into the trace, resolves version-1 op names, sorts and validates.
void finish(Trace &t, std::vector<Batch> &batches) {
  for (Batch &b : batches) {
    for (auto &[index, name] : b.opNames) {
      auto [it, inserted] = t.opByName.emplace(name, static_cast<int>(t.ops.size()));
      if (inserted)
        t.ops.push_back({name, "", 0, 0, 0});
      b.commands[index].op = it->second;
    }
    for (const Command &c : b.commands)
      t.commands[static_cast<int>(c.engine)].push_back(c);
    t.lmem.insert(t.lmem.end(), b.lmem.begin(), b.lmem.end());
    t.ddr.insert(t.ddr.end(), b.ddr.begin(), b.ddr.end());
    b = Batch();
  }
  auto byCycle = [](const CounterSample &a, const CounterSample &b) { return a.cycle < b.cycle; };
  std::stable_sort(t.lmem.begin(), t.lmem.end(), byCycle);
  std::stable_sort(t.ddr.begin(), t.ddr.end(), byCycle);
  int64_t last = 0;
  for (int e = 0; e < kEngines; ++e) {
    auto &cmds = t.commands[e];
    auto order = [](const Command &a, const Command &b) { return a.start != b.start ? a.start < b.start : a.id < b.id; };
    if (!std::is_sorted(cmds.begin(), cmds.end(), order))
      std::stable_sort(cmds.begin(), cmds.end(), order);
    bool sequential = true;
    for (size_t i = 0; i < cmds.size(); ++i) {
      const Command &c = cmds[i];
      if (c.op >= static_cast<int32_t>(t.ops.size()))
        fail(std::string(engineName(c.engine)) + " #" + std::to_string(c.id) + ": op " + std::to_string(c.op) +
             " of " + std::to_string(t.ops.size()));
      sequential &= c.id == i + 1;
      last = std::max(last, c.end);
    }
    if (!sequential) {
      auto &index = t.idIndex[e];
      uint32_t maxId = 0;
      for (const Command &c : cmds)
        maxId = std::max(maxId, c.id);
      if (maxId > 4 * cmds.size() + 1024)
        fail(std::string(engineName(static_cast<Engine>(e))) + " command ids are not dense (id " +
             std::to_string(maxId) + " among " + std::to_string(cmds.size()) + " commands)");
      index.assign(maxId, -1);
      // An id appears again when its block ran several times (a loop's body, model file version 5):
      // byId names its first run.
      for (size_t i = 0; i < cmds.size(); ++i)
        if (index[cmds[i].id - 1] < 0)
          index[cmds[i].id - 1] = static_cast<int32_t>(i);
    }
  }
  t.totalCycles = std::max(t.totalCycles, last);
}

llvm::Error toError(const std::string &source, const std::string &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s", source.c_str(), what.c_str());
}

/// Strips a trailing comma, whitespace and CR; returns the event text of a line, or empty.
std::string_view eventText(std::string_view line) {
  while (!line.empty() && (line.back() == ',' || line.back() == ' ' || line.back() == '\r' || line.back() == '\t'))
    line.remove_suffix(1);
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
    line.remove_prefix(1);
  return line;
}

/// The streamed read of a version-2 file. Returns false (and leaves `t` untouched) when the file does
/// not have version 2's layout, so the caller reads it whole.
bool readStreamed(std::FILE *f, Trace &t, bool headerOnly, int core) {
  constexpr std::string_view kEventsLine = "\"traceEvents\": [";
  // 16 MB chunks, or the whole file when it is smaller (+1: the read that sees the end of the file).
  size_t chunk = 16 << 20;
  if (std::fseek(f, 0, SEEK_END) == 0) {
    long size = std::ftell(f);
    if (size >= 0)
      chunk = std::min<size_t>(chunk, std::max<size_t>(static_cast<size_t>(size) + 1, 4096));
    std::rewind(f);
  }
  std::vector<char> buf(chunk + simdjson::SIMDJSON_PADDING);
  std::string header;
  size_t have = 0, lineNo = 0;
  bool inEvents = false, ended = false;
  Trace parsed;
  Context ctx;
  dom::parser parsers[2];
  std::vector<Batch> batches;
  std::vector<std::string_view> lines;
  std::vector<size_t> lineNumbers;
  bool eof = false;
  while (!eof || have > 0) {
    if (!eof) {
      if (have == chunk) {
        if (!inEvents)
          return false; // a header line longer than the buffer: not our layout
        throw ParseError{"line " + std::to_string(lineNo + 1) + ": an event line longer than 16 MB"};
      }
      size_t n = std::fread(buf.data() + have, 1, chunk - have, f);
      if (std::ferror(f))
        throw ParseError{"read error"};
      have += n;
      eof = n == 0 || std::feof(f);
    }
    std::memset(buf.data() + have, ' ', simdjson::SIMDJSON_PADDING);
    // Complete lines of the buffer (all of it at the end of the file).
    size_t pos = 0;
    lines.clear();
    lineNumbers.clear();
    while (pos < have) {
      const char *nl = static_cast<const char *>(std::memchr(buf.data() + pos, '\n', have - pos));
      if (!nl && !eof)
        break;
      size_t len = nl ? static_cast<size_t>(nl - (buf.data() + pos)) : have - pos;
      std::string_view line(buf.data() + pos, len);
      pos += len + (nl ? 1 : 0);
      ++lineNo;
      if (!inEvents) {
        if (eventText(line) == kEventsLine) {
          // The header as a document of its own: its text, then an empty event list.
          header += "\"traceEvents\": []}";
          simdjson::padded_string padded(header);
          Batch none;
          parseDocument(parsers[0], padded.data(), padded.size(), parsed, none, core);
          if (parsed.version != 2)
            return false;
          selectCore(parsed, core);
          ctx = {parsed.version, parsed.frequencyMhz, core};
          if (headerOnly) {
            t = std::move(parsed);
            return true;
          }
          inEvents = true;
          header.clear();
          continue;
        }
        if (header.size() + line.size() > (size_t(256) << 20))
          return false;
        header.append(line);
        header += '\n';
        continue;
      }
      std::string_view text = eventText(line);
      if (text.empty())
        continue;
      if (ended)
        throw ParseError{"line " + std::to_string(lineNo) + ": content after the end of the document"};
      if (text == "]}") {
        ended = true;
        continue;
      }
      if (text.front() != '{' || text.back() != '}') {
        if (!nl && eof) // the last bytes of the file, cut inside an event
          throw ParseError{"line " + std::to_string(lineNo) + ": the file ends inside an event (truncated?)"};
        return false; // an event over several lines: not version 2's layout, read the whole document
      }
      lines.push_back(text);
      lineNumbers.push_back(lineNo);
    }
    if (!lines.empty()) {
      // Two halves on two threads; each keeps its own parser and output.
      size_t mid = lines.size() / 2;
      Batch a, b;
      std::string errA, errB;
      const char *end = buf.data() + have + simdjson::SIMDJSON_PADDING;
      if (lines.size() >= 4096) {
        std::thread worker([&] { parseLines(parsers[1], lines, mid, lines.size(), end, ctx, b, errB); });
        parseLines(parsers[0], lines, 0, mid, end, ctx, a, errA);
        worker.join();
      } else {
        parseLines(parsers[0], lines, 0, lines.size(), end, ctx, a, errA);
        mid = lines.size();
      }
      if (!errA.empty() || !errB.empty()) {
        // Name the first failing line.
        Batch probe;
        std::string err;
        for (size_t i = 0; i < lines.size(); ++i) {
          parseLines(parsers[0], lines, i, i + 1, end, ctx, probe, err);
          if (!err.empty())
            throw ParseError{"line " + std::to_string(lineNumbers[i]) + ": " + err};
        }
        throw ParseError{errA.empty() ? errB : errA};
      }
      batches.push_back(std::move(a));
      batches.push_back(std::move(b));
    }
    std::memmove(buf.data(), buf.data() + pos, have - pos);
    have -= pos;
    if (eof && have == 0)
      break;
  }
  if (!inEvents)
    return false;
  if (!ended)
    throw ParseError{"the file ends inside traceEvents (truncated?)"};
  finish(parsed, batches);
  t = std::move(parsed);
  return true;
}

/// Parses a whole document held with simdjson's padding.
llvm::Expected<Trace> parsePadded(const simdjson::padded_string_view &text, const std::string &source, int core) {
  try {
    Trace t;
    std::vector<Batch> batches(1);
    dom::parser parser;
    parseDocument(parser, text.data(), text.size(), t, batches[0], core);
    selectCore(t, core);
    finish(t, batches);
    return t;
  } catch (ParseError &e) {
    return toError(source, e.what);
  } catch (std::bad_alloc &) {
    return toError(source, "out of memory");
  }
}

} // namespace

llvm::Expected<Trace> parseTrace(std::string_view text, std::string_view source, int core) {
  simdjson::padded_string padded(text);
  return parsePadded(padded, std::string(source), core);
}

namespace {

llvm::Expected<Trace> readTrace(const std::string &path, bool headerOnly, int core) {
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f)
    return toError(path, "cannot open the trace");
  try {
    Trace t;
    if (readStreamed(f.get(), t, headerOnly, core))
      return t;
  } catch (ParseError &e) {
    return toError(path, e.what);
  } catch (std::bad_alloc &) {
    return toError(path, "out of memory");
  }
  // Not version 2's layout: read the whole document.
  simdjson::padded_string text;
  if (auto e = simdjson::padded_string::load(path).get(text))
    return toError(path, std::string("cannot read: ") + simdjson::error_message(e));
  return parsePadded(text, path, core);
}

} // namespace

llvm::Expected<Trace> readTraceFile(const std::string &path, int core) { return readTrace(path, false, core); }

llvm::Expected<Trace> readTraceSummary(const std::string &path) { return readTrace(path, true, 0); }

} // namespace tpuc::chip
