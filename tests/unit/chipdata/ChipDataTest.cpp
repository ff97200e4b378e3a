// TpucChipData: the plan and trace readers (versions 1 and 2, streamed and whole, errors naming the field or
// line) and the analyses with hand-worked answers (LOD sums, idle attribution, critical path, occupancy).
#include "tpuc/ChipData/Analysis.h"
#include "tpuc/ChipData/Run.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

using namespace tpuc::chip;

namespace {

std::string inputs(const std::string &name) { return std::string(TPUC_CHIPDATA_INPUTS) + "/" + name; }

std::string tempFile(const std::string &name, const std::string &text) {
  auto dir = std::filesystem::temp_directory_path() / ("chipdata-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string errorOf(llvm::Error e) { return llvm::toString(std::move(e)); }

// A hand-made version-2 trace at 100 MHz (1 cycle = 0.01 us). Ops: A (weights loaded), B (inputs loaded),
// C (computed, then stored).
//   TIU : #1 [10,30) waits GDMA#1   #2 [55,65) waits GDMA#2   #3 [65,75)
//   GDMA: #1 [0,10) load A weights  #2 [10,55) load B inputs   #3 [75,90) store C, waits TIU#3
const char *kTrace = R"({"schema": "tpuc-cmd-trace", "version": 2, "chip": "test", "frequency_mhz": 100, "stage": "main",
 "total_cycles": 90, "latency_us": 0.9, "tiu_busy": 40, "gdma_busy": 70, "lmem_peak": 300, "ddr_activation_peak": 0,
 "coeff_bytes": 4096, "activation_base": 4096, "activation_bytes": 8192, "displayTimeUnit": "ns", "errors": [],
 "ops": [
  {"name": "A", "type": "tpu.conv2d", "tiu_cycles": 20, "gdma_cycles": 10, "commands": 2},
  {"name": "B", "type": "tpu.add", "tiu_cycles": 10, "gdma_cycles": 45, "commands": 2},
  {"name": "C", "type": "tpu.conv2d", "tiu_cycles": 10, "gdma_cycles": 15, "commands": 2}
 ],
 "traceEvents": [
  {"name": "thread_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "TIU"}},
  {"name": "A", "cat": "load", "ph": "X", "pid": 0, "tid": 1, "ts": 0, "dur": 0.1, "args": {"id": 1, "wait": 0, "op": 0, "group": 0, "slice": -1, "step": 0, "start": 0, "end": 10, "cycles": 10, "ddr": 0, "bytes": 512, "weight": true}},
  {"name": "A", "cat": "compute", "ph": "X", "pid": 0, "tid": 0, "ts": 0.1, "dur": 0.2, "args": {"id": 1, "wait": 1, "op": 0, "group": 0, "slice": 0, "step": 1, "start": 10, "end": 30, "cycles": 20}},
  {"name": "B", "cat": "load", "ph": "X", "pid": 0, "tid": 1, "ts": 0.1, "dur": 0.45, "args": {"id": 2, "wait": 0, "op": 1, "group": 0, "slice": 0, "step": 1, "start": 10, "end": 55, "cycles": 45, "ddr": 4096, "bytes": 2048, "weight": false}},
  {"name": "wait", "cat": "dep", "ph": "s", "id": 1, "pid": 0, "tid": 1, "ts": 0},
  {"name": "wait", "cat": "dep", "ph": "f", "bp": "e", "id": 1, "pid": 0, "tid": 0, "ts": 0.1},
  {"name": "B", "cat": "compute", "ph": "X", "pid": 0, "tid": 0, "ts": 0.55, "dur": 0.1, "args": {"id": 2, "wait": 2, "op": 1, "group": 0, "slice": 0, "step": 2, "start": 55, "end": 65, "cycles": 10}},
  {"name": "C", "cat": "compute", "ph": "X", "pid": 0, "tid": 0, "ts": 0.65, "dur": 0.1, "args": {"id": 3, "wait": 0, "op": 2, "group": 1, "slice": 0, "step": 1, "start": 65, "end": 75, "cycles": 10}},
  {"name": "C", "cat": "store", "ph": "X", "pid": 0, "tid": 1, "ts": 0.75, "dur": 0.15, "args": {"id": 3, "wait": 3, "op": 2, "group": 1, "slice": 0, "step": 2, "start": 75, "end": 90, "cycles": 15, "ddr": 6000, "bytes": 1024, "weight": false}},
  {"name": "LMEM", "ph": "C", "pid": 0, "ts": 0, "cycle": 0, "args": {"bytes_per_lane": 100}},
  {"name": "LMEM", "ph": "C", "pid": 0, "ts": 0.1, "cycle": 10, "args": {"bytes_per_lane": 300}},
  {"name": "LMEM", "ph": "C", "pid": 0, "ts": 0.75, "cycle": 75, "args": {"bytes_per_lane": 0}}
]}
)";

Trace parsed(const std::string &text) {
  auto t = parseTrace(text, "test.json");
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : errorOf(t.takeError()));
  return t ? std::move(*t) : Trace();
}

} // namespace

