//===- CalibrateCommand.h - Pieces of `tpuc calibrate` shared with the search --===//
//
// Sample collection, the passes over the samples (statistics, the threshold search), the table assembly
// and the reports of run_calibration, used by runCalibrate and by the mixed-precision search (--search
// search_qtable), which needs the samples and the calibration table again.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_APP_TPUC_CALIBRATECOMMAND_H
#define TPUC_APP_TPUC_CALIBRATECOMMAND_H

#include "Commands.h"

#include "tpuc/Quant/Calibration.h"
#include "tpuc/Quant/Tables.h"
#include "tpuc/Quant/ThresholdSearch.h"

#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tpuc::sim {
class Interpreter;
} // namespace tpuc::sim

namespace tpuc::cli {

/// One calibration sample: one file per model input, or one .npz holding every input.
struct CalibrationSample {
  std::vector<std::string> files;
  /// "list.txt:12" for a --data_list line (error messages), "" for a --dataset file.
  std::string origin;
};

/// How the statistics run uses the machine.
struct CalibrationRunConfig {
  int64_t histogramBins = quant::kDefaultHistogramBins;
  /// Threads in total; 0 means the hardware concurrency.
  int64_t threads = 0;
  /// "samples": one interpreter per thread, samples spread over them, single-threaded kernels;
  /// "kernels": one interpreter whose kernels use every thread.
  std::string parallel = "samples";
};

/// The samples of --dataset or --data_list, cut to --input_num. On failure (unreadable list, missing
/// directory, no samples) returns nullopt and sets `error` to one line naming the path.
std::optional<std::vector<CalibrationSample>> collectCalibrationSamples(const CalibrateOptions &options,
                                                                        std::string &error);

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
  /// tensor's name and its values (valid during the call only). Calls for one worker come from one thread.
  using TensorSink = std::function<void(size_t worker, llvm::StringRef name, std::span<const float> values)>;

  /// Runs every sample and hands its tensors to `sink`; no tensor outlives its op. Reports "calibrate"
  /// progress from `begin` to `end`, "<label>sample i/N". On failure (a sample that cannot be read or does
  /// not fit the model's inputs, an interpreter error) returns false with a one-line `error` naming the
  /// first failing sample.
  bool run(const std::vector<CalibrationSample> &samples, const TensorSink &sink, ProgressReporter &progress,
           double begin, double end, const std::string &label, std::string &error);

private:
  mlir::ModuleOp module;
  CalibrationRunConfig config;
  std::vector<std::unique_ptr<sim::Interpreter>> interpreters;
};

/// First pass: folds every tensor of every sample into streaming statistics, one per worker, merged at
/// the end (the result does not depend on the split, see Calibration.h). Progress from `begin` to `end`.
std::optional<quant::ActivationStatistics>
collectActivationStatistics(CalibrationRunner &runner, const std::vector<CalibrationSample> &samples,
                            int64_t histogramBins, ProgressReporter &progress, double begin, double end,
                            std::string &error);

/// Second pass of --search search_threshold: every tensor fake-quantized at the candidates of `stats`
/// (ThresholdSearch.h). Progress from `begin` to `end`.
std::optional<quant::ThresholdSearch> searchThresholds(CalibrationRunner &runner,
                                                       const quant::ActivationStatistics &stats,
                                                       const std::vector<CalibrationSample> &samples,
                                                       ProgressReporter &progress, double begin, double end,
                                                       std::string &error);

/// The table run_calibration writes: TPU-MLIR's header, the 8-bit thresholds of every tensor in graph
/// order and the 4-bit ones under `#int4_th`.
quant::CalibrationTable makeCalibrationTable(const quant::ActivationStatistics &stats,
                                             quant::CalibrationMethod method, size_t numSamples);

/// The table of --search search_threshold: each tensor's chosen threshold, its 4-bit threshold by the
/// chosen method (kl for kl_tune), and a header line counting the tensors each candidate won.
quant::CalibrationTable makeSearchThresholdTable(const quant::ActivationStatistics &stats,
                                                 const std::vector<quant::ThresholdChoice> &choices,
                                                 quant::SearchMetric metric, size_t numSamples);

/// Files written beside the calibration table `table`: the search report (search_threshold) and the
/// --debug statistics and histograms.
std::string searchReportPath(const std::string &table);
std::string debugStatsPath(const std::string &table);
std::string debugHistogramsPath(const std::string &table);

/// Writes the search report, one CSV row per tensor and threshold measured. Throws std::runtime_error.
void writeSearchReport(const std::string &path, const std::vector<quant::ThresholdChoice> &choices,
                       quant::SearchMetric metric);
/// Writes the --debug statistics (CSV: counts, range, moments, the threshold of every method) and
/// histograms (npz: each tensor's |x| histogram in TPU-MLIR's layout). Throws std::runtime_error.
void writeDebugStatistics(const std::string &statsPath, const std::string &histogramsPath,
                          const quant::ActivationStatistics &stats);

/// --search search_qtable (driver::searchQtable, printed by SearchQtable.cpp): ranks the ops of `top` by
/// their isolated INT8 error on the first samples, keeps the worst in float until the output cosine reaches
/// --expected_cos or
/// --max_float_layers, writes --quantize_table and reports. kExitOk when the target is reached, kExitFailed
/// when not (the table is written either way), kExitUsage on unreadable input.
int runSearchQtable(const CalibrateOptions &options, mlir::ModuleOp top, const quant::CalibrationTable &table,
                    const std::vector<CalibrationSample> &samples, ProgressReporter &progress);

} // namespace tpuc::cli

#endif // TPUC_APP_TPUC_CALIBRATECOMMAND_H
