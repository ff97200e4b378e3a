//===- SearchQtable.cpp - calibrate --search search_qtable (mixed precision) ===//
//
// After calibration: lower the model to INT8 with the new table, run the Tpu simulator in the isolated
// mode on a few calibration samples, and rank the ops by the error each one makes on its own (1 - cosine
// against the float reference, averaged over the samples). Then greedily keep the worst ops in float
// (F16, which every chip profile runs; BF16 for a profile without F16) until the lowest output cosine over
// the samples reaches --expected_cos or --max_float_layers ops are in float. The result is a TPU-MLIR
// quantize table (`op_name MODE`), and the ops and cosines are reported. Every step (the INT8 model first)
// is also measured for speed: the backend plans the model with that table and the command-level timing
// simulation gives its latency, as deploy reports it for its model file; --search_report writes the steps
// as a tpuc.search_qtable record (accuracy against latency, the studio's curve).
//
// An output that is a sigmoid is scored on its input, the logits: a detector's probability map on an
// image with nothing to detect is almost constant near 0, and its cosine says nothing about the error,
// while its logits still carry the whole signal (the sigmoid is monotonic, so what ranks the logits
// right ranks the probabilities right).
//
//===----------------------------------------------------------------------===//

#include "tpuc/Driver/SearchQtable.h"
#include "tpuc/Driver/DeployStages.h"
#include "tpuc/Driver/SearchRecord.h"
#include "tpuc/Driver/TestInputs.h"

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Simulator/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

namespace tpuc::driver {
using cli::cosineOf;
using cli::loadTestInputs;
using cli::lowerCopy;
using cli::outputCosine;
using cli::runReference;
using cli::RunResult;
using cli::runTpu;

namespace {

/// Samples the search evaluates (the first ones of the calibration set): enough to rank ops robustly,
/// few enough that each greedy step stays a few simulator runs.
constexpr size_t kSearchSamples = 4;

std::string fixed(double value, int digits = 6) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << value;
  return out.str();
}

/// The tensors search_qtable scores, one per output of `top`'s main: the output, or for an output made by
/// a top.sigmoid the sigmoid's input (when that input has a name the reference dumps).
std::vector<std::string> scoredTensors(mlir::ModuleOp top, const std::vector<std::string> &outputNames,
                                       const NpzFile &reference) {
  std::vector<std::string> scored = outputNames;
  auto main = top.lookupSymbol<mlir::func::FuncOp>("main");
  if (!main)
    return scored;
  auto ret = main.getBody().back().getTerminator();
  for (unsigned i = 0; i < ret->getNumOperands() && i < scored.size(); ++i) {
    mlir::Operation *def = ret->getOperand(i).getDefiningOp();
    if (!def || !mlir::isa<top::SigmoidOp>(def) || def->getNumOperands() != 1)
      continue;
    mlir::Operation *logits = def->getOperand(0).getDefiningOp();
    std::string name = logits ? top::locationName(logits->getLoc()) : std::string();
    if (!name.empty() && reference.has(name))
      scored[i] = name;
  }
  return scored;
}

} // namespace

/// The float mode that stands in for INT8 on `chip`: F16 when its profile lists F16 throughput (every
/// current profile does); BF16 would serve a profile without F16, or a chip without a profile.
quant::QuantMode searchFloatMode(const std::string &chip) {
  return chipFloatMode(chip) == "F16" ? quant::QuantMode::F16 : quant::QuantMode::BF16;
}

