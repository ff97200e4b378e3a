//===- GlobalMemoryTest.cpp - DDR planning: lifetimes, reuse, in place ----===//

#include "tpuc/Backend/GlobalMemory.h"
#include "tpuc/Backend/ModelZoo.h"

#include "RandomGraphs.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

using namespace tpuc::backend;
using tpuc::backend::testing::randomChain;

namespace {

ChipProfile chip(const char *name) { return findChipProfile(name, {TPUC_CHIP_TEST_DIR}); }

bool overlapping(const Interval &a, const Interval &b) {
  return a.start <= b.end && b.start <= a.end && a.address < b.address + b.size &&
         b.address < a.address + a.size;
}

TEST(GlobalMemory, ChainReachesTheLowerBound) {
  // a -> b -> c -> d: each step holds two neighbours.
  std::vector<Interval> iv = {{1000, 0, 1, -1}, {3000, 1, 2, -1}, {2000, 2, 3, -1}, {500, 3, 4, -1}};
  EXPECT_EQ(intervalLowerBound(iv, 64), 3008 + 2048);
  for (GmemStrategy s : {GmemStrategy::BySize, GmemStrategy::BestFit}) {
    auto copy = iv;
    EXPECT_EQ(assignIntervals(copy, 64, s), intervalLowerBound(iv, 64)) << gmemStrategyName(s);
  }
}

TEST(GlobalMemory, DisjointLifetimesShareAddressZero) {
  std::vector<Interval> iv = {{100, 0, 0, -1}, {200, 1, 1, -1}, {50, 2, 2, -1}};
  for (GmemStrategy s : allGmemStrategies()) {
    auto copy = iv;
    EXPECT_EQ(assignIntervals(copy, 64, s), 256) << gmemStrategyName(s);
    for (auto &i : copy)
      EXPECT_EQ(i.address, 0);
  }
}

TEST(GlobalMemory, RandomIntervalsNeverOverlapWhileLive) {
  for (unsigned seed = 1; seed <= 300; ++seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> count(1, 80), t(0, 50), len(0, 15);
    std::uniform_int_distribution<int64_t> size(1, 1 << 20);
    std::vector<Interval> iv(count(rng));
    for (auto &i : iv) {
      i.start = t(rng);
      i.end = i.start + len(rng);
      i.size = size(rng);
    }
    int64_t lb = intervalLowerBound(iv, 64);
    for (GmemStrategy s : allGmemStrategies()) {
      auto copy = iv;
      int64_t peak = assignIntervals(copy, 64, s);
      EXPECT_GE(peak, lb);
      for (size_t a = 0; a < copy.size(); ++a) {
        EXPECT_EQ(copy[a].address % 64, 0);
        EXPECT_LE(copy[a].address + copy[a].size, peak);
        for (size_t b = a + 1; b < copy.size(); ++b)
          ASSERT_FALSE(overlapping(copy[a], copy[b])) << "seed " << seed << " " << gmemStrategyName(s);
      }
    }
  }
}

TEST(GlobalMemory, ReshapeSharesItsOperandsBuffer) {
  ChipProfile c = chip("bm1684x");
  GraphBuilder b;
  int x = b.input("x", {1, 16, 8, 8});
  int y = b.conv("c1", x, 16, 3, 1, 1);
  int r = b.reshape("flat", y, {1, 1024});
  int z = b.matmul("fc", r, 10);
  b.output(z);
  Graph g = b.take();
  LayerGroupPlan lg = planLayerGroups(c, g);
  GmemPlan gm = planGlobalMemory(c, g, lg);
  EXPECT_TRUE(validateGmem(c, g, gm).empty());
  const GmemBuffer *by = nullptr, *br = nullptr;
  for (auto &buf : gm.buffers) {
    if (buf.value == y)
      by = &buf;
    if (buf.value == r)
      br = &buf;
  }
  ASSERT_TRUE(by && br);
  EXPECT_EQ(br->root, y);
  EXPECT_EQ(br->address, by->address);
  EXPECT_EQ(gm.sharedBuffers, 1);
  // Weights: conv filter+bias, fc filter+bias, disjoint and aligned.
  ASSERT_EQ(gm.weights.size(), 4u);
  EXPECT_EQ(gm.weights[0].address, 0);
  EXPECT_EQ(gm.weights[1].address, alignUp(16 * 16 * 9, c.coeffAlignment));
  EXPECT_GE(gm.activationBase, gm.coeffBytes);
}

TEST(GlobalMemory, ConcatOperandsAreWrittenInPlace) {
  ChipProfile c = chip("bm1684x");
  GraphBuilder b;
  int x = b.input("x", {1, 8, 16, 16});
  int p = b.conv("a", x, 8, 1);
  int q = b.conv("b", x, 24, 3, 1, 1);
  int cat = b.concat("cat", {p, q}, 1);
  int y = b.conv("c", cat, 8, 1);
  b.output(y);
  Graph g = b.take();
  EXPECT_TRUE(canConcatInPlace(g, 2));
  GroupOptions alone;
  alone.opt = 0; // keep a and b apart so both go through DDR
  LayerGroupPlan lg = planLayerGroups(c, g, alone);
  EXPECT_EQ(lg.groups[2].cycles, 0);
  GmemPlan gm = planGlobalMemory(c, g, lg);
  EXPECT_TRUE(validateGmem(c, g, gm).empty());
  std::map<int, GmemBuffer> byValue;
  for (auto &buf : gm.buffers)
    byValue[buf.value] = buf;
  EXPECT_EQ(byValue[p].root, cat);
  EXPECT_EQ(byValue[q].root, cat);
  EXPECT_EQ(byValue[p].address, byValue[cat].address);
  EXPECT_EQ(byValue[q].address, byValue[cat].address + 8 * 16 * 16);
  EXPECT_EQ(gm.sharedBuffers, 2);
}

TEST(GlobalMemory, ConcatIsCopiedWhenItCannotBeInPlace) {
  GraphBuilder b;
  int x = b.input("x", {2, 8, 4, 4}); // batch 2: channels not contiguous
  int p = b.conv("a", x, 8, 1);
  int q = b.conv("b", x, 8, 1);
  b.output(b.concat("cat", {p, q}, 1));
  Graph g = b.take();
  EXPECT_FALSE(canConcatInPlace(g, 2));
  GraphBuilder b2;
  int x2 = b2.input("x", {1, 8, 4, 4});
  int p2 = b2.conv("a", x2, 8, 1);
  b2.output(b2.concat("cat", {x2, p2}, 1)); // graph input operand
  Graph g2 = b2.take();
  EXPECT_FALSE(canConcatInPlace(g2, 1));
  // A weight operand (the sample head's "keep the first candidate" constant) sits in the coefficient
  // area: the concat must copy it rather than alias its activation operand.
  Graph g3;
  int x3 = g3.addInput("x", {1, 4}, DType::F32);
  int w3 = g3.addWeight("first", {1, 1}, DType::F32);
  Op relu;
  relu.name = "r";
  relu.kind = OpKind::Unary;
  relu.inputs = {x3};
  int r3 = g3.ops[g3.addOp(relu, {Value{"r", {1, 4}, DType::F32}})].outputs[0];
  Op cat;
  cat.name = "cat";
  cat.kind = OpKind::Concat;
  cat.axis = 1;
  cat.inputs = {r3};
  cat.weights = {w3};
  g3.addOp(cat, {Value{"cat", {1, 5}, DType::F32}});
  EXPECT_FALSE(canConcatInPlace(g3, 1));
  ChipProfile c = chip("bm1684x");
  LayerGroupPlan lg = planLayerGroups(c, g);
  EXPECT_GT(lg.groups.back().cycles, 0);
}

TEST(GlobalMemory, ModelsStayNearTheLowerBound) {
  for (const char *name : {"bm1684x", "bm1688", "cv186ah"}) {
    ChipProfile c = chip(name);
    for (Graph g : {buildResNet18(DType::INT8), buildMobileNetV2(DType::BF16)}) {
      for (int opt : {1, 2}) {
        GroupOptions o;
        o.opt = opt;
        LayerGroupPlan lg = planLayerGroups(c, g, o);
        GmemPlan gm = planGlobalMemory(c, g, lg);
        auto errors = validateGmem(c, g, gm);
        EXPECT_TRUE(errors.empty()) << errors.front();
        EXPECT_GE(gm.activationPeak, gm.lowerBound);
        EXPECT_LE(static_cast<double>(gm.activationPeak), 1.05 * static_cast<double>(gm.lowerBound))
            << name << " opt " << opt;
        EXPECT_EQ(gm.tried.size(), allGmemStrategies().size());
      }
    }
  }
}

TEST(GlobalMemory, RandomGraphsNeverOverlapLiveBuffers) {
  ChipProfile c = chip("bm1688");
  for (unsigned seed = 100; seed < 160; ++seed) {
    Graph g = randomChain(seed, 12);
    LayerGroupPlan lg = planLayerGroups(c, g);
    GmemPlan gm = planGlobalMemory(c, g, lg);
    auto errors = validateGmem(c, g, gm);
    EXPECT_TRUE(errors.empty()) << "seed " << seed << ": " << errors.front();
    // Every value crossing a group boundary has a DDR buffer.
    std::set<int> placed;
    for (auto &buf : gm.buffers)
      placed.insert(buf.value);
    for (auto &grp : lg.groups) {
      for (int v : grp.values.inputs)
        EXPECT_TRUE(placed.count(v));
      for (int v : grp.values.outputs)
        EXPECT_TRUE(placed.count(v));
      for (int v : grp.values.intermediates)
        EXPECT_FALSE(placed.count(v)) << "group-internal value in DDR";
    }
  }
}

TEST(GlobalMemory, ModelLargerThanDdrIsAnError) {
  ChipProfile c = chip("bm1684x");
  c.ddrBytes = 1 << 20;
  Graph g = buildResNet18(DType::INT8);
  LayerGroupPlan lg = planLayerGroups(c, g);
  try {
    planGlobalMemory(c, g, lg);
    FAIL();
  } catch (const std::runtime_error &e) {
    std::string m = e.what();
    EXPECT_EQ(m.rfind("chip bm1684x: model needs ", 0), 0u) << m;
    EXPECT_NE(m.find("bytes of DDR, the profile has 1048576"), std::string::npos) << m;
  }
}

TEST(GlobalMemory, ValidatorCatchesAnOverlap) {
  ChipProfile c = chip("bm1684x");
  Graph g = buildResNet18(DType::INT8);
  LayerGroupPlan lg = planLayerGroups(c, g);
  GmemPlan gm = planGlobalMemory(c, g, lg);
  ASSERT_TRUE(validateGmem(c, g, gm).empty());
  // Move a buffer onto one live at the same time.
  for (auto &a : gm.buffers)
    for (auto &b : gm.buffers)
      if (a.root == a.value && b.root == b.value && a.value != b.value && a.start <= b.end &&
          b.start <= a.end) {
        a.address = b.address;
        EXPECT_FALSE(validateGmem(c, g, gm).empty());
        return;
      }
  FAIL() << "no two buffers live together";
}

} // namespace
