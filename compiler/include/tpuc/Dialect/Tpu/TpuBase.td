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

def Tpu_Tensor : StaticShapeTensorOf<[AnyType]>;
def Tpu_TensorOrNone : AnyTypeOf<[Tpu_Tensor, NoneType], "static-shape tensor or none">;

/// Every Tpu op states its precision; after address assignment every result gets an address in global
/// memory. `verifyPrecision` checks that the element types agree with the precision.
class Tpu_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tpu_Dialect, mnemonic, !listconcat([Pure], traits)> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

defvar Tpu_CommonAttrs = (ins Top_PrecisionAttr:$precision, OptionalAttr<I64Attr>:$address);

/// Integer requantization after an INT8 accumulation: `y = sat(round((acc * multiplier) >> rshift) + zp)`,
/// per tensor (one value) or per output channel.
defvar Tpu_RequantAttrs = (ins OptionalAttr<DenseI64ArrayAttr>:$multiplier,
                              OptionalAttr<DenseI64ArrayAttr>:$rshift);

#endif // TPUC_TPU_BASE
