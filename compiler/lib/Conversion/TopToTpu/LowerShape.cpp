//===- LowerShape.cpp - Lowering of data movement, resize and reductions ---===//
// Data movement keeps its input's type: INT8 stays INT8 at the same scale, and in INT8 mode an op fed by a
// float tensor stays in that float precision instead of quantizing for nothing.
//===----------------------------------------------------------------------===//
#include "Lowering.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace tpuc::lowering {
namespace {

/// The precision of a lowered float element type.
top::Precision precisionOfFloat(Type element) {
  if (element.isF16())
    return top::Precision::F16;
  if (element.isBF16())
    return top::Precision::BF16;
  return top::Precision::F32;
}

/// Data movement of an integer tensor (indices fed at run time): the integers move unchanged; the op states
/// F32, the precision of the float values it would otherwise carry.
template <typename TpuOp>
LogicalResult lowerKeepingIntegers(Lowering &L, Operation *op, ArrayRef<StringRef> drop) {
  SmallVector<Value> operands;
  for (Value v : op->getOperands())
    operands.push_back(L.lookup(v));
  SmallVector<Type> results;
  for (Value r : op->getResults())
    results.push_back(r.getType());
  L.build<TpuOp>(op, operands, results, L.attrsOf(op, top::Precision::F32, drop));
  return success();
}

/// Data movement on operand 0 (other operands, e.g. gather indices, pass unchanged).
template <typename TpuOp>
LogicalResult lowerMove(Lowering &L, Operation *op, ArrayRef<StringRef> drop = {}, bool int8Allowed = true) {
  auto p = L.requestedPrecision(op);
  if (failed(p))
    return failure();
  Value input = op->getOperand(0);
  Type current = cast<ShapedType>(L.lookup(input).getType()).getElementType();
  if (isa<IntegerType>(current) && !Lowering::isWeight(input))
    return lowerKeepingIntegers<TpuOp>(L, op, drop);
  if (*p != top::Precision::INT8)
    return L.lowerFloat<TpuOp>(op, *p, drop);
  if (!int8Allowed || Lowering::isWeight(input))
    return L.lowerFloat<TpuOp>(op, top::Precision::F32, drop);
  if (!isa<mlir::quant::UniformQuantizedType>(current))
    return L.lowerFloat<TpuOp>(op, precisionOfFloat(current), drop);
  SmallVector<Value> operands = {L.lookup(input)};
  for (Value v : op->getOperands().drop_front())
    operands.push_back(L.lookup(v));
  SmallVector<Type> results;
  for (Value r : op->getResults())
    results.push_back(L.resultType(r, current));
  L.build<TpuOp>(op, operands, results, L.attrsOf(op, top::Precision::INT8, drop));
  return success();
}

LogicalResult lowerConcat(Lowering &L, top::ConcatOp op) {
  auto p = L.requestedPrecision(op);
  if (failed(p))
    return failure();
  if (*p != top::Precision::INT8)
    return L.lowerFloat<tpu::ConcatOp>(op, *p);
  auto out = L.calibratedType(opName(op));
  if (failed(out))
    return failure();
  SmallVector<Value> operands;
  for (Value v : op.getInputs()) {
    auto converted = L.operandAs(v, *out);
    if (failed(converted))
      return failure();
    operands.push_back(*converted);
  }
  L.build<tpu::ConcatOp>(op, operands, {L.resultType(op.getOutput(), *out)},
                         L.attrsOf(op, top::Precision::INT8));
  return success();
}

template <typename TpuOp> LogicalResult lowerFloatOnly(Lowering &L, Operation *op) {
  auto p = L.requestedPrecision(op);
  if (failed(p))
    return failure();
  return L.lowerFloat<TpuOp>(op, *p);
}

/// An integer to float conversion (e.g. position ids for RoPE): a tpu.cast to f32 whatever the mode, so the
/// values stay exact (bf16 holds integers only up to 256). Float to integer truncates toward zero, which
/// tpu.cast does not: it has no lowering.
LogicalResult lowerCast(Lowering &L, top::CastOp op) {
  Type from = cast<ShapedType>(op.getInput().getType()).getElementType();
  Type to = cast<ShapedType>(op.getOutput().getType()).getElementType();
  // A boolean from top.compare is already a 0 / 1 float mask on the chip (tpu.compare): nothing to do.
  if (from.isInteger(1) && isa<FloatType>(to) &&
      isa<FloatType>(cast<ShapedType>(L.lookup(op.getInput()).getType()).getElementType())) {
    L.map(op.getOutput(), L.lookup(op.getInput()));
    return success();
  }
  if (!isa<IntegerType>(from) || !isa<FloatType>(to))
    return L.failOp(op, "has no Tpu lowering from " + llvm::Twine(from.isF32() ? "f32" : "this type") +
                            " to this element type (only integer to float)");
  Type f32 = Float32Type::get(op.getContext());
  L.build<tpu::CastOp>(op, {L.lookup(op.getInput())}, {L.resultType(op.getOutput(), f32)},
                       L.attrsOf(op, top::Precision::F32));
  return success();
}

/// The float precision `op` lowers in (the requested one, or its float stand-in) and its element type.
FailureOr<std::pair<top::Precision, Type>> floatTarget(Lowering &L, Operation *op) {
  auto p = L.requestedPrecision(op);
  if (failed(p))
    return failure();
  top::Precision precision = L.floatPrecision(*p);
  return std::make_pair(precision, L.floatType(precision));
}

/// where(cond, x, y) in the float precision. A condition from top.compare is already a 0 / 1 float mask on
/// the chip; a boolean fed as a graph input (an If on run-time data) is cast to that float type first.
LogicalResult lowerWhere(Lowering &L, top::WhereOp op) {
  auto target = floatTarget(L, op);
  if (failed(target))
    return failure();
  auto [precision, element] = *target;
  Value cond = L.lookup(op.getCond());
  if (isa<IntegerType>(cast<ShapedType>(cond.getType()).getElementType())) {
    cond = tpu::CastOp::create(L.builder, L.uniqueLoc(tensorName(op.getCond()), "mask"),
                               L.resultType(op.getCond(), element), cond,
                               top::PrecisionAttr::get(op.getContext(), precision), /*address=*/nullptr)
               .getOutput();
  } else {
    auto converted = L.operandAs(op.getCond(), element);
    if (failed(converted))
      return failure();
    cond = *converted;
  }
  auto x = L.operandAs(op.getX(), element), y = L.operandAs(op.getY(), element);
  if (failed(x) || failed(y))
    return failure();
  L.build<tpu::WhereOp>(op, {cond, *x, *y}, {L.resultType(op.getOutput(), element)},
                        L.attrsOf(op, precision));
  return success();
}

/// Values in the float precision, indices as i32 (the chip's index type).
LogicalResult lowerTopK(Lowering &L, top::TopKOp op) {
  auto target = floatTarget(L, op);
  if (failed(target))
    return failure();
  auto [precision, element] = *target;
  auto input = L.operandAs(op.getInput(), element);
  if (failed(input))
    return failure();
  L.build<tpu::TopKOp>(op, {*input},
                       {L.resultType(op.getValues(), element),
                        L.resultType(op.getIndices(), IntegerType::get(op.getContext(), 32))},
                       L.attrsOf(op, precision));
  return success();
}

/// `op` in float precision `precision`: integer operands unchanged, the operands in `keepF32` (values that
/// place samples or are compared with values computed in f32) in f32, the others in the precision's type;
/// integer results (index lists) keep their type.
template <typename TpuOp>
LogicalResult lowerFloatKeepingF32(Lowering &L, Operation *op, top::Precision precision,
                                   ArrayRef<unsigned> keepF32) {
  Type element = L.floatType(precision), f32 = Float32Type::get(op->getContext());
  SmallVector<Value> operands;
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    auto converted = L.operandAs(v, llvm::is_contained(keepF32, static_cast<unsigned>(i)) ? f32 : element);
    if (failed(converted))
      return failure();
    operands.push_back(*converted);
  }
  SmallVector<Type> results;
  for (Value r : op->getResults())
    results.push_back(isa<IntegerType>(getElementTypeOrSelf(r.getType())) ? r.getType() : L.resultType(r, element));
  L.build<TpuOp>(op, operands, results, L.attrsOf(op, precision));
  return success();
}

