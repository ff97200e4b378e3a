// The command-level simulator on generated streams: no bounds or hazard errors, the schedule of a
// weight-free group equals the plan's stage cycles, engines overlap; injected faults are reported; the
// trace (version 2) is one JSON document and streamable line by line, with the simulated cycles.
#include "tpuc/Simulator/CmdSim.h"

#include "tpuc/Backend/CostModel.h"
#include "tpuc/ChipData/Trace.h"
#include "tpuc/Backend/GlobalMemory.h"
#include "tpuc/Backend/LayerGroup.h"
#include "tpuc/Backend/ModelZoo.h"
#include "tpuc/Codegen/Codegen.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

using namespace tpuc::backend;
using namespace tpuc::codegen;
using namespace tpuc::cmdsim;

namespace {

ChipProfile chip() { return findChipProfile("bm1684x", {TPUC_CHIP_TEST_DIR}); }

struct Compiled {
  Graph g;
  LayerGroupPlan plan;
  Stage stage;
};

Compiled compile(Graph g, int64_t hSlices, const ChipProfile &c = chip()) {
  Compiled out;
  std::vector<int> ops(g.ops.size());
  for (size_t i = 0; i < ops.size(); ++i)
    ops[i] = static_cast<int>(i);
  auto grp = planGroupWithSpec(c, g, ops, SliceSpec{1, 1, hSlices, 1});
  EXPECT_TRUE(grp.has_value());
  out.plan.groups.push_back(*grp);
  out.plan.groupOfOp.assign(g.ops.size(), 0);
  out.plan.opCosts.resize(g.ops.size());
  out.plan.totalCycles = grp->cycles;
  GmemPlan gmem = planGlobalMemory(c, g, out.plan);
  out.stage = generateStage(c, g, out.plan, gmem, "main").stage;
  out.g = std::move(g);
  return out;
}

Graph unaryChain() {
  GraphBuilder b(DType::INT8);
  int x = b.input("x", {1, 128, 64, 64});
  int y = b.unary("a", x);
  y = b.unary("b", y);
  b.output(b.unary("c", y));
  return b.take();
}

Graph convChain() {
  GraphBuilder b(DType::INT8);
  int x = b.input("x", {1, 64, 56, 56});
  int y = b.conv("c1", x, 64, 3, 1, 1);
  y = b.conv("c2", y, 64, 3, 1, 1);
  b.output(b.maxPool("p", y, 2, 2));
  return b.take();
}

TEST(CmdSim, WeightFreeGroupMatchesThePlanCycles) {
  Compiled c = compile(unaryChain(), 8);
  SimResult r = simulateStage(chip(), c.stage);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_EQ(r.totalCycles, c.plan.groups[0].cycles);
  EXPECT_EQ(r.tiuBusy, c.plan.groups[0].tiuCycles);
  EXPECT_EQ(r.gdmaBusy, c.plan.groups[0].gdmaCycles);
  EXPECT_LT(r.totalCycles, r.tiuBusy + r.gdmaBusy); // the engines overlap
  EXPECT_EQ(r.events.size(), c.stage.tiu().size() + c.stage.gdma().size());
}

TEST(CmdSim, EngineContentionSlowsBothEnginesWhileTheyOverlap) {
  ChipProfile ch = chip();
  ch.engineContention = 0.5;
  // One TIU command of 1000 cycles beside one GDMA command of 100 fixed + 300 DDR cycles: both run at
  // 1 / 1.5 until the GDMA ends at 600, then the TIU's remaining 600 at full speed: 1000 + 0.5 x 400,
  // the cost model's overlappedCycles.
  Stage s;
  s.ops.push_back(OpInfo{});
  s.ops[0].name = "op";
  Command t;
  t.engine = Engine::TIU;
  t.id = 1;
  t.cycles = 1000;
  Command d;
  d.engine = Engine::GDMA;
  d.kind = CmdKind::Load;
  d.id = 1;
  d.cycles = 400;
  d.ddrCycles = 300;
  s.tiu().push_back(t);
  s.gdma().push_back(d);
  SimResult r = simulateStage(ch, s);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_EQ(r.totalCycles, overlappedCycles(ch, 1000, 400));
  EXPECT_EQ(r.totalCycles, 1200);
  EXPECT_EQ(r.contentionCycles, 200 + 200); // each lost a third of the 600 cycles they overlapped
  EXPECT_EQ(r.ddrSharedCycles, 0);
  // In sequence (the GDMA waits for the TIU) nothing contends.
  s.gdma()[0].wait = 1;
  r = simulateStage(ch, s);
  EXPECT_EQ(r.totalCycles, 1400);
  EXPECT_EQ(r.contentionCycles, 0);

  // A weight-free group: the simulation still meets the plan, both charged alike, within a cycle of
  // rounding per command.
  Compiled c = compile(unaryChain(), 8, ch), free = compile(unaryChain(), 8);
  SimResult rc = simulateStage(ch, c.stage);
  ASSERT_TRUE(rc.errors.empty()) << rc.errors.front();
  EXPECT_GT(c.plan.groups[0].cycles, free.plan.groups[0].cycles);
  EXPECT_NEAR(static_cast<double>(rc.totalCycles), static_cast<double>(c.plan.groups[0].cycles),
              static_cast<double>(c.stage.tiu().size() + c.stage.gdma().size()));
  EXPECT_GT(rc.contentionCycles, 0);
  EXPECT_EQ(nlohmann::json::parse(traceJson(ch, c.stage, rc))["contention_cycles"], rc.contentionCycles);
}

TEST(CmdSim, ConvGroupRunsWithoutHazards) {
  Compiled c = compile(convChain(), 4);
  SimResult r = simulateStage(chip(), c.stage);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_GE(r.totalCycles, std::max(r.tiuBusy, r.gdmaBusy));
  EXPECT_LT(r.totalCycles, r.tiuBusy + r.gdmaBusy);
  nlohmann::json trace = nlohmann::json::parse(traceJson(chip(), c.stage, r));
  EXPECT_EQ(trace["schema"], "tpuc-cmd-trace");
  bool named = false;
  for (const nlohmann::json &op : trace["ops"])
    named = named || op["name"] == "c2";
  EXPECT_TRUE(named);
}

TEST(CmdSim, MatMulRowGroupRunsWithResidentWeightsWithoutHazards) {
  // A feed-forward block on [1, 256, 128] cut into 4 row slices (C of the view): every slice's matmul
  // reads the weights loaded once, and the engines overlap across the pipeline's stages. The weights
  // stream in column tiles in stage 1 (docs/BACKEND.md, "Streamed weights"): the first slice's matmuls
  // run tile by tile, each once its own tile is in, while the next tiles load into the same buffer.
  GraphBuilder b(DType::F16);
  int x = b.input("x", {1, 256, 128});
  int h = b.bias("fc1_bias", b.linear("fc1", x, 512));
  h = b.unary("gelu", h);
  h = b.bias("fc2_bias", b.linear("fc2", h, 128));
  b.output(b.add("residual", x, h));
  Graph g = b.take();
  ChipProfile c = chip();
  std::vector<int> ops = {0, 1, 2, 3, 4, 5};
  auto grp = planGroupWithSpec(c, g, ops, SliceSpec{1, 4, 1, 1});
  ASSERT_TRUE(grp.has_value());
  LayerGroupPlan plan;
  plan.groups.push_back(*grp);
  plan.groupOfOp.assign(g.ops.size(), 0);
  plan.opCosts.resize(g.ops.size());
  plan.totalCycles = grp->cycles;
  EXPECT_TRUE(validatePlan(c, g, plan).empty());
  GmemPlan gmem = planGlobalMemory(c, g, plan);
  Stage stage = generateStage(c, g, plan, gmem, "main").stage;
  const size_t tiles1 = columnTiles(c, g, g.ops[0], grp->slices[0].value.at(g.ops[0].outputs[0])).size();
  const size_t tiles2 = columnTiles(c, g, g.ops[3], grp->slices[0].value.at(g.ops[3].outputs[0])).size();
  ASSERT_GT(tiles1, 1u);
  int weightLoads = 0, matmuls = 0;
  std::map<uint32_t, const Command *> loadById;
  for (const Command &cmd : stage.gdma()) {
    weightLoads += cmd.kind == CmdKind::Load && cmd.slice < 0;
    loadById[cmd.id] = &cmd;
  }
  for (const Command &cmd : stage.tiu()) {
    if (g.ops[cmd.op].kind != OpKind::MatMul)
      continue;
    ++matmuls;
    if (cmd.slice != 0)
      continue;
    // A tile of the first slice waits for the load of its own columns of the weight, no later one.
    const Command &awaited = *loadById.at(cmd.wait);
    EXPECT_EQ(awaited.op, cmd.op);
    EXPECT_EQ(awaited.operands[1].origin[2], cmd.operands[cmd.numOutputs + cmd.numInputs].origin[2]);
  }
  EXPECT_EQ(weightLoads, static_cast<int>(tiles1 + tiles2 + 2)); // + fc1_bias, fc2_bias, whole
  EXPECT_EQ(matmuls, static_cast<int>(tiles1 + tiles2 + 2 * 3)); // tiles on slice 0, whole on 1..3
  SimResult r = simulateStage(c, stage);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_GE(r.totalCycles, std::max(r.tiuBusy, r.gdmaBusy));
  EXPECT_LT(r.totalCycles, r.tiuBusy + r.gdmaBusy);
  // The plan prices the streams as they run (rowChain), within a cycle of rounding per command.
  EXPECT_NEAR(static_cast<double>(r.totalCycles), static_cast<double>(grp->cycles),
              static_cast<double>(stage.tiu().size() + stage.gdma().size()));
}

TEST(CmdSim, ReportsHazardsBoundsAndDeadlocks) {
  ChipProfile ch = chip();
  Compiled c = compile(unaryChain(), 8);
  {
    // Slice 1's load lands on the buffer slice 0's first op reads while it runs.
    Stage s = c.stage;
    const Command *compute0 = &s.tiu()[0];
    for (Command &g : s.gdma())
      if (g.kind == CmdKind::Load && g.slice == 1)
        g.operands[1].address = compute0->operands[1].address;
    SimResult r = simulateStage(ch, s);
    ASSERT_FALSE(r.errors.empty());
    EXPECT_NE(r.errors.front().find("hazard: TIU #1"), std::string::npos) << r.errors.front();
  }
  {
    Stage s = c.stage;
    s.gdma()[0].operands[1].address = static_cast<uint64_t>(ch.lmemBytesPerLane) - 64;
    SimResult r = simulateStage(ch, s);
    ASSERT_FALSE(r.errors.empty());
    EXPECT_NE(r.errors.front().find("outside the 262144-byte lane"), std::string::npos) << r.errors.front();
  }
  {
    Stage s = c.stage;
    s.gdma()[0].wait = 1; // GDMA #1 waits on TIU #1, which waits on GDMA #1
    SimResult r = simulateStage(ch, s);
    ASSERT_FALSE(r.errors.empty());
    EXPECT_NE(r.errors.back().find("deadlock"), std::string::npos) << r.errors.back();
  }
}

} // namespace

