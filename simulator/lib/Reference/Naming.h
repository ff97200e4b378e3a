//===- Naming.h - Tensor names of a Top function (internal) -----*- C++ -*-===//
// The npz name of every value: location names first, stable generated names otherwise.
//===----------------------------------------------------------------------===//
#ifndef TPUC_SIMULATOR_REFERENCE_NAMING_H
#define TPUC_SIMULATOR_REFERENCE_NAMING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace tpuc::sim {

/// Names `values` (the function's arguments, then op results in program order) as documented on
/// Interpreter: an argument takes the name of the top.input op that consumes it.
std::vector<std::string> nameValues(mlir::func::FuncOp func, llvm::ArrayRef<mlir::Value> values);

} // namespace tpuc::sim

#endif // TPUC_SIMULATOR_REFERENCE_NAMING_H
