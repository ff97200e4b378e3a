//===- ElementwiseKernels.cpp - Arithmetic, activations, logic and casts ----===//
// Binary ops broadcast as NumPy (Broadcast.h) with the fused Relu folded into the same pass; unary ops
// are parallel loops over a scalar function.
//===----------------------------------------------------------------------===//
#include "Broadcast.h"
#include "Kernels.h"
#include "tpuc/Support/FloatConvert.h"

#include <limits>

using namespace mlir;

namespace tpuc::sim::ref {
namespace {

/// Wraps `fn` with the Relu of `do_relu` / `relu_limit` and runs it over the broadcast operands.
template <typename OpT, typename Fn> LogicalResult binary(OpT op, Inputs in, Outputs out, Fn fn) {
  auto plan = planBroadcast<2>(shapeOf(op.getOutput()), {shapeOf(op.getLhs()), shapeOf(op.getRhs())});
  if (!op.getDoRelu()) {
    forEachBroadcast(plan, {in[0], in[1]}, out[0], fn);
    return success();
  }
  double limit = op.getReluLimit().convertToDouble();
  float hi = limit > 0 ? static_cast<float>(limit) : std::numeric_limits<float>::infinity();
  forEachBroadcast(plan, {in[0], in[1]}, out[0],
                   [&](float a, float b) { return std::min(std::max(fn(a, b), 0.0f), hi); });
  return success();
}

/// out[i] = fn(in[i]) in parallel chunks.
template <typename Fn> void unary(const float *x, float *y, int64_t n, Fn fn) {
  parallelFor(n, kElementGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      y[i] = fn(x[i]);
  });
}

/// Ops with a scalar operand: `fn(x, c)`, or `fn(c, x)` with is_reverse; then the fused Relu.
template <typename OpT, typename Fn> LogicalResult withConst(OpT op, Inputs in, Outputs out, Fn fn) {
  float c = static_cast<float>(op.getConstVal().convertToDouble());
  int64_t n = numel(op.getOutput());
  if (op.getIsReverse())
    unary(in[0], out[0], n, [&](float x) { return fn(c, x); });
  else
    unary(in[0], out[0], n, [&](float x) { return fn(x, c); });
  maybeRelu(op.getDoRelu(), out[0], n, op.getReluLimit().convertToDouble());
  return success();
}

template <typename OpT, typename Fn> LogicalResult unaryOp(OpT op, Inputs in, Outputs out, Fn fn) {
  unary(in[0], out[0], numel(op.getOutput()), fn);
  return success();
}

inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

/// Converts `x` to a value of the integer type `type` (truncation toward zero, then wrapping to the
/// type's width, as a C cast does; i1 is `x != 0`), returned as float.
float castToInteger(float x, IntegerType type) {
  unsigned width = type.getWidth();
  if (width == 1)
    return x != 0.0f ? 1.0f : 0.0f;
  if (std::isnan(x))
    return 0.0f;
  double t = std::trunc(static_cast<double>(x));
  t = std::clamp(t, -9.2e18, 9.2e18);
  auto v = static_cast<int64_t>(t);
  if (width >= 64)
    return static_cast<float>(type.isUnsigned() ? static_cast<double>(static_cast<uint64_t>(v))
                                                : static_cast<double>(v));
  uint64_t mask = (uint64_t{1} << width) - 1, bits = static_cast<uint64_t>(v) & mask;
  if (type.isUnsigned())
    return static_cast<float>(bits);
  int64_t sign = int64_t{1} << (width - 1);
  return static_cast<float>(static_cast<int64_t>(bits ^ sign) - sign);
}

} // namespace

//===--- binary --------------------------------------------------------------===//

LogicalResult run(top::AddOp op, Inputs in, Outputs out) {
  return binary(op, in, out, [](float a, float b) { return a + b; });
}
LogicalResult run(top::SubOp op, Inputs in, Outputs out) {
  return binary(op, in, out, [](float a, float b) { return a - b; });
}
LogicalResult run(top::MulOp op, Inputs in, Outputs out) {
  return binary(op, in, out, [](float a, float b) { return a * b; });
}
LogicalResult run(top::DivOp op, Inputs in, Outputs out) {
  return binary(op, in, out, [](float a, float b) { return a / b; });
}
LogicalResult run(top::PowerOp op, Inputs in, Outputs out) {
  return binary(op, in, out, [](float a, float b) { return std::pow(a, b); });
}
LogicalResult run(top::MaxOp op, Inputs in, Outputs out) {
  return binary(op, in, out, [](float a, float b) { return std::max(a, b); });
}
LogicalResult run(top::MinOp op, Inputs in, Outputs out) {
  return binary(op, in, out, [](float a, float b) { return std::min(a, b); });
}

//===--- with a constant ------------------------------------------------------===//

