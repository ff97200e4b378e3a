//===- LayerGroupTest.cpp - Layer groups: pipelines, fit, greedy vs DP ----===//

#include "tpuc/Backend/LayerGroup.h"

#include "tpuc/Backend/ModelZoo.h"

#include "RandomGraphs.h"

#include <gtest/gtest.h>

#include <cmath>

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
  // The matmul has a row form: alone in a group or global, whichever is cheaper.
  EXPECT_TRUE(g.isGroupable(3));
  EXPECT_GT(plan.opCosts[3].tiuCycles, 0);
}

TEST(LayerGroup, Rank4WeightsMayVaryAlongChannelsOnly) {
  // A group cuts N, H and W and keeps a weight whole: a per-channel scale groups, swin's position bias
  // [1, heads, 49, 49] added to the [windows, heads, 49, 49] scores does not (its H would be cut).
  Graph g;
  int x = g.addInput("x", {4, 6, 49, 49}, DType::F16);
  int scale = g.addWeight("scale", {1, 6, 1, 1}, DType::F16);
  int bias = g.addWeight("bias", {1, 6, 49, 49}, DType::F16);
  auto eltwise = [&](const char *name, int in, int w) {
    Op op;
    op.name = name;
    op.kind = OpKind::Eltwise;
    op.inputs = {in};
    op.weights = {w};
    Value v;
    v.name = name;
    v.shape = {4, 6, 49, 49};
    v.dtype = DType::F16;
    return g.addOp(op, {v});
  };
  int scaled = eltwise("scaled", x, scale);
  eltwise("biased", g.ops[scaled].outputs[0], bias);
  EXPECT_TRUE(g.isGroupable(0));
  EXPECT_FALSE(g.isGroupable(1));
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

// With two cores each group's slices split into two contiguous runs, each core running its own pipeline
// (slices + 2 stages) in its own LMEM, whose rects are the one-core rects of its slices in its own time
// units; a group of one slice is cut again so that no core idles; the estimate pays the barrier and the
// shared DDR, so it gains less than 2x.
TEST(LayerGroup, TwoCoresSplitEachGroupsSlices) {
  ChipProfile c = chip("bm1688");
  for (DType dt : {DType::INT8, DType::BF16}) {
    Graph g = buildResNet18(dt);
    GroupOptions one, two;
    two.cores = 2;
    LayerGroupPlan p1 = planLayerGroups(c, g, one), p2 = planLayerGroups(c, g, two);
    EXPECT_EQ(p1.cores, 1);
    EXPECT_EQ(p2.cores, 2);
    ASSERT_TRUE(validatePlan(c, g, p2).empty()) << joinErrors(validatePlan(c, g, p2));
    int multi = 0;
    for (const LayerGroup &grp : p1.groups) {
      EXPECT_EQ(grp.cores, 1);
      for (const TimeStep &st : grp.steps)
        EXPECT_EQ(st.core, 0);
      EXPECT_TRUE(grp.parts.empty());
    }
    for (const LayerGroup &grp : p2.groups) {
      if (grp.global)
        continue;
      ASSERT_EQ(grp.sliceCore.size(), grp.slices.size());
      if (grp.slices.size() < 2) {
        EXPECT_EQ(grp.cores, 1);
        continue;
      }
      ++multi;
      ASSERT_EQ(grp.cores, 2);
      // Balanced contiguous halves.
      int64_t on0 = std::count(grp.sliceCore.begin(), grp.sliceCore.end(), 0);
      EXPECT_EQ(on0, static_cast<int64_t>(grp.slices.size()) / 2);
      EXPECT_TRUE(std::is_sorted(grp.sliceCore.begin(), grp.sliceCore.end()));
      EXPECT_EQ(grp.steps.size(), grp.slices.size() + 4);
      // Each core's stage t loads its slice t.
      for (const TimeStep &st : grp.steps)
        if (st.loadSlice >= 0)
          EXPECT_EQ(st.loadSlice, (st.core == 0 ? 0 : on0) + st.stage);
      // Resident weights sit in both LMEMs.
      for (int w : grp.values.weights)
        for (int core : {0, 1})
          EXPECT_EQ(std::count_if(grp.rects.begin(), grp.rects.end(),
                                  [&](const LmemRect &r) { return r.value == w && r.core == core; }),
                    grp.spec.c > 1 ? std::count(grp.sliceCore.begin(), grp.sliceCore.end(), core) : 1);
      EXPECT_EQ(grp.syncCycles, c.syncCycles);
      EXPECT_TRUE(validateLmem(c, grp.rects).empty());
    }
    EXPECT_GT(multi, 2) << dtypeName(dt);
    // Faster, but not twice: barriers and one DDR.
    EXPECT_LT(p2.totalCycles, p1.totalCycles) << dtypeName(dt);
    EXPECT_GT(p2.totalCycles * 2, p1.totalCycles) << dtypeName(dt);
  }
}

TEST(LayerGroup, OneCorePlanIsUnchangedByTheCoreOption) {
  // --num_core 1 on a two-core chip plans what a one-core chip would: every step on core 0, stage t the
  // t-th, no barrier.
  ChipProfile c = chip("bm1688");
  Graph g = buildMobileNetV2(DType::INT8);
  LayerGroupPlan plan = planLayerGroups(c, g);
  for (const LayerGroup &grp : plan.groups) {
    EXPECT_EQ(grp.syncCycles, 0);
    for (size_t t = 0; t < grp.steps.size(); ++t) {
      EXPECT_EQ(grp.steps[t].core, 0);
      EXPECT_EQ(grp.steps[t].stage, static_cast<int>(t));
    }
    for (const LmemRect &r : grp.rects)
      EXPECT_EQ(r.core, 0);
  }
}

TEST(LayerGroup, SingleSliceGroupIsCutForTwoCores) {
  // Everything fits whole: one slice on one core; with two cores the batch is cut (no halo). At the
  // nominal rates (the fitted derates make a two-slice pipeline pay on one core already).
  ChipProfile c = chip("bm1688");
  c.convEfficiency.clear();
  c.tiuPassCycles = 0;
  c.gdmaEfficiency = 1;
  GraphBuilder b;
  int x = b.input("x", {2, 32, 16, 16});
  x = b.conv("c1", x, 32, 3, 1, 1);
  x = b.conv("c2", x, 32, 3, 1, 1);
  b.output(x);
  Graph g = b.take();
  LayerGroupPlan p1 = planLayerGroups(c, g);
  GroupOptions two;
  two.cores = 2;
  LayerGroupPlan p2 = planLayerGroups(c, g, two);
  ASSERT_EQ(p1.groups.size(), 1u);
  ASSERT_EQ(p2.groups.size(), 1u);
  EXPECT_EQ(p1.groups[0].slices.size(), 1u);
  EXPECT_EQ(p2.groups[0].spec.n, 2);
  EXPECT_EQ(p2.groups[0].cores, 2);
  EXPECT_EQ(p2.groups[0].sliceCore, (std::vector<int>{0, 1}));
  EXPECT_LT(p2.totalCycles, p1.totalCycles);
  EXPECT_TRUE(validatePlan(c, g, p2).empty()) << joinErrors(validatePlan(c, g, p2));
  // The validator knows the cores: slices out of core order, a core's buffer moved to the other LMEM.
  LayerGroupPlan swapped = p2;
  swapped.groups[0].sliceCore = {1, 0};
  EXPECT_FALSE(validatePlan(c, g, swapped).empty());
  LayerGroupPlan moved = p2;
  for (LmemRect &r : moved.groups[0].rects)
    if (r.core == 0 && r.kind == BufferKind::Input)
      r.core = 1;
  EXPECT_FALSE(validatePlan(c, g, moved).empty());
}

TEST(LayerGroup, GlobalOpsSplitAlongTheirOuterDimension) {
  ChipProfile c = chip("bm1688");
  GraphBuilder b;
  int x = b.input("x", {1, 512, 7, 7});
  int p = b.globalPool("gap", x);        // [1, 512, 1, 1]: channels are independent
  int r = b.reshape("flat", p, {1, 512}); // in place: no command
  int fc = b.matmul("fc", r, 1000);       // [1, 1000]: the features are no outer dimension
  b.output(fc);
  Graph g = b.take();
  EXPECT_EQ(globalSplitAxis(g, 0, 2), 1);
  EXPECT_EQ(globalSplitAxis(g, 1, 2), -1);
  EXPECT_EQ(globalSplitAxis(g, 2, 2), -1);
  EXPECT_EQ(globalSplitAxis(g, 0, 1), -1);
  LayerGroup gap = planGlobal(c, g, 0, 2);
  ASSERT_EQ(gap.parts.size(), 2u);
  EXPECT_EQ(gap.parts[0].range, (Range{0, 256}));
  EXPECT_EQ(gap.parts[1].range, (Range{256, 512}));
  EXPECT_EQ(gap.parts[1].core, 1);
  // Input and output cut the same way.
  std::vector<Box> boxes = globalPartBoxes(g, g.ops[0], 1, gap.parts[1].range);
  ASSERT_EQ(boxes.size(), 2u);
  for (const Box &bx : boxes)
    EXPECT_EQ(bx.c(), (Range{256, 512}));
  EXPECT_EQ(boxes[1].h(), (Range{0, 7}));
  // Each half moves half the bytes through the one DDR: not twice as fast.
  LayerGroup whole = planGlobal(c, g, 0, 1);
  EXPECT_LT(gap.cycles, whole.cycles + c.syncCycles);
  EXPECT_GT(2 * gap.cycles, whole.cycles);
  // A batched matmul splits along its batch; its weight is read whole by every core.
  Graph mg;
  int in = mg.addInput("in", {4, 16, 64}, DType::INT8);
  Op mm;
  mm.name = "mm";
  mm.kind = OpKind::MatMul;
  mm.inputs = {in};
  mm.weights = {mg.addWeight("mm.weight", {64, 32}, DType::INT8), mg.addWeight("mm.bias", {32}, DType::INT32)};
  Value res;
  res.name = "mm";
  res.shape = {4, 16, 32};
  res.dtype = DType::INT8;
  int mmOp = mg.addOp(mm, {res});
  mg.markOutput(mg.ops[mmOp].outputs[0]);
  ASSERT_EQ(mg.verify(), "");
  ASSERT_EQ(globalSplitAxis(mg, 0, 2), 0);
  std::vector<Box> mboxes = globalPartBoxes(mg, mg.ops[0], 0, {2, 4});
  EXPECT_EQ(mboxes[0].n(), (Range{2, 4}));
  EXPECT_EQ(mboxes[1].n(), (Range{2, 4}));
  for (size_t i = 2; i < mboxes.size(); ++i)
    EXPECT_EQ(mboxes[i], fullBox(mg.values[mg.ops[0].weights[i - 2]]));
  EXPECT_EQ(globalSplitAxis(mg, 0, 8), -1); // fewer batches than cores
}

// Random chains, small and large, on two cores: every plan validates (per-core pipelines, per-core
// LMEM), and groups do get spread.
TEST(LayerGroup, RandomChainsPlanValidOnTwoCores) {
  ChipProfile c = chip("bm1688");
  int spread = 0;
  for (unsigned seed = 1; seed <= 60; ++seed) {
    Graph g = randomChain(seed, 10, /*big=*/seed > 30);
    for (int opt = 0; opt <= 2; ++opt) {
      GroupOptions o;
      o.opt = opt;
      o.cores = 2;
      LayerGroupPlan plan = planLayerGroups(c, g, o);
      auto errors = validatePlan(c, g, plan);
      ASSERT_TRUE(errors.empty()) << "seed " << seed << " opt " << opt << ":\n" << joinErrors(errors);
      for (const LayerGroup &grp : plan.groups)
        spread += grp.cores > 1;
    }
  }
  EXPECT_GT(spread, 30);
}

} // namespace

