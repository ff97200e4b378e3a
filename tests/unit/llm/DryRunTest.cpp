//===- DryRunTest.cpp - llm-convert --dry_run against hand-computed figures ===//
//
// Qwen2-7B's public config (Inputs/DryRun/qwen2-7b, no weights): weight bytes of w4bf16 group 64 and
// the KV cache recomputed here from the shapes alone, decode time bounded by the weight stream at the
// profile's bandwidth, an unknown chip, a model that does not fit bm1688's DDR, a profile's launch
// overhead, and the JSON report.
//
//===----------------------------------------------------------------------===//

#include "tpuc/LLM/DryRun.h"

#include "LLMTestUtil.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

using namespace tpuc;
using namespace tpuc::llm;

namespace {

const std::string kQwen2_7B = std::string(TPUC_LLM_TEST_INPUTS) + "/DryRun/qwen2-7b";

ModelConfig qwen2_7b() {
  auto config = readModelConfig(kQwen2_7B);
  EXPECT_TRUE(static_cast<bool>(config));
  if (!config) {
    llvm::consumeError(config.takeError());
    return {};
  }
  return *config;
}

ConvertPlan planFor(const ModelConfig &config, const std::string &quantize, int64_t seq = 512) {
  ConvertOptions options;
  options.seqLength = seq;
  options.quantize = quantize;
  options.qGroupSize = 64;
  auto plan = planConversion(config, options);
  EXPECT_TRUE(static_cast<bool>(plan));
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return {};
  }
  return *plan;
}

DryRunReport run(const ModelConfig &config, const ConvertPlan &plan, const std::string &chips) {
  auto report = dryRun(config, plan, chips);
  EXPECT_TRUE(static_cast<bool>(report)) << (report ? "" : llvm::toString(report.takeError()));
  return report ? *report : DryRunReport{};
}

TEST(DryRun, Qwen2_7B_W4Bf16WeightBytesByHand) {
  ModelConfig c = qwen2_7b();
  ConvertPlan plan = planFor(c, "w4bf16");
  DryRunReport report = run(c, plan, "bm1684x");
  ASSERT_EQ(report.chips.size(), 1u);
  const MemoryPlan &m = report.chips[0].memory;

  // Independently: int4 packs two weights per byte; one f32 scale and one u8 zero point per 64 weights
  // of a row; Qwen2 has q/k/v biases; two RMSNorm weights; all bf16 besides. Every tensor here is a
  // multiple of the 64-byte coefficient alignment.
  const int64_t h = 3584, kv = 4 * 128, inter = 18944;
  int64_t values = 0, scales = 0, zps = 0;
  for (auto [n, k] : {std::pair{h, h}, {kv, h}, {kv, h}, {h, h}, {inter, h}, {inter, h}, {h, inter}}) {
    values += n * k / 2;
    scales += n * (k / 64) * 4;
    zps += n * (k / 64);
  }
  int64_t other = (h + kv + kv) * 2 + 2 * h * 2;
  EXPECT_EQ(m.layer.values, values);
  EXPECT_EQ(m.layer.scales, scales);
  EXPECT_EQ(m.layer.zeroPoints, zps);
  EXPECT_EQ(m.layer.other, other);
  EXPECT_EQ(m.layer.total(), 134'753'280); // 233.0M weights at 0.578 B, plus 23.5 KB
  EXPECT_EQ(m.layers, 28);
  // Embedding table and untied lm_head in bf16, final norm.
  EXPECT_EQ(m.shared.total(), 2 * 152064LL * h * 2 + h * 2);
  // k and v of 28 layers, 512 positions x 4 heads x 128 in bf16.
  EXPECT_EQ(m.kvCacheBytes, 2LL * 28 * 512 * kv * 2);
  EXPECT_EQ(m.weightBytes(), 28 * m.layer.total() + m.shared.total());
  EXPECT_GT(m.activationBytes, 0);
}

