//===- Calibration.h - The pieces of calibrate, as library calls ----------===//
//
// Sample collection, the passes over the samples (statistics, the threshold search), the table assembly
// and the reports of run_calibration. driver::calibrate (Driver.h) strings them together; the
// mixed-precision search and the calibration report (--report) reuse the samples, the runner and the
// statistics. A separate header from Driver.h: the runner takes an MLIR module.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_CALIBRATION_H
#define TPUC_DRIVER_CALIBRATION_H

#include "tpuc/Driver/Driver.h"

#include "tpuc/Quant/Calibration.h"
#include "tpuc/Quant/Tables.h"
#include "tpuc/Quant/ThresholdSearch.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tpuc::sim {
class Interpreter;
} // namespace tpuc::sim

namespace tpuc::driver {

/// How the statistics run uses the machine.
struct CalibrationRunConfig {
  int64_t histogramBins = quant::kDefaultHistogramBins;
  /// Threads in total; 0 means the hardware concurrency.
  int64_t threads = 0;
  /// "samples": one interpreter per thread, samples spread over them, single-threaded kernels;
  /// "kernels": one interpreter whose kernels use every thread.
  std::string parallel = "samples";
};

/// The samples of --dataset, --data_list or --subset, cut to --input_num. For a model with several inputs
/// (`inputNames`), a folder with one subfolder per input pairs the files of the same name below them into
/// one sample (dataset::groupByInputs; docs/DATASETS.md). The error is one line naming the path (unreadable
/// list, missing directory, unknown subset, no samples, a file without its partners).
llvm::Expected<std::vector<CalibrationSample>>
collectCalibrationSamples(const CalibrateOptions &options, const std::vector<std::string> &inputNames);

/// The samples of a data list (TPU-MLIR's --data_list: one sample a line, the files of a multi-input
/// sample separated by commas or spaces; blank lines and '#' comments skipped). A relative path that does
/// not exist from the current directory is looked up beside the list.
llvm::Expected<std::vector<CalibrationSample>> readDataList(const std::string &list);

/// The error of a pass over the samples that the sink cancelled ("cancelled after 3/12 samples").
class CancelledError : public llvm::ErrorInfo<CancelledError> {
public:
  static char ID;
  explicit CancelledError(std::string message) : message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
  std::string message;
};

/// The interpreters of a calibration run, one per worker thread ("samples": as many as threads, at most
/// one per sample; "kernels": one), kept between passes over the samples: search_threshold runs them twice
/// and the weights stay loaded.
class CalibrationRunner {
public:
  CalibrationRunner(mlir::ModuleOp module, size_t numSamples, const CalibrationRunConfig &config);
  ~CalibrationRunner();
  CalibrationRunner(const CalibrationRunner &) = delete;
  CalibrationRunner &operator=(const CalibrationRunner &) = delete;

  size_t numWorkers() const { return interpreters.size(); }

  /// Receives every tensor of every sample as the interpreter produces it: the worker that ran it, the
  /// sample's index, the tensor's name and its values (valid during the call only). Calls for one worker
  /// come from one thread.
  using TensorSink =
      std::function<void(size_t worker, size_t sample, llvm::StringRef name, std::span<const float> values)>;
  /// Called once a sample has run (on the worker's thread), before the worker takes the next one.
  using SampleDone = std::function<void(size_t worker, size_t sample)>;

  /// Runs every sample and hands its tensors to `sink`; no tensor outlives its op. Reports "calibrate"
  /// progress from `begin` to `end`, "<label>sample i/N", and polls the sink's cancellation before each
  /// sample (a CancelledError then). Other errors are one line naming the first failing sample (one that
  /// cannot be read or does not fit the model's inputs, an interpreter error).
  llvm::Error run(const std::vector<CalibrationSample> &samples, const TensorSink &sink, const Sink &progress,
                  double begin, double end, const std::string &label, const SampleDone &done = {});

private:
  mlir::ModuleOp module;
  CalibrationRunConfig config;
  std::vector<std::unique_ptr<sim::Interpreter>> interpreters;
};

/// First pass: folds every tensor of every sample into streaming statistics, one per worker, merged at
/// the end (the result does not depend on the split, see Calibration.h). Progress from `begin` to `end`.
llvm::Expected<quant::ActivationStatistics>
collectActivationStatistics(CalibrationRunner &runner, const std::vector<CalibrationSample> &samples,
                            int64_t histogramBins, const Sink &progress, double begin, double end);

/// Second pass of --search search_threshold: every tensor fake-quantized at the candidates of `stats`
/// (ThresholdSearch.h). Progress from `begin` to `end`.
llvm::Expected<quant::ThresholdSearch> searchThresholds(CalibrationRunner &runner,
                                                        const quant::ActivationStatistics &stats,
                                                        const std::vector<CalibrationSample> &samples,
                                                        const Sink &progress, double begin, double end);

/// How each tensor's threshold (by one method) moves as samples are added: the statistics of the first k
/// samples, in list order, at each checkpoint k (convergenceCheckpoints).
struct Convergence {
  quant::CalibrationMethod method = quant::CalibrationMethod::KL;
  /// Within this fraction of the final threshold counts as converged (1 %).
  double tolerance = 0.01;
  std::vector<size_t> samples; ///< the checkpoints
  std::vector<std::string> names;
  std::vector<std::vector<double>> thresholds; ///< [tensor][checkpoint]

