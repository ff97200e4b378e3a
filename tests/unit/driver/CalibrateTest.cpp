//===- CalibrateTest.cpp - TpucDriver: calibrate as a library call ---------===//
//
// A tiny Top module calibrated through driver::calibrate on generated .npy samples: the report and the
// table it wrote, progress per sample, a cancellation that writes nothing, a bad sample's one-line error
// naming the file, and a named subset of the folder's dataset index.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Dataset/Scan.h"
#include "tpuc/Dataset/Subsets.h"
#include "tpuc/Driver/Calibration.h"
#include "tpuc/Driver/Driver.h"
#include "tpuc/Driver/SearchRecord.h"
#include "tpuc/Quant/Tables.h"
#include "tpuc/Support/Npz.h"

#include "TinyTopModule.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace tpuc;
using namespace tpuc::driver;
namespace fs = std::filesystem;

namespace {

class DriverCalibrateTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("tpuc_calibrate_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir);
    fs::create_directories(dir / "ds/a");
    fs::create_directories(dir / "ds/b");
    std::ofstream(dir / "tiny.mlir") << tpuc::testing::kTinyTopModule;
    // Sample i holds i+1 at most: the max threshold of x is the number of samples.
    for (int i = 0; i < 6; ++i) {
      float v = float(i + 1);
      writeNpy((dir / (i < 3 ? "ds/a" : "ds/b") / ("s" + std::to_string(i) + ".npy")).string(),
               Tensor::fromValues<float>({1, 4}, std::vector<float>{v, -v / 2, v / 4, 0.0f}));
    }
    options.mlirFile = (dir / "tiny.mlir").string();
    options.dataset = (dir / "ds").string();
    options.caliMethod = "max";
    options.calibrationTable = (dir / "table").string();
    options.threads = 2;
  }
  void TearDown() override { fs::remove_all(dir); }

  fs::path dir;
  CalibrateOptions options;
};

double threshold(const quant::CalibrationTable &table, const std::string &name) {
  for (const quant::CalibrationEntry &e : table.int8)
    if (e.name == name)
      return e.threshold;
  return -1;
}

TEST_F(DriverCalibrateTest, WritesTheTableAndReportsEverySample) {
  std::vector<std::string> messages;
  std::string printed;
  Sink sink;
  sink.progress = [&](const ProgressEvent &e) { messages.push_back(e.message); };
  sink.print = [&](std::string_view text, bool) { printed += text; };
  auto report = calibrate(options, sink);
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  EXPECT_EQ(report->exitCode, kExitOk);
  EXPECT_TRUE(report->messages.empty());
  EXPECT_EQ(report->numSamples, 6u);
  EXPECT_EQ(report->numTensors, 3u);
  EXPECT_EQ(report->summary, "max");
  EXPECT_EQ(report->artifacts,
            (std::vector<std::string>{options.calibrationTable, calibrateManifestPath(options)}));
  EXPECT_NE(std::find(messages.begin(), messages.end(), "sample 6/6"), messages.end());
  EXPECT_NE(printed.find("tpuc calibrate: 3 tensors over 6 sample(s), max"), std::string::npos) << printed;
  auto table = quant::readCalibrationTable(options.calibrationTable);
  EXPECT_DOUBLE_EQ(threshold(table, "x"), 6.0);
  EXPECT_DOUBLE_EQ(threshold(table, "r"), 12.0);
}

TEST_F(DriverCalibrateTest, CancellationStopsBeforeTheTable) {
  Sink sink;
  sink.cancelled = [] { return true; };
  auto report = calibrate(options, sink);
  ASSERT_FALSE(bool(report));
  EXPECT_EQ(llvm::toString(report.takeError()), "calibrate cancelled after 0/6 samples");
  EXPECT_FALSE(fs::exists(options.calibrationTable));
}

