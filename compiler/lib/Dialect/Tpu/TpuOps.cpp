//===- TpuOps.cpp - Tpu op definitions and verifiers ----------------------===//
// Every Tpu op's element types must agree with its precision; INT8 ops need their requant parameters.
//===----------------------------------------------------------------------===//
#include "tpuc/Dialect/Tpu/TpuOps.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "tpuc/Dialect/Top/TopOps.h"

#include "llvm/ADT/STLExtras.h"

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

Type elementOf(Value v) { return cast<ShapedType>(v.getType()).getElementType(); }

/// Ops without an INT8 form: the lowering keeps them in a float precision.
LogicalResult verifyFloatOnly(Operation *op, top::Precision precision, ArrayRef<Value> activations) {
  if (precision == top::Precision::INT8)
    return op->emitOpError() << "has no INT8 form; lower it in a float precision with casts around it";
  return verifyPrecision(op, precision, activations);
}

/// INT8 data movement keeps the quantized type: the result's element type must be the input's.
/// Integer tensors (indices) move unchanged in a float precision.
LogicalResult verifyKeepsType(Operation *op, top::Precision precision, Value input, Value output) {
  if (isa<IntegerType>(elementOf(input)) && precision != top::Precision::INT8) {
    if (elementOf(input) != elementOf(output))
      return op->emitOpError() << "moves integers of type " << elementOf(input) << " into "
                               << elementOf(output);
    return success();
  }
  if (failed(verifyPrecision(op, precision, {input})))
    return failure();
  if (precision == top::Precision::INT8 && elementOf(input) != elementOf(output))
    return op->emitOpError() << "in INT8 the result must keep the input's type " << elementOf(input)
                             << ", got " << elementOf(output);
  return success();
}

/// INT8 lookup-table ops need a 256-entry i8 table; float precisions compute the function directly.
LogicalResult verifyTable(Operation *op, top::Precision precision, Value input, Value table) {
  if (failed(verifyPrecision(op, precision, {input})))
    return failure();
  if (precision != top::Precision::INT8) {
    if (!top::isNone(table))
      return op->emitOpError() << "takes a lookup table only in INT8 ('table' must be none)";
    return success();
  }
  auto type = dyn_cast<ShapedType>(table.getType());
  if (!type || type.getNumElements() != 256 || !type.getElementType().isInteger(8))
    return op->emitOpError() << "INT8 needs a 'table' of 256 i8 values, got " << table.getType();
  return success();
}

/// INT8 add and sub: one multiplier per input and one common rshift.
LogicalResult verifyAddSubRequant(Operation *op, top::Precision precision,
                                  std::optional<ArrayRef<int64_t>> multiplier,
                                  std::optional<ArrayRef<int64_t>> rshift) {
  if (precision != top::Precision::INT8)
    return verifyRequant(op, precision, multiplier, rshift, 1);
  if (!multiplier || !rshift || multiplier->size() != 2 || rshift->size() != 1)
    return op->emitOpError() << "INT8 needs two multipliers (one per input) and one rshift";
  if ((*rshift)[0] < 0 || (*rshift)[0] > 63)
    return op->emitOpError() << "'rshift' values must lie in [0, 63], got " << (*rshift)[0];
  return success();
}

