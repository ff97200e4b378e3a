//===- DeployStages.h - Pieces of deploy shared with the search and run ---===//
//
// Lowering a copy of a Top module to Tpu, running the Tpu functional simulator (accumulated or isolated),
// the float reference of the same inputs, and the side-by-side per-layer comparison of the two modes.
// `tpuc deploy` and `tpuc calibrate --search search_qtable` both use them.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_DEPLOYSTAGES_H
#define TPUC_DRIVER_DEPLOYSTAGES_H

#include "tpuc/Conversion/TopToTpu.h"
#include "tpuc/Driver/Results.h"
#include "tpuc/Simulator/CmdExec.h"
#include "tpuc/Simulator/Compare.h"
#include "tpuc/Support/Npz.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace tpuc::cli {

/// The rows of a comparison as result-record tensors (Results.h).
std::vector<driver::TensorResult> tensorResults(const NpzComparison &comparison);

/// A lowered copy of `top` (which is left untouched); the error is one line.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> lowerCopy(mlir::ModuleOp top,
                                                            const LoweringOptions &options);

/// The tensors of one run: every tensor (with dumpAll) and the function results, the results named as
/// the Top reference names its outputs (a Tpu function may end in casts back to f32).
struct RunResult {
  NpzFile tensors;
  NpzFile outputs;
};

/// The Top float reference on `inputs` (every tensor).
llvm::Expected<RunResult> runReference(mlir::ModuleOp top, const NpzFile &inputs);

/// Runs the Tpu simulator on `inputs`: accumulated, or isolated when `reference` (every Top tensor) is
/// given. `outputNames` are the Top function's output names.
llvm::Expected<RunResult> runTpu(mlir::ModuleOp tpu, const NpzFile &inputs, bool dumpAll,
                                 const NpzFile *reference, const std::vector<std::string> &outputNames);

/// The output names of `top`'s entry function (the reference interpreter's names).
std::vector<std::string> topOutputNames(mlir::ModuleOp top);

/// The lowest output cosine of a Tpu run against the reference outputs (paired positionally).
double outputCosine(const RunResult &tpu, const RunResult &reference);

/// Cosine similarity of two tensors of the same size (1 when both are zero).
double cosineOf(const Tensor &a, const Tensor &b);

/// One layer of the side-by-side report: accumulated and (optionally) isolated metrics.
struct LayerRow {
  std::string name;
  TensorComparison accumulated;
  std::optional<TensorComparison> isolated;
};

/// Rows in graph order (the reference's order) for the tensors the accumulated run and the reference share.
std::vector<LayerRow> sideBySide(const NpzComparison &accumulated, const NpzComparison *isolated,
                                 const NpzFile &reference);
/// Fixed-width table: name, accumulated cos/euc/status, isolated cos/euc/status.
std::string formatSideBySideText(const std::vector<LayerRow> &rows);
/// name,acc_status,acc_pass,acc_cosine,acc_euclidean,acc_sqnr,iso_status,iso_pass,iso_cosine,iso_euclidean,iso_sqnr
std::string formatSideBySideCsv(const std::vector<LayerRow> &rows);
/// {"tolerance":{"cosine","euclidean"},"layers":[{"name","accumulated":{...},"isolated":{...}}],
///  "first_failing":name|null}
std::string formatSideBySideJson(const std::vector<LayerRow> &rows, const CompareTolerance &tolerance);

/// Reads the model file `path` into `model` and the profile of its chip into `chip`.
llvm::Error loadModelFile(const std::string &path, codegen::Model &model, backend::ChipProfile &chip);

/// The model file run on the command-level simulator and compared per tensor with the Tpu simulation.
struct ModelCheck {
  cmdsim::ExecStats stats;
  NpzComparison comparison; ///< Model-file tensors (target) against the Tpu simulation's.
  std::string failing;      ///< First tensor beyond the tolerance, or "".
  std::string summary;      ///< One line: EQUAL count, simulated latency, commands, wall time.
  std::string trace;        ///< The engine trace (CmdSim.h traceJson).
};

/// Runs `modelPath` (net 0) on `inputs` with every tensor dumped to `outputsPath` and compares them with
/// the tensors of `tpu` (which has run with every tensor dumped) under the "cos,euc" tolerance
/// `correctness` (sim::runAndCompare). Fails with one line when the model cannot be read or run.
llvm::Expected<ModelCheck> checkModelFile(const std::string &modelPath, const NpzFile &inputs,
                                          sim::Runner &tpu, const std::string &correctness,
                                          const std::string &outputsPath);

/// The simulated latency of a lowered Tpu module on its chip, as deploy reports it for its model file.
struct SimulatedLatency {
  int64_t cycles = 0;
  double ms = 0;
};

/// Runs the backend (layer groups with `opt`, addresses, codegen in memory) on a copy of `tpu` and the
/// command-level timing simulation of the stage (no tensors): deploy's "simulated X ms on CHIP" without
/// writing a model file. The error is one line.
llvm::Expected<SimulatedLatency> simulatedLatency(mlir::ModuleOp tpu, const std::string &chip, int opt = 2);

} // namespace tpuc::cli

#endif // TPUC_DRIVER_DEPLOYSTAGES_H
