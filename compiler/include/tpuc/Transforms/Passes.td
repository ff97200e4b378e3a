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
    top.weight and top.none and need `top.chip`; TPU_GROUPED needs `tpu.group` on every Tpu op;
    TPU_ADDRESSED needs an `address` on every Tpu op whose result leaves LMEM (`tpu.group` not `lmem_only`).
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

def TopFusePreprocess : Pass<"top-fuse-preprocess", "mlir::ModuleOp"> {
  let summary = "Move image preprocessing (crop, channel order, mean/scale) onto the chip";
  let description = [{
    model_deploy's --fuse_preprocess. Every image input takes raw 8-bit pixels at its resize size in the
    layout `customization-format` (RGB_PLANAR, RGB_PACKED, BGR_PLANAR, BGR_PACKED, GRAYSCALE; empty: the
    input's own pixel and channel format), followed by Top ops marked `top.preprocess`: a permute (packed
    layouts), a centre crop (resize size larger than the network's) and a 1x1 convolution doing the channel
    reorder and `(x - mean) * scale`. The C++ entry point is `tpuc::fusePreprocess`
    (Transforms/FusePreprocess.h); top-to-tpu keeps the marked ops in F32 and gives the input UINT8.
  }];
  let options = [
    Option<"customizationFormat", "customization-format", "std::string", /*default=*/"\"\"",
           "Layout of the raw pixels (empty: the input's pixel and channel format)">,
  ];
}

def TopToTpu : Pass<"top-to-tpu", "mlir::ModuleOp"> {
  let summary = "Lower Top ops to Tpu ops in one precision (F32, F16, BF16, INT8, W8/W4 weight-only)";
  let description = [{
    model_deploy's lowering. Every Top op becomes the Tpu op of its precision: the `mode`, or the op's line
    in the quantize table (TPU-MLIR's `op_name MODE`, mixed precision). INT8 takes per-tensor activation
    scales from the calibration table (threshold / 127, or min/max with zero points when `asymmetric`),
    quantizes conv/matmul weights per output channel to int8 with int32 biases and chooses the
    multiplier/rshift pairs (TpucQuant); unary ops become 256-entry lookup tables. W8/W4 modes quantize
    matmul weights group-wise (`q-group-size`) and run the rest in F16/BF16. Ops without an INT8 form stay
    in F32. Casts (`tpu.cast`, `tpu.requant_int`) are inserted at every precision boundary and named
    `<producer>_<suffix>`; every lowered op keeps its Top location, so tensor names match between the Top
    and Tpu dumps. New weights join the module's weight store (write them with top-save-weights). The
    module must be in state TOP_F32 and ends in TPU_LOWERED with `top.chip` and `top.mode` set. The rules
    are in docs/quantization.md; the C++ entry point is `tpuc::lowerToTpu` (Conversion/TopToTpu.h).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"bm1684x\"", "Target chip: bm1684x, bm1688 or cv186ah">,
    Option<"mode", "mode", "std::string", /*default=*/"\"F32\"",
           "Precision: F32, F16, BF16, INT8, W8F16, W8BF16, W4F16 or W4BF16">,
    Option<"asymmetric", "asymmetric", "bool", /*default=*/"false",
           "INT8 activations with zero points; W8/W4 weights with zero points">,
    Option<"calibrationTable", "calibration-table", "std::string", /*default=*/"\"\"",
           "TPU-MLIR calibration table (op_name threshold min max); required for INT8">,
    Option<"quantizeTable", "quantize-table", "std::string", /*default=*/"\"\"",
           "TPU-MLIR quantize table (op_name MODE) overriding the precision per op">,
    Option<"qGroupSize", "q-group-size", "int64_t", /*default=*/"0",
           "Group size along K of W8/W4 weight-only matmuls (0: one group per row)">,
    Option<"quantInput", "quant-input", "bool", /*default=*/"false",
           "Inputs take the type their consumers compute in (no cast from f32 on the chip)">,
    Option<"quantOutput", "quant-output", "bool", /*default=*/"false",
           "Results keep their INT8/F16/BF16 type (no cast back to f32)">,
  ];
  let dependentDialects = ["::tpuc::tpu::TpuDialect", "::mlir::quant::QuantDialect"];
}

def TpuLayerGroup : Pass<"tpu-layer-group", "mlir::ModuleOp"> {
  let summary = "Partition the Tpu function into layer groups (slices, pipeline time steps, LMEM)";
  let description = [{
    Builds the backend graph of the module's function (graphFromFunc), runs planLayerGroups for the chip
    (docs/BACKEND.md: greedy with opt=1, dynamic programming with opt=2, one op per group with opt=0) and
    records the result on the IR: every Tpu op gets `tpu.group = {id, kind, slices, unit, lmem_only}`
    (group index, "group" or "global", the n/c/h/w cut, the op's time unit inside a pipeline stage, and
    whether its result stays in LMEM), the module gets `tpu.opt`, `tpu.num_core`, `tpu.groups` and
    `tpu.cycles`. With num-core > 1 (at most the chip's cores) each group's slices and each splittable
    global op are spread over the cores (docs/BACKEND.md, several cores). Slices, time steps and LMEM
    rectangles are in the JSON plan (`plan`); the planner is deterministic, so later passes re-derive them
    and check them against the attributes. TPU_LOWERED -> TPU_GROUPED.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"", "Chip profile (default: the module's top.chip)">,
    Option<"opt", "opt", "int", /*default=*/"2", "0: one op per group, 1: greedy, 2: dynamic programming">,
    Option<"numCore", "num-core", "int", /*default=*/"1", "Cores to spread the work over (at most the chip's)">,
    Option<"plan", "plan", "std::string", /*default=*/"\"\"", "Write the backend plan JSON here">,
  ];
}

def TpuAddressAssign : Pass<"tpu-address-assign", "mlir::ModuleOp"> {
  let summary = "Assign DDR addresses: coefficient region, activations by lifetime, in-place ops";
  let description = [{
    Re-derives the layer groups recorded by tpu-layer-group (failing if the IR's `tpu.group` attributes no
    longer match), runs planGlobalMemory and writes every DDR-resident result's address: `address` on Tpu
    ops (LMEM-only results of a group get none), `tpu.address` on top.weight and top.input. Module
    attributes `tpu.coeff_bytes`, `tpu.activation_base`, `tpu.activation_bytes` and
    `tpu.activation_lower_bound` give the region sizes. A model larger than the chip's DDR fails naming
    the chip. TPU_GROUPED -> TPU_ADDRESSED.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"", "Chip profile (default: the module's top.chip)">,
    Option<"plan", "plan", "std::string", /*default=*/"\"\"", "Write the backend plan JSON here">,
  ];
}

def TpuCodegen : Pass<"tpu-codegen", "mlir::ModuleOp"> {
  let summary = "Write the .tpum model file of a TPU_ADDRESSED module";
  let description = [{
    Codegen (docs/MODEL_FORMAT.md): per layer group and pipeline stage, GDMA loads / stores per slice and
    one TIU command per op per slice with its LMEM operands and padding; global ops as DDR-to-DDR TIU
    commands; dependencies between the two engines follow the stages. Weights come from the module's
    weight file into the coefficient blob; IO descriptors carry the quantization of the function's types.
    The C++ entry points are `tpuc::generateModel` and `tpuc::runBackend` (Codegen/ModelCodegen.h).
  }];
  let options = [
    Option<"model", "model", "std::string", /*default=*/"\"\"", "Output .tpum path (required)">,
    Option<"net", "net", "std::string", /*default=*/"\"\"", "Net name (default: the function's name)">,
  ];
}

#endif // TPUC_TRANSFORMS_PASSES