TEST_F(DriverCalibrateTest, SearchQtableRecordsEveryStepWithItsLatency) {
  // Target cosine 1: ops go into float one step each until the output is exact or 2 are in float.
  options.search = "search_qtable";
  options.expectedCos = 1.0;
  options.maxFloatLayers = 2;
  options.quantizeTable = (dir / "q.qtable").string();
  options.searchReport = (dir / "search.json").string();
  auto report = calibrate(options);
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  std::ifstream in(options.searchReport);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto record = parseSearchQtable(text);
  ASSERT_TRUE(record) << record.error;
  const std::vector<SearchStep> &steps = record.result.steps;
  ASSERT_GE(steps.size(), 2u) << text;
  EXPECT_EQ(steps.size(), std::min<size_t>(3, record.result.ranked.size() + 1));
  for (size_t k = 0; k < steps.size(); ++k) {
    EXPECT_EQ(steps[k].step, static_cast<int64_t>(k));
    EXPECT_EQ(steps[k].op, k ? record.result.ranked[k - 1].name : "");
    EXPECT_GT(steps[k].cycles, 0);
    EXPECT_GT(steps[k].latencyMs, 0);
  }
  // The search stops at the first step reaching the target (a float add and relu are exact here), and
  // says so in the record and the exit code.
  EXPECT_EQ(record.result.reached, steps.back().cosine >= 1.0);
  EXPECT_EQ(report->exitCode, record.result.reached ? kExitOk : kExitFailed);
  for (size_t k = 0; k + 1 < steps.size(); ++k)
    EXPECT_LT(steps[k].cosine, 1.0) << k;
  EXPECT_EQ(record.result.floatMode, "F16");
}

TEST_F(DriverCalibrateTest, SearchQtableCancelledAfterTheInt8StepWritesNoRecord) {
  options.search = "search_qtable";
  options.expectedCos = 1.0;
  options.quantizeTable = (dir / "q.qtable").string();
  options.searchReport = (dir / "search.json").string();
  bool int8Measured = false;
  Sink sink;
  sink.progress = [&](const ProgressEvent &e) { int8Measured |= e.message.rfind("INT8: cos", 0) == 0; };
  sink.cancelled = [&] { return int8Measured; };
  auto report = calibrate(options, sink);
  ASSERT_FALSE(bool(report));
  EXPECT_EQ(llvm::toString(report.takeError()), "search_qtable cancelled");
  EXPECT_TRUE(int8Measured);
  EXPECT_FALSE(fs::exists(options.searchReport));
  EXPECT_FALSE(fs::exists(options.quantizeTable));
}

TEST_F(DriverCalibrateTest, ABadSampleIsOneLineNamingTheFile) {
  writeNpy((dir / "ds/b/wrong.npy").string(), Tensor::fromValues<float>({3}, std::vector<float>{1, 2, 3}));
  auto report = calibrate(options);
  ASSERT_TRUE(bool(report));
  EXPECT_EQ(report->exitCode, kExitUsage);
  ASSERT_EQ(report->messages.size(), 1u);
  EXPECT_NE(report->messages[0].find("ds/b/wrong.npy"), std::string::npos) << report->messages[0];
  EXPECT_FALSE(fs::exists(options.calibrationTable));
}

TEST_F(DriverCalibrateTest, NamedSubsetOfTheDatasetIndex) {
  dataset::ScanOptions scan;
  scan.threads = 1;
  auto scanned = dataset::scanDataset(options.dataset, scan);
  ASSERT_TRUE(bool(scanned)) << llvm::toString(scanned.takeError());
  auto first = dataset::makeSubset(scanned->index, {"first2", "first", 2, 0, {}});
  ASSERT_TRUE(bool(first));
  scanned->index.putSubset(*first);
  ASSERT_FALSE(bool(dataset::writeIndex(scanned->index, dataset::defaultIndexPath(options.dataset))));
  options.subset = "first2";
  auto report = calibrate(options);
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  ASSERT_EQ(report->exitCode, kExitOk) << report->messages.front();
  EXPECT_EQ(report->numSamples, 2u);
  // The first two files by path are s0 and s1: x's max is 2.
  EXPECT_DOUBLE_EQ(threshold(quant::readCalibrationTable(options.calibrationTable), "x"), 2.0);
  options.subset = "nothere";
  auto missing = calibrate(options);
  ASSERT_TRUE(bool(missing));
  EXPECT_EQ(missing->exitCode, kExitUsage);
  EXPECT_NE(missing->messages.at(0).find("no subset 'nothere' (it has first2)"), std::string::npos)
      << missing->messages.at(0);
}

