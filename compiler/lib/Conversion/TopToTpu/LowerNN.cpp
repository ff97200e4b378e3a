//===- LowerNN.cpp - Lowering of conv, matmul, pool and norm ops ----------===//
// INT8 per-channel weights with int32 biases and multiplier/shift requantization; W8/W4 weight-only
// matmuls; float precisions with converted weights.
//===----------------------------------------------------------------------===//
#include "Lowering.h"

#include "llvm/ADT/TypeSwitch.h"

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
  return L.createWeight(tensorName(topBias), "i32", RankedTensorType::get(shape, L.builder.getI32Type()),
                        Tensor::fromValues<int32_t>(std::vector<int64_t>(shape.begin(), shape.end()), q));
}

/// INT8 conv/deconv: per-output-channel (conv) or per-tensor (deconv) int8 filter.
template <typename TpuOp> LogicalResult lowerConvInt8(Lowering &L, Operation *op, bool perChannel) {
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
  auto qFilter = L.createWeight(tensorName(filter), "i8", RankedTensorType::get(shape, L.builder.getI8Type()),
                                Tensor::fromValues<int8_t>(std::vector<int64_t>(shape.begin(), shape.end()),
                                                           q.values));
  auto qBias = int32Bias(L, bias, xType.getScale(), q.scales);
  if (failed(qFilter) || failed(qBias))
    return failure();
  auto attrs = L.attrsOf(op, top::Precision::INT8);
  attrs.push_back(L.namedI64Array("multiplier", multipliers));
  attrs.push_back(L.namedI64Array("rshift", shifts));
  L.build<TpuOp>(op, {*x, *qFilter, *qBias}, {L.resultType(op->getResult(0), *out)}, attrs);
  return success();
}

template <typename TpuOp> LogicalResult lowerConv(Lowering &L, Operation *op, bool perChannel) {
  if (top::getShape(op->getOperand(0)).size() != 4)
    return L.failOp(op, "only 2-D (NCHW) convolutions lower to the Tpu dialect");
  auto p = L.requestedPrecision(op);
  if (failed(p))
    return failure();
  if (*p == top::Precision::INT8)
    return lowerConvInt8<TpuOp>(L, op, perChannel);
  return L.lowerFloat<TpuOp>(op, *p);
}

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

LogicalResult lowerMatMulInt8(Lowering &L, top::MatMulOp op) {
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
                                  RankedTensorType::get(qShape, L.builder.getI8Type()),
                                  Tensor::fromValues<int8_t>(qShape, q.values));
    if (failed(created))
      return failure();
    right = *created;
  } else {
    auto r = L.operandInt8(op.getRight());
    if (failed(r))
      return failure();
    right = *r;
    scales = {(float)cast<UniformQuantizedType>(cast<ShapedType>(r->getType()).getElementType()).getScale()};
  }
  SmallVector<int64_t> multipliers, shifts;
  if (failed(channelRequant(L, op, sx, scales, out->getScale(), multipliers, shifts)))
    return failure();
  auto bias = int32Bias(L, op.getBias(), sx, scales);
  if (failed(bias))
    return failure();
  attrs.push_back(L.builder.getNamedAttr("right_transpose", L.builder.getBoolAttr(transposed)));
  attrs.push_back(L.namedI64Array("multiplier", multipliers));
  attrs.push_back(L.namedI64Array("rshift", shifts));
  L.build<tpu::MatMulOp>(op, {*x, right, *bias}, {L.resultType(op.getOutput(), *out)}, attrs);
  return success();
}