namespace {

TEST(CmdSim, CCutConvLoadsFiltersPerSliceWithoutHazards) {
  // A 512x512x3x3 F32 conv overflows a 128 KiB lane unless its filters are cut (C slices).
  ChipProfile small = findChipProfile("bm1688", {TPUC_CHIP_TEST_DIR});
  GraphBuilder b(DType::F32);
  int x = b.input("x", {1, 512, 14, 14});
  int y = b.conv("big", x, 512, 3, 1, 1);
  b.output(b.unary("act", y));
  Graph g = b.take();
  LayerGroupPlan plan = planLayerGroups(small, g);
  bool cCut = false;
  for (const LayerGroup &grp : plan.groups)
    cCut |= !grp.global && grp.spec.c > 1;
  EXPECT_TRUE(cCut);
  GmemPlan gmem = planGlobalMemory(small, g, plan);
  Stage s = generateStage(small, g, plan, gmem, "main").stage;
  SimResult r = simulateStage(small, s);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  for (const Command &c : s.gdma())
    EXPECT_TRUE(c.slice >= 0 || c.kind == CmdKind::Store) << "C-cut weights load per slice";
}

TEST(CmdSim, ModelZooNetworksRunWithoutHazardsOnEveryChip) {
  for (const char *name : {"bm1684x", "bm1688", "cv186ah"}) {
    ChipProfile c = findChipProfile(name, {TPUC_CHIP_TEST_DIR});
    for (DType dt : {DType::INT8, DType::F32}) {
      for (int net = 0; net < 2; ++net) {
        Graph g = net == 0 ? buildResNet18(dt) : buildMobileNetV2(dt);
        LayerGroupPlan plan = planLayerGroups(c, g);
        GmemPlan gmem = planGlobalMemory(c, g, plan);
        Stage s = generateStage(c, g, plan, gmem, "main").stage;
        SimResult r = simulateStage(c, s);
        EXPECT_TRUE(r.errors.empty())
            << name << " " << dtypeName(dt) << " net " << net << ": " << r.errors.front();
        // The engines overlap, and the simulated time is within the cost model's ballpark.
        EXPECT_LT(r.totalCycles, r.tiuBusy + r.gdmaBusy);
        EXPECT_GT(r.totalCycles, plan.totalCycles / 2);
        EXPECT_LT(r.totalCycles, plan.totalCycles * 2);
        // Live LMEM never exceeds what some group allocated (its rectangles' peak), DDR activations never
        // the planned region; everything is dead once the stage has run (outputs read back at the end).
        int64_t lmemAllocated = 0;
        for (const LayerGroup &grp : plan.groups)
          lmemAllocated = std::max(lmemAllocated, grp.lmem.peakBytes);
        EXPECT_GT(r.lmem[0].peak, 0);
        EXPECT_LE(r.lmem[0].peak, lmemAllocated) << name;
        EXPECT_GT(r.ddr.peak, 0);
        EXPECT_LE(r.ddr.peak, static_cast<int64_t>(s.activationBytes) + c.lmemAlignment);
        ASSERT_FALSE(r.lmem[0].steps.empty());
        EXPECT_EQ(r.lmem[0].steps.back().second, 0);
        EXPECT_EQ(r.ddr.steps.back().second, 0);
        std::printf("%-8s %-5s %-12s plan %.3f ms, simulated %.3f ms, TIU %zu + GDMA %zu commands\n", name,
                    dtypeName(dt), net == 0 ? "resnet18" : "mobilenet_v2",
                    cyclesToUs(c, plan.totalCycles) / 1e3, cyclesToUs(c, r.totalCycles) / 1e3, s.tiu().size(),
                    s.gdma().size());
      }
    }
  }
}

} // namespace

