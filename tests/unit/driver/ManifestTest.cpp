// Run manifests: every flag of a request with its default, JSON round trip and rejection, the differences
// between two manifests (flags, inputs by content or path), two runs' layers side by side.
#include "tpuc/Driver/Manifest.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tpuc::driver;

namespace {

RunManifest manifest() {
  RunManifest m;
  m.version = "0.1.0";
  m.command = "deploy";
  m.argv = {"--mlir", "m.mlir", "--quantize", "INT8"};
  m.flags = {{"--mlir", "m.mlir"}, {"--quantize", "INT8"}, {"--tolerance", "0.8,0.5"}};
  m.inputs = {{"model", "m.mlir", "sha256:aa", 10, 1},
              {"calibration_table", "cali", "sha256:bb", 20, 1},
              {"test_samples", "val", "sha256:cc", 300, 3}};
  m.result = "m_int8_result.json";
  m.compareSamples = "m_int8_compare_samples.json";
  m.trace = "m_int8_trace.json";
  return m;
}

} // namespace

TEST(Manifest, RequestFlagsListEveryFlagWithItsDefault) {
  DeployOptions o;
  o.mlir = "m.mlir";
  o.quantize = "INT8";
  auto flags = requestFlags(o);
  auto value = [&](const std::string &name) {
    for (const auto &[n, v] : flags)
      if (n == name)
        return v;
    return std::string("(missing)");
  };
  EXPECT_EQ(value("--mlir"), "m.mlir");
  EXPECT_EQ(value("--tolerance"), "0.8,0.5"); // a default
  EXPECT_EQ(value("--compare_all"), "false"); // a flag left off
  EXPECT_EQ(value("--divergent_top"), "5");
  // One entry per flag deploy declares (it has no positionals).
  DeployOptions fields;
  tpuc::ArgParser parser("tpuc deploy", "");
  addDeployOptions(parser, fields);
  EXPECT_EQ(flags.size(), parser.flagNames().size());
}

TEST(Manifest, RoundTripsAndRejectsOtherRecords) {
  RunManifest m = manifest();
  std::string json = toJson(m);
  EXPECT_NE(json.find("\"schema\": \"tpuc.manifest\""), std::string::npos);
  ReadResult<RunManifest> back = parseManifest(json);
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(back.result, m);
  // The trace joined the records later: a manifest without it reads as "".
  std::string noTrace = json;
  noTrace.erase(noTrace.find(",\n    \"trace\""),
                std::string(",\n    \"trace\": \"m_int8_trace.json\"").size());
  ReadResult<RunManifest> older = parseManifest(noTrace);
  ASSERT_TRUE(older) << older.error << noTrace;
  EXPECT_EQ(older.result.trace, "");
  ReadResult<RunManifest> other = parseManifest(R"({"schema": "tpuc.result", "version": 1})");
  EXPECT_FALSE(other);
  EXPECT_EQ(other.error, "not a tpuc.manifest record (schema is not \"tpuc.manifest\")");
  std::string newer = json;
  newer.replace(newer.find("\"version\": 1"), 12, "\"version\": 2");
  EXPECT_NE(parseManifest(newer).error.find("version 2 is not supported"), std::string::npos);
}

TEST(Manifest, DifferencesNameFlagsAndInputs) {
  RunManifest a = manifest(), b = manifest();
  EXPECT_TRUE(diffManifests(a, b).empty());
  b.version = "0.2.0";
  b.flags[2].second = "0.99,0.9";              // --tolerance changed
  b.flags.push_back({"--asymmetric", "true"}); // a flag A's version did not have
  b.inputs[1].sha256 = "sha256:b2";            // the table's content
  b.inputs[2].path = "val2";                   // same samples, another folder
  b.inputs.push_back({"quantize_table", "q", "sha256:dd", 5, 1});
  std::vector<ManifestDifference> d = diffManifests(a, b);
  std::vector<ManifestDifference> want = {
      {"version", "0.1.0", "0.2.0"},
      {"flag --tolerance", "0.8,0.5", "0.99,0.9"},
      {"flag --asymmetric", "", "true"},
      {"input calibration_table (content differs)", "cali (sha256:bb)", "cali (sha256:b2)"},
      {"input test_samples (same content, another path)", "val (sha256:cc, 3 files)",
       "val2 (sha256:cc, 3 files)"},
      {"input quantize_table", "", "q (sha256:dd)"},
  };
  EXPECT_EQ(d, want);
}

TEST(Manifest, LayersSideBySide) {
  LayerCosines a{"a.json", {"x", "conv", "out"}, {1.0, 0.99, 0.95}, {1.0, 0.995, 0.97}};
  LayerCosines b{"b.json", {"x", "conv", "extra", "out"}, {1.0, 0.98, 0.5, 0.97}, {1.0, 0.99, 0.6, 0.98}};
  std::vector<LayerDelta> d = diffRunLayers(a, b);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[1].name, "conv");
  EXPECT_DOUBLE_EQ(d[1].aCosine, 0.99);
  EXPECT_DOUBLE_EQ(d[1].bCosine, 0.98);
  EXPECT_EQ(d[2].name, "out");
  EXPECT_DOUBLE_EQ(d[2].bIsolated, 0.98);
  EXPECT_EQ(d[3].name, "extra"); // B's own, after A's layers
  EXPECT_TRUE(std::isnan(d[3].aCosine));
  std::string text = formatRunsDiff({"a_manifest.json", "b_manifest.json", {}, "a.json", "b.json", d});
  EXPECT_NE(text.find("the manifests agree"), std::string::npos);
  EXPECT_NE(text.find("-0.010000"), std::string::npos) << text; // conv: 0.98 - 0.99
}