/// W8/W4 weight-only: group-quantized [N, K] weight, f32 scales, ui8 zero points when asymmetric.
LogicalResult lowerMatMulWeightOnly(Lowering &L, top::MatMulOp op, top::Precision p) {
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
    q = quant::quantizeWeightsGroupWise(weightRows(*w, shape, transposed), n, k,
                                        {bits, group, !L.options.asymmetric,
                                         quant::RoundingMode::HalfAwayFromZero});
  } catch (const std::exception &e) {
    return L.failOp(op, e.what());
  }
  int64_t groups = group == 0 ? 1 : k / group;
  std::string base = tensorName(op.getRight());
  std::vector<int64_t> qShape = {n, bits == 4 ? k / 2 : k};
  Type ui8 = IntegerType::get(L.builder.getContext(), 8, IntegerType::Unsigned);
  bool signedStorage = bits == 8 && q.symmetric;
  Type storage = signedStorage ? (Type)L.builder.getI8Type() : ui8;
  Tensor data(signedStorage ? DType::I8 : DType::U8, qShape);
  std::memcpy(data.data(), q.data.data(), q.data.size());
  auto qWeight = L.createWeight(base, bits == 4 ? "w4" : "w8", RankedTensorType::get(qShape, storage), std::move(data));
  auto qScale = L.createWeight(base, "scale", RankedTensorType::get({n, groups}, L.builder.getF32Type()),
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
      L.builder.getNamedAttr("precision", top::PrecisionAttr::get(L.builder.getContext(), p)),
      L.builder.getNamedAttr("weight_bits", L.builder.getI64IntegerAttr(bits)),
      L.builder.getNamedAttr("q_group_size", L.builder.getI64IntegerAttr(group == 0 ? k : group)),
      L.builder.getNamedAttr("sym", L.builder.getBoolAttr(q.symmetric))};
  L.build<tpu::A16MatMulOp>(op, {*x, *qWeight, *qScale, zp, *bias}, {L.resultType(op.getOutput(), element)},
                            attrs);
  return success();
}

LogicalResult lowerMatMul(Lowering &L, top::MatMulOp op) {
  auto p = L.requestedPrecision(op);
  if (failed(p))
    return failure();
  bool weightRight = Lowering::isWeight(op.getRight()) && top::getShape(op.getRight()).size() == 2 &&
                     !op.getLeftTranspose() && !op.getDoRelu();
  if (isWeightOnly(*p) && weightRight)
    return lowerMatMulWeightOnly(L, op, *p);
  if (*p == top::Precision::INT8)
    return lowerMatMulInt8(L, op);
  return L.lowerFloat<tpu::MatMulOp>(op, *p);
}

/// top.a16matmul (already quantized, LLM path): weights kept, activations in f16 or bf16.
LogicalResult lowerA16MatMul(Lowering &L, top::A16MatMulOp op) {
  auto p = L.requestedPrecision(op);
  if (failed(p))
    return failure();
  top::Precision fp = L.floatPrecision(*p) == top::Precision::BF16 ? top::Precision::BF16 : top::Precision::F16;
  bool four = op.getWeightBits() == 4;
  top::Precision precision = fp == top::Precision::F16 ? (four ? top::Precision::W4F16 : top::Precision::W8F16)
                                                       : (four ? top::Precision::W4BF16 : top::Precision::W8BF16);
  Type element = L.floatType(fp);
  auto x = L.operandAs(op.getInput(), element);
  auto bias = L.operandAs(op.getBias(), element);
  if (failed(x) || failed(bias))
    return failure();
  L.build<tpu::A16MatMulOp>(op, {*x, op.getWeight(), op.getScale(), op.getZp(), *bias},
                            {L.resultType(op.getOutput(), element)}, L.attrsOf(op, precision));
  return success();
}

NamedAttribute poolMode(Lowering &L, tpu::PoolMode mode) {
  return L.builder.getNamedAttr("pool_mode", tpu::PoolModeAttr::get(L.builder.getContext(), mode));
}

/// Max and average pooling; `attrs` are the Top pool attributes (kernel, strides, pads, ...).
LogicalResult lowerPool(Lowering &L, Operation *op, tpu::PoolMode mode, ArrayRef<NamedAttribute> extra,
                        ArrayRef<StringRef> drop) {
  if (top::getShape(op->getOperand(0)).size() != 4)
    return L.failOp(op, "only 2-D (NCHW) pooling lowers to the Tpu dialect");
  auto p = L.requestedPrecision(op);
  if (failed(p))
    return failure();
  SmallVector<NamedAttribute> attrs(extra.begin(), extra.end());
  attrs.push_back(poolMode(L, mode));
  auto arrayAttr = [&](StringRef name) -> ArrayRef<int64_t> {
    if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>(name))
      return attr.asArrayRef();
    for (NamedAttribute a : extra)
      if (a.getName() == name)
        return cast<DenseI64ArrayAttr>(a.getValue()).asArrayRef();
    return {};
  };
  ArrayRef<int64_t> kernel = arrayAttr("kernel_shape"), pads = arrayAttr("pads");
  if (kernel.size() != 2)
    return L.failOp(op, "expects 2 kernel sizes");
  bool countPad = op->hasAttr("count_include_pad") && op->getAttrOfType<BoolAttr>("count_include_pad").getValue();
  bool int8 = *p == top::Precision::INT8 &&
              (mode == tpu::PoolMode::max || countPad || llvm::all_of(pads, [](int64_t v) { return v == 0; }));
  if (!int8)
    return L.lowerFloat<tpu::Pool2DOp>(op, *p, drop, attrs);
  auto x = L.operandInt8(op->getOperand(0));
  if (failed(x))
    return failure();
  auto xType = cast<UniformQuantizedType>(cast<ShapedType>(x->getType()).getElementType());
  auto all = L.attrsOf(op, top::Precision::INT8, drop);
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

