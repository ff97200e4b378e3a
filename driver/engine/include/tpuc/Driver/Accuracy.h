//===- Accuracy.h - Accuracy over many samples and the first divergent layers ===//
//
// The engine of `tpuc deploy --compare_all` with a folder or data list of test inputs and of
// --find_divergent (docs/ACCURACY.md):
//
//  * SampleAggregator folds each sample's per-layer comparison (accumulated and isolated) into statistics
//    as the samples stream by: mean, minimum and 5th percentile of cosine and euclidean similarity, the
//    failing-sample count and the worst sample per layer. It keeps two doubles per layer, mode and sample
//    (an exact percentile needs them), never a tensor.
//  * SampleEvaluator runs one sample through the float reference and the Tpu simulator, accumulated and
//    isolated, and compares every layer; evaluateSamples streams a list of samples through it, so memory
//    holds the tensors of one sample at a time.
//  * firstDivergentLayers is the rule: the layers whose isolated statistics break the tolerance while
//    every producer's accumulated statistics pass. findFirstDivergent re-lowers the model with each of the
//    worst of them kept in float (and once more with its consumers too) and ranks them by the output
//    cosine gained.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_ACCURACY_H
#define TPUC_DRIVER_ACCURACY_H

#include "tpuc/Driver/AccuracyRecords.h"
#include "tpuc/Driver/DeployStages.h"
#include "tpuc/Driver/Driver.h"

#include "tpuc/Quant/Tables.h"
#include "tpuc/Simulator/Compare.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Simulator/TpuSim.h"
#include "tpuc/Support/Npz.h"
#include "tpuc/Transforms/FusePreprocess.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace tpuc::driver {

/// The p-th percentile (0 to 100) of `values` by linear interpolation between the closest ranks (numpy's
/// default: rank p/100 * (n - 1) of the sorted values). NaN sorts first (it is the worst a metric can be);
/// NaN for no values.
double percentile(std::vector<double> values, double p);

/// One layer's metrics on one sample, as the aggregator takes them.
struct LayerMetric {
  double cosine = 1, euclidean = 1;
  bool pass = true;
};
struct LayerObservation {
  std::string name;
  LayerMetric accumulated;
  std::optional<LayerMetric> isolated;
};

/// The rows of a side-by-side comparison as observations.
std::vector<LayerObservation> observations(const std::vector<cli::LayerRow> &rows);

/// Per-layer statistics over samples, folded in as they come (see the file comment).
class SampleAggregator {
public:
  /// Adds a sample: its result (index set here to its position) and its layers in graph order. A layer
  /// first seen in a later sample is appended after the layers known.
  void add(SampleResult sample, const std::vector<LayerObservation> &layers);
  size_t size() const { return results.size(); }
  /// The statistics of every layer so far, in the order first seen.
  std::vector<LayerStats> layers() const;
  const std::vector<SampleResult> &samples() const { return results; }
  /// The sample with the lowest output cosine (the first of equals), -1 before any.
  int64_t worstSample() const;
  /// Samples whose comparison failed (SampleResult::pass false).
  int64_t failingSamples() const;
  /// Doubles held for the statistics (2 per layer, mode and sample): what bounds the memory.
  size_t valuesHeld() const;

private:
  struct Series {
    std::vector<double> cosine, euclidean;
    std::vector<int64_t> sample;
    int64_t failing = 0;
  };
  struct Layer {
    std::string name;
    Series accumulated, isolated;
  };
  MetricStats summarize(const Series &series) const;

  std::vector<Layer> series;
  std::unordered_map<std::string, size_t> indexOf;
  std::vector<SampleResult> results;
};

/// Who feeds whom in a Top function, by tensor name: for every op its producers (the tensors it reads,
/// graph inputs included, weights and none left out) and its consumers.
struct TensorGraph {
  std::map<std::string, std::vector<std::string>> producers, consumers;
  /// The names ops produce (graph inputs are not ops: nothing can be kept in float there).
  std::set<std::string> ops;
};
TensorGraph tensorGraph(mlir::ModuleOp top);

