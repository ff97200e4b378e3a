//===- AccuracyTest.cpp - Statistics over samples and the first divergent layers ===//
//
// The aggregation against values worked out by hand (mean, minimum, numpy's 5th percentile, failing
// counts, worst samples), the first-divergent rule on a hand-made comparison table, the producer graph of a
// Top module, and deploy --compare_all over a folder of samples through driver::deploy: the records it
// writes, --test_num, a data list subset, a bad sample, a cancellation between samples, and --find_divergent
// naming a layer whose calibration threshold was cut to a tenth.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Driver/Accuracy.h"
#include "tpuc/Driver/AccuracyRecords.h"
#include "tpuc/Driver/Driver.h"
#include "tpuc/Driver/Manifest.h"
#include "tpuc/Driver/TopModule.h"
#include "tpuc/Support/Npz.h"

#include "TinyTopModule.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace tpuc;
using namespace tpuc::driver;
namespace fs = std::filesystem;

namespace {

std::string readText(const fs::path &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

SampleResult sample(const std::string &name, double outputCosine, bool pass = true) {
  SampleResult s;
  s.name = name;
  s.files = {name};
  s.outputCosine = outputCosine;
  s.pass = pass;
  return s;
}

LayerObservation layer(const std::string &name, double accCos, double accEuc, bool accPass,
                       std::optional<LayerMetric> isolated = std::nullopt) {
  return {name, {accCos, accEuc, accPass}, isolated};
}

} // namespace

TEST(AccuracyStats, PercentileInterpolatesBetweenRanksAsNumpy) {
  std::vector<double> ramp;
  for (int i = 1; i <= 21; ++i)
    ramp.push_back(i);
  EXPECT_DOUBLE_EQ(percentile(ramp, 5), 2.0); // rank 0.05 * 20 = 1
  EXPECT_DOUBLE_EQ(percentile(ramp, 0), 1.0);
  EXPECT_DOUBLE_EQ(percentile(ramp, 100), 21.0);
  // numpy.percentile([0.5, 0.9, 0.7, 1.0], 5) = 0.53: rank 0.15 between 0.5 and 0.7.
  EXPECT_NEAR(percentile({0.5, 0.9, 0.7, 1.0}, 5), 0.53, 1e-12);
  EXPECT_DOUBLE_EQ(percentile({0.25}, 5), 0.25);
  EXPECT_TRUE(std::isnan(percentile({}, 5)));
  // NaN is the lowest similarity: it sorts first.
  EXPECT_TRUE(std::isnan(percentile({0.9, std::nan(""), 0.8}, 0)));
  EXPECT_DOUBLE_EQ(percentile({0.9, std::nan(""), 0.8}, 100), 0.9);
}

TEST(AccuracyStats, AggregatorFoldsSamplesIntoKnownStatistics) {
  SampleAggregator a;
  // Layer "c": accumulated cosines 0.99, 0.95, 0.97 -> mean 0.97, min 0.95 (sample 1), p5 = 0.95 + 0.1 *
  // 0.02 = 0.952; euclidean 0.9, 0.8, 0.7 -> mean 0.8, min 0.7, p5 0.71. Isolated only on samples 0 and 2.
  a.add(sample("s0", 0.999),
        {layer("in", 1, 1, true), layer("c", 0.99, 0.9, true, LayerMetric{0.999, 0.95, true})});
  a.add(sample("s1", 0.9, false), {layer("in", 1, 1, true), layer("c", 0.95, 0.8, false)});
  a.add(sample("s2", 0.98),
        {layer("in", 1, 1, true), layer("c", 0.97, 0.7, true, LayerMetric{0.996, 0.93, false}),
         layer("late", 0.5, 0.4, false)});
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a.samples()[2].index, 2);
  EXPECT_EQ(a.worstSample(), 1);
  EXPECT_EQ(a.failingSamples(), 1);
  std::vector<LayerStats> layers = a.layers();
  ASSERT_EQ(layers.size(), 3u);
  EXPECT_EQ(layers[0].name, "in");
  EXPECT_EQ(layers[2].name, "late"); // first seen in a later sample: after the known ones
  const MetricStats &acc = layers[1].accumulated;
  EXPECT_EQ(acc.samples, 3);
  EXPECT_NEAR(acc.meanCosine, 0.97, 1e-12);
  EXPECT_DOUBLE_EQ(acc.minCosine, 0.95);
  EXPECT_NEAR(acc.p5Cosine, 0.952, 1e-12);
  EXPECT_NEAR(acc.meanEuclidean, 0.8, 1e-12);
  EXPECT_DOUBLE_EQ(acc.minEuclidean, 0.7);
  EXPECT_NEAR(acc.p5Euclidean, 0.71, 1e-12);
  EXPECT_EQ(acc.failingSamples, 1);
  EXPECT_EQ(acc.worstSample, 1);
  EXPECT_EQ(acc.worstSampleName, "s1");
  ASSERT_TRUE(layers[1].isolated.has_value());
  EXPECT_EQ(layers[1].isolated->samples, 2);
  EXPECT_NEAR(layers[1].isolated->meanCosine, 0.9975, 1e-12);
  EXPECT_EQ(layers[1].isolated->worstSample, 2);
  EXPECT_EQ(layers[1].isolated->failingSamples, 1);
  EXPECT_FALSE(layers[0].isolated.has_value());
  EXPECT_EQ(layers[2].accumulated.samples, 1);
  EXPECT_EQ(layers[2].accumulated.worstSampleName, "s2");
  // Two doubles per layer, mode and sample: 3 + 3 + 2 + 1 observations.
  EXPECT_EQ(a.valuesHeld(), 2u * 9u);
}

