//===- TpuDialect.h - The chip-dependent Tpu dialect ------------*- C++ -*-===//
// Dialect class, enums and attributes of the Tpu dialect.
//===----------------------------------------------------------------------===//
#ifndef TPUC_DIALECT_TPU_TPUDIALECT_H
#define TPUC_DIALECT_TPU_TPUDIALECT_H

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/Dialect.h"
#include "tpuc/Dialect/Top/TopDialect.h"

#include "tpuc/Dialect/Tpu/TpuDialect.h.inc"
#include "tpuc/Dialect/Tpu/TpuEnums.h.inc"
#define GET_ATTRDEF_CLASSES
#include "tpuc/Dialect/Tpu/TpuAttrs.h.inc"

#endif // TPUC_DIALECT_TPU_TPUDIALECT_H
