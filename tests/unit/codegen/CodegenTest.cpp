// Codegen on hand-built groups (command count, order, dependencies against the plan's time steps), the
// .tpum format (round trip, truncated and corrupt files, version 5's control-flow blocks and version 4
// images), combine with weight dedup and extract.
#include "tpuc/Codegen/Codegen.h"
#include "StreamTestUtil.h"
#include "tpuc/Codegen/ModelFile.h"

#include "tpuc/Backend/GlobalMemory.h"
#include "tpuc/Backend/LayerGroup.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <sstream>

using namespace tpuc::backend;
using namespace tpuc::codegen;
using tpuc::codegen::testing::syncCommand;

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

/// sampleModel's stage with control flow: its commands then a barrier form block 0, which branches on the
/// input's first byte to block 1 (one barrier per stream, jumping back to block 0) or ends the stage.
Model blockedModel() {
  Model m = sampleModel("net", 1);
  Stage &s = m.nets[0].stages[0];
  for (Engine e : {Engine::TIU, Engine::GDMA})
    for (int k = 0; k < 2; ++k)
      s.cores[0].of(e).push_back(syncCommand(e, static_cast<uint32_t>(s.cores[0].of(e).size() + 1)));
  uint32_t tiu = static_cast<uint32_t>(s.tiu().size()), gdma = static_cast<uint32_t>(s.gdma().size());
  Block body, back;
  body.cores = {{0, tiu - 1, 0, gdma - 1}};
  body.terminator.kind = Terminator::Kind::Branch;
  body.terminator.target = 1;
  body.terminator.elseTarget = 2;
  body.terminator.cond.dtype = static_cast<uint8_t>(DType::INT8);
  body.terminator.cond.address = s.inputs[0].address;
  body.terminator.cond.shape = {1, 1, 1, 1};
  body.terminator.cond.stride = {1, 1, 1, 1};
  back.cores = {{tiu - 1, tiu, gdma - 1, gdma}};
  back.terminator.kind = Terminator::Kind::Jump;
  back.terminator.target = 0;
  s.blocks = {body, back};
  return m;
}

/// CRC-32 (zlib's), to rewrite a header after editing an image.
uint32_t crc32(const uint8_t *p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k)
      c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return c ^ 0xFFFFFFFFu;
}

/// The image with header version `version` and its body size and checksum recomputed.
std::vector<uint8_t> reheader(std::vector<uint8_t> image, uint32_t version) {
  uint64_t body = image.size() - 32;
  uint32_t crc = crc32(image.data() + 32, body);
  std::memcpy(image.data() + 4, &version, 4);
  std::memcpy(image.data() + 8, &body, 8);
  std::memcpy(image.data() + 16, &crc, 4);
  return image;
}

TEST(ModelFile, BlocksRoundTripAndShowInInfoAndPrint) {
  Model m = blockedModel();
  EXPECT_TRUE(validateModel(m).empty()) << validateModel(m).front();
  std::vector<uint8_t> bytes = serializeModel(m);
  uint32_t version;
  std::memcpy(&version, bytes.data() + 4, 4);
  EXPECT_EQ(version, 5u);
  Model back = parseModel(bytes.data(), bytes.size(), "b.tpum");
  EXPECT_EQ(back, m);
  ASSERT_EQ(back.nets[0].stages[0].blocks.size(), 2u);
  EXPECT_EQ(serializeModel(back), bytes);
  // Combining, extracting and the incremental writer keep the blocks.
  Model other = sampleModel("other", 3);
  Model all = combineModels({other, m});
  EXPECT_EQ(all.nets[1].stages[0].blocks, m.nets[0].stages[0].blocks);
  EXPECT_EQ(extractNet(all, 1).nets[0], m.nets[0]);
  std::string path = ::testing::TempDir() + "/blocks.tpum";
  {
    ModelFileWriter writer(path);
    writer.add(other);
    writer.add(m);
    writer.finish();
  }
  EXPECT_EQ(readModelFile(path).nets[1].stages[0].blocks, m.nets[0].stages[0].blocks);

  const Stage &s = m.nets[0].stages[0];
  std::string info = modelInfo(m);
  EXPECT_NE(info.find("GDMA commands in 2 blocks, coeff"), std::string::npos) << info;
  EXPECT_EQ(modelInfo(sampleModel("net", 1)).find("blocks"), std::string::npos);
  std::string print = modelPrint(m);
  std::ostringstream block0, block1;
  block0 << "block 0: TIU [0, " << s.tiu().size() - 1 << ") GDMA [0, " << s.gdma().size() - 1
         << ") -> branch D:0x" << std::hex << s.inputs[0].address << std::dec
         << "[0+1,0+1,0+1,0+1]INT8 ? 1 : 2\n";
  block1 << "block 1: TIU [" << s.tiu().size() - 1 << ", " << s.tiu().size() << ") GDMA ["
         << s.gdma().size() - 1 << ", " << s.gdma().size() << ") -> jump 0\n";
  EXPECT_NE(print.find(block0.str()), std::string::npos) << print;
  EXPECT_NE(print.find(block1.str()), std::string::npos) << print;
}

