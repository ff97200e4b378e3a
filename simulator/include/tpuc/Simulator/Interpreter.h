//===- Interpreter.h - Float32 reference interpreter for Top IR -*- C++ -*-===//
// Qt-free. Runs a Top function op by op on the reference kernels and keeps (or dumps) its tensors.
//===----------------------------------------------------------------------===//
#ifndef TPUC_SIMULATOR_INTERPRETER_H
#define TPUC_SIMULATOR_INTERPRETER_H

#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Simulator/FunctionProgram.h"
#include "tpuc/Simulator/Runner.h"
#include "tpuc/Support/Npz.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tpuc::sim {

/// The tensor name a location gives (TensorNames.h).
using top::locationName;

/// How one `Interpreter::run` behaves.
struct RunOptions {
  /// Keep every tensor the function computes (the inputs' and every op's results, weights excepted) in
  /// `Interpreter::tensors()`, in program order, for an npz dump: each is copied there as it is produced,
  /// so a failed run still leaves the tensors before the failing op. Without it only the outputs are
  /// kept. Either way the working buffer of a tensor is released right after its last use.
  bool dumpAll = false;
  /// Threads for the kernels; 0 keeps the current setting (by default the hardware concurrency). This
  /// resizes the process-wide ThreadPool, so interpreters running concurrently should agree on it.
  unsigned numThreads = 0;
  /// Record the wall time of every op in `RunStats::opSeconds`.
  bool profile = false;
  /// Called after each op with (ops done, ops in total, name of the op's tensor); returning false
  /// cancels the run, which then fails with "cancelled".
  std::function<bool(size_t, size_t, llvm::StringRef)> progress;
  /// Called with every tensor as it is produced (each op's results, weights excepted, in program order;
  /// the top.input ops give the inputs) with its name, shape and float32 values. The data is only valid
  /// during the call; calibration folds it into statistics without keeping any tensor.
  std::function<void(llvm::StringRef name, llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<float> data)> onTensor;
};

/// Interprets one function of a Top module in float32 on the reference kernels:
///
///   Interpreter interp(module);                   // the public `main`, or the only function
///   if (auto err = interp.setInput("input", x))   // by name, or interp.setInput(0, x) by position
///     ...;
///   if (auto err = interp.run(RunOptions{.dumpAll = true}))
///     ...;
///   interp.tensors().write("top_outputs.npz");    // every tensor, TPU-MLIR npz_tool style
///
/// Tensor names: the name of an op's location (`NameLoc("conv1")` -> "conv1"; a FusedLoc gives its last
/// NameLoc's name; a multi-result op whose FusedLoc holds one name per result names each result after
/// its own), else a generated "<mnemonic>_<k>" (k counts ops of that kind in program order; an unnamed
/// top.input is "input_<argument index>", an unnamed top.weight its array name). Repeated names get a "_1",
/// "_2", ... suffix. Every value is computed as float32; integer and boolean tensors hold their values as
/// floats.
///
/// Errors are llvm::Error values carrying one line: the missing input, a shape mismatch, the op (name,
/// kind and location) whose kernel is missing or failed, a weight that cannot be read. The interpreter
/// registers the reference kernels on the module's context itself; it does not modify the module, which
/// must outlive it.
class Interpreter : public FunctionRunner {
public:
  /// Prepares to run `function` of `module` (empty: the public function `main`, else the only function).
  explicit Interpreter(mlir::ModuleOp module, llvm::StringRef function = {});
  ~Interpreter();

  // Inputs, outputs, tensors and stats: FunctionRunner.

  /// Runs the function on the inputs set so far (inputs and loaded weights stay for the next run).
  llvm::Error run(const RunOptions &options = {});

  /// Drops the float copies of the weights (reloaded by the next run) and the recycled tensor buffers.
  void releaseMemory();

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// The reference interpreter as a Runner (Runner.h): named "reference" unless told otherwise.
class TopRunner : public Runner {
public:
  explicit TopRunner(mlir::ModuleOp module, llvm::StringRef function = {}, std::string name = "reference")
      : interp(module, function), label(std::move(name)) {}
  std::string name() const override { return label; }
  std::vector<std::string> inputNames() const override { return interp.inputNames(); }
  std::vector<std::string> outputNames() const override { return interp.outputNames(); }
  llvm::Error setInputs(const NpzFile &inputs) override { return interp.setInputs(inputs); }
  llvm::Error run(const RunnerOptions &options) override;
  const NpzFile &outputs() const override { return interp.outputs(); }
  const NpzFile &tensors() const override { return interp.tensors(); }
  RunnerStats stats() const override { return {interp.stats().seconds, interp.stats().numOps}; }
  Interpreter &interpreter() { return interp; }

private:
  Interpreter interp;
  std::string label;
};

} // namespace tpuc::sim

#endif // TPUC_SIMULATOR_INTERPRETER_H