  /// Per tensor: the first checkpoint from which every later threshold stays within `tolerance` of the
  /// final one.
  std::vector<size_t> stableAfter() const;
  /// The largest of those: after this many samples every threshold has settled.
  size_t stableAfterAll() const;
  /// Every threshold settled with at least a quarter of the samples left to confirm it (settling only at
  /// the end says more samples could still move it).
  bool enoughData() const;
};

/// The sample counts at which convergence records thresholds: 1..16, then every ceil(N / 32), and N.
std::vector<size_t> convergenceCheckpoints(size_t numSamples);

struct StatisticsWithConvergence {
  quant::ActivationStatistics statistics;
  Convergence convergence;
};

/// The first pass of --report: each sample's statistics are merged in list order (a sample finished out of
/// order waits, so memory holds about one sample's statistics per worker), and at every checkpoint each
/// tensor's threshold by `method` is recorded. The final statistics equal collectActivationStatistics'.
llvm::Expected<StatisticsWithConvergence>
collectStatisticsWithConvergence(CalibrationRunner &runner, const std::vector<CalibrationSample> &samples,
                                 int64_t histogramBins, quant::CalibrationMethod method, const Sink &progress,
                                 double begin, double end);

/// Writes --report DIR: histograms.json (per tensor its |x| histogram in TPU-MLIR's layout, range and
/// moments, the threshold of every method and the one chosen) and convergence.json (the thresholds at each
/// checkpoint, per tensor and overall the sample count after which they stay within 1 %, and whether
/// that leaves margin: "enough_data"). Returns the files written; the error names the file.
llvm::Expected<std::vector<std::string>> writeCalibrationReport(const std::string &dir,
                                                                const quant::ActivationStatistics &stats,
                                                                const Convergence &convergence,
                                                                const std::string &chosen, size_t numSamples);

/// The table run_calibration writes: TPU-MLIR's header, the 8-bit thresholds of every tensor in graph
/// order and the 4-bit ones under `#int4_th`.
quant::CalibrationTable makeCalibrationTable(const quant::ActivationStatistics &stats,
                                             quant::CalibrationMethod method, size_t numSamples);

/// The table of --search search_threshold: each tensor's chosen threshold, its 4-bit threshold by the
/// chosen method (kl for kl_tune), and a header line counting the tensors each candidate won.
quant::CalibrationTable makeSearchThresholdTable(const quant::ActivationStatistics &stats,
                                                 const std::vector<quant::ThresholdChoice> &choices,
                                                 quant::SearchMetric metric, size_t numSamples);

/// "max 3, percentile9999 0, octav 40, kl_tune 17": how many tensors each candidate won.
std::string winCounts(const std::vector<quant::ThresholdChoice> &choices);

/// Files written beside the calibration table `table`: the search report (search_threshold) and the
/// --debug statistics and histograms.
std::string searchReportPath(const std::string &table);
std::string debugStatsPath(const std::string &table);
std::string debugHistogramsPath(const std::string &table);

/// Writes the search report, one CSV row per tensor and threshold measured. The error names the file.
llvm::Error writeSearchReport(const std::string &path, const std::vector<quant::ThresholdChoice> &choices,
                              quant::SearchMetric metric);
/// Writes the --debug statistics (CSV: counts, range, moments, the threshold of every method) and
/// histograms (npz: each tensor's |x| histogram in TPU-MLIR's layout). The error names the file.
llvm::Error writeDebugStatistics(const std::string &statsPath, const std::string &histogramsPath,
                                 const quant::ActivationStatistics &stats);

} // namespace tpuc::driver

#endif // TPUC_DRIVER_CALIBRATION_H