namespace {

using nlohmann::json;

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

TEST(CmdSim, TraceV2IsOneDocumentAndOneEventPerLine) {
  ChipProfile c = chip();
  Graph g = buildResNet18(DType::INT8);
  LayerGroupPlan plan = planLayerGroups(c, g);
  GmemPlan gmem = planGlobalMemory(c, g, plan);
  Stage s = generateStage(c, g, plan, gmem, "main").stage;
  SimResult r = simulateStage(c, s);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  const std::string text = traceJson(c, s, r);

  // One document.
  json t = json::parse(text);
  EXPECT_EQ(t["schema"], "tpuc-cmd-trace");
  EXPECT_EQ(t["version"], 2);
  EXPECT_EQ(t["chip"], "bm1684x");
  EXPECT_EQ(t["frequency_mhz"].get<double>(), c.frequencyMhz);
  EXPECT_EQ(t["stage"], "main");
  EXPECT_EQ(t["total_cycles"], r.totalCycles);
  EXPECT_EQ(t["tiu_busy"], r.tiuBusy);
  EXPECT_EQ(t["gdma_busy"], r.gdmaBusy);
  EXPECT_EQ(t["lmem_peak"], r.lmem[0].peak);
  EXPECT_EQ(t["ddr_activation_peak"], r.ddr.peak);
  EXPECT_EQ(t["coeff_bytes"], s.coeffBytes);
  EXPECT_EQ(t["activation_base"], s.activationBase);
  EXPECT_EQ(t["activation_bytes"], s.activationBytes);
  EXPECT_EQ(t["displayTimeUnit"], "ns");
  EXPECT_EQ(t["errors"], json::array());

  // Every op, in stage order, named by its tensor, with its command count.
  ASSERT_EQ(t["ops"].size(), s.ops.size());
  std::vector<int> commands(s.ops.size(), 0);
  for (const auto *stream : {&s.tiu(), &s.gdma()})
    for (const Command &cmd : *stream)
      ++commands[cmd.op];
  bool commandless = false;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const json &op = t["ops"][i];
    EXPECT_EQ(op["name"], s.ops[i].resultNames.empty() ? s.ops[i].name : s.ops[i].resultNames[0]);
    EXPECT_EQ(op["type"], s.ops[i].type);
    EXPECT_EQ(op["commands"], commands[i]);
    commandless |= commands[i] == 0; // the reshape before fc
    if (commands[i] == 0)
      EXPECT_EQ(op["tiu_cycles"].get<int64_t>() + op["gdma_cycles"].get<int64_t>(), 0);
  }
  EXPECT_TRUE(commandless);

