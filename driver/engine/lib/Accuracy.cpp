//===- Accuracy.cpp - Samples through the simulators, float re-runs --------===//
//
// The simulator half of Accuracy.h. A sample runs the Top reference once and the Tpu simulator twice on
// one simulator instance (accumulated, then isolated on the reference's tensors), so the weights are loaded
// once per deploy and the tensors held are those of one sample; only the comparisons' metrics survive it.
// The first divergent layers are re-run on a few samples with a module lowered again with the op (and then
// also its consumers) in float: the gain is what the output cosine moves.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Driver/Accuracy.h"

#include "AccuracyFormat.h"

#include "tpuc/Driver/Calibration.h"
#include "tpuc/Driver/SearchQtable.h"
#include "tpuc/Driver/TestInputs.h"

#include "tpuc/Dataset/Scan.h"
#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/Preprocess/Preprocess.h"
#include "tpuc/Simulator/Runner.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <sstream>

namespace tpuc::driver {
namespace {

using accuracy_format::fixed;
using accuracy_format::signedFixed;

std::string joinFiles(const std::vector<std::string> &files) {
  std::string name;
  for (const std::string &file : files)
    name += (name.empty() ? "" : ",") + file;
  return name;
}

/// The lowest cosine over the reference's outputs (0 for an output the run lacks); NaN is the lowest.
double lowestOutputCosine(const NpzFile &outputs, const NpzFile &reference) {
  double lowest = 1.0;
  for (const std::string &name : reference.names()) {
    double c = outputs.has(name) ? cli::cosineOf(outputs.get(name), reference.get(name)) : 0.0;
    if (std::isnan(c) || c < lowest)
      lowest = c;
  }
  return lowest;
}

} // namespace

char SampleInputError::ID = 0;
void SampleInputError::log(llvm::raw_ostream &os) const { os << message; }
std::error_code SampleInputError::convertToErrorCode() const { return llvm::inconvertibleErrorCode(); }

NpzFile renameFusedInputs(const NpzFile &tensors, const std::vector<FusedInput> &fused) {
  NpzFile renamed;
  for (const std::string &name : tensors.names()) {
    auto f = llvm::find_if(fused, [&](const FusedInput &f) { return f.input == name; });
    renamed.set(f == fused.end() ? name : f->preprocessed, tensors.get(name));
  }
  return renamed;
}

TensorGraph tensorGraph(mlir::ModuleOp top) {
  TensorGraph graph;
  mlir::func::FuncOp func = cli::entryFunction(top);
  if (!func || func.getBody().empty())
    return graph;
  mlir::Block &body = func.getBody().front();
  std::vector<mlir::Value> values(func.getArguments().begin(), func.getArguments().end());
  for (mlir::Operation &op : body)
    for (mlir::Value result : op.getResults())
      values.push_back(result);
  std::vector<std::string> names = top::nameValues(func, values);
  llvm::DenseMap<mlir::Value, size_t> index;
  for (size_t i = 0; i < values.size(); ++i)
    index[values[i]] = i;
  auto isData = [](mlir::Value v) {
    mlir::Operation *def = v.getDefiningOp();
    return def && !mlir::isa<top::WeightOp, top::NoneOp>(def);
  };
  for (mlir::Operation &op : body) {
    if (op.getNumResults() == 0 || mlir::isa<top::WeightOp, top::NoneOp, top::InputOp>(op))
      continue;
    std::vector<std::string> inputs;
    for (mlir::Value operand : op.getOperands())
      if (isData(operand))
        if (const std::string &name = names[index.lookup(operand)]; !llvm::is_contained(inputs, name))
          inputs.push_back(name);
    for (mlir::Value result : op.getResults()) {
      const std::string &name = names[index.lookup(result)];
      graph.ops.insert(name);
      graph.producers[name] = inputs;
      for (const std::string &input : inputs)
        if (std::vector<std::string> &users = graph.consumers[input]; !llvm::is_contained(users, name))
          users.push_back(name);
    }
  }
  return graph;
}

SampleLoader::SampleLoader(mlir::ModuleOp top, mlir::ModuleOp fusedTop)
    : top(top), fusedTop(fusedTop), topInterpreter(std::make_unique<sim::Interpreter>(top)) {
  if (fusedTop)
    fusedInterpreter = std::make_unique<sim::Interpreter>(fusedTop);
}

llvm::Expected<SampleInputs> SampleLoader::load(const std::vector<std::string> &files) const {
  auto reference = cli::loadTestInputs(files, *topInterpreter, top);
  if (!reference)
    return reference.takeError();
  if (!fusedTop)
    return SampleInputs{*reference, std::move(*reference)};
  // With fused preprocessing the chip takes the raw pixels of the same images (decoded and resized only).
  for (const std::string &file : files)
    if (!preprocess::isImageFile(file))
      return llvm::createStringError(file +
                                     ": with --fuse_preprocess the test input must be an image (the "
                                     "model takes raw pixels; a tensor file holds preprocessed values)");
  auto raw = cli::loadTestInputs(files, *fusedInterpreter, fusedTop);
  if (!raw)
    return raw.takeError();
  return SampleInputs{std::move(*raw), std::move(*reference)};
}

struct SampleEvaluator::Impl {
  Impl(mlir::ModuleOp top, mlir::ModuleOp tpu, EvaluatorOptions options)
      : reference(top), accumulated(tpu, reference.outputNames()), options(std::move(options)) {}
  sim::TopRunner reference;
  sim::TpuRunner accumulated;
  EvaluatorOptions options;
  /// With fused preprocessing: the reference's tensors under the chip's names (the last sample's).
  NpzFile renamed;
};

SampleEvaluator::SampleEvaluator(mlir::ModuleOp top, mlir::ModuleOp tpu, EvaluatorOptions options)
    : impl(std::make_unique<Impl>(top, tpu, std::move(options))) {}

SampleEvaluator::~SampleEvaluator() = default;

llvm::Expected<SampleEvaluator::Result> SampleEvaluator::evaluate(const SampleInputs &inputs) {
  Impl &m = *impl;
  sim::RunnerOptions all;
  all.dumpAll = true;
  if (auto err = sim::runOn(m.reference, inputs.reference, all))
    return std::move(err);
  if (auto err = sim::runOn(m.accumulated, inputs.chip, all))
    return std::move(err);
  Result result;
  const CompareTolerance &tolerance = m.options.tolerance;
  result.outputs = compareNpz(m.accumulated.outputs(), m.reference.outputs(), tolerance, m.options.excepts);
  const NpzFile *reference = &m.reference.tensors();
  if (!m.options.fused.empty()) {
    m.renamed = renameFusedInputs(m.reference.tensors(), m.options.fused);
    reference = &m.renamed;
  }
  NpzComparison accumulated = compareNpz(m.accumulated.tensors(), *reference, tolerance, m.options.excepts);
  // The isolated run on the same simulator: every op fed the reference's inputs (the sample's inputs stay
  // set).
  sim::TpuRunOptions isolatedRun;
  isolatedRun.dumpAll = true;
  isolatedRun.reference = reference;
  if (auto err = m.accumulated.simulator().run(isolatedRun))
    return llvm::createStringError("isolated simulation: " + llvm::toString(std::move(err)));
  NpzComparison isolated =
      compareNpz(m.accumulated.simulator().tensors(), *reference, tolerance, m.options.excepts);
  result.rows = cli::sideBySide(accumulated, &isolated, *reference);
  return result;
}

SampleResult sampleResult(const std::vector<std::string> &files, const SampleEvaluator::Result &evaluated) {
  SampleResult sample;
  sample.name = joinFiles(files);
  sample.files = files;
  sample.pass = evaluated.outputs.failedCount() == 0;
  for (const cli::LayerRow &row : evaluated.rows)
    if (!row.accumulated.passed()) {
      sample.pass = false;
      sample.firstFailing = row.name;
      break;
    }
  sample.outputCosine = evaluated.outputs.results.empty() ? std::numeric_limits<double>::quiet_NaN() : 1.0;
  for (const TensorComparison &c : evaluated.outputs.results) {
    sample.outputs.push_back({c.name, c.metrics.cosine, c.metrics.euclidean, c.passed()});
    if (std::isnan(c.metrics.cosine) || c.metrics.cosine < sample.outputCosine)
      sample.outputCosine = c.metrics.cosine;
  }
  return sample;
}

llvm::Expected<SamplesEvaluation> evaluateSamples(const std::vector<CalibrationSample> &samples,
                                                  const SampleLoader &loader, SampleEvaluator &evaluator,
                                                  const Sink &progress, double begin, double end) {
  SamplesEvaluation evaluation;
  double worst = std::numeric_limits<double>::infinity();
  const size_t total = samples.size();
  for (size_t i = 0; i < total; ++i) {
    // Cancellation is polled per sample: a run of a thousand images stops within one sample's time.
    if (progress.isCancelled())
      return llvm::make_error<CancelledError>("cancelled after " + std::to_string(i) + "/" +
                                              std::to_string(total) + " samples");
    const CalibrationSample &sample = samples[i];
    std::string name = joinFiles(sample.files);
    auto inputs = loader.load(sample.files);
    if (!inputs)
      return llvm::make_error<SampleInputError>((sample.origin.empty() ? "" : sample.origin + ": ") +
                                                llvm::toString(inputs.takeError()));
    auto evaluated = evaluator.evaluate(*inputs);
    if (!evaluated)
      return llvm::createStringError(name + ": " + llvm::toString(evaluated.takeError()));
    SampleResult result = sampleResult(sample.files, *evaluated);
    std::string line = "sample " + std::to_string(i + 1) + "/" + std::to_string(total) + ": " + name +
                       ": output cos " + fixed(result.outputCosine) +
                       (result.firstFailing.empty() ? "" : ", first failing '" + result.firstFailing + "'");
    // The worst sample's layers are kept (metrics only) for <stem>_compare.json; NaN is the worst.
    if (evaluation.aggregate.size() == 0 || std::isnan(result.outputCosine) ||
        (!std::isnan(worst) && result.outputCosine < worst)) {
      worst = result.outputCosine;
      evaluation.worstRows = evaluated->rows;
      evaluation.worstOutputs = evaluated->outputs;
    }
    evaluation.aggregate.add(std::move(result), observations(evaluated->rows));
    progress.report("compare", begin + (end - begin) * double(i + 1) / double(total), line);
  }
  return evaluation;
}

llvm::Expected<FolderComparison> compareFolders(const std::string &target, const std::string &reference,
                                                const CompareTolerance &tolerance,
                                                const std::vector<std::string> &excepts,
                                                const Sink &progress) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const std::string &dir : {target, reference})
    if (!fs::is_directory(dir, ec))
      return llvm::make_error<SampleInputError>(dir + ": not a directory");
  std::vector<std::string> files;
  ec = dataset::forEachDatasetFile(target, [&](const fs::directory_entry &entry) {
    if (entry.path().extension() == ".npz")
      files.push_back(entry.path().lexically_relative(target).generic_string());
  });
  if (ec)
    return llvm::make_error<SampleInputError>(target + ": " + ec.message());
  if (files.empty())
    return llvm::make_error<SampleInputError>(target + ": no .npz files");
  std::sort(files.begin(), files.end());
  for (const std::string &file : files)
    if (!fs::is_regular_file(fs::path(reference) / file, ec))
      return llvm::make_error<SampleInputError>((fs::path(target) / file).string() +
                                                ": no file of that name in " + reference);
  FolderComparison result;
  SampleAggregator aggregate;
  double worst = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < files.size(); ++i) {
    if (progress.isCancelled())
      return llvm::make_error<CancelledError>("cancelled after " + std::to_string(i) + "/" +
                                              std::to_string(files.size()) + " pairs");
    std::string t = (fs::path(target) / files[i]).string(), r = (fs::path(reference) / files[i]).string();
    Result<NpzFile> targetTensors = NpzFile::tryRead(t);
    if (!targetTensors)
      return llvm::make_error<SampleInputError>(targetTensors.error());
    Result<NpzFile> referenceTensors = NpzFile::tryRead(r);
    if (!referenceTensors)
      return llvm::make_error<SampleInputError>(referenceTensors.error());
    NpzComparison comparison = compareNpz(*targetTensors, *referenceTensors, tolerance, excepts);
    comparison.targetName = t;
    comparison.referenceName = r;
    SampleResult sample;
    sample.name = files[i];
    sample.files = {t, r};
    sample.pass = comparison.allPassed();
    sample.outputCosine = comparison.results.empty() ? std::numeric_limits<double>::quiet_NaN() : 1.0;
    std::vector<LayerObservation> layers;
    for (const TensorComparison &c : comparison.results) {
      layers.push_back({c.name, {c.metrics.cosine, c.metrics.euclidean, c.passed()}, std::nullopt});
      sample.outputs.push_back({c.name, c.metrics.cosine, c.metrics.euclidean, c.passed()});
      if (sample.firstFailing.empty() && !c.passed())
        sample.firstFailing = c.name;
      if (std::isnan(c.metrics.cosine) || c.metrics.cosine < sample.outputCosine)
        sample.outputCosine = c.metrics.cosine;
    }
    if (aggregate.size() == 0 || std::isnan(sample.outputCosine) ||
        (!std::isnan(worst) && sample.outputCosine < worst)) {
      worst = sample.outputCosine;
      result.worst = comparison;
    }
    progress.report("compare", double(i + 1) / double(files.size()),
                    "pair " + std::to_string(i + 1) + "/" + std::to_string(files.size()) + ": " + files[i] +
                        ": lowest cos " + fixed(sample.outputCosine));
    aggregate.add(std::move(sample), layers);
  }
  CompareSamplesRecord &record = result.record;
  record.target = target;
  record.reference = reference;
  record.toleranceCosine = tolerance.cosine;
  record.toleranceEuclidean = tolerance.euclidean;
  record.failingSamples = aggregate.failingSamples();
  record.worstSample = aggregate.worstSample();
  record.layers = aggregate.layers();
  record.samples = aggregate.samples();
  return result;
}

