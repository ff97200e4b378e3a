//===- SlicingTest.cpp - Backward slice propagation with known answers ----===//

#include "tpuc/Backend/Slicing.h"

#include <gtest/gtest.h>

using namespace tpuc::backend;

namespace {

Range r(int64_t b, int64_t e) { return {b, e}; }

std::vector<int> allOps(const Graph &g) {
  std::vector<int> ops;
  for (size_t i = 0; i < g.ops.size(); ++i)
    ops.push_back(static_cast<int>(i));
  return ops;
}

TEST(Slicing, SplitRangeIsBalancedAndCovers) {
  EXPECT_EQ(splitRange(10, 3, 0), r(0, 3));
  EXPECT_EQ(splitRange(10, 3, 1), r(3, 6));
  EXPECT_EQ(splitRange(10, 3, 2), r(6, 10));
  for (int64_t extent : {1, 7, 56, 113})
    for (int64_t k = 1; k <= extent; ++k) {
      int64_t at = 0;
      for (int64_t i = 0; i < k; ++i) {
        Range p = splitRange(extent, k, i);
        EXPECT_EQ(p.begin, at);
        EXPECT_GE(p.size(), extent / k);
        EXPECT_LE(p.size(), extent / k + 1);
        at = p.end;
      }
      EXPECT_EQ(at, extent);
    }
}

TEST(Slicing, TwoConv3x3HalosGrowBackwards) {
  GraphBuilder b;
  int x = b.input("x", {1, 8, 16, 16});
  int y = b.conv("c1", x, 8, 3, 1, 1);
  int z = b.conv("c2", y, 8, 3, 1, 1);
  b.output(z);
  Graph g = b.take();
  GroupValues vals = classifyValues(g, allOps(g));
  ASSERT_EQ(vals.inputs, std::vector<int>{x});
  ASSERT_EQ(vals.intermediates, std::vector<int>{y});
  ASSERT_EQ(vals.outputs, std::vector<int>{z});
  SliceSpec spec;
  spec.h = 2;
  SlicePlan p = propagateSlices(g, allOps(g), vals, spec);
  ASSERT_EQ(p.error, "");
  ASSERT_EQ(p.slices.size(), 2u);
  // Slice 0: rows [0,8) of z need [0,9) of y, [0,10) of x (top pad clipped).
  EXPECT_EQ(p.slices[0].value.at(z).h(), r(0, 8));
  EXPECT_EQ(p.slices[0].value.at(y).h(), r(0, 9));
  EXPECT_EQ(p.slices[0].value.at(x).h(), r(0, 10));
  // Slice 1: [8,16) <- [7,16) <- [6,16) (bottom pad clipped).
  EXPECT_EQ(p.slices[1].value.at(z).h(), r(8, 16));
  EXPECT_EQ(p.slices[1].value.at(y).h(), r(7, 16));
  EXPECT_EQ(p.slices[1].value.at(x).h(), r(6, 16));
  // W and C untouched; a full conv needs all input channels.
  EXPECT_EQ(p.slices[1].value.at(x).w(), r(0, 16));
  EXPECT_EQ(p.slices[1].value.at(x).c(), r(0, 8));
  EXPECT_EQ(p.slices[1].store.at(z).h(), r(8, 16));
}

TEST(Slicing, StrideDilationAndPoolWindows) {
  GraphBuilder b;
  int x = b.input("x", {1, 4, 32, 32});
  int a = b.conv("s2", x, 4, 3, 2, 1);        // 32 -> 16
  int c = b.conv("dil", a, 4, 3, 1, 2, 1, 2); // 16 -> 16, reach 5
  int p = b.maxPool("pool", c, 3, 2, 1);      // 16 -> 8
  b.output(p);
  Graph g = b.take();
  SliceSpec spec;
  spec.h = 4;
  auto vals = classifyValues(g, allOps(g));
  SlicePlan sp = propagateSlices(g, allOps(g), vals, spec);
  ASSERT_EQ(sp.error, "");
  // Slice 1 of 4: pool rows [2,4) <- c rows [2*2-1, 3*2-1+3) = [3,8)
  //   <- dilated conv: [3-2, 7-2+4+1) = [1,10) <- stride-2 conv:
  //   [1*2-1, 9*2-1+3) = [1,20).
  EXPECT_EQ(sp.slices[1].value.at(p).h(), r(2, 4));
  EXPECT_EQ(sp.slices[1].value.at(c).h(), r(3, 8));
  EXPECT_EQ(sp.slices[1].value.at(a).h(), r(1, 10));
  EXPECT_EQ(sp.slices[1].value.at(x).h(), r(1, 20));
  // Slice 3: [6,8) <- [11,16) <- [9,16) <- [17,32).
  EXPECT_EQ(sp.slices[3].value.at(c).h(), r(11, 16));
  EXPECT_EQ(sp.slices[3].value.at(a).h(), r(9, 16));
  EXPECT_EQ(sp.slices[3].value.at(x).h(), r(17, 32));
}

TEST(Slicing, ResidualTakesTheHullOfBothReaders) {
  GraphBuilder b;
  int x = b.input("x", {1, 8, 16, 16});
  int y = b.conv("c1", x, 8, 3, 1, 1);
  int z = b.conv("c2", y, 8, 3, 1, 1);
  int s = b.add("add", z, x);
  b.output(s);
  Graph g = b.take();
  SliceSpec spec;
  spec.h = 4;
  auto vals = classifyValues(g, allOps(g));
  SlicePlan sp = propagateSlices(g, allOps(g), vals, spec);
  // Slice 1: add rows [4,8); x is read directly [4,8) and through two
  // convs [2,10): hull [2,10).
  EXPECT_EQ(sp.slices[1].value.at(x).h(), r(2, 10));
}

TEST(Slicing, ChannelCutsFollowTheOpKind) {
  GraphBuilder b;
  int x = b.input("x", {1, 16, 8, 8});
  int full = b.conv("full", x, 32, 1);
  int dw = b.conv("dw", full, 32, 3, 1, 1, /*groups=*/32);
  int grouped = b.conv("grp", dw, 32, 1, 1, 0, /*groups=*/4);
  b.output(grouped);
  Graph g = b.take();
  SliceSpec spec;
  spec.c = 4; // 8 output channels per slice
  auto vals = classifyValues(g, allOps(g));
  SlicePlan sp = propagateSlices(g, allOps(g), vals, spec);
  ASSERT_EQ(sp.error, "");
  const SliceBoxes &s1 = sp.slices[1];
  EXPECT_EQ(s1.value.at(grouped).c(), r(8, 16));
  EXPECT_EQ(s1.value.at(dw).c(), r(8, 16));   // group 1 of 4: 8 in channels
  EXPECT_EQ(s1.value.at(full).c(), r(8, 16)); // depthwise keeps channels
  EXPECT_EQ(s1.value.at(x).c(), r(0, 16));    // full conv needs all
  // Weights follow the output channels of their op.
  EXPECT_EQ(s1.weight.at(g.ops[0].weights[0]).dims[0], r(8, 16));
}

TEST(Slicing, BroadcastOperandsReadTheirSingleElement) {
  GraphBuilder b;
  int x = b.input("x", {2, 8, 16, 16});
  int s = b.input("s", {1, 8, 1, 1});
  int y = b.add("mul", x, s);
  b.output(y);
  Graph g = b.take();
  SliceSpec spec;
  spec.n = 2;
  spec.h = 2;
  auto vals = classifyValues(g, allOps(g));
  SlicePlan sp = propagateSlices(g, allOps(g), vals, spec);
  ASSERT_EQ(sp.slices.size(), 4u);
  const Box &bs = sp.slices[3].value.at(s);
  EXPECT_EQ(bs.n(), r(0, 1));
  EXPECT_EQ(bs.h(), r(0, 1));
  EXPECT_EQ(bs.c(), r(0, 8));
  EXPECT_EQ(sp.slices[3].value.at(x).n(), r(1, 2));
  EXPECT_EQ(sp.slices[3].value.at(x).h(), r(8, 16));
}

TEST(Slicing, TooManyPiecesIsAnError) {
  GraphBuilder b;
  int x = b.input("x", {1, 8, 4, 4});
  b.output(b.unary("u", x));
  Graph g = b.take();
  SliceSpec spec;
  spec.h = 5;
  auto vals = classifyValues(g, allOps(g));
  SlicePlan sp = propagateSlices(g, allOps(g), vals, spec);
  EXPECT_EQ(sp.error, "cannot cut h of 'u' (4) into 5 pieces");
}

TEST(Slicing, ValuesUsedOutsideTheGroupAreOutputs) {
  GraphBuilder b;
  int x = b.input("x", {1, 8, 8, 8});
  int y = b.conv("c1", x, 8, 3, 1, 1);
  int z = b.conv("c2", y, 8, 3, 1, 1);
  int w = b.add("add", z, y);
  b.output(w);
  Graph g = b.take();
  auto vals = classifyValues(g, {0, 1}); // c1, c2; add outside
  EXPECT_EQ(vals.outputs, (std::vector<int>{y, z}));
  EXPECT_TRUE(vals.intermediates.empty());
  EXPECT_EQ(vals.weights.size(), 4u);
  SliceSpec spec;
  spec.h = 2;
  SlicePlan sp = propagateSlices(g, {0, 1}, vals, spec);
  // y is stored as its own half, but computed with c2's halo.
  EXPECT_EQ(sp.slices[0].store.at(y).h(), r(0, 4));
  EXPECT_EQ(sp.slices[0].value.at(y).h(), r(0, 5));
}

TEST(Slicing, MatMulRowsReadWholeInputRowsAndTheWholeWeight) {
  // [1, 96, 64] x [64, 32]: a slice of rows (C of the view) reads those rows of the input, all of K, and
  // all of the weight; the bias add after it reads the same rows of its operand and all of its bias.
  GraphBuilder b(DType::F16);
  int x = b.input("x", {1, 96, 64});
  int y = b.linear("fc", x, 32);
  int z = b.bias("b", y);
  b.output(z);
  Graph g = b.take();
  CutRule rule = cutRule(g, allOps(g));
  EXPECT_TRUE(rule.rowsOnly);
  EXPECT_TRUE(rule.ok);
  EXPECT_EQ(rule.axis, 1);
  SliceSpec spec;
  spec.c = 3;
  EXPECT_FALSE(weightsPerSlice(g, allOps(g), spec));
  auto vals = classifyValues(g, allOps(g));
  SlicePlan sp = propagateSlices(g, allOps(g), vals, spec);
  ASSERT_EQ(sp.slices.size(), 3u);
  const SliceBoxes &s1 = sp.slices[1];
  EXPECT_EQ(s1.value.at(x).c(), r(32, 64));
  EXPECT_EQ(s1.value.at(x).h(), r(0, 64));
  EXPECT_EQ(s1.value.at(y).c(), r(32, 64));
  EXPECT_EQ(s1.value.at(y).h(), r(0, 32));
  int w = g.ops[0].weights[0], bias = g.ops[1].weights[0];
  EXPECT_EQ(s1.weight.at(w), fullBox(g.values[w]));
  EXPECT_EQ(s1.weight.at(bias), fullBox(g.values[bias]));
  // A rank-2 row group cuts N only; a conv chain keeps its H rule.
  GraphBuilder b2(DType::F16);
  b2.output(b2.linear("fc", b2.input("x", {16, 64}), 8));
  Graph g2 = b2.take();
  EXPECT_EQ(cutRule(g2, {0}).axis, -1);
  GraphBuilder b3;
  b3.output(b3.conv("c", b3.input("x", {1, 8, 8, 8}), 8, 3, 1, 1));
  Graph g3 = b3.take();
  EXPECT_FALSE(cutRule(g3, {0}).rowsOnly);
  EXPECT_EQ(cutRule(g3, {0}).axis, 2);
}

} // namespace