/// How far `stats`' p5 metrics sit above the tolerance, as a fraction of the room between the tolerance
/// and 1: min over cosine and euclidean of (p5 - tol) / (1 - tol) (a tolerance of 1 counts the raw
/// difference). Negative when broken.
double headroom(const MetricStats &stats, const CompareTolerance &tolerance);
/// Whether a layer's statistics pass: p5 cosine and p5 euclidean at least the tolerance.
bool statsPass(const MetricStats &stats, const CompareTolerance &tolerance);

/// How the rule picks layers whose producers' accumulated statistics pass.
enum class DivergenceRule {
  /// Those whose isolated statistics break the tolerance: the error they make on exact inputs.
  Isolated,
  /// All of them, least isolated headroom first: the fallback when no layer breaks the tolerance on its
  /// own but the run leaves it (the error builds up, and the layers adding most to it are wanted).
  Headroom,
};

/// The rule: indices into `layers` of the ops (with isolated statistics) whose producers' accumulated
/// statistics all pass (a producer that was not compared counts as passing) and, by `rule`, whose isolated
/// statistics break the tolerance; smallest isolated headroom first, graph order among equals.
std::vector<size_t> firstDivergentLayers(const std::vector<LayerStats> &layers, const TensorGraph &graph,
                                         const CompareTolerance &tolerance,
                                         DivergenceRule rule = DivergenceRule::Isolated);

/// `tensors` with each fused input (--fuse_preprocess) renamed to its preprocessed tensor: the reference's
/// preprocessed values under the name the chip's tensors give them.
NpzFile renameFusedInputs(const NpzFile &tensors, const std::vector<FusedInput> &fused);

/// A sample's tensors: what the chip is given and what the reference is given (the same, except with
/// fused preprocessing, where the chip takes raw pixels).
struct SampleInputs {
  NpzFile chip, reference;
};

/// Loads the samples of a Top module (and of its fused-preprocessing twin, when given) from their files.
class SampleLoader {
public:
  SampleLoader(mlir::ModuleOp top, mlir::ModuleOp fusedTop = {});
  /// One line naming the file on error (as --test_input's).
  llvm::Expected<SampleInputs> load(const std::vector<std::string> &files) const;

private:
  mlir::ModuleOp top, fusedTop;
  std::unique_ptr<sim::Interpreter> topInterpreter, fusedInterpreter;
};

/// What SampleEvaluator compares.
struct EvaluatorOptions {
  CompareTolerance tolerance;
  std::vector<std::string> excepts;
  /// Inputs whose preprocessing the chip does (--fuse_preprocess): compared under their preprocessed name.
  std::vector<FusedInput> fused;
};

/// One sample through the reference and the Tpu simulator, accumulated and isolated, every layer compared.
/// The runners (and their weights) are kept between samples; their tensors are the last sample's only.
class SampleEvaluator {
public:
  /// `top` and `tpu` must outlive the evaluator.
  SampleEvaluator(mlir::ModuleOp top, mlir::ModuleOp tpu, EvaluatorOptions options);
  ~SampleEvaluator();

