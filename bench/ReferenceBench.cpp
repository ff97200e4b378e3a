//===- ReferenceBench.cpp - Reference interpreter vs ONNX Runtime ---------===//
//
// For each model: `tpuc transform`'s import (ONNX -> Top + weights) wall time, then one inference of
// the float reference interpreter and of ONNX Runtime on the same input with the same thread count
// (median of N), side by side with their ratio, plus the interpreter's peak live activation bytes.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Import/OnnxImporter.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Simulator/OnnxRuntime.h"
#include "tpuc/Testing/TestAssets.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Model {
  std::string name, file, input;
  std::vector<int64_t> shape;
};

} // namespace

int main(int argc, char **argv) {
  int iterations = 5;
  unsigned threads = 2;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--iterations" && i + 1 < argc)
      iterations = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--threads" && i + 1 < argc)
      threads = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--models" && i + 1 < argc) {
      std::stringstream list(argv[++i]);
      for (std::string name; std::getline(list, name, ',');)
        only.push_back(name);
    } else {
      std::cerr << "usage: bench-reference [--iterations N] [--threads T] [--models a,b]" << std::endl;
      return 2;
    }
  }
  std::string models = tpuc::testsupport::assetsDir() + "/models/";
  std::vector<Model> all = {
      {"resnet18", models + "resnet18.onnx", "input", {1, 3, 224, 224}},
      {"mobilenet_v2", models + "mobilenet_v2.onnx", "input", {1, 3, 224, 224}},
      {"squeezenet1_1", models + "squeezenet1_1.onnx", "input", {1, 3, 224, 224}},
      {"ppocr_v4_det_640", models + "ch_PP-OCRv4_det_infer.onnx", "x", {1, 3, 640, 640}},
      {"ppocr_cls", models + "ch_ppocr_mobile_v2.0_cls_infer.onnx", "x", {1, 3, 48, 192}},
  };
  std::string why;
  bool haveOrt = tpuc::sim::ort::available(why);
  if (!haveOrt)
    std::cerr << "ONNX Runtime unavailable: " << why << std::endl;
  std::printf("threads %u, median of %d runs\n", threads, iterations);
  std::printf("%-18s %11s %12s %12s %8s %14s\n", "model", "import_s", "interp_ms", "ort_ms", "ratio",
              "peak_act_MiB");
  int failures = 0;
  for (const Model &m : all) {
    if (!only.empty() && std::find(only.begin(), only.end(), m.name) == only.end())
      continue;
    if (!llvm::sys::fs::exists(m.file)) {
      std::printf("%-18s missing %s (run scripts/fetch-assets.sh)\n", m.name.c_str(), m.file.c_str());
      ++failures;
      continue;
    }
    llvm::SmallString<128> tmp;
    llvm::sys::fs::createUniqueDirectory("tpuc-bench", tmp);
    tpuc::TransformOptions options;
    options.modelName = m.name;
    options.modelDef = m.file;
    options.inputShapes = {m.shape};
    options.weightOut = (tmp + "/weights.npz").str();
    mlir::MLIRContext context;
    std::string error;
    auto start = Clock::now();
    auto module = tpuc::importOnnx(context, options, error);
    double importSeconds = seconds(start);
    if (failed(module)) {
      std::printf("%-18s import failed: %s\n", m.name.c_str(), error.c_str());
      ++failures;
      continue;
    }
    std::mt19937 rng(42);
    std::normal_distribution<float> normal;
    std::vector<float> values(tpuc::shapeNumElements(m.shape));
    for (float &v : values)
      v = normal(rng);
    tpuc::Tensor input = tpuc::Tensor::fromValues<float>(m.shape, values);

    tpuc::sim::Interpreter interpreter(**module);
    if (auto err = interpreter.setInput(0, input)) {
      std::printf("%-18s %s\n", m.name.c_str(), llvm::toString(std::move(err)).c_str());
      ++failures;
      continue;
    }
    std::vector<double> interp;
    for (int i = 0; i <= iterations; ++i) { // the first run loads the weights: not counted
      start = Clock::now();
      if (auto err = interpreter.run(tpuc::sim::RunOptions{.numThreads = threads})) {
        std::printf("%-18s %s\n", m.name.c_str(), llvm::toString(std::move(err)).c_str());
        ++failures;
        break;
      }
      if (i > 0)
        interp.push_back(seconds(start));
    }
    if (interp.empty())
      continue;
    double ortMs = 0;
    if (haveOrt) {
      try {
        auto session = tpuc::sim::ort::Session::open(m.file, {.threads = threads});
        std::vector<double> ort;
        for (int i = 0; i <= iterations; ++i) {
          start = Clock::now();
          session->run({{m.input, input}});
          if (i > 0)
            ort.push_back(seconds(start));
        }
        ortMs = median(ort) * 1e3;
      } catch (const std::exception &e) {
        std::printf("%-18s ONNX Runtime: %s\n", m.name.c_str(), e.what());
      }
    }
    double interpMs = median(interp) * 1e3;
    std::printf("%-18s %11.2f %12.1f %12.1f %8.2f %14.1f\n", m.name.c_str(), importSeconds, interpMs, ortMs,
                ortMs > 0 ? interpMs / ortMs : 0.0, interpreter.stats().peakLiveBytes / 1048576.0);
    llvm::sys::fs::remove_directories(tmp);
  }
  return failures ? 1 : 0;
}
