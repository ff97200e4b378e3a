//===- TopBase.td - Top dialect, enums and op base classes -*- tablegen -*-===//
// The chip-independent Top dialect: its enums and the base classes that carry the shared traits.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TOP_BASE
#define TPUC_TOP_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "tpuc/Dialect/Top/TopInterfaces.td"

def Top_Dialect : Dialect {
  let name = "top";
  let cppNamespace = "::tpuc::top";
  let summary = "Chip-independent tensor operations of a neural network";
  let description = [{
    The Top dialect holds a network as imported from a framework (ONNX, HuggingFace checkpoints): static
    shapes, float32 semantics, weights referenced by name from a NumPy .npz file. It is the level at which
    the model is interpreted in float (the golden reference), calibrated and canonicalized, before it is
    lowered to the chip-dependent Tpu dialect.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    /// Module attribute names of the compilation state.
    static constexpr llvm::StringLiteral kChipAttr = "top.chip";
    static constexpr llvm::StringLiteral kModeAttr = "top.mode";
    static constexpr llvm::StringLiteral kStateAttr = "top.state";
    static constexpr llvm::StringLiteral kWeightFileAttr = "top.weight_file";
  private:
    void registerAttributes();
  public:
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

class Top_I32Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tpuc::top";
}
class Top_EnumAttr<EnumAttrInfo info, string mnemonic>
    : EnumAttr<Top_Dialect, info, mnemonic> {
  let assemblyFormat = "`<` $value `>`";
}

def Top_PixelFormat : Top_I32Enum<"PixelFormat", "pixel order of image inputs", [
  I32EnumAttrCase<"rgb", 0>, I32EnumAttrCase<"bgr", 1>, I32EnumAttrCase<"gray", 2>,
  I32EnumAttrCase<"rgba", 3>]>;
def Top_PixelFormatAttr : Top_EnumAttr<Top_PixelFormat, "pixel_format">;

def Top_ChannelFormat : Top_I32Enum<"ChannelFormat", "layout of image inputs", [
  I32EnumAttrCase<"nchw", 0>, I32EnumAttrCase<"nhwc", 1>]>;
def Top_ChannelFormatAttr : Top_EnumAttr<Top_ChannelFormat, "channel_format">;

def Top_PadType : Top_I32Enum<"PadType", "where keep-aspect-ratio padding goes", [
  I32EnumAttrCase<"center", 0>, I32EnumAttrCase<"normal", 1>]>;
def Top_PadTypeAttr : Top_EnumAttr<Top_PadType, "pad_type">;

def Top_PadMode : Top_I32Enum<"PadMode", "how padded elements are filled", [
  I32EnumAttrCase<"constant", 0>, I32EnumAttrCase<"reflect", 1>, I32EnumAttrCase<"edge", 2>]>;
def Top_PadModeAttr : Top_EnumAttr<Top_PadMode, "pad_mode">;

def Top_ReduceMode : Top_I32Enum<"ReduceMode", "reduction", [
  I32EnumAttrCase<"mean", 0>, I32EnumAttrCase<"sum", 1>, I32EnumAttrCase<"max", 2>,
  I32EnumAttrCase<"min", 3>, I32EnumAttrCase<"prod", 4>, I32EnumAttrCase<"l2", 5>,
  I32EnumAttrCase<"l1", 6>]>;
def Top_ReduceModeAttr : Top_EnumAttr<Top_ReduceMode, "reduce_mode">;

def Top_InterpMode : Top_I32Enum<"InterpMode", "resize interpolation", [
  I32EnumAttrCase<"nearest", 0>, I32EnumAttrCase<"linear", 1>, I32EnumAttrCase<"cubic", 2>]>;
def Top_InterpModeAttr : Top_EnumAttr<Top_InterpMode, "interp_mode">;

def Top_CoordMode : Top_I32Enum<"CoordMode", "resize coordinate transformation", [
  I32EnumAttrCase<"half_pixel", 0>, I32EnumAttrCase<"pytorch_half_pixel", 1>,
  I32EnumAttrCase<"align_corners", 2>, I32EnumAttrCase<"asymmetric", 3>,
  I32EnumAttrCase<"tf_half_pixel_for_nn", 4>]>;
def Top_CoordModeAttr : Top_EnumAttr<Top_CoordMode, "coord_mode">;

def Top_NearestMode : Top_I32Enum<"NearestMode", "how nearest resize rounds a source coordinate", [
  I32EnumAttrCase<"round_prefer_floor", 0>, I32EnumAttrCase<"round_prefer_ceil", 1>,
  I32EnumAttrCase<"floor", 2>, I32EnumAttrCase<"ceil", 3>]>;
def Top_NearestModeAttr : Top_EnumAttr<Top_NearestMode, "nearest_mode">;

def Top_ScatterReduce : Top_I32Enum<"ScatterReduce", "how a scatter combines an update with its target", [
  I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"add", 1>, I32EnumAttrCase<"mul", 2>,
  I32EnumAttrCase<"max", 3>, I32EnumAttrCase<"min", 4>]>;
def Top_ScatterReduceAttr : Top_EnumAttr<Top_ScatterReduce, "scatter_reduce">;

def Top_GridMode : Top_I32Enum<"GridMode", "grid-sample interpolation", [
  I32EnumAttrCase<"linear", 0>, I32EnumAttrCase<"nearest", 1>, I32EnumAttrCase<"cubic", 2>]>;
def Top_GridModeAttr : Top_EnumAttr<Top_GridMode, "grid_mode">;

def Top_GridPadding : Top_I32Enum<"GridPadding", "grid-sample values outside the input", [
  I32EnumAttrCase<"zeros", 0>, I32EnumAttrCase<"border", 1>, I32EnumAttrCase<"reflection", 2>]>;
def Top_GridPaddingAttr : Top_EnumAttr<Top_GridPadding, "grid_padding">;

def Top_RoiMode : Top_I32Enum<"RoiMode", "how RoI align pools its samples", [
  I32EnumAttrCase<"avg", 0>, I32EnumAttrCase<"max", 1>]>;
def Top_RoiModeAttr : Top_EnumAttr<Top_RoiMode, "roi_mode">;

def Top_CompareMode : Top_I32Enum<"CompareMode", "element-wise comparison or logic", [
  I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>, I32EnumAttrCase<"lt", 2>,
  I32EnumAttrCase<"le", 3>, I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>,
  I32EnumAttrCase<"And", 6, "and">, I32EnumAttrCase<"Or", 7, "or">, I32EnumAttrCase<"Xor", 8, "xor">]>;
def Top_CompareModeAttr : Top_EnumAttr<Top_CompareMode, "compare_mode">;

def Top_GeluApprox : Top_I32Enum<"GeluApprox", "GELU formulation", [
  I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"tanh", 1>]>;
def Top_GeluApproxAttr : Top_EnumAttr<Top_GeluApprox, "gelu_approx">;

def Top_RopeMode : Top_I32Enum<"RopeMode", "which elements a rotary embedding pairs", [
  I32EnumAttrCase<"half", 0, "half">, I32EnumAttrCase<"interleaved", 1>]>;
def Top_RopeModeAttr : Top_EnumAttr<Top_RopeMode, "rope_mode">;

def Top_Depth2SpaceMode : Top_I32Enum<"Depth2SpaceMode", "channel order of depth-to-space", [
  I32EnumAttrCase<"dcr", 0>, I32EnumAttrCase<"crd", 1>]>;
def Top_Depth2SpaceModeAttr : Top_EnumAttr<Top_Depth2SpaceMode, "d2s_mode">;

def Top_ModuleState : Top_I32Enum<"ModuleState", "how far a module has been compiled", [
  I32EnumAttrCase<"TOP_F32", 0>, I32EnumAttrCase<"TOP_CALIBRATED", 1>,
  I32EnumAttrCase<"TPU_LOWERED", 2>, I32EnumAttrCase<"TPU_GROUPED", 3>,
  I32EnumAttrCase<"TPU_ADDRESSED", 4>]>;
def Top_ModuleStateAttr : Top_EnumAttr<Top_ModuleState, "state">;

def Top_Precision : Top_I32Enum<"Precision", "compute precision of a module or op", [
  I32EnumAttrCase<"F32", 0>, I32EnumAttrCase<"F16", 1>, I32EnumAttrCase<"BF16", 2>,
  I32EnumAttrCase<"INT8", 3>, I32EnumAttrCase<"W8F16", 4>, I32EnumAttrCase<"W8BF16", 5>,
  I32EnumAttrCase<"W4F16", 6>, I32EnumAttrCase<"W4BF16", 7>]>;
def Top_PrecisionAttr : Top_EnumAttr<Top_Precision, "precision">;

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Top_WeightRefAttr : AttrDef<Top_Dialect, "WeightRef"> {
  let mnemonic = "weight_ref";
  let summary = "The constant value of a file-backed weight, by name";
  let description = [{
    What a `top.weight` without an inline value folds to. Constant-like ops must fold to an attribute so
    the folder can deduplicate and rematerialize them; a file-backed weight's attribute is its name and
    type (equal names mean equal data), never the data itself, which stays in the .npz file.
  }];
  let parameters = (ins StringRefParameter<"array name in the weight file">:$name, "::mlir::Type":$type);
  let assemblyFormat = "`<` $name `:` $type `>`";
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

// Unranked tensors are placeholders that importers leave for `top-shape-infer` to fill in; verifiers check
// shapes once they are known, and the TOP_F32 contract requires every shape to be static.
def Top_Tensor : AnyTypeOf<[StaticShapeTensorOf<[AnyType]>, UnrankedTensorOf<[AnyType]>],
                           "static-shape tensor (or unranked before shape inference)">;
def Top_TensorOrNone : AnyTypeOf<[Top_Tensor, NoneType], "static-shape tensor or none">;

//===----------------------------------------------------------------------===//
// Base classes: every Top op is side-effect free, infers its shapes and reports its FLOPs.
//===----------------------------------------------------------------------===//

class Top_Op<string mnemonic, list<Trait> traits = []>
    : Op<Top_Dialect, mnemonic, !listconcat([Pure,
          DeclareOpInterfaceMethods<Top_ShapeInterface>,
          DeclareOpInterfaceMethods<Top_FlopsInterface>], traits)> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

/// Element-wise ops with one tensor in and one out of the same shape.
class Top_UnaryOp<string mnemonic, string opSummary, list<Trait> traits = []>
    : Top_Op<mnemonic, traits> {
  let summary = opSummary;
  let arguments = (ins Top_Tensor:$input);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

/// Element-wise binary ops with NumPy broadcasting; `do_relu` lets a following Relu fuse in.
class Top_BinaryOp<string mnemonic, string opSummary, list<Trait> traits = []>
    : Top_Op<mnemonic, traits> {
  let summary = opSummary;
  let arguments = (ins Top_Tensor:$lhs, Top_Tensor:$rhs,
                   DefaultValuedAttr<BoolAttr, "false">:$do_relu,
                   DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($output)";
}

/// Element-wise op of a tensor and a scalar constant.
class Top_ConstBinaryOp<string mnemonic, string opSummary, list<Trait> traits = []>
    : Top_Op<mnemonic, traits> {
  let summary = opSummary;
  let arguments = (ins Top_Tensor:$input, F64Attr:$const_val,
                   DefaultValuedAttr<BoolAttr, "false">:$is_reverse,
                   DefaultValuedAttr<BoolAttr, "false">:$do_relu,
                   DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

#endif // TPUC_TOP_BASE