LogicalResult run(top::AddConstOp op, Inputs in, Outputs out) {
  return withConst(op, in, out, [](float a, float b) { return a + b; });
}
LogicalResult run(top::SubConstOp op, Inputs in, Outputs out) {
  return withConst(op, in, out, [](float a, float b) { return a - b; });
}
LogicalResult run(top::MulConstOp op, Inputs in, Outputs out) {
  return withConst(op, in, out, [](float a, float b) { return a * b; });
}
LogicalResult run(top::DivConstOp op, Inputs in, Outputs out) {
  return withConst(op, in, out, [](float a, float b) { return a / b; });
}
LogicalResult run(top::MaxConstOp op, Inputs in, Outputs out) {
  return withConst(op, in, out, [](float a, float b) { return std::max(a, b); });
}
LogicalResult run(top::MinConstOp op, Inputs in, Outputs out) {
  return withConst(op, in, out, [](float a, float b) { return std::min(a, b); });
}

//===--- activations ------------------------------------------------------------===//

LogicalResult run(top::ReluOp op, Inputs in, Outputs out) {
  double limit = op.getReluLimit().convertToDouble();
  float hi = limit > 0 ? static_cast<float>(limit) : std::numeric_limits<float>::infinity();
  return unaryOp(op, in, out, [=](float x) { return std::min(std::max(x, 0.0f), hi); });
}
LogicalResult run(top::LeakyReluOp op, Inputs in, Outputs out) {
  float alpha = static_cast<float>(op.getAlpha().convertToDouble());
  return unaryOp(op, in, out, [=](float x) { return x >= 0.0f ? x : alpha * x; });
}
LogicalResult run(top::ClipOp op, Inputs in, Outputs out) {
  float lo = static_cast<float>(op.getMin().convertToDouble());
  float hi = static_cast<float>(op.getMax().convertToDouble());
  return unaryOp(op, in, out, [=](float x) { return std::min(std::max(x, lo), hi); });
}
LogicalResult run(top::HardSigmoidOp op, Inputs in, Outputs out) {
  float alpha = static_cast<float>(op.getAlpha().convertToDouble());
  float beta = static_cast<float>(op.getBeta().convertToDouble());
  return unaryOp(op, in, out, [=](float x) { return std::max(0.0f, std::min(1.0f, alpha * x + beta)); });
}
LogicalResult run(top::GELUOp op, Inputs in, Outputs out) {
  if (op.getGeluApprox() == top::GeluApprox::tanh) {
    const float k = std::sqrt(2.0f / static_cast<float>(M_PI));
    return unaryOp(op, in, out,
                   [=](float x) { return 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x))); });
  }
  return unaryOp(op, in, out,
                 [](float x) { return 0.5f * x * (1.0f + std::erf(x * static_cast<float>(M_SQRT1_2))); });
}
LogicalResult run(top::PowOp op, Inputs in, Outputs out) {
  float e = static_cast<float>(op.getExponent().convertToDouble());
  if (e == 2.0f)
    return unaryOp(op, in, out, [](float x) { return x * x; });
  return unaryOp(op, in, out, [=](float x) { return std::pow(x, e); });
}
LogicalResult run(top::SigmoidOp op, Inputs in, Outputs out) {
  return unaryOp(op, in, out, [](float x) { return sigmoid(x); });
}
LogicalResult run(top::TanhOp op, Inputs in, Outputs out) {
  return unaryOp(op, in, out, [](float x) { return std::tanh(x); });
}
LogicalResult run(top::SiLUOp op, Inputs in, Outputs out) {
  return unaryOp(op, in, out, [](float x) { return x * sigmoid(x); });
}
LogicalResult run(top::MishOp op, Inputs in, Outputs out) {
  // softplus(x) = log(1 + exp(x)), which is x itself in float32 beyond x = 20.
  return unaryOp(op, in, out, [](float x) { return x * std::tanh(x > 20.0f ? x : std::log1p(std::exp(x))); });
}
LogicalResult run(top::HardSwishOp op, Inputs in, Outputs out) {
  return unaryOp(op, in, out, [](float x) { return x * std::max(0.0f, std::min(1.0f, x / 6.0f + 0.5f)); });
}
LogicalResult run(top::ExpOp op, Inputs in, Outputs out) {
  return unaryOp(op, in, out, [](float x) { return std::exp(x); });
}
LogicalResult run(top::LogOp op, Inputs in, Outputs out) {
  return unaryOp(op, in, out, [](float x) { return std::log(x); });
}
LogicalResult run(top::SqrtOp op, Inputs in, Outputs out) {
  return unaryOp(op, in, out, [](float x) { return std::sqrt(x); });
}
LogicalResult run(top::RsqrtOp op, Inputs in, Outputs out) {
  return unaryOp(op, in, out, [](float x) { return 1.0f / std::sqrt(x); });
}
LogicalResult run(top::AbsOp op, Inputs in, Outputs out) {
  return unaryOp(op, in, out, [](float x) { return std::fabs(x); });
}
LogicalResult run(top::ErfOp op, Inputs in, Outputs out) {
  return unaryOp(op, in, out, [](float x) { return std::erf(x); });
}
LogicalResult run(top::ReciprocalOp op, Inputs in, Outputs out) {
  return unaryOp(op, in, out, [](float x) { return 1.0f / x; });
}