TEST(ChipTrace, ReadsVersion2) {
  Trace t = parsed(kTrace);
  EXPECT_EQ(t.version, 2);
  EXPECT_EQ(t.chip, "test");
  EXPECT_DOUBLE_EQ(t.frequencyMhz, 100);
  EXPECT_EQ(t.totalCycles, 90);
  ASSERT_EQ(t.ops.size(), 3u);
  ASSERT_EQ(t.of(Engine::TIU).size(), 3u);
  ASSERT_EQ(t.of(Engine::GDMA).size(), 3u);
  const Command &g1 = t.of(Engine::GDMA)[0];
  EXPECT_EQ(g1.kind, CmdKind::Load);
  EXPECT_TRUE(g1.weight);
  EXPECT_EQ(g1.bytes, 512u);
  EXPECT_EQ(t.of(Engine::GDMA)[1].ddr, 4096u);
  EXPECT_EQ(t.of(Engine::TIU)[1].wait, 2u);
  EXPECT_EQ(t.byId(Engine::GDMA, 3)->kind, CmdKind::Store);
  EXPECT_EQ(t.byId(Engine::TIU, 4), nullptr);
  ASSERT_EQ(t.lmem.size(), 3u);
  EXPECT_EQ(t.lmem[1].cycle, 10);
  EXPECT_EQ(t.lmem[1].bytes, 300);
}

TEST(ChipTrace, StreamedFileEqualsWholeDocument) {
  // Many events so the streamed reader splits them over two threads.
  std::ostringstream os;
  std::string head(kTrace);
  head = head.substr(0, head.find(" \"traceEvents\": ["));
  os << head << " \"traceEvents\": [\n";
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    int e = i % 2;
    int id = i / 2 + 1;
    int64_t start = (i / 2) * 10 + e * 3;
    os << "  {\"name\": \"A\", \"cat\": \"" << (e ? "load" : "compute") << "\", \"ph\": \"X\", \"pid\": 0, \"tid\": " << e
       << ", \"ts\": " << start / 100.0 << ", \"dur\": 0.05, \"args\": {\"id\": " << id << ", \"wait\": " << (e ? 0 : id)
       << ", \"op\": " << (i % 3) << ", \"group\": " << i / 100 << ", \"slice\": 0, \"step\": 0, \"start\": " << start
       << ", \"end\": " << start + 5 << ", \"cycles\": 5}}" << (i + 1 < n ? "," : "") << "\n";
  }
  os << "]}\n";
  std::string text = os.str();
  std::string path = tempFile("streamed.json", text);
  auto streamed = readTraceFile(path);
  ASSERT_TRUE(static_cast<bool>(streamed)) << errorOf(streamed.takeError());
  Trace whole = parsed(text);
  ASSERT_EQ(streamed->commandCount(), static_cast<size_t>(n));
  for (int e = 0; e < kEngines; ++e) {
    ASSERT_EQ(streamed->commands[e].size(), whole.commands[e].size());
    for (size_t i = 0; i < whole.commands[e].size(); ++i) {
      const Command &a = streamed->commands[e][i], &b = whole.commands[e][i];
      EXPECT_EQ(a.start, b.start);
      EXPECT_EQ(a.end, b.end);
      EXPECT_EQ(a.id, b.id);
      EXPECT_EQ(a.op, b.op);
      EXPECT_EQ(a.group, b.group);
    }
  }
  // Re-indented by another tool (one event over several lines): read whole, same result.
  std::string reformatted = text;
  for (size_t p = 0; (p = reformatted.find(", \"args\"", p)) != std::string::npos; p += 10)
    reformatted.replace(p, 2, ",\n    ");
  auto other = readTraceFile(tempFile("reformatted.json", reformatted));
  ASSERT_TRUE(static_cast<bool>(other)) << errorOf(other.takeError());
  EXPECT_EQ(other->commandCount(), static_cast<size_t>(n));
}