namespace {

/// search()'s code for "the sink cancelled"; never an exit code.
constexpr int kCancelled = -1;

int search(const CalibrateOptions &o, mlir::ModuleOp top, const quant::CalibrationTable &table,
           const std::vector<std::vector<std::string>> &samples, const Sink &progress, QtableReport &report) {
  auto fail = [&report](int code, const std::string &message) {
    report.messages.push_back(message);
    return code;
  };
  std::string error;
  sim::Interpreter interpreter(top);
  std::vector<std::string> outputNames = interpreter.outputNames();
  struct Evaluated {
    NpzFile inputs;
    RunResult reference;
  };
  std::vector<Evaluated> evals;
  for (size_t i = 0; i < samples.size() && evals.size() < kSearchSamples; ++i) {
    auto inputs = loadTestInputs(samples[i], interpreter, top);
    if (!inputs) {
      error = llvm::toString(inputs.takeError());
      return fail(kExitUsage, error);
    }
    auto reference = runReference(top, *inputs);
    if (!reference) {
      error = llvm::toString(reference.takeError());
      return fail(kExitFailed, error);
    }
    evals.push_back({std::move(*inputs), std::move(*reference)});
  }

  std::vector<std::string> scored = scoredTensors(top, outputNames, evals.front().reference.tensors);
  bool scoresLogits = scored != outputNames;

  LoweringOptions lowering;
  lowering.chip = o.chip;
  lowering.mode = top::Precision::INT8;
  lowering.calibrationTable = table;
  // The lowest output cosine over the samples of the model lowered with `qtable`, and its simulated
  // latency.
  cli::SimulatedLatency latency;
  auto evaluate = [&](const quant::QuantizeTable &qtable, double &cosine) -> bool {
    LoweringOptions options = lowering;
    options.quantizeTable = qtable;
    auto tpu = lowerCopy(top, options);
    if (!tpu) {
      error = llvm::toString(tpu.takeError());
      return false;
    }
    auto timed = cli::simulatedLatency(**tpu, o.chip);
    if (!timed) {
      error = "simulated latency: " + llvm::toString(timed.takeError());
      return false;
    }
    latency = *timed;
    cosine = 1.0;
    for (const Evaluated &e : evals) {
      auto run = runTpu(**tpu, e.inputs, /*dumpAll=*/scoresLogits, nullptr, outputNames);
      if (!run) {
        error = llvm::toString(run.takeError());
        return false;
      }
      if (!scoresLogits) {
        cosine = std::min(cosine, outputCosine(*run, e.reference));
        continue;
      }
      for (size_t i = 0; i < scored.size(); ++i) {
        const NpzFile &got = scored[i] == outputNames[i] ? run->outputs : run->tensors;
        const NpzFile &want = scored[i] == outputNames[i] ? e.reference.outputs : e.reference.tensors;
        cosine = std::min(cosine, got.has(scored[i]) && want.has(scored[i])
                                      ? cosineOf(got.get(scored[i]), want.get(scored[i]))
                                      : 0.0);
      }
    }
    return true;
  };

  // Rank: isolated error of every op, averaged over the samples.
  progress.report("search_qtable", 0.0, "isolated errors of the INT8 model");
  auto int8 = lowerCopy(top, lowering);
  if (!int8) {
    error = llvm::toString(int8.takeError());
    return fail(kExitFailed, error);
  }
  std::map<std::string, double> errorSum;
  for (const Evaluated &e : evals) {
    auto isolated = runTpu(**int8, e.inputs, /*dumpAll=*/true, &e.reference.tensors, outputNames);
    if (!isolated) {
      error = llvm::toString(isolated.takeError());
      return fail(kExitFailed, error);
    }
    for (const std::string &name : isolated->tensors.names())
      if (e.reference.tensors.has(name) && !e.inputs.has(name))
        errorSum[name] += 1.0 - cosineOf(isolated->tensors.get(name), e.reference.tensors.get(name));
  }
  // Only ops of the Top graph can be named in a quantize table; the inputs stay as they are, and so do
  // sigmoid outputs scored on their logits (their precision does not move the score).
  std::vector<std::pair<double, std::string>> ranked;
  auto scoredThroughLogits = [&](const std::string &name) {
    for (size_t i = 0; i < scored.size(); ++i)
      if (outputNames[i] == name && scored[i] != name)
        return true;
    return false;
  };
  for (const std::string &name : evals.front().reference.tensors.names())
    if (auto it = errorSum.find(name); it != errorSum.end() && it->second > 0 && !scoredThroughLogits(name))
      ranked.emplace_back(it->second / double(evals.size()), name);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto &a, const auto &b) { return a.first > b.first; });

  quant::QuantizeTable qtable;
  double cosine = 0;
  if (progress.isCancelled())
    return kCancelled;
  if (!evaluate(qtable, cosine))
    return fail(kExitFailed, error);
  double int8Cosine = cosine;
  quant::QuantMode floatMode = searchFloatMode(o.chip);
  std::vector<SearchStep> steps = {{0, "", cosine, latency.cycles, latency.ms}};
  std::vector<std::string> chosen;
  size_t limit = std::min<size_t>(static_cast<size_t>(o.maxFloatLayers), ranked.size());
  progress.report("search_qtable", 0.0,
                  "INT8: cos " + fixed(cosine) + ", simulated " + fixed(latency.ms, 3) + " ms");
  for (size_t k = 0; k < limit && cosine < o.expectedCos; ++k) {
    // Cancellation is polled between the greedy steps (each is a lowering, a backend plan with its timing
    // simulation, and a few simulator runs).
    if (progress.isCancelled())
      return kCancelled;
    qtable.set(ranked[k].second, floatMode);
    chosen.push_back(ranked[k].second);
    if (!evaluate(qtable, cosine))
      return fail(kExitFailed, error);
    steps.push_back({static_cast<int64_t>(k + 1), ranked[k].second, cosine, latency.cycles, latency.ms});
    progress.report("search_qtable", double(k + 1) / double(limit ? limit : 1),
                    ranked[k].second + " in " + std::string(quant::quantModeName(floatMode)) + ": cos " +
                        fixed(cosine) + ", simulated " + fixed(latency.ms, 3) + " ms");
  }
  try {
    quant::writeQuantizeTable(o.quantizeTable, qtable);
  } catch (const quant::TableError &e) {
    return fail(kExitUsage, e.what());
  }
  std::string what = "output";
  std::ostringstream out;
  if (scoresLogits) {
    what = "scored";
    out << "search_qtable scores";
    for (size_t i = 0; i < scored.size(); ++i)
      out << (i ? ", " : " ") << "'" << scored[i] << "'"
          << (scored[i] == outputNames[i] ? "" : " (the logits of sigmoid output '" + outputNames[i] + "')");
    out << "\n";
  }
  out << "search_qtable on " << evals.size() << " sample(s), chip " << o.chip << ": INT8 " << what << " cos "
      << fixed(int8Cosine) << "\n";
  out << "ops ranked by isolated error (1 - cos): ";
  for (size_t i = 0; i < std::min<size_t>(ranked.size(), 8); ++i)
    out << (i ? ", " : "") << ranked[i].second << " " << fixed(ranked[i].first, 5);
  out << "\n";
  // The op column fits the longest name (an ONNX tensor name can be long: resnet18's are ~50 characters).
  size_t width = 36;
  for (const SearchStep &step : steps)
    width = std::max(width, step.op.size() + 1 + quant::quantModeName(floatMode).size());
  out << "  step  op" << std::string(width - 2, ' ') << what << " cos  simulated ms  cycles\n";
  for (const SearchStep &step : steps) {
    std::string op = step.op.empty() ? std::string("(INT8)")
                                     : step.op + " " + std::string(quant::quantModeName(floatMode));
    out << "  " << std::setw(4) << step.step << "  " << std::left << std::setw(static_cast<int>(width)) << op
        << std::right << " " << fixed(step.cosine) << "  " << std::setw(12) << fixed(step.latencyMs, 3)
        << "  " << std::setw(6) << step.cycles << "\n";
  }
  bool reached = cosine >= o.expectedCos;
  if (!o.searchReport.empty()) {
    SearchQtableRecord record;
    record.mlir = o.mlirFile;
    record.chip = o.chip;
    record.calibrationTable = o.calibrationTable;
    record.quantizeTable = o.quantizeTable;
    record.floatMode = quant::quantModeName(floatMode);
    record.expectedCos = o.expectedCos;
    record.maxFloatLayers = o.maxFloatLayers;
    record.samples = static_cast<int64_t>(evals.size());
    record.scored = scored;
    for (const auto &[err, name] : ranked)
      record.ranked.push_back({name, err});
    record.steps = steps;
    record.reached = reached;
    std::ofstream file(o.searchReport, std::ios::binary | std::ios::trunc);
    if (!(file << toJson(record)) || !file.flush())
      return fail(kExitUsage, o.searchReport + ": cannot write");
  }
  out << what << " cos " << fixed(cosine) << " with " << chosen.size()
      << " float op(s): " << (reached ? "reached" : "did not reach") << " --expected_cos "
      << fixed(o.expectedCos) << "; quantize table written to " << o.quantizeTable << "\n";
  progress.write(out.str(), /*flush=*/true);
  report.int8Cosine = int8Cosine;
  report.cosine = cosine;
  report.floatOps = chosen;
  report.steps = steps;
  report.reached = reached;
  progress.report("search_qtable", 1.0,
                  what + " cos " + fixed(cosine) + " with " + std::to_string(chosen.size()) + " float op(s)",
                  o.searchReport.empty()
                      ? std::vector<std::string>{o.calibrationTable, o.quantizeTable}
                      : std::vector<std::string>{o.calibrationTable, o.quantizeTable, o.searchReport});
  return reached ? kExitOk : kExitFailed;
}

} // namespace

llvm::Expected<QtableReport> searchQtable(const CalibrateOptions &options, mlir::ModuleOp top,
                                          const quant::CalibrationTable &table,
                                          const std::vector<std::vector<std::string>> &samples,
                                          const Sink &sink) {
  QtableReport report;
  int code = search(options, top, table, samples, sink, report);
  if (code == kCancelled)
    return llvm::createStringError("search_qtable cancelled");
  report.exitCode = code;
  return report;
}

} // namespace tpuc::driver