TEST(AccuracyStats, HeadroomIsTheSmallerRoomToTheTolerance) {
  CompareTolerance tol;
  tol.cosine = 0.9;
  tol.euclidean = 0.8;
  MetricStats s;
  s.p5Cosine = 0.95;   // (0.95 - 0.9) / 0.1 = 0.5
  s.p5Euclidean = 0.7; // (0.7 - 0.8) / 0.2 = -0.5
  EXPECT_NEAR(headroom(s, tol), -0.5, 1e-12);
  EXPECT_FALSE(statsPass(s, tol));
  s.p5Euclidean = 0.9;
  EXPECT_NEAR(headroom(s, tol), 0.5, 1e-12);
  EXPECT_TRUE(statsPass(s, tol));
}

namespace {

MetricStats p5(double cosine, double euclidean) {
  MetricStats s;
  s.samples = 1;
  s.meanCosine = s.minCosine = s.p5Cosine = cosine;
  s.meanEuclidean = s.minEuclidean = s.p5Euclidean = euclidean;
  return s;
}

LayerStats row(const std::string &name, MetricStats acc, std::optional<MetricStats> iso) {
  return {name, acc, iso};
}

} // namespace

TEST(FirstDivergentRule, NamesLayersThatBreakWhileTheirInputsPass) {
  // in -> a -> b -> c -> e;  a -> d -> e;  x (not compared) -> f.  Tolerance cos 0.9, euc 0.8.
  TensorGraph g;
  g.ops = {"a", "b", "c", "d", "e", "f"};
  g.producers = {{"a", {"in"}}, {"b", {"a"}}, {"c", {"b"}}, {"d", {"a"}}, {"e", {"c", "d"}}, {"f", {"x"}}};
  CompareTolerance tol;
  tol.cosine = 0.9;
  tol.euclidean = 0.8;
  std::vector<LayerStats> layers = {
      row("in", p5(1, 1), p5(1, 1)),            // a graph input: never a candidate
      row("a", p5(0.99, 0.95), p5(0.99, 0.95)), // passes
      row("b", p5(0.7, 0.5), p5(0.85, 0.82)),   // isolated cos breaks, input a passes: candidate
      row("c", p5(0.6, 0.4), p5(0.5, 0.3)),     // breaks, but its input b fails accumulated
      row("d", p5(0.95, 0.79), p5(0.95, 0.79)), // isolated euc breaks (just), input a passes: candidate
      row("e", p5(0.5, 0.3), p5(0.6, 0.5)),     // breaks, input c fails
      row("f", p5(0.2, 0.1), p5(0.2, 0.1)),     // breaks, its input was not compared: candidate
      row("g", p5(0.2, 0.1), std::nullopt),     // no isolated run: not judged
  };
  std::vector<size_t> found = firstDivergentLayers(layers, g, tol);
  // Smallest headroom first: f (cos (0.2-0.9)/0.1 = -7), b (cos -0.5), d (euc -0.05).
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(layers[found[0]].name, "f");
  EXPECT_EQ(layers[found[1]].name, "b");
  EXPECT_EQ(layers[found[2]].name, "d");
}

