// Codegen on hand-built groups (command count, order, dependencies against the plan's time steps), the
// .tpum format (round trip, truncated and corrupt files), combine with weight dedup and extract.
#include "tpuc/Codegen/Codegen.h"
#include "tpuc/Codegen/ModelFile.h"

#include "tpuc/Backend/GlobalMemory.h"
#include "tpuc/Backend/LayerGroup.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>

using namespace tpuc::backend;
using namespace tpuc::codegen;

namespace {

ChipProfile chip() { return findChipProfile("bm1684x", {TPUC_CHIP_TEST_DIR}); }

/// conv 3x3 -> relu -> conv 3x3 on 1x16x32x32 INT8.
Graph threeOps() {
  GraphBuilder b(DType::INT8);
  int x = b.input("x", {1, 16, 32, 32});
  int c1 = b.conv("c1", x, 16, 3, 1, 1);
  int r = b.unary("r", c1);
  int c2 = b.conv("c2", r, 16, 3, 1, 1);
  b.output(c2);
  return b.take();
}

/// The whole graph as one group cut into `h` H slices.
LayerGroupPlan oneGroup(const ChipProfile &c, const Graph &g, int64_t h) {
  LayerGroupPlan plan;
  plan.chip = c.name;
  std::vector<int> ops(g.ops.size());
  for (size_t i = 0; i < ops.size(); ++i)
    ops[i] = static_cast<int>(i);
  auto grp = planGroupWithSpec(c, g, ops, SliceSpec{1, 1, h, 1});
  EXPECT_TRUE(grp.has_value());
  plan.groups.push_back(*grp);
  plan.groupOfOp.assign(g.ops.size(), 0);
  plan.opCosts.resize(g.ops.size());
  plan.totalCycles = grp->cycles;
  return plan;
}

StageCode generate(const ChipProfile &c, const Graph &g, const LayerGroupPlan &plan) {
  GmemPlan gmem = planGlobalMemory(c, g, plan);
  return generateStage(c, g, plan, gmem, "main");
}

TEST(Codegen, ThreeOpGroupFollowsTimeSteps) {
  ChipProfile c = chip();
  Graph g = threeOps();
  LayerGroupPlan plan = oneGroup(c, g, 4);
  ASSERT_TRUE(validatePlan(c, g, plan).empty());
  const LayerGroup &grp = plan.groups[0];
  ASSERT_EQ(grp.slices.size(), 4u);
  ASSERT_EQ(grp.steps.size(), 6u);
  Stage s = generate(c, g, plan).stage;
  // 3 TIU commands per slice; per slice one input load and one store; two resident weights per conv.
  EXPECT_EQ(s.tiu().size(), 12u);
  size_t weights = grp.values.weights.size();
  EXPECT_EQ(s.gdma().size(), 4u + 4u + weights);
  // Commands appear stage by stage, and each stage does what the plan's time step says.
  std::vector<uint32_t> gdmaBefore(grp.steps.size() + 1, 0), tiuBefore(grp.steps.size() + 1, 0);
  for (const Command &cmd : s.gdma())
    ++gdmaBefore[cmd.step + 1];
  for (const Command &cmd : s.tiu())
    ++tiuBefore[cmd.step + 1];
  for (size_t t = 1; t <= grp.steps.size(); ++t) {
    gdmaBefore[t] += gdmaBefore[t - 1];
    tiuBefore[t] += tiuBefore[t - 1];
  }
  int lastStep = -1;
  for (size_t i = 0; i < s.tiu().size(); ++i) {
    const Command &cmd = s.tiu()[i];
    EXPECT_EQ(cmd.id, i + 1);
    EXPECT_GE(cmd.step, lastStep);
    lastStep = cmd.step;
    EXPECT_EQ(cmd.slice, grp.steps[cmd.step].computeSlice);
    EXPECT_EQ(static_cast<int>(cmd.op), grp.ops[i % 3]); // ops in group order within a slice
    // Waits for every GDMA command of earlier stages (its inputs loaded), nothing later than its stage.
    EXPECT_GE(cmd.wait, gdmaBefore[cmd.step]);
    EXPECT_LE(cmd.wait, gdmaBefore[cmd.step + 1]);
    EXPECT_EQ(cmd.kind, CmdKind::Compute);
    EXPECT_EQ(cmd.operands.size(), cmd.numOutputs + cmd.numInputs + g.ops[cmd.op].weights.size());
  }
  lastStep = -1;
  for (size_t i = 0; i < s.gdma().size(); ++i) {
    const Command &cmd = s.gdma()[i];
    EXPECT_EQ(cmd.id, i + 1);
    EXPECT_GE(cmd.step, lastStep);
    lastStep = cmd.step;
    const TimeStep &st = grp.steps[cmd.step];
    if (cmd.kind == CmdKind::Store) {
      EXPECT_EQ(cmd.slice, st.storeSlice);
      EXPECT_EQ(cmd.wait, tiuBefore[cmd.step]); // the slice was computed in an earlier stage
      EXPECT_EQ(cmd.operands[0].space, MemSpace::LMEM);
      EXPECT_EQ(cmd.operands[1].space, MemSpace::DDR);
    } else {
      ASSERT_EQ(cmd.kind, CmdKind::Load);
      if (cmd.slice >= 0)
        EXPECT_EQ(cmd.slice, st.loadSlice);
      else
        EXPECT_TRUE(st.loadsWeights);
      EXPECT_GE(cmd.wait, tiuBefore[cmd.step]);
    }
  }
  // Halo: the first slice of the first conv is padded on top only, the last on the bottom only.
  EXPECT_EQ(s.tiu()[0].pad, (std::array<int64_t, 4>{1, 0, 1, 1}));
  EXPECT_EQ(s.tiu()[9].pad, (std::array<int64_t, 4>{0, 1, 1, 1}));
  EXPECT_EQ(s.tiu()[1].pad, (std::array<int64_t, 4>{}));
  // Stores tile the output exactly.
  int64_t stored = 0;
  for (const Command &cmd : s.gdma())
    if (cmd.kind == CmdKind::Store)
      stored += cmd.operands[1].shape[0] * cmd.operands[1].shape[1] * cmd.operands[1].shape[2] *
                cmd.operands[1].shape[3];
  EXPECT_EQ(stored, g.values[g.outputs[0]].elements());
}

TEST(Codegen, SecondConvWaitsForItsWeightLoadedInStageOne) {
  ChipProfile c = chip();
  Graph g = threeOps();
  LayerGroupPlan plan = oneGroup(c, g, 2);
  Stage s = generate(c, g, plan).stage;
  // c2 (op 2) of slice 0 runs in stage 1 and needs its weights, loaded in stage 1.
  const Command *c2 = nullptr;
  for (const Command &cmd : s.tiu())
    if (cmd.op == 2 && cmd.slice == 0)
      c2 = &cmd;
  ASSERT_NE(c2, nullptr);
  ASSERT_EQ(c2->step, 1);
  ASSERT_GE(c2->wait, 1u);
  const Command &load = s.gdma()[c2->wait - 1];
  EXPECT_EQ(load.kind, CmdKind::Load);
  EXPECT_EQ(load.step, 1);
  EXPECT_EQ(load.slice, -1);
  EXPECT_EQ(load.op, 2u);
  // That load may start once op 0 of slice 0 ran (its LMEM rect starts at unit L + 1).
  EXPECT_EQ(load.wait, 1u);
}

TEST(Codegen, GlobalOpsAreDdrToDdr) {
  ChipProfile c = chip();
  GraphBuilder b(DType::INT8);
  int x = b.input("x", {1, 64, 7, 7});
  int p = b.globalPool("gap", x);
  int f = b.reshape("flat", p, {1, 64});
  int fc = b.matmul("fc", f, 10);
  b.output(fc);
  Graph g = b.take();
  // The matmul has a row form; planned alone as global ops, each op is one DDR-to-DDR command.
  LayerGroupPlan plan;
  plan.chip = c.name;
  for (int o = 0; o < static_cast<int>(g.ops.size()); ++o)
    plan.groups.push_back(planGlobal(c, g, o));
  plan.groupOfOp = {0, 1, 2};
  plan.opCosts.resize(g.ops.size());
  Stage s = generate(c, g, plan).stage;
  ASSERT_EQ(s.tiu().size(), 2u); // the reshape is in place
  EXPECT_TRUE(s.gdma().empty());
  for (const Command &cmd : s.tiu()) {
    EXPECT_EQ(cmd.kind, CmdKind::Global);
    for (const TensorRef &t : cmd.operands)
      EXPECT_EQ(t.space, MemSpace::DDR);
  }
  EXPECT_EQ(s.ops[s.tiu()[1].op].name, "fc");
}

Model sampleModel(const std::string &net, uint8_t weightByte) {
  ChipProfile c = chip();
  Graph g = threeOps();
  LayerGroupPlan plan = oneGroup(c, g, 4);
  StageCode code = generate(c, g, plan);
  Model m;
  m.chip = "bm1684x";
  for (size_t i = 0; i < code.weightValues.size(); ++i) {
    std::vector<uint8_t> bytes(static_cast<size_t>(g.values[code.weightValues[i]].bytes()),
                               static_cast<uint8_t>(weightByte + i));
    code.stage.weights[i].blob = addBlob(m, g.values[code.weightValues[i]].name, bytes.data(), bytes.size());
  }
  code.stage.inputs[0].scale = 0.02;
  code.stage.inputs[0].zeroPoint = -3;
  code.stage.ops[0].resultNames = {"conv_out"};
  code.stage.ops[0].resultAliases = {{0, "/Identity_output_0"}, {0, "/Reshape_output_0"}};
  Net n;
  n.name = net;
  n.stages.push_back(code.stage);
  m.nets.push_back(n);
  return m;
}

TEST(ModelFile, RoundTrip) {
  Model m = sampleModel("net", 1);
  EXPECT_TRUE(validateModel(m).empty());
  std::vector<uint8_t> bytes = serializeModel(m);
  Model back = parseModel(bytes.data(), bytes.size(), "x.tpum");
  EXPECT_EQ(back, m);
  EXPECT_EQ(serializeModel(back), bytes);
}

TEST(ModelFile, TruncatedAndCorruptFilesGiveOneLineErrors) {
  std::vector<uint8_t> bytes = serializeModel(sampleModel("net", 1));
  for (size_t n = 0; n < bytes.size(); n += 97) {
    try {
      parseModel(bytes.data(), n, "t.tpum");
      ADD_FAILURE() << "accepted a file truncated to " << n << " bytes";
    } catch (const ModelFileError &e) {
      std::string what = e.what();
      EXPECT_EQ(what.rfind("t.tpum: ", 0), 0u) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos);
    }
  }
  auto expectError = [&](std::vector<uint8_t> b, const std::string &needle) {
    try {
      parseModel(b.data(), b.size(), "c.tpum");
      ADD_FAILURE() << "accepted: " << needle;
    } catch (const ModelFileError &e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  auto flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x40;
  expectError(flipped, "checksum mismatch");
  auto magic = bytes;
  magic[0] = 'B';
  expectError(magic, "bad magic");
  auto version = bytes;
  version[4] = 9;
  expectError(version, "unsupported model file version 9");
  // An alias of a result the op does not have.
  Model badAlias = sampleModel("net", 1);
  badAlias.nets[0].stages[0].ops[0].resultAliases = {{1, "x"}};
  expectError(serializeModel(badAlias), "has an alias of result 1 but 1 results");
  // A scale that is not a positive number (NaN, found by the fuzzer: it broke equality) is corrupt.
  for (double scale : {std::nan(""), 0.0, -1.0}) {
    Model bad = sampleModel("net", 1);
    bad.nets[0].stages[0].inputs[0].scale = scale;
    expectError(serializeModel(bad), "is not a positive number");
  }
}

TEST(ModelFile, CombineDeduplicatesWeightsAndExtractRestores) {
  Model a = sampleModel("a", 1), b = sampleModel("b", 1), c = sampleModel("c", 7);
  Model all = combineModels({a, b, c});
  ASSERT_EQ(all.nets.size(), 3u);
  // a and b have identical weights: stored once; c's differ.
  EXPECT_EQ(all.blobs.size(), 2 * a.blobs.size());
  EXPECT_EQ(all.nets[0].stages[0].weights, all.nets[1].stages[0].weights);
  EXPECT_TRUE(validateModel(all).empty());
  std::vector<uint8_t> bytes = serializeModel(all);
  Model back = parseModel(bytes.data(), bytes.size(), "all.tpum");
  EXPECT_EQ(back, all);
  EXPECT_EQ(extractNet(back, 2), c);
  EXPECT_EQ(extractNet(back, 0).nets[0], a.nets[0]);
  Model other = a;
  other.chip = "bm1688";
  EXPECT_THROW(combineModels({a, other}), ModelFileError);
  EXPECT_THROW(combineModels({a, a}), ModelFileError);
}

// The incremental writer (llm-convert's): the same bytes as combining in memory, weights streamed.
TEST(ModelFile, IncrementalWriterWritesTheCombinedFile) {
  Model a = sampleModel("a", 1), b = sampleModel("b", 1), c = sampleModel("c", 7);
  // An odd-sized blob first, so the next blob's 64-byte alignment pads the coefficients.
  Model odd = sampleModel("odd", 9), padded;
  std::vector<uint8_t> three = {1, 2, 3};
  addBlob(padded, "odd3", three.data(), three.size());
  for (const BlobEntry &blob : odd.blobs)
    addBlob(padded, blob.name, odd.coeffData.data() + blob.offset, blob.size);
  odd.blobs = padded.blobs;
  odd.coeffData = padded.coeffData;
  for (WeightRef &w : odd.nets[0].stages[0].weights)
    ++w.blob;
  std::string path = ::testing::TempDir() + "/incremental.tpum", expected = path + ".expected";
  {
    ModelFileWriter writer(path);
    for (const Model *m : {&odd, &a, &b, &c})
      writer.add(*m);
    EXPECT_EQ(writer.netCount(), 4u);
    EXPECT_THROW(writer.add(a), ModelFileError); // net 'a' again
    Model other = c;
    other.chip = "bm1688";
    other.nets[0].name = "other";
    EXPECT_THROW(writer.add(other), ModelFileError);
    writer.finish();
  }
  writeModelFile(expected, combineModels({odd, a, b, c}));
  std::ifstream got(path, std::ios::binary), want(expected, std::ios::binary);
  std::vector<char> gotBytes((std::istreambuf_iterator<char>(got)), std::istreambuf_iterator<char>()),
      wantBytes((std::istreambuf_iterator<char>(want)), std::istreambuf_iterator<char>());
  EXPECT_EQ(gotBytes, wantBytes);
  EXPECT_FALSE(std::ifstream(path + ".coeff").good()); // the scratch file is gone
  Model back = readModelFile(path);
  EXPECT_EQ(back.blobs.size(), combineModels({odd, a, b, c}).blobs.size());
  EXPECT_EQ(back.nets[1].stages[0].weights, back.nets[2].stages[0].weights); // a and b share their weights
  EXPECT_TRUE(validateModel(back).empty());
}

} // namespace
