//===- LayerGroupTest.cpp - Layer groups: pipelines, fit, greedy vs DP ----===//

#include "tpuc/Backend/LayerGroup.h"

#include "RandomGraphs.h"

#include <gtest/gtest.h>

using namespace tpuc::backend;
using tpuc::backend::testing::randomChain;

namespace {

ChipProfile chip(const char *name) { return findChipProfile(name, {TPUC_CHIP_TEST_DIR}); }

std::string joinErrors(const std::vector<std::string> &errors) {
  std::string s;
  for (size_t i = 0; i < errors.size() && i < 5; ++i)
    s += errors[i] + "\n";
  return s;
}

TEST(LayerGroup, SmallChainIsOneGroupWithAPipeline) {
  ChipProfile c = chip("bm1684x");
  GraphBuilder b;
  int x = b.input("x", {1, 16, 32, 32});
  x = b.conv("c1", x, 16, 3, 1, 1);
  x = b.conv("c2", x, 16, 3, 1, 1);
  x = b.maxPool("p", x, 2, 2);
  b.output(x);
  Graph g = b.take();
  for (int opt : {1, 2}) {
    GroupOptions o;
    o.opt = opt;
    LayerGroupPlan plan = planLayerGroups(c, g, o);
    ASSERT_EQ(plan.groups.size(), 1u) << "opt " << opt;
    const LayerGroup &grp = plan.groups[0];
    EXPECT_FALSE(grp.global);
    EXPECT_EQ(grp.ops.size(), 3u);
    EXPECT_EQ(grp.steps.size(), grp.slices.size() + 2);
    // Stage t loads t, computes t-1, stores t-2.
    for (size_t t = 0; t < grp.steps.size(); ++t) {
      int s = static_cast<int>(t);
      int n = static_cast<int>(grp.slices.size());
      EXPECT_EQ(grp.steps[t].loadSlice, s < n ? s : -1);
      EXPECT_EQ(grp.steps[t].computeSlice, s >= 1 && s <= n ? s - 1 : -1);
      EXPECT_EQ(grp.steps[t].storeSlice, s >= 2 ? s - 2 : -1);
      EXPECT_EQ(grp.steps[t].cycles, std::max(grp.steps[t].tiuCycles, grp.steps[t].gdmaCycles));
    }
    EXPECT_TRUE(grp.steps[0].loadsWeights);
    EXPECT_TRUE(validatePlan(c, g, plan).empty()) << joinErrors(validatePlan(c, g, plan));
  }
}

TEST(LayerGroup, GroupingBeatsEveryOpAlone) {
  ChipProfile c = chip("bm1684x");
  GraphBuilder b;
  int x = b.input("x", {1, 32, 64, 64});
  for (int i = 0; i < 6; ++i)
    x = b.conv("c" + std::to_string(i), x, 32, 3, 1, 1);
  b.output(x);
  Graph g = b.take();
  GroupOptions alone;
  alone.opt = 0;
  LayerGroupPlan p0 = planLayerGroups(c, g, alone);
  LayerGroupPlan p2 = planLayerGroups(c, g);
  EXPECT_EQ(p0.groups.size(), 6u);
  EXPECT_LT(p2.groups.size(), 6u);
  EXPECT_LT(p2.totalCycles, p0.totalCycles);
  int64_t ddr0 = 0, ddr2 = 0;
  for (auto &grp : p0.groups)
    ddr0 += grp.ddrBytes;
  for (auto &grp : p2.groups)
    ddr2 += grp.ddrBytes;
  EXPECT_LT(ddr2, ddr0);
}

TEST(LayerGroup, LargeInputIsSlicedAlongH) {
  ChipProfile c = chip("bm1688"); // 128 KiB per lane
  GraphBuilder b(DType::F32);
  int x = b.input("x", {1, 32, 256, 256}); // 256 KiB per lane in F32
  x = b.conv("c1", x, 32, 3, 1, 1);
  b.output(x);
  Graph g = b.take();
  auto grp = planGroup(c, g, {0});
  ASSERT_TRUE(grp.has_value());
  EXPECT_EQ(grp->spec.n, 1);
  EXPECT_GE(grp->spec.h, 4); // in + out double-buffered need > 4 pieces
  EXPECT_EQ(grp->spec.c, 1);
  EXPECT_TRUE(validateLmem(c, grp->rects).empty());
  EXPECT_LE(grp->lmem.peakBytes, c.lmemBytesPerLane);
}

TEST(LayerGroup, BatchIsSplitBeforeH) {
  ChipProfile c = chip("bm1684x");
  GraphBuilder b(DType::F32);
  int x = b.input("x", {8, 64, 64, 64}); // 16 KiB per image per lane
  x = b.conv("c1", x, 64, 3, 1, 1);
  b.output(x);
  Graph g = b.take();
  auto grp = planGroup(c, g, {0});
  ASSERT_TRUE(grp.has_value());
  EXPECT_GT(grp->spec.n, 1);
}

TEST(LayerGroup, HugeWeightsAreSlicedAlongC) {
  ChipProfile c = chip("bm1688");
  GraphBuilder b(DType::F32);
  int x = b.input("x", {1, 512, 7, 7});
  x = b.conv("c1", x, 512, 3, 1, 1); // 16 * 4608 * 4 = 288 KiB per lane
  b.output(x);
  Graph g = b.take();
  auto grp = planGroup(c, g, {0});
  ASSERT_TRUE(grp.has_value());
  EXPECT_GE(grp->spec.c, 4);
  EXPECT_TRUE(validateLmem(c, grp->rects).empty());
  LayerGroupPlan plan = planLayerGroups(c, g);
  EXPECT_TRUE(validatePlan(c, g, plan).empty()) << joinErrors(validatePlan(c, g, plan));
}

TEST(LayerGroup, UngroupableOpsRunGlobal) {
  ChipProfile c = chip("bm1684x");
  GraphBuilder b;
  int x = b.input("x", {1, 16, 8, 8});
  x = b.conv("c1", x, 16, 3, 1, 1);
  x = b.globalPool("gap", x);
  x = b.reshape("flat", x, {1, 16});
  x = b.matmul("fc", x, 10);
  b.output(x);
  Graph g = b.take();
  LayerGroupPlan plan = planLayerGroups(c, g);
  ASSERT_EQ(plan.groups.size(), 4u);
  EXPECT_FALSE(plan.groups[0].global);
  EXPECT_TRUE(plan.groups[1].global);
  EXPECT_TRUE(plan.groups[2].global);
  EXPECT_EQ(plan.groups[2].cycles, 0); // reshape is in place
  EXPECT_TRUE(plan.groups[3].global);
  EXPECT_GT(plan.opCosts[3].tiuCycles, 0);
}

TEST(LayerGroup, ValidatorCatchesBrokenPlans) {
  ChipProfile c = chip("bm1684x");
  GraphBuilder b(DType::F32);
  int x = b.input("x", {1, 64, 64, 64});
  x = b.conv("c1", x, 64, 3, 1, 1);
  x = b.conv("c2", x, 64, 3, 1, 1);
  b.output(x);
  Graph g = b.take();
  GroupOptions o;
  o.opt = 1; // greedy: one group of both convs
  LayerGroupPlan good = planLayerGroups(c, g, o);
  ASSERT_EQ(good.groups.size(), 1u);
  ASSERT_GT(good.groups[0].slices.size(), 1u);
  ASSERT_TRUE(validatePlan(c, g, good).empty());
  auto expectError = [&](const LayerGroupPlan &bad, const std::string &needle) {
    auto errors = validatePlan(c, g, bad);
    bool found = false;
    for (auto &e : errors)
      found |= e.find(needle) != std::string::npos;
    EXPECT_TRUE(found) << "expected '" << needle << "', got:\n" << joinErrors(errors);
  };
  {
    LayerGroupPlan bad = good; // an input freed before its reader runs
    for (auto &r : bad.groups[0].rects)
      if (r.kind == BufferKind::Input && r.slice == 0)
        r.tEnd = r.tStart + 1;
    expectError(bad, "is not live when 'c1' runs");
  }
  {
    LayerGroupPlan bad = good; // a halo row dropped
    auto &box = bad.groups[0].slices[0].value.at(g.ops[1].inputs[0]);
    box.dims[2].end -= 1;
    expectError(bad, "'c2' reads beyond its operand's box");
  }
  {
    LayerGroupPlan bad = good; // a store lost
    bad.groups[0].slices[1].store.at(g.ops[1].outputs[0]).dims[2].end -= 1;
    expectError(bad, "do not cover it");
  }
  {
    LayerGroupPlan bad = good; // two live buffers at one address
    auto &rects = bad.groups[0].rects;
    for (size_t i = 1; i < rects.size(); ++i)
      if (rects[i].tStart < rects[0].tEnd && rects[0].tStart < rects[i].tEnd)
        rects[i].addr = rects[0].addr;
    expectError(bad, "overlap");
  }
  {
    LayerGroupPlan bad = good; // the first op skipped
    bad.groups[0].ops = {1};
    expectError(bad, "op 1 out of order (expected 0)");
    bad.groups[0].ops = {0}; // the last op skipped
    expectError(bad, "plan covers 1 of 2 ops");
  }
}

// Property test over seeded random chains on every chip and precision: the
// plan validates (ops covered in order, stores tile outputs, operand boxes
// cover reads, LMEM rectangles fit and never overlap), the DP is never
// worse than greedy, and planning is deterministic.
TEST(LayerGroup, RandomChainsPlanValidAndDpNeverWorse) {
  int compared = 0, dpBetter = 0;
  for (const char *name : {"bm1684x", "bm1688", "cv186ah"}) {
    ChipProfile c = chip(name);
    for (unsigned seed = 1; seed <= 40; ++seed) {
      Graph g = randomChain(seed, 10);
      ASSERT_EQ(g.verify(), "") << seed;
      LayerGroupPlan plans[3];
      for (int opt = 0; opt <= 2; ++opt) {
        GroupOptions o;
        o.opt = opt;
        plans[opt] = planLayerGroups(c, g, o);
        auto errors = validatePlan(c, g, plans[opt]);
        ASSERT_TRUE(errors.empty()) << name << " seed " << seed << " opt " << opt << ":\n"
                                    << joinErrors(errors);
        int64_t sum = 0;
        for (auto &grp : plans[opt].groups)
          sum += grp.cycles;
        EXPECT_EQ(sum, plans[opt].totalCycles);
      }
      EXPECT_LE(plans[2].totalCycles, plans[1].totalCycles) << name << " seed " << seed;
      EXPECT_LE(plans[2].totalCycles, plans[0].totalCycles) << name << " seed " << seed;
      ++compared;
      dpBetter += plans[2].totalCycles < plans[1].totalCycles;
      GroupOptions o;
      LayerGroupPlan again = planLayerGroups(c, g, o);
      ASSERT_EQ(again.groups.size(), plans[2].groups.size());
      EXPECT_EQ(again.totalCycles, plans[2].totalCycles);
      for (size_t i = 0; i < again.groups.size(); ++i) {
        EXPECT_EQ(again.groups[i].ops, plans[2].groups[i].ops);
        EXPECT_EQ(again.groups[i].spec, plans[2].groups[i].spec);
        ASSERT_EQ(again.groups[i].rects.size(), plans[2].groups[i].rects.size());
        for (size_t r = 0; r < again.groups[i].rects.size(); ++r)
          EXPECT_EQ(again.groups[i].rects[r].addr, plans[2].groups[i].rects[r].addr);
      }
    }
  }
  RecordProperty("dp_better_than_greedy", dpBetter);
  std::printf("DP strictly better than greedy on %d of %d random chains\n", dpBetter, compared);
}

// The same properties on large random chains, where groups must be cut:
// the test also checks that N, H and C cuts all occur, so it exercises the
// slicing it claims to.
TEST(LayerGroup, LargeRandomChainsAreSlicedValidly) {
  int cutN = 0, cutH = 0, cutC = 0;
  for (const char *name : {"bm1684x", "bm1688"}) {
    ChipProfile c = chip(name);
    for (unsigned seed = 1000; seed < 1030; ++seed) {
      Graph g = randomChain(seed, 8, /*big=*/true);
      ASSERT_EQ(g.verify(), "") << seed;
      GroupOptions greedy;
      greedy.opt = 1;
      LayerGroupPlan p1 = planLayerGroups(c, g, greedy);
      LayerGroupPlan p2 = planLayerGroups(c, g);
      for (const LayerGroupPlan *p : {&p1, &p2}) {
        auto errors = validatePlan(c, g, *p);
        ASSERT_TRUE(errors.empty()) << name << " seed " << seed << ":\n" << joinErrors(errors);
        for (auto &grp : p->groups) {
          cutN += grp.spec.n > 1;
          cutH += grp.spec.h > 1;
          cutC += grp.spec.c > 1;
        }
      }
      EXPECT_LE(p2.totalCycles, p1.totalCycles) << name << " seed " << seed;
    }
  }
  EXPECT_GT(cutN, 0);
  EXPECT_GT(cutH, 0);
  EXPECT_GT(cutC, 0);
  std::printf("groups cut along N: %d, H: %d, C: %d\n", cutN, cutH, cutC);
}

} // namespace