TEST(DryRun, DecodeIsBoundByTheWeightStream) {
  ModelConfig c = qwen2_7b();
  ConvertPlan plan = planFor(c, "w4bf16");
  DryRunReport report = run(c, plan, "bm1684x");
  ASSERT_EQ(report.chips.size(), 1u);
  const ChipDryRun &r = report.chips[0];
  // Each decode step streams every layer's weights and lm_head once (the embedding reads one row).
  const MemoryPlan &m = r.memory;
  int64_t streamed = m.layer.total() * m.layers + 152064LL * 3584 * 2 + 3584 * 2;
  double floorMs = double(streamed) / (61e9) * 1e3;
  EXPECT_GE(r.decodeMsPerToken, floorMs);
  EXPECT_LE(r.decodeMsPerToken, floorMs * 1.25);
  // Prefill of 512 tokens is compute bound: at least the layers' MACs at the BF16 peak.
  double macs = 512.0 * (double(m.layer.values) * 2); // two 4-bit weights per byte
  double peak = 64 * 128 * 950e6;
  EXPECT_GE(r.firstTokenMs, 28 * macs / peak * 1e3 * 0.99);
  // A w8 model streams more bytes and decodes slower; bf16 slower still.
  double w4 = r.decodeTokensPerSecond();
  double w8 = run(c, planFor(c, "w8bf16"), "bm1684x").chips.at(0).decodeTokensPerSecond();
  double bf16 = run(c, planFor(c, "bf16"), "bm1684x").chips.at(0).decodeTokensPerSecond();
  EXPECT_GT(w4, w8);
  EXPECT_GT(w8, bf16);
}

TEST(DryRun, UnknownChipIsAnError) {
  ModelConfig c = qwen2_7b();
  auto report = dryRun(c, planFor(c, "w4bf16"), "bm9999");
  ASSERT_FALSE(static_cast<bool>(report));
  std::string message = llvm::toString(report.takeError());
  EXPECT_NE(message.find("unknown chip 'bm9999'"), std::string::npos) << message;
  EXPECT_NE(message.find("bm1684x"), std::string::npos) << message;
}

TEST(DryRun, SaysWhatDoesNotFitBm1688) {
  ModelConfig c = qwen2_7b();
  // bf16 weights: 2.03 GiB of shared weights fit the 8 GiB, then only part of the 28 layers.
  DryRunReport report = run(c, planFor(c, "bf16"), "bm1688");
  ASSERT_EQ(report.chips.size(), 1u);
  const MemoryPlan &m = report.chips[0].memory;
  EXPECT_FALSE(m.fits());
  ASSERT_GE(m.overflow.size(), 2u);
  int64_t left = m.ddrBytes - m.shared.total();
  int64_t fitting = left / m.layer.total();
  EXPECT_EQ(m.overflow[0].rfind("weights of layers " + std::to_string(fitting) + "-27", 0), 0u) << m.overflow[0];
  EXPECT_NE(m.overflow[1].find("KV cache"), std::string::npos);
  std::string text = formatDryRun(report);
  EXPECT_NE(text.find("does not fit: weights of layers"), std::string::npos) << text;
  // Two of its layers fit, with nothing named.
  ModelConfig two = c;
  two.numHiddenLayers = 2;
  DryRunReport fits = run(two, planFor(two, "bf16"), "bm1688");
  EXPECT_TRUE(fits.chips.at(0).memory.fits());
  EXPECT_TRUE(fits.chips.at(0).memory.overflow.empty());
}

TEST(DryRun, LaunchOverheadFromTheProfile) {
  ModelConfig c = qwen2_7b();
  ConvertPlan plan = planFor(c, "w4bf16");
  backend::ChipProfile base = backend::findChipProfile("bm1684x");
  std::ifstream in(base.sourceFile);
  nlohmann::json json = nlohmann::json::parse(in);
  json["runtime"] = {{"stage_launch_us", 100.0}};
  test::TempDir dir("tpuc-dryrun");
  std::string path = dir.file("bm1684x.json");
  std::ofstream(path) << json.dump();
  backend::ChipProfile withLaunch = backend::loadChipProfile(path);
  auto a = dryRunOnChip(c, plan, base);
  auto b = dryRunOnChip(c, plan, withLaunch);
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(a->launchFromProfile);
  EXPECT_TRUE(b->launchFromProfile);
  // Decode: embedding_cache, 28 block_cache, lm_head, greedy_head = 31 launches of 0.1 ms.
  EXPECT_NEAR(b->decodeMsPerToken - a->decodeMsPerToken, 31 * 0.1, 1e-6);
}

