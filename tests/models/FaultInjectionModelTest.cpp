//===- FaultInjectionModelTest.cpp - The first-divergent debugger on resnet18 with planted faults ===//
//
// resnet18 (assets) imported by `tpuc transform`, calibrated (kl) on the photos but four, deployed INT8;
// the debugger evaluates those four photos. Faults of both kinds (tests/unit/driver/FaultInjection.h) are
// planted in random ops: the debugger must name the faulty op or a direct neighbour first in at least 95 %
// of the trials where the fault is visible at the tolerance (cos 0.99, euc 0.90: the resnet18 lit test's,
// which the clean deployment passes in every layer). TPUC_FAULT_TRIALS sets the trials per kind (default 10).
//
//===----------------------------------------------------------------------===//

#include "FaultInjection.h"

#include "tpuc/Driver/Calibration.h"
#include "tpuc/Driver/Driver.h"
#include "tpuc/Testing/TestAssets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

using namespace tpuc;
using namespace tpuc::testing::fault;
namespace fs = std::filesystem;

TEST(FaultInjectionModel, Resnet18NamesTheFaultyOpOrANeighbour) {
  std::string assets = testsupport::assetsDir();
  std::string onnx = assets + "/models/resnet18.onnx";
  if (!fs::exists(onnx) || !fs::exists(assets + "/images/dog.jpg"))
    GTEST_FAIL() << "missing " << onnx << " or the photos: " << testsupport::kFetchHint;
  const char *env = std::getenv("TPUC_FAULT_TRIALS");
  const int trialsPerKind = env && *env ? std::atoi(env) : 10;
  testsupport::TempDir dir("tpuc-fault-r18");
  std::string mlir = dir.file("resnet18.mlir");
  std::string transform = std::string(TPUC_EXE) + " transform --model_name resnet18 --model_def " + onnx +
                          " --input_shapes [[1,3,224,224]] --mean 123.675,116.28,103.53 --scale "
                          "0.0171,0.0175,0.0174 --pixel_format rgb --mlir " +
                          mlir + " > /dev/null";
  ASSERT_EQ(std::system(transform.c_str()), 0) << transform;

  const std::set<std::string> held = {"dog.jpg", "kite.jpg", "eagle.jpg", "person.jpg"};
  std::ofstream list(dir.file("photos.txt"));
  Model model;
  for (const std::string &photo : testsupport::assetPhotos(assets)) {
    if (held.count(fs::path(photo).filename().string()))
      model.samples.push_back({{photo}, ""});
    else
      list << photo << "\n";
  }
  list.close();
  std::sort(model.samples.begin(), model.samples.end(),
            [](const auto &a, const auto &b) { return a.files < b.files; });
  ASSERT_EQ(model.samples.size(), held.size());
  driver::CalibrateOptions calibrate;
  calibrate.mlirFile = mlir;
  calibrate.dataList = dir.file("photos.txt");
  calibrate.calibrationTable = dir.file("resnet18_cali_table");
  auto calibrated = driver::calibrate(calibrate, {});
  ASSERT_TRUE(bool(calibrated)) << llvm::toString(calibrated.takeError());
  ASSERT_EQ(calibrated->exitCode, driver::kExitOk)
      << (calibrated->messages.empty() ? std::string() : calibrated->messages.back());

  model.name = "resnet18";
  model.mlir = mlir;
  model.table = calibrate.calibrationTable;
  model.tolerance = *CompareTolerance::parse("0.99,0.90");
  auto injector = FaultInjector::create(model);
  ASSERT_TRUE(bool(injector)) << llvm::toString(injector.takeError());
  std::mt19937 rng(18);
  Tally total, byKind[2];
  for (Kind kind : {Kind::Threshold, Kind::Shift})
    for (int t = 0; t < trialsPerKind; ++t) {
      auto trial = (*injector)->run(rng, kind);
      ASSERT_TRUE(bool(trial)) << llvm::toString(trial.takeError());
      std::printf("resnet18 %-9s %s\n", kindName(kind), trial->line().c_str());
      std::fflush(stdout);
      total.add(*trial);
      byKind[kind == Kind::Shift].add(*trial);
    }
  std::printf("%s\n%s\n%s\n", byKind[0].line("resnet18 threshold faults").c_str(),
              byKind[1].line("resnet18 shift faults").c_str(), total.line("resnet18 all faults").c_str());
  EXPECT_GE(total.counted(), trialsPerKind) << "fewer than half of the faults were visible";
  EXPECT_GE(total.rate(), 0.95) << total.line("resnet18");
}
