//===- TopLLMOps.cpp - Shape rules and FLOPs of the LLM ops (TopLLMOps.td) --===//
#include "tpuc/Dialect/Top/TopOps.h"

using namespace mlir;
using namespace tpuc::top;

using Shapes = llvm::SmallVectorImpl<llvm::SmallVector<int64_t>>;

LogicalResult RepetitionPenaltyOp::computeOutputShapes(Shapes &shapes) {
  auto logits = getShape(getLogits()), ids = getShape(getIds());
  if (logits.size() != 2)
    return emitOpError() << "expects logits [B, V], got " << formatShape(logits);
  if (ids.size() != 2 || ids[0] != logits[0])
    return emitOpError() << "'ids' " << formatShape(ids) << " must be [B, S] with B = " << logits[0];
  if (getNumElements(getShape(getPenalty())) != 1)
    return emitOpError() << "'penalty' " << formatShape(getShape(getPenalty()))
                         << " must hold exactly one value";
  shapes.push_back(llvm::SmallVector<int64_t>(logits));
  return success();
}

int64_t RepetitionPenaltyOp::getFLOPs() { return getNumElements(getShape(getIds())); }