/// Resizes: INT8 for nearest only. A `scales` operand stays f32 whatever the precision (it places every
/// output sample), so with it the op lowers in the float precision its input has (F32 from INT8).
LogicalResult lowerInterp(Lowering &L, top::InterpOp op) {
  bool nearest = op.getMode() == top::InterpMode::nearest;
  if (!op.getScales())
    return lowerMove<tpu::InterpOp>(L, op, {}, nearest);
  auto p = L.requestedPrecision(op);
  if (failed(p))
    return failure();
  top::Precision precision = *p;
  if (precision == top::Precision::INT8) {
    Type current = cast<ShapedType>(L.lookup(op.getInput()).getType()).getElementType();
    precision = isa<FloatType>(current) ? precisionOfFloat(current) : top::Precision::F32;
  }
  return lowerFloatKeepingF32<tpu::InterpOp>(L, op, L.floatPrecision(precision), {1});
}

/// Ops whose result is an i64 index list (nonzero, non_max_suppression), in the float precision with the
/// operands in `keepF32` in f32.
template <typename TpuOp>
LogicalResult lowerIndexList(Lowering &L, Operation *op, ArrayRef<unsigned> keepF32 = {}) {
  auto target = floatTarget(L, op);
  if (failed(target))
    return failure();
  return lowerFloatKeepingF32<TpuOp>(L, op, target->first, keepF32);
}