TEST_F(DriverCalibrateTest, ReportFollowsTheThresholdsAsSamplesAreAdded) {
  // Eight samples whose maxima are 1, 2, 3, 4, 4, 4, 4, 4: the max threshold of x settles after 4 samples,
  // with half the samples left to confirm it.
  fs::remove_all(dir / "ds");
  fs::create_directories(dir / "ds");
  const float maxima[] = {1, 2, 3, 4, 4, 4, 4, 4};
  for (int i = 0; i < 8; ++i)
    writeNpy((dir / "ds" / ("s" + std::to_string(i) + ".npy")).string(),
             Tensor::fromValues<float>({1, 4}, std::vector<float>{maxima[i], -0.5f, 0.25f, 0.0f}));
  options.report = (dir / "report").string();
  std::string printed;
  Sink sink;
  sink.print = [&](std::string_view text, bool) { printed += text; };
  auto report = calibrate(options, sink);
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  ASSERT_EQ(report->exitCode, kExitOk) << report->messages.front();
  EXPECT_EQ(report->stableAfter, 4u);
  EXPECT_TRUE(report->enoughData);
  EXPECT_NE(
      printed.find("every max threshold within 1 % of its final value after 4 of 8 samples: enough data"),
      std::string::npos)
      << printed;
  EXPECT_EQ(report->artifacts.size(), 4u); // the table, its manifest, histograms.json, convergence.json
  EXPECT_EQ(convergenceCheckpoints(8), (std::vector<size_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(convergenceCheckpoints(100).size(), 16u + 21u); // 1..16, then 20, 24, ..., 100 (every 4)
  // The JSON holds the same answer, per tensor.
  std::ifstream in(dir / "report/convergence.json");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("\"stable_after\": 4"), std::string::npos);
  EXPECT_NE(text.find("\"enough_data\": true"), std::string::npos);
  std::ifstream hin(dir / "report/histograms.json");
  std::string histograms((std::istreambuf_iterator<char>(hin)), {});
  for (const char *method : {"kl", "mse", "max", "percentile9999", "aciq_gauss", "aciq_laplace"})
    EXPECT_NE(histograms.find("\"" + std::string(method) + "\":"), std::string::npos) << method;
  // The thresholds run 1, 2, 3, 4, 4, ... for x: the same table as without --report.
  auto withReport = quant::readCalibrationTable(options.calibrationTable);
  options.report.clear();
  ASSERT_TRUE(bool(calibrate(options)));
  EXPECT_EQ(quant::readCalibrationTable(options.calibrationTable).int8, withReport.int8);
}

TEST(Convergence, StableAfterIsTheFirstCheckpointThatStaysWithinTolerance) {
  Convergence c;
  c.samples = {1, 2, 4, 8, 16};
  c.names = {"a", "b"};
  c.thresholds = {{1.0, 5.0, 9.95, 10.05, 10.0}, {3.0, 3.0, 3.0, 3.0, 6.0}};
  EXPECT_EQ(c.stableAfter(), (std::vector<size_t>{4, 16}));
  EXPECT_EQ(c.stableAfterAll(), 16u);
  EXPECT_FALSE(c.enoughData());
  c.thresholds[1].back() = 3.0;
  EXPECT_EQ(c.stableAfterAll(), 4u);
  EXPECT_TRUE(c.enoughData());
}

} // namespace
