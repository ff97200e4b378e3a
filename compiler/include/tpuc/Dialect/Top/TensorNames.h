//===- TensorNames.h - The npz name of every value of a Top / Tpu function -*- C++ -*-===//
// Location names first, stable generated names otherwise. One rule for every tensor dump (reference
// interpreter, Tpu simulator, model-file runs), so their npz files line up name for name.
//===----------------------------------------------------------------------===//
#ifndef TPUC_DIALECT_TOP_TENSORNAMES_H
#define TPUC_DIALECT_TOP_TENSORNAMES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace tpuc::top {

/// The tensor name a location gives: a NameLoc's name; for a FusedLoc the name of its last NameLoc;
/// "" when there is none.
std::string locationName(mlir::Location loc);

/// Names `values` (the function's arguments, then op results in program order): the op's location name
/// (a multi-result op whose FusedLoc has one name per result names each result), a weight's name,
/// "<mnemonic>_<k>" otherwise, made unique with "_<n>"; an argument takes the name of the top.input op
/// that consumes it.
std::vector<std::string> nameValues(mlir::func::FuncOp func, llvm::ArrayRef<mlir::Value> values);

} // namespace tpuc::top

#endif // TPUC_DIALECT_TOP_TENSORNAMES_H
