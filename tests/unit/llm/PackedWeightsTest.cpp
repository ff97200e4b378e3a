//===- PackedWeightsTest.cpp - GPTQ / AWQ unpacking and group quantization ===//
//
// Checkpoints packed by make_tiny_llm.py the way AutoGPTQ, AutoAWQ and AutoRound write them must unpack to
// exactly the dequantized weights the script started from; a hand-packed AWQ word pins the nibble order and
// a GPTQ word the +1 zero-point convention.
//
//===----------------------------------------------------------------------===//

#include "LLMTestUtil.h"

#include "tpuc/LLM/HFConfig.h"
#include "tpuc/LLM/QuantizedLinear.h"
#include "tpuc/LLM/SafeTensors.h"
#include "tpuc/Support/Npz.h"

using namespace tpuc;
using namespace tpuc::llm;
using namespace tpuc::llm::test;

namespace {

const std::string kSuite = TPUC_TINY_LLM_DIR;

PackedFormat formatOf(const QuantizationConfig &q) {
  if (q.method == QuantizationConfig::Method::AWQ || llvm::StringRef(q.packingFormat).contains("awq"))
    return PackedFormat::AWQ;
  return PackedFormat::GPTQ;
}

class PackedCheckpoint : public ::testing::TestWithParam<std::string> {};

TEST_P(PackedCheckpoint, UnpacksToTheReferenceDequantizedWeights) {
  std::string dir = kSuite + "/" + GetParam();
  auto config = readModelConfig(dir);
  ASSERT_TRUE(bool(config)) << errorText(config.takeError());
  ASSERT_TRUE(config->quantization.has_value());
  auto checkpoint = SafeTensorsCheckpoint::open(dir);
  ASSERT_TRUE(bool(checkpoint)) << errorText(checkpoint.takeError());
  NpzFile expected = NpzFile::read(dir + "/dequant.npz");
  ASSERT_GT(expected.size(), 0u);
  for (const std::string &name : expected.names()) {
    SCOPED_TRACE(name);
    PackedLinear packed;
    packed.qweight = cantFail((*checkpoint)->get(name + ".qweight"));
    packed.qzeros = cantFail((*checkpoint)->get(name + ".qzeros"));
    packed.scales = cantFail((*checkpoint)->get(name + ".scales"));
    if ((*checkpoint)->contains(name + ".g_idx"))
      packed.gIdx = cantFail((*checkpoint)->get(name + ".g_idx"));
    auto w = unpackLinear(packed, formatOf(*config->quantization), config->quantization->bits,
                          config->quantization->groupSize, name);
    ASSERT_TRUE(bool(w)) << errorText(w.takeError());
    const Tensor &ref = expected.get(name);
    ASSERT_EQ(ref.shape(), (std::vector<int64_t>{w->outFeatures, w->inFeatures}));
    EXPECT_EQ(GetParam() == "gptq_actorder", !w->inputPermutation.empty());
    std::vector<float> got = w->dequantize();
    auto want = ref.values<float>();
    int64_t mismatches = 0;
    for (size_t i = 0; i < got.size(); ++i)
      mismatches += got[i] != want[i];
    EXPECT_EQ(mismatches, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Tiny, PackedCheckpoint,
                         ::testing::Values("gptq", "gptq_actorder", "gptq8", "awq", "autoround"));

/// A one-layer checkpoint of 8 output x 8 input features, 4-bit, one group.
std::unique_ptr<SafeTensorsFile> packedFile(const std::vector<int32_t> &qweight, std::vector<int64_t> qShape,
                                            const std::vector<int32_t> &qzeros, std::vector<int64_t> zShape) {
  std::vector<float> scales(8, 1.0f);
  std::string bytes = packSafeTensors({{"w.qweight", "I32", qShape, rawBytes(qweight)},
                                       {"w.qzeros", "I32", zShape, rawBytes(qzeros)},
                                       {"w.scales", "F32", {1, 8}, rawBytes(scales)}});
  return cantFail(
      SafeTensorsFile::fromBuffer(llvm::MemoryBuffer::getMemBufferCopy(bytes, "hand.safetensors")));
}

TEST(PackedWeights, AwqNibbleOrder) {
  // Input row k holds one word whose nibble i is i: columns read back as 0,4,1,5,2,6,3,7.
  std::vector<int32_t> qweight(8, 0x76543210);
  auto file = packedFile(qweight, {8, 1}, {0}, {1, 1});
  PackedLinear packed{cantFail(file->get("w.qweight")), cantFail(file->get("w.qzeros")),
                      cantFail(file->get("w.scales")), std::nullopt};
  auto w = unpackLinear(packed, PackedFormat::AWQ, 4, -1, "w");
  ASSERT_TRUE(bool(w)) << errorText(w.takeError());
  const int64_t expected[8] = {0, 4, 1, 5, 2, 6, 3, 7};
  for (int64_t n = 0; n < 8; ++n)
    EXPECT_EQ(w->valueAt(n, 0), expected[n]) << "output column " << n;
}

TEST(PackedWeights, GptqPackingAndZeroOffset) {
  // qweight [K/8, N]: word of column n holds input rows 0..7 in nibbles 0..7; zeros stored as zero - 1.
  std::vector<int32_t> qweight(8);
  for (int n = 0; n < 8; ++n)
    qweight[n] = static_cast<int32_t>(0x76543210u + 0x11111111u * (n % 2));
  auto file = packedFile(qweight, {1, 8}, {0x33333333}, {1, 1});
  PackedLinear packed{cantFail(file->get("w.qweight")), cantFail(file->get("w.qzeros")),
                      cantFail(file->get("w.scales")), std::nullopt};
  auto w = unpackLinear(packed, PackedFormat::GPTQ, 4, -1, "w");
  ASSERT_TRUE(bool(w)) << errorText(w.takeError());
  EXPECT_EQ(w->valueAt(0, 5), 5);
  EXPECT_EQ(w->valueAt(1, 5), 6);
  EXPECT_EQ(w->zeroPoints[0], 4.0f); // stored 3, +1
  EXPECT_EQ(w->dequantize()[1 * 8 + 7], 8.0f - 4.0f);
  auto v2 = unpackLinear(packed, PackedFormat::GPTQv2, 4, -1, "w");
  ASSERT_TRUE(bool(v2));
  EXPECT_EQ(v2->zeroPoints[0], 3.0f);
}

TEST(PackedWeights, ShapeErrorsNameTheTensor) {
  std::vector<int32_t> qweight(8, 0);
  auto file = packedFile(qweight, {1, 8}, {0, 0}, {2, 1});
  PackedLinear packed{cantFail(file->get("w.qweight")), cantFail(file->get("w.qzeros")),
                      cantFail(file->get("w.scales")), std::nullopt};
  std::string error = errorText(unpackLinear(packed, PackedFormat::GPTQ, 4, -1, "layer.q_proj").takeError());
  EXPECT_NE(error.find("layer.q_proj.qzeros: shape [2, 1], expected [1, 1]"), std::string::npos) << error;
}

TEST(PackedWeights, GroupQuantizationRoundTrips) {
  std::vector<float> w(16 * 64);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = std::sin(0.1f * static_cast<float>(i)) * (1.0f + static_cast<float>(i % 7));
  for (int bits : {4, 8})
    for (bool sym : {false, true}) {
      auto q = quantizeLinear(w, 16, 64, bits, 32, sym, "x");
      ASSERT_TRUE(bool(q));
      std::vector<float> d = q->dequantize();
      double maxErr = 0;
      for (size_t i = 0; i < w.size(); ++i) {
        int64_t row = i / 64, group = (i % 64) / 32;
        maxErr = std::max<double>(maxErr, std::fabs(d[i] - w[i]) / q->scales[row * 2 + group]);
      }
      // Within half a step of the original (a step when the zero point's rounding shifts the grid).
      EXPECT_LE(maxErr, (sym ? 0.5 : 1.0) + 1e-3) << bits << (sym ? " sym" : " asym");
    }
  std::string error = errorText(quantizeLinear(w, 16, 64, 4, 48, false, "layer.up_proj").takeError());
  EXPECT_NE(error.find("layer.up_proj: --q_group_size 48 does not divide its 64 input features"),
            std::string::npos)
      << error;
}

} // namespace