namespace {

/// A transformer feed-forward block on `shape` activations: linear -> bias -> GELU -> linear -> bias ->
/// residual add.
Graph feedForward(std::vector<int64_t> shape, int64_t inner, DType dtype = DType::F16) {
  GraphBuilder b(dtype);
  int x = b.input("x", shape);
  int h = b.linear("fc1", x, inner);
  h = b.bias("fc1_bias", h);
  h = b.unary("gelu", h);
  h = b.linear("fc2", h, shape.back());
  h = b.bias("fc2_bias", h);
  b.output(b.add("residual", x, h));
  return b.take();
}

/// Every slice box of every value of `grp` holds the value's last axis (of its own rank) whole.
bool featuresWhole(const Graph &g, const LayerGroup &grp) {
  for (const SliceBoxes &s : grp.slices)
    for (const auto &[v, box] : s.value) {
      int last = static_cast<int>(std::min<size_t>(g.values[v].shape.size(), 4)) - 1;
      if (box.dims[last] != Range{0, g.values[v].dim(last)})
        return false;
    }
  return true;
}

} // namespace

TEST(LayerGroup, MatMulBiasActivationResidualFormOneRowGroup) {
  ChipProfile c = chip("bm1684x");
  Graph g = feedForward({1, 2048, 256}, 1024);
  ASSERT_EQ(g.verify(), "");
  for (int o = 0; o < static_cast<int>(g.ops.size()); ++o) {
    EXPECT_TRUE(g.isGroupable(o)) << g.ops[o].name;
    EXPECT_TRUE(g.cutsRowsOnly(o)) << g.ops[o].name;
  }
  LayerGroupPlan plan = planLayerGroups(c, g);
  ASSERT_EQ(plan.groups.size(), 1u);
  const LayerGroup &grp = plan.groups[0];
  EXPECT_FALSE(grp.global);
  EXPECT_EQ(grp.ops.size(), 6u);
  // Rows of [1, 128, 256] are C of the NCHW view; the features (H) are never cut.
  EXPECT_EQ(grp.spec.h, 1);
  EXPECT_EQ(grp.spec.w, 1);
  EXPECT_GT(grp.spec.c, 1) << "a pipeline of row slices";
  EXPECT_TRUE(featuresWhole(g, grp));
  // Every result but the residual's stays in LMEM; the weights are loaded once, resident for every slice.
  EXPECT_EQ(grp.values.intermediates.size(), 5u);
  EXPECT_EQ(grp.values.outputs.size(), 1u);
  int resident = 0;
  for (const LmemRect &r : grp.rects)
    resident += r.kind == BufferKind::Weight && r.slice == -1;
  EXPECT_EQ(resident, 4);
  EXPECT_TRUE(validatePlan(c, g, plan).empty()) << joinErrors(validatePlan(c, g, plan));
  // Keeping the intermediates in LMEM beats every op on its own, and every op global.
  GroupOptions alone;
  alone.opt = 0;
  LayerGroupPlan single = planLayerGroups(c, g, alone);
  EXPECT_TRUE(validatePlan(c, g, single).empty()) << joinErrors(validatePlan(c, g, single));
  EXPECT_LT(plan.totalCycles, single.totalCycles);
  int64_t global = 0;
  for (int o = 0; o < static_cast<int>(g.ops.size()); ++o)
    global += planGlobal(c, g, o, 1).cycles;
  EXPECT_LT(plan.totalCycles, global);
}

