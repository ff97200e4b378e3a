// Accuracy records (compare_samples, first_divergent): written and read back equal, non-finite metrics kept,
// other schemas, newer versions and inconsistent counts rejected in one line.
#include "tpuc/Driver/AccuracyRecords.h"
#include "tpuc/Driver/Requests.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace tpuc::driver;

namespace {

MetricStats stats(double meanCos, double minCos, double p5Cos, int64_t failing, int64_t worst,
                  std::string worstName) {
  MetricStats s;
  s.samples = 3;
  s.meanCosine = meanCos;
  s.minCosine = minCos;
  s.p5Cosine = p5Cos;
  s.meanEuclidean = meanCos - 0.1;
  s.minEuclidean = minCos - 0.1;
  s.p5Euclidean = p5Cos - 0.1;
  s.failingSamples = failing;
  s.worstSample = worst;
  s.worstSampleName = std::move(worstName);
  return s;
}

CompareSamplesRecord samplesRecord() {
  CompareSamplesRecord r;
  r.target = "tpu";
  r.reference = "top";
  r.mlir = "/m/net.mlir";
  r.chip = "bm1684x";
  r.quantize = "INT8";
  r.testInput = "/data/val";
  r.testSubset = "hard";
  r.toleranceCosine = 0.99;
  r.toleranceEuclidean = 0.9;
  r.failingSamples = 1;
  r.worstSample = 1;
  r.layers = {
      {"conv1", stats(0.995, 0.99, 0.9905, 0, 1, "b.jpg"), stats(0.998, 0.997, 0.9971, 0, 1, "b.jpg")},
      {"logits", stats(0.97, 0.93, 0.934, 1, 1, "b.jpg"), std::nullopt}};
  r.samples = {{0, "a.jpg", {"a.jpg"}, true, "", 0.999, {{"logits", 0.999, 0.97, true}}},
               {1,
                "b.jpg",
                {"b.jpg"},
                false,
                "logits",
                0.93,
                {{"logits", 0.93, -std::numeric_limits<double>::infinity(), false}}},
               {2, "c.npz", {"c.npz"}, true, "", 0.995, {{"logits", 0.995, 0.95, true}}}};
  return r;
}

FirstDivergentRecord divergentRecord() {
  FirstDivergentRecord r;
  r.mlir = "/m/net.mlir";
  r.chip = "bm1688";
  r.quantize = "INT8";
  r.toleranceCosine = 0.99;
  r.toleranceEuclidean = 0.9;
  r.samples = 3;
  r.rule = "isolated";
  r.floatMode = "F16";
  r.gainSamples = {"b.jpg", "c.npz"};
  r.baselineOutputCosine = 0.93;
  r.summary = "'conv2' breaks first";
  DivergentCandidate measured;
  measured.name = "conv2";
  measured.isolated = stats(0.8, 0.7, 0.71, 3, 1, "b.jpg");
  measured.accumulated = stats(0.79, 0.69, 0.7, 3, 1, "b.jpg");
  measured.inputs = {{"conv1", stats(0.999, 0.998, 0.998, 0, 2, "c.npz")}, {"input", std::nullopt}};
  measured.consumers = {"add", "pool"};
  measured.headroom = -28.0;
  measured.measured = true;
  measured.floatOutputCosine = 0.95;
  measured.gain = 0.02;
  measured.outputFloatOps = {"add", "pool"};
  measured.outputFloatCosine = 0.999;
  measured.outputGain = 0.069;
  measured.score = 0.069;
  DivergentCandidate unmeasured;
  unmeasured.name = "fc";
  unmeasured.isolated = stats(0.98, 0.97, 0.971, 1, 0, "a.jpg");
  unmeasured.accumulated = stats(0.9, 0.8, 0.81, 3, 1, "b.jpg");
  unmeasured.headroom = -1.9;
  r.candidates = {measured, unmeasured};
  return r;
}

} // namespace

TEST(AccuracyRecords, CompareSamplesRoundTrips) {
  CompareSamplesRecord r = samplesRecord();
  std::string json = toJson(r);
  EXPECT_NE(json.find("\"schema\": \"tpuc.compare_samples\""), std::string::npos);
  EXPECT_NE(json.find("\"p5_cosine\""), std::string::npos);
  EXPECT_NE(json.find("\"sample_count\": 3"), std::string::npos);
  ReadResult<CompareSamplesRecord> back = parseCompareSamples(json);
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(back.result, r);
}

TEST(AccuracyRecords, FirstDivergentRoundTrips) {
  FirstDivergentRecord r = divergentRecord();
  std::string json = toJson(r);
  EXPECT_NE(json.find("\"schema\": \"tpuc.first_divergent\""), std::string::npos);
  EXPECT_NE(json.find("\"rank\": 2"), std::string::npos);
  ReadResult<FirstDivergentRecord> back = parseFirstDivergent(json);
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(back.result, r);
}

TEST(AccuracyRecords, NaNComesBackAsNaN) {
  FirstDivergentRecord r = divergentRecord();
  r.baselineOutputCosine = std::nan("");
  ReadResult<FirstDivergentRecord> back = parseFirstDivergent(toJson(r));
  ASSERT_TRUE(back) << back.error;
  EXPECT_TRUE(std::isnan(back.result.baselineOutputCosine));
}

TEST(AccuracyRecords, OtherSchemaOrNewerVersionIsRejectedInOneLine) {
  std::string samples = toJson(samplesRecord());
  ReadResult<FirstDivergentRecord> wrong = parseFirstDivergent(samples);
  EXPECT_FALSE(wrong);
  EXPECT_NE(wrong.error.find("tpuc.first_divergent"), std::string::npos) << wrong.error;
  std::string newer = samples;
  newer.replace(newer.find("\"version\": 1"), 12, "\"version\": 9");
  ReadResult<CompareSamplesRecord> future = parseCompareSamples(newer);
  EXPECT_FALSE(future);
  EXPECT_NE(future.error.find("version 9"), std::string::npos) << future.error;
  EXPECT_EQ(future.error.find('\n'), std::string::npos);
}

TEST(AccuracyRecords, SampleCountMustMatchTheSamples) {
  std::string json = toJson(samplesRecord());
  json.replace(json.find("\"sample_count\": 3"), 17, "\"sample_count\": 4");
  ReadResult<CompareSamplesRecord> back = parseCompareSamples(json);
  EXPECT_FALSE(back);
  EXPECT_NE(back.error.find("sample_count 4"), std::string::npos) << back.error;
}

TEST(AccuracyRecords, PathsFollowTheDeployStem) {
  DeployOptions o;
  o.mlir = "/m/net.mlir";
  o.quantize = "INT8";
  o.tpuMlir = "/out/net_int8.mlir";
  EXPECT_EQ(compareSamplesPath(o), "/out/net_int8_compare_samples.json");
  EXPECT_EQ(firstDivergentPath(o), "/out/net_int8_first_divergent.json");
}
