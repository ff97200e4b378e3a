//===- CalibrateCommand.h - Pieces of `tpuc calibrate` shared with the search --===//
//
// Sample collection, the streaming statistics run and the table assembly of run_calibration, used by
// runCalibrate and by the mixed-precision search (--search search_qtable), which needs the samples and
// the calibration table again.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_APP_TPUC_CALIBRATECOMMAND_H
#define TPUC_APP_TPUC_CALIBRATECOMMAND_H

#include "Commands.h"

#include "tpuc/Quant/Calibration.h"
#include "tpuc/Quant/Tables.h"

#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>
#include <vector>

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

/// Runs every sample through the reference interpreter and folds every tensor into statistics. Reports
/// "calibrate" progress up to 0.95. On failure (a sample that cannot be read or does not fit the model's
/// inputs, an interpreter error) returns nullopt with a one-line `error` naming the first failing sample.
std::optional<quant::ActivationStatistics>
collectActivationStatistics(mlir::ModuleOp module, const std::vector<CalibrationSample> &samples,
                            const CalibrationRunConfig &config, ProgressReporter &progress, std::string &error);

/// The table run_calibration writes: TPU-MLIR's header, the 8-bit thresholds of every tensor in graph
/// order and the 4-bit ones under `#int4_th`.
quant::CalibrationTable makeCalibrationTable(const quant::ActivationStatistics &stats,
                                             quant::CalibrationMethod method, size_t numSamples);

/// The float mode search_qtable keeps ops in on `chip`.
quant::QuantMode searchFloatMode(const std::string &chip);

/// --search search_qtable (SearchQtable.cpp): ranks the ops of `top` by their isolated INT8 error on the
/// first samples, keeps the worst in float until the output cosine reaches --expected_cos or
/// --max_float_layers, writes --quantize_table and reports. kExitOk when the target is reached, kExitFailed
/// when not (the table is written either way), kExitUsage on unreadable input.
int runSearchQtable(const CalibrateOptions &options, mlir::ModuleOp top, const quant::CalibrationTable &table,
                    const std::vector<CalibrationSample> &samples, ProgressReporter &progress);

} // namespace tpuc::cli

#endif // TPUC_APP_TPUC_CALIBRATECOMMAND_H
