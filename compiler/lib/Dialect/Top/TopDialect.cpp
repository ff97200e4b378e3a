//===- TopDialect.cpp - Top dialect registration --------------------------===//
// Registers the Top ops and attributes and materializes folded constants as inline weights.
//===----------------------------------------------------------------------===//
#include "tpuc/Dialect/Top/TopOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tpuc::top;

#include "tpuc/Dialect/Top/TopDialect.cpp.inc"
#include "tpuc/Dialect/Top/TopEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tpuc/Dialect/Top/TopAttrs.cpp.inc"

void TopDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tpuc/Dialect/Top/TopOps.cpp.inc"
      >();
  registerAttributes();
}

void TopDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tpuc/Dialect/Top/TopAttrs.cpp.inc"
      >();
}

Operation *TopDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type,
                                           Location loc) {
  if (auto ref = dyn_cast<WeightRefAttr>(value))
    return WeightOp::create(builder, loc, type, builder.getStringAttr(ref.getName()), ElementsAttr());
  auto elements = dyn_cast<ElementsAttr>(value);
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!elements || !tensorType || elements.getType() != tensorType ||
      elements.getNumElements() > WeightOp::kMaxInlineElements)
    return nullptr;
  return WeightOp::create(builder, loc, tensorType, builder.getStringAttr("folded"), elements);
}
