//===- TopOps.h - Operations of the Top dialect -----------------*- C++ -*-===//
// Op classes and op interfaces of the Top dialect, plus the shape helpers their verifiers share.
//===----------------------------------------------------------------------===//
#ifndef TPUC_DIALECT_TOP_TOPOPS_H
#define TPUC_DIALECT_TOP_TOPOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tpuc/Dialect/Top/TopDialect.h"

namespace tpuc::top {
/// Shared verifier of ShapeInterface: declared result shapes must equal the computed ones.
mlir::LogicalResult verifyShapeInterface(mlir::Operation *op);
} // namespace tpuc::top

#include "tpuc/Dialect/Top/TopInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tpuc/Dialect/Top/TopOps.h.inc"

namespace tpuc::top {
/// Static shape of a tensor-typed value (empty for `none` and scalars of rank 0).
llvm::ArrayRef<int64_t> getShape(mlir::Value value);
/// Number of elements of a static shape.
int64_t getNumElements(llvm::ArrayRef<int64_t> shape);
/// NumPy broadcast of two shapes; fails if an axis pair is neither equal nor 1.
mlir::FailureOr<llvm::SmallVector<int64_t>> broadcastShapes(llvm::ArrayRef<int64_t> a,
                                                            llvm::ArrayRef<int64_t> b);
/// Formats a shape as `[1, 3, 224, 224]` for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);
/// Whether `value` is produced by `top.none`.
bool isNone(mlir::Value value);
} // namespace tpuc::top

#endif // TPUC_DIALECT_TOP_TOPOPS_H
