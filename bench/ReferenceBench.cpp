//===- ReferenceBench.cpp - Reference interpreter vs ONNX Runtime ---------===//
//
// For each model: `tpuc transform`'s import (ONNX -> Top + weights) wall time, then one inference of
// the float reference interpreter and of ONNX Runtime on the same input with the same thread count
// (median of N), side by side with their ratio, plus the interpreter's peak live activation bytes.
// --profile adds the interpreter's time per op category (conv kinds, other ops by name). The cpu columns
// are process CPU time per run: at one thread they compare the two fairly on a machine others load.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Import/OnnxImporter.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Simulator/OnnxRuntime.h"
#include "tpuc/Testing/TestAssets.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <time.h>

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/// CPU seconds the process has used (all threads): on a shared machine, a measure that other processes'
/// load does not inflate the way it inflates wall time.
double cpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Model {
  std::string name, file, input;
  std::vector<int64_t> shape;
};

/// The profile category of an op: convs by kind (depthwise, 1x1, kxk and stride), other ops by name.
std::string category(mlir::Operation *op) {
  auto conv = llvm::dyn_cast<tpuc::top::ConvOp>(op);
  if (!conv)
    return op->getName().getStringRef().str();
  auto kernel = conv.getKernelShape();
  auto strides = conv.getStrides();
  int64_t ic = tpuc::top::getShape(conv.getInput())[1];
  std::string kind = conv.getGroup() > 1 && conv.getGroup() == ic ? "dw" : conv.getGroup() > 1 ? "grouped" : "dense";
  std::string size;
  for (int64_t k : kernel)
    size += (size.empty() ? "" : "x") + std::to_string(k);
  return "conv " + kind + " " + size + " s" + std::to_string(strides.empty() ? 1 : strides[0]);
}

/// Per-category milliseconds of the profiled runs (summed over ops, minimum over runs).
void printProfile(mlir::ModuleOp module, const std::vector<std::vector<double>> &runs) {
  auto func = *module.getOps<mlir::func::FuncOp>().begin();
  std::vector<std::string> cats;
  for (mlir::Operation &op : func.getBody().front().without_terminator())
    cats.push_back(category(&op));
  std::map<std::string, std::pair<double, int>> best;
  for (const std::vector<double> &run : runs) {
    std::map<std::string, std::pair<double, int>> sums;
    for (size_t i = 0; i < run.size() && i < cats.size(); ++i) {
      sums[cats[i]].first += run[i] * 1e3;
      sums[cats[i]].second++;
    }
    for (auto &[name, value] : sums)
      if (!best.count(name) || value.first < best[name].first)
        best[name] = value;
  }
  std::vector<std::pair<double, std::string>> order;
  for (auto &[name, value] : best)
    order.push_back({value.first, name});
  std::sort(order.rbegin(), order.rend());
  for (auto &[ms, name] : order)
    if (ms >= 0.05)
      std::printf("    %-28s %4d ops %8.2f ms\n", name.c_str(), best[name].second, ms);
}

} // namespace

int main(int argc, char **argv) {
  int iterations = 5;
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
    else if (arg == "--models" && i + 1 < argc) {
      std::stringstream list(argv[++i]);
      for (std::string name; std::getline(list, name, ',');)
        only.push_back(name);
    } else {
      std::cerr << "usage: bench-reference [--iterations N] [--threads T] [--models a,b] [--profile]" << std::endl;
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
  std::printf("%-18s %11s %12s %12s %8s %14s %10s %10s %9s\n", "model", "import_s", "interp_ms", "ort_ms",
              "ratio", "peak_act_MiB", "interp_cpu", "ort_cpu", "cpu_ratio");
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
    auto module = tpuc::importOnnx(context, options);
    double importSeconds = seconds(start);
    if (!module) {
      error = llvm::toString(module.takeError());
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
    std::vector<double> interp, interpCpu;
    std::vector<std::vector<double>> opRuns;
    for (int i = 0; i <= iterations; ++i) { // the first run loads the weights: not counted
      start = Clock::now();
      double cpuStart = cpuSeconds();
      if (auto err = interpreter.run(tpuc::sim::RunOptions{.numThreads = threads, .profile = profile})) {
        std::printf("%-18s %s\n", m.name.c_str(), llvm::toString(std::move(err)).c_str());
        ++failures;
        break;
      }
      if (i > 0) {
        interp.push_back(seconds(start));
        interpCpu.push_back(cpuSeconds() - cpuStart);
      }
      if (i > 0 && profile) {
        opRuns.emplace_back();
        for (const auto &op : interpreter.stats().opSeconds)
          opRuns.back().push_back(op.seconds);
      }
    }
    if (interp.empty())
      continue;
    double ortMs = 0, ortCpuMs = 0;
    if (haveOrt) {
      try {
        auto session = tpuc::sim::ort::Session::open(m.file, {.threads = threads});
        std::vector<double> ort, ortCpu;
        for (int i = 0; i <= iterations; ++i) {
          start = Clock::now();
          double cpuStart = cpuSeconds();
          session->run({{m.input, input}});
          if (i > 0) {
            ort.push_back(seconds(start));
            ortCpu.push_back(cpuSeconds() - cpuStart);
          }
        }
        ortMs = median(ort) * 1e3;
        ortCpuMs = median(ortCpu) * 1e3;
      } catch (const std::exception &e) {
        std::printf("%-18s ONNX Runtime: %s\n", m.name.c_str(), e.what());
      }
    }
    double interpMs = median(interp) * 1e3, interpCpuMs = median(interpCpu) * 1e3;
    std::printf("%-18s %11.2f %12.1f %12.1f %8.2f %14.1f %10.1f %10.1f %9.2f\n", m.name.c_str(), importSeconds,
                interpMs, ortMs, ortMs > 0 ? interpMs / ortMs : 0.0, interpreter.stats().peakLiveBytes / 1048576.0,
                interpCpuMs, ortCpuMs, ortCpuMs > 0 ? interpCpuMs / ortCpuMs : 0.0);
    if (profile)
      printProfile(**module, opRuns);
    llvm::sys::fs::remove_directories(tmp);
  }
  return failures ? 1 : 0;
}
