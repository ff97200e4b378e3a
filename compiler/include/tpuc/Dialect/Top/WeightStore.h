//===- WeightStore.h - Weights of a module, backed by its .npz file -*- C++ -*-===//
// Reading and creating Top weights: inline constants or arrays of the module's weight file.
//===----------------------------------------------------------------------===//
#ifndef TPUC_DIALECT_TOP_WEIGHTSTORE_H
#define TPUC_DIALECT_TOP_WEIGHTSTORE_H

#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Support/Tensor.h"

#include <vector>

namespace tpuc::top {

/// The float32 data of a weight, from its inline value or from the module's weight file. Emits an error
/// on the op (missing file, missing array, shape mismatch) and fails.
mlir::FailureOr<std::vector<float>> readWeightF32(WeightOp op);

/// Creates a float32 weight holding `data` with `shape`, before the builder's insertion point. With a
/// weight file on the module the array joins that file's pending contents under a unique name derived from
/// `nameHint`; without one it is stored inline, which is possible only for small constants.
mlir::FailureOr<WeightOp> createWeightF32(mlir::OpBuilder &builder, mlir::Location loc,
                                          llvm::StringRef nameHint, llvm::ArrayRef<int64_t> shape,
                                          llvm::ArrayRef<float> data);

/// Creates a weight of result type `type` (any element type: i8, i32, f16, bf16, ui8, or a
/// `!quant.uniform` whose storage type `data` holds) holding `data`, whose element count must match; as
/// createWeightF32, it joins the weight file's pending arrays under a unique name derived from `nameHint`,
/// or is stored inline when the module has no weight file and the constant is small.
mlir::FailureOr<WeightOp> createWeight(mlir::OpBuilder &builder, mlir::Location loc, llvm::StringRef nameHint,
                                       mlir::RankedTensorType type, Tensor data);

/// Writes every file-backed weight that `module` references to the .npz at `path` (the referenced arrays
/// only, in IR order) and points `top.weight_file` at it.
mlir::LogicalResult saveWeights(mlir::ModuleOp module, llvm::StringRef path);

/// Forgets the arrays passes created for `module` (file-backed weights not saved yet) that `keep` does not
/// name too: for a module that is being discarded, such as a lowering tried and dropped, whose new weights
/// would otherwise stay in memory until the process ends. Arrays on disk are untouched; `keep` is the module
/// it was made from (whose own created arrays the copy shares). Returns the arrays forgotten.
size_t releasePendingWeights(mlir::ModuleOp module, mlir::ModuleOp keep);

/// Forgets every cached weight file; the next read goes to disk again.
void clearWeightCache();

} // namespace tpuc::top

#endif // TPUC_DIALECT_TOP_WEIGHTSTORE_H
