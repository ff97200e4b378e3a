//===- FunctionProgram.h - A function numbered for running op by op -*- C++ -*-===//
// Qt-free. What the reference interpreter and the Tpu simulator both derive from a func::FuncOp before
// they run it: the values numbered, their tensor names and aliases, producers, last uses, the argument
// and result ids. Built once per runner; running it is the runner's business. FunctionRunner is the
// surface both runners share on top of it (inputs, outputs, tensors, stats).
//===----------------------------------------------------------------------===//
#ifndef TPUC_SIMULATOR_FUNCTIONPROGRAM_H
#define TPUC_SIMULATOR_FUNCTIONPROGRAM_H

#include "tpuc/Support/Npz.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tpuc::sim {

/// One op of a FunctionProgram with its operands and results as value ids.
struct ProgramStep {
  mlir::Operation *op = nullptr;
  llvm::SmallVector<int> operands, results;
  /// Values whose last use is this step (never an argument or a function result): their buffers can be
  /// released right after it.
  llvm::SmallVector<int> freeAfter;
};

/// A function of a module prepared for running op by op:
///
///   auto program = FunctionProgram::build(module);    // public `main`, or the only function
///   for (const ProgramStep &step : program->steps) ... program->names[step.results[0]] ...
///
/// Values are numbered: the arguments first (ids 0 .. numArguments - 1), then every op result in program
/// order; the ops inside a region op (top.if, top.loop) are a FunctionProgram of their own (buildBlock).
/// Names follow TensorNames.h (top::nameTensors): each value's tensor name, its further names (aliases,
/// graph-output names that differ) and the graph-output name of each function result.
struct FunctionProgram {
  /// Selects `function` of `module` (empty: the public `main`, else the only function) and numbers its
  /// body. Fails with one line on a missing or ambiguous function, a body that is not one block, or an
  /// op using a value defined after it or outside the function.
  static llvm::Expected<FunctionProgram> build(mlir::ModuleOp module, llvm::StringRef function = {});
  /// Numbers one block of a region op inside a function (top.if's branches, top.loop's body, their Tpu
  /// forms): the arguments are the block's arguments (named after their locations, else "arg_<i>"), the
  /// steps its ops but the terminator, the results the terminator's operands (named after those values).
  /// Tensor names are those of the whole function (nameTensors over every op, regions included), the same
  /// build() gives, so a region's tensors are dumped under their ONNX names. `func` is the enclosing
  /// function. Fails with one line on a block without a terminator or an op using a value from outside it.
  static llvm::Expected<FunctionProgram> buildBlock(mlir::Block &block);

  mlir::func::FuncOp func;
  size_t numArguments = 0;
  std::vector<mlir::Value> values;
  /// The tensor name of each value.
  std::vector<std::string> names;
  /// The further names of each value (TensorNaming::aliases), in order.
  std::vector<std::vector<std::string>> aliases;
  /// Elements of each value; -1 for `none` or a type without a static shape.
  std::vector<int64_t> sizes;
  /// The step producing each value; -1 for arguments.
  std::vector<int> producer;
  /// The last step reading each value (its producer when nothing reads it); -1 when it lives to the end of
  /// a run: function results, and arguments nothing reads.
  std::vector<int> lastUse;
  std::vector<ProgramStep> steps;
  /// The returned values, and each function result's graph-output name.
  std::vector<int> resultIds;
  std::vector<std::string> resultNames;

  /// The names of the arguments (the top.input ops consuming them, else "input_<i>").
  llvm::ArrayRef<std::string> argumentNames() const { return llvm::ArrayRef(names).take_front(numArguments); }
  /// The static shape of value `id` ({} for `none` or an unranked type).
  std::vector<int64_t> shape(int id) const;
  /// The tensor name of the step's first result ("" for an op without results).
  llvm::StringRef stepName(const ProgramStep &step) const;
  /// "'<tensor>' (<op> at <location>): <message>", the one-line error of an op that cannot run.
  llvm::Error opError(const ProgramStep &step, const llvm::Twine &message) const;

private:
  static llvm::Error number(FunctionProgram &p, mlir::Block &block, const llvm::Twine &what);
};

