//===- OpKernels.cpp - The exact kernels behind the Tpu ops -----------------===//
// What tpu::KernelInterface's models (KernelModels.cpp) call: the INT8 integer kernel of each form, the
// cast/requant conversions, or the float twin with f16/bf16 rounding of the result. Attributes are read
// by name, so one kernel serves every op of its form.
//===----------------------------------------------------------------------===//
#include "SimOps.h"

#include "../Reference/Kernels.h"

#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Tpu/TpuOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace tpuc::sim::tpusim {
namespace {

std::vector<int64_t> i64Array(Operation *op, StringRef name) {
  if (auto a = op->getAttrOfType<DenseI64ArrayAttr>(name))
    return std::vector<int64_t>(a.asArrayRef().begin(), a.asArrayRef().end());
  return {};
}
bool boolAttr(Operation *op, StringRef name) {
  auto a = op->getAttrOfType<BoolAttr>(name);
  return a && a.getValue();
}
double f64Attr(Operation *op, StringRef name, double dflt) {
  auto a = op->getAttrOfType<FloatAttr>(name);
  return a ? a.getValueAsDouble() : dflt;
}
int64_t intAttr(Operation *op, StringRef name, int64_t dflt) {
  auto a = op->getAttrOfType<IntegerAttr>(name);
  return a ? a.getInt() : dflt;
}
std::vector<int64_t> shapeOf(Value v) {
  auto t = cast<ShapedType>(v.getType());
  return std::vector<int64_t>(t.getShape().begin(), t.getShape().end());
}
int64_t numel(Value v) { return cast<ShapedType>(v.getType()).getNumElements(); }

/// The largest |q - zp| of a quantized encoding.
int64_t maxShifted(const Encoding &e) {
  return std::max(std::abs(quant::intMin(e.storage) - e.q.zeroPoint), std::abs(quant::intMax(e.storage) - e.q.zeroPoint));
}

/// The code of relu_limit in the output's encoding (no bound when relu_limit <= 0).
int64_t reluMaxCode(Operation *op, const Encoding &out) {
  double limit = f64Attr(op, "relu_limit", -1.0);
  return limit > 0 ? quant::quantize(limit, out.q, out.storage) : quant::intMax(out.storage);
}

/// The requantization of an INT8 op from its multiplier/rshift attributes and output encoding.
llvm::Expected<tpu::Requant> requantOf(Operation *op, const Encoding &out) {
  tpu::Requant rq;
  rq.multiplier = i64Array(op, "multiplier");
  rq.rshift = i64Array(op, "rshift");
  if (rq.multiplier.empty() || rq.multiplier.size() != rq.rshift.size())
    return makeError("INT8 needs 'multiplier' and 'rshift' of equal, non-zero length");
  rq.zpOut = out.q.zeroPoint;
  rq.type = out.storage;
  rq.relu = boolAttr(op, "do_relu");
  rq.reluMax = reluMaxCode(op, out);
  return rq;
}

/// Int32 bias values of operand `index` (empty for none).
llvm::Expected<std::vector<int64_t>> intBias(const OpContext &c, unsigned index, int64_t channels) {
  if (index >= c.in.size() || !c.in[index])
    return std::vector<int64_t>();
  if (c.intWeights[index])
    return *c.intWeights[index];
  if (c.inEnc[index].kind != Encoding::Float)
    return makeError("INT8 bias must be an integer weight");
  std::vector<int64_t> bias(channels);
  for (int64_t i = 0; i < channels; ++i)
    bias[i] = static_cast<int64_t>(c.in[index][i]);
  return bias;
}

tpu::ConvShape convShape(Operation *op, Value in, Value out) {
  auto is = shapeOf(in), os = shapeOf(out);
  auto k = i64Array(op, "kernel_shape"), s = i64Array(op, "strides"), p = i64Array(op, "pads"),
       d = i64Array(op, "dilations");
  tpu::ConvShape g;
  g.n = is[0], g.ic = is[1], g.ih = is[2], g.iw = is[3], g.oc = os[1], g.oh = os[2], g.ow = os[3];
  g.kh = k.size() > 0 ? k[0] : 1, g.kw = k.size() > 1 ? k[1] : 1;
  g.sh = s.size() > 0 ? s[0] : 1, g.sw = s.size() > 1 ? s[1] : 1;
  g.dh = d.size() > 0 ? d[0] : 1, g.dw = d.size() > 1 ? d[1] : 1;
  if (p.size() == 4)
    g.padTop = p[0], g.padLeft = p[1], g.padBottom = p[2], g.padRight = p[3];
  g.group = intAttr(op, "group", 1);
  return g;
}

llvm::Error runShadow(OpContext &c, ArrayRef<const float *> ins) {
  auto kernel = cast<top::InferenceInterface>(c.shadow);
  if (failed(kernel.inference(ins.take_front(c.shadow->getNumOperands()), c.out)))
    return makeError("the float kernel failed");
  return llvm::Error::success();
}

} // namespace

