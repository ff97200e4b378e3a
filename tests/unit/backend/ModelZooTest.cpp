//===- ModelZooTest.cpp - ResNet-18 / MobileNet-V2 planned on every chip --===//
//
// Shapes of the hand-built graphs against torchvision's, then the plans of
// both models on the three chips at --opt 0/1/2: valid, DP never worse than
// greedy, grouping faster than every op alone. Prints the figures the
// backend report quotes (groups, cycles, DDR peak vs lower bound).

#include "tpuc/Backend/ModelZoo.h"
#include "tpuc/Backend/GlobalMemory.h"

#include <gtest/gtest.h>

#include <cstdio>

using namespace tpuc::backend;

namespace {

ChipProfile chip(const char *name) { return findChipProfile(name, {TPUC_CHIP_TEST_DIR}); }

int64_t totalMacs(const Graph &g, const ChipProfile &c) {
  int64_t macs = 0;
  for (const Op &op : g.ops)
    if (op.kind == OpKind::Conv || op.kind == OpKind::MatMul)
      macs += tiuCost(c, g, op, fullBox(g.values[op.outputs[0]])).macs;
  return macs;
}

TEST(ModelZoo, ResNet18Shapes) {
  Graph g = buildResNet18(DType::INT8);
  ASSERT_EQ(g.verify(), "");
  auto shapeOf = [&](const std::string &name) {
    for (const Value &v : g.values)
      if (v.name == name)
        return v.shape;
    return std::vector<int64_t>{};
  };
  EXPECT_EQ(shapeOf("conv1"), (std::vector<int64_t>{1, 64, 112, 112}));
  EXPECT_EQ(shapeOf("maxpool"), (std::vector<int64_t>{1, 64, 56, 56}));
  EXPECT_EQ(shapeOf("layer2.0.add"), (std::vector<int64_t>{1, 128, 28, 28}));
  EXPECT_EQ(shapeOf("layer4.1.add"), (std::vector<int64_t>{1, 512, 7, 7}));
  EXPECT_EQ(shapeOf("fc"), (std::vector<int64_t>{1, 1000}));
  // 1.82 GMACs (3.64 GOPs in the model-zoo table) and 11.7 M parameters.
  EXPECT_NEAR(static_cast<double>(totalMacs(g, chip("bm1684x"))), 1.814e9, 0.01e9);
  int64_t params = 0;
  for (const Value &v : g.values)
    if (v.isWeight)
      params += v.elements();
  EXPECT_NEAR(static_cast<double>(params), 11.69e6, 0.02e6);
}

TEST(ModelZoo, MobileNetV2Shapes) {
  Graph g = buildMobileNetV2(DType::INT8);
  ASSERT_EQ(g.verify(), "");
  // ~300 M MACs and 3.5 M parameters (torchvision's figures).
  EXPECT_NEAR(static_cast<double>(totalMacs(g, chip("bm1684x"))), 300e6, 10e6);
  int64_t params = 0;
  for (const Value &v : g.values)
    if (v.isWeight)
      params += v.elements();
  EXPECT_NEAR(static_cast<double>(params), 3.5e6, 0.05e6);
}

TEST(ModelZoo, PlansOnEveryChip) {
  struct Model {
    const char *name;
    Graph (*build)(DType, int64_t, int64_t);
  };
  const Model models[] = {{"resnet18", buildResNet18}, {"mobilenet_v2", buildMobileNetV2}};
  for (const Model &m : models)
    for (DType dt : {DType::INT8, DType::BF16, DType::F32})
      for (const char *name : {"bm1684x", "bm1688", "cv186ah"}) {
        ChipProfile c = chip(name);
        Graph g = m.build(dt, 1, 224);
        int64_t cycles[3];
        for (int opt = 0; opt <= 2; ++opt) {
          GroupOptions o;
          o.opt = opt;
          LayerGroupPlan lg = planLayerGroups(c, g, o);
          auto errors = validatePlan(c, g, lg);
          ASSERT_TRUE(errors.empty()) << m.name << " " << name << " opt " << opt << ": " << errors.front();
          GmemPlan gm = planGlobalMemory(c, g, lg);
          ASSERT_TRUE(validateGmem(c, g, gm).empty());
          cycles[opt] = lg.totalCycles;
          int grouped = 0, global = 0, conflicts = 0;
          for (auto &grp : lg.groups) {
            (grp.global ? global : grouped) += 1;
            conflicts += grp.lmem.bankConflicts;
          }
          std::printf("%-12s %-4s %-8s opt %d: %3d groups + %2d global, "
                      "%8.3f ms, DDR act peak %9lld / lower bound %9lld "
                      "(%.3f, %s), coeff %lld, bank conflicts %d\n",
                      m.name, dtypeName(dt), name, opt, grouped, global,
                      cyclesToUs(c, lg.totalCycles) / 1000.0, static_cast<long long>(gm.activationPeak),
                      static_cast<long long>(gm.lowerBound),
                      static_cast<double>(gm.activationPeak) / static_cast<double>(gm.lowerBound),
                      gm.strategy.c_str(), static_cast<long long>(gm.coeffBytes), conflicts);
        }
        EXPECT_LE(cycles[2], cycles[1]) << m.name << " " << name;
        EXPECT_LT(cycles[2], cycles[0]) << m.name << " " << name;
      }
}

} // namespace
