//===- TpuSimBench.cpp - Tpu functional simulation vs ONNX Runtime ---------===//
//
// For each model: import (ONNX -> Top), calibrate on a few real photos with the reference interpreter
// (kl), lower to Tpu INT8 (symmetric) and time one simulated inference (median of N) next to ONNX
// Runtime f32 on the same input and thread count, with their ratio and the simulated output's cosine
// against the float reference. Goal (issue 4): INT8 simulation of resnet18 <= 3x ONNX Runtime.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Conversion/TopToTpu.h"
#include "tpuc/Dialect/Tpu/TpuDialect.h"
#include "tpuc/Import/OnnxImporter.h"
#include "tpuc/Preprocess/Preprocess.h"
#include "tpuc/Quant/Calibration.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Simulator/OnnxRuntime.h"
#include "tpuc/Simulator/TpuSim.h"
#include "tpuc/Testing/TestAssets.h"

#include "mlir/Dialect/Quant/IR/Quant.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double cosine(const tpuc::Tensor &a, const tpuc::Tensor &b) {
  auto x = a.values<float>(), y = b.values<float>();
  double dot = 0, nx = 0, ny = 0;
  for (size_t i = 0; i < x.size(); ++i)
    dot += double(x[i]) * y[i], nx += double(x[i]) * x[i], ny += double(y[i]) * y[i];
  return dot / std::sqrt(nx * ny + 1e-30);
}

} // namespace