TEST(ModelFile, ReadsVersionFourImagesWithoutBlocks) {
  // A version 4 stage ends after its command streams: version 5's image of a model without blocks less the
  // trailing block count (one net of one stage).
  Model m = sampleModel("net", 1);
  std::vector<uint8_t> v5 = serializeModel(m);
  std::vector<uint8_t> v4(v5.begin(), v5.end() - 4);
  Model back = parseModel(reheader(v4, 4).data(), v4.size(), "v4.tpum");
  EXPECT_EQ(back, m);
  EXPECT_TRUE(back.nets[0].stages[0].blocks.empty());
  // The same bytes read as version 5 lack the block count.
  try {
    parseModel(reheader(v4, 5).data(), v4.size(), "v5.tpum");
    ADD_FAILURE() << "accepted a version 5 stage without its block count";
  } catch (const ModelFileError &e) {
    EXPECT_NE(std::string(e.what()).find("truncated: blocks"), std::string::npos) << e.what();
  }
}

TEST(ModelFile, CorruptBlocksGiveOneLineErrors) {
  std::vector<uint8_t> bytes = serializeModel(blockedModel());
  // The last block (one core) closes the file: 4 x u32 ranges, u8 kind, u32 target, u32 else, 110-byte cond.
  const size_t last = bytes.size() - (16 + 1 + 4 + 4 + 110);
  auto expectError = [&](size_t at, const std::vector<uint8_t> &patch, const std::string &needle) {
    std::vector<uint8_t> b = bytes;
    std::memcpy(b.data() + at, patch.data(), patch.size());
    b = reheader(b, 5);
    try {
      parseModel(b.data(), b.size(), "c.tpum");
      ADD_FAILURE() << "accepted: " << needle;
    } catch (const ModelFileError &e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  };
  expectError(last + 4, {0xff, 0xff, 0, 0}, "corrupt: block 1 of core 0 covers commands beyond its streams");
  expectError(last + 16, {3}, "corrupt: block 1 terminator kind 3");
  expectError(last + 17, {3, 0, 0, 0}, "corrupt: block 1 jumps to a block beyond the stage's 2");
  expectError(last + 25, {7}, "corrupt: operand memory space 7");
}

TEST(ModelFile, ValidateReportsEveryBlockProblem) {
  auto errorsOf = [](const std::function<void(Stage &)> &edit) {
    Model m = blockedModel();
    edit(m.nets[0].stages[0]);
    std::string all;
    for (const std::string &e : validateModel(m))
      all += e + "\n";
    return all;
  };
  auto expectError = [&](const std::function<void(Stage &)> &edit, const std::string &needle) {
    std::string errors = errorsOf(edit);
    EXPECT_NE(errors.find(needle), std::string::npos) << needle << " in:\n" << errors;
    EXPECT_EQ(errors.rfind("net/main: ", 0), 0u) << errors;
  };
  Model m = blockedModel();
  const uint32_t tiu = static_cast<uint32_t>(m.nets[0].stages[0].tiu().size());
  expectError([](Stage &s) { s.blocks[1].cores[0].tiuBegin += 1; },
              "block 1 covers TIU commands [" + std::to_string(tiu) + ", " + std::to_string(tiu) +
                  "), expected to begin at " + std::to_string(tiu - 1));
  expectError([](Stage &s) { s.blocks[1].cores[0].gdmaEnd -= 1; }, "the blocks cover GDMA commands up to");
  expectError([](Stage &s) { s.blocks[1].cores.push_back({}); }, "block 1: 2 core ranges for 1 cores");
  expectError([](Stage &s) { s.blocks[1].terminator.target = 3; }, "block 1: target 3 beyond the 2 blocks");
  expectError([](Stage &s) { s.blocks[0].terminator.elseTarget = 5; },
              "block 0: else target 5 beyond the 2 blocks");
  expectError([](Stage &s) { s.blocks[0].terminator.cond.space = MemSpace::LMEM; },
              "block 0: branch condition is not in DDR");
  expectError(
      [](Stage &s) { s.blocks[0].terminator.cond.address = s.activationBase + s.activationBytes + 4096; },
      "lies outside the stage's activations, inputs and outputs");
  // A block whose TIU stream ends with a computation instead of its barrier: also one barrier short.
  expectError([](Stage &s) { s.tiu()[s.blocks[0].cores[0].tiuEnd - 1].kind = CmdKind::Compute; },
              "block 0: TIU does not end with a barrier");
  expectError([](Stage &s) { s.tiu()[s.blocks[0].cores[0].tiuEnd - 1].kind = CmdKind::Compute; },
              "block 0: GDMA reaches 1 barriers, the block's first stream 0");
  // A command of block 0 waiting on block 1's barrier.
  expectError([](Stage &s) { s.gdma()[0].wait = s.blocks[1].cores[0].tiuEnd; },
              "block 0: GDMA command 0 waits on id " + std::to_string(tiu) +
                  " after the block's last TIU command (" + std::to_string(tiu - 1) + ")");
  // A branch whose condition lies in an input outside the activation region is fine; Next ignores targets.
  EXPECT_EQ(errorsOf([](Stage &s) {
              s.blocks[1].terminator.kind = Terminator::Kind::Next;
              s.blocks[1].terminator.target = 99;
            }),
            "");
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

namespace {

/// A value of `shape` for hand-built marker ops.
tpuc::backend::Value valueOf(const std::string &name, std::vector<int64_t> shape, DType dtype = DType::F32) {
  tpuc::backend::Value v;
  v.name = name;
  v.shape = std::move(shape);
  v.dtype = dtype;
  return v;
}

Op marker(const std::string &name, Control control, std::vector<int> inputs) {
  Op op;
  op.name = name;
  op.control = control;
  op.inputs = inputs;
  op.sources = std::move(inputs);
  return op;
}

/// x -> LoopInit(go0, x, y) -> slots (go, a, b); body: u = unary(a); LoopBack(go, b, u): the carried pair
/// (a, b) becomes (b, u), so slot b is passed through into slot a.
Graph loopGraph() {
  Graph g;
  int go0 = g.addInput("go0", {1}, DType::F32);
  int x = g.addInput("x", {1, 16, 8, 8}, DType::F32);
  int y = g.addInput("y", {1, 16, 8, 8}, DType::F32);
  int init = g.addOp(marker("loop", Control::LoopInit, {go0, x, y}),
                     {valueOf("go", {1}), valueOf("a", {1, 16, 8, 8}), valueOf("b", {1, 16, 8, 8})});
  const std::vector<int> slots = g.ops[init].outputs;
  Op u;
  u.name = "u";
  u.kind = OpKind::Unary;
  u.inputs = {slots[1]};
  int uo = g.addOp(u, {valueOf("u", {1, 16, 8, 8})});
  int back = g.addOp(marker("loop:loop_back", Control::LoopBack, {slots[0], slots[2], g.ops[uo].outputs[0]}),
                     {valueOf("loop:loop_back", {1}, DType::INT8), valueOf("loop:hold_1", {1, 16, 8, 8})});
  g.ops[init].peer = back;
  g.ops[back].peer = init;
  for (int v : slots)
    g.keepAlive.push_back({v, init, back});
  g.markOutput(slots[1]);
  return g;
}

} // namespace

TEST(Codegen, LoopMarkersMakeBlocksAndKeepTheSlotsAlive) {
  ChipProfile c = chip();
  Graph g = loopGraph();
  ASSERT_EQ(g.verify(), "");
  const int init = 0, body = 1, back = 2;
  EXPECT_FALSE(g.isGroupable(init));
  // Slot b (passed through into slot a) needs a hold buffer; the go flag is its own slot, u is no slot.
  EXPECT_EQ(g.loopHolds(back), (std::vector<bool>{false, true, false}));
  LayerGroupPlan plan = planLayerGroups(c, g);
  ASSERT_TRUE(validatePlan(c, g, plan).empty());
  GmemPlan gmem = planGlobalMemory(c, g, plan);
  ASSERT_TRUE(validateGmem(c, g, gmem).empty());
  std::map<int, const GmemBuffer *> buf;
  for (const GmemBuffer &b : gmem.buffers)
    buf[b.value] = &b;
  // Every slot lives from LoopInit to LoopBack, so u (born in the body) never takes a slot's storage.
  for (int s : g.ops[init].outputs) {
    EXPECT_LE(buf.at(s)->start, plan.groupOfOp[init]);
    EXPECT_GE(buf.at(s)->end, plan.groupOfOp[back]);
    const GmemBuffer &u = *buf.at(g.ops[body].outputs[0]);
    EXPECT_TRUE(u.address >= buf.at(s)->address + buf.at(s)->size || buf.at(s)->address >= u.address + u.size);
  }
  StageCode code = generate(c, g, plan);
  const Stage &s = code.stage;
  // LoopInit's copies, then the body with LoopBack's; nothing after the loop, so its exit is the end (2).
  ASSERT_EQ(s.blocks.size(), 2u);
  EXPECT_TRUE(validateModel([&] {
                Model m;
                m.chip = c.name;
                m.nets.push_back({"net", {s}});
                return m;
              }())
                  .empty());
  const Terminator &entry = s.blocks[0].terminator, &loop = s.blocks[1].terminator;
  EXPECT_EQ(entry.kind, Terminator::Kind::Branch);
  EXPECT_EQ(entry.target, 1u);
  EXPECT_EQ(entry.elseTarget, 2u);
  EXPECT_EQ(loop.kind, Terminator::Kind::Branch);
  EXPECT_EQ(loop.target, 1u);
  EXPECT_EQ(loop.elseTarget, 2u);
  EXPECT_EQ(entry.cond.address, static_cast<uint64_t>(buf.at(g.ops[init].outputs[0])->address));
  // The body block: u's command, then b into the hold buffer, then the copies into the slots (go is its
  // own slot: no copy), a barrier on each stream.
  std::vector<std::pair<uint64_t, uint64_t>> copies;
  const Block::Range &r = s.blocks[1].cores[0];
  for (uint32_t i = r.gdmaBegin; i < r.gdmaEnd; ++i)
    if (s.gdma()[i].kind == CmdKind::Copy)
      copies.emplace_back(s.gdma()[i].operands[0].address, s.gdma()[i].operands[1].address);
  auto at = [&](int v) { return static_cast<uint64_t>(buf.at(v)->address); };
  const std::vector<int> &slots = g.ops[init].outputs;
  int hold = g.ops[back].outputs[1], u = g.ops[body].outputs[0];
  EXPECT_EQ(copies, (std::vector<std::pair<uint64_t, uint64_t>>{
                        {at(slots[2]), at(hold)}, {at(hold), at(slots[1])}, {at(u), at(slots[2])}}));
  EXPECT_EQ(s.gdma()[r.gdmaEnd - 1].kind, CmdKind::Sync);
  EXPECT_EQ(s.tiu()[r.tiuEnd - 1].kind, CmdKind::Sync);
}
