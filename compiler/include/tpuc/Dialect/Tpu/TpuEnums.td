//===- TpuEnums.td - Enums of the Tpu dialect ---------------*- tablegen -*-===//
// Kept in a file of their own: the enum generator emits every enum it sees, so it must not see Top's.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TPU_ENUMS
#define TPUC_TPU_ENUMS

include "mlir/IR/EnumAttr.td"

def Tpu_PoolMode : I32EnumAttr<"PoolMode", "pooling reduction", [
  I32EnumAttrCase<"max", 0>, I32EnumAttrCase<"avg", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tpuc::tpu";
}

def Tpu_RequantMode : I32EnumAttr<"RequantMode", "integer requantization formula", [
  I32EnumAttrCase<"multiplier_shift", 0>, I32EnumAttrCase<"only_shift", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tpuc::tpu";
}

// The unary functions of tpu.active. `alpha` / `beta` are the coefficients named in each case's comment.
def Tpu_ActiveMode : I32EnumAttr<"ActiveMode", "unary function of tpu.active", [
  I32EnumAttrCase<"sigmoid", 0>,      // 1 / (1 + exp(-x))
  I32EnumAttrCase<"silu", 1>,         // x * sigmoid(x)
  I32EnumAttrCase<"gelu", 2>,         // 0.5 x (1 + erf(x / sqrt 2))
  I32EnumAttrCase<"gelu_tanh", 3>,    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  I32EnumAttrCase<"tanh", 4>,
  I32EnumAttrCase<"exp", 5>,
  I32EnumAttrCase<"log", 6>,
  I32EnumAttrCase<"sqrt", 7>,
  I32EnumAttrCase<"rsqrt", 8>,        // 1 / sqrt(x)
  I32EnumAttrCase<"abs", 9>,
  I32EnumAttrCase<"erf", 10>,
  I32EnumAttrCase<"reciprocal", 11>,  // 1 / x
  I32EnumAttrCase<"hardsigmoid", 12>, // max(0, min(1, alpha x + beta))
  I32EnumAttrCase<"hardswish", 13>,   // x * max(0, min(1, x / 6 + 0.5))
  I32EnumAttrCase<"leaky_relu", 14>,  // x >= 0 ? x : alpha x
  I32EnumAttrCase<"pow", 15>,         // x ^ alpha
  I32EnumAttrCase<"floor", 16>,
  I32EnumAttrCase<"ceil", 17>,
  I32EnumAttrCase<"round", 18>,       // ties to even
  I32EnumAttrCase<"sign", 19>,
  I32EnumAttrCase<"sin", 20>, I32EnumAttrCase<"cos", 21>, I32EnumAttrCase<"tan", 22>,
  I32EnumAttrCase<"asin", 23>, I32EnumAttrCase<"acos", 24>, I32EnumAttrCase<"atan", 25>,
  I32EnumAttrCase<"sinh", 26>, I32EnumAttrCase<"cosh", 27>, I32EnumAttrCase<"asinh", 28>,
  I32EnumAttrCase<"acosh", 29>, I32EnumAttrCase<"atanh", 30>,
  I32EnumAttrCase<"mish", 31>]> {       // x * tanh(log(1 + exp(x)))
  let genSpecializedAttr = 0;
  let cppNamespace = "::tpuc::tpu";
}

def Tpu_GroupKind : I32EnumAttr<"GroupKind", "how the ops of a layer group run", [
  I32EnumAttrCase<"group", 0>,   // sliced through local memory, software-pipelined
  I32EnumAttrCase<"global", 1>]> { // one op computed by itself from DDR
  let genSpecializedAttr = 0;
  let cppNamespace = "::tpuc::tpu";
}

#endif // TPUC_TPU_ENUMS
