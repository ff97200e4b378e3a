//===- LowerShape.cpp - Lowering of data movement, resize and reductions ---===//
// Data movement keeps its input's type: INT8 stays INT8 at the same scale, and in INT8 mode an op fed by a
// float tensor stays in that float precision instead of quantizing for nothing.
//===----------------------------------------------------------------------===//
#include "TopLowering.h"

#include "mlir/IR/TypeUtilities.h"

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

/// Data movement on operand 0 (other operands, e.g. gather indices, pass unchanged). INT8 moves INT8
/// values at their scale; an op fed by a float tensor stays in that float precision, one fed by a weight
/// (or whose INT8 form is not exact, `int8Allowed` false) runs in F32.
template <typename TopOp, typename TpuOp> class MoveLowering : public TopLowering<TopOp> {
public:
  MoveLowering(Lowering &lowering, ArrayRef<StringRef> drop = {}, bool int8Allowed = true)
      : TopLowering<TopOp>(lowering), drop(drop.begin(), drop.end()), int8Allowed(int8Allowed) {}

protected:
  LogicalResult lower(TopOp op) const override {
    Lowering &L = this->L;
    auto p = L.requestedPrecision(op);
    if (failed(p))
      return failure();
    Value input = op->getOperand(0);
    Type current = cast<ShapedType>(L.lookup(input).getType()).getElementType();
    if (isa<IntegerType>(current) && !Lowering::isWeight(input))
      return lowerKeepingIntegers<TpuOp>(L, op, drop);
    return this->lowerIn(op, *p);
  }

  LogicalResult lowerInt8(TopOp op) const override { return lowerMoveInt8(op, int8Allowed); }

  LogicalResult lowerFloat(TopOp op, top::Precision precision) const override {
    return this->L.template lowerFloat<TpuOp>(op, precision, drop);
  }

  /// INT8 data movement (the F32 or input's float form when INT8 does not apply).
  LogicalResult lowerMoveInt8(TopOp op, bool int8) const {
    Lowering &L = this->L;
    Value input = op->getOperand(0);
    Type current = cast<ShapedType>(L.lookup(input).getType()).getElementType();
    if (!int8 || Lowering::isWeight(input))
      return L.template lowerFloat<TpuOp>(op, top::Precision::F32, drop);
    if (!isa<mlir::quant::UniformQuantizedType>(current))
      return L.template lowerFloat<TpuOp>(op, precisionOfFloat(current), drop);
    SmallVector<Value> operands = {L.lookup(input)};
    for (Value v : op->getOperands().drop_front())
      operands.push_back(L.lookup(v));
    SmallVector<Type> results;
    for (Value r : op->getResults())
      results.push_back(L.resultType(r, current));
    L.template build<TpuOp>(op, operands, results, L.attrsOf(op, top::Precision::INT8, drop));
    return success();
  }

  SmallVector<StringRef> drop;
  bool int8Allowed;
};

