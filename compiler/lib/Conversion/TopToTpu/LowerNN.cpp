//===- LowerNN.cpp - Lowering of conv, matmul, pool and norm ops ----------===//
// INT8 per-channel weights with int32 biases and multiplier/shift requantization; W8/W4 weight-only
// matmuls; float precisions with converted weights.
//===----------------------------------------------------------------------===//
#include "TopLowering.h"

#include <cmath>

using namespace mlir;

namespace tpuc::lowering {
namespace {

using mlir::quant::UniformQuantizedType;

/// Per-channel multipliers and shifts for the factors `sIn * sW[c] / sOut`.
LogicalResult channelRequant(Lowering &L, Operation *op, double sIn, ArrayRef<float> sW, double sOut,
                             SmallVectorImpl<int64_t> &multipliers, SmallVectorImpl<int64_t> &shifts) {
  for (float s : sW) {
    auto ms = quant::chooseMultiplierShift(sIn * (double)s / sOut);
    if (!ms)
      return L.failOp(op, "requant factor " + Twine(std::to_string(sIn * s / sOut)) + " has no multiplier/shift");
    multipliers.push_back(ms->multiplier);
    shifts.push_back(ms->rshift);
  }
  return success();
}

/// int32 bias `round(b[c] / (sIn * sW[c]))` (sW of one value applies to every channel).
FailureOr<Value> int32Bias(Lowering &L, Value topBias, double sIn, ArrayRef<float> sW) {
  if (top::isNone(topBias))
    return L.none();
  if (!Lowering::isWeight(topBias))
    return L.fail("bias '" + tensorName(topBias) + "' must be a weight for INT8");
  auto data = L.weightData(topBias);
  if (failed(data))
    return failure();
  std::vector<int32_t> q(data->size());
  for (size_t c = 0; c < q.size(); ++c) {
    double scale = sIn * (double)sW[sW.size() == 1 ? 0 : c];
    q[c] = quant::saturateToInt32(quant::roundToInt((*data)[c] / scale, quant::RoundingMode::HalfAwayFromZero));
  }
  auto shape = top::getShape(topBias);
  return L.createWeight(tensorName(topBias), "i32", RankedTensorType::get(shape, L.rewriter().getI32Type()),
                        Tensor::fromValues<int32_t>(std::vector<int64_t>(shape.begin(), shape.end()), q));
}

/// conv and deconv: INT8 with a per-output-channel (conv) or per-tensor (deconv) int8 filter, an int32 bias
/// and multiplier/shift requantization; floats with the filter converted.
template <typename TopOp, typename TpuOp> class ConvLowering : public TopLowering<TopOp> {
public:
  ConvLowering(Lowering &lowering, bool perChannel) : TopLowering<TopOp>(lowering), perChannel(perChannel) {}

protected:
  LogicalResult lower(TopOp op) const override {
    if (top::getShape(op->getOperand(0)).size() != 4)
      return this->L.failOp(op, "only 2-D (NCHW) convolutions lower to the Tpu dialect");
    return TopLowering<TopOp>::lower(op);
  }

  LogicalResult lowerInt8(TopOp op) const override {
    Lowering &L = this->L;
    Value input = op->getOperand(0), filter = op->getOperand(1), bias = op->getOperand(2);
    if (!Lowering::isWeight(filter))
      return L.failOp(op, "INT8 needs a weight filter");
    auto x = L.operandInt8(input);
    auto out = L.calibratedType(opName(op));
    auto w = L.weightData(filter);
    if (failed(x) || failed(out) || failed(w))
      return failure();
    auto xType = cast<UniformQuantizedType>(cast<ShapedType>(x->getType()).getElementType());
    auto shape = top::getShape(filter);
    int64_t channels = perChannel ? shape[0] : 1;
    auto q = quant::quantizeWeightsPerChannel(*w, channels);
    SmallVector<int64_t> multipliers, shifts;
    if (failed(channelRequant(L, op, xType.getScale(), q.scales, out->getScale(), multipliers, shifts)))
      return failure();
    auto qFilter = L.createWeight(
        tensorName(filter), "i8", RankedTensorType::get(shape, L.rewriter().getI8Type()),
        Tensor::fromValues<int8_t>(std::vector<int64_t>(shape.begin(), shape.end()), q.values));
    auto qBias = int32Bias(L, bias, xType.getScale(), q.scales);
    if (failed(qFilter) || failed(qBias))
      return failure();
    auto attrs = L.attrsOf(op, top::Precision::INT8);
    attrs.push_back(L.namedI64Array("multiplier", multipliers));
    attrs.push_back(L.namedI64Array("rshift", shifts));
    L.build<TpuOp>(op, {*x, *qFilter, *qBias}, {L.resultType(op->getResult(0), *out)}, attrs);
    return success();
  }

  LogicalResult lowerFloat(TopOp op, top::Precision precision) const override {
    return this->L.template lowerFloat<TpuOp>(op, precision);
  }

private:
  bool perChannel;
};

/// [K, N] (or [N, K] when transposed) weight as row-major [N, K].
std::vector<float> weightRows(ArrayRef<float> w, ArrayRef<int64_t> shape, bool transposed) {
  if (transposed)
    return std::vector<float>(w.begin(), w.end());
  int64_t k = shape[0], n = shape[1];
  std::vector<float> out(w.size());
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j)
      out[j * k + i] = w[i * n + j];
  return out;
}
/// matmul: INT8 with per-column int8 weights; the weight-only modes quantize a 2-D weight group-wise into
/// a tpu.a16matmul (other matmuls run in F16 or BF16); floats with the weight converted.
class MatMulLowering : public TopLowering<top::MatMulOp> {
public:
  using TopLowering::TopLowering;

protected:
  LogicalResult lowerInt8(top::MatMulOp op) const override {
    auto x = L.operandInt8(op.getInput());
    auto out = L.calibratedType(opName(op));
    if (failed(x) || failed(out))
      return failure();
    double sx = cast<UniformQuantizedType>(cast<ShapedType>(x->getType()).getElementType()).getScale();
    auto attrs = L.attrsOf(op, top::Precision::INT8, {"right_transpose"});
    bool transposed = op.getRightTranspose();
    Value right;
    std::vector<float> scales;
    auto shape = top::getShape(op.getRight());
    if (Lowering::isWeight(op.getRight())) {
      auto w = L.weightData(op.getRight());
      if (failed(w))
        return failure();
      std::vector<int64_t> qShape(shape.begin(), shape.end());
      std::vector<float> rows = *w;
      int64_t channels = 1;
      if (shape.size() == 2) { // per output column: stored [N, K] with right_transpose
        rows = weightRows(*w, shape, transposed);
        channels = transposed ? shape[0] : shape[1];
        qShape = {channels, transposed ? shape[1] : shape[0]};
        transposed = true;
      }
      auto q = quant::quantizeWeightsPerChannel(rows, channels);
      scales = q.scales;
      auto created = L.createWeight(tensorName(op.getRight()), "i8",
                                    RankedTensorType::get(qShape, L.rewriter().getI8Type()),
                                    Tensor::fromValues<int8_t>(qShape, q.values));
      if (failed(created))
        return failure();
      right = *created;
    } else {
      auto r = L.operandInt8(op.getRight());
      if (failed(r))
        return failure();
      right = *r;
      scales = {
          (float)cast<UniformQuantizedType>(cast<ShapedType>(r->getType()).getElementType()).getScale()};
    }
    SmallVector<int64_t> multipliers, shifts;
    if (failed(channelRequant(L, op, sx, scales, out->getScale(), multipliers, shifts)))
      return failure();
    auto bias = int32Bias(L, op.getBias(), sx, scales);
    if (failed(bias))
      return failure();
    attrs.push_back(L.rewriter().getNamedAttr("right_transpose", L.rewriter().getBoolAttr(transposed)));
    attrs.push_back(L.namedI64Array("multiplier", multipliers));
    attrs.push_back(L.namedI64Array("rshift", shifts));
    L.build<tpu::MatMulOp>(op, {*x, right, *bias}, {L.resultType(op.getOutput(), *out)}, attrs);
    return success();
  }

