//===- RunModel.cpp - tpuc-ref-run: run a Top module on the reference interpreter ---===//
// Developer tool for the reference tests and timing: parses a Top .mlir, feeds an input .npz, runs the
// interpreter (optionally several times) and writes the outputs or every tensor to an .npz.
//===----------------------------------------------------------------------===//
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Simulator/ReferenceKernels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

using namespace tpuc;

static int usage() {
  std::fprintf(stderr, "usage: tpuc-ref-run MODEL.mlir --input IN.npz [--output OUT.npz] [--dump] "
                       "[--threads N] [--repeat N] [--profile [--top N]]\n");
  return 2;
}

int main(int argc, char **argv) {
  std::string model, input, output;
  sim::RunOptions options;
  int repeat = 1;
  size_t top = 15;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char * { return i + 1 < argc ? argv[++i] : nullptr; };
    if (arg == "--input" || arg == "--output" || arg == "--threads" || arg == "--repeat" || arg == "--top") {
      const char *v = value();
      if (!v)
        return usage();
      if (arg == "--input")
        input = v;
      else if (arg == "--output")
        output = v;
      else if (arg == "--top")
        top = static_cast<size_t>(std::atoi(v));
      else if (arg == "--threads")
        options.numThreads = static_cast<unsigned>(std::atoi(v));
      else
        repeat = std::max(1, std::atoi(v));
    } else if (arg == "--dump") {
      options.dumpAll = true;
    } else if (arg == "--profile") {
      options.profile = true;
    } else if (model.empty() && arg[0] != '-') {
      model = arg;
    } else {
      return usage();
    }
  }
  if (model.empty() || input.empty())
    return usage();

  mlir::DialectRegistry registry;
  registry.insert<top::TopDialect, mlir::func::FuncDialect>();
  sim::registerTopReferenceKernels(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  auto module = mlir::parseSourceFile<mlir::ModuleOp>(model, &context);
  if (!module)
    return 1;
  sim::Interpreter interp(*module);
  Result<NpzFile> inputs = NpzFile::tryRead(input);
  if (!inputs) {
    std::fprintf(stderr, "error: %s\n", inputs.error().c_str());
    return 1;
  }
  if (llvm::Error err = interp.setInputs(*inputs)) {
    std::fprintf(stderr, "error: %s\n", llvm::toString(std::move(err)).c_str());
    return 1;
  }
  double best = 1e30, total = 0;
  std::vector<sim::RunStats::OpTime> ops; // per op, its fastest time over the runs
  for (int r = 0; r < repeat; ++r) {
    if (llvm::Error err = interp.run(options)) {
      std::fprintf(stderr, "error: %s\n", llvm::toString(std::move(err)).c_str());
      return 1;
    }
    best = std::min(best, interp.stats().seconds);
    total += interp.stats().seconds;
    const auto &times = interp.stats().opSeconds;
    if (ops.empty())
      ops = times;
    for (size_t i = 0; i < ops.size() && i < times.size(); ++i)
      ops[i].seconds = std::min(ops[i].seconds, times[i].seconds);
  }
  const sim::RunStats &stats = interp.stats();
  std::printf("%zu ops, best %.2f ms, mean %.2f ms over %d runs; peak %.1f MiB, tensors %.1f MiB, "
              "weights %.1f MiB\n",
              stats.numOps, best * 1e3, total / repeat * 1e3, repeat, stats.peakLiveBytes / 1048576.0,
              stats.totalTensorBytes / 1048576.0, stats.weightBytes / 1048576.0);
  if (options.profile) {
    std::map<std::string, double> byKind;
    double sum = 0;
    for (const auto &op : ops)
      byKind[op.opName] += op.seconds, sum += op.seconds;
    std::printf("sum of fastest op times %.2f ms:", sum * 1e3);
    for (const auto &[kind, seconds] : byKind)
      std::printf(" %s %.2f", kind.c_str(), seconds * 1e3);
    std::printf("\n");
    std::sort(ops.begin(), ops.end(), [](auto &a, auto &b) { return a.seconds > b.seconds; });
    for (size_t i = 0; i < std::min<size_t>(ops.size(), top); ++i)
      std::printf("  %8.3f ms  %-14s %s\n", ops[i].seconds * 1e3, ops[i].opName.c_str(), ops[i].name.c_str());
  }
  if (!output.empty()) {
    try {
      interp.tensors().write(output);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 1;
    }
  }
  return 0;
}
