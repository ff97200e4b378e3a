//===- TpuBase.td - Tpu dialect and op base classes --------*- tablegen -*-===//
// The chip-dependent Tpu dialect: precision, quantization parameters, layer groups and addresses.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TPU_BASE
#define TPUC_TPU_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "tpuc/Dialect/Top/TopBase.td"
include "tpuc/Dialect/Tpu/TpuEnums.td"
include "tpuc/Dialect/Tpu/TpuInterfaces.td"

def Tpu_Dialect : Dialect {
  let name = "tpu";
  let cppNamespace = "::tpuc::tpu";
  let summary = "Chip-dependent tensor operations with precision and quantization";
  let description = [{
    The Tpu dialect is what Top lowers to for one chip: every op carries its compute precision (F32, F16,
    BF16, INT8 symmetric or asymmetric, W4/W8 weight-only), the integer requantization parameters that make
    INT8 arithmetic exact, and, after the backend passes, its layer group and memory address. Quantized
    tensors use the `quant` dialect's `!quant.uniform` element types.
  }];
  let dependentDialects = ["::mlir::quant::QuantDialect"];
  let useDefaultAttributePrinterParser = 1;
}

def Tpu_PoolModeAttr : EnumAttr<Tpu_Dialect, Tpu_PoolMode, "pool_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tpu_RequantModeAttr : EnumAttr<Tpu_Dialect, Tpu_RequantMode, "requant_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tpu_ActiveModeAttr : EnumAttr<Tpu_Dialect, Tpu_ActiveMode, "active_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

/// The layer group of one op, set by tpu-layer-group on every Tpu op as `tpu.group` and checked against a
/// fresh plan by the passes after it.
def Tpu_GroupAttr : AttrDef<Tpu_Dialect, "Group"> {
  let mnemonic = "group";
  let summary = "The layer group of an op (its id, kind and place in the group)";
  let description = [{
    `id`: the group's index in execution order. `kind`: `group` (sliced through local memory) or `global`
    (one op from DDR). For a local group: `slices` (N, C, H, W slice counts), `unit` (the op's position in
    the group) and `lmem_only` (its results never reach DDR, so they have no address).

    ```mlir
    tpu.group = #tpu.group<id = 0, kind = group, slices = [1, 1, 2, 1], unit = 1, lmem_only = true>
    ```
  }];
  let parameters = (ins "int64_t":$id, EnumParameter<Tpu_GroupKind>:$kind,
                        OptionalParameter<"::mlir::DenseI64ArrayAttr">:$slices,
                        DefaultValuedParameter<"int64_t", "0">:$unit,
                        DefaultValuedParameter<"bool", "false">:$lmem_only);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Tpu_Tensor : StaticShapeTensorOf<[AnyType]>;
def Tpu_TensorOrNone : AnyTypeOf<[Tpu_Tensor, NoneType], "static-shape tensor or none">;

/// Every Tpu op states its precision; after address assignment every result gets an address in global
/// memory. `verifyPrecision` checks that the element types agree with the precision. Every op has the
/// backend interface (its role from a `Tpu_Role` trait); the simulator attaches the kernel interface.
class Tpu_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tpu_Dialect, mnemonic, !listconcat([Pure, Tpu_BackendInterface], traits)> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

defvar Tpu_CommonAttrs = (ins Top_PrecisionAttr:$precision, OptionalAttr<I64Attr>:$address);

/// Integer requantization after an INT8 accumulation: `y = sat(round((acc * multiplier) >> rshift) + zp)`,
/// per tensor (one value) or per output channel.
defvar Tpu_RequantAttrs = (ins OptionalAttr<DenseI64ArrayAttr>:$multiplier,
                              OptionalAttr<DenseI64ArrayAttr>:$rshift);

/// Element-wise binary ops with NumPy broadcasting and an optional fused Relu.
class Tpu_BinaryOp<string mnemonic, string opSummary, string int8Doc, list<Trait> traits = []>
    : Tpu_Op<mnemonic, traits> {
  let summary = opSummary # " with broadcasting (category: elementwise)";
  let description = [{
    Lowered `top.}] # mnemonic # [{`; the inputs broadcast as in NumPy. }] # int8Doc # [{

    ```mlir
    %y = tpu.}] # mnemonic # [{ %a, %b {precision = #top.precision<F16>}
        : (tensor<1x4x8x8xf16>, tensor<1x4x1x1xf16>) -> tensor<1x4x8x8xf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$lhs, Tpu_Tensor:$rhs,
                            DefaultValuedAttr<BoolAttr, "false">:$do_relu,
                            DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit),
                       Tpu_RequantAttrs, Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

/// Element-wise op of a tensor and a scalar. INT8 computes through a 256-entry table.
class Tpu_ConstBinaryOp<string mnemonic, string expr> : Tpu_Op<mnemonic, [Tpu_Role<"Unary">]> {
  let summary = "Computes " # expr # " with a scalar (category: elementwise)";
  let description = [{
    Lowered `top.}] # mnemonic # [{`: `}] # expr # [{` for every element x and the scalar `const_val`; with
    `is_reverse` the operands swap sides; `do_relu` clamps below at 0 (and above at `relu_limit` if > 0).
    Float precisions compute in f32 and round the result to the precision. INT8 needs `table`: 256 int8
    values, `y = table[x + 128]`, computed at lowering as `quantize_out(f(dequantize_in(x)))`; float
    precisions take `none`.

    ```mlir
    %y = tpu.}] # mnemonic # [{ %x, %none {precision = #top.precision<F32>, const_val = 2.0 : f64}
        : (tensor<1x4xf32>, none) -> tensor<1x4xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_TensorOrNone:$table, F64Attr:$const_val,
                            DefaultValuedAttr<BoolAttr, "false">:$is_reverse,
                            DefaultValuedAttr<BoolAttr, "false">:$do_relu,
                            DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

/// Data-movement ops: the same values in a new arrangement. In INT8 the result has the input's type.
class Tpu_ShapeOp<string mnemonic, string opSummary, list<Trait> traits = []> : Tpu_Op<mnemonic, traits> {
  let summary = opSummary # " (category: shape)";
  let results = (outs Tpu_Tensor:$output);
}

#endif // TPUC_TPU_BASE
