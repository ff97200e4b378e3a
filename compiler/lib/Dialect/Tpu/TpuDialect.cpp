//===- TpuDialect.cpp - Tpu dialect registration --------------------------===//
//===----------------------------------------------------------------------===//
#include "tpuc/Dialect/Tpu/TpuOps.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tpuc::tpu;

#include "tpuc/Dialect/Tpu/TpuDialect.cpp.inc"
#include "tpuc/Dialect/Tpu/TpuEnums.cpp.inc"
#include "tpuc/Dialect/Tpu/TpuInterfaces.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tpuc/Dialect/Tpu/TpuAttrs.cpp.inc"

void TpuDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tpuc/Dialect/Tpu/TpuOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tpuc/Dialect/Tpu/TpuAttrs.cpp.inc"
      >();
}
