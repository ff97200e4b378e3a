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
