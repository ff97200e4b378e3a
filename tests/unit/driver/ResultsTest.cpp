// Result records: written and read back equal, other schemas and newer versions rejected in one line.
#include "tpuc/Driver/Results.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace tpuc::driver;

TEST(Results, CompareRecordRoundTrips) {
  CompareResult r;
  r.status = "failed";
  r.exitCode = 1;
  r.target = "tpu.npz";
  r.reference = "top.npz";
  r.toleranceCosine = 0.99;
  r.toleranceEuclidean = 0.9;
  r.tensors = {{"logits", "close", true, 1.0, 0.99999, 98.1, 1.2e-6},
               {"aux out", "not_similar", false, 0.5, 0.1, std::numeric_limits<double>::infinity(), 0.5}};
  std::string json = toJson(r);
  EXPECT_NE(json.find("\"schema\": \"tpuc.result\""), std::string::npos);
  EXPECT_NE(json.find("\"version\": 1"), std::string::npos);
  ReadResult<CompareResult> back = parseCompareResult(json);
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(back.result, r);
}

TEST(Results, NaNMetricComesBackAsNaN) {
  CompareResult r;
  r.status = "passed";
  r.tensors = {{"x", "equal", true, std::nan(""), 1, 2, 3}};
  ReadResult<CompareResult> back = parseCompareResult(toJson(r));
  ASSERT_TRUE(back) << back.error;
  EXPECT_TRUE(std::isnan(back.result.tensors[0].cosine));
}

TEST(Results, DeployRecordRoundTrips) {
  DeployResult r;
  r.status = "passed";
  r.chip = "bm1688";
  r.quantize = "INT8";
  r.artifacts = {"/c/m.tpu.mlir", "/c/m.tpum"};
  r.outputs = {{"output", "similar", true, 0.999, 0.98, 30, 0.01}};
  ReadResult<DeployResult> back = parseDeployResult(toJson(r));
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(back.result, r);
}

TEST(Results, TransformRecordRoundTrips) {
  TransformResult r;
  r.status = "failed";
  r.exitCode = 1;
  r.message = "Top outputs differ from ONNX Runtime beyond --tolerance 0.99,0.99";
  r.model = "/m/net.onnx";
  r.mlir = "/c/net.top.mlir";
  r.artifacts = {"/c/net.top.mlir", "/c/net_top_f32_all_weight.npz", "/c/net_in_f32.npz"};
  r.framework = "onnxruntime";
  r.outputs = {{"logits", "not_similar", false, 0.5, 0.1, -std::numeric_limits<double>::infinity(), 0.5}};
  ReadResult<TransformResult> back = parseTransformResult(toJson(r));
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(back.result, r);
  EXPECT_EQ(parseDeployResult(toJson(r)).error, "result record of job 'transform', expected 'deploy'");
}

TEST(Results, RunRecordRoundTrips) {
  ModelRunResult r;
  r.status = "passed";
  r.model = "m.tpum";
  r.input = "in.npz";
  r.output = "out.npz";
  r.runner = "cmdsim";
  r.artifacts = {"out.npz", "trace.json"};
  r.chip = "bm1684x";
  r.net = "main";
  r.cycles = 123456;
  r.latencyMs = 0.13;
  r.tiuBusy = 100000;
  r.gdmaBusy = 90000;
  r.tiuCommands = 42;
  r.gdmaCommands = 64;
  ReadResult<ModelRunResult> back = parseModelRunResult(toJson(r));
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(back.result, r);
}

TEST(Results, LlmConvertRecordRoundTrips) {
  LlmConvertResult r;
  r.status = "passed";
  r.model = "/m/qwen";
  r.chip = "bm1684x";
  r.quantize = "w4bf16";
  r.stages = {"/o/embedding.mlir", "/o/block_0.mlir"};
  r.modelFile = "/o/qwen_w4bf16_seq512_bm1684x.tpum";
  r.nets = 2;
  r.weightBytes = 1 << 20;
  r.weightBytesBeforeSharing = 3 << 20;
  r.compileSeconds = 12.5;
  ReadResult<LlmConvertResult> back = parseLlmConvertResult(toJson(r));
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(back.result, r);
}

TEST(Results, CalibrateRecordRoundTrips) {
  CalibrateResult r;
  r.status = "passed";
  r.mlir = "net.top.mlir";
  r.table = "net_cali_table";
  r.artifacts = {"net_cali_table", "net_cali_table_search_threshold.csv"};
  r.samples = 100;
  r.tensors = 57;
  r.summary = "search_threshold by cos (won: kl_tune 40, max 17)";
  r.seconds = 3.25;
  r.stableAfter = 40;
  r.enoughData = true;
  ReadResult<CalibrateResult> back = parseCalibrateResult(toJson(r));
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(back.result, r);
}

TEST(Results, ForeignOrNewerRecordsAreRejected) {
  EXPECT_EQ(parseCompareResult(R"({"schema": "other", "version": 1})").error,
            "not a tpuc result record (schema is not \"tpuc.result\")");
  EXPECT_EQ(parseCompareResult(R"({"schema": "tpuc.result", "version": 2, "job": "compare"})").error,
            "result record version 2 is not supported (this build reads 1)");
  DeployResult d;
  EXPECT_EQ(parseCompareResult(toJson(d)).error, "result record of job 'deploy', expected 'compare'");
  EXPECT_FALSE(parseCompareResult("not json"));
}

TEST(Results, StatusOfExitCodes) {
  EXPECT_EQ(resultStatus(0), "passed");
  EXPECT_EQ(resultStatus(1), "failed");
  EXPECT_EQ(resultStatus(2), "error");
}
