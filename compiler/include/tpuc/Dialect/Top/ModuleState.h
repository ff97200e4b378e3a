//===- ModuleState.h - Compilation state stored on the module ---*- C++ -*-===//
// Accessors for the module attributes top.chip, top.mode, top.state and top.weight_file.
//===----------------------------------------------------------------------===//
#ifndef TPUC_DIALECT_TOP_MODULESTATE_H
#define TPUC_DIALECT_TOP_MODULESTATE_H

#include "mlir/IR/BuiltinOps.h"
#include "tpuc/Dialect/Top/TopDialect.h"

#include <optional>

namespace tpuc::top {

/// The module's compilation state, if it has one.
inline std::optional<ModuleState> getModuleState(mlir::ModuleOp module) {
  if (auto attr = module->getAttrOfType<ModuleStateAttr>(TopDialect::kStateAttr))
    return attr.getValue();
  return std::nullopt;
}

inline void setModuleState(mlir::ModuleOp module, ModuleState state) {
  module->setAttr(TopDialect::kStateAttr, ModuleStateAttr::get(module.getContext(), state));
}

/// The chip the module is compiled for ("" before lowering).
inline llvm::StringRef getModuleChip(mlir::ModuleOp module) {
  if (auto attr = module->getAttrOfType<mlir::StringAttr>(TopDialect::kChipAttr))
    return attr.getValue();
  return "";
}

} // namespace tpuc::top

#endif // TPUC_DIALECT_TOP_MODULESTATE_H