int main(int argc, char **argv) {
  int iterations = 5, images = 4;
  unsigned threads = 2;
  bool profile = false;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--iterations" && i + 1 < argc)
      iterations = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--threads" && i + 1 < argc)
      threads = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--profile")
      profile = true;
    else if (arg == "--images" && i + 1 < argc)
      images = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--models" && i + 1 < argc) {
      std::stringstream list(argv[++i]);
      for (std::string name; std::getline(list, name, ',');)
        only.push_back(name);
    } else {
      std::cerr << "usage: bench-tpusim [--iterations N] [--threads T] [--images N] [--models a,b] [--profile]" << std::endl;
      return 2;
    }
  }
  std::string assets = tpuc::testsupport::assetsDir();
  std::vector<std::string> all = {"resnet18", "mobilenet_v2", "squeezenet1_1"};
  std::string why;
  bool haveOrt = tpuc::sim::ort::available(why);
  if (!haveOrt)
    std::cerr << "ONNX Runtime unavailable: " << why << std::endl;
  std::printf("threads %u, median of %d runs, INT8 symmetric calibrated (kl) on %d photos\n", threads, iterations,
              images);
  std::printf("%-16s %12s %12s %8s %12s %10s\n", "model", "tpu_int8_ms", "ort_f32_ms", "ratio", "top_f32_ms",
              "cos");
  int failures = 0;
  for (const std::string &name : all) {
    if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end())
      continue;
    std::string file = assets + "/models/" + name + ".onnx";
    tpuc::testsupport::TempDir tmp("tpuc-bench-tpusim");
    tpuc::TransformOptions options;
    options.modelName = name;
    options.modelDef = file;
    options.inputShapes = {{1, 3, 224, 224}};
    options.weightOut = tmp.file("weights.npz");
    mlir::MLIRContext context;
    context.loadDialect<mlir::quant::QuantDialect, tpuc::tpu::TpuDialect>();
    std::string error;
    auto module = tpuc::importOnnx(context, options, error);
    if (failed(module)) {
      std::printf("%-16s import failed: %s (%s)\n", name.c_str(), error.c_str(), tpuc::testsupport::kFetchHint);
      ++failures;
      continue;
    }
    // Calibration and the float reference on real photos.
    tpuc::preprocess::PreprocessConfig cfg;
    cfg.inputShape = {1, 3, 224, 224};
    cfg.pixelFormat = tpuc::preprocess::PixelFormat::RGB;
    cfg.mean = {123.675, 116.28, 103.53};
    cfg.scale = {1 / 58.395, 1 / 57.12, 1 / 57.375};
    cfg.resizeDims = {256, 256};
    const char *photos[] = {"dog.jpg", "chelsea.png", "astronaut.png", "coffee.png", "eagle.jpg", "flower.jpg"};
    tpuc::quant::ActivationStatistics stats;
    tpuc::sim::Interpreter interp(**module);
    tpuc::Tensor input;
    std::vector<double> topTimes;
    for (int i = 0; i < images; ++i) {
      tpuc::Tensor x = tpuc::preprocess::loadSample(assets + "/images/" + photos[i % 6], cfg);
      if (i == 0)
        input = x;
      (void)interp.setInput(0, x);
      if (auto err = interp.run({.dumpAll = true, .numThreads = threads})) {
        std::printf("%-16s %s\n", name.c_str(), llvm::toString(std::move(err)).c_str());
        return 1;
      }
      for (const std::string &t : interp.tensors().names())
        stats.add(t, interp.tensors().get(t).values<float>());
    }
    (void)interp.setInput(0, input);
    topTimes.clear();
    for (int i = 0; i < iterations; ++i) {
      auto start = Clock::now();
      (void)interp.run({.numThreads = threads});
      topTimes.push_back(seconds(start));
    }
    tpuc::Tensor refOut = interp.outputs().get(interp.outputNames().front());
    tpuc::LoweringOptions lowering{.mode = tpuc::top::Precision::INT8};
    lowering.calibrationTable.emplace();
    lowering.calibrationTable->int8 = stats.thresholds(tpuc::quant::CalibrationMethod::KL);
    if (auto err = tpuc::lowerToTpu(**module, lowering)) {
      std::printf("%-16s lowering failed: %s\n", name.c_str(), llvm::toString(std::move(err)).c_str());
      ++failures;
      continue;
    }
    tpuc::sim::TpuSimulator sim(**module);
    if (auto err = sim.setInput(0, input)) {
      std::printf("%-16s %s\n", name.c_str(), llvm::toString(std::move(err)).c_str());
      ++failures;
      continue;
    }
    std::vector<double> simTimes;
    for (int i = 0; i <= iterations; ++i) { // the first run loads the weights: not counted
      auto start = Clock::now();
      if (auto err = sim.run({.numThreads = threads})) {
        std::printf("%-16s %s\n", name.c_str(), llvm::toString(std::move(err)).c_str());
        ++failures;
        break;
      }
      if (i > 0)
        simTimes.push_back(seconds(start));
    }
    if (simTimes.empty())
      continue;
    double cos = cosine(refOut, sim.outputs().get(sim.outputNames().front()));
    double ortMs = 0;
    if (haveOrt) {
      try {
        auto session = tpuc::sim::ort::Session::open(file, {.threads = threads});
        std::string inputName = session->inputs().front().name;
        std::vector<double> ort;
        for (int i = 0; i <= iterations; ++i) {
          auto start = Clock::now();
          session->run({{inputName, input}});
          if (i > 0)
            ort.push_back(seconds(start));
        }
        ortMs = median(ort) * 1e3;
      } catch (const std::exception &e) {
        std::printf("%-16s ONNX Runtime: %s\n", name.c_str(), e.what());
      }
    }
    double simMs = median(simTimes) * 1e3;
    if (profile && !sim.run({.numThreads = threads, .profile = true})) {
      std::map<std::string, double> byKind; // wall time per op kind of one more run
      for (const auto &t : sim.stats().opSeconds)
        byKind[t.opName] += t.seconds * 1e3;
      for (const auto &[kind, ms] : byKind)
        std::printf("  %-20s %8.2f ms\n", kind.c_str(), ms);
    }
    std::printf("%-16s %12.1f %12.1f %8.2f %12.1f %10.5f\n", name.c_str(), simMs, ortMs,
                ortMs > 0 ? simMs / ortMs : 0.0, median(topTimes) * 1e3, cos);
  }
  return failures ? 1 : 0;
}