TEST(LayerGroup, RowGroupsStreamTheirMatMulWeightsInColumnTiles) {
  // BERT-base's feed-forward block (768 -> 3072 -> 768, F16, 128 rows): each matmul's 4.5 MiB weight
  // loads in stage 1 in column tiles of whole lane multiples, about sqrt(min(load, compute) / latency)
  // of them, and the first slice computes tile by tile; the group beats every op global.
  ChipProfile c = chip("bm1684x");
  Graph g = feedForward({1, 128, 768}, 3072);
  const Op &fc1 = g.ops[0];
  const Box out = fullBox(g.values[fc1.outputs[0]]);
  std::vector<Range> tiles = columnTiles(c, g, fc1, out);
  const Value &w = g.values[fc1.weights[0]];
  const int64_t load = weightBoxDmaCycles(c, w, fullBox(w)), compute = tiuCost(c, g, fc1, out).cycles;
  const double ideal = std::sqrt(static_cast<double>(std::min(load, compute)) / c.gdmaLatencyCycles);
  ASSERT_GT(tiles.size(), 2u);
  EXPECT_LE(std::abs(static_cast<double>(tiles.size()) - ideal), 1.0) << ideal;
  int64_t covered = 0;
  for (const Range &t : tiles) {
    EXPECT_EQ(t.begin, covered);
    EXPECT_TRUE(t.size() % c.lanes == 0 || t.end == 3072);
    covered = t.end;
  }
  EXPECT_EQ(covered, 3072);
  // The [K, N] weight's tile is its columns (DDR runs of the tile's width); an [N, K] weight's, its rows
  // (one run); a bias along the columns follows; other ops and other weights stay whole.
  Box wt = columnTileWeight(g, fc1, fc1.weights[0], tiles[1]);
  EXPECT_EQ(wt.dims[0], (Range{0, 768}));
  EXPECT_EQ(wt.dims[1], tiles[1]);
  EXPECT_EQ(ddrRunBytes(w, wt), tiles[1].size() * 2);
  Op transposed = fc1;
  transposed.weightColumnsFirst = true;
  Graph gt = g;
  gt.values[fc1.weights[0]].shape = {3072, 768};
  Box tt = columnTileWeight(gt, transposed, fc1.weights[0], tiles[1]);
  EXPECT_EQ(tt.dims[0], tiles[1]);
  EXPECT_EQ(ddrRunBytes(gt.values[fc1.weights[0]], tt), tiles[1].size() * 768 * 2);
  const Op &bias = g.ops[1];
  EXPECT_EQ(columnTiles(c, g, bias, fullBox(g.values[bias.outputs[0]])).size(), 1u);
  EXPECT_EQ(columnTileWeight(g, bias, bias.weights[0], tiles[1]), fullBox(g.values[bias.weights[0]]));
  // Stage 0 loads the first slice's input; every matmul weight loads in stage 1.
  EXPECT_EQ(residentWeightStage(g, {0, 1, 2, 3, 4, 5}, true, 0), 1);
  EXPECT_EQ(residentWeightStage(g, {1, 2, 3}, true, 0), 0);
  EXPECT_EQ(residentWeightStage(g, {0, 1, 2, 3, 4, 5}, false, 0), 0);
  LayerGroupPlan plan = planLayerGroups(c, g);
  EXPECT_TRUE(validatePlan(c, g, plan).empty()) << joinErrors(validatePlan(c, g, plan));
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_FALSE(plan.groups[0].global);
  int64_t global = 0;
  for (int o = 0; o < static_cast<int>(g.ops.size()); ++o)
    global += planGlobal(c, g, o, 1).cycles;
  EXPECT_LT(plan.totalCycles, global);
  // At least both weights' stream: the group cannot beat the DDR.
  EXPECT_GT(plan.totalCycles, 2 * (load - c.gdmaLatencyCycles));
}

