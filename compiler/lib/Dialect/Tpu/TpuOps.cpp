//===- TpuOps.cpp - Tpu op definitions and verifiers ----------------------===//
// Every Tpu op's element types must agree with its precision; INT8 ops need their requant parameters.
//===----------------------------------------------------------------------===//
#include "tpuc/Dialect/Tpu/TpuOps.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "tpuc/Dialect/Top/TopOps.h"

using namespace mlir;
using namespace tpuc;
using namespace tpuc::tpu;

#define GET_OP_CLASSES
#include "tpuc/Dialect/Tpu/TpuOps.cpp.inc"

namespace {

/// The element type an activation of `precision` must have, described for messages.
bool elementMatches(Type element, top::Precision precision) {
  switch (precision) {
  case top::Precision::F32:
    return element.isF32();
  case top::Precision::F16:
  case top::Precision::W8F16:
  case top::Precision::W4F16:
    return element.isF16();
  case top::Precision::BF16:
  case top::Precision::W8BF16:
  case top::Precision::W4BF16:
    return element.isBF16();
  case top::Precision::INT8: {
    auto q = dyn_cast<quant::QuantizedType>(element);
    return q && q.getStorageTypeIntegralWidth() == 8;
  }
  }
  return false;
}

StringRef expectedElement(top::Precision precision) {
  switch (precision) {
  case top::Precision::F32:
    return "f32";
  case top::Precision::F16:
  case top::Precision::W8F16:
  case top::Precision::W4F16:
    return "f16";
  case top::Precision::BF16:
  case top::Precision::W8BF16:
  case top::Precision::W4BF16:
    return "bf16";
  case top::Precision::INT8:
    return "an 8-bit !quant.uniform type";
  }
  return "?";
}

bool isWeightOnly(top::Precision p) {
  return p == top::Precision::W8F16 || p == top::Precision::W8BF16 || p == top::Precision::W4F16 ||
         p == top::Precision::W4BF16;
}

/// Checks that every result (and, unless `checkInputs` is false, every activation operand) has the
/// element type of `precision`.
LogicalResult verifyPrecision(Operation *op, top::Precision precision, ArrayRef<Value> activations,
                              bool allowWeightOnly = false) {
  if (isWeightOnly(precision) && !allowWeightOnly)
    return op->emitOpError() << "precision " << top::stringifyPrecision(precision)
                             << " is only for weight-only matmuls";
  for (auto [index, result] : llvm::enumerate(op->getResults())) {
    Type element = cast<ShapedType>(result.getType()).getElementType();
    if (!elementMatches(element, precision))
      return op->emitOpError() << "result #" << index << " has element type " << element
                               << " but precision " << top::stringifyPrecision(precision) << " needs "
                               << expectedElement(precision);
  }
  for (Value v : activations) {
    Type element = cast<ShapedType>(v.getType()).getElementType();
    if (!elementMatches(element, precision))
      return op->emitOpError() << "input of element type " << element << " does not match precision "
                               << top::stringifyPrecision(precision) << " (insert a tpu.cast)";
  }
  return success();
}

/// INT8 ops that requantize need multiplier and rshift, one value or one per output channel.
LogicalResult verifyRequant(Operation *op, top::Precision precision,
                            std::optional<ArrayRef<int64_t>> multiplier,
                            std::optional<ArrayRef<int64_t>> rshift, int64_t channels) {
  if (precision != top::Precision::INT8) {
    if (multiplier || rshift)
      return op->emitOpError() << "'multiplier' and 'rshift' belong to INT8 ops only";
    return success();
  }
  if (!multiplier || !rshift)
    return op->emitOpError() << "INT8 needs 'multiplier' and 'rshift'";
  if (multiplier->size() != rshift->size())
    return op->emitOpError() << "'multiplier' has " << multiplier->size() << " values but 'rshift' has "
                             << rshift->size();
  if (multiplier->size() != 1 && (int64_t)multiplier->size() != channels)
    return op->emitOpError() << "'multiplier' needs 1 or " << channels << " values (one per channel), got "
                             << multiplier->size();
  for (int64_t s : *rshift)
    if (s < 0 || s > 63)
      return op->emitOpError() << "'rshift' values must lie in [0, 63], got " << s;
  return success();
}

int64_t channelsOf(Value v) {
  auto shape = cast<ShapedType>(v.getType()).getShape();
  return shape.size() > 1 ? shape[1] : 1;
}

} // namespace

