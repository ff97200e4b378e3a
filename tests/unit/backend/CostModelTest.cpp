//===- CostModelTest.cpp - Each cost mechanism against its formula --------===//
//
// One test per mechanism of the cycle model (docs/BACKEND.md, "The cycle model"): the figure tiuCost or
// dmaCycles gives for a command of a known shape, next to the formula worked out here by hand from the
// profile's parameters.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Backend/CostModel.h"
#include "tpuc/Backend/LayerGroup.h"
#include "tpuc/Backend/LocalMemory.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cmath>

using namespace tpuc::backend;

namespace {

/// A bm1684x-like profile: 64 lanes, 64-byte EU, 1000 MHz and 64 GB/s (64 bytes per cycle) so the
/// formulas stay readable; `edit` changes fields before parsing.
ChipProfile profile(const std::function<void(nlohmann::json &)> &edit = {}) {
  nlohmann::json j = {
      {"schema", "tpuc-chip-profile"},
      {"version", 1},
      {"name", "testchip"},
      {"cores", 1},
      {"frequency_mhz", 1000},
      {"npu",
       {{"lanes", 64},
        {"eu_bytes", 64},
        {"lmem_bytes_per_lane", 262144},
        {"lmem_banks", 16},
        {"lmem_alignment", 64}}},
      {"tiu",
       {{"macs_per_lane_per_cycle", {{"INT8", 256}, {"F16", 128}, {"BF16", 128}, {"F32", 16}}},
        {"command_cycles", 64}}},
      {"gdma", {{"bandwidth_gbps", 64}, {"latency_cycles", 300}, {"burst_bytes", 64}}},
      {"ddr", {{"size_bytes", 1 << 30}, {"alignment", 64}, {"coeff_alignment", 64}}}};
  if (edit)
    edit(j);
  return parseChipProfile(j.dump(), "testchip.json");
}

TiuCost wholeOp(const ChipProfile &c, const Graph &g, int op) {
  return tiuCost(c, g, g.ops[op], fullBox(g.values[g.ops[op].outputs[0]]));
}

TEST(CostModel, DmaOfAKnownShapeRoundsRunsToBursts) {
  ChipProfile c = profile();
  // 4000 bytes in runs of 100: 40 runs, each 128 bytes on the bus = 5120 bytes at 64 per cycle.
  EXPECT_EQ(dmaCycles(c, 4000, 100), 300 + 5120 / 64);
  EXPECT_EQ(dmaTransferCycles(c, 4000, 100), 5120 / 64);
  // One contiguous run of the same bytes: 4032 on the bus.
  EXPECT_EQ(dmaCycles(c, 4000, 4000), 300 + 63);
  EXPECT_EQ(dmaCycles(c, 0, 64), 0);
}

TEST(CostModel, DmaEfficiencyAndRunCyclesStretchTheTransfer) {
  ChipProfile c = profile([](nlohmann::json &j) {
    j["gdma"]["efficiency"] = 0.8;
    j["gdma"]["run_cycles"] = 12.5;
  });
  // 40 runs of 128 bus bytes at 64 x 0.8 bytes per cycle, and 39 run switches of 12.5 cycles.
  double transfer = 5120 / (64 * 0.8) + 39 * 12.5;
  EXPECT_EQ(dmaTransferCycles(c, 4000, 100), static_cast<int64_t>(std::ceil(transfer)));
  EXPECT_EQ(dmaCycles(c, 4000, 100), 300 + static_cast<int64_t>(std::ceil(transfer)));
  // One run: no switch.
  EXPECT_EQ(dmaTransferCycles(c, 4096, 4096), static_cast<int64_t>(std::ceil(4096 / (64 * 0.8))));
}

TEST(CostModel, ConvWithMisalignedChannelsPaysLanesAndInputSteps) {
  ChipProfile c = profile();
  GraphBuilder b(DType::INT8);
  int x = b.input("x", {1, 5, 8, 8});
  b.output(b.conv("conv", x, 65, 1));
  Graph g = b.take();
  TiuCost t = wholeOp(c, g, 0);
  // 65 output channels on 64 lanes: 2 per lane. 64 pixels fill one EU (64 INT8). The cube takes
  // 256 / 64 = 4 input channels per cycle, so 5 are padded to 8.
  int64_t expected = 1 * 2 * 64 * 8 * 1 / 256 + 64;
  EXPECT_EQ(t.cycles, expected);
  EXPECT_EQ(t.macs, 65 * 64 * 5);
  EXPECT_DOUBLE_EQ(t.laneUtilization, 65.0 / 128.0);
  EXPECT_DOUBLE_EQ(t.euUtilization, 1.0);
}

TEST(CostModel, PassStartupMakesSmallPlanesAndLargeKernelsSlow) {
  ChipProfile c = profile([](nlohmann::json &j) { j["tiu"]["pass_cycles"] = 3; });
  GraphBuilder b(DType::INT8);
  int x = b.input("x", {1, 64, 7, 7});
  b.output(b.conv("conv", x, 128, 3, 1, 1));
  Graph g = b.take();
  // 2 output channels per lane, 49 pixels padded to 64 (one EU pass), 64 input channels in 16 steps
  // of 4, 9 taps: 2 x 9 x 16 = 288 passes of 1 cycle, each paying 3 cycles of startup.
  int64_t cube = 2 * 64 * 64 * 9 / 256;
  int64_t passes = 2 * 9 * 16;
  EXPECT_EQ(wholeOp(c, g, 0).cycles, cube + passes * 3 + 64);
  EXPECT_EQ(wholeOp(profile(), g, 0).cycles, cube + 64);
}

TEST(CostModel, DepthwisePassesAreOnePerTap) {
  ChipProfile c = profile([](nlohmann::json &j) { j["tiu"]["pass_cycles"] = 5; });
  GraphBuilder b(DType::INT8);
  int x = b.input("x", {1, 32, 16, 16});
  b.output(b.conv("dw", x, 32, 3, 1, 1, /*groups=*/32));
  Graph g = b.take();
  // One channel per lane, 256 pixels = 4 EU passes per tap, 9 taps; a pass startup per tap.
  EXPECT_EQ(wholeOp(c, g, 0).cycles, 4 * 9 + 9 * 5 + 64);
}

TEST(CostModel, ConvEfficiencyDividesTheCubeByPrecision) {
  ChipProfile c = profile([](nlohmann::json &j) { j["tiu"]["conv_efficiency"] = {{"F16", 0.5}}; });
  for (DType dt : {DType::INT8, DType::F16}) {
    GraphBuilder b(dt);
    int x = b.input("x", {1, 64, 16, 16});
    b.output(b.conv("conv", x, 64, 1));
    Graph g = b.take();
    // One channel per lane, 256 pixels, 64 input channels, at 256 (INT8) or 128 (F16) MACs per cycle;
    // F16 reaches half of that.
    int64_t cube = dt == DType::INT8 ? 256 * 64 / 256 : static_cast<int64_t>(256 * 64 / 128 / 0.5);
    EXPECT_EQ(wholeOp(c, g, 0).cycles, cube + 64) << dtypeName(dt);
  }
  EXPECT_DOUBLE_EQ(c.convEfficiencyAt(Precision::INT8), 1.0);
  EXPECT_DOUBLE_EQ(c.convEfficiencyAt(Precision::F16), 0.5);
  EXPECT_DOUBLE_EQ(c.matmulEfficiencyAt(Precision::F16), 1.0); // conv's derate is not matmul's
}

TEST(CostModel, StridedConvRunsAtTheStrideEfficiency) {
  ChipProfile c = profile([](nlohmann::json &j) { j["tiu"]["conv_stride_efficiency"] = 0.5; });
  auto conv = [&](int64_t inHw, int64_t stride, int64_t groups) {
    GraphBuilder b(DType::INT8);
    int x = b.input("x", {1, 64, inHw, inHw});
    b.output(b.conv("conv", x, 64, 3, stride, 1, groups));
    Graph g = b.take();
    return wholeOp(c, g, 0).cycles;
  };
  // Both produce 8x8 outputs (64 INT8 pixels: one EU), one channel per lane, 64 input channels, 9 taps:
  // 64 x 64 x 9 / 256 = 144 cube cycles, which the stride-2 conv runs at half its rate.
  EXPECT_EQ(conv(8, 1, 1), 144 + 64);
  EXPECT_EQ(conv(16, 2, 1), 144 * 2 + 64);
  // Depthwise on the EU: one pass per tap, 9 of them, halved as well.
  EXPECT_EQ(conv(8, 1, 64), 9 + 64);
  EXPECT_EQ(conv(16, 2, 64), 9 * 2 + 64);
  // Without the parameter a stride costs nothing beyond its output size.
  GraphBuilder b(DType::INT8);
  int x = b.input("x", {1, 64, 16, 16});
  b.output(b.conv("conv", x, 64, 3, 2, 1));
  Graph g = b.take();
  EXPECT_EQ(wholeOp(profile(), g, 0).cycles, 144 + 64);
  EXPECT_DOUBLE_EQ(profile().convStrideEfficiency, 1.0);
}

TEST(CostModel, EngineContentionChargesTheOverlappedPart) {
  ChipProfile free = profile();
  ChipProfile c = profile([](nlohmann::json &j) { j["npu"]["engine_contention"] = 0.25; });
  // The longer engine, plus a quarter of the shorter one (rounded up); no contention: the longer alone.
  EXPECT_EQ(overlappedCycles(c, 1000, 400), 1000 + 100);
  EXPECT_EQ(overlappedCycles(c, 400, 1000), 1000 + 100);
  EXPECT_EQ(overlappedCycles(c, 1000, 3), 1000 + 1);
  EXPECT_EQ(overlappedCycles(c, 1000, 0), 1000);
  EXPECT_EQ(overlappedCycles(free, 1000, 400), 1000);
  // A global op tiles its operands through LMEM with both engines busy: the same charge.
  GraphBuilder b(DType::INT8);
  int x = b.input("x", {1, 64, 32, 32});
  b.output(b.unary("u", x));
  Graph g = b.take();
  GlobalCost f = globalOpCost(free, g, g.ops[0], false), k = globalOpCost(c, g, g.ops[0], false);
  EXPECT_EQ(f.cycles, std::max(f.tiu, f.dma) + 300 + 64);
  EXPECT_EQ(k.cycles, std::max(k.tiu, k.dma) + (std::min(k.tiu, k.dma) + 3) / 4 + 300 + 64);
  // A group's time step runs its loads and stores beside its compute: every step is charged alike, and
  // the group is the sum of its steps.
  GraphBuilder gb(DType::INT8);
  int in = gb.input("x", {1, 64, 56, 56});
  int h = gb.conv("c1", in, 64, 3, 1, 1);
  gb.output(gb.conv("c2", h, 64, 3, 1, 1));
  Graph chain = gb.take();
  std::optional<LayerGroup> grp = planGroupWithSpec(c, chain, {0, 1}, SliceSpec{1, 1, 4, 1});
  ASSERT_TRUE(grp.has_value());
  int64_t sum = 0, contended = 0;
  for (const TimeStep &st : grp->steps) {
    EXPECT_EQ(st.cycles,
              std::max(st.tiuCycles, st.gdmaCycles) + (std::min(st.tiuCycles, st.gdmaCycles) + 3) / 4)
        << "stage " << st.stage;
    sum += st.cycles;
    contended += std::min(st.tiuCycles, st.gdmaCycles) > 0;
  }
  EXPECT_EQ(grp->cycles, sum);
  EXPECT_GT(contended, 0);
  EXPECT_GT(grp->cycles, planGroupWithSpec(free, chain, {0, 1}, SliceSpec{1, 1, 4, 1})->cycles);
}

TEST(CostModel, MatMulPassesAreOnePerFeatureAndKStep) {
  ChipProfile c = profile([](nlohmann::json &j) {
    j["tiu"]["pass_cycles"] = 2;
    j["tiu"]["matmul_efficiency"] = {{"INT8", 0.5}};
    j["tiu"]["conv_efficiency"] = {{"INT8", 0.25}}; // not for matmul
  });
  GraphBuilder b(DType::INT8);
  int x = b.input("x", {4, 512});
  b.output(b.matmul("fc", x, 1000));
  Graph g = b.take();
  // 1000 features on 64 lanes: 16 per lane; 4 rows x 512 K at 256 MACs per cycle, half reached;
  // K in steps of 256 / 64 = 4: 16 x 128 passes.
  double cube = 16.0 * 4 * 512 / 256 / 0.5;
  EXPECT_EQ(wholeOp(c, g, 0).cycles, static_cast<int64_t>(cube) + 16 * 128 * 2 + 64);
}

TEST(CostModel, MatMulColumnTileCostsItsOwnColumns) {
  // A streamed weight's column tile (docs/BACKEND.md, "Streamed weights"): 128 of 512 features, 2 per
  // lane; its passes and cube cycles are the whole op's over the tiles, plus a command each.
  ChipProfile c = profile();
  GraphBuilder b(DType::F16);
  int x = b.input("x", {1, 128, 768});
  b.output(b.linear("fc", x, 512));
  Graph g = b.take();
  const Op &op = g.ops[0];
  Box whole = fullBox(g.values[op.outputs[0]]);
  TiuCost all = tiuCost(c, g, op, whole);
  int64_t sum = 0;
  for (int64_t c0 = 0; c0 < 512; c0 += 128) {
    Box tile = columnTileOutput(g, op, whole, Range{c0, c0 + 128});
    EXPECT_EQ(tile.h(), (Range{c0, c0 + 128})); // [1, 128, 512]: the features are H of the view
    TiuCost t = tiuCost(c, g, op, tile);
    EXPECT_EQ(t.macs, 128 * 768 * 128);
    EXPECT_DOUBLE_EQ(t.laneUtilization, 1.0);
    sum += t.cycles;
  }
  EXPECT_EQ(all.macs, 128 * 768 * 512);
  EXPECT_NEAR(static_cast<double>(sum - 3 * c.tiuCommandCycles), static_cast<double>(all.cycles), 4.0);
}

/// A one-op graph: `kind` on an activation of `shape` with weights of the last axis' extent.
Graph rowNormGraph(OpKind kind, std::vector<int64_t> shape, DType dtype, int weights) {
  Graph g;
  int x = g.addInput("x", shape, dtype);
  Op op;
  op.name = "norm";
  op.kind = kind;
  op.inputs = {x};
  for (int k = 0; k < weights; ++k)
    op.weights.push_back(g.addWeight("w" + std::to_string(k), {shape.back()}, dtype));
  Value out;
  out.name = "norm";
  out.shape = shape;
  out.dtype = dtype;
  g.addOp(op, {out});
  return g;
}

TEST(CostModel, RowNormsPassOverTheirRowsThenTheirStatistics) {
  ChipProfile c = profile([](nlohmann::json &j) { j["tiu"]["pass_cycles"] = 2; });
  // Layernorm with gamma and beta on [1, 128, 768] F16 (NCHW view [1, 128, 768, 1]): 2 rows per lane, 768
  // elements = 24 EU-wide (32 F16) pieces each: 48 cycles a pass, 5 + 2 passes; the statistics one
  // element per row (2 per lane, each padded to the EU): 2 cycles. Passes 2 x 7 + 2, 2 cycles each.
  Graph ln = rowNormGraph(OpKind::LayerNorm, {1, 128, 768}, DType::F16, 2);
  EXPECT_TRUE(ln.isGroupable(0) && ln.cutsRowsOnly(0));
  EXPECT_EQ(wholeOp(c, ln, 0).cycles, 48 * 7 + 2 + 16 * 2 + 64);
  // Without gamma and beta: 5 row passes.
  Graph bare = rowNormGraph(OpKind::LayerNorm, {1, 128, 768}, DType::F16, 0);
  EXPECT_EQ(wholeOp(c, bare, 0).cycles, 48 * 5 + 2 + 12 * 2 + 64);
  // Softmax on rows 0..8 of [1, 4, 16, 100] F16 scores (4 heads on 4 lanes, 8 rows of 100 in a plane of
  // 800 = 25 EU pieces): 5 passes of 25 cycles; the statistics 8 per plane, one EU piece. Passes 5 + 1.
  Graph sm = rowNormGraph(OpKind::Softmax, {1, 4, 16, 100}, DType::F16, 0);
  Box rows = fullBox(sm.values[sm.ops[0].outputs[0]]);
  rows.dims[2] = {0, 8};
  EXPECT_EQ(tiuCost(c, sm, sm.ops[0], rows).cycles, 5 * 25 + 1 + 6 * 2 + 64);
  // RMS norm without gamma on [4, 100] F32 (view [4, 100, 1, 1]: the row over the lanes, 2 channels
  // per lane, each a plane of one element padded to the EU): 3 passes of 4 x 2 cycles; the statistics
  // 4 rows on one lane: 4 cycles. Passes 4 x 2 x 3 + 4.
  Graph rms = rowNormGraph(OpKind::RMSNorm, {4, 100}, DType::F32, 0);
  EXPECT_EQ(wholeOp(c, rms, 0).cycles, 3 * 8 + 4 + 28 * 2 + 64);
}

TEST(CostModel, AttentionCostsBothProductsAndTheSoftmax) {
  ChipProfile c = profile([](nlohmann::json &j) { j["tiu"]["pass_cycles"] = 2; });
  Graph g;
  int q = g.addInput("q", {1, 16, 4, 64}, DType::F16);
  int k = g.addInput("k", {1, 32, 2, 64}, DType::F16);
  int v = g.addInput("v", {1, 32, 2, 64}, DType::F16);
  Op op;
  op.name = "attention";
  op.inputs = {q, k, v};
  op.attention = true;
  Value out;
  out.name = "attention";
  out.shape = {1, 16, 4, 64};
  out.dtype = DType::F16;
  g.addOp(op, {out});
  // Per head (4): scores 32 features on 1 lane chunk x 16 rows x K 64, values 64 features x 16 rows x
  // K 32 = 1536 MAC cycles-lanes at 128 per cycle; the softmax 5 EU passes (the row form's) over 4 x 16
  // x 32 scores on 64 lanes, 32 F16 per EU; passes with K in steps of 4: 4 x (16 + 8), 2 cycles each.
  TiuCost t = wholeOp(c, g, 0);
  EXPECT_EQ(t.cycles, 4 * 1536 / 128 + 5 * 32 / 32 + 4 * 24 * 2 + 64);
  EXPECT_EQ(t.macs, 2 * 4 * 16 * 32 * 64);
}

TEST(CostModel, DeformConvGathersSamplesThenMultipliesOnTheCube) {
  ChipProfile c = profile([](nlohmann::json &j) { j["tiu"]["pass_cycles"] = 2; });
  Graph g;
  int x = g.addInput("x", {1, 4, 8, 8}, DType::F16);
  int offset = g.addInput("offset", {1, 36, 8, 8}, DType::F16);
  int w = g.addWeight("w", {6, 2, 3, 3}, DType::F16);
  Op op;
  op.name = "dc";
  op.inputs = {x, offset};
  op.weights = {w};
  op.deformConv = true;
  Value out;
  out.name = "dc";
  out.shape = {1, 6, 8, 8};
  out.dtype = DType::F16;
  g.addOp(op, {out});
  // Samples: 4 channels x 9 taps x 64 pixels = 2304, 8 EU passes over them on 64 lanes, 32 F16 per EU: 9
  // cycles. Per group (2): 3 features on one lane chunk x 64 rows x K 18 at 128 per cycle: 9 cycles, K in
  // steps of 4: 5 passes. Passes 8 + 2 x 5, 2 cycles each.
  TiuCost t = wholeOp(c, g, 0);
  EXPECT_EQ(t.cycles, 9 + 2 * 9 + 18 * 2 + 64);
  EXPECT_EQ(t.macs, 64 * 6 * 18);
}

TEST(CostModel, GatherReadsOnlyTheRowsItReturns) {
  ChipProfile c = profile();
  Graph g;
  int table = g.addWeight("table", {1000, 64}, DType::F16);
  int ids = g.addInput("ids", {1, 16}, DType::INT32);
  Op op;
  op.name = "rows";
  op.inputs = {ids};
  op.weights = {table};
  op.axis = 0;
  Value out;
  out.name = "rows";
  out.shape = {1, 16, 64};
  out.dtype = DType::F16;
  g.addOp(op, {out});
  GlobalCost whole = globalOpCost(c, g, g.ops[0], false);
  g.ops[0].gathers = true;
  GlobalCost gathered = globalOpCost(c, g, g.ops[0], false);
  // Result 2048 bytes in one run, ids 64 bytes; the table: all 128000 bytes, or 16 rows of 128.
  EXPECT_EQ(whole.dma, (300 + 2048 / 64) + (300 + 1) + (300 + 128000 / 64));
  EXPECT_EQ(gathered.dma, (300 + 2048 / 64) + (300 + 1) + (300 + 16 * 128 / 64));
}

TEST(CostModel, ProfileRejectsBadCostParameters) {
  auto message = [](const std::function<void(nlohmann::json &)> &edit) -> std::string {
    try {
      profile(edit);
    } catch (const ProfileError &e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(message([](nlohmann::json &j) {
              j["tiu"]["conv_efficiency"] = {{"INT8", 1.5}};
            }),
            "testchip.json: tiu.conv_efficiency.INT8: expected a fraction in (0, 1], got 1.5");
  EXPECT_EQ(message([](nlohmann::json &j) {
              j["tiu"]["matmul_efficiency"] = {{"INT4", 0.5}};
            }),
            "testchip.json: tiu.matmul_efficiency.INT4: unknown precision (expected INT8, F16, BF16, F32)");
  EXPECT_EQ(message([](nlohmann::json &j) { j["tiu"]["conv_efficiency"] = 0.5; }),
            "testchip.json: tiu.conv_efficiency: expected an object");
  EXPECT_EQ(message([](nlohmann::json &j) { j["gdma"]["efficiency"] = 0; }),
            "testchip.json: gdma.efficiency: expected a fraction in (0, 1], got 0");
  EXPECT_EQ(message([](nlohmann::json &j) { j["tiu"]["pass_cycles"] = -1; }),
            "testchip.json: tiu.pass_cycles: expected a non-negative number, got -1");
  EXPECT_EQ(message([](nlohmann::json &j) { j["gdma"]["run_cycles"] = "x"; }),
            "testchip.json: gdma.run_cycles: expected a non-negative number, got \"x\"");
  EXPECT_EQ(message([](nlohmann::json &j) { j["tiu"]["conv_stride_efficiency"] = 0; }),
            "testchip.json: tiu.conv_stride_efficiency: expected a fraction in (0, 1], got 0");
  EXPECT_EQ(message([](nlohmann::json &j) { j["npu"]["engine_contention"] = 1.5; }),
            "testchip.json: npu.engine_contention: expected a number in [0, 1], got 1.5");
  EXPECT_EQ(message([](nlohmann::json &j) { j["npu"]["engine_contention"] = -0.5; }),
            "testchip.json: npu.engine_contention: expected a non-negative number, got -0.5");
  EXPECT_EQ(message([](nlohmann::json &j) { j["calibration"] = 3; }),
            "testchip.json: calibration: expected a string");
}

} // namespace