  // The layout: a header ending with the line ` "traceEvents": [`, then one event per line, each but the
  // last with a trailing comma, then `]}`.
  std::vector<std::string> ls = lines(text);
  size_t begin = 0;
  while (begin < ls.size() && ls[begin] != " \"traceEvents\": [")
    ++begin;
  ASSERT_LT(begin, ls.size());
  std::string header;
  for (size_t i = 0; i < begin; ++i)
    header += ls[i] + "\n";
  json h = json::parse(header + "\"traceEvents\": []}");
  EXPECT_EQ(h["ops"].size(), s.ops.size());
  ASSERT_EQ(ls.back(), "]}");
  std::vector<json> events;
  for (size_t i = begin + 1; i + 1 < ls.size(); ++i) {
    std::string line = ls[i];
    bool last = i + 2 == ls.size();
    ASSERT_EQ(!line.empty() && line.back() == ',', !last) << "line " << i + 1;
    if (!last)
      line.pop_back();
    json e = json::parse(line);
    ASSERT_TRUE(e.is_object()) << line;
    events.push_back(e);
  }
  ASSERT_EQ(events.size(), t["traceEvents"].size());
  for (size_t i = 0; i < events.size(); ++i)
    ASSERT_EQ(events[i], t["traceEvents"][i]);

