//===- ReferenceKernels.h - Float32 reference kernels of the Top ops -*- C++ -*-===//
// Qt-free. Attaches top::InferenceInterface to every Top op as an external model.
//===----------------------------------------------------------------------===//
#ifndef TPUC_SIMULATOR_REFERENCEKERNELS_H
#define TPUC_SIMULATOR_REFERENCEKERNELS_H

#include "mlir/IR/DialectRegistry.h"

namespace tpuc::sim {

/// Registers, as a dialect extension, the float32 reference kernel of every Top op: once the Top dialect
/// is loaded in a context built from `registry`, each op implements `top::InferenceInterface`.
///
/// Kernel contract (the interface's `inference(inputs, outputs)`): every operand and result is a dense
/// row-major float32 buffer of its static shape, whatever its element type (integers and booleans are
/// carried as their float values, `none` operands as nullptr); kernels follow ONNX semantics as documented
/// on each op, run multi-threaded (tpuc::sim::ThreadPool, OpenBLAS for GEMMs), and report bad data (an
/// out-of-range gather index, a missing weight) as an op error.
void registerTopReferenceKernels(mlir::DialectRegistry &registry);

/// Same, applied directly to `context` (the extension runs at once if Top is already loaded).
void registerTopReferenceKernels(mlir::MLIRContext &context);

} // namespace tpuc::sim

#endif // TPUC_SIMULATOR_REFERENCEKERNELS_H
