// The command-level simulator on generated streams: no bounds or hazard errors, the schedule of a
// weight-free group equals the plan's stage cycles, engines overlap; injected faults are reported.
#include "tpuc/Simulator/CmdSim.h"

#include "tpuc/Backend/CostModel.h"
#include "tpuc/Backend/GlobalMemory.h"
#include "tpuc/Backend/LayerGroup.h"
#include "tpuc/Backend/ModelZoo.h"
#include "tpuc/Codegen/Codegen.h"

#include <gtest/gtest.h>

#include <cstdio>

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

Compiled compile(Graph g, int64_t hSlices) {
  ChipProfile c = chip();
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
  EXPECT_EQ(r.events.size(), c.stage.tiu.size() + c.stage.gdma.size());
}

TEST(CmdSim, ConvGroupRunsWithoutHazards) {
  Compiled c = compile(convChain(), 4);
  SimResult r = simulateStage(chip(), c.stage);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_GE(r.totalCycles, std::max(r.tiuBusy, r.gdmaBusy));
  EXPECT_LT(r.totalCycles, r.tiuBusy + r.gdmaBusy);
  std::string json = traceJson(chip(), c.stage, r);
  EXPECT_NE(json.find("\"schema\": \"tpuc-cmd-trace\""), std::string::npos);
  EXPECT_NE(json.find("\"name\": \"c2\""), std::string::npos);
}

TEST(CmdSim, ReportsHazardsBoundsAndDeadlocks) {
  ChipProfile ch = chip();
  Compiled c = compile(unaryChain(), 8);
  {
    // Slice 1's load lands on the buffer slice 0's first op reads while it runs.
    Stage s = c.stage;
    const Command *compute0 = &s.tiu[0];
    for (Command &g : s.gdma)
      if (g.kind == CmdKind::Load && g.slice == 1)
        g.operands[1].address = compute0->operands[1].address;
    SimResult r = simulateStage(ch, s);
    ASSERT_FALSE(r.errors.empty());
    EXPECT_NE(r.errors.front().find("hazard: TIU #1"), std::string::npos) << r.errors.front();
  }
  {
    Stage s = c.stage;
    s.gdma[0].operands[1].address = static_cast<uint64_t>(ch.lmemBytesPerLane) - 64;
    SimResult r = simulateStage(ch, s);
    ASSERT_FALSE(r.errors.empty());
    EXPECT_NE(r.errors.front().find("outside the 262144-byte lane"), std::string::npos) << r.errors.front();
  }
  {
    Stage s = c.stage;
    s.gdma[0].wait = 1; // GDMA #1 waits on TIU #1, which waits on GDMA #1
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
  for (const Command &c : s.gdma)
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
        EXPECT_GT(r.lmem.peak, 0);
        EXPECT_LE(r.lmem.peak, lmemAllocated) << name;
        EXPECT_GT(r.ddr.peak, 0);
        EXPECT_LE(r.ddr.peak, static_cast<int64_t>(s.activationBytes) + c.lmemAlignment);
        ASSERT_FALSE(r.lmem.steps.empty());
        EXPECT_EQ(r.lmem.steps.back().second, 0);
        EXPECT_EQ(r.ddr.steps.back().second, 0);
        std::printf("%-8s %-5s %-12s plan %.3f ms, simulated %.3f ms, TIU %zu + GDMA %zu commands\n", name,
                    dtypeName(dt), net == 0 ? "resnet18" : "mobilenet_v2",
                    cyclesToUs(c, plan.totalCycles) / 1e3, cyclesToUs(c, r.totalCycles) / 1e3, s.tiu.size(),
                    s.gdma.size());
      }
    }
  }
}

} // namespace
