//===- TopControl.cpp - top.if / top.loop: verifiers, shapes, FLOPs -------===//
// The regions' signatures against the op: block arguments match the operands, yields match the results.
// Shapes are compared, not element types: calibration gives the op's results their ranges, not the block
// arguments or the values inside. Shape inference of a region op reads its yields, so the ops inside are
// inferred first (top-shape-infer visits them before the op, after inferRegionArguments).
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

/// Whether two types may stand for each other: equal shapes (unranked on either side passes: shapes come
/// later).
bool sameShape(Type a, Type b) {
  auto ra = dyn_cast<RankedTensorType>(a), rb = dyn_cast<RankedTensorType>(b);
  return !ra || !rb || ra.getShape() == rb.getShape();
}

/// The block arguments of `region` from `first` on stand for `expected`; `what` names the region.
LogicalResult checkArguments(Operation *op, Region &region, size_t first, TypeRange expected,
                             StringRef what) {
  Block &block = region.front();
  for (auto [i, want] : llvm::enumerate(expected)) {
    Type got = block.getArgument(first + i).getType();
    if (!sameShape(got, want))
      return op->emitOpError() << "'" << what << "' block argument #" << first + i << " is " << got
                               << " but the operand is " << want;
  }
  return success();
}

/// The yield of `region` gives `count` values; from `skip` on, of the shapes of `results`.
LogicalResult checkYield(Operation *op, Region &region, size_t count, TypeRange results, size_t skip,
                         StringRef what) {
  auto yield = dyn_cast<YieldOp>(region.front().getTerminator());
  if (!yield)
    return op->emitOpError() << "'" << what << "' must end with top.yield";
  if (yield->getNumOperands() != count)
    return op->emitOpError() << "'" << what << "' yields " << yield->getNumOperands() << " values, expected "
                             << count;
  for (auto [i, type] : llvm::enumerate(results)) {
    Type got = yield->getOperand(skip + i).getType();
    if (!sameShape(got, type))
      return op->emitOpError() << "'" << what << "' yields " << got << " as value #" << skip + i
                               << " for result #" << i << " of type " << type;
  }
  return success();
}

/// Gives the block arguments of `region` from `first` on the shapes of `sources` (keeping their element
/// types); returns whether one changed.
bool inferArguments(Region &region, size_t first, TypeRange sources) {
  bool changed = false;
  Block &block = region.front();
  for (auto [i, source] : llvm::enumerate(sources)) {
    auto ranked = dyn_cast<RankedTensorType>(source);
    BlockArgument arg = block.getArgument(first + i);
    auto current = dyn_cast<ShapedType>(arg.getType());
    if (!ranked || !current || (current.hasRank() && current.getShape() == ranked.getShape()))
      continue;
    arg.setType(RankedTensorType::get(ranked.getShape(), current.getElementType()));
    changed = true;
  }
  return changed;
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

/// FLOPs of one run of `region`: its ops' (a nested region op counts its own regions).
int64_t regionFlops(Region &region) {
  int64_t flops = 0;
  for (Operation &op : region.front())
    if (auto counted = dyn_cast<FlopsInterface>(op))
      flops += counted.getFLOPs();
  return flops;
}

} // namespace

//===----------------------------------------------------------------------===//
// top.if
//===----------------------------------------------------------------------===//

LogicalResult IfOp::verify() {
  if (!oneElement(getCond().getType()))
    return emitOpError() << "'cond' must hold one element, got " << getCond().getType();
  return success();
}

LogicalResult IfOp::verifyRegions() {
  for (Region *region : {&getThenBranch(), &getElseBranch()}) {
    StringRef what = region == &getThenBranch() ? "then_branch" : "else_branch";
    if (region->front().getNumArguments() != getInputs().size())
      return emitOpError() << "'" << what << "' has " << region->front().getNumArguments()
                           << " block arguments for " << getInputs().size() << " inputs";
    if (failed(checkArguments(*this, *region, 0, getInputs().getTypes(), what)) ||
        failed(checkYield(*this, *region, getNumResults(), getResultTypes(), 0, what)))
      return failure();
  }
  return success();
}

bool IfOp::inferRegionArguments() {
  bool changed = inferArguments(getThenBranch(), 0, getInputs().getTypes());
  return inferArguments(getElseBranch(), 0, getInputs().getTypes()) || changed;
}

LogicalResult IfOp::computeOutputShapes(Shapes &shapes) {
  return yieldedShapes(*this, getThenBranch(), 0, shapes);
}

int64_t IfOp::getFLOPs() { return std::max(regionFlops(getThenBranch()), regionFlops(getElseBranch())); }

//===----------------------------------------------------------------------===//
// top.loop
//===----------------------------------------------------------------------===//

LogicalResult LoopOp::verify() {
  if (!oneElement(getMaxTrips().getType()))
    return emitOpError() << "'max_trips' must hold one element, got " << getMaxTrips().getType();
  if (!oneElement(getCond().getType()))
    return emitOpError() << "'cond' must hold one element, got " << getCond().getType();
  return success();
}

LogicalResult LoopOp::verifyRegions() {
  Block &body = getBody().front();
  size_t expected = 2 + getInits().size() + getCaptures().size();
  if (body.getNumArguments() != expected)
    return emitOpError() << "'body' has " << body.getNumArguments()
                         << " block arguments, expected the step, the condition, " << getInits().size()
                         << " carried and " << getCaptures().size() << " captured values";
  if (!oneElement(body.getArgument(0).getType()) || !oneElement(body.getArgument(1).getType()))
    return emitOpError()
           << "'body' block arguments #0 (the step) and #1 (the condition) must hold one element";
  SmallVector<Type> carried(getInits().getTypes());
  llvm::append_range(carried, getCaptures().getTypes());
  if (failed(checkArguments(*this, getBody(), 2, carried, "body")) ||
      failed(checkYield(*this, getBody(), 1 + getInits().size(), getResultTypes(), 1, "body")))
    return failure();
  if (!oneElement(body.getTerminator()->getOperand(0).getType()))
    return emitOpError() << "'body' must yield a one-element condition first";
  return success();
}

bool LoopOp::inferRegionArguments() {
  SmallVector<Type> carried(getInits().getTypes());
  llvm::append_range(carried, getCaptures().getTypes());
  return inferArguments(getBody(), 2, carried);
}

LogicalResult LoopOp::computeOutputShapes(Shapes &shapes) {
  // Checked here, where the shape interface's verifier (which runs before verify()) meets it first.
  if (getInits().size() != getNumResults())
    return emitOpError() << "has " << getInits().size() << " carried values but " << getNumResults()
                         << " results";
  for (Value v : getInits()) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type)
      return emitOpError() << "a carried value has no static shape yet";
    shapes.push_back(SmallVector<int64_t>(type.getShape()));
  }
  return success();
}

int64_t LoopOp::getFLOPs() { return regionFlops(getBody()); }