//===--- rounding and trigonometry -------------------------------------------===//

// Round uses the default rounding mode, round-half-to-even as ONNX requires.
#define TPUC_UNARY_KERNEL(OP, EXPR)                                                                \
  LogicalResult run(top::OP op, Inputs in, Outputs out) {                                          \
    return unaryOp(op, in, out, [](float x) { return EXPR; });                                     \
  }
TPUC_UNARY_KERNEL(FloorOp, std::floor(x))
TPUC_UNARY_KERNEL(CeilOp, std::ceil(x))
TPUC_UNARY_KERNEL(RoundOp, std::nearbyint(x))
TPUC_UNARY_KERNEL(SignOp, x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f))
TPUC_UNARY_KERNEL(SinOp, std::sin(x))
TPUC_UNARY_KERNEL(CosOp, std::cos(x))
TPUC_UNARY_KERNEL(TanOp, std::tan(x))
TPUC_UNARY_KERNEL(AsinOp, std::asin(x))
TPUC_UNARY_KERNEL(AcosOp, std::acos(x))
TPUC_UNARY_KERNEL(AtanOp, std::atan(x))
TPUC_UNARY_KERNEL(SinhOp, std::sinh(x))
TPUC_UNARY_KERNEL(CoshOp, std::cosh(x))
TPUC_UNARY_KERNEL(AsinhOp, std::asinh(x))
TPUC_UNARY_KERNEL(AcoshOp, std::acosh(x))
TPUC_UNARY_KERNEL(AtanhOp, std::atanh(x))
#undef TPUC_UNARY_KERNEL

//===--- logic and casts ---------------------------------------------------------===//

LogicalResult run(top::CompareOp op, Inputs in, Outputs out) {
  auto plan = planBroadcast<2>(shapeOf(op.getOutput()), {shapeOf(op.getLhs()), shapeOf(op.getRhs())});
  auto cmp = [&](auto pred) { forEachBroadcast(plan, {in[0], in[1]}, out[0], pred); };
  auto b = [](bool v) { return v ? 1.0f : 0.0f; };
  // clang-format off
  switch (op.getMode()) {
  case top::CompareMode::eq: cmp([&](float x, float y) { return b(x == y); }); break;
  case top::CompareMode::ne: cmp([&](float x, float y) { return b(x != y); }); break;
  case top::CompareMode::lt: cmp([&](float x, float y) { return b(x < y); }); break;
  case top::CompareMode::le: cmp([&](float x, float y) { return b(x <= y); }); break;
  case top::CompareMode::gt: cmp([&](float x, float y) { return b(x > y); }); break;
  case top::CompareMode::ge: cmp([&](float x, float y) { return b(x >= y); }); break;
  case top::CompareMode::And: cmp([&](float x, float y) { return b(x != 0 && y != 0); }); break;
  case top::CompareMode::Or: cmp([&](float x, float y) { return b(x != 0 || y != 0); }); break;
  case top::CompareMode::Xor: cmp([&](float x, float y) { return b((x != 0) != (y != 0)); }); break;
  }
  // clang-format on
  return success();
}

LogicalResult run(top::WhereOp op, Inputs in, Outputs out) {
  auto plan = planBroadcast<3>(shapeOf(op.getOutput()),
                               {shapeOf(op.getCond()), shapeOf(op.getX()), shapeOf(op.getY())});
  forEachBroadcast(plan, {in[0], in[1], in[2]}, out[0],
                   [](float c, float x, float y) { return c != 0.0f ? x : y; });
  return success();
}

LogicalResult run(top::CastOp op, Inputs in, Outputs out) {
  Type type = cast<ShapedType>(op.getOutput().getType()).getElementType();
  int64_t n = numel(op.getOutput());
  if (auto intType = dyn_cast<IntegerType>(type))
    unary(in[0], out[0], n, [=](float x) { return castToInteger(x, intType); });
  else if (type.isF16())
    unary(in[0], out[0], n, [](float x) { return f16ToF32(f32ToF16(x)); });
  else if (type.isBF16())
    unary(in[0], out[0], n, [](float x) { return bf16ToF32(f32ToBF16(x)); });
  else if (type.isIndex())
    unary(in[0], out[0], n, [](float x) { return std::trunc(x); });
  else
    parallelCopy(out[0], in[0], n);
  return success();
}

} // namespace tpuc::sim::ref