  LogicalResult lowerW8F16(top::MatMulOp op) const override {
    return hasWeightRight(op) ? lowerWeightOnly(op, top::Precision::W8F16) : lowerF16(op);
  }
  LogicalResult lowerW8BF16(top::MatMulOp op) const override {
    return hasWeightRight(op) ? lowerWeightOnly(op, top::Precision::W8BF16) : lowerBF16(op);
  }
  LogicalResult lowerW4F16(top::MatMulOp op) const override {
    return hasWeightRight(op) ? lowerWeightOnly(op, top::Precision::W4F16) : lowerF16(op);
  }
  LogicalResult lowerW4BF16(top::MatMulOp op) const override {
    return hasWeightRight(op) ? lowerWeightOnly(op, top::Precision::W4BF16) : lowerBF16(op);
  }

  LogicalResult lowerFloat(top::MatMulOp op, top::Precision precision) const override {
    return L.lowerFloat<tpu::MatMulOp>(op, precision);
  }

private:
  /// Whether the weight-only form applies: a 2-D weight on the right, no transposed left, no fused Relu.
  static bool hasWeightRight(top::MatMulOp op) {
    return Lowering::isWeight(op.getRight()) && top::getShape(op.getRight()).size() == 2 &&
           !op.getLeftTranspose() && !op.getDoRelu();
  }

