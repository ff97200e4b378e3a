//===- TopDialect.h - The chip-independent Top dialect ----------*- C++ -*-===//
// Dialect class, enums and attributes of the Top dialect.
//===----------------------------------------------------------------------===//
#ifndef TPUC_DIALECT_TOP_TOPDIALECT_H
#define TPUC_DIALECT_TOP_TOPDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include "tpuc/Dialect/Top/TopDialect.h.inc"
#include "tpuc/Dialect/Top/TopEnums.h.inc"
#define GET_ATTRDEF_CLASSES
#include "tpuc/Dialect/Top/TopAttrs.h.inc"

#endif // TPUC_DIALECT_TOP_TOPDIALECT_H
