//===- DeploySamples.cpp - deploy --compare_all over many samples, --find_divergent ===//
//
// With a folder or data list as --test_input (optionally --test_subset, --test_num), deploy compares every
// layer of every sample with the Top reference, one sample at a time (evaluateSamples: nothing of a sample
// but its metrics outlives it), and writes the per-layer statistics and every sample's outputs
// (<stem>_compare_samples.json), and the worst sample's layers in the single-sample files
// (<stem>_compare.json/.csv), so the studio's accuracy view opens on the worst case. The model file, when
// built, is checked on the first sample. --find_divergent then names the first divergent layers and re-runs
// them in float on the worst samples (<stem>_first_divergent.json). docs/ACCURACY.md.
//
//===----------------------------------------------------------------------===//

#include "DeployInternal.h"

#include "tpuc/Driver/AccuracyRecords.h"
#include "tpuc/Driver/Calibration.h"
#include "tpuc/Driver/ManifestInputs.h"
#include "tpuc/Driver/TestInputs.h"

#include "tpuc/Quant/Tables.h"
#include "tpuc/Simulator/TpuSim.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>

namespace tpuc::cli {
using driver::CalibrationSample;
using driver::DeployOptions;
using driver::kExitFailed;
using driver::kExitOk;
using driver::kExitUsage;

namespace fs = std::filesystem;

bool manyTestSamples(const DeployOptions &o) {
  if (o.testInput.size() != 1)
    return false;
  const std::string &input = o.testInput.front();
  std::error_code ec;
  return !o.testSubset.empty() || fs::is_directory(input, ec) ||
         (input.size() > 4 && input.compare(input.size() - 4, 4, ".txt") == 0);
}

namespace {

/// Turns an error of a pass over samples into the deploy's code: a cancellation, bad input (2) or a failed
/// run (1).
int sampleError(DeployContext &context, llvm::Error error, const std::string &prefix = "") {
  int code = kExitFailed;
  std::string message;
  llvm::handleAllErrors(
      std::move(error),
      [&](const driver::CancelledError &e) {
        code = kCancelled;
        message = e.message;
      },
      [&](const driver::SampleInputError &e) {
        code = kExitUsage;
        message = e.message;
      },
      [&](const llvm::ErrorInfoBase &e) { message = e.message(); });
  if (code == kCancelled) {
    // "cancelled after 3/50 samples" -> "deploy cancelled after 3/50 samples"
    context.cancelled = message.rfind("cancelled ", 0) == 0 ? message.substr(10) : message;
    return kCancelled;
  }
  return context.fail(code, prefix + message);
}

/// The samples of --test_input DIR|LIST [--test_subset NAME|FILE] [--test_num N], collected as calibrate
/// collects its own (multi-input folders included).
llvm::Expected<std::vector<CalibrationSample>> testSamples(const DeployOptions &o, mlir::ModuleOp top) {
  driver::CalibrateOptions source;
  const std::string &input = o.testInput.front();
  std::error_code ec;
  bool folder = fs::is_directory(input, ec);
  if (!o.testSubset.empty() && !folder)
    return llvm::createStringError(input + ": not a directory ('--test_subset' selects samples of a folder)");
  (folder ? source.dataset : source.dataList) = input;
  source.subset = o.testSubset;
  source.inputNum = o.testNum;
  return driver::collectCalibrationSamples(source, inputNames(top));
}

/// The `count` samples with the lowest output cosine (NaN first), worst first.
std::vector<CalibrationSample> worstSamples(const std::vector<driver::SampleResult> &results,
                                            const std::vector<CalibrationSample> &samples, size_t count) {
  std::vector<size_t> order(results.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    double x = results[a].outputCosine, y = results[b].outputCosine;
    return std::isnan(x) ? !std::isnan(y) : !std::isnan(y) && x < y;
  });
  std::vector<CalibrationSample> worst;
  for (size_t i = 0; i < std::min(count, order.size()); ++i)
    worst.push_back(samples[order[i]]);
  return worst;
}

} // namespace