TEST(LayerGroup, RowsInTheOuterAxisAreCutAlongN) {
  // [M, 1, K] (a sequence-first activation): the rows are N of the view (all on one lane: C is 1).
  ChipProfile c = chip("bm1684x");
  Graph g = feedForward({256, 1, 64}, 256);
  for (int opt : {1, 2}) {
    GroupOptions o;
    o.opt = opt;
    LayerGroupPlan plan = planLayerGroups(c, g, o);
    EXPECT_TRUE(validatePlan(c, g, plan).empty()) << joinErrors(validatePlan(c, g, plan));
    bool cutN = false;
    for (const LayerGroup &grp : plan.groups) {
      if (grp.global)
        continue;
      cutN = cutN || grp.spec.n > 1;
      EXPECT_EQ(grp.spec.c * grp.spec.h * grp.spec.w, 1) << "opt " << opt;
      EXPECT_TRUE(featuresWhole(g, grp)) << "opt " << opt;
    }
    EXPECT_TRUE(cutN) << "opt " << opt;
  }
}

TEST(LayerGroup, RowGroupsSplitTheirRowsOverTwoCores) {
  ChipProfile c = chip("bm1688");
  Graph g = feedForward({1, 1024, 256}, 1024, DType::INT8);
  GroupOptions o;
  o.cores = 2;
  LayerGroupPlan plan = planLayerGroups(c, g, o);
  ASSERT_EQ(plan.groups.size(), 1u);
  const LayerGroup &grp = plan.groups[0];
  EXPECT_FALSE(grp.global);
  EXPECT_EQ(grp.cores, 2);
  EXPECT_TRUE(featuresWhole(g, grp));
  EXPECT_TRUE(validatePlan(c, g, plan).empty()) << joinErrors(validatePlan(c, g, plan));
}

