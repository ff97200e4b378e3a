//===- FunctionProgram.h - A function numbered for running op by op -*- C++ -*-===//
// Qt-free. What the reference interpreter and the Tpu simulator both derive from a func::FuncOp before
// they run it: the values numbered, their tensor names and aliases, producers, last uses, the argument
// and result ids. Built once per runner; running it is the runner's business.
//===----------------------------------------------------------------------===//
#ifndef TPUC_SIMULATOR_FUNCTIONPROGRAM_H
#define TPUC_SIMULATOR_FUNCTIONPROGRAM_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
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
/// order. Names follow TensorNames.h (top::nameTensors): each value's tensor name, its further names
/// (aliases, graph-output names that differ) and the graph-output name of each function result.
struct FunctionProgram {
  /// Selects `function` of `module` (empty: the public `main`, else the only function) and numbers its
  /// body. Fails with one line on a missing or ambiguous function, a body that is not one block, or an
  /// op using a value defined after it or outside the function.
  static llvm::Expected<FunctionProgram> build(mlir::ModuleOp module, llvm::StringRef function = {});

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
};

} // namespace tpuc::sim

#endif // TPUC_SIMULATOR_FUNCTIONPROGRAM_H