std::optional<int> writeFirstDivergent(DeployContext &context, const std::vector<driver::LayerStats> &layers,
                                       int64_t numSamples, const std::vector<CalibrationSample> &gainSamples,
                                       const driver::SampleLoader &loader,
                                       std::vector<std::string> &artifacts) {
  const DeployOptions &o = context.options;
  if (context.progress.isCancelled()) {
    context.cancelled = "before the divergent stage";
    return kCancelled;
  }
  // The re-runs lower the module again with the deploy's own quantize table plus the op kept in float.
  quant::QuantizeTable base;
  if (!o.quantizeTable.empty()) {
    try {
      base = quant::readQuantizeTable(o.quantizeTable);
    } catch (const quant::TableError &e) {
      return context.fail(kExitUsage, e.what());
    }
  }
  driver::DivergentSearch search;
  search.top = context.top;
  search.source = context.lowered;
  search.relower = [&](const quant::QuantizeTable &floatOps) {
    LoweringOptions lowering = context.lowering;
    quant::QuantizeTable table = base;
    for (const quant::QuantizeEntry &entry : floatOps.entries)
      table.set(entry.name, entry.mode);
    lowering.quantizeTable = std::move(table);
    return lowerCopy(context.lowered, lowering);
  };
  search.floatMode = driver::divergentFloatMode(o.quantize, o.chip);
  search.tolerance = *CompareTolerance::parse(o.tolerance);
  search.candidates = static_cast<size_t>(o.divergentTop);
  search.gainSamples = gainSamples;
  search.loader = &loader;
  context.progress.report("divergent", 0.0, "first divergent layers");
  auto record = driver::findFirstDivergent(layers, numSamples, driver::tensorGraph(context.top), search,
                                           context.progress);
  if (!record)
    return sampleError(context, record.takeError(), "--find_divergent: ");
  record->mlir = o.mlir;
  record->chip = o.chip;
  record->quantize = o.quantize;
  std::string path = driver::firstDivergentPath(o);
  if (llvm::Error err = writeText({{path, driver::toJson(*record)}}))
    return context.fail(kExitUsage, llvm::toString(std::move(err)));
  artifacts.push_back(path);
  context.report.record.artifacts.push_back(path);
  context.progress.write(driver::formatFirstDivergent(*record), /*flush=*/true);
  context.progress.report("divergent", 1.0, record->summary, {path});
  return std::nullopt;
}