TEST(FirstDivergentRule, HeadroomRuleRanksEveryLayerWhoseInputsPass) {
  // in -> a -> b -> c: nothing breaks on its own (isolated), yet c fails accumulated (the error builds up).
  TensorGraph g;
  g.ops = {"a", "b", "c"};
  g.producers = {{"a", {"in"}}, {"b", {"a"}}, {"c", {"b"}}};
  CompareTolerance tol;
  tol.cosine = 0.9;
  tol.euclidean = 0.8;
  std::vector<LayerStats> layers = {
      row("in", p5(1, 1), p5(1, 1)),
      row("a", p5(0.99, 0.95), p5(0.99, 0.95)), // headroom min(0.9, 0.75) = 0.75
      row("b", p5(0.95, 0.85), p5(0.97, 0.84)), // headroom min(0.7, 0.2) = 0.2
      row("c", p5(0.85, 0.7), p5(0.98, 0.9)),   // headroom 0.5; its input b passes accumulated
  };
  EXPECT_TRUE(firstDivergentLayers(layers, g, tol, DivergenceRule::Isolated).empty());
  std::vector<size_t> found = firstDivergentLayers(layers, g, tol, DivergenceRule::Headroom);
  std::vector<std::string> names;
  for (size_t i : found)
    names.push_back(layers[i].name);
  EXPECT_EQ(names, (std::vector<std::string>{"b", "c", "a"}));
  // A layer whose input fails accumulated is not a first layer under either rule.
  layers[2].accumulated = p5(0.5, 0.5);
  found = firstDivergentLayers(layers, g, tol, DivergenceRule::Headroom);
  EXPECT_EQ(found, (std::vector<size_t>{2, 1})); // b (0.2), a (0.75); c's input b now fails
}

TEST(FirstDivergentRule, NothingBreaksNothingNamed) {
  TensorGraph g;
  g.ops = {"a"};
  g.producers = {{"a", {"in"}}};
  CompareTolerance tol;
  tol.cosine = 0.9;
  tol.euclidean = 0.8;
  EXPECT_TRUE(firstDivergentLayers({row("a", p5(0.5, 0.5), p5(0.95, 0.9))}, g, tol).empty());
}

TEST(FirstDivergentRule, GraphOfATopModule) {
  mlir::MLIRContext context;
  fs::path dir = fs::temp_directory_path() / "tpuc_accuracy_graph";
  fs::create_directories(dir);
  std::ofstream(dir / "tiny.mlir") << tpuc::testing::kTinyTopModule;
  auto top = tpuc::cli::loadTopModule(context, (dir / "tiny.mlir").string());
  ASSERT_TRUE(bool(top)) << llvm::toString(top.takeError());
  TensorGraph g = tensorGraph(**top);
  EXPECT_EQ(g.ops, (std::set<std::string>{"a", "r"}));
  EXPECT_EQ(g.producers["a"], std::vector<std::string>{"x"}); // add(x, x): x once
  EXPECT_EQ(g.producers["r"], std::vector<std::string>{"a"});
  EXPECT_EQ(g.consumers["x"], std::vector<std::string>{"a"});
  EXPECT_EQ(g.consumers["a"], std::vector<std::string>{"r"});
  fs::remove_all(dir);
}

namespace {

/// The tiny module deployed over a folder of five samples (sample i: x = [v, -v/2, v/4, 0], v = i + 1).
class DeploySamplesTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("tpuc_accuracy_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir);
    fs::create_directories(dir / "samples");
    std::ofstream(dir / "tiny.mlir") << tpuc::testing::kTinyTopModule;
    for (int i = 0; i < 5; ++i) {
      float v = float(i + 1);
      NpzFile input;
      input.set("x", Tensor::fromValues<float>({1, 4}, std::vector<float>{v, -v / 2, v / 4, 0.0f}));
      input.write((dir / "samples" / ("s" + std::to_string(i) + ".npz")).string());
    }
    options.mlir = (dir / "tiny.mlir").string();
    options.quantize = "F32";
    options.chip = std::string(kDefaultChip);
    options.testInput = {(dir / "samples").string()};
    options.compareAll = true;
    options.tpuMlir = (dir / "tiny_tpu.mlir").string();
  }
  void TearDown() override { fs::remove_all(dir); }