std::optional<quant::QuantMode> divergentFloatMode(const std::string &quantize, const std::string &chip) {
  std::optional<top::Precision> mode = parseLoweringMode(quantize);
  if (!mode || *mode == top::Precision::F32)
    return std::nullopt;
  if (*mode == top::Precision::F16 || *mode == top::Precision::BF16)
    return quant::QuantMode::F32;
  return searchFloatMode(chip);
}

namespace {

/// Whether every layer's accumulated statistics pass: then nothing diverges.
bool allPass(const std::vector<LayerStats> &layers, const CompareTolerance &tolerance) {
  return std::all_of(layers.begin(), layers.end(),
                     [&](const LayerStats &l) { return statsPass(l.accumulated, tolerance); });
}

} // namespace

llvm::Expected<FirstDivergentRecord> findFirstDivergent(const std::vector<LayerStats> &layers,
                                                        int64_t numSamples, const TensorGraph &graph,
                                                        const DivergentSearch &search, const Sink &progress) {
  FirstDivergentRecord record;
  record.toleranceCosine = search.tolerance.cosine;
  record.toleranceEuclidean = search.tolerance.euclidean;
  record.samples = numSamples;
  record.baselineOutputCosine = std::numeric_limits<double>::quiet_NaN();
  std::unordered_map<std::string, const LayerStats *> byName;
  for (const LayerStats &layer : layers)
    byName.emplace(layer.name, &layer);
  // The layers whose own error breaks the tolerance; when none does but the run leaves it, the error builds
  // up over several layers, and the layers making the most of it (least isolated headroom) are re-run.
  DivergenceRule rule = DivergenceRule::Isolated;
  std::vector<size_t> found = firstDivergentLayers(layers, graph, search.tolerance, rule);
  if (found.empty() && !allPass(layers, search.tolerance)) {
    rule = DivergenceRule::Headroom;
    found = firstDivergentLayers(layers, graph, search.tolerance, rule);
  }
  if (!found.empty())
    record.rule = rule == DivergenceRule::Isolated ? "isolated" : "headroom";
  for (size_t index : found) {
    const LayerStats &layer = layers[index];
    DivergentCandidate c;
    c.name = layer.name;
    c.isolated = *layer.isolated;
    c.accumulated = layer.accumulated;
    c.headroom = headroom(c.isolated, search.tolerance);
    if (auto p = graph.producers.find(layer.name); p != graph.producers.end())
      for (const std::string &input : p->second) {
        auto it = byName.find(input);
        c.inputs.push_back(
            {input, it == byName.end() ? std::nullopt : std::optional(it->second->accumulated)});
      }
    if (auto users = graph.consumers.find(layer.name); users != graph.consumers.end())
      c.consumers = users->second;
    record.candidates.push_back(std::move(c));
  }
  if (record.candidates.empty()) {
    record.summary =
        "no layer breaks the tolerance on its own while its inputs pass, and every layer is within it";
    return record;
  }
  size_t measure = std::min(search.candidates, record.candidates.size());
  if (!search.floatMode || !search.relower || !search.loader || search.gainSamples.empty())
    measure = 0;
  std::vector<std::string> notRerun;
  if (measure > 0) {
    std::string mode(quant::quantModeName(*search.floatMode));
    record.floatMode = mode;
    // The gain samples' inputs and reference outputs stay loaded for the re-runs (a few samples' worth).
    struct GainSample {
      SampleInputs inputs;
      NpzFile outputs;
    };
    std::vector<GainSample> gains;
    sim::TopRunner reference(search.top);
    for (const CalibrationSample &sample : search.gainSamples) {
      auto inputs = search.loader->load(sample.files);
      if (!inputs)
        return inputs.takeError();
      if (auto err = sim::runOn(reference, inputs->reference, {}))
        return std::move(err);
      gains.push_back({std::move(*inputs), reference.outputs()});
      record.gainSamples.push_back(joinFiles(sample.files));
    }
    std::vector<std::string> outputNames = reference.outputNames();
    auto meanOutputCosine = [&](const quant::QuantizeTable &floatOps) -> llvm::Expected<double> {
      auto module = search.relower(floatOps);
      if (!module)
        return module.takeError();
      // The lowering's new weights go with the module: a re-run's memory is freed before the next.
      auto release = llvm::make_scope_exit([&] {
        if (search.source)
          top::releasePendingWeights(**module, search.source);
      });
      sim::TpuRunner runner(**module, outputNames);
      double sum = 0;
      for (const GainSample &g : gains) {
        if (auto err = sim::runOn(runner, g.inputs.chip, {}))
          return std::move(err);
        sum += lowestOutputCosine(runner.outputs(), g.outputs);
      }
      return sum / double(gains.size());
    };
    size_t steps = 1 + 2 * measure, done = 0;
    auto step = [&](const std::string &message) {
      ++done;
      progress.report("divergent", double(done) / double(steps), message);
    };
    auto baseline = meanOutputCosine({});
    if (!baseline)
      return llvm::createStringError("re-running the deployed model: " +
                                     llvm::toString(baseline.takeError()));
    record.baselineOutputCosine = *baseline;
    step("deployed: output cos " + fixed(*baseline) + " on " + std::to_string(gains.size()) + " sample(s)");
    for (size_t k = 0; k < measure; ++k) {
      // Cancellation is polled before each re-run pair (each is a lowering and a few simulator runs).
      if (progress.isCancelled())
        return llvm::make_error<CancelledError>("cancelled after " + std::to_string(k) + "/" +
                                                std::to_string(measure) + " float re-runs");
      DivergentCandidate &c = record.candidates[k];
      quant::QuantizeTable floatOps;
      floatOps.set(c.name, *search.floatMode);
      auto alone = meanOutputCosine(floatOps);
      if (!alone) {
        notRerun.push_back("'" + c.name + "' (" + llvm::toString(alone.takeError()) + ")");
        done += 2;
        continue;
      }
      c.floatOutputCosine = *alone;
      c.gain = *alone - *baseline;
      step("'" + c.name + "' in " + mode + ": output cos " + signedFixed(c.gain));
      // Its output is requantized by its own scale for INT8 consumers even when it computes in float:
      // the second re-run keeps those consumers in float too.
      for (const std::string &user : c.consumers)
        if (graph.ops.count(user)) {
          c.outputFloatOps.push_back(user);
          floatOps.set(user, *search.floatMode);
        }
      c.outputFloatCosine = c.floatOutputCosine;
      if (!c.outputFloatOps.empty()) {
        auto withOutput = meanOutputCosine(floatOps);
        if (!withOutput) {
          notRerun.push_back("'" + c.name + "' with its consumers (" +
                             llvm::toString(withOutput.takeError()) + ")");
          c.outputFloatOps.clear();
        } else {
          c.outputFloatCosine = *withOutput;
        }
      }
      c.outputGain = c.outputFloatCosine - *baseline;
      c.score = std::max(c.gain, c.outputGain);
      c.measured = true;
      step("'" + c.name + "' and its consumers in " + mode + ": output cos " + signedFixed(c.outputGain));
    }
  }
  // Measured candidates by score, then the others by headroom (their order so far).
  std::stable_sort(record.candidates.begin(), record.candidates.end(),
                   [](const DivergentCandidate &a, const DivergentCandidate &b) {
                     if (a.measured != b.measured)
                       return a.measured;
                     return a.measured && a.score > b.score;
                   });
  const DivergentCandidate &first = record.candidates.front();
  std::ostringstream summary;
  if (rule == DivergenceRule::Isolated)
    summary << "'" << first.name << "' breaks first: isolated cos " << fixed(first.isolated.p5Cosine)
            << ", euc " << fixed(first.isolated.p5Euclidean) << " while its inputs pass";
  else
    summary << "no layer breaks the tolerance on its own: the error builds up; '" << first.name
            << "' adds most (isolated cos " << fixed(first.isolated.p5Cosine) << ", euc "
            << fixed(first.isolated.p5Euclidean) << ")";
  if (first.measured) {
    summary << "; in " << record.floatMode << " the output cosine moves " << signedFixed(first.gain);
    if (!first.outputFloatOps.empty())
      summary << " (" << signedFixed(first.outputGain) << " with its consumers: its output's quantization "
              << (first.outputGain > first.gain + 1e-3 ? "is part of the loss" : "adds little") << ")";
  }
  summary << "; " << record.candidates.size() << " candidate(s)";
  if (!notRerun.empty()) {
    summary << "; not re-run: ";
    for (size_t i = 0; i < notRerun.size(); ++i)
      summary << (i ? ", " : "") << notRerun[i];
  }
  record.summary = summary.str();
  return record;
}

} // namespace tpuc::driver
