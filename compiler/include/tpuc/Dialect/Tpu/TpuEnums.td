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

#endif // TPUC_TPU_ENUMS