llvm::Error runCast(OpContext &c) {
  const Encoding &from = c.inEnc[0], &to = c.outEnc[0];
  int64_t n = numel(c.op->getResult(0));
  if (from.isQuant() && to.isQuant())
    return makeError("casts between two quantized types (use tpu.requant_int)");
  if (to.isQuant()) {
    tpu::quantizeFloats(c.in[0], n, to.q, to.storage, c.out[0]);
  } else {
    if (from.isQuant())
      tpu::dequantizeCodes(c.in[0], n, from.q, c.out[0]);
    else
      std::copy(c.in[0], c.in[0] + n, c.out[0]);
    tpu::roundHalf(c.out[0], n, to.half());
  }
  return llvm::Error::success();
}

llvm::Error runRequantInt(OpContext &c) {
  const Encoding &from = c.inEnc[0], &to = c.outEnc[0];
  if (!from.isQuant() || !to.isQuant())
    return makeError("requant_int needs quantized input and result");
  auto m = i64Array(c.op, "multiplier"), r = i64Array(c.op, "rshift");
  if (m.empty() || m.size() != r.size())
    return makeError("'multiplier' and 'rshift' must have the same non-zero length");
  std::vector<quant::MultiplierShift> ms;
  for (size_t i = 0; i < m.size(); ++i)
    ms.push_back({m[i], r[i]});
  auto shape = shapeOf(c.op->getResult(0));
  int64_t outer = shape.empty() ? 1 : shape[0], channels = shape.size() > 1 ? shape[1] : 1;
  int64_t inner = numel(c.op->getResult(0)) / std::max<int64_t>(outer * channels, 1);
  if (ms.size() != 1 && (int64_t)ms.size() != channels)
    return makeError("needs 1 or " + llvm::Twine(channels) + " multipliers");
  if (ms.size() == 1) { // per tensor: one row
    inner *= outer * channels;
    outer = channels = 1;
  }
  tpu::requantInt(c.in[0], outer, channels, inner, from.q.zeroPoint, ms, to.q.zeroPoint, to.storage,
                  quant::RoundingMode::HalfUp, c.out[0]);
  return llvm::Error::success();
}

llvm::Error runA16(OpContext &c) {
  Operation *op = c.op;
  auto xs = shapeOf(op->getOperand(0)), ws = shapeOf(op->getOperand(1)), ys = shapeOf(op->getResult(0));
  int64_t k = xs.back(), n = ys.back(), m = numel(op->getOperand(0)) / k;
  quant::GroupQuantWeights q;
  q.bits = static_cast<int>(intAttr(op, "weight_bits", 8));
  q.symmetric = !op->getAttr("sym") || boolAttr(op, "sym");
  q.rows = n, q.cols = k;
  q.groupSize = intAttr(op, "q_group_size", 0);
  if (q.groupSize <= 0)
    q.groupSize = k;
  int64_t bytes = numel(op->getOperand(1));
  if (ws.size() != 2 || ws[0] != n || bytes != (q.bits == 4 ? n * k / 2 : n * k))
    return makeError("weight shape does not match [N, K] / [N, K/2] for " + llvm::Twine(q.bits) + " bits");
  if (!q.symmetric && !c.in[3])
    return makeError("asymmetric weights need 'zp'");
  const tpu::Half half = c.outEnc[0].half();
  auto dequantized = [&] {
    q.data.resize(bytes);
    for (int64_t i = 0; i < bytes; ++i)
      q.data[i] = static_cast<uint8_t>(static_cast<int64_t>(c.in[1][i]) & 0xff);
    int64_t groups = n * (k / q.groupSize);
    q.scales.assign(c.in[2], c.in[2] + groups);
    if (!q.symmetric)
      for (int64_t i = 0; i < groups; ++i)
        q.zeroPoints.push_back(static_cast<int32_t>(c.in[3][i]));
    return tpu::a16Weights(q, half);
  };
  // Constant weights (every decode step runs the same ones) are dequantized once per cache.
  ref::OpCache *cache = ref::currentOpCache();
  std::vector<float> local;
  const std::vector<float> *w = &local;
  if (cache && cache->isConstant(1) && cache->isConstant(2) && (q.symmetric || cache->isConstant(3)))
    w = &cache->get<std::vector<float>>([&] {
      std::vector<float> values = dequantized();
      cache->bytes += static_cast<int64_t>(values.size() * sizeof(float));
      return values;
    });
  else
    local = dequantized();
  tpu::a16MatmulDequantized(m, k, n, c.in[0], w->data(), c.in[4], half, c.out[0]);
  return llvm::Error::success();
}