TEST(DryRun, DynamicBucketsPlanFirstTokenByPromptLength) {
  EXPECT_EQ(defaultPrefillBuckets(2048), (std::vector<int64_t>{16, 32, 64, 128, 256, 512, 1024}));
  EXPECT_EQ(defaultPrefillBuckets(500), (std::vector<int64_t>{16, 32, 64, 128, 256}));
  EXPECT_EQ(defaultPrefillBuckets(20), (std::vector<int64_t>{16}));
  EXPECT_TRUE(defaultPrefillBuckets(16).empty());
  EXPECT_EQ(bucketStageName("block_kv_", 64, 3), "block_kv_len64_3");
  EXPECT_EQ(bucketStageName("embedding", 64), "embedding_len64");

  ModelConfig c = qwen2_7b();
  ConvertOptions options;
  options.seqLength = 2048;
  options.quantize = "w4bf16";
  options.dynamic = true;
  auto plan = planConversion(c, options);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  EXPECT_EQ(plan->buckets, defaultPrefillBuckets(2048));
  // Each layer has block_, block_cache_ and a block_len<b>_ per bucket.
  EXPECT_EQ(plan->stages.size(), size_t(2 + 7 + 1 + 28 * (2 + 7) + 2));
  DryRunReport report = run(c, *plan, "bm1684x");
  ASSERT_EQ(report.chips.size(), 1u);
  const ChipDryRun &chip = report.chips[0];
  ASSERT_EQ(chip.firstTokenByBucket.size(), 8u);
  for (size_t i = 1; i < chip.firstTokenByBucket.size(); ++i)
    EXPECT_GT(chip.firstTokenByBucket[i].firstTokenMs, chip.firstTokenByBucket[i - 1].firstTokenMs);
  EXPECT_EQ(chip.firstTokenByBucket.back().tokens, 2048);
  EXPECT_DOUBLE_EQ(chip.firstTokenByBucket.back().firstTokenMs, chip.firstTokenMs);
  // The 512 bucket of a -s 2048 build is the prefill of a static -s 512 build (a block_ stage's graph
  // depends on its length only).
  DryRunReport static512 = run(c, planFor(c, "w4bf16", 512), "bm1684x");
  EXPECT_NEAR(chip.firstTokenByBucket[5].firstTokenMs, static512.chips.at(0).firstTokenMs,
              0.01 * static512.chips.at(0).firstTokenMs);
  // The JSON report lists them.
  nlohmann::json json = nlohmann::json::parse(dryRunJson(report));
  EXPECT_EQ(json["plan"]["buckets"].size(), 7u);
  EXPECT_EQ(json["chips"][0]["first_token_by_bucket"][7]["tokens"], 2048);

  // Explicit buckets: sorted, and each must be below max_input_length.
  options.buckets = {256, 64, 64};
  plan = planConversion(c, options);
  ASSERT_TRUE(static_cast<bool>(plan));
  EXPECT_EQ(plan->buckets, (std::vector<int64_t>{64, 256}));
  options.buckets = {2048};
  plan = planConversion(c, options);
  ASSERT_FALSE(static_cast<bool>(plan));
  EXPECT_EQ(llvm::toString(plan.takeError()),
            "--buckets: 2048 is not between 1 and max_input_length - 1 (2047)");
}

TEST(DryRun, JsonReport) {
  ModelConfig c = qwen2_7b();
  DryRunReport report = run(c, planFor(c, "w4bf16"), "bm1684x,cv186ah");
  auto json = nlohmann::json::parse(dryRunJson(report));
  EXPECT_EQ(json["schema"], "tpuc-llm-dry-run");
  ASSERT_EQ(json["chips"].size(), 2u);
  EXPECT_EQ(json["chips"][1]["chip"], "cv186ah");
  EXPECT_EQ(json["chips"][0]["memory"]["layer"]["total"].get<int64_t>(), report.chips[0].memory.layer.total());
  EXPECT_GT(json["chips"][0]["decode_tokens_per_s"].get<double>(), 0);
  // The slower DDR decodes slower.
  EXPECT_GT(report.chips[0].decodeTokensPerSecond(), report.chips[1].decodeTokensPerSecond());
}

} // namespace
