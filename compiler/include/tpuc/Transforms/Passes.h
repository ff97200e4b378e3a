//===- Passes.h - Passes over Top and Tpu IR --------------------*- C++ -*-===//
// Pass constructors and registration, generated from Passes.td.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TRANSFORMS_PASSES_H
#define TPUC_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tpuc {

#define GEN_PASS_DECL
#include "tpuc/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tpuc/Transforms/Passes.h.inc"

} // namespace tpuc

#endif // TPUC_TRANSFORMS_PASSES_H
