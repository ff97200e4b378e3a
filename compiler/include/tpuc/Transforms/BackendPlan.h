//===- BackendPlan.h - The backend plan of a Tpu module ---------*- C++ -*-===//
//
// Shared by the tpu-layer-group and tpu-address-assign passes and by codegen:
// the chip profile, the backend Graph of the module's function, the layer
// group plan and the Tpu op behind each graph op. The planners are
// deterministic, so every consumer re-derives the same plan from the IR and
// checks it against the recorded `tpu.group` attributes.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_TRANSFORMS_BACKENDPLAN_H
#define TPUC_TRANSFORMS_BACKENDPLAN_H

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Backend/GlobalMemory.h"
#include "tpuc/Backend/Graph.h"
#include "tpuc/Backend/LayerGroup.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace tpuc {

/// Attribute names written by the backend passes.
namespace backend_attr {
inline constexpr llvm::StringLiteral kGroup = "tpu.group"; ///< Per op: a tpu::GroupAttr.
inline constexpr llvm::StringLiteral kAddress = "address"; ///< Per Tpu op: DDR address of result 0.
inline constexpr llvm::StringLiteral kAddresses = "tpu.addresses"; ///< Multi-result ops: one per result.
inline constexpr llvm::StringLiteral kTopAddress = "tpu.address";  ///< top.weight / top.input.
inline constexpr llvm::StringLiteral kOpt = "tpu.opt";
inline constexpr llvm::StringLiteral kNumCore = "tpu.num_core"; ///< Cores planned for (absent: 1).
inline constexpr llvm::StringLiteral kGroups = "tpu.groups";
inline constexpr llvm::StringLiteral kCycles = "tpu.cycles";
inline constexpr llvm::StringLiteral kCoeffBytes = "tpu.coeff_bytes";
inline constexpr llvm::StringLiteral kActivationBase = "tpu.activation_base";
inline constexpr llvm::StringLiteral kActivationBytes = "tpu.activation_bytes";
inline constexpr llvm::StringLiteral kActivationLowerBound = "tpu.activation_lower_bound";
} // namespace backend_attr

/// The plan of one module.
struct ModulePlan {
  backend::ChipProfile chip;
  mlir::func::FuncOp func;
  backend::Graph graph;
  backend::GroupOptions options; ///< What `groups` was planned with.
  backend::LayerGroupPlan groups;
  std::vector<mlir::Operation *> opOf; ///< Per graph op, the IR op.
};

/// Finds the chip (`chipName`, else the module's top.chip), builds the graph
/// of the module's only function and plans its layer groups with `opt` on
/// `numCore` cores (at most the chip's). Errors are emitted on the module
/// (or op) and yield failure.
mlir::FailureOr<ModulePlan> planModule(mlir::ModuleOp module, llvm::StringRef chipName, int opt, int numCore = 1);

/// The cores the module was planned for (`tpu.num_core`, 1 when absent).
int plannedCores(mlir::ModuleOp module);

/// Checks that the module's `tpu.group` attributes describe `plan.groups`.
mlir::LogicalResult checkGroupAttrs(const ModulePlan &plan);

/// Plans DDR; failure (emitted on the module) when it does not fit.
mlir::FailureOr<backend::GmemPlan> planModuleMemory(mlir::ModuleOp module, const ModulePlan &plan);

} // namespace tpuc

#endif // TPUC_TRANSFORMS_BACKENDPLAN_H
