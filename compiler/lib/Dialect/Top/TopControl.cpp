//===- TopControl.cpp - top.if / top.loop: verifiers, shapes, FLOPs -------===//
// The regions' signatures against the op: block arguments match the operands, yields match the results.
// Shape inference of a region op reads its yields, so the ops inside are inferred first (a post-order walk).
//===----------------------------------------------------------------------===//
#include "tpuc/Dialect/Top/TopOps.h"

using namespace mlir;
using namespace tpuc::top;

using Shapes = llvm::SmallVectorImpl<llvm::SmallVector<int64_t>>;

namespace {

/// Whether `t` holds exactly one element (a 0-d or one-element tensor); unranked passes.
bool oneElement(Type t) {
  auto type = dyn_cast<RankedTensorType>(t);
  return !type || type.getNumElements() == 1;
}

/// The block arguments of `region` have the `expected` types (unranked on either side passes: shapes come
/// later); `what` names the region in messages.
LogicalResult checkArguments(Operation *op, Region &region, TypeRange expected, StringRef what) {
  Block &block = region.front();
  if (block.getNumArguments() != expected.size())
    return op->emitOpError() << "'" << what << "' has " << block.getNumArguments() << " block arguments, expected "
                             << expected.size();
  for (auto [i, arg] : llvm::enumerate(block.getArguments())) {
    Type want = expected[i];
    if (isa<RankedTensorType>(want) && isa<RankedTensorType>(arg.getType()) && arg.getType() != want)
      return op->emitOpError() << "'" << what << "' block argument #" << i << " is " << arg.getType()
                               << " but the operand is " << want;
  }
  return success();
}

/// The yield of `region` gives `count` values; with `results`, of those types (skipping `skip` leading
/// yielded values).
LogicalResult checkYield(Operation *op, Region &region, size_t count, TypeRange results, size_t skip,
                         StringRef what) {
  auto yield = dyn_cast<YieldOp>(region.front().getTerminator());
  if (!yield)
    return op->emitOpError() << "'" << what << "' must end with top.yield";
  if (yield->getNumOperands() != count)
    return op->emitOpError() << "'" << what << "' yields " << yield->getNumOperands() << " values, expected " << count;
  for (auto [i, type] : llvm::enumerate(results)) {
    Type got = yield->getOperand(skip + i).getType();
    if (isa<RankedTensorType>(type) && isa<RankedTensorType>(got) &&
        cast<ShapedType>(type).getShape() != cast<ShapedType>(got).getShape())
      return op->emitOpError() << "'" << what << "' yields " << got << " as value #" << skip + i << " for result #"
                               << i << " of type " << type;
  }
  return success();
}

/// Shapes of the yielded values from `skip` on, in `shapes`; fails while one is unranked.
LogicalResult yieldedShapes(Operation *op, Region &region, size_t skip, Shapes &shapes) {
  Operation *yield = region.front().getTerminator();
  for (Value v : yield->getOperands().drop_front(skip)) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type)
      return op->emitOpError() << "a yielded value has no static shape yet";
    shapes.push_back(SmallVector<int64_t>(type.getShape()));
  }
  return success();
}

int64_t regionFlops(Region &region) {
  int64_t flops = 0;
  region.walk([&](FlopsInterface op) { flops += op.getFLOPs(); });
  return flops;
}

} // namespace

LogicalResult IfOp::verify() {
  if (!oneElement(getCond().getType()))
    return emitOpError() << "'cond' must hold one element, got " << getCond().getType();
  for (Region *region : {&getThenBranch(), &getElseBranch()}) {
    StringRef what = region == &getThenBranch() ? "then_branch" : "else_branch";
    if (failed(checkArguments(*this, *region, getInputs().getTypes(), what)) ||
        failed(checkYield(*this, *region, getNumResults(), getResultTypes(), 0, what)))
      return failure();
  }
  return success();
}

LogicalResult IfOp::computeOutputShapes(Shapes &shapes) { return yieldedShapes(*this, getThenBranch(), 0, shapes); }

int64_t IfOp::getFLOPs() { return std::max(regionFlops(getThenBranch()), regionFlops(getElseBranch())); }

LogicalResult LoopOp::verify() {
  if (!isa<NoneType>(getMaxTrips().getType()) && !oneElement(getMaxTrips().getType()))
    return emitOpError() << "'max_trips' must hold one element, got " << getMaxTrips().getType();
  if (!isa<NoneType>(getCond().getType()) && !oneElement(getCond().getType()))
    return emitOpError() << "'cond' must hold one element, got " << getCond().getType();
  if (getInits().size() != getNumResults())
    return emitOpError() << "has " << getInits().size() << " carried values but " << getNumResults() << " results";
  Block &body = getBody().front();
  size_t expected = 2 + getInits().size() + getCaptures().size();
  if (body.getNumArguments() != expected)
    return emitOpError() << "'body' has " << body.getNumArguments()
                         << " block arguments, expected the step, the condition, " << getInits().size()
                         << " carried and " << getCaptures().size() << " captured values";
  if (!oneElement(body.getArgument(0).getType()) || !oneElement(body.getArgument(1).getType()))
    return emitOpError() << "'body' block arguments #0 (the step) and #1 (the condition) must hold one element";
  SmallVector<Type> carried(getInits().getTypes());
  llvm::append_range(carried, getCaptures().getTypes());
  for (auto [i, want] : llvm::enumerate(carried)) {
    Type got = body.getArgument(2 + i).getType();
    if (isa<RankedTensorType>(want) && isa<RankedTensorType>(got) && got != want)
      return emitOpError() << "'body' block argument #" << 2 + i << " is " << got << " but the operand is " << want;
  }
  if (failed(checkYield(*this, getBody(), 1 + getInits().size(), getResultTypes(), 1, "body")))
    return failure();
  if (!oneElement(getBody().front().getTerminator()->getOperand(0).getType()))
    return emitOpError() << "'body' must yield a one-element condition first";
  return success();
}

LogicalResult LoopOp::computeOutputShapes(Shapes &shapes) {
  for (Value v : getInits()) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type)
      return emitOpError() << "a carried value has no static shape yet";
    shapes.push_back(SmallVector<int64_t>(type.getShape()));
  }
  return success();
}

int64_t LoopOp::getFLOPs() { return regionFlops(getBody()); }
