//===- CompareSamplesBench.cpp - deploy --compare_all over many samples: time and peak memory ===//
//
// Issue 22 asks that evaluating N samples keeps memory bounded: samples stream through the simulators and
// only their metrics stay. This runs the real command, `tpuc deploy --quantize INT8 --compare_all
// --test_input LIST`, as a child process on resnet18 (imported by `tpuc transform`, calibrated by `tpuc
// calibrate` on the photos of the asset cache) once per sample count (a data list cycling through the photos
// when the count is larger), optionally with --find_divergent, and prints wall time, time per sample and the
// child's peak RSS: flat RSS from 5 to 50 samples is the claim (docs/ACCURACY.md). Exit 1 when a run fails.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Testing/ChildProcess.h"
#include "tpuc/Testing/TestAssets.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using tpuc::testsupport::ChildResult;
using tpuc::testsupport::logTail;
using tpuc::testsupport::runChild;

std::vector<int> counts(const std::string &text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');)
    if (int n = std::atoi(part.c_str()); n > 0)
      out.push_back(n);
  return out;
}

} // namespace

int main(int argc, char **argv) {
  std::string samples = "5,50", tpuc = (fs::path(argv[0]).parent_path() / "tpuc").string();
  bool divergent = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--samples" && i + 1 < argc)
      samples = argv[++i];
    else if (arg == "--tpuc" && i + 1 < argc)
      tpuc = argv[++i];
    else if (arg == "--find_divergent")
      divergent = true;
    else {
      std::cerr << "usage: bench-compare-samples [--samples 5,50] [--find_divergent] [--tpuc PATH]\n";
      return 2;
    }
  }
  std::string assets = tpuc::testsupport::assetsDir();
  std::string model = assets + "/models/resnet18.onnx";
  const std::vector<std::string> photos = tpuc::testsupport::assetPhotos(assets);
  if (!fs::exists(model) || photos.empty()) {
    std::cerr << "bench-compare-samples: resnet18.onnx or the photos are missing in " << assets << ": "
              << tpuc::testsupport::kFetchHint << "\n";
    return 1;
  }
  tpuc::testsupport::TempDir dir("tpuc-bench-compare-samples");
  std::string mlir = dir.file("resnet18.mlir"), table = dir.file("resnet18_cali_table");
  std::string photoList = dir.file("photos.txt");
  {
    std::ofstream out(photoList);
    for (const std::string &photo : photos)
      out << photo << "\n";
  }
  ChildResult transform =
      runChild({tpuc, "transform", "--model_name", "resnet18", "--model_def", model, "--input_shapes",
                "[[1,3,224,224]]", "--mean", "123.675,116.28,103.53", "--scale", "0.0171,0.0175,0.0174",
                "--pixel_format", "rgb", "--mlir", mlir},
               dir.file("transform.log"));
  ChildResult calibrate = transform.status != 0
                              ? transform
                              : runChild({tpuc, "calibrate", mlir, "--data_list", photoList, "-o", table},
                                         dir.file("calibrate.log"));
  if (transform.status != 0 || calibrate.status != 0) {
    std::cerr << "bench-compare-samples: tpuc transform or calibrate failed:\n"
              << logTail(dir.file(transform.status != 0 ? "transform.log" : "calibrate.log"));
    return 1;
  }
  std::printf("tpuc deploy --quantize INT8 --compare_all%s on resnet18, %zu distinct photos\n",
              divergent ? " --find_divergent" : "", photos.size());
  std::printf("%8s %10s %12s %9s %14s\n", "samples", "time (s)", "per sample", "CPU (s)", "peak RSS (MB)");
  bool allRan = true;
  for (int n : counts(samples)) {
    std::string list = dir.file("samples_" + std::to_string(n) + ".txt");
    {
      std::ofstream out(list);
      for (int i = 0; i < n; ++i)
        out << photos[static_cast<size_t>(i) % photos.size()] << "\n";
    }
    std::vector<std::string> args = {tpuc,
                                     "deploy",
                                     "--mlir",
                                     mlir,
                                     "--quantize",
                                     "INT8",
                                     "--calibration_table",
                                     table,
                                     "--chip",
                                     "bm1684x",
                                     "--test_input",
                                     list,
                                     "--tolerance",
                                     "0.99,0.9",
                                     "--compare_all",
                                     "--tpu_mlir",
                                     dir.file("r18_" + std::to_string(n) + ".mlir")};
    if (divergent)
      args.push_back("--find_divergent");
    std::string log = dir.file("deploy_" + std::to_string(n) + ".log");
    ChildResult run = runChild(args, log);
    // Exit 1 is a comparison beyond the tolerance: the run itself went through.
    if (run.status != 0 && run.status != 1) {
      std::printf("%8d failed (exit %d)\n%s", n, run.status, logTail(log).c_str());
      allRan = false;
      continue;
    }
    std::printf("%8d %10.2f %10.0f ms %9.2f %14.0f\n", n, run.seconds, 1000.0 * run.seconds / n,
                run.cpuSeconds, run.peakRssKb / 1024.0);
  }
  return allRan ? 0 : 1;
}
