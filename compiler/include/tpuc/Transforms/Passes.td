//===- Passes.td - Passes over Top and Tpu IR ---------------*- tablegen -*-===//
// Every pass of the compiler, with its options. Pipelines (Pipelines.h) chain them.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TRANSFORMS_PASSES
#define TPUC_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def TopShapeInfer : Pass<"top-shape-infer", "mlir::ModuleOp"> {
  let summary = "Infer static result shapes of Top ops";
  let description = [{
    Walks every function and asks each op implementing `ShapeInterface` to recompute its result shapes from
    its operands, in a worklist: when a result type changes, its users are revisited. Function result types
    are updated to match the returned values. Importers create ops with placeholder result shapes and rely
    on this pass; it also re-derives shapes after an input shape is changed by hand.
  }];
  let dependentDialects = ["::tpuc::top::TopDialect"];
}

def TopVerifyState : Pass<"top-verify-state", "mlir::ModuleOp"> {
  let summary = "Check the contract of a compilation stage";
  let description = [{
    States what must hold at a stage boundary, so that a pass receiving IR it cannot handle fails with a
    clear message instead of miscompiling: the module's `top.state` must equal `state`, and the ops and
    types must be legal for it. TOP_F32 and TOP_CALIBRATED allow Top ops only (TOP_CALIBRATED also needs a
    calibrated type on every activation); TPU_LOWERED and TPU_GROUPED allow Tpu ops plus top.input,
    top.weight and top.none and need `top.chip`; TPU_ADDRESSED also needs an `address` on every Tpu op.
  }];
  let options = [
    Option<"state", "state", "std::string", /*default=*/"\"TOP_F32\"",
           "Expected module state: TOP_F32, TOP_CALIBRATED, TPU_LOWERED, TPU_GROUPED or TPU_ADDRESSED">,
  ];
}

def TopSaveWeights : Pass<"top-save-weights", "mlir::ModuleOp"> {
  let summary = "Write the module's weights to an .npz file";
  let description = [{
    Passes that create weights (BatchNorm folding, quantization) keep the new arrays in memory. This pass
    writes every file-backed weight the module still references, in IR order, to `file` (unused arrays
    are dropped) and points the module's `top.weight_file` attribute at it. It ends every pipeline that
    changes weights.
  }];
  let options = [
    Option<"file", "file", "std::string", /*default=*/"\"\"",
           "Output .npz path (default: overwrite the module's current weight file)">,
  ];
}

#endif // TPUC_TRANSFORMS_PASSES
