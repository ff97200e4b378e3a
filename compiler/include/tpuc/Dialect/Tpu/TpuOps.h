//===- TpuOps.h - Operations of the Tpu dialect -----------------*- C++ -*-===//
// Op classes of the Tpu dialect.
//===----------------------------------------------------------------------===//
#ifndef TPUC_DIALECT_TPU_TPUOPS_H
#define TPUC_DIALECT_TPU_TPUOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tpuc/Dialect/Tpu/TpuDialect.h"
#include "tpuc/Dialect/Tpu/TpuTraits.h"

#include "llvm/Support/Error.h"

#include "tpuc/Dialect/Tpu/TpuInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tpuc/Dialect/Tpu/TpuOps.h.inc"

#endif // TPUC_DIALECT_TPU_TPUOPS_H