  // Metadata, then X events with the simulated start and end cycles.
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events[0]["name"], "process_name");
  EXPECT_EQ(events[0]["args"]["name"], "main on bm1684x");
  EXPECT_EQ(events[1]["args"]["name"], "TIU");
  EXPECT_EQ(events[2]["args"]["name"], "GDMA");
  std::map<std::pair<int, int64_t>, const json *> xById; // (tid, id)
  std::vector<const json *> waiting, flows, counters;
  for (const json &e : events) {
    if (e["ph"] == "X") {
      xById[{e["tid"].get<int>(), e["args"]["id"].get<int64_t>()}] = &e;
      if (e["args"]["wait"].get<int64_t>() > 0)
        waiting.push_back(&e);
    } else if (e["ph"] == "s" || e["ph"] == "f") {
      flows.push_back(&e);
    } else if (e["ph"] == "C") {
      counters.push_back(&e);
    }
  }
  ASSERT_EQ(xById.size(), r.events.size());
  int weightLoads = 0, activationMoves = 0;
  for (const TraceEvent &ev : r.events) {
    const int tid = ev.engine == Engine::TIU ? 0 : 1;
    const Command &cmd = (tid == 0 ? s.tiu() : s.gdma())[ev.id - 1];
    const json &e = *xById.at({tid, ev.id});
    EXPECT_EQ(e["args"]["start"], ev.start);
    EXPECT_EQ(e["args"]["end"], ev.end);
    EXPECT_NEAR(e["ts"].get<double>(), ev.start / c.frequencyMhz, 1e-4);
    EXPECT_NEAR(e["dur"].get<double>(), (ev.end - ev.start) / c.frequencyMhz, 1e-4);
    EXPECT_EQ(e["args"]["op"], cmd.op);
    EXPECT_EQ(e["name"], t["ops"][cmd.op]["name"]);
    EXPECT_EQ(e["cat"], cmdKindName(cmd.kind));
    EXPECT_EQ(e["args"]["wait"], cmd.wait);
    EXPECT_EQ(e["args"]["group"], cmd.group);
    EXPECT_EQ(e["args"]["slice"], cmd.slice);
    EXPECT_EQ(e["args"]["step"], cmd.step);
    EXPECT_EQ(e["args"]["cycles"], cmd.cycles);
    if (tid == 0) {
      EXPECT_FALSE(e["args"].contains("ddr"));
      continue;
    }
    const TensorRef &ddr = cmd.operands[cmd.kind == CmdKind::Store ? 1 : 0];
    ASSERT_EQ(ddr.space, MemSpace::DDR);
    EXPECT_EQ(e["args"]["ddr"], ddr.address);
    EXPECT_EQ(e["args"]["bytes"], ddr.shape[0] * ddr.shape[1] * ddr.shape[2] * ddr.shape[3] *
                                      dtypeBytes(static_cast<DType>(ddr.dtype)));
    bool weight = ddr.address < s.coeffBytes;
    EXPECT_EQ(e["args"]["weight"], weight);
    (weight ? weightLoads : activationMoves)++;
  }
  EXPECT_GT(weightLoads, 0);
  EXPECT_GT(activationMoves, 0);

  // One s/f pair per waiting command, in the order of the X events: from the awaited command (the other
  // engine, at its start) to the waiting one (at its start).
  ASSERT_EQ(flows.size(), 2 * waiting.size());
  ASSERT_FALSE(waiting.empty());
  for (size_t k = 0; k < waiting.size(); ++k) {
    const json &x = *waiting[k], &from = *flows[2 * k], &to = *flows[2 * k + 1];
    const int tid = x["tid"].get<int>();
    const json &awaited = *xById.at({1 - tid, x["args"]["wait"].get<int64_t>()});
    EXPECT_EQ(from["ph"], "s");
    EXPECT_EQ(to["ph"], "f");
    EXPECT_EQ(to["bp"], "e");
    EXPECT_EQ(from["id"], to["id"]);
    EXPECT_EQ(from["cat"], "dep");
    EXPECT_EQ(from["tid"], 1 - tid);
    EXPECT_EQ(from["ts"], awaited["ts"]);
    EXPECT_EQ(to["tid"], tid);
    EXPECT_EQ(to["ts"], x["ts"]);
  }

  // Counters at every change of the occupancy, with their cycle.
  ASSERT_EQ(counters.size(), r.lmem[0].steps.size() + r.ddr.steps.size());
  for (size_t i = 0; i < counters.size(); ++i) {
    bool lmem = i < r.lmem[0].steps.size();
    const auto &[cycle, bytes] = lmem ? r.lmem[0].steps[i] : r.ddr.steps[i - r.lmem[0].steps.size()];
    const json &e = *counters[i];
    EXPECT_EQ(e["name"], lmem ? "LMEM" : "DDR");
    EXPECT_EQ(e["cycle"], cycle);
    EXPECT_EQ(e["args"][lmem ? "bytes_per_lane" : "activation_bytes"], bytes);
  }
}

