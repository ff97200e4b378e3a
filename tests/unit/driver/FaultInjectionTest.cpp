//===- FaultInjectionTest.cpp - The first-divergent debugger against planted faults ===//
//
// Random small CNNs (FaultInjection.h), each calibrated (kl) on 8 random samples and deployed INT8 with the
// debugger evaluating 4 others; in each, faults of both kinds planted in random ops. The debugger must name
// the faulty op or a direct neighbour first in at least 95 % of the trials where the fault is visible at
// the tolerance; the rate is printed. TPU-MLIR's INT8 tolerance for layers of a healthy deployment: cos
// 0.99, euc 0.90 (the resnet18 lit test's). TPUC_FAULT_GRAPHS sets the number of graphs (default 40: the
// representative subset CI runs; docs/ACCURACY.md records longer runs), TPUC_FAULT_TRIALS the trials per
// kind and graph (4), TPUC_FAULT_SEED the seed of the first graph (1000).
//
//===----------------------------------------------------------------------===//

#include "FaultInjection.h"

#include "tpuc/Driver/Calibration.h"
#include "tpuc/Driver/Driver.h"
#include "tpuc/Testing/TestAssets.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

using namespace tpuc;
using namespace tpuc::testing::fault;
namespace fs = std::filesystem;

namespace {

int envInt(const char *name, int fallback) {
  const char *value = std::getenv(name);
  return value && *value ? std::atoi(value) : fallback;
}

} // namespace

TEST(FaultInjection, RandomGraphsNameTheFaultyOpOrANeighbour) {
  const int graphs = envInt("TPUC_FAULT_GRAPHS", 40);
  const int trialsPerKind = envInt("TPUC_FAULT_TRIALS", 4);
  const int seed = envInt("TPUC_FAULT_SEED", 1000);
  testsupport::TempDir dir("tpuc-fault");
  Tally total, byKind[2];
  for (int g = 0; g < graphs; ++g) {
    std::mt19937 rng(static_cast<unsigned>(seed + g));
    std::string name = "g" + std::to_string(g);
    std::string mlir = writeRandomGraph(rng, dir.path(), name, 12);
    std::string samples = dir.file(name + "_samples");
    // Calibrate on the first 8 samples (sorted), evaluate on the other 4.
    driver::CalibrateOptions calibrate;
    calibrate.mlirFile = mlir;
    calibrate.dataset = samples;
    calibrate.inputNum = 8;
    calibrate.calibrationTable = dir.file(name + "_cali_table");
    calibrate.threads = 1;
    auto calibrated = driver::calibrate(calibrate, {});
    ASSERT_TRUE(bool(calibrated)) << llvm::toString(calibrated.takeError());
    ASSERT_EQ(calibrated->exitCode, driver::kExitOk) << name;
    Model model;
    model.name = name;
    model.mlir = mlir;
    model.table = calibrate.calibrationTable;
    for (int i = 8; i < 12; ++i) {
      char file[32];
      std::snprintf(file, sizeof(file), "/s%03d.npz", i);
      model.samples.push_back({{samples + file}, ""});
    }
    model.tolerance = *CompareTolerance::parse("0.99,0.90");
    auto injector = FaultInjector::create(model);
    ASSERT_TRUE(bool(injector)) << llvm::toString(injector.takeError());
    for (Kind kind : {Kind::Threshold, Kind::Shift})
      for (int t = 0; t < trialsPerKind; ++t) {
        auto trial = (*injector)->run(rng, kind);
        ASSERT_TRUE(bool(trial)) << name << ": " << llvm::toString(trial.takeError());
        std::printf("%s %-9s %s\n", name.c_str(), kindName(kind), trial->line().c_str());
        total.add(*trial);
        byKind[kind == Kind::Shift].add(*trial);
      }
  }
  std::printf("%s\n%s\n%s\n", byKind[0].line("threshold faults").c_str(),
              byKind[1].line("shift faults").c_str(), total.line("all faults").c_str());
  // Most faults must be visible, or the rate would say little.
  EXPECT_GE(total.counted(), graphs * trialsPerKind) << "fewer than half of the faults were visible";
  EXPECT_GE(total.rate(), 0.95) << total.line("all faults");
}
