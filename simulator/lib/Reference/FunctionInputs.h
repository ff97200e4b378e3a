//===- FunctionInputs.h - Binding inputs of a simulated function (internal) -*- C++ -*-===//
// The input rules the reference interpreter and the Tpu simulator share: by position, by name (or its
// `input_<i>` alias), or all from an npz; shapes checked against the function's arguments, stored as f32.
//===----------------------------------------------------------------------===//
#ifndef TPUC_SIMULATOR_REFERENCE_FUNCTIONINPUTS_H
#define TPUC_SIMULATOR_REFERENCE_FUNCTIONINPUTS_H

#include "tpuc/Support/Npz.h"
#include "tpuc/Support/Tensor.h"

#include "mlir/IR/Value.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace tpuc::sim {

/// The inputs of a function: its argument names, its values (arguments first) and one buffer per
/// argument, empty until set. The views point into the owner's members.
struct FunctionInputs {
  std::vector<std::unique_ptr<float[]>> &buffers;
  llvm::ArrayRef<std::string> names;
  llvm::ArrayRef<mlir::Value> values;

  /// The static shape of argument `index` ({} when out of range or unranked).
  std::vector<int64_t> shape(size_t index) const;
  /// Argument `index` from `tensor`: shape checked, converted to f32.
  llvm::Error set(size_t index, const Tensor &tensor) const;
  /// The argument named `name` (or `input_<i>`).
  llvm::Error set(llvm::StringRef name, const Tensor &tensor) const;
  /// Every argument from `npz`, by name or `input_<i>`.
  llvm::Error setAll(const NpzFile &npz) const;
};

} // namespace tpuc::sim

#endif // TPUC_SIMULATOR_REFERENCE_FUNCTIONINPUTS_H