TEST(ChipTrace, ErrorsNameTheFileAndLine) {
  std::string text(kTrace);
  // A truncated file.
  std::string truncated = text.substr(0, text.find("{\"name\": \"C\", \"cat\": \"store\""));
  std::string path = tempFile("truncated.json", truncated);
  auto t = readTraceFile(path);
  ASSERT_FALSE(static_cast<bool>(t));
  std::string err = errorOf(t.takeError());
  EXPECT_NE(err.find(path), std::string::npos) << err;
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;
  // A bad field on one line: the line is named.
  std::string bad = text;
  bad.replace(bad.find("\"start\": 55"), 11, "\"start\": \"x\"");
  t = readTraceFile(tempFile("bad.json", bad));
  ASSERT_FALSE(static_cast<bool>(t));
  err = errorOf(t.takeError());
  EXPECT_NE(err.find("line 16"), std::string::npos) << err;
  EXPECT_NE(err.find("args.start"), std::string::npos) << err;
  // Not a trace at all.
  t = parseTrace(R"({"schema": "tpuc-backend-plan", "version": 1})", "plan.json");
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_NE(errorOf(t.takeError()).find("plan.json: schema"), std::string::npos);
  // An op index out of range.
  std::string badOp = text;
  badOp.replace(badOp.find("\"op\": 2, \"group\": 1, \"slice\": 0, \"step\": 1"), 7, "\"op\": 9");
  t = parseTrace(badOp, "x.json");
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_NE(errorOf(t.takeError()).find("op 9 of 3"), std::string::npos);
}

TEST(ChipTrace, ReadsVersion1) {
  auto t = readTraceFile(inputs("resnet18_int8_bm1684x_trace_v1.json"));
  ASSERT_TRUE(static_cast<bool>(t)) << errorOf(t.takeError());
  EXPECT_EQ(t->version, 1);
  EXPECT_EQ(t->totalCycles, 308839);
  EXPECT_NEAR(t->frequencyMhz, 950, 0.5); // derived from latency_us and total_cycles
  int64_t tiu = 0, gdma = 0;
  for (const Command &c : t->of(Engine::TIU))
    tiu += c.duration();
  for (const Command &c : t->of(Engine::GDMA))
    gdma += c.duration();
  // Cycles are recovered from microseconds: within a cycle per command of the recorded busy totals.
  EXPECT_NEAR(tiu, 147998, static_cast<double>(t->of(Engine::TIU).size()));
  EXPECT_NEAR(gdma, 212601, static_cast<double>(t->of(Engine::GDMA).size()));
  EXPECT_FALSE(t->lmem.empty());
}

TEST(ChipPlan, ReadsVersion1) {
  auto p = readPlanFile(inputs("resnet18_int8_bm1684x_plan_v1.json"));
  ASSERT_TRUE(static_cast<bool>(p)) << errorOf(p.takeError());
  EXPECT_EQ(p->chip.name, "bm1684x");
  EXPECT_EQ(p->chip.lanes, 64);
  ASSERT_EQ(p->groups.size(), 6u);
  const Group &g0 = p->groups[0];
  EXPECT_FALSE(g0.global);
  EXPECT_EQ(g0.ops.size(), 3u);
  EXPECT_EQ(g0.cuts[2], 4);
  EXPECT_EQ(g0.steps.size(), g0.slices.size() + 2);
  EXPECT_EQ(g0.rects.size(), 18u);
  EXPECT_TRUE(p->groups[3].global);
  // Every rect fits its lane and every value named is interned.
  for (const Group &g : p->groups)
    for (const LmemRect &r : g.rects) {
      EXPECT_LE(r.addr + r.size, p->chip.lmemBytesPerLane);
      EXPECT_GE(r.value, 0);
    }
  EXPECT_GE(p->opIndex("/maxpool/MaxPool"), 0);
  EXPECT_EQ(p->groupOfOp(p->opIndex("/maxpool/MaxPool")), 0);
}