  /// W8/W4 weight-only: group-quantized [N, K] weight, f32 scales, ui8 zero points when asymmetric.
  LogicalResult lowerWeightOnly(top::MatMulOp op, top::Precision p) const {
    auto shape = top::getShape(op.getRight());
    Type element = L.floatType(p);
    auto x = L.operandAs(op.getInput(), element);
    auto bias = L.operandAs(op.getBias(), element);
    auto w = L.weightData(op.getRight());
    if (failed(x) || failed(bias) || failed(w))
      return failure();
    bool transposed = op.getRightTranspose();
    int64_t n = transposed ? shape[0] : shape[1], k = transposed ? shape[1] : shape[0];
    int bits = (p == top::Precision::W4F16 || p == top::Precision::W4BF16) ? 4 : 8;
    int64_t group = L.options.qGroupSize;
    if (group < 0 || (group > 0 && k % group != 0))
      return L.failOp(op, "q_group_size " + Twine(group) + " does not divide K = " + Twine(k));
    if (bits == 4 && k % 2 != 0)
      return L.failOp(op, "4-bit weights need an even K, got " + Twine(k));
    quant::GroupQuantWeights q;
    try {
      q = quant::quantizeWeightsGroupWise(
          weightRows(*w, shape, transposed), n, k,
          {bits, group, !L.options.asymmetric, quant::RoundingMode::HalfAwayFromZero});
    } catch (const std::exception &e) {
      return L.failOp(op, e.what());
    }
    int64_t groups = group == 0 ? 1 : k / group;
    std::string base = tensorName(op.getRight());
    std::vector<int64_t> qShape = {n, bits == 4 ? k / 2 : k};
    OpBuilder &b = L.rewriter();
    Type ui8 = IntegerType::get(b.getContext(), 8, IntegerType::Unsigned);
    bool signedStorage = bits == 8 && q.symmetric;
    Type storage = signedStorage ? (Type)b.getI8Type() : ui8;
    Tensor data(signedStorage ? DType::I8 : DType::U8, qShape);
    std::memcpy(data.data(), q.data.data(), q.data.size());
    auto qWeight = L.createWeight(base, bits == 4 ? "w4" : "w8", RankedTensorType::get(qShape, storage),
                                  std::move(data));
    auto qScale = L.createWeight(base, "scale", RankedTensorType::get({n, groups}, b.getF32Type()),
                                 Tensor::fromValues<float>({n, groups}, q.scales));
    if (failed(qWeight) || failed(qScale))
      return failure();
    Value zp = L.none();
    if (!q.symmetric) {
      std::vector<uint8_t> zps(q.zeroPoints.begin(), q.zeroPoints.end());
      auto created = L.createWeight(base, "zp", RankedTensorType::get({n, groups}, ui8),
                                    Tensor::fromValues<uint8_t>({n, groups}, zps));
      if (failed(created))
        return failure();
      zp = *created;
    }
    SmallVector<NamedAttribute> attrs = {
        b.getNamedAttr("precision", top::PrecisionAttr::get(b.getContext(), p)),
        b.getNamedAttr("weight_bits", b.getI64IntegerAttr(bits)),
        b.getNamedAttr("q_group_size", b.getI64IntegerAttr(group == 0 ? k : group)),
        b.getNamedAttr("sym", b.getBoolAttr(q.symmetric))};
    L.build<tpu::A16MatMulOp>(op, {*x, *qWeight, *qScale, zp, *bias}, {L.resultType(op.getOutput(), element)},
                              attrs);
    return success();
  }
};

/// top.a16matmul (already quantized, LLM path): weights kept, activations in f16 or bf16 (F16 for F32 and
/// INT8).
class A16MatMulLowering : public TopLowering<top::A16MatMulOp> {
public:
  using TopLowering::TopLowering;

protected:
  LogicalResult lowerFloat(top::A16MatMulOp op, top::Precision precision) const override {
    top::Precision fp = precision == top::Precision::BF16 ? top::Precision::BF16 : top::Precision::F16;
    bool four = op.getWeightBits() == 4;
    top::Precision tagged = fp == top::Precision::F16
                                ? (four ? top::Precision::W4F16 : top::Precision::W8F16)
                                : (four ? top::Precision::W4BF16 : top::Precision::W8BF16);
    Type element = L.floatType(fp);
    auto x = L.operandAs(op.getInput(), element);
    auto bias = L.operandAs(op.getBias(), element);
    if (failed(x) || failed(bias))
      return failure();
    L.build<tpu::A16MatMulOp>(op, {*x, op.getWeight(), op.getScale(), op.getZp(), *bias},
                              {L.resultType(op.getOutput(), element)}, L.attrsOf(op, tagged));
    return success();
  }
};

/// What a pooling op lowers with: the Top attributes to drop and the ones to add (kernel, strides, pads
/// of an adaptive pool; the pool mode).
struct PoolForm {
  SmallVector<NamedAttribute> extra;
  SmallVector<StringRef> drop;
};

/// Max and average pooling (2-D): INT8 for max pooling, or average pooling whose padding is counted or
/// absent (one multiplier/shift for the mean); else the float form.
template <typename TopOp> class PoolLowering : public TopLowering<TopOp> {
public:
  PoolLowering(Lowering &lowering, tpu::PoolMode mode) : TopLowering<TopOp>(lowering), mode(mode) {}

protected:
  /// The attributes the op lowers with; fails (naming the op) when it has no 2-D form.
  virtual FailureOr<PoolForm> form(TopOp op) const {
    if (top::getShape(op->getOperand(0)).size() != 4)
      return this->L.failOp(op, "only 2-D (NCHW) pooling lowers to the Tpu dialect");
    return PoolForm{};
  }

  LogicalResult lower(TopOp op) const override {
    auto pool = form(op);
    if (failed(pool))
      return failure();
    auto p = this->L.requestedPrecision(op);
    if (failed(p))
      return failure();
    if (arrayAttr(op, *pool, "kernel_shape").size() != 2)
      return this->L.failOp(op, "expects 2 kernel sizes");
    return this->lowerIn(op, *p);
  }

  LogicalResult lowerInt8(TopOp op) const override {
    Lowering &L = this->L;
    PoolForm pool = *form(op);
    SmallVector<NamedAttribute> attrs = withMode(pool);
    ArrayRef<int64_t> kernel = arrayAttr(op, pool, "kernel_shape"), pads = arrayAttr(op, pool, "pads");
    bool countPad = op->hasAttr("count_include_pad") &&
                    op->template getAttrOfType<BoolAttr>("count_include_pad").getValue();
    if (!(mode == tpu::PoolMode::max || countPad || llvm::all_of(pads, [](int64_t v) { return v == 0; })))
      return L.template lowerFloat<tpu::Pool2DOp>(op, top::Precision::INT8, pool.drop, attrs);
    auto x = L.operandInt8(op->getOperand(0));
    if (failed(x))
      return failure();
    auto xType = cast<UniformQuantizedType>(cast<ShapedType>(x->getType()).getElementType());
    auto all = L.attrsOf(op, top::Precision::INT8, pool.drop);
    all.append(attrs.begin(), attrs.end());
    if (mode == tpu::PoolMode::max) {
      L.build<tpu::Pool2DOp>(op, {*x}, {L.resultType(op->getResult(0), xType)}, all);
      return success();
    }
    auto out = L.calibratedType(opName(op));
    if (failed(out))
      return failure();
    auto ms = quant::chooseMultiplierShift(xType.getScale() / (out->getScale() * kernel[0] * kernel[1]));
    if (!ms)
      return L.failOp(op, "average factor has no multiplier/shift");
    all.push_back(L.namedI64Array("multiplier", {ms->multiplier}));
    all.push_back(L.namedI64Array("rshift", {ms->rshift}));
    L.build<tpu::Pool2DOp>(op, {*x}, {L.resultType(op->getResult(0), *out)}, all);
    return success();
  }

  LogicalResult lowerFloat(TopOp op, top::Precision precision) const override {
    PoolForm pool = *form(op);
    return this->L.template lowerFloat<tpu::Pool2DOp>(op, precision, pool.drop, withMode(pool));
  }

private:
  SmallVector<NamedAttribute> withMode(const PoolForm &pool) const {
    SmallVector<NamedAttribute> attrs(pool.extra.begin(), pool.extra.end());
    OpBuilder &b = this->L.rewriter();
    attrs.push_back(b.getNamedAttr("pool_mode", tpu::PoolModeAttr::get(b.getContext(), mode)));
    return attrs;
  }

  /// An integer-array attribute of the op, else of the added ones.
  static ArrayRef<int64_t> arrayAttr(TopOp op, const PoolForm &pool, StringRef name) {
    if (auto attr = op->template getAttrOfType<DenseI64ArrayAttr>(name))
      return attr.asArrayRef();
    for (const NamedAttribute &a : pool.extra)
      if (a.getName() == name)
        return cast<DenseI64ArrayAttr>(a.getValue()).asArrayRef();
    return {};
  }

  tpu::PoolMode mode;
};

/// Adaptive average pooling whose output divides the input: an average pool of kernel = stride = the
/// quotient.
class AdaptiveAvgPoolLowering : public PoolLowering<top::AdaptiveAvgPoolOp> {
public:
  explicit AdaptiveAvgPoolLowering(Lowering &lowering) : PoolLowering(lowering, tpu::PoolMode::avg) {}

protected:
  FailureOr<PoolForm> form(top::AdaptiveAvgPoolOp op) const override {
    auto in = top::getShape(op.getInput());
    auto outSize = op.getOutputSize();
    if (in.size() != 4 || outSize.size() != 2)
      return L.failOp(op, "only 2-D (NCHW) pooling lowers to the Tpu dialect");
    SmallVector<int64_t> kernel;
    for (int i = 0; i < 2; ++i) {
      if (outSize[i] <= 0 || in[2 + i] % outSize[i] != 0)
        return L.failOp(op, "output size " + Twine(outSize[i]) + " does not divide the input size " +
                                Twine(in[2 + i]));
      kernel.push_back(in[2 + i] / outSize[i]);
    }
    PoolForm pool;
    pool.extra = {L.namedI64Array("kernel_shape", kernel), L.namedI64Array("strides", kernel),
                  L.namedI64Array("pads", {0, 0, 0, 0})};
    pool.drop = {"output_size"};
    return pool;
  }
};

/// BatchNorm left after canonicalization: y = x * scale + bias per channel, in float.
class BatchNormLowering : public TopLowering<top::BatchNormOp> {
public:
  using TopLowering::TopLowering;

protected:
  LogicalResult lowerFloat(top::BatchNormOp op, top::Precision precision) const override {
    auto mean = L.weightData(op.getMean());
    auto var = L.weightData(op.getVariance());
    if (failed(mean) || failed(var))
      return failure();
    std::vector<float> gamma(mean->size(), 1.0f), beta(mean->size(), 0.0f);
    if (!top::isNone(op.getGamma())) {
      auto g = L.weightData(op.getGamma());
      if (failed(g))
        return failure();
      gamma = *g;
    }
    if (!top::isNone(op.getBeta())) {
      auto b = L.weightData(op.getBeta());
      if (failed(b))
        return failure();
      beta = *b;
    }
    std::vector<float> scale(mean->size()), bias(mean->size());
    for (size_t c = 0; c < scale.size(); ++c) {
      scale[c] = gamma[c] / std::sqrt((*var)[c] + (float)op.getEpsilon().convertToDouble());
      bias[c] = beta[c] - (*mean)[c] * scale[c];
    }
    Type element = L.floatType(precision);
    int64_t c = scale.size();
    auto x = L.operandAs(op.getInput(), element);
    auto s = L.createFloatWeight(opName(op), "scale", {c}, scale, element);
    auto b = L.createFloatWeight(opName(op), "bias", {c}, bias, element);
    if (failed(x) || failed(s) || failed(b))
      return failure();
    L.build<tpu::ScaleOp>(op, {*x, *s, *b}, {L.resultType(op.getOutput(), element)},
                          L.attrsOf(op, precision, {"epsilon"}));
    return success();
  }
};

} // namespace

