//===- DriverTest.cpp - TpucDriver: deploy as a library call --------------===//
//
// A tiny Top module deployed through driver::deploy: a passing report with its artifacts and record, a
// failure's status and one-line message, and a cancellation that stops before any record is written.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Driver/Driver.h"
#include "tpuc/Support/Npz.h"

#include "TinyTopModule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace tpuc;
using namespace tpuc::driver;
namespace fs = std::filesystem;

namespace {

class DriverDeployTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("tpuc_driver_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "tiny.mlir") << tpuc::testing::kTinyTopModule;
    NpzFile input;
    input.set("x", Tensor::fromValues<float>({1, 4}, std::vector<float>{1.0f, -2.0f, 3.0f, -0.5f}));
    input.write((dir / "tiny_in.npz").string());
    options.mlir = (dir / "tiny.mlir").string();
    options.quantize = "F32";
    options.chip = std::string(kDefaultChip);
    options.testInput = {(dir / "tiny_in.npz").string()};
    options.tpuMlir = (dir / "tiny_tpu.mlir").string();
  }
  void TearDown() override { fs::remove_all(dir); }

  fs::path dir;
  DeployOptions options;
};

bool contains(const std::vector<std::string> &list, const std::string &item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

TEST_F(DriverDeployTest, PassingDeployReportsArtifactsAndWritesTheRecord) {
  std::vector<std::string> stages;
  std::string printed;
  Sink sink;
  sink.progress = [&](const ProgressEvent &e) { stages.push_back(e.stage); };
  sink.print = [&](std::string_view text, bool) { printed += text; };
  auto report = deploy(options, sink);
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  EXPECT_EQ(report->exitCode, kExitOk);
  EXPECT_TRUE(report->messages.empty());
  EXPECT_EQ(report->record.status, "passed");
  EXPECT_EQ(report->record.exitCode, kExitOk);
  EXPECT_EQ(report->record.firstFailing, "");
  EXPECT_TRUE(contains(report->record.artifacts, options.tpuMlir));
  EXPECT_TRUE(contains(report->record.artifacts, (dir / "tiny_tpu_weight.npz").string()));
  EXPECT_TRUE(contains(report->record.artifacts, deployArtifactStem(options) + "_tpu_outputs.npz"));
  for (const std::string &artifact : report->record.artifacts)
    EXPECT_TRUE(fs::exists(artifact)) << artifact;
  ASSERT_EQ(report->record.outputs.size(), 1u);
  EXPECT_EQ(report->record.outputs[0].name, "r");
  EXPECT_TRUE(report->record.outputs[0].pass);
  EXPECT_TRUE(fs::exists(deployResultPath(options)));
  EXPECT_TRUE(contains(stages, "lower"));
  EXPECT_TRUE(contains(stages, "compare"));
  EXPECT_NE(printed.find("r"), std::string::npos); // the outputs table tpuc prints
}

TEST_F(DriverDeployTest, BadCalibrationTableFailsWithOneLine) {
  options.quantize = "INT8";
  options.calibrationTable = (dir / "nothere_cali_table").string();
  auto report = deploy(options, {});
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  EXPECT_EQ(report->exitCode, kExitFailed);
  EXPECT_EQ(report->record.status, "failed");
  ASSERT_EQ(report->messages.size(), 1u);
  EXPECT_EQ(report->messages[0], report->record.message);
  EXPECT_FALSE(report->record.message.empty());
  EXPECT_EQ(report->record.message.find('\n'), std::string::npos) << report->record.message;
  EXPECT_NE(report->record.message.find("nothere_cali_table"), std::string::npos) << report->record.message;
}

TEST_F(DriverDeployTest, CancelledDeployStopsWithoutARecord) {
  Sink sink;
  sink.cancelled = [] { return true; };
  auto report = deploy(options, sink);
  ASSERT_FALSE(bool(report));
  EXPECT_NE(llvm::toString(report.takeError()).find("cancelled"), std::string::npos);
  EXPECT_FALSE(fs::exists(deployResultPath(options)));
  EXPECT_FALSE(fs::exists(options.tpuMlir));
}

TEST_F(DriverDeployTest, CancelledAfterLoweringWritesNoRecord) {
  int polls = 0;
  Sink sink;
  sink.cancelled = [&] { return ++polls > 1; }; // lets lowering run, stops before the simulation
  auto report = deploy(options, sink);
  ASSERT_FALSE(bool(report));
  EXPECT_EQ(llvm::toString(report.takeError()), "deploy cancelled before the simulate stage");
  EXPECT_FALSE(fs::exists(deployResultPath(options)));
}

} // namespace