/// Distinct values in the float precision (compared after rounding to it), index lists i64.
LogicalResult lowerUnique(Lowering &L, top::UniqueOp op) {
  if (!isa<FloatType>(getElementTypeOrSelf(op.getInput().getType())))
    return L.failOp(op, "unique of an integer tensor has no Tpu lowering (the chip compares floats)");
  return lowerIndexList<tpu::UniqueOp>(L, op);
}

/// A range too long to fold into the IR at import becomes a weight: its values are known at compile time.
LogicalResult lowerArange(Lowering &L, top::ArangeOp op) {
  auto type = cast<RankedTensorType>(op.getType());
  int64_t n = type.getNumElements();
  double start = op.getStart().convertToDouble(), delta = op.getDelta().convertToDouble();
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  FailureOr<Value> weight = failure();
  if (isa<FloatType>(type.getElementType())) {
    std::vector<float> values(n);
    for (int64_t i = 0; i < n; ++i)
      values[i] = static_cast<float>(start + static_cast<double>(i) * delta);
    weight = L.createFloatWeight(opName(op), "values", shape, values, Float32Type::get(op.getContext()));
  } else if (type.getElementType().isInteger(64) || type.getElementType().isInteger(32)) {
    std::vector<int64_t> values(n);
    for (int64_t i = 0; i < n; ++i)
      values[i] = static_cast<int64_t>(start + static_cast<double>(i) * delta);
    weight = L.createWeight(opName(op), "values", type,
                            type.getElementType().isInteger(32)
                                ? Tensor::fromValues<int32_t>(shape, std::vector<int32_t>(values.begin(), values.end()))
                                : Tensor::fromValues<int64_t>(shape, values));
  } else {
    return L.failOp(op, "a range of this element type has no Tpu lowering");
  }
  if (failed(weight))
    return failure();
  L.map(op.getOutput(), *weight);
  return success();
}

} // namespace

LogicalResult lowerShapeOp(Lowering &L, Operation *op, bool &handled) {
  handled = true;
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](top::ReshapeOp o) { return lowerMove<tpu::ReshapeOp>(L, o); })
      .Case([&](top::SqueezeOp o) { return lowerMove<tpu::ReshapeOp>(L, o, {"axes"}); })
      .Case([&](top::UnsqueezeOp o) { return lowerMove<tpu::ReshapeOp>(L, o, {"axes"}); })
      .Case([&](top::PermuteOp o) { return lowerMove<tpu::PermuteOp>(L, o); })
      .Case([&](top::SliceOp o) { return lowerMove<tpu::SliceOp>(L, o); })
      .Case([&](top::SplitOp o) { return lowerMove<tpu::SplitOp>(L, o); })
      .Case([&](top::PadOp o) { return lowerMove<tpu::PadOp>(L, o); })
      .Case([&](top::GatherOp o) { return lowerMove<tpu::GatherOp>(L, o); })
      .Case([&](top::Depth2SpaceOp o) { return lowerMove<tpu::Depth2SpaceOp>(L, o); })
      .Case([&](top::DynamicSliceOp o) { return lowerMove<tpu::DynamicSliceOp>(L, o); })
      .Case([&](top::GatherElementsOp o) { return lowerMove<tpu::GatherElementsOp>(L, o); })
      .Case([&](top::ScatterElementsOp o) { return lowerFloatOnly<tpu::ScatterElementsOp>(L, o); })
      .Case([&](top::ScatterNDOp o) { return lowerFloatOnly<tpu::ScatterNDOp>(L, o); })
      .Case([&](top::NonZeroOp o) { return lowerIndexList<tpu::NonZeroOp>(L, o); })
      .Case([&](top::UniqueOp o) { return lowerUnique(L, o); })
      .Case([&](top::NonMaxSuppressionOp o) {
        return lowerIndexList<tpu::NonMaxSuppressionOp>(L, o, {3, 4});
      })
      .Case([&](top::ArangeOp o) { return lowerArange(L, o); })
      .Case([&](top::InterpOp o) { return lowerInterp(L, o); })
      .Case([&](top::ConcatOp o) { return lowerConcat(L, o); })
      .Case([&](top::ReduceOp o) { return lowerFloatOnly<tpu::ReduceOp>(L, o); })
      .Case([&](top::CastOp o) { return lowerCast(L, o); })
      .Case([&](top::CumSumOp o) { return lowerFloatOnly<tpu::CumSumOp>(L, o); })
      .Case([&](top::CompareOp o) { return lowerFloatOnly<tpu::CompareOp>(L, o); })
      .Case([&](top::WhereOp o) { return lowerWhere(L, o); })
      .Case([&](top::RepetitionPenaltyOp o) { return lowerFloatOnly<tpu::RepetitionPenaltyOp>(L, o); })
      .Case([&](top::TopKOp o) { return lowerTopK(L, o); })
      .Default([&](Operation *) {
        handled = false;
        return failure();
      });
}

} // namespace tpuc::lowering