TEST(CmdSim, TraceStringsAreEscaped) {
  Compiled comp = compile(unaryChain(), 2);
  comp.stage.name = "a \"quoted\" \\ stage\nwith a newline";
  comp.stage.ops[0].resultNames = {"x\ty"};
  SimResult r = simulateStage(chip(), comp.stage);
  r.errors.push_back("line\none");
  std::string text = traceJson(chip(), comp.stage, r);
  json t = json::parse(text);
  // Names come back exactly (escaped in the file), and no raw tab or newline splits an event's line.
  EXPECT_EQ(t["stage"], "a \"quoted\" \\ stage\nwith a newline");
  EXPECT_EQ(t["ops"][0]["name"], "x\ty");
  EXPECT_EQ(t["errors"][0], "line\none");
  for (const std::string &line : lines(text)) {
    EXPECT_EQ(line.find('\t'), std::string::npos);
    EXPECT_NE(line.rfind("with a newline", 0), 0u) << "a name split over two lines: " << line;
  }
}

// bm1688's two cores: the same network planned for both runs without errors, each core's streams meet at
// the same barriers, the DDR shared by both stretches transfers, and the whole takes fewer cycles than
// one core; the trace (one process per core) reads back core by core with each core's own commands.
TEST(CmdSim, TwoCoresShareTheWorkAndMeetAtBarriers) {
  ChipProfile c = findChipProfile("bm1688", {TPUC_CHIP_TEST_DIR});
  ASSERT_EQ(c.cores, 2);
  for (int net = 0; net < 2; ++net) {
    Graph g = net == 0 ? buildResNet18(DType::INT8) : buildMobileNetV2(DType::INT8);
    GroupOptions two;
    two.cores = 2;
    LayerGroupPlan onePlan = planLayerGroups(c, g), twoPlan = planLayerGroups(c, g, two);
    Stage one = generateStage(c, g, onePlan, planGlobalMemory(c, g, onePlan), "main").stage;
    Stage both = generateStage(c, g, twoPlan, planGlobalMemory(c, g, twoPlan), "main").stage;
    ASSERT_EQ(one.cores.size(), 1u);
    ASSERT_EQ(both.cores.size(), 2u);
    SimResult r1 = simulateStage(c, one), r2 = simulateStage(c, both);
    ASSERT_TRUE(r1.errors.empty()) << r1.errors.front();
    ASSERT_TRUE(r2.errors.empty()) << r2.errors.front();
    EXPECT_EQ(r1.barriers, 0);
    EXPECT_GT(r2.barriers, 0);
    ASSERT_EQ(r2.cores.size(), 2u);
    ASSERT_EQ(r2.lmem.size(), 2u);
    for (int k = 0; k < 2; ++k) {
      EXPECT_FALSE(both.cores[k].tiu.empty()) << "core " << k << " computes";
      EXPECT_GT(r2.cores[k].tiuBusy, 0);
      EXPECT_GT(r2.lmem[k].peak, 0);
      for (Engine e : {Engine::TIU, Engine::GDMA})
        EXPECT_EQ(std::count_if(both.cores[k].of(e).begin(), both.cores[k].of(e).end(),
                                [](const Command &x) { return x.kind == CmdKind::Sync; }),
                  r2.barriers);
    }
    // Every command ran once; both cores' work adds up to about one core's (the split adds halos and
    // weight loads, never removes work).
    EXPECT_EQ(r2.events.size(), both.commandCount());
    EXPECT_GE(r2.tiuBusy, r1.tiuBusy * 9 / 10);
    EXPECT_LT(r2.totalCycles, r1.totalCycles) << (net ? "mobilenet_v2" : "resnet18");
    std::printf("bm1688 %-12s one core %.3f ms, two cores %.3f ms (%lld barriers, %lld cycles of shared DDR)\n",
                net ? "mobilenet_v2" : "resnet18", cyclesToUs(c, r1.totalCycles) / 1e3,
                cyclesToUs(c, r2.totalCycles) / 1e3, static_cast<long long>(r2.barriers),
                static_cast<long long>(r2.ddrSharedCycles));

    // The trace: one process per core; core k's events are its own streams' commands.
    std::string text = traceJson(c, both, r2);
    for (int k = 0; k < 2; ++k) {
      auto t = tpuc::chip::parseTrace(text, "two-core trace", k);
      ASSERT_TRUE(static_cast<bool>(t)) << llvm::toString(t.takeError());
      EXPECT_EQ(t->cores, 2);
      EXPECT_EQ(t->core, k);
      EXPECT_EQ(t->of(Engine::TIU).size(), both.cores[k].tiu.size());
      EXPECT_EQ(t->of(Engine::GDMA).size(), both.cores[k].gdma.size());
      EXPECT_EQ(t->tiuBusy, r2.cores[k].tiuBusy);
      EXPECT_EQ(t->lmemPeak, r2.lmem[k].peak);
      EXPECT_EQ(t->totalCycles, r2.totalCycles);
    }
    auto bad = tpuc::chip::parseTrace(text, "two-core trace", 2);
    ASSERT_FALSE(static_cast<bool>(bad));
    EXPECT_NE(llvm::toString(bad.takeError()).find("core 2 requested, but the trace has 2 cores"), std::string::npos);
  }
}

} // namespace