  CompareSamplesRecord samplesRecord() {
    ReadResult<CompareSamplesRecord> r = parseCompareSamples(readText(compareSamplesPath(options)));
    EXPECT_TRUE(r) << r.error;
    return r.result;
  }

  fs::path dir;
  DeployOptions options;
};

} // namespace

TEST_F(DeploySamplesTest, FolderOfSamplesWritesStatisticsAndTheWorstSample) {
  std::vector<std::string> messages;
  Sink sink;
  sink.progress = [&](const ProgressEvent &e) { messages.push_back(e.message); };
  auto report = deploy(options, sink);
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  EXPECT_EQ(report->exitCode, kExitOk) << (report->messages.empty() ? "" : report->messages.front());
  CompareSamplesRecord r = samplesRecord();
  EXPECT_EQ(r.quantize, "F32");
  EXPECT_EQ(r.testInput, options.testInput.front());
  ASSERT_EQ(r.samples.size(), 5u);
  EXPECT_EQ(r.failingSamples, 0);
  EXPECT_EQ(r.samples[0].files, std::vector<std::string>{(dir / "samples" / "s0.npz").string()});
  ASSERT_EQ(r.samples[0].outputs.size(), 1u);
  EXPECT_EQ(r.samples[0].outputs[0].name, "r");
  std::vector<std::string> names;
  for (const LayerStats &l : r.layers)
    names.push_back(l.name);
  EXPECT_EQ(names, (std::vector<std::string>{"x", "a", "r"}));
  EXPECT_EQ(r.layers[1].accumulated.samples, 5);
  EXPECT_DOUBLE_EQ(r.layers[1].accumulated.minCosine, 1.0); // F32 is exact
  ASSERT_TRUE(r.layers[1].isolated.has_value());
  // The single-sample files hold the worst sample's layers; the record lists every file written.
  EXPECT_TRUE(fs::exists(deployArtifactStem(options) + "_compare.json"));
  EXPECT_TRUE(fs::exists(deployArtifactStem(options) + "_compare.csv"));
  EXPECT_NE(std::find(report->record.artifacts.begin(), report->record.artifacts.end(),
                      compareSamplesPath(options)),
            report->record.artifacts.end());
  EXPECT_NE(std::find(messages.begin(), messages.end(),
                      "sample 5/5: " + (dir / "samples" / "s4.npz").string() + ": output cos 1.000000"),
            messages.end());
  // The run manifest: the samples as one input (five files), the records beside it.
  ReadResult<RunManifest> manifest = parseManifest(readText(deployManifestPath(options)));
  ASSERT_TRUE(manifest) << manifest.error;
  auto samples = std::find_if(manifest.result.inputs.begin(), manifest.result.inputs.end(),
                              [](const ManifestInput &in) { return in.role == "test_samples"; });
  ASSERT_NE(samples, manifest.result.inputs.end());
  EXPECT_EQ(samples->files, 5);
  EXPECT_EQ(samples->path, options.testInput.front());
  EXPECT_EQ(manifest.result.compareSamples, fs::path(compareSamplesPath(options)).filename().string());
  EXPECT_EQ(manifest.result.firstDivergent, "");
}

TEST_F(DeploySamplesTest, TestNumAndADataListSubsetPickSamples) {
  options.testNum = 2;
  auto report = deploy(options, {});
  ASSERT_TRUE(bool(report));
  EXPECT_EQ(report->exitCode, kExitOk);
  EXPECT_EQ(samplesRecord().samples.size(), 2u);
  // A data list as the subset of the folder: its lines, in its order.
  std::ofstream(dir / "pick.txt") << "# two of them\nsamples/s3.npz\nsamples/s1.npz\n";
  options.testNum = 0;
  options.testSubset = (dir / "pick.txt").string();
  report = deploy(options, {});
  ASSERT_TRUE(bool(report));
  EXPECT_EQ(report->exitCode, kExitOk) << (report->messages.empty() ? "" : report->messages.front());
  CompareSamplesRecord r = samplesRecord();
  ASSERT_EQ(r.samples.size(), 2u);
  EXPECT_NE(r.samples[0].name.find("s3.npz"), std::string::npos);
  EXPECT_EQ(r.testSubset, options.testSubset);
}