/// Measurements of the last run.
struct RunStats {
  /// Most bytes of activation tensors (inputs and op results, not weights) alive at once, dump copies
  /// included. Released buffers are recycled by the runner for later ops and runs (see
  /// releaseMemory of the Interpreter and the TpuSimulator), so its footprint stays near this peak.
  int64_t peakLiveBytes = 0;
  /// Bytes of all activation tensors the run produced (what a full dump holds).
  int64_t totalTensorBytes = 0;
  /// Bytes of weights loaded (kept between runs), with the packed copies kernels derive from them.
  int64_t weightBytes = 0;
  /// Ops executed and wall time of the whole run.
  size_t numOps = 0;
  double seconds = 0.0;
  /// With RunOptions::profile: (tensor name, op name such as "top.conv", seconds) per op in order.
  struct OpTime {
    std::string name, opName;
    double seconds;
  };
  std::vector<OpTime> opSeconds;
};

/// What the reference interpreter and the Tpu simulator share, implemented once: the FunctionProgram of
/// the module's function, its inputs (by position, by name or "input_<i>", or all from an npz; shapes
/// checked, any dtype stored as float32) and the last run's outputs, tensors and measurements. Setup
/// problems (no such function, ...) are reported by the first setInput or run.
class FunctionRunner {
public:
  FunctionRunner(const FunctionRunner &) = delete;
  FunctionRunner &operator=(const FunctionRunner &) = delete;

  /// Number of inputs (function arguments).
  size_t numInputs() const { return inputBuffers.size(); }
  /// The names inputs are known by: the name of the top.input op that consumes each argument.
  std::vector<std::string> inputNames() const { return program.argumentNames().vec(); }
  /// The shape argument `index` must have.
  std::vector<int64_t> inputShape(size_t index) const;
  /// Names of the function results (their graph-output names), in order.
  std::vector<std::string> outputNames() const { return program.resultNames; }

  /// Sets argument `index`; any dtype is converted to float32. Fails on a bad index or shape.
  llvm::Error setInput(size_t index, const Tensor &tensor);
  /// Sets the input called `name`: its top.input name (see inputNames), or "input_<i>" for argument i.
  llvm::Error setInput(llvm::StringRef name, const Tensor &tensor);
  /// Sets every input from an npz by name (see setInput(name, ...)); arrays that name no input are
  /// ignored. Fails naming the first input the file lacks.
  llvm::Error setInputs(const NpzFile &npz);

  /// The function results of the last run, under the graph's output names, in result order.
  const NpzFile &outputs() const { return lastOutputs; }
  /// Every tensor of the last run in program order when it dumped them all, else only the outputs.
  const NpzFile &tensors() const { return lastTensors; }
  /// Measurements of the last run.
  const RunStats &stats() const { return lastStats; }

protected:
  /// Builds the program of `function` of `module` (see FunctionProgram::build).
  FunctionRunner(mlir::ModuleOp module, llvm::StringRef function);
  ~FunctionRunner();
  /// The start of every run: fails on a setup problem or a missing input, applies `numThreads` (0 keeps
  /// the process-wide setting) and clears the last run's results.
  llvm::Error beginRun(unsigned numThreads);

  mlir::ModuleOp module;
  FunctionProgram program;
  std::string setupError;                             ///< Empty when the function can run.
  std::vector<std::unique_ptr<float[]>> inputBuffers; ///< Per argument, float32; null until set.
  NpzFile lastOutputs, lastTensors;
  RunStats lastStats;
};

} // namespace tpuc::sim

#endif // TPUC_SIMULATOR_FUNCTIONPROGRAM_H