LogicalResult Conv2DOp::verify() {
  if (cast<ShapedType>(getInput().getType()).getRank() != 4)
    return emitOpError() << "expects a 4-D NCHW input";
  if (getKernelShape().size() != 2 || getStrides().size() != 2 || getDilations().size() != 2 ||
      getPads().size() != 4)
    return emitOpError() << "expects 2 kernel sizes, strides and dilations and 4 pads";
  if (failed(verifyPrecision(*this, getPrecision(), {getInput()})))
    return failure();
  return verifyRequant(*this, getPrecision(), getMultiplier(), getRshift(), channelsOf(getOutput()));
}

LogicalResult MatMulOp::verify() {
  if (failed(verifyPrecision(*this, getPrecision(), {getInput()})))
    return failure();
  auto shape = cast<ShapedType>(getOutput().getType()).getShape();
  return verifyRequant(*this, getPrecision(), getMultiplier(), getRshift(), shape.empty() ? 1 : shape.back());
}

LogicalResult A16MatMulOp::verify() {
  if (!isWeightOnly(getPrecision()))
    return emitOpError() << "precision must be W8F16, W8BF16, W4F16 or W4BF16, got "
                         << top::stringifyPrecision(getPrecision());
  int64_t bits = (getPrecision() == top::Precision::W4F16 || getPrecision() == top::Precision::W4BF16) ? 4 : 8;
  if (getWeightBits() != bits)
    return emitOpError() << "'weight_bits' " << getWeightBits() << " contradicts precision "
                         << top::stringifyPrecision(getPrecision());
  return verifyPrecision(*this, getPrecision(), {getInput()}, /*allowWeightOnly=*/true);
}

LogicalResult AddOp::verify() {
  if (failed(verifyPrecision(*this, getPrecision(), {getLhs(), getRhs()})))
    return failure();
  // INT8 add rescales each input: two multipliers, two shifts.
  if (getPrecision() == top::Precision::INT8 &&
      (!getMultiplier() || !getRshift() || getMultiplier()->size() != 2 || getRshift()->size() != 2))
    return emitOpError() << "INT8 add needs two multipliers and two rshifts, one per input";
  if (getPrecision() != top::Precision::INT8 && (getMultiplier() || getRshift()))
    return emitOpError() << "'multiplier' and 'rshift' belong to INT8 ops only";
  return success();
}

LogicalResult ReluOp::verify() { return verifyPrecision(*this, getPrecision(), {getInput()}); }

LogicalResult Pool2DOp::verify() {
  if (cast<ShapedType>(getInput().getType()).getRank() != 4)
    return emitOpError() << "expects a 4-D NCHW input";
  if (failed(verifyPrecision(*this, getPrecision(), {getInput()})))
    return failure();
  if (getPoolMode() == PoolMode::max && (getMultiplier() || getRshift()))
    return emitOpError() << "max pooling keeps the input scale and takes no 'multiplier'/'rshift'";
  if (getPoolMode() == PoolMode::avg)
    return verifyRequant(*this, getPrecision(), getMultiplier(), getRshift(), 1);
  return success();
}

LogicalResult CastOp::verify() {
  if (getInput().getType() == getOutput().getType())
    return emitOpError() << "casts to its own type " << getInput().getType();
  return verifyPrecision(*this, getPrecision(), {});
}

LogicalResult RequantIntOp::verify() {
  auto inElem = cast<ShapedType>(getInput().getType()).getElementType();
  if (!isa<quant::QuantizedType>(inElem))
    return emitOpError() << "input must be quantized, got " << inElem;
  if (failed(verifyPrecision(*this, getPrecision(), {})))
    return failure();
  return verifyRequant(*this, getPrecision(), getMultiplier(), getRshift(), channelsOf(getOutput()));
}