TEST_F(DeploySamplesTest, UnreadableSampleIsBadInputNamingTheFile) {
  std::ofstream(dir / "samples" / "s2.npz") << "not an npz";
  auto report = deploy(options, {});
  ASSERT_TRUE(bool(report));
  EXPECT_EQ(report->exitCode, kExitUsage);
  ASSERT_EQ(report->messages.size(), 1u);
  EXPECT_NE(report->messages[0].find("s2.npz"), std::string::npos) << report->messages[0];
  EXPECT_EQ(report->messages[0].find('\n'), std::string::npos);
}

TEST_F(DeploySamplesTest, ManySamplesNeedCompareAllAndNoRecordedReference) {
  options.compareAll = false;
  auto report = deploy(options, {});
  ASSERT_TRUE(bool(report));
  EXPECT_EQ(report->exitCode, kExitUsage);
  EXPECT_NE(report->record.message.find("--compare_all"), std::string::npos) << report->record.message;
}

TEST_F(DeploySamplesTest, CancelledBetweenSamples) {
  int samplesDone = 0;
  Sink sink;
  sink.progress = [&](const ProgressEvent &e) { samplesDone += e.message.rfind("sample ", 0) == 0; };
  sink.cancelled = [&] { return samplesDone >= 2; };
  auto report = deploy(options, sink);
  ASSERT_FALSE(bool(report));
  EXPECT_EQ(llvm::toString(report.takeError()), "deploy cancelled after 2/5 samples");
  EXPECT_FALSE(fs::exists(compareSamplesPath(options)));
}

TEST_F(DeploySamplesTest, FindDivergentNamesTheLayerWithABadThreshold) {
  // INT8 with a's threshold cut to a tenth of its range (12): a clips, its input x is exact, so a breaks
  // first. Keeping a alone in float does not undo the clipping (relu reads a through a's INT8 scale);
  // keeping relu in float too does.
  std::ofstream(dir / "cali") << "x 5.0 -2.5 5.0\na 1.2 -5.0 10.0\nr 10.0 0.0 10.0\n";
  options.quantize = "INT8";
  options.calibrationTable = (dir / "cali").string();
  options.tolerance = "0.99,0.9";
  options.findDivergent = true;
  options.divergentSamples = 2;
  std::string printed;
  Sink sink;
  sink.print = [&](std::string_view text, bool) { printed += text; };
  auto report = deploy(options, sink);
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  EXPECT_EQ(report->exitCode, kExitFailed); // the clipped layers fail the tolerance
  ReadResult<FirstDivergentRecord> r = parseFirstDivergent(readText(firstDivergentPath(options)));
  ASSERT_TRUE(r) << r.error;
  ASSERT_FALSE(r.result.candidates.empty());
  const DivergentCandidate &first = r.result.candidates.front();
  EXPECT_EQ(first.name, "a");
  EXPECT_EQ(r.result.rule, "isolated");
  EXPECT_EQ(r.result.candidates.size(), 1u); // r breaks too, but its input a fails
  ASSERT_EQ(first.inputs.size(), 1u);
  EXPECT_EQ(first.inputs[0].name, "x");
  EXPECT_EQ(first.consumers, std::vector<std::string>{"r"});
  EXPECT_TRUE(first.measured);
  EXPECT_EQ(r.result.floatMode, "F16");
  EXPECT_EQ(r.result.gainSamples.size(), 2u);
  EXPECT_LT(r.result.baselineOutputCosine, 0.99);
  EXPECT_LT(first.gain, 0.01);
  EXPECT_GT(first.outputGain, 0.05);
  EXPECT_GT(first.outputFloatCosine, 0.999);
  EXPECT_DOUBLE_EQ(first.score, first.outputGain);
  EXPECT_NE(printed.find("1. a"), std::string::npos) << printed;
}