  struct Result {
    NpzComparison outputs;           ///< Tpu outputs (accumulated) against the reference's
    std::vector<cli::LayerRow> rows; ///< every layer, graph order
  };
  /// Fails with the first run's one-line error.
  llvm::Expected<Result> evaluate(const SampleInputs &inputs);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// A sample's result record from its evaluation.
SampleResult sampleResult(const std::vector<std::string> &files, const SampleEvaluator::Result &evaluated);

/// The error of evaluateSamples when a sample's files cannot be read or do not fit the model (bad input,
/// where a simulator error is a failed job).
class SampleInputError : public llvm::ErrorInfo<SampleInputError> {
public:
  static char ID;
  explicit SampleInputError(std::string message) : message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
  std::string message;
};

/// Many samples through a SampleEvaluator.
struct SamplesEvaluation {
  SampleAggregator aggregate;
  /// The layers and outputs of the sample with the lowest output cosine (for <stem>_compare.json/.csv).
  std::vector<cli::LayerRow> worstRows;
  NpzComparison worstOutputs;
};

/// Evaluates `samples` one after the other: "compare" progress from `begin` to `end` with a line per
/// sample, cancellation polled before each (a CancelledError, "cancelled after 3/50 samples"); a sample
/// that cannot be loaded is a SampleInputError naming its file, other errors are one line naming the sample.
llvm::Expected<SamplesEvaluation> evaluateSamples(const std::vector<CalibrationSample> &samples,
                                                  const SampleLoader &loader, SampleEvaluator &evaluator,
                                                  const Sink &progress, double begin = 0.0, double end = 1.0);

/// `tpuc compare TARGET_DIR REFERENCE_DIR`: the pairs and their statistics.
struct FolderComparison {
  /// Per tensor: statistics over the pairs (accumulated only); per pair: every tensor compared.
  CompareSamplesRecord record;
  /// The comparison of the pair with the lowest cosine (the result record's tensors).
  NpzComparison worst;
};

/// Every .npz below `target` (recursively, hidden entries skipped, sorted) against the file of the same
/// relative path below `reference`, one pair at a time, folded into per-tensor statistics as samples are. A
/// target file without its partner or a file that cannot be read is a one-line error naming it (a
/// SampleInputError); reference files without a target are left out. "compare" progress per pair.
llvm::Expected<FolderComparison> compareFolders(const std::string &target, const std::string &reference,
                                                const CompareTolerance &tolerance,
                                                const std::vector<std::string> &excepts,
                                                const Sink &progress = {});

/// Lowers the Top module again with `floatOps` (op name -> mode) on top of the deploy's quantize table.
using Relower =
    std::function<llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>(const quant::QuantizeTable &floatOps)>;

/// How findFirstDivergent measures gains.
struct DivergentSearch {
  mlir::ModuleOp top; ///< the reference
  Relower relower;
  /// The module `relower` lowers copies of: once a re-run is done, the weights its lowering created are
  /// released (top::releasePendingWeights), keeping this module's. Null: they stay until the process ends.
  mlir::ModuleOp source;
  /// The precision a candidate is kept in; nullopt: nothing is re-run (an F32 deploy).
  std::optional<quant::QuantMode> floatMode;
  CompareTolerance tolerance;
  /// How many candidates (smallest headroom first) are re-run.
  size_t candidates = 5;
  /// The samples of the re-runs, loaded by `loader`.
  std::vector<CalibrationSample> gainSamples;
  const SampleLoader *loader = nullptr;
};

/// The first divergent layers of `layers` (statistics over `numSamples` samples of the model `graph`
/// describes), the first `search.top` re-run in float, ranked (AccuracyRecords.h). "divergent" progress per
/// re-run; cancellation polled before each (a CancelledError). The deployed model's names (mlir, chip,
/// quantize) are the caller's to fill in.
llvm::Expected<FirstDivergentRecord> findFirstDivergent(const std::vector<LayerStats> &layers,
                                                        int64_t numSamples, const TensorGraph &graph,
                                                        const DivergentSearch &search, const Sink &progress);

/// The report for humans: one line per candidate.
std::string formatFirstDivergent(const FirstDivergentRecord &record);
/// The per-layer statistics for humans: accumulated mean / min / p5 cosine, isolated p5 cosine, failing
/// samples and the worst sample of each layer, then a line on the samples.
std::string formatCompareSamples(const CompareSamplesRecord &record);

/// The precision --find_divergent keeps an op in for a deploy in `quantize` on `chip`: F16 (BF16 on a chip
/// without F16) for INT8 and weight-only modes, F32 for F16 and BF16, none for F32.
std::optional<quant::QuantMode> divergentFloatMode(const std::string &quantize, const std::string &chip);

} // namespace tpuc::driver

#endif // TPUC_DRIVER_ACCURACY_H