TEST(LayerGroup, MatMulWithoutARowFormRunsGlobal) {
  ChipProfile c = chip("bm1684x");
  // Weights larger than LMEM (4096 x 4096 F16: 512 KiB per lane) are never cut: global.
  {
    GraphBuilder b(DType::F16);
    int x = b.input("x", {1, 16, 4096});
    b.output(b.bias("b", b.linear("fc", x, 4096)));
    Graph g = b.take();
    LayerGroupPlan plan = planLayerGroups(c, g);
    ASSERT_FALSE(plan.groups.empty());
    EXPECT_TRUE(plan.groups[0].global);
    EXPECT_EQ(plan.groups[0].ops, std::vector<int>{0});
  }
  // A transposed activation: its rows are not the result's.
  {
    GraphBuilder b(DType::F16);
    int x = b.input("x", {1, 16, 64});
    b.output(b.linear("fc", x, 64));
    Graph g = b.take();
    EXPECT_TRUE(g.isGroupable(0));
    g.ops[0].noRowForm = true;
    EXPECT_FALSE(g.isGroupable(0));
  }
  // A rank-3 bias that varies along the rows does not broadcast along them.
  {
    GraphBuilder b(DType::F16);
    int x = b.input("x", {1, 16, 64});
    int y = b.linear("fc", x, 64);
    b.output(b.bias("b", y));
    Graph g = b.take();
    EXPECT_TRUE(g.isGroupable(1));
    g.values[g.ops[1].weights[0]].shape = {1, 16, 1};
    EXPECT_FALSE(g.isGroupable(1));
  }
}

