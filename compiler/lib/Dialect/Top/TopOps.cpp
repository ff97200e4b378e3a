//===- TopOps.cpp - Top op definitions and non-shape verifiers ------------===//
// Generated op classes, shared shape helpers and the verifiers that check more than shapes.
//===----------------------------------------------------------------------===//
#include "tpuc/Dialect/Top/TopOps.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tpuc::top;

#include "tpuc/Dialect/Top/TopInterfaces.cpp.inc"
#define GET_OP_CLASSES
#include "tpuc/Dialect/Top/TopOps.cpp.inc"

namespace tpuc::top {

llvm::ArrayRef<int64_t> getShape(Value value) {
  if (auto type = dyn_cast<RankedTensorType>(value.getType()))
    return type.getShape();
  return {};
}

int64_t getNumElements(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return failure();
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(shape, os);
  os << ']';
  return text;
}

bool isNone(Value value) { return isa<NoneType>(value.getType()); }

/// Whether any operand is an unranked placeholder whose shape inference has not run yet; for an op with
/// regions (top.if, top.loop) also any value its regions yield, which its result shapes come from.
static bool hasPendingShapes(Operation *op) {
  auto unranked = [](Type t) { return isa<UnrankedTensorType>(t); };
  if (llvm::any_of(op->getOperandTypes(), unranked))
    return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>() &&
          llvm::any_of(block.back().getOperandTypes(), unranked))
        return true;
  return false;
}

LogicalResult verifyShapeInterface(Operation *op) {
  if (hasPendingShapes(op))
    return success(); // checked once top-shape-infer has run
  auto iface = cast<ShapeInterface>(op);
  SmallVector<SmallVector<int64_t>> shapes;
  if (failed(iface.computeOutputShapes(shapes)))
    return failure();
  if (shapes.size() != op->getNumResults())
    return op->emitOpError() << "has " << op->getNumResults() << " results but its shape rule gives "
                             << shapes.size();
  for (auto [index, result] : llvm::enumerate(op->getResults())) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type)
      continue;
    if (type.getShape() != ArrayRef<int64_t>(shapes[index]))
      return op->emitOpError() << "result #" << index << " has shape " << formatShape(type.getShape())
                               << " but the operands give " << formatShape(shapes[index]);
  }
  return success();
}

FailureOr<bool> ShapeInterface::inferShapes() {
  for (auto [index, type] : llvm::enumerate((*this)->getOperandTypes()))
    if (isa<UnrankedTensorType>(type))
      return (*this)->emitOpError() << "operand #" << index
                                    << " has no static shape (give the model input a fixed shape)";
  SmallVector<SmallVector<int64_t>> shapes;
  if (failed(computeOutputShapes(shapes)))
    return failure();
  bool changed = false;
  for (auto [index, result] : llvm::enumerate((*this)->getResults())) {
    auto type = dyn_cast<ShapedType>(result.getType());
    if (!type || index >= shapes.size())
      continue;
    auto newType = RankedTensorType::get(shapes[index], type.getElementType());
    if (newType != result.getType()) {
      result.setType(newType);
      changed = true;
    }
  }
  return changed;
}

} // namespace tpuc::top

//===----------------------------------------------------------------------===//
// Verifiers beyond shapes
//===----------------------------------------------------------------------===//

LogicalResult InputOp::verify() {
  auto shape = getShape(getInput());
  int64_t channels = 0;
  if (shape.size() == 4)
    channels = getChannelFormat() == ChannelFormat::nhwc ? shape[3] : shape[1];
  for (auto [name, values] : {std::pair<StringRef, std::optional<ArrayRef<double>>>{"mean", getMean()},
                              {"scale", getScale()}}) {
    if (!values)
      continue;
    if (values->size() != 1 && (channels == 0 || (int64_t)values->size() != channels))
      return emitOpError() << "'" << name << "' has " << values->size()
                           << " values; expected 1 or one per channel ("
                           << (channels ? std::to_string(channels) : std::string("input is not 4-D"))
                           << ")";
  }
  if (auto dims = getResizeDims()) {
    if (dims->size() != 2 || (*dims)[0] <= 0 || (*dims)[1] <= 0)
      return emitOpError() << "'resize_dims' must be two positive sizes [h, w], got "
                           << formatShape(*dims);
  }
  if (getKeepAspectRatio() && !getResizeDims())
    return emitOpError() << "'keep_aspect_ratio' needs 'resize_dims'";
  return success();
}

LogicalResult WeightOp::verify() {
  if (getName().empty())
    return emitOpError() << "needs a non-empty weight name";
  if (auto value = getValue()) {
    if (value->getType() != getOutput().getType())
      return emitOpError() << "inline value of type " << value->getType()
                           << " does not match the result type " << getOutput().getType();
    if (value->getNumElements() > kMaxInlineElements)
      return emitOpError() << "inline value has " << value->getNumElements()
                           << " elements; weights above " << kMaxInlineElements
                           << " elements belong in the weight file";
  }
  return success();
}

LogicalResult ClipOp::verify() {
  if (getMin().convertToDouble() > getMax().convertToDouble())
    return emitOpError() << "'min' (" << getMin().convertToDouble() << ") exceeds 'max' ("
                         << getMax().convertToDouble() << ")";
  return success();
}

LogicalResult A16MatMulOp::verify() {
  if (getSym() != isNone(getZp()))
    return emitOpError() << (getSym() ? "symmetric quantization takes no zero points ('zp' must be none)"
                                      : "asymmetric quantization needs zero points ('zp')");
  return success();
}