int compareSamples(DeployContext &context) {
  const DeployOptions &o = context.options;
  const driver::Sink &progress = context.progress;
  driver::DeployResult &record = context.report.record;
  const std::string &source = o.testInput.front();
  if (!o.compareAll)
    return context.fail(kExitUsage,
                        "'--test_input " + source +
                            "' names many samples (a folder or data list): they need '--compare_all'");
  if (!o.testReference.empty())
    return context.fail(kExitUsage, "'--test_reference' holds the tensors of one sample; the samples of '" +
                                        source +
                                        "' are compared with the Top reference (drop '--test_reference')");
  auto samples = testSamples(o, context.top);
  if (!samples)
    return context.fail(kExitUsage, llvm::toString(samples.takeError()));
  context.report.inputs.push_back(driver::hashSampleSet(
      "test_samples", o.testSubset.empty() ? source : source + " (subset " + o.testSubset + ")", *samples));
  driver::SampleLoader loader(context.top, context.fusedTop);
  std::vector<std::string> artifacts;
  if (!o.model.empty()) {
    // Codegen's proof on the first sample: every layer of the model file against the Tpu simulation.
    auto first = loader.load(samples->front().files);
    if (!first)
      return context.fail(kExitUsage, llvm::toString(first.takeError()));
    sim::TpuRunner tpu(context.tpu, topOutputNames(context.top));
    if (auto err = sim::runOn(tpu, first->chip, {.dumpAll = true}))
      return context.fail(kExitFailed, llvm::toString(std::move(err)));
    if (std::optional<int> code = checkModelStage(context, first->chip, tpu, artifacts))
      return *code;
  }
  if (progress.isCancelled()) {
    context.cancelled = "before the compare stage";
    return kCancelled;
  }
  CompareTolerance tolerance = *CompareTolerance::parse(o.tolerance);
  progress.report("compare", 0.0,
                  "every layer, accumulated and isolated, on " + std::to_string(samples->size()) +
                      " sample(s)");
  // The evaluator (the runners, their weights, the last sample's tensors) is gone before the float re-runs.
  auto evaluation = [&] {
    driver::SampleEvaluator evaluator(context.top, context.tpu, {tolerance, o.excepts, context.fused});
    return driver::evaluateSamples(*samples, loader, evaluator, progress);
  }();
  if (!evaluation)
    return sampleError(context, evaluation.takeError());

  const driver::SampleAggregator &aggregate = evaluation->aggregate;
  driver::CompareSamplesRecord samplesRecord;
  samplesRecord.target = "tpu";
  samplesRecord.reference = "top";
  samplesRecord.mlir = o.mlir;
  samplesRecord.chip = o.chip;
  samplesRecord.quantize = o.quantize;
  samplesRecord.testInput = source;
  samplesRecord.testSubset = o.testSubset;
  samplesRecord.toleranceCosine = tolerance.cosine;
  samplesRecord.toleranceEuclidean = tolerance.euclidean;
  samplesRecord.failingSamples = aggregate.failingSamples();
  samplesRecord.worstSample = aggregate.worstSample();
  samplesRecord.layers = aggregate.layers();
  samplesRecord.samples = aggregate.samples();
  std::string stem = deployArtifactStem(o);
  std::string samplesJson = driver::compareSamplesPath(o), csv = stem + "_compare.csv",
              json = stem + "_compare.json";
  if (llvm::Error err = writeText({{samplesJson, driver::toJson(samplesRecord)},
                                   {csv, formatSideBySideCsv(evaluation->worstRows)},
                                   {json, formatSideBySideJson(evaluation->worstRows, tolerance)}}))
    return context.fail(kExitUsage, llvm::toString(std::move(err)));
  artifacts.insert(artifacts.end(), {samplesJson, csv, json});
  record.artifacts.insert(record.artifacts.end(), artifacts.begin(), artifacts.end());
  record.outputs = tensorResults(evaluation->worstOutputs);
  progress.write(driver::formatCompareSamples(samplesRecord));
  progress.write("\n", /*flush=*/true);

  if (o.findDivergent) {
    std::vector<CalibrationSample> gain =
        worstSamples(aggregate.samples(), *samples, static_cast<size_t>(o.divergentSamples));
    if (std::optional<int> code = writeFirstDivergent(
            context, samplesRecord.layers, static_cast<int64_t>(aggregate.size()), gain, loader, artifacts))
      return *code;
  }

  // Failing: the failing sample with the lowest output cosine names the layer.
  const driver::SampleResult *failing = nullptr;
  for (const driver::SampleResult &s : aggregate.samples())
    if (!s.pass && (!failing || std::isnan(s.outputCosine) || s.outputCosine < failing->outputCosine))
      failing = &s;
  if (failing) {
    record.firstFailing = failing->firstFailing;
    progress.report("compare", 1.0, std::to_string(samplesRecord.failingSamples) + " sample(s) failed",
                    artifacts);
    return context.fail(
        kExitFailed,
        std::to_string(samplesRecord.failingSamples) + " of " + std::to_string(aggregate.size()) +
            " samples differ from the reference beyond --tolerance " + o.tolerance + "; worst '" +
            failing->name + "' (output cos " + formatMetric(failing->outputCosine) + ")" +
            (failing->firstFailing.empty() ? "" : ", first failing layer '" + failing->firstFailing + "'"));
  }
  progress.report("compare", 1.0,
                  std::to_string(aggregate.size()) + " sample(s) within --tolerance " + o.tolerance,
                  artifacts);
  return kExitOk;
}

} // namespace tpuc::cli
