//===- FromMlir.h - Backend graph from Top / Tpu IR -----------------------===//
//
// Builds the plain-data backend Graph from a function of Top or Tpu ops, so
// the layer-group and address-assign passes (and tests on imported models)
// reuse the MLIR-free planners. Ops are recognized by their name without the
// dialect prefix and their attributes by name (kernel_shape, strides, pads,
// dilations, group, axis), which Top and Tpu share; anything unknown becomes
// an ungroupable OpKind::Other. Lives in TpucBackendMlir, apart from the
// MLIR-free TpucBackend.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_BACKEND_FROMMLIR_H
#define TPUC_BACKEND_FROMMLIR_H

#include "tpuc/Backend/Graph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <vector>

namespace tpuc::backend {

/// Knobs of the conversion.
struct FromMlirOptions {
  /// Plan every activation and weight as this type (e.g. INT8 to plan a
  /// TOP_F32 graph as if quantized); bias-like 1-D weights of 8-bit plans
  /// become INT32. nullopt keeps the IR's element types.
  std::optional<DType> dtype;
};

/// The backend graph of `func`. Errors (dynamic shapes, unsupported element
/// types) are emitted on the offending op and yield failure. `opOf`, when
/// given, receives the IR op of every graph op (a tpu.if or tpu.loop for each
/// of its control-flow markers, Graph.h).
mlir::FailureOr<Graph> graphFromFunc(mlir::func::FuncOp func, const FromMlirOptions &options = {},
                                     std::vector<mlir::Operation *> *opOf = nullptr);

} // namespace tpuc::backend

#endif // TPUC_BACKEND_FROMMLIR_H