namespace {

/// A command of the hand-built control-flow stages below (no operands: timing only).
Command command(Engine engine, CmdKind kind, uint32_t id, int64_t cycles, uint32_t wait = 0) {
  Command c;
  c.engine = engine;
  c.kind = kind;
  c.id = id;
  c.cycles = cycles;
  c.wait = wait;
  return c;
}

/// A loop: header block 0 (TIU 10 cycles, barrier) branches on a DDR byte into body block 1 (GDMA load
/// of 40 cycles, then a TIU computation of 100 waiting on it, barriers), which jumps back to the header;
/// the header's else target is exit block 2 (TIU 7 cycles waiting on the body's load, a wait earlier
/// blocks satisfied, barriers). Barriers take 5 cycles.
Stage loopStage() {
  Stage s;
  s.ops.push_back(OpInfo{});
  s.ops[0].name = "op";
  s.activationBase = 0;
  s.activationBytes = 64;
  auto &tiu = s.tiu(), &gdma = s.gdma();
  tiu = {command(Engine::TIU, CmdKind::Compute, 1, 10),     command(Engine::TIU, CmdKind::Sync, 2, 5),
         command(Engine::TIU, CmdKind::Compute, 3, 100, 2), command(Engine::TIU, CmdKind::Sync, 4, 5),
         command(Engine::TIU, CmdKind::Compute, 5, 7, 2),   command(Engine::TIU, CmdKind::Sync, 6, 5)};
  gdma = {command(Engine::GDMA, CmdKind::Sync, 1, 5), command(Engine::GDMA, CmdKind::Load, 2, 40),
          command(Engine::GDMA, CmdKind::Sync, 3, 5), command(Engine::GDMA, CmdKind::Sync, 4, 5)};
  s.blocks.resize(3);
  s.blocks[0].cores = {{0, 2, 0, 1}};
  s.blocks[0].terminator.kind = Terminator::Kind::Branch;
  s.blocks[0].terminator.target = 1;
  s.blocks[0].terminator.elseTarget = 2;
  s.blocks[0].terminator.cond.shape = {1, 1, 1, 1};
  s.blocks[1].cores = {{2, 4, 1, 3}};
  s.blocks[1].terminator.kind = Terminator::Kind::Jump;
  s.blocks[1].terminator.target = 0;
  s.blocks[2].cores = {{4, 6, 3, 4}};
  return s;
}

TEST(CmdSim, BlocksRunAlongAPathAndTheirCyclesAddUp) {
  ChipProfile ch = chip();
  Stage s = loopStage();
  Model m;
  m.nets.push_back({"net", {s}});
  ASSERT_TRUE(validateModel(m).empty()) << validateModel(m).front();
  // Each block alone: the header's 10 cycles and barrier; the body's load, then its computation, then
  // the barrier; the exit's 7 cycles (its wait on the body's load is met before the block).
  SimResult header = simulateStage(ch, s, {0}), body = simulateStage(ch, s, {1}),
            exit = simulateStage(ch, s, {2});
  ASSERT_TRUE(body.errors.empty()) << body.errors.front();
  EXPECT_EQ(header.totalCycles, 15);
  EXPECT_EQ(body.totalCycles, 40 + 100 + 5);
  EXPECT_EQ(exit.totalCycles, 12);
  for (int n = 0; n < 4; ++n) {
    std::vector<uint32_t> path = {0};
    for (int i = 0; i < n; ++i)
      path.insert(path.end(), {1, 0});
    path.push_back(2);
    SimResult r = simulateStage(ch, s, path);
    ASSERT_TRUE(r.errors.empty()) << r.errors.front();
    EXPECT_EQ(r.path, path);
    EXPECT_EQ(r.totalCycles, (n + 1) * header.totalCycles + n * body.totalCycles + exit.totalCycles) << n;
    EXPECT_EQ(r.tiuBusy, (n + 1) * 10 + n * 100 + 7);
    EXPECT_EQ(r.gdmaBusy, n * 40);
    EXPECT_EQ(r.barriers, static_cast<int64_t>(path.size()));
    EXPECT_EQ(r.events.size(), (n + 1) * 3u + n * 4u + 3u);
    // A re-executed block's events appear again, tagged with their execution; commandOf still works.
    for (const TraceEvent &ev : r.events) {
      ASSERT_LT(ev.execution, path.size());
      const Block::Range &range = s.blocks[path[ev.execution]].cores[0];
      uint32_t index = ev.id - 1;
      EXPECT_TRUE(ev.engine == Engine::TIU ? index >= range.tiuBegin && index < range.tiuEnd
                                           : index >= range.gdmaBegin && index < range.gdmaEnd);
      EXPECT_EQ(commandOf(s, ev).id, ev.id);
    }
  }
  // The trace names each event's block, and the studio's reader takes a loop's repeated ids.
  SimResult twice = simulateStage(ch, s, {0, 1, 0, 1, 0, 2});
  std::string text = traceJson(ch, s, twice);
  int bodyEvents = 0;
  const nlohmann::json trace = nlohmann::json::parse(text);
  for (const nlohmann::json &ev : trace["traceEvents"])
    if (ev["ph"] == "X")
      bodyEvents += ev["args"]["block"] == 1;
  EXPECT_EQ(bodyEvents, 2 * 4);
  auto parsed = tpuc::chip::parseTrace(text, "loop trace", 0);
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->of(Engine::TIU).size(), 3u * 2 + 2u * 2 + 2u);
  EXPECT_EQ(parsed->totalCycles, twice.totalCycles);
  // A path naming a block the stage does not have is an error.
  EXPECT_EQ(simulateStage(ch, s, {0, 3}).errors, std::vector<std::string>{"block path: block 3 of 3"});
}