void populateNNPatterns(RewritePatternSet &patterns, Lowering &L) {
  patterns.add<ConvLowering<top::ConvOp, tpu::Conv2DOp>>(L, /*perChannel=*/true);
  patterns.add<ConvLowering<top::DeconvOp, tpu::Deconv2DOp>>(L, /*perChannel=*/false);
  patterns.add<MatMulLowering, A16MatMulLowering, AdaptiveAvgPoolLowering, BatchNormLowering>(L);
  patterns.add<PoolLowering<top::MaxPoolOp>>(L, tpu::PoolMode::max);
  patterns.add<PoolLowering<top::AvgPoolOp>>(L, tpu::PoolMode::avg);
  patterns.add<FloatLowering<top::LayerNormOp, tpu::LayerNormOp>,
               FloatLowering<top::SoftmaxOp, tpu::SoftmaxOp>, FloatLowering<top::RMSNormOp, tpu::RMSNormOp>,
               FloatLowering<top::RopeOp, tpu::RopeOp>, FloatLowering<top::AttentionOp, tpu::AttentionOp>,
               FloatLowering<top::GroupNormOp, tpu::GroupNormOp>,
               FloatLowering<top::InstanceNormOp, tpu::InstanceNormOp>,
               FloatLowering<top::GridSampleOp, tpu::GridSampleOp>>(L);
}

} // namespace tpuc::lowering