LogicalResult verifyConvAttrs(Operation *op, Value input, ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                              ArrayRef<int64_t> dilations, ArrayRef<int64_t> pads) {
  if (cast<ShapedType>(input.getType()).getRank() != 4)
    return op->emitOpError() << "expects a 4-D NCHW input";
  if (kernel.size() != 2 || strides.size() != 2 || dilations.size() != 2 || pads.size() != 4)
    return op->emitOpError() << "expects 2 kernel sizes, strides and dilations and 4 pads";
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Conv, matmul, pool, norm
//===----------------------------------------------------------------------===//

LogicalResult Conv2DOp::verify() {
  if (failed(verifyConvAttrs(*this, getInput(), getKernelShape(), getStrides(), getDilations(), getPads())) ||
      failed(verifyPrecision(*this, getPrecision(), {getInput()})))
    return failure();
  return verifyRequant(*this, getPrecision(), getMultiplier(), getRshift(), channelsOf(getOutput()));
}

LogicalResult Deconv2DOp::verify() {
  if (failed(verifyConvAttrs(*this, getInput(), getKernelShape(), getStrides(), getDilations(), getPads())))
    return failure();
  if (getOutputPadding().size() != 2)
    return emitOpError() << "expects 2 output paddings";
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
  if (getSym() != top::isNone(getZp()))
    return emitOpError() << (getSym() ? "symmetric weights take no zero points ('zp' must be none)"
                                      : "asymmetric weights need zero points ('zp')");
  return verifyPrecision(*this, getPrecision(), {getInput()}, /*allowWeightOnly=*/true);
}

LogicalResult Pool2DOp::verify() {
  if (cast<ShapedType>(getInput().getType()).getRank() != 4)
    return emitOpError() << "expects a 4-D NCHW input";
  if (getPoolMode() == PoolMode::max) {
    if (getMultiplier() || getRshift())
      return emitOpError() << "max pooling keeps the input scale and takes no 'multiplier'/'rshift'";
    return verifyKeepsType(*this, getPrecision(), getInput(), getOutput());
  }
  if (failed(verifyPrecision(*this, getPrecision(), {getInput()})))
    return failure();
  return verifyRequant(*this, getPrecision(), getMultiplier(), getRshift(), 1);
}

LogicalResult SoftmaxOp::verify() { return verifyFloatOnly(*this, getPrecision(), {getInput()}); }
LogicalResult LayerNormOp::verify() { return verifyFloatOnly(*this, getPrecision(), {getInput()}); }
LogicalResult ScaleOp::verify() { return verifyFloatOnly(*this, getPrecision(), {getInput()}); }
LogicalResult GroupNormOp::verify() { return verifyFloatOnly(*this, getPrecision(), {getInput()}); }
LogicalResult InstanceNormOp::verify() { return verifyFloatOnly(*this, getPrecision(), {getInput()}); }
LogicalResult GridSampleOp::verify() {
  return verifyFloatOnly(*this, getPrecision(), {getInput(), getGrid()});
}
LogicalResult ReduceOp::verify() { return verifyFloatOnly(*this, getPrecision(), {getInput()}); }
LogicalResult RMSNormOp::verify() { return verifyFloatOnly(*this, getPrecision(), {getInput()}); }
LogicalResult RopeOp::verify() { return verifyFloatOnly(*this, getPrecision(), {getInput()}); }
LogicalResult AttentionOp::verify() {
  return verifyFloatOnly(*this, getPrecision(), {getQuery(), getKey(), getValue()});
}

LogicalResult CumSumOp::verify() { return verifyFloatOnly(*this, getPrecision(), {getInput()}); }
LogicalResult CompareOp::verify() { return verifyFloatOnly(*this, getPrecision(), {getLhs(), getRhs()}); }
LogicalResult WhereOp::verify() {
  return verifyFloatOnly(*this, getPrecision(), {getCond(), getX(), getY()});
}

/// Values in the precision's float type, indices i32.
LogicalResult TopKOp::verify() {
  if (getPrecision() == top::Precision::INT8 || isWeightOnly(getPrecision()))
    return emitOpError() << "is float only; lower it in F32, F16 or BF16";
  Type value = elementOf(getValues()), input = elementOf(getInput());
  if (!elementMatches(value, getPrecision()) || !elementMatches(input, getPrecision()))
    return emitOpError() << "input and values must have the element type of precision "
                         << top::stringifyPrecision(getPrecision());
  if (!elementOf(getIndices()).isInteger(32))
    return emitOpError() << "indices must be i32, got " << elementOf(getIndices());
  auto shape = cast<ShapedType>(getInput().getType()).getShape();
  int64_t axis = getAxis() < 0 ? getAxis() + int64_t(shape.size()) : getAxis();
  if (axis < 0 || axis >= int64_t(shape.size()) || getK() < 1 || getK() > shape[axis])
    return emitOpError() << "needs 0 < k <= the extent of axis " << getAxis() << ", got k = " << getK();
  return success();
}

/// Logits and penalty in the precision, ids i32.
LogicalResult RepetitionPenaltyOp::verify() {
  if (failed(verifyFloatOnly(*this, getPrecision(), {getLogits(), getPenalty()})))
    return failure();
  if (!elementOf(getIds()).isInteger(32))
    return emitOpError() << "ids must be i32, got " << elementOf(getIds());
  return success();
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

LogicalResult AddOp::verify() {
  if (failed(verifyPrecision(*this, getPrecision(), {getLhs(), getRhs()})))
    return failure();
  return verifyAddSubRequant(*this, getPrecision(), getMultiplier(), getRshift());
}

LogicalResult SubOp::verify() {
  if (failed(verifyPrecision(*this, getPrecision(), {getLhs(), getRhs()})))
    return failure();
  return verifyAddSubRequant(*this, getPrecision(), getMultiplier(), getRshift());
}

LogicalResult MulOp::verify() {
  if (failed(verifyPrecision(*this, getPrecision(), {getLhs(), getRhs()})))
    return failure();
  return verifyRequant(*this, getPrecision(), getMultiplier(), getRshift(), 1);
}

/// div, max, min: float only, never requantized.
template <typename BinaryOp>
static LogicalResult verifyFloatBinary(BinaryOp op) {
  if (failed(verifyFloatOnly(op, op.getPrecision(), {op.getLhs(), op.getRhs()})))
    return failure();
  return verifyRequant(op, op.getPrecision(), op.getMultiplier(), op.getRshift(), 1);
}
LogicalResult DivOp::verify() { return verifyFloatBinary(*this); }
LogicalResult MaxOp::verify() { return verifyFloatBinary(*this); }
LogicalResult MinOp::verify() { return verifyFloatBinary(*this); }
LogicalResult PowerOp::verify() { return verifyFloatBinary(*this); }

LogicalResult AddConstOp::verify() { return verifyTable(*this, getPrecision(), getInput(), getTable()); }
LogicalResult SubConstOp::verify() { return verifyTable(*this, getPrecision(), getInput(), getTable()); }
LogicalResult MulConstOp::verify() { return verifyTable(*this, getPrecision(), getInput(), getTable()); }
LogicalResult DivConstOp::verify() { return verifyTable(*this, getPrecision(), getInput(), getTable()); }
LogicalResult MaxConstOp::verify() { return verifyTable(*this, getPrecision(), getInput(), getTable()); }
LogicalResult MinConstOp::verify() { return verifyTable(*this, getPrecision(), getInput(), getTable()); }
LogicalResult ActiveOp::verify() { return verifyTable(*this, getPrecision(), getInput(), getTable()); }

LogicalResult ReluOp::verify() { return verifyKeepsType(*this, getPrecision(), getInput(), getOutput()); }

LogicalResult ClipOp::verify() {
  if (getMin().convertToDouble() > getMax().convertToDouble())
    return emitOpError() << "'min' (" << getMin().convertToDouble() << ") exceeds 'max' ("
                         << getMax().convertToDouble() << ")";
  return verifyKeepsType(*this, getPrecision(), getInput(), getOutput());
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  if (top::getNumElements(top::getShape(getInput())) != top::getNumElements(top::getShape(getOutput())))
    return emitOpError() << "changes the number of elements";
  return verifyKeepsType(*this, getPrecision(), getInput(), getOutput());
}

LogicalResult PermuteOp::verify() {
  SmallVector<int64_t> sorted(getOrder());
  llvm::sort(sorted);
  int64_t rank = cast<ShapedType>(getInput().getType()).getRank();
  if ((int64_t)sorted.size() != rank || llvm::any_of(llvm::enumerate(sorted), [](auto p) {
        return p.value() != (int64_t)p.index();
      }))
    return emitOpError() << "'order' must be a permutation of the " << rank << " input axes";
  return verifyKeepsType(*this, getPrecision(), getInput(), getOutput());
}

LogicalResult SliceOp::verify() { return verifyKeepsType(*this, getPrecision(), getInput(), getOutput()); }
LogicalResult PadOp::verify() { return verifyKeepsType(*this, getPrecision(), getInput(), getOutput()); }
LogicalResult GatherOp::verify() { return verifyKeepsType(*this, getPrecision(), getInput(), getOutput()); }
LogicalResult GatherElementsOp::verify() {
  return verifyKeepsType(*this, getPrecision(), getInput(), getOutput());
}
LogicalResult DynamicSliceOp::verify() {
  return verifyKeepsType(*this, getPrecision(), getInput(), getOutput());
}
LogicalResult ScatterElementsOp::verify() {
  return verifyFloatOnly(*this, getPrecision(), {getInput(), getUpdates()});
}
LogicalResult ScatterNDOp::verify() { return verifyFloatOnly(*this, getPrecision(), {getInput(), getUpdates()}); }

/// An i64 index list computed from float (or integer) operands: `floats` must have the precision's type.
static LogicalResult verifyIndexResult(Operation *op, top::Precision precision, ArrayRef<Value> floats) {
  if (precision == top::Precision::INT8 || isWeightOnly(precision))
    return op->emitOpError() << "is float only; lower it in F32, F16 or BF16";
  for (Value v : floats)
    if (!isa<IntegerType>(elementOf(v)) && !elementMatches(elementOf(v), precision))
      return op->emitOpError() << "input of element type " << elementOf(v) << " does not match precision "
                               << top::stringifyPrecision(precision) << " (insert a tpu.cast)";
  if (!elementOf(op->getResult(0)).isInteger(64))
    return op->emitOpError() << "result must be i64, got " << elementOf(op->getResult(0));
  return success();
}
LogicalResult NonZeroOp::verify() { return verifyIndexResult(*this, getPrecision(), {getInput()}); }
/// Values in the precision's float type, the three index lists i64.
LogicalResult UniqueOp::verify() {
  if (getPrecision() == top::Precision::INT8 || isWeightOnly(getPrecision()))
    return emitOpError() << "is float only; lower it in F32, F16 or BF16";
  if (!elementMatches(elementOf(getInput()), getPrecision()) ||
      !elementMatches(elementOf(getOutput()), getPrecision()))
    return emitOpError() << "input and output must have the element type of precision "
                         << top::stringifyPrecision(getPrecision());
  for (Value v : {getIndices(), getInverseIndices(), getCounts()})
    if (!elementOf(v).isInteger(64))
      return emitOpError() << "index results must be i64, got " << elementOf(v);
  return success();
}
/// Maxima in the precision's float type, their flat indices i64.
LogicalResult MaxPoolWithMaskOp::verify() {
  if (getPrecision() == top::Precision::INT8 || isWeightOnly(getPrecision()))
    return emitOpError() << "is float only; lower it in F32, F16 or BF16";
  if (!elementMatches(elementOf(getInput()), getPrecision()) ||
      !elementMatches(elementOf(getOutput()), getPrecision()))
    return emitOpError() << "input and output must have the element type of precision "
                         << top::stringifyPrecision(getPrecision());
  if (!elementOf(getMask()).isInteger(64))
    return emitOpError() << "mask must be i64, got " << elementOf(getMask());
  return success();
}
/// The count in f32; the passed value in the precision's float type unless it is an integer tensor.
LogicalResult LoopGuardOp::verify() {
  if (!elementOf(getCount()).isF32())
    return emitOpError() << "count must be f32, got " << elementOf(getCount());
  if (isa<IntegerType>(elementOf(getInput())) && !isa<mlir::quant::QuantizedType>(elementOf(getInput())))
    return elementOf(getInput()) == elementOf(getOutput())
               ? success()
               : emitOpError() << "passes " << elementOf(getInput()) << " on as " << elementOf(getOutput());
  return verifyFloatOnly(*this, getPrecision(), {getInput(), getOutput()});
}
/// Values in the precision's float type, their flat output positions i64.
LogicalResult MaxUnpoolOp::verify() {
  if (failed(verifyFloatOnly(*this, getPrecision(), {getInput()})))
    return failure();
  if (!elementOf(getIndices()).isInteger(64))
    return emitOpError() << "indices must be i64, got " << elementOf(getIndices());
  return success();
}
/// Image, filter and bias in the precision's float type; offset and mask f32 (they place the samples).
LogicalResult DeformConv2DOp::verify() {
  if (failed(verifyFloatOnly(*this, getPrecision(), {getInput(), getFilter()})))
    return failure();
  for (Value v : {Value(getOffset()), Value(getMask())})
    if (!isa<NoneType>(v.getType()) && !elementOf(v).isF32())
      return emitOpError() << "offset and mask must be f32, got " << elementOf(v);
  return success();
}
LogicalResult RoiAlignOp::verify() { return verifyFloatOnly(*this, getPrecision(), {getInput()}); }
LogicalResult RoiPoolingOp::verify() { return verifyFloatOnly(*this, getPrecision(), {getInput()}); }
LogicalResult NonMaxSuppressionOp::verify() {
  return verifyIndexResult(*this, getPrecision(), {getBoxes(), getScores()});
}
LogicalResult Depth2SpaceOp::verify() {
  return verifyKeepsType(*this, getPrecision(), getInput(), getOutput());
}

LogicalResult SplitOp::verify() {
  for (Value output : getOutputs())
    if (failed(verifyKeepsType(*this, getPrecision(), getInput(), output)))
      return failure();
  return success();
}

LogicalResult ConcatOp::verify() {
  for (Value input : getInputs())
    if (failed(verifyKeepsType(*this, getPrecision(), input, getOutput())))
      return failure();
  return success();
}

LogicalResult InterpOp::verify() {
  if (getPrecision() == top::Precision::INT8 && getMode() != top::InterpMode::nearest)
    return emitOpError() << "INT8 resizes only with nearest interpolation";
  return verifyKeepsType(*this, getPrecision(), getInput(), getOutput());
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  if (getInput().getType() == getOutput().getType())
    return emitOpError() << "casts to its own type " << getInput().getType();
  if (top::getShape(getInput()) != top::getShape(getOutput()))
    return emitOpError() << "changes the shape " << top::formatShape(top::getShape(getInput())) << " to "
                         << top::formatShape(top::getShape(getOutput()));
  // f32 -> integer: a loop's step number (exact integers) for the body's integer uses.
  if (isa<IntegerType>(elementOf(getOutput())) && elementOf(getInput()).isF32() &&
      getPrecision() == top::Precision::F32)
    return success();
  return verifyPrecision(*this, getPrecision(), {});
}

LogicalResult RequantIntOp::verify() {
  auto inElem = elementOf(getInput());
  if (!isa<quant::QuantizedType>(inElem))
    return emitOpError() << "input must be quantized, got " << inElem;
  if (failed(verifyPrecision(*this, getPrecision(), {})))
    return failure();
  return verifyRequant(*this, getPrecision(), getMultiplier(), getRshift(), channelsOf(getOutput()));
}

//===----------------------------------------------------------------------===//
// Control flow: the regions' block arguments are the operands, the yields give the results.
//===----------------------------------------------------------------------===//

namespace {
LogicalResult checkRegion(Operation *op, Region &region, TypeRange arguments, TypeRange yields,
                          StringRef what) {
  Block &block = region.front();
  if (block.getArgumentTypes() != arguments)
    return op->emitOpError() << "'" << what << "' block arguments must have the operand types";
  auto yield = dyn_cast<tpuc::tpu::YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError() << "'" << what << "' must end with tpu.yield";
  if (yield->getOperandTypes() != yields)
    return op->emitOpError() << "'" << what << "' must yield values of the result types";
  return success();
}
} // namespace

LogicalResult tpuc::tpu::IfOp::verify() {
  if (getCond().getType().getNumElements() != 1)
    return emitOpError() << "'cond' must hold one element";
  if (failed(checkRegion(*this, getThenBranch(), getInputs().getTypes(), getResultTypes(), "then_branch")))
    return failure();
  return checkRegion(*this, getElseBranch(), getInputs().getTypes(), getResultTypes(), "else_branch");
}

LogicalResult tpuc::tpu::LoopOp::verify() {
  if (getInits().empty() || cast<ShapedType>(getInits().front().getType()).getNumElements() != 1)
    return emitOpError() << "the first carried value (the condition) must hold one element";
  if (TypeRange(getInits().getTypes()) != TypeRange(getResultTypes()))
    return emitOpError() << "results must have the carried values' types";
  SmallVector<Type> arguments(getInits().getTypes());
  llvm::append_range(arguments, getCaptures().getTypes());
  return checkRegion(*this, getBody(), arguments, getResultTypes(), "body");
}
