//===- SearchQtable.h - The mixed-precision search as a library call -------===//
//
// calibrate --search search_qtable after the table is made: ranks the ops of a Top module by their
// isolated INT8 error, keeps the worst in float until the output cosine reaches --expected_cos or
// --max_float_layers, writes --quantize_table. A separate header from Driver.h: it takes an MLIR module.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_SEARCHQTABLE_H
#define TPUC_DRIVER_SEARCHQTABLE_H

#include "tpuc/Driver/Driver.h"
#include "tpuc/Driver/SearchRecord.h"
#include "tpuc/Quant/Tables.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace tpuc::driver {

/// The outcome of a search that ran to its end.
struct QtableReport {
  /// kExitOk when --expected_cos is reached, kExitFailed when not (the table is written either way),
  /// kExitUsage on unreadable input or an unwritable table.
  int exitCode = kExitOk;
  /// One-line errors (tpuc prints each as "tpuc calibrate: search_qtable: <line>").
  std::vector<std::string> messages;
  double int8Cosine = 0.0, cosine = 0.0;
  std::vector<std::string> floatOps; ///< The ops kept in float, in the order chosen.
  /// The INT8 model, then one step per op kept in float: output cosine and simulated latency.
  std::vector<SearchStep> steps;
  bool reached = false;
};

/// The float mode search_qtable keeps ops in on `chip`.
quant::QuantMode searchFloatMode(const std::string &chip);

/// Runs the search on `top` with the INT8 `table`; `samples` are the calibration samples' files (one per
/// model input, or one .npz), the first few of which are scored. An error only when the sink cancelled.
llvm::Expected<QtableReport> searchQtable(const CalibrateOptions &options, mlir::ModuleOp top,
                                          const quant::CalibrationTable &table,
                                          const std::vector<std::vector<std::string>> &samples,
                                          const Sink &sink = {});

} // namespace tpuc::driver

#endif // TPUC_DRIVER_SEARCHQTABLE_H