LogicalResult lowerAdaptiveAvgPool(Lowering &L, top::AdaptiveAvgPoolOp op) {
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
  SmallVector<NamedAttribute> extra = {L.namedI64Array("kernel_shape", kernel),
                                       L.namedI64Array("strides", kernel),
                                       L.namedI64Array("pads", {0, 0, 0, 0})};
  return lowerPool(L, op, tpu::PoolMode::avg, extra, {"output_size"});
}

/// BatchNorm left after canonicalization: y = x * scale + bias per channel.
LogicalResult lowerBatchNorm(Lowering &L, top::BatchNormOp op) {
  auto p = L.requestedPrecision(op);
  if (failed(p))
    return failure();
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
  top::Precision fp = L.floatPrecision(*p);
  Type element = L.floatType(fp);
  int64_t c = scale.size();
  auto x = L.operandAs(op.getInput(), element);
  auto s = L.createFloatWeight(opName(op), "scale", {c}, scale, element);
  auto b = L.createFloatWeight(opName(op), "bias", {c}, bias, element);
  if (failed(x) || failed(s) || failed(b))
    return failure();
  L.build<tpu::ScaleOp>(op, {*x, *s, *b}, {L.resultType(op.getOutput(), element)},
                        L.attrsOf(op, fp, {"epsilon"}));
  return success();
}

template <typename TpuOp> LogicalResult lowerFloatOnly(Lowering &L, Operation *op) {
  auto p = L.requestedPrecision(op);
  if (failed(p))
    return failure();
  return L.lowerFloat<TpuOp>(op, *p);
}

} // namespace

LogicalResult lowerNNOp(Lowering &L, Operation *op, bool &handled) {
  handled = true;
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](top::ConvOp conv) { return lowerConv<tpu::Conv2DOp>(L, conv, /*perChannel=*/true); })
      .Case([&](top::DeconvOp deconv) { return lowerConv<tpu::Deconv2DOp>(L, deconv, /*perChannel=*/false); })
      .Case([&](top::MatMulOp matmul) { return lowerMatMul(L, matmul); })
      .Case([&](top::A16MatMulOp matmul) { return lowerA16MatMul(L, matmul); })
      .Case([&](top::MaxPoolOp pool) { return lowerPool(L, pool, tpu::PoolMode::max, {}, {}); })
      .Case([&](top::AvgPoolOp pool) { return lowerPool(L, pool, tpu::PoolMode::avg, {}, {}); })
      .Case([&](top::AdaptiveAvgPoolOp pool) { return lowerAdaptiveAvgPool(L, pool); })
      .Case([&](top::BatchNormOp bn) { return lowerBatchNorm(L, bn); })
      .Case([&](top::LayerNormOp ln) { return lowerFloatOnly<tpu::LayerNormOp>(L, ln); })
      .Case([&](top::SoftmaxOp sm) { return lowerFloatOnly<tpu::SoftmaxOp>(L, sm); })
      .Case([&](top::RMSNormOp n) { return lowerFloatOnly<tpu::RMSNormOp>(L, n); })
      .Case([&](top::RopeOp r) { return lowerFloatOnly<tpu::RopeOp>(L, r); })
      .Case([&](top::AttentionOp a) { return lowerFloatOnly<tpu::AttentionOp>(L, a); })
      .Case([&](top::GroupNormOp n) { return lowerFloatOnly<tpu::GroupNormOp>(L, n); })
      .Case([&](top::InstanceNormOp n) { return lowerFloatOnly<tpu::InstanceNormOp>(L, n); })
      .Case([&](top::GridSampleOp g) { return lowerFloatOnly<tpu::GridSampleOp>(L, g); })
      .Default([&](Operation *) {
        handled = false;
        return failure();
      });
}

} // namespace tpuc::lowering