/// concat: INT8 with every input requantized to the output's scale.
class ConcatLowering : public TopLowering<top::ConcatOp> {
public:
  using TopLowering::TopLowering;

protected:
  LogicalResult lowerInt8(top::ConcatOp op) const override {
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

  LogicalResult lowerFloat(top::ConcatOp op, top::Precision precision) const override {
    return L.lowerFloat<tpu::ConcatOp>(op, precision);
  }
};

/// An integer to float conversion (e.g. position ids for RoPE): a tpu.cast to f32 whatever the mode, so the
/// values stay exact (bf16 holds integers only up to 256). Float to integer truncates toward zero, which
/// tpu.cast does not: it has no lowering.
class CastLowering : public TopLowering<top::CastOp> {
public:
  using TopLowering::TopLowering;

protected:
  LogicalResult lower(top::CastOp op) const override {
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
};

/// where(cond, x, y) in the float precision. A condition from top.compare is already a 0 / 1 float mask on
/// the chip; a boolean fed as a graph input (an If on run-time data) is cast to that float type first.
class WhereLowering : public TopLowering<top::WhereOp> {
public:
  using TopLowering::TopLowering;

protected:
  LogicalResult lowerFloat(top::WhereOp op, top::Precision precision) const override {
    Type element = L.floatType(precision);
    Value cond = L.lookup(op.getCond());
    if (isa<IntegerType>(cast<ShapedType>(cond.getType()).getElementType())) {
      cond = tpu::CastOp::create(L.rewriter(), L.uniqueLoc(tensorName(op.getCond()), "mask"),
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
};

/// Values in the float precision, indices as i32 (the chip's index type).
class TopKLowering : public TopLowering<top::TopKOp> {
public:
  using TopLowering::TopLowering;

protected:
  LogicalResult lowerFloat(top::TopKOp op, top::Precision precision) const override {
    Type element = L.floatType(precision);
    auto input = L.operandAs(op.getInput(), element);
    if (failed(input))
      return failure();
    L.build<tpu::TopKOp>(op, {*input},
                         {L.resultType(op.getValues(), element),
                          L.resultType(op.getIndices(), IntegerType::get(op.getContext(), 32))},
                         L.attrsOf(op, precision));
    return success();
  }
};

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
class InterpLowering : public MoveLowering<top::InterpOp, tpu::InterpOp> {
public:
  explicit InterpLowering(Lowering &lowering) : MoveLowering(lowering) {}

protected:
  LogicalResult lower(top::InterpOp op) const override {
    if (!op.getScales())
      return MoveLowering::lower(op);
    return TopLowering::lower(op);
  }

  LogicalResult lowerInt8(top::InterpOp op) const override {
    if (!op.getScales())
      return lowerMoveInt8(op, op.getMode() == top::InterpMode::nearest);
    Type current = cast<ShapedType>(L.lookup(op.getInput()).getType()).getElementType();
    top::Precision precision = isa<FloatType>(current) ? precisionOfFloat(current) : top::Precision::F32;
    return lowerFloat(op, L.floatPrecision(precision));
  }

  LogicalResult lowerFloat(top::InterpOp op, top::Precision precision) const override {
    if (!op.getScales())
      return MoveLowering::lowerFloat(op, precision);
    return lowerFloatKeepingF32<tpu::InterpOp>(L, op, precision, {1});
  }
};

/// Ops whose result is an i64 index list (nonzero, non_max_suppression, unique, maxpool_with_mask) or that
/// read one (roi_align, max_unpool), and float-only ops with coordinate operands (deform_conv2d), in the
/// float precision with the operands in `keepF32` in f32.
template <typename TopOp, typename TpuOp> class IndexListLowering : public TopLowering<TopOp> {
public:
  IndexListLowering(Lowering &lowering, ArrayRef<unsigned> keepF32 = {})
      : TopLowering<TopOp>(lowering), keepF32(keepF32.begin(), keepF32.end()) {}

protected:
  LogicalResult lowerFloat(TopOp op, top::Precision precision) const override {
    return lowerFloatKeepingF32<TpuOp>(this->L, op, precision, keepF32);
  }

private:
  SmallVector<unsigned> keepF32;
};

/// Distinct values in the float precision (compared after rounding to it), index lists i64.
class UniqueLowering : public IndexListLowering<top::UniqueOp, tpu::UniqueOp> {
public:
  explicit UniqueLowering(Lowering &lowering) : IndexListLowering(lowering) {}

protected:
  LogicalResult lower(top::UniqueOp op) const override {
    if (!isa<FloatType>(getElementTypeOrSelf(op.getInput().getType())))
      return L.failOp(op, "unique of an integer tensor has no Tpu lowering (the chip compares floats)");
    return IndexListLowering::lower(op);
  }
};

/// A range too long to fold into the IR at import becomes a weight: its values are known at compile time.
class ArangeLowering : public TopLowering<top::ArangeOp> {
public:
  using TopLowering::TopLowering;

protected:
  LogicalResult lower(top::ArangeOp op) const override {
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
      weight = L.createWeight(
          opName(op), "values", type,
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
};

} // namespace

void populateShapePatterns(RewritePatternSet &patterns, Lowering &L) {
  patterns.add<MoveLowering<top::ReshapeOp, tpu::ReshapeOp>, MoveLowering<top::PermuteOp, tpu::PermuteOp>,
               MoveLowering<top::SliceOp, tpu::SliceOp>, MoveLowering<top::SplitOp, tpu::SplitOp>,
               MoveLowering<top::PadOp, tpu::PadOp>, MoveLowering<top::GatherOp, tpu::GatherOp>,
               MoveLowering<top::Depth2SpaceOp, tpu::Depth2SpaceOp>,
               MoveLowering<top::DynamicSliceOp, tpu::DynamicSliceOp>,
               MoveLowering<top::GatherElementsOp, tpu::GatherElementsOp>>(L);
  StringRef axes[] = {"axes"};
  patterns.add<MoveLowering<top::SqueezeOp, tpu::ReshapeOp>, MoveLowering<top::UnsqueezeOp, tpu::ReshapeOp>>(
      L, ArrayRef<StringRef>(axes));
  patterns.add<FloatLowering<top::ScatterElementsOp, tpu::ScatterElementsOp>,
               FloatLowering<top::ScatterNDOp, tpu::ScatterNDOp>, FloatLowering<top::ReduceOp, tpu::ReduceOp>,
               FloatLowering<top::CumSumOp, tpu::CumSumOp>, FloatLowering<top::CompareOp, tpu::CompareOp>,
               FloatLowering<top::RepetitionPenaltyOp, tpu::RepetitionPenaltyOp>>(L);
  patterns.add<IndexListLowering<top::NonZeroOp, tpu::NonZeroOp>,
               IndexListLowering<top::MaxPoolWithMaskOp, tpu::MaxPoolWithMaskOp>,
               IndexListLowering<top::MaxUnpoolOp, tpu::MaxUnpoolOp>>(L);
  // Deformable conv keeps its offsets and mask in f32: they place and weight every bilinear sample.
  patterns.add<IndexListLowering<top::DeformConv2DOp, tpu::DeformConv2DOp>>(L, ArrayRef<unsigned>({2, 3}));
  // The loop guard keeps its step count in f32 (f16 holds whole numbers only to 2048).
  patterns.add<IndexListLowering<top::LoopGuardOp, tpu::LoopGuardOp>>(L, ArrayRef<unsigned>({0}));
  // The RoI pools keep their boxes in f32: they place every sample (RoiAlign) or are rounded to pixels.
  patterns.add<IndexListLowering<top::RoiAlignOp, tpu::RoiAlignOp>,
               IndexListLowering<top::RoiPoolingOp, tpu::RoiPoolingOp>>(L, ArrayRef<unsigned>({1}));
  patterns.add<IndexListLowering<top::NonMaxSuppressionOp, tpu::NonMaxSuppressionOp>>(
      L, ArrayRef<unsigned>({3, 4}));
  patterns.add<UniqueLowering, ArangeLowering, InterpLowering, ConcatLowering, CastLowering, WhereLowering,
               TopKLowering>(L);
}

} // namespace tpuc::lowering