llvm::Error runScale(OpContext &c) {
  auto shape = shapeOf(c.op->getResult(0));
  int64_t channels = shape.size() > 1 ? shape[1] : 1, n = numel(c.op->getResult(0));
  int64_t inner = 1;
  for (size_t i = 2; i < shape.size(); ++i)
    inner *= shape[i];
  bool relu = boolAttr(c.op, "do_relu");
  float limit = static_cast<float>(f64Attr(c.op, "relu_limit", -1.0));
  for (int64_t i = 0; i < n; ++i) {
    int64_t ch = (i / inner) % channels;
    float v = c.in[0][i] * c.in[1][ch] + c.in[2][ch];
    if (relu)
      v = limit > 0 ? std::min(std::max(v, 0.0f), limit) : std::max(v, 0.0f);
    c.out[0][i] = v;
  }
  tpu::roundHalf(c.out[0], n, c.outEnc[0].half());
  return llvm::Error::success();
}

//===--- INT8 ---------------------------------------------------------------===//

namespace {

llvm::Error conv2dInt8(OpContext &c) {
  auto rq = requantOf(c.op, c.outEnc[0]);
  if (!rq)
    return rq.takeError();
  tpu::ConvShape g = convShape(c.op, c.op->getOperand(0), c.op->getResult(0));
  auto bias = intBias(c, 2, g.oc);
  if (!bias)
    return bias.takeError();
  tpu::convInt8(g, c.in[0], c.inEnc[0].q.zeroPoint, maxShifted(c.inEnc[0]), c.in[1], *bias, *rq, c.out[0]);
  return llvm::Error::success();
}

llvm::Error deconv2dInt8(OpContext &c) {
  auto rq = requantOf(c.op, c.outEnc[0]);
  if (!rq)
    return rq.takeError();
  tpu::ConvShape g = convShape(c.op, c.op->getOperand(0), c.op->getResult(0));
  auto bias = intBias(c, 2, g.oc);
  if (!bias)
    return bias.takeError();
  // The float deconv on x - zp is exact while every partial sum stays within 2^24.
  int64_t icg = g.ic / g.group;
  int64_t overlap = ((g.kh + g.sh - 1) / g.sh) * ((g.kw + g.sw - 1) / g.sw);
  if (icg * overlap * maxShifted(c.inEnc[0]) * 128 > (int64_t{1} << 24))
    return makeError("INT8 deconv2d with " + llvm::Twine(icg) + " input channels per group exceeds the exact "
                                                                  "float accumulation range of the simulator");
  int64_t inCount = numel(c.op->getOperand(0)), outCount = numel(c.op->getResult(0));
  std::vector<float> shifted(inCount), acc(outCount);
  float zp = static_cast<float>(c.inEnc[0].q.zeroPoint);
  for (int64_t i = 0; i < inCount; ++i)
    shifted[i] = c.in[0][i] - zp;
  const float *ins[] = {shifted.data(), c.in[1], nullptr};
  float *outs[] = {acc.data()};
  auto kernel = cast<top::InferenceInterface>(c.shadow);
  if (failed(kernel.inference(ArrayRef<const float *>(ins, c.shadow->getNumOperands()), outs)))
    return makeError("the deconv kernel failed");
  int64_t plane = g.oh * g.ow;
  for (int64_t i = 0; i < outCount; ++i) {
    int64_t ch = (i / plane) % g.oc;
    c.out[0][i] = static_cast<float>(rq->apply(static_cast<int64_t>(acc[i]) + (bias->empty() ? 0 : (*bias)[ch]), ch));
  }
  return llvm::Error::success();
}

llvm::Error matmulInt8(OpContext &c) {
  Operation *op = c.op;
  if (boolAttr(op, "left_transpose"))
    return makeError("INT8 matmul with left_transpose is not supported");
  auto rq = requantOf(op, c.outEnc[0]);
  if (!rq)
    return rq.takeError();
  auto xs = shapeOf(op->getOperand(0)), ws = shapeOf(op->getOperand(1)), ys = shapeOf(op->getResult(0));
  bool transB = boolAttr(op, "right_transpose");
  int64_t k = xs.back(), n = ys.back();
  int64_t batch = 1, m = numel(op->getOperand(0)) / k;
  bool batchB = ws.size() > 2;
  if (batchB) {
    batch = numel(op->getResult(0)) / (ys[ys.size() - 2] * n);
    m = ys[ys.size() - 2];
    if (numel(op->getOperand(1)) != batch * k * n || numel(op->getOperand(0)) != batch * m * k)
      return makeError("INT8 batched matmul needs equal batch dimensions (no broadcasting)");
  }
  auto bias = intBias(c, 2, n);
  if (!bias)
    return bias.takeError();
  const Encoding &be = c.inEnc[1];
  int64_t zpB = be.isQuant() ? be.q.zeroPoint : 0;
  int64_t maxB = be.isQuant() ? maxShifted(be) : 128;
  tpu::matmulInt8(batch, m, k, n, c.in[0], c.inEnc[0].q.zeroPoint, maxShifted(c.inEnc[0]), c.in[1], zpB, maxB,
                  transB, batchB, *bias, *rq, c.out[0]);
  return llvm::Error::success();
}

llvm::Error pool2dInt8(OpContext &c) {
  tpu::ConvShape g = convShape(c.op, c.op->getOperand(0), c.op->getResult(0));
  if (cast<::tpuc::tpu::Pool2DOp>(c.op).getPoolMode() == ::tpuc::tpu::PoolMode::max) {
    if (c.inEnc[0].q != c.outEnc[0].q)
      return makeError("INT8 max pooling must keep the input's scale and zero point");
    tpu::maxPoolInt8(g, c.in[0], c.out[0]);
    if (boolAttr(c.op, "do_relu")) {
      int64_t hi = reluMaxCode(c.op, c.outEnc[0]), zp = c.outEnc[0].q.zeroPoint;
      for (int64_t i = 0, e = numel(c.op->getResult(0)); i < e; ++i)
        c.out[0][i] = std::min<float>(std::max<float>(c.out[0][i], zp), hi);
    }
    return llvm::Error::success();
  }
  auto rq = requantOf(c.op, c.outEnc[0]);
  if (!rq)
    return rq.takeError();
  tpu::avgPoolInt8(g, c.in[0], c.inEnc[0].q.zeroPoint, *rq, c.out[0]);
  return llvm::Error::success();
}

llvm::Error binaryInt8(OpContext &c, Int8Form form) {
  Operation *op = c.op;
  StringRef mnemonic = op->getName().stripDialect(); // for messages
  tpu::BroadcastInput a{c.in[0], shapeOf(op->getOperand(0)), c.inEnc[0].q.zeroPoint};
  tpu::BroadcastInput b{c.in[1], shapeOf(op->getOperand(1)), c.inEnc[1].q.zeroPoint};
  if (!c.inEnc[0].isQuant() || !c.inEnc[1].isQuant())
    return makeError("INT8 " + mnemonic + " needs two quantized inputs");
  auto m = i64Array(op, "multiplier"), r = i64Array(op, "rshift");
  auto outShape = shapeOf(op->getResult(0));
  const Encoding &out = c.outEnc[0];
  bool relu = boolAttr(op, "do_relu");
  int64_t hi = reluMaxCode(op, out);
  if (form == Int8Form::Mul) {
    if (m.size() != 1 || r.size() != 1)
      return makeError("INT8 mul needs one multiplier and one rshift");
    tpu::mulInt8(a, b, {m[0], r[0]}, outShape, out.q.zeroPoint, out.storage, quant::RoundingMode::HalfUp, relu,
                 hi, c.out[0]);
    return llvm::Error::success();
  }
  if (m.size() != 2 || r.size() != 1)
    return makeError("INT8 " + mnemonic + " needs two multipliers and one rshift");
  tpu::addInt8(a, b, m[0], m[1], r[0], form == Int8Form::Sub, outShape, out.q.zeroPoint, out.storage,
               quant::RoundingMode::HalfUp, relu, hi, c.out[0]);
  return llvm::Error::success();
}

llvm::Error tableInt8(OpContext &c) {
  if (c.in.size() < 2 || !c.in[1] || numel(c.op->getOperand(1)) != 256)
    return makeError("INT8 needs a 'table' of 256 values");
  if (c.inEnc[0].storage != quant::IntType::Int8 && c.inEnc[0].storage != quant::IntType::UInt8)
    return makeError("lookup tables need 8-bit codes");
  tpu::Lut lut(c.in[1], c.in[1] + 256);
  tpu::applyLut(lut, c.inEnc[0].storage, c.in[0], numel(c.op->getResult(0)), c.out[0]);
  return llvm::Error::success();
}

/// Clamps codes to [lo, hi] (relu and clip keep the input's type).
llvm::Error clampInt8(OpContext &c, int64_t lo, int64_t hi) {
  if (c.inEnc[0].q != c.outEnc[0].q)
    return makeError("INT8 relu/clip must keep the input's scale and zero point");
  for (int64_t i = 0, e = numel(c.op->getResult(0)); i < e; ++i)
    c.out[0][i] = std::min<float>(std::max<float>(c.in[0][i], lo), hi);
  return llvm::Error::success();
}

llvm::Error dataMovementInt8(OpContext &c) {
  StringRef mnemonic = c.op->getName().stripDialect(); // for messages
  for (auto [i, e] : llvm::enumerate(c.inEnc))
    if (e.isQuant() && !(e.q == c.outEnc[0].q && e.storage == c.outEnc[0].storage))
      return makeError("INT8 " + mnemonic + " input #" + llvm::Twine(i) + " must have the result's type");
  if (isa<::tpuc::tpu::InterpOp>(c.op)) {
    std::string mode;
    llvm::raw_string_ostream os(mode);
    if (auto a = c.op->getAttr("mode"))
      a.print(os);
    if (!StringRef(mode).contains("nearest"))
      return makeError("INT8 interp supports nearest mode only");
  }
  if (auto err = runShadow(c, c.in))
    return err;
  if (isa<::tpuc::tpu::ConcatOp>(c.op) && boolAttr(c.op, "do_relu")) {
    int64_t zp = c.outEnc[0].q.zeroPoint, hi = reluMaxCode(c.op, c.outEnc[0]);
    for (int64_t i = 0, e = numel(c.op->getResult(0)); i < e; ++i)
      c.out[0][i] = std::min<float>(std::max<float>(c.out[0][i], zp), hi);
  }
  return llvm::Error::success();
}

llvm::Error executeInt8(OpContext &c, Int8Form form) {
  const Encoding &out = c.outEnc[0];
  switch (form) {
  case Int8Form::Conv:
    return conv2dInt8(c);
  case Int8Form::Deconv:
    return deconv2dInt8(c);
  case Int8Form::MatMul:
    return matmulInt8(c);
  case Int8Form::Pool:
    return pool2dInt8(c);
  case Int8Form::Add:
  case Int8Form::Sub:
  case Int8Form::Mul:
    return binaryInt8(c, form);
  case Int8Form::Table:
    return tableInt8(c);
  case Int8Form::Relu:
    return clampInt8(c, out.q.zeroPoint, reluMaxCode(c.op, out));
  case Int8Form::Clip:
    return clampInt8(c, quant::quantize(f64Attr(c.op, "min", 0), out.q, out.storage),
                     quant::quantize(f64Attr(c.op, "max", 0), out.q, out.storage));
  case Int8Form::DataMovement:
    return dataMovementInt8(c);
  case Int8Form::None:
    break;
  }
  return makeError("has no INT8 form in the simulator (float only)");
}

} // namespace

llvm::Error executeWithTwin(OpContext &c, Int8Form form) {
  if (!c.outEnc.empty() && c.outEnc[0].isQuant())
    return executeInt8(c, form);
  if (!c.shadow)
    return makeError("no float kernel");
  if (auto err = runShadow(c, c.in))
    return err;
  for (auto [i, result] : llvm::enumerate(c.op->getResults()))
    if (c.out[i])
      tpu::roundHalf(c.out[i], numel(result), c.outEnc[i].half());
  return llvm::Error::success();
}

llvm::Error execute(OpContext &c) {
  if (auto reference = dyn_cast<top::InferenceInterface>(c.op)) {
    if (failed(reference.inference(c.in, c.out)))
      return makeError("the kernel failed");
    return llvm::Error::success();
  }
  if (auto kernel = dyn_cast<::tpuc::tpu::KernelInterface>(c.op))
    return kernel.execute(c);
  return makeError("has no kernel (neither a Top nor a Tpu op)");
}

} // namespace tpuc::sim::tpusim
