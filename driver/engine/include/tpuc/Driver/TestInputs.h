//===- TestInputs.h - --test_input files as tensors for a Top module -----===//
//
// TPU-MLIR's --test_input: one .npz holding every input by name, or one file per input (image, .npy,
// .npz). Images are preprocessed with the attributes recorded on each top.input.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_APP_TPUC_TESTINPUTS_H
#define TPUC_APP_TPUC_TESTINPUTS_H

#include "tpuc/Preprocess/Preprocess.h"
#include "tpuc/Support/Npz.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace tpuc::sim {
class Interpreter;
}

namespace tpuc::cli {

/// The preprocessing of every input of `module`'s entry function, in argument order, named as the
/// interpreter names its inputs.
std::vector<preprocess::PreprocessConfig> preprocessConfigs(mlir::ModuleOp module,
                                                            const sim::Interpreter &interpreter);

/// The entry function of `module`: the public `main`, else the only function (the interpreter's rule);
/// null when there is none.
mlir::func::FuncOp entryFunction(mlir::ModuleOp module);

/// The names of the inputs of `module`'s entry function, in argument order, as the interpreter names them
/// (the ONNX input names).
std::vector<std::string> inputNames(mlir::ModuleOp module);

/// Loads `files` for the inputs of `interpreter`'s function; the error is one line naming the file.
llvm::Expected<NpzFile> loadTestInputs(const std::vector<std::string> &files,
                                       const sim::Interpreter &interpreter, mlir::ModuleOp module);

} // namespace tpuc::cli

#endif // TPUC_APP_TPUC_TESTINPUTS_H
