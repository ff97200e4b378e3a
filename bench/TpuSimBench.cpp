//===- TpuSimBench.cpp - Tpu functional simulation vs ONNX Runtime ---------===//
//
// For each model: import (ONNX -> Top), calibrate on a few real photos with the reference interpreter
// (kl), lower to Tpu INT8 (symmetric) and time one simulated inference (median of N) next to ONNX
// Runtime f32 on the same input and thread count, with their ratio and the simulated output's cosine
// against the float reference. Goal (issue 4): INT8 simulation of resnet18 <= 3x ONNX Runtime.
// Then the backend on bm1684x (issue 5): deploy time (groups, addresses, codegen with --opt 2), the
// command-level simulation of the model file (wall time, and its ratio to ONNX Runtime: goal <= 5x), the
// simulated latency with layer groups next to every op global (--opt 0) and the DDR activation peak over
// its lower bound (goal <= 1.05); for resnet18 also the INT8 / F16 / BF16 / F32 simulated latency next to
// the published TPU-MLIR model-zoo figures.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Codegen/ModelCodegen.h"
#include "tpuc/Conversion/TopToTpu.h"
#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/Simulator/CmdExec.h"
#include "tpuc/Transforms/BackendPlan.h"
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

/// The backend figures of one lowered module (left untouched: the backend runs on a clone).
struct BackendFigures {
  bool ok = false;
  std::string error;
  double deploySeconds = 0, runMs = 0, latencyMs = 0, gmemRatio = 0;
};

BackendFigures backendFigures(mlir::ModuleOp lowered, int opt, const tpuc::Tensor &input, int iterations,
                              unsigned threads, const tpuc::testsupport::TempDir &tmp, const std::string &stem) {
  BackendFigures f;
  mlir::OwningOpRef<mlir::ModuleOp> module(lowered.clone());
  auto start = Clock::now();
  if (mlir::failed(tpuc::top::saveWeights(*module, tmp.file(stem + "_weight.npz")))) {
    f.error = "cannot save the weights";
    return f;
  }
  tpuc::BackendOptions options{.chip = "bm1684x", .opt = opt, .modelPath = tmp.file(stem + ".tpum")};
  if (auto err = tpuc::runBackend(*module, options)) {
    f.error = llvm::toString(std::move(err));
    return f;
  }
  f.deploySeconds = seconds(start);
  auto attr = [&](llvm::StringRef name) {
    auto a = (*module)->getAttrOfType<mlir::IntegerAttr>(name);
    return a ? static_cast<double>(a.getInt()) : 0.0;
  };
  double lower = attr(tpuc::backend_attr::kActivationLowerBound);
  f.gmemRatio = lower > 0 ? attr(tpuc::backend_attr::kActivationBytes) / lower : 0;
  tpuc::codegen::Model model = tpuc::codegen::readModelFile(options.modelPath);
  tpuc::backend::ChipProfile chip = tpuc::backend::findChipProfile(model.chip);
  tpuc::cmdsim::StageRunner runner(chip, model, 0, 0);
  if (auto err = runner.setInput(runner.stage().inputs.at(0).name, input)) {
    f.error = llvm::toString(std::move(err));
    return f;
  }
  std::vector<double> times;
  for (int i = 0; i <= iterations; ++i) { // the first run parses the ops' programs: not counted
    auto t0 = Clock::now();
    if (auto err = runner.run({.numThreads = threads})) {
      f.error = llvm::toString(std::move(err));
      return f;
    }
    if (i > 0)
      times.push_back(seconds(t0));
  }
  f.runMs = median(times) * 1e3;
  f.latencyMs = tpuc::cmdsim::latencyMs(chip, runner.stats().timing.totalCycles);
  f.ok = true;
  return f;
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
  struct BackendRow {
    std::string name;
    BackendFigures grouped, alone;
    double ortMs;
  };
  struct LatencyRow {
    std::string mode;
    double simMs, published;
  };
  std::vector<BackendRow> backendRows;
  std::vector<LatencyRow> latencyRows;
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
    auto module = tpuc::importOnnx(context, options);
    if (!module) {
      error = llvm::toString(module.takeError());
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
    BackendFigures grouped = backendFigures(**module, 2, input, iterations, threads, tmp, name + "_opt2");
    BackendFigures alone = backendFigures(**module, 0, input, 1, threads, tmp, name + "_opt0");
    if (!grouped.ok || !alone.ok) {
      std::printf("%-16s backend: %s\n", name.c_str(), (grouped.ok ? alone : grouped).error.c_str());
      ++failures;
      continue;
    }
    backendRows.push_back({name, grouped, alone, ortMs});
    if (name == "resnet18")
      for (auto [mode, published] : {std::pair{tpuc::top::Precision::F16, 1.231},
                                     std::pair{tpuc::top::Precision::BF16, 1.231},
                                     std::pair{tpuc::top::Precision::F32, 6.800}}) {
        auto floatModule = tpuc::importOnnx(context, options);
        tpuc::LoweringOptions floatLowering{.mode = mode};
        if (!floatModule) {
          error = llvm::toString(floatModule.takeError());
          ++failures;
          continue;
        }
        if (auto err = tpuc::lowerToTpu(**floatModule, floatLowering)) {
          std::printf("%-16s float lowering failed: %s\n", name.c_str(), llvm::toString(std::move(err)).c_str());
          ++failures;
          continue;
        }
        BackendFigures f = backendFigures(**floatModule, 2, input, 1, threads, tmp, name + "_float");
        latencyRows.push_back({tpuc::top::stringifyPrecision(mode).str(), f.ok ? f.latencyMs : 0, published});
      }
  }
  if (!backendRows.empty()) {
    std::printf("\nbackend, bm1684x INT8, deploy --opt 2; command-level simulation of the model file vs ONNX "
                "Runtime f32\n%-16s %9s %10s %8s %12s %12s %8s %10s\n",
                "model", "deploy_s", "cmdsim_ms", "vs_ort", "sim_opt2_ms", "sim_opt0_ms", "speedup", "gmem/lb");
    for (const auto &r : backendRows)
      std::printf("%-16s %9.2f %10.1f %8.2f %12.3f %12.3f %8.2f %10.3f\n", r.name.c_str(),
                  r.grouped.deploySeconds, r.grouped.runMs, r.ortMs > 0 ? r.grouped.runMs / r.ortMs : 0.0,
                  r.grouped.latencyMs, r.alone.latencyMs, r.alone.latencyMs / r.grouped.latencyMs,
                  r.grouped.gmemRatio);
  }
  if (!latencyRows.empty() || !backendRows.empty()) {
    std::printf("\nresnet18 on bm1684x, simulated vs published (TPU-MLIR model zoo, resnet18-v2)\n"
                "%-6s %10s %14s %8s\n", "mode", "sim_ms", "published_ms", "ratio");
    for (const auto &r : backendRows)
      if (r.name == "resnet18")
        std::printf("%-6s %10.3f %14.3f %8.2f\n", "INT8", r.grouped.latencyMs, 0.552, r.grouped.latencyMs / 0.552);
    for (const auto &r : latencyRows)
      std::printf("%-6s %10.3f %14.3f %8.2f\n", r.mode.c_str(), r.simMs, r.published, r.simMs / r.published);
  }
  return failures ? 1 : 0;
}