namespace {

/// Appends `kind` (a row normalization) reading `in`, with `weights` weights of the last axis' extent,
/// and makes its result the graph's only output.
int appendRowNorm(Graph &g, OpKind kind, int in, int weights) {
  const Value x = g.values[in];
  Op op;
  op.name = std::string(opKindName(kind)) + std::to_string(g.ops.size());
  op.kind = kind;
  op.inputs = {in};
  for (int k = 0; k < weights; ++k)
    op.weights.push_back(g.addWeight(op.name + ".w" + std::to_string(k), {x.shape.back()}, x.dtype));
  Value out;
  out.name = op.name;
  out.shape = x.shape;
  out.dtype = x.dtype;
  int o = g.addOp(op, {out});
  g.outputs = {g.ops[o].outputs[0]};
  return g.ops[o].outputs[0];
}

} // namespace

TEST(LayerGroup, NormsJoinRowGroupsAndKeepTheirStatisticsInLmem) {
  ChipProfile c = chip("bm1684x");
  // A feed-forward block and the layernorm after its residual add: one row group, the norm's rows whole.
  Graph g = feedForward({1, 2048, 256}, 1024);
  int norm = appendRowNorm(g, OpKind::LayerNorm, g.ops.back().outputs[0], 2);
  ASSERT_EQ(g.verify(), "");
  LayerGroupPlan plan = planLayerGroups(c, g);
  ASSERT_EQ(plan.groups.size(), 1u);
  const LayerGroup &grp = plan.groups[0];
  EXPECT_FALSE(grp.global);
  EXPECT_EQ(grp.ops.size(), 7u);
  EXPECT_EQ(grp.spec.h, 1);
  EXPECT_GT(grp.spec.c, 1);
  EXPECT_TRUE(featuresWhole(g, grp));
  EXPECT_TRUE(validatePlan(c, g, plan).empty()) << joinErrors(validatePlan(c, g, plan));
  // The norm's result buffer also holds its rows' mean and reciprocal root in f32: one EU-padded plane
  // of 2 values per row (channel) of a lane.
  for (const LmemRect &r : grp.rects)
    if (r.value == norm) {
      const Box &b = grp.slices[r.slice].value.at(norm);
      int64_t rows = b.c().begin % c.lanes + b.c().size();
      EXPECT_EQ(r.size, activationBytesPerLane(c, 1, rows, 256, 1, DType::F16) +
                            activationBytesPerLane(c, 1, rows, 2, 1, DType::F32));
    }
  // Its weights are resident like the matmuls'.
  int resident = 0;
  for (const LmemRect &r : grp.rects)
    resident += r.kind == BufferKind::Weight && r.slice == -1;
  EXPECT_EQ(resident, 6);

  // Softmax over the last axis of [1, 8, 128, 128] scores, between two element-wise ops: a rank-4 row
  // group cuts N, then H (rows), never C or the normalized W.
  GraphBuilder b(DType::F16);
  int s = b.unary("scale", b.input("scores", {1, 8, 128, 128}));
  Graph sg = b.take();
  int probs = appendRowNorm(sg, OpKind::Softmax, s, 0);
  Op cast;
  cast.name = "cast";
  cast.kind = OpKind::Unary;
  cast.inputs = {probs};
  Value castOut = sg.values[probs];
  castOut.name = "cast";
  sg.outputs = {sg.ops[sg.addOp(cast, {castOut})].outputs[0]};
  ASSERT_EQ(sg.verify(), "");
  EXPECT_TRUE(sg.isGroupable(1) && sg.cutsRowsOnly(1));
  LayerGroupPlan sp = planLayerGroups(c, sg);
  EXPECT_TRUE(validatePlan(c, sg, sp).empty()) << joinErrors(validatePlan(c, sg, sp));
  ASSERT_GE(sp.groupOfOp[1], 0);
  const LayerGroup &sgrp = sp.groups[sp.groupOfOp[1]];
  ASSERT_FALSE(sgrp.global);
  EXPECT_EQ(sgrp.ops.size(), 3u);
  EXPECT_EQ(sgrp.spec.c, 1);
  EXPECT_EQ(sgrp.spec.w, 1);
  EXPECT_TRUE(featuresWhole(sg, sgrp));

  // Global on two cores: rows are independent, the normalized axis is never the split.
  EXPECT_EQ(globalSplitAxis(sg, 1, 2), 1); // N is 1: the heads
  EXPECT_EQ(globalSplitAxis(g, 6, 2), 1);  // the rows of [1, 2048, 256]; gamma and beta read whole
  LayerGroup two = planGlobal(c, g, 6, 2);
  EXPECT_EQ(two.parts.size(), 2u);
  // Weights that vary along a row axis have no row form.
  g.values[g.ops[6].weights[0]].shape = {2048, 1};
  EXPECT_FALSE(g.isGroupable(6));
}