TEST(CmdSim, WithoutDataBranchesTakeTheirTargetOnceThenTheirElse) {
  ChipProfile ch = chip();
  // The loop's header branches into the body the first time, to the exit the second: the body runs once.
  Stage loop = loopStage();
  SimResult r = simulateStage(ch, loop);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_EQ(r.path, (std::vector<uint32_t>{0, 1, 0, 2}));
  EXPECT_EQ(r.totalCycles, simulateStage(ch, loop, {0, 1, 0, 2}).totalCycles);
  // An If (block 0 branches to then-block 1, which jumps past else-block 2): the then-branch.
  Stage ifStage = loopStage();
  ifStage.blocks[1].terminator.target = 3;
  EXPECT_EQ(simulateStage(ch, ifStage).path, (std::vector<uint32_t>{0, 1}));
  // A stage without blocks is its one block 0, scheduled exactly as the whole streams always were.
  Compiled c = compile(convChain(), 4);
  SimResult whole = simulateStage(ch, c.stage), path = simulateStage(ch, c.stage, {0});
  EXPECT_EQ(whole.path, std::vector<uint32_t>{0});
  EXPECT_EQ(whole.totalCycles, path.totalCycles);
  ASSERT_EQ(whole.events.size(), path.events.size());
  for (size_t i = 0; i < whole.events.size(); ++i)
    EXPECT_TRUE(whole.events[i].start == path.events[i].start && whole.events[i].end == path.events[i].end &&
                whole.events[i].execution == 0);
  EXPECT_EQ(traceJson(ch, c.stage, whole), traceJson(ch, c.stage, path));
  EXPECT_EQ(simulateStage(ch, c.stage, {}).totalCycles, 0); // nothing ran
}

TEST(CmdSim, ControlFlowThatNeverEndsIsAnError) {
  // One block of two barriers that jumps to itself.
  Stage s;
  s.ops.push_back(OpInfo{});
  s.tiu() = {command(Engine::TIU, CmdKind::Sync, 1, 5)};
  s.gdma() = {command(Engine::GDMA, CmdKind::Sync, 1, 5)};
  s.blocks.resize(1);
  s.blocks[0].cores = {{0, 1, 0, 1}};
  s.blocks[0].terminator.kind = Terminator::Kind::Jump;
  s.blocks[0].terminator.target = 0;
  SimResult r = simulateStage(chip(), s);
  EXPECT_EQ(r.errors, std::vector<std::string>{"control flow did not end after 1000000 blocks"});
  EXPECT_TRUE(r.events.empty());
  // A block waiting on a later block's command is reported, not scheduled.
  Stage loop = loopStage();
  loop.gdma()[1].wait = 5; // the body's load waits on the exit's computation
  loop.tiu()[2].wait = 0;
  SimResult w = simulateStage(chip(), loop, {1});
  ASSERT_FALSE(w.errors.empty());
  EXPECT_EQ(w.errors.front(), "GDMA #2 (load 'op'): waits on id 5 after its block's last TIU command");
}

} // namespace