TEST(ChipPlan, ErrorsNameTheField) {
  std::ifstream in(inputs("resnet18_int8_bm1684x_plan_v1.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  auto expectError = [](const std::string &doc, const std::string &want) {
    auto p = parsePlan(doc, "p.json");
    ASSERT_FALSE(static_cast<bool>(p)) << "accepted; wanted " << want;
    std::string err = errorOf(p.takeError());
    EXPECT_NE(err.find(want), std::string::npos) << err;
  };
  std::string bad = text;
  bad.replace(bad.find("\"addr\": "), 8, "\"addr\": \"x\", \"was\": ");
  expectError(bad, "p.json: groups[0].lmem.rects[0].addr: expected an integer");
  expectError("{\"schema\": \"tpuc-backend-plan\", \"version\": 7}", "p.json: version: version 7 is not supported");
  expectError("[1, 2]", "p.json: not a JSON object");
  expectError("{\"schema\": \"tpuc-backend-plan\"", "p.json: not valid JSON");
  bad = text;
  bad.replace(bad.find("\"kind\": \"intermediate\""), 22, "\"kind\": \"scratchpad\"");
  expectError(bad, "unknown buffer kind 'scratchpad'");
  // Found by tests/fuzz (chip-plan): a rect starting before the group's first time unit.
  bad = text;
  bad.replace(bad.find("\"t0\": 3"), 7, "\"t0\": -3");
  expectError(bad, "p.json: groups[0].lmem.rects[0].t0: negative time unit -3");
  bad = text;
  bad.replace(bad.find("\"kind\": \"group\""), 15, "\"kind\": \"global\", \"control\": \"goto\"");
  expectError(bad, "p.json: groups[0].control: unknown control-flow step 'goto'");
}

// A control-flow marker's group names its step (docs/BACKEND.md, the plan's schema); others have none.
TEST(ChipPlan, ReadsControlFlowSteps) {
  std::ifstream in(inputs("resnet18_int8_bm1684x_plan_v1.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  text.replace(text.find("\"kind\": \"group\""), 15, "\"kind\": \"global\", \"control\": \"loop_back\"");
  auto p = parsePlan(text, "p.json");
  ASSERT_TRUE(static_cast<bool>(p)) << errorOf(p.takeError());
  EXPECT_EQ(p->groups[0].control, "loop_back");
  EXPECT_EQ(p->groups[1].control, "");
}

TEST(ChipAnalysis, LodColumnsSumToTheBusyTime) {
  Trace t = parsed(kTrace);
  const auto &tiu = t.of(Engine::TIU);
  BusyIndex idx(tiu);
  EXPECT_EQ(idx.total(), 40);
  auto cols = aggregateColumns(tiu, idx, 0, 90, 9);
  std::vector<int64_t> want = {0, 10, 10, 0, 0, 5, 10, 5, 0};
  ASSERT_EQ(cols.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(cols[i].busy, want[i]) << "column " << i;
  EXPECT_EQ(cols[6].count, 2u);
  EXPECT_EQ(cols[1].dominant, 0);
  // Random rows, random windows and widths: the columns tile the window, so their sum is exactly the
  // busy time in it, which is the brute-force overlap sum.
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<Command> row;
    int64_t t0 = 0;
    for (int i = 0; i < 300; ++i) {
      Command c;
      c.start = t0 + rng() % 50;
      c.end = c.start + 1 + rng() % 200;
      c.id = static_cast<uint32_t>(i + 1);
      row.push_back(c);
      t0 = c.end;
    }
    BusyIndex bi(row);
    int64_t a = rng() % t0, b = a + 1 + rng() % (t0 - a + 100);
    int columns = 1 + static_cast<int>(rng() % 3000);
    int64_t brute = 0;
    for (const Command &c : row)
      brute += std::max<int64_t>(0, std::min(c.end, b) - std::max(c.start, a));
    EXPECT_EQ(bi.busy(a, b), brute);
    int64_t sum = 0;
    for (const LodColumn &col : aggregateColumns(row, bi, a, b, columns))
      sum += col.busy;
    EXPECT_EQ(sum, brute) << "round " << round << " window [" << a << ", " << b << ") columns " << columns;
  }
}

TEST(ChipAnalysis, LodColumnsOfADenseRowUsePrefixSums) {
  // Many more commands than columns: the columns come from the prefix sums, still exact.
  std::vector<Command> row;
  std::mt19937 rng(11);
  int64_t t = 0;
  for (int i = 0; i < 100000; ++i) {
    Command c;
    c.start = t + rng() % 7;
    c.end = c.start + 1 + rng() % 40;
    c.id = static_cast<uint32_t>(i + 1);
    row.push_back(c);
    t = c.end;
  }
  BusyIndex bi(row);
  for (int columns : {1, 37, 100, 1600}) {
    int64_t a = 12345, b = t - 999;
    auto cols = aggregateColumns(row, bi, a, b, columns);
    int64_t sum = 0;
    uint64_t counted = 0;
    for (const LodColumn &col : cols) {
      sum += col.busy;
      counted += col.count;
      if (col.busy > 0) {
        ASSERT_GE(col.dominant, 0);
        EXPECT_GT(col.count, 0u);
      }
    }
    EXPECT_EQ(sum, bi.busy(a, b)) << columns << " columns";
    EXPECT_GE(counted, 100000u / 2) << columns << " columns"; // every command counted in its columns
  }
}

TEST(ChipAnalysis, IdleAttributionKnownAnswer) {
  Trace t = parsed(kTrace);
  auto idle = attributeIdle(t);
  const EngineIdle &tiu = idle[0];
  EXPECT_EQ(tiu.busy, 40);
  EXPECT_EQ(tiu.idle, 50);
  ASSERT_EQ(tiu.causes.size(), 3u);
  EXPECT_EQ(tiu.causes[0].cycles, 25);
  EXPECT_EQ(tiu.causes[0].text, "GDMA loads of B's inputs");
  EXPECT_EQ(tiu.causes[1].cycles, 15);
  EXPECT_TRUE(tiu.causes[1].tail);
  EXPECT_EQ(tiu.causes[1].text, "GDMA stores of C (after its last command)");
  EXPECT_EQ(tiu.causes[2].cycles, 10);
  EXPECT_EQ(tiu.causes[2].text, "GDMA loads of A's weights");
  EXPECT_EQ(tiu.summary, "TIU idle 56 % of the run, 50 % of that waiting on GDMA loads of B's inputs");
  EXPECT_EQ(tiu.breakdown, "input loads 50 %, stores 30 %, weight loads 20 %");
  const EngineIdle &gdma = idle[1];
  EXPECT_EQ(gdma.busy, 70);
  EXPECT_EQ(gdma.idle, 20);
  ASSERT_EQ(gdma.causes.size(), 1u);
  EXPECT_EQ(gdma.causes[0].text, "TIU compute of C");
  EXPECT_EQ(gdma.summary, "GDMA idle 22 % of the run, 100 % of that waiting on TIU compute of C");
}

TEST(ChipAnalysis, CriticalPathKnownAnswer) {
  Trace t = parsed(kTrace);
  CriticalPath cp = criticalPath(t);
  std::vector<std::pair<Engine, int>> want = {
      {Engine::GDMA, 2}, {Engine::TIU, 2}, {Engine::TIU, 1}, {Engine::GDMA, 1}, {Engine::GDMA, 0}};
  EXPECT_EQ(cp.chain, want);
  EXPECT_EQ(cp.cycles, 90);
  EXPECT_EQ(cp.engineCycles[0], 20);
  EXPECT_EQ(cp.engineCycles[1], 70);
  EXPECT_EQ(cp.on[0], (std::vector<uint8_t>{0, 1, 1}));
  EXPECT_EQ(cp.on[1], (std::vector<uint8_t>{1, 1, 1}));
  EXPECT_EQ(cp.count[0], (std::vector<uint32_t>{0, 0, 1, 2}));
  EXPECT_EQ(cp.count[1], (std::vector<uint32_t>{0, 1, 2, 3}));
}

TEST(ChipAnalysis, DdrOccupancyAndLowerBound) {
  Plan p;
  p.groups.resize(3);
  p.gmem.activationBase = 1000;
  // Three buffers over three steps; one view shares another's storage and is not counted twice.
  p.gmem.buffers = {{0, 0, 0, 1000, 100, 0, 1, true},
                    {1, 1, 0, 1100, 50, 1, 2, false},
                    {2, 1, 0, 1100, 50, 2, 2, false},
                    {3, 3, 0, 1000, 80, 2, 2, false}};
  p.values.resize(4);
  DdrOccupancy o = ddrOccupancy(p);
  EXPECT_EQ(o.liveBytes, (std::vector<int64_t>{100, 150, 130}));
  EXPECT_EQ(o.lowerBound, 150);
  EXPECT_EQ(o.peak, 150);
  EXPECT_DOUBLE_EQ(o.efficiency(), 1.0);
}

TEST(ChipAnalysis, PlannedLmemAndDivergence) {
  Trace t = parsed(kTrace);
  Plan p;
  p.chip.lmemBytesPerLane = 1024;
  Group g0, g1;
  g0.unitsPerStage = 2;
  // Stage 0 (units 0-1): 100 bytes; stage 1 (units 2-3): 250; stage 2 (units 4-5): 50.
  g0.rects = {{0, 0, BufferKind::Input, 0, 4, 0, 100}, {1, 0, BufferKind::Intermediate, 2, 4, 128, 150},
              {2, 0, BufferKind::Output, 4, 6, 0, 50}};
  g1.unitsPerStage = 1;
  g1.rects = {{3, 0, BufferKind::Output, 1, 3, 0, 64}};
  p.groups = {g0, g1};
  auto planned = plannedLmemOverTime(p, t);
  // Spans: g0 step0 [0,10), step1 [10,55), step2 [55,65); g1 step1 [65,75), step2 [75,90).
  EXPECT_EQ(valueAt(planned, 5), 100);
  EXPECT_EQ(valueAt(planned, 20), 250);
  EXPECT_EQ(valueAt(planned, 60), 50);
  EXPECT_EQ(valueAt(planned, 70), 64);
  EXPECT_EQ(valueAt(planned, 89), 64);
  // Simulated: 100 on [0,10), 300 on [10,75): above the plan from 10 to 75.
  auto div = lmemDivergences(planned, t.lmem, t);
  ASSERT_EQ(div.size(), 1u);
  EXPECT_EQ(div[0].start, 10);
  EXPECT_EQ(div[0].end, 75);
  EXPECT_EQ(div[0].simulated, 300);
  EXPECT_EQ(div[0].planned, 50);
  EXPECT_EQ(div[0].group, 0);
  EXPECT_EQ(div[0].step, 2);
}

TEST(ChipRun, LinksPlanAndTraceByName) {
  auto run = ChipRun::load(inputs("resnet18_int8_bm1684x_plan_v1.json"), inputs("resnet18_int8_bm1684x_trace_v1.json"));
  ASSERT_TRUE(static_cast<bool>(run)) << errorOf(run.takeError());
  const ChipRun &r = **run;
  int pool = r.plan()->opIndex("/maxpool/MaxPool");
  ASSERT_GE(pool, 0);
  int traced = r.traceOpOf(pool);
  ASSERT_GE(traced, 0);
  EXPECT_EQ(r.planOpOf(traced), pool);
  auto [start, end] = r.groupTime(0);
  EXPECT_EQ(start, 0);
  EXPECT_GT(end, start);
  EXPECT_EQ(r.groupAt(start), 0);
  EXPECT_FALSE(r.plannedLmem().empty());
  // Commands by op: every command once, under its own op.
  for (Engine e : {Engine::TIU, Engine::GDMA}) {
    size_t total = 0;
    for (int op = 0; op < static_cast<int>(r.trace()->ops.size()); ++op)
      for (uint32_t i : r.commandsOf(e, op)) {
        EXPECT_EQ(r.trace()->of(e)[i].op, op);
        ++total;
      }
    EXPECT_EQ(total, r.trace()->of(e).size());
  }
  EXPECT_TRUE(r.commandsOf(Engine::TIU, -1).empty());
  EXPECT_TRUE(r.commandsOf(Engine::TIU, 100000).empty());
  // The simulator never holds more LMEM than the plan placed for the same stage.
  for (const Divergence &d : r.divergences())
    ADD_FAILURE() << "divergence [" << d.start << ", " << d.end << ") group " << d.group << " step " << d.step
                  << ": planned " << d.planned << " simulated " << d.simulated;
}
