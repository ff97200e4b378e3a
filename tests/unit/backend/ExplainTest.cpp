//===- ExplainTest.cpp - Why the planner cut: known answers and properties ===//
//
// The LMEM shortfall of a hand-built chain is worked out here from the chip
// profile's numbers (lanes, EU width, alignment, capacity) and the pipeline's
// rectangle rules of docs/BACKEND.md, independently of the planner's code.

#include "tpuc/Backend/Explain.h"

#include "tpuc/Backend/ModelZoo.h"

#include "RandomGraphs.h"

#include <gtest/gtest.h>

using namespace tpuc::backend;
using tpuc::backend::testing::randomChain;

namespace {

ChipProfile chip(const char *name) { return findChipProfile(name, {TPUC_CHIP_TEST_DIR}); }

int64_t roundUp(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

const GroupCut *cutAfter(const std::vector<GroupCut> &cuts, int group) {
  for (const GroupCut &c : cuts)
    if (c.group == group && !c.global)
      return &c;
  return nullptr;
}

/// x [1, 64, 8, 32768] -> 1x1 conv 'a' (128 channels) -> 1x1 conv 'b' (192), INT8 on bm1684x. Each conv
/// fits alone; the two together do not at one row per slice.
Graph wideChain() {
  GraphBuilder b(DType::INT8);
  int x = b.input("x", {1, 64, 8, 32768});
  int a = b.conv("a", x, 128, 1);
  b.output(b.conv("b", a, 192, 1));
  return b.take();
}

TEST(Explain, LmemShortAtTheWorstTimeStep) {
  ChipProfile c = chip("bm1684x");
  Graph g = wideChain();
  LayerGroupPlan plan = planLayerGroups(c, g);
  ASSERT_EQ(plan.groups.size(), 2u);
  ASSERT_FALSE(plan.groups[0].global);
  std::vector<GroupCut> cuts = explainCuts(c, g, plan, {});
  ASSERT_EQ(cuts.size(), 1u);
  const GroupCut &cut = cuts[0];
  EXPECT_EQ(cut.group, 0);
  EXPECT_FALSE(cut.global);
  EXPECT_EQ(g.ops[cut.op].name, "b");
  ASSERT_EQ(cut.reason, CutReason::Lmem) << cut.message;

  // Per lane, one row of a tensor of C channels: ceil(C / lanes) planes of 32768 INT8 elements (already
  // a multiple of the EU width and the alignment).
  const int64_t row = roundUp(32768, c.euBytes);
  const int64_t x = (64 + c.lanes - 1) / c.lanes * row, a = (128 + c.lanes - 1) / c.lanes * row,
                b = (192 + c.lanes - 1) / c.lanes * row;
  // Weights put output channels on lanes: filters oc x ic INT8, biases oc INT32.
  const int64_t wAlign = std::max(c.euBytes, c.lmemAlignment);
  const int64_t aFilter = roundUp((128 + c.lanes - 1) / c.lanes * 64, wAlign),
                aBias = roundUp((128 + c.lanes - 1) / c.lanes * 4, wAlign),
                bFilter = roundUp((192 + c.lanes - 1) / c.lanes * 128, wAlign),
                bBias = roundUp((192 + c.lanes - 1) / c.lanes * 4, wAlign);
  // Two ops, L = 2 units per stage, 8 slices of one row. Slice i: x in [2i, 2i+3), a in [2i+2, 2i+4),
  // b in [2i+3, 2i+6); weights of a from unit 0, of b from unit 2, to the end. Unit 4 holds x1 x2 a1 b0,
  // unit 5 holds x2 a1 b0 b1: the first unit with the most, 2b + a + x plus all weights.
  const int64_t needed = 2 * b + a + x + aFilter + aBias + bFilter + bBias;
  ASSERT_EQ(needed, 295552); // the figures the test expects on bm1684x's profile
  const GroupDiagnosis &d = cut.memory;
  EXPECT_EQ(d.obstacle, GroupObstacle::Lmem);
  EXPECT_EQ(d.spec, (SliceSpec{1, 1, 8, 1}));
  EXPECT_EQ(d.needed, needed);
  EXPECT_EQ(d.capacity, c.lmemBytesPerLane);
  EXPECT_EQ(d.timeUnit, 5);
  EXPECT_EQ(d.unitsPerStage, 2);
  EXPECT_EQ(g.ops[d.unitOp].name, "b"); // unit 5 % 2 = op 1
  EXPECT_EQ(d.computeSlice, 1);         // stage 2 computes slice 1
  struct Live {
    std::string value;
    BufferKind kind;
    int slice;
    int64_t size;
  };
  const std::vector<Live> expected = {
      {"b", BufferKind::Output, 0, b},       {"b", BufferKind::Output, 1, b},
      {"a", BufferKind::Intermediate, 1, a}, {"x", BufferKind::Input, 2, x},
      {"b.weight", BufferKind::Weight, -1, bFilter}, {"a.weight", BufferKind::Weight, -1, aFilter},
      {"a.bias", BufferKind::Weight, -1, aBias},     {"b.bias", BufferKind::Weight, -1, bBias}};
  ASSERT_EQ(d.live.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(g.values[d.live[i].value].name, expected[i].value) << i;
    EXPECT_EQ(d.live[i].kind, expected[i].kind) << i;
    EXPECT_EQ(d.live[i].slice, expected[i].slice) << i;
    EXPECT_EQ(d.live[i].size, expected[i].size) << i;
  }
  EXPECT_EQ(cut.message, "ends before 'b': LMEM short by 33,408 B/lane at time step 5 (op 'b' of slice 1), "
                         "295,552 of 262,144 at its finest slicing 1x1x8x1: live 'b' output (slice 0) 98,304 B, "
                         "'b' output (slice 1) 98,304 B, 'a' intermediate (slice 1) 65,536 B, 'x' input (slice 2) "
                         "32,768 B, and 4 more");
}

TEST(Explain, MatmulAfterConvsHasNoLocalForm) {
  ChipProfile c = chip("bm1684x");
  GraphBuilder b(DType::INT8);
  int x = b.input("x", {1, 16, 8, 8});
  x = b.conv("c1", x, 16, 3, 1, 1);
  x = b.conv("c2", x, 16, 3, 1, 1);
  b.output(b.matmul("fc", x, 10));
  Graph g = b.take();
  ASSERT_EQ(g.verify(), "");
  LayerGroupPlan plan = planLayerGroups(c, g);
  ASSERT_EQ(plan.groups.size(), 2u);
  std::vector<GroupCut> cuts = explainCuts(c, g, plan, {});
  ASSERT_EQ(cuts.size(), 2u);
  EXPECT_EQ(cuts[0].group, 0);
  EXPECT_FALSE(cuts[0].global);
  EXPECT_EQ(cuts[0].reason, CutReason::NoLocalForm);
  EXPECT_EQ(g.ops[cuts[0].op].name, "fc");
  EXPECT_EQ(cuts[0].message, "ends before 'fc': 'fc' (matmul) has no LMEM form and runs as a global op");
  EXPECT_EQ(cuts[1].group, 1);
  EXPECT_TRUE(cuts[1].global);
  EXPECT_EQ(cuts[1].reason, CutReason::NoLocalForm);
  EXPECT_EQ(cuts[1].message, "runs as a global op: 'fc' (matmul) has no LMEM form");
}

TEST(Explain, ResidentWeightsAloneExceedLmem) {
  // Two 3x3 convs of 1024 channels, INT8: each filter puts 16 output channels of 1024 x 9 bytes on a
  // lane (147,456 B) and its bias 16 x 4 bytes (one 64-byte unit); each fits alone, not both.
  ChipProfile c = chip("bm1684x");
  GraphBuilder b(DType::INT8);
  int x = b.input("x", {1, 1024, 4, 4});
  x = b.conv("c1", x, 1024, 3, 1, 1);
  b.output(b.conv("c2", x, 1024, 3, 1, 1));
  Graph g = b.take();
  LayerGroupPlan plan = planLayerGroups(c, g);
  ASSERT_EQ(plan.groups.size(), 2u);
  std::vector<GroupCut> cuts = explainCuts(c, g, plan, {});
  ASSERT_EQ(cuts.size(), 1u);
  ASSERT_EQ(cuts[0].reason, CutReason::Weights) << cuts[0].message;
  const int64_t perConv = 16 * 1024 * 9 + roundUp(16 * 4, std::max(c.euBytes, c.lmemAlignment));
  EXPECT_EQ(cuts[0].memory.needed, 2 * perConv);
  EXPECT_EQ(cuts[0].memory.needed - c.lmemBytesPerLane, 32896);
  EXPECT_EQ(cuts[0].memory.timeUnit, -1);
  ASSERT_EQ(cuts[0].memory.live.size(), 4u);
  EXPECT_EQ(g.values[cuts[0].memory.live[0].value].name, "c1.weight");
  EXPECT_EQ(cuts[0].memory.live[0].size, 16 * 1024 * 9);
}

TEST(Explain, HaloWhenRowsCannotBeCutFiner) {
  // Two stride-2 3x3 convs: the group's output has 128 rows, so a slice holds at least one of them, and
  // with it 3 rows of 'a' and 7 of the wide input: too much, though one row of each would fit.
  ChipProfile c = chip("bm1684x");
  GraphBuilder b(DType::INT8);
  int x = b.input("x", {1, 64, 512, 20480});
  int a = b.conv("a", x, 64, 3, 2, 1);
  b.output(b.conv("b", a, 64, 3, 2, 1));
  Graph g = b.take();
  LayerGroupPlan plan = planLayerGroups(c, g);
  ASSERT_EQ(plan.groups.size(), 2u);
  std::vector<GroupCut> cuts = explainCuts(c, g, plan, {});
  ASSERT_EQ(cuts.size(), 1u);
  ASSERT_EQ(cuts[0].reason, CutReason::Halo) << cuts[0].message;
  const GroupDiagnosis &d = cuts[0].memory;
  EXPECT_EQ(d.spec.h, 128);
  EXPECT_EQ(g.values[d.hLimit].name, "b");
  EXPECT_GT(d.needed, d.capacity);
  EXPECT_EQ(d.detail, "'x' still holds 7 rows per slice");
  EXPECT_NE(cuts[0].message.find("H cannot be cut into more than 128 slices ('b' has 128 rows) and 'x' still "
                                 "holds 7 rows per slice: LMEM short by "),
            std::string::npos)
      << cuts[0].message;
}

TEST(Explain, OptZeroAndLongGroupsAreMaxOps) {
  ChipProfile c = chip("bm1684x");
  GraphBuilder b(DType::INT8);
  int x = b.input("x", {1, 16, 16, 16});
  for (int i = 0; i < 5; ++i)
    x = b.unary("u" + std::to_string(i), x);
  b.output(x);
  Graph g = b.take();
  GroupOptions zero;
  zero.opt = 0;
  std::vector<GroupCut> cuts = explainCuts(c, g, planLayerGroups(c, g, zero), zero);
  ASSERT_EQ(cuts.size(), 4u);
  for (const GroupCut &cut : cuts) {
    EXPECT_EQ(cut.reason, CutReason::MaxOps);
    EXPECT_EQ(cut.maxOps, 1);
  }
  GroupOptions two; // greedy: groups of 2, 2, 1
  two.opt = 1;
  two.maxGroupOps = 2;
  cuts = explainCuts(c, g, planLayerGroups(c, g, two), two);
  ASSERT_EQ(cuts.size(), 2u);
  EXPECT_EQ(cuts[1].reason, CutReason::MaxOps);
  EXPECT_EQ(cuts[0].reason, CutReason::MaxOps);
  EXPECT_EQ(cuts[0].maxOps, 2);
  EXPECT_EQ(cuts[0].message, "ends before 'u2': the group has 2 ops, the most the planner considers");
}

/// Every LMEM group but the last has one "after" record, every global group one "global" record.
void expectOneRecordPerCut(const LayerGroupPlan &plan, const std::vector<GroupCut> &cuts, const std::string &what) {
  size_t expected = 0;
  for (size_t i = 0; i < plan.groups.size(); ++i)
    expected += plan.groups[i].global || i + 1 < plan.groups.size();
  ASSERT_EQ(cuts.size(), expected) << what;
  for (const GroupCut &cut : cuts) {
    const LayerGroup &grp = plan.groups[cut.group];
    EXPECT_EQ(cut.global, grp.global) << what;
    EXPECT_EQ(cut.op, cut.global ? grp.ops.front() : plan.groups[cut.group + 1].ops.front()) << what;
    EXPECT_FALSE(cut.message.empty()) << what;
    EXPECT_EQ(cut.message.find('\n'), std::string::npos) << what;
  }
}

TEST(Explain, CostCutsPreferTheCheaperSplit) {
  // On the DP's cuts the merged alternative, when it is a group the DP considered (every prefix from
  // the group's start fits), costs strictly more: ties keep the longer group.
  int costCuts = 0, asOneGroup = 0;
  auto check = [&](const ChipProfile &c, const Graph &g, const std::string &what) {
    GroupOptions o;
    LayerGroupPlan plan = planLayerGroups(c, g, o);
    std::vector<GroupCut> cuts = explainCuts(c, g, plan, o);
    expectOneRecordPerCut(plan, cuts, what);
    for (const GroupCut &cut : cuts) {
      if (cut.reason != CutReason::Cost)
        continue;
      if (cut.global) {
        // An op with a row form that runs global: the global op is the cheaper of the two.
        EXPECT_EQ(cut.cyclesSplit, plan.groups[cut.group].cycles) << what;
        EXPECT_LE(cut.cyclesSplit, cut.cyclesMerged) << what;
        continue;
      }
      ++costCuts;
      const LayerGroup &a = plan.groups[cut.group], &b = plan.groups[cut.group + 1];
      EXPECT_EQ(cut.cyclesSplit, a.cycles + b.cycles) << what;
      std::vector<int> ops = a.ops;
      bool candidate = !b.global;
      for (int op : b.ops) {
        ops.push_back(op);
        candidate = candidate && static_cast<int>(ops.size()) <= o.maxGroupOps && planGroup(c, g, ops, o);
      }
      if (!candidate)
        continue;
      ++asOneGroup;
      EXPECT_EQ(cut.cyclesMerged, planGroup(c, g, ops, o)->cycles) << what;
      EXPECT_LT(cut.cyclesSplit, cut.cyclesMerged) << what << ": " << cut.message;
      EXPECT_NE(cut.message.find(" as one group"), std::string::npos) << cut.message;
    }
  };
  for (const char *name : {"bm1684x", "bm1688"})
    for (DType t : {DType::INT8, DType::BF16, DType::F32})
      check(chip(name), buildResNet18(t), std::string("resnet18 ") + dtypeName(t) + " " + name);
  for (unsigned seed = 1; seed <= 12; ++seed)
    check(chip("bm1684x"), randomChain(seed, 14, true), "random chain " + std::to_string(seed));
  EXPECT_GT(costCuts, 5);
  EXPECT_GT(asOneGroup, 0);
}

TEST(Explain, GreedyNeverCutsForCostAndRecordsAreDeterministic) {
  for (unsigned seed = 20; seed < 32; ++seed) {
    Graph g = randomChain(seed, 14, seed % 2 == 0);
    ChipProfile c = chip(seed % 3 == 0 ? "cv186ah" : "bm1688");
    GroupOptions greedy;
    greedy.opt = 1;
    LayerGroupPlan plan = planLayerGroups(c, g, greedy);
    std::vector<GroupCut> cuts = explainCuts(c, g, plan, greedy);
    expectOneRecordPerCut(plan, cuts, "seed " + std::to_string(seed));
    std::vector<GroupCut> again = explainCuts(c, g, plan, greedy);
    ASSERT_EQ(again.size(), cuts.size());
    for (size_t i = 0; i < cuts.size(); ++i) {
      // Greedy extends while the group fits; only a one-op choice (global over a row group) is a cost call.
      EXPECT_TRUE(cuts[i].reason != CutReason::Cost || cuts[i].global) << cuts[i].message;
      EXPECT_EQ(again[i].message, cuts[i].message);
      if (cuts[i].reason == CutReason::Lmem || cuts[i].reason == CutReason::Halo ||
          cuts[i].reason == CutReason::Weights)
        EXPECT_GE(cuts[i].memory.needed, cuts[i].memory.obstacle == GroupObstacle::Placement ? 0 : c.lmemBytesPerLane)
            << cuts[i].message;
    }
  }
}

} // namespace