TEST(Manifest, RunsDiffRoundTripsThroughJson) {
  LayerCosines a{"a.json", {"x", "conv"}, {1.0, 0.99}, {1.0, 0.995}};
  LayerCosines b{"b.json", {"x", "conv", "extra"}, {1.0, 0.98, 0.5}, {1.0, 0.99, 0.6}};
  RunsDiff diff{"a_manifest.json", "b_manifest.json", {{"flag --asymmetric", "false", "true"}},
                "a.json",          "b.json",          diffRunLayers(a, b)};
  auto read = parseRunsDiff(toJson(diff));
  ASSERT_TRUE(read) << read.error;
  EXPECT_EQ(read.result.differences, diff.differences);
  ASSERT_EQ(read.result.layers.size(), 3u);
  EXPECT_EQ(read.result.layers[1], diff.layers[1]);
  EXPECT_TRUE(std::isnan(read.result.layers[2].aCosine)); // B's own layer: NaN written as null, read back
  EXPECT_FALSE(parseRunsDiff(R"({"schema": "tpuc.manifest", "version": 1})"));
}

TEST(Manifest, CyclesJoinTheLayersOfTheirName) {
  LayerCosines a{"a.json", {"x", "conv", "out"}, {1.0, 0.99, 0.95}, {1.0, 0.995, 0.97}};
  LayerCosines b{"b.json", {"x", "conv", "out"}, {1.0, 0.98, 0.97}, {1.0, 0.99, 0.98}};
  std::vector<LayerDelta> layers = diffRunLayers(a, b);
  RunCycles ca{"a_trace.json", 0.004, 4000, {{"x_i8", 60}, {"conv", 100}, {"out", 900}}};
  RunCycles cb{"b_trace.json", 0.005, 4900, {{"conv", 130}, {"out", 900}, {"conv_f16", 70}}};
  addRunCycles(layers, &ca, &cb);
  ASSERT_EQ(layers.size(), 5u);
  EXPECT_FALSE(layers[0].aCycles); // "x": no op of that name
  EXPECT_EQ(layers[1].aCycles, 100);
  EXPECT_EQ(layers[1].bCycles, 130);
  EXPECT_EQ(layers[2].bCycles, 900);
  EXPECT_EQ(layers[3].name, "x_i8"); // ops without a layer: A's, then B's own
  EXPECT_EQ(layers[3].aCycles, 60);
  EXPECT_FALSE(layers[3].bCycles);
  EXPECT_TRUE(std::isnan(layers[3].aCosine));
  EXPECT_EQ(layers[4].name, "conv_f16");
  EXPECT_EQ(layers[4].bCycles, 70);

  // Only B traced: A's side stays empty.
  std::vector<LayerDelta> one = diffRunLayers(a, b);
  addRunCycles(one, nullptr, &cb);
  EXPECT_FALSE(one[1].aCycles);
  EXPECT_EQ(one[1].bCycles, 130);

  RunsDiff diff{"a_manifest.json",
                "b_manifest.json",
                {},
                "a.json",
                "b.json",
                layers,
                RunLatency{"a_trace.json", 0.004, 4000},
                RunLatency{"b_trace.json", 0.005, 4900}};
  std::string json = toJson(diff);
  EXPECT_NE(json.find("\"delta_cycles\": 30"), std::string::npos) << json;
  auto read = parseRunsDiff(json);
  ASSERT_TRUE(read) << read.error;
  EXPECT_EQ(read.result.latencyA, diff.latencyA);
  EXPECT_EQ(read.result.latencyB, diff.latencyB);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(read.result.layers[i].aCycles, layers[i].aCycles) << i;
    EXPECT_EQ(read.result.layers[i].bCycles, layers[i].bCycles) << i;
  }
  std::string text = formatRunsDiff(diff);
  EXPECT_NE(text.find("simulated latency: 0.004 ms (4000 cycles) -> 0.005 ms (4900 cycles), +900 cycles"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("+30"), std::string::npos) << text; // conv: 130 - 100

  // A record written before cycles were compared reads with none.
  RunsDiff old{"a_manifest.json", "b_manifest.json", {}, "a.json", "b.json", diffRunLayers(a, b)};
  std::string oldJson = toJson(old);
  oldJson.erase(oldJson.find("  \"latency_a\""),
                oldJson.find("  \"layers\": [") - oldJson.find("  \"latency_a\""));
  auto oldRead = parseRunsDiff(oldJson);
  ASSERT_TRUE(oldRead) << oldRead.error << oldJson;
  EXPECT_FALSE(oldRead.result.latencyA);
  EXPECT_FALSE(oldRead.result.layers[1].aCycles);
  EXPECT_EQ(formatRunsDiff(oldRead.result).find("cycles"), std::string::npos);
}
