//===- LowerElementwise.cpp - Lowering of element-wise Top ops -------------===//
// Binary ops with per-input requantization, scalar and unary ops through 256-entry tables in INT8.
//===----------------------------------------------------------------------===//
#include "Lowering.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <functional>

using namespace mlir;

namespace tpuc::lowering {
namespace {

using mlir::quant::UniformQuantizedType;

UniformQuantizedType quantTypeOf(Value v) {
  return cast<UniformQuantizedType>(cast<ShapedType>(v.getType()).getElementType());
}

/// The real function of a unary mode (the reference semantics of the Top op it comes from).
double activeValue(tpu::ActiveMode mode, double alpha, double beta, double x) {
  using M = tpu::ActiveMode;
  auto sigmoid = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
  switch (mode) {
  case M::sigmoid: return sigmoid(x);
  case M::silu: return x * sigmoid(x);
  case M::mish: return x * std::tanh(x > 40.0 ? x : std::log1p(std::exp(x)));
  case M::gelu: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  case M::gelu_tanh:
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
  case M::tanh: return std::tanh(x);
  case M::exp: return std::exp(x);
  case M::log: return std::log(x);
  case M::sqrt: return std::sqrt(x);
  case M::rsqrt: return 1.0 / std::sqrt(x);
  case M::abs: return std::fabs(x);
  case M::erf: return std::erf(x);
  case M::reciprocal: return 1.0 / x;
  case M::hardsigmoid: return std::max(0.0, std::min(1.0, alpha * x + beta));
  case M::hardswish: return x * std::max(0.0, std::min(1.0, x / 6.0 + 0.5));
  case M::leaky_relu: return x >= 0 ? x : alpha * x;
  case M::pow: return std::pow(x, alpha);
  case M::floor: return std::floor(x);
  case M::ceil: return std::ceil(x);
  case M::round: return std::nearbyint(x);
  case M::sign: return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0);
  case M::sin: return std::sin(x);
  case M::cos: return std::cos(x);
  case M::tan: return std::tan(x);
  case M::asin: return std::asin(x);
  case M::acos: return std::acos(x);
  case M::atan: return std::atan(x);
  case M::sinh: return std::sinh(x);
  case M::cosh: return std::cosh(x);
  case M::asinh: return std::asinh(x);
  case M::acosh: return std::acosh(x);
  case M::atanh: return std::atanh(x);
  }
  return x;
}

/// INT8 lookup table: table[q + 128] = quantize_out(f(dequantize_in(q))). Non-finite results saturate
/// (NaN gives the zero point), as quantize() does.
FailureOr<Value> buildTable(Lowering &L, Operation *op, UniformQuantizedType in, UniformQuantizedType out,
                            const std::function<double(double)> &f) {
  std::vector<int8_t> table(256);
  for (int q = -128; q < 128; ++q) {
    double y = f(quant::dequantize(q, Lowering::paramsOf(in)));
    table[q + 128] = (int8_t)quant::quantize(y, Lowering::paramsOf(out), quant::IntType::Int8);
  }
  return L.createWeight(opName(op), "table", RankedTensorType::get({256}, L.builder.getI8Type()),
                        Tensor::fromValues<int8_t>({256}, table));
}

/// Unary op through `TpuOp` (tpu.active or a *_const op): float, or INT8 with a table of `f`.
template <typename TpuOp>
LogicalResult lowerTableOp(Lowering &L, Operation *op, ArrayRef<NamedAttribute> extra,
                           ArrayRef<StringRef> drop, const std::function<double(double)> &f) {
  auto p = L.requestedPrecision(op);
  if (failed(p))
    return failure();
  Value input = op->getOperand(0);
  if (*p != top::Precision::INT8) {
    top::Precision fp = L.floatPrecision(*p);
    Type element = L.floatType(fp);
    auto x = L.operandAs(input, element);
    if (failed(x))
      return failure();
    auto attrs = L.attrsOf(op, fp, drop);
    attrs.append(extra.begin(), extra.end());
    L.build<TpuOp>(op, {*x, L.none()}, {L.resultType(op->getResult(0), element)}, attrs);
    return success();
  }
  auto x = L.operandInt8(input);
  auto out = L.calibratedType(opName(op));
  if (failed(x) || failed(out))
    return failure();
  auto table = buildTable(L, op, quantTypeOf(*x), *out, f);
  if (failed(table))
    return failure();
  auto attrs = L.attrsOf(op, top::Precision::INT8, drop);
  attrs.append(extra.begin(), extra.end());
  L.build<TpuOp>(op, {*x, *table}, {L.resultType(op->getResult(0), *out)}, attrs);
  return success();
}

LogicalResult lowerActive(Lowering &L, Operation *op, tpu::ActiveMode mode, double alpha = 0, double beta = 0,
                          ArrayRef<StringRef> drop = {}) {
  SmallVector<NamedAttribute> extra = {
      L.builder.getNamedAttr("active_mode", tpu::ActiveModeAttr::get(L.builder.getContext(), mode))};
  if (alpha != 0)
    extra.push_back(L.builder.getNamedAttr("alpha", L.builder.getF64FloatAttr(alpha)));
  if (beta != 0)
    extra.push_back(L.builder.getNamedAttr("beta", L.builder.getF64FloatAttr(beta)));
  return lowerTableOp<tpu::ActiveOp>(L, op, extra, drop,
                                     [=](double x) { return activeValue(mode, alpha, beta, x); });
}

/// A `*_const` op: f(x) = x op c (or c op x with is_reverse), then the fused Relu.
template <typename TpuOp, typename ConstOp>
LogicalResult lowerConst(Lowering &L, ConstOp op, double (*fn)(double, double)) {
  double c = op.getConstVal().convertToDouble(), limit = op.getReluLimit().convertToDouble();
  bool reverse = op.getIsReverse(), relu = op.getDoRelu();
  return lowerTableOp<TpuOp>(L, op, {}, {}, [=](double x) {
    double y = reverse ? fn(c, x) : fn(x, c);
    if (relu) {
      y = std::max(y, 0.0);
      if (limit > 0)
        y = std::min(y, limit);
    }
    return y;
  });
}

/// add, sub, mul: INT8 with requantization; div, max, min: float only.
template <typename TpuOp> LogicalResult lowerBinary(Lowering &L, Operation *op) {
  auto p = L.requestedPrecision(op);
  if (failed(p))
    return failure();
  bool hasInt8 = llvm::is_one_of<TpuOp, tpu::AddOp, tpu::SubOp, tpu::MulOp>::value;
  // A weight operand with infinities (an attention mask) has no int8 scale: the op stays in F32.
  for (Value v : op->getOperands()) {
    if (!Lowering::isWeight(v) || *p != top::Precision::INT8)
      continue;
    auto data = L.weightData(v);
    if (failed(data))
      return failure();
    if (!llvm::all_of(*data, [](float x) { return std::isfinite(x); }))
      hasInt8 = false;
  }
  if (*p != top::Precision::INT8 || !hasInt8)
    return L.lowerFloat<TpuOp>(op, *p);
  auto a = L.operandInt8(op->getOperand(0));
  auto b = L.operandInt8(op->getOperand(1));
  auto out = L.calibratedType(opName(op));
  if (failed(a) || failed(b) || failed(out))
    return failure();
  double sa = quantTypeOf(*a).getScale(), sb = quantTypeOf(*b).getScale(), so = out->getScale();
  auto attrs = L.attrsOf(op, top::Precision::INT8);
  if constexpr (std::is_same_v<TpuOp, tpu::MulOp>) {
    auto ms = quant::chooseMultiplierShift(sa * sb / so);
    if (!ms)
      return L.failOp(op, "requant factor has no multiplier/shift");
    attrs.push_back(L.namedI64Array("multiplier", {ms->multiplier}));
    attrs.push_back(L.namedI64Array("rshift", {ms->rshift}));
  } else {
    double factors[] = {sa / so, sb / so};
    auto shared = quant::chooseSharedShift(factors);
    if (!shared)
      return L.failOp(op, "input rescale factors have no multiplier/shift");
    attrs.push_back(L.namedI64Array("multiplier", shared->multipliers));
    attrs.push_back(L.namedI64Array("rshift", {shared->rshift}));
  }
  L.build<TpuOp>(op, {*a, *b}, {L.resultType(op->getResult(0), *out)}, attrs);
  return success();
}

/// relu and clip: INT8 keeps the input's type.
template <typename TpuOp> LogicalResult lowerKeepType(Lowering &L, Operation *op) {
  auto p = L.requestedPrecision(op);
  if (failed(p))
    return failure();
  if (*p != top::Precision::INT8)
    return L.lowerFloat<TpuOp>(op, *p);
  auto x = L.operandInt8(op->getOperand(0));
  if (failed(x))
    return failure();
  L.build<TpuOp>(op, {*x}, {L.resultType(op->getResult(0), quantTypeOf(*x))},
                 L.attrsOf(op, top::Precision::INT8));
  return success();
}

double addFn(double a, double b) { return a + b; }
double subFn(double a, double b) { return a - b; }
double mulFn(double a, double b) { return a * b; }
double divFn(double a, double b) { return a / b; }
double maxFn(double a, double b) { return std::max(a, b); }
double minFn(double a, double b) { return std::min(a, b); }

} // namespace

LogicalResult lowerElementwiseOp(Lowering &L, Operation *op, bool &handled) {
  using M = tpu::ActiveMode;
  handled = true;
  // Arithmetic on integer tensors (indices or bounds computed from inputs fed at run time): the chip's
  // element-wise units compute in float and have no integer form.
  if (isa<top::AddOp, top::SubOp, top::MulOp, top::DivOp, top::MaxOp, top::MinOp, top::PowerOp, top::AddConstOp,
          top::SubConstOp, top::MulConstOp, top::DivConstOp, top::MaxConstOp, top::MinConstOp, top::ReluOp,
          top::ClipOp, top::AbsOp>(op) &&
      isa<IntegerType>(mlir::getElementTypeOrSelf(op->getResult(0).getType())))
    return L.failOp(op, "integer arithmetic has no Tpu lowering (the chip computes element-wise in float); "
                        "fix the integer inputs it comes from with --const_inputs at transform");
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](top::AddOp o) { return lowerBinary<tpu::AddOp>(L, o); })
      .Case([&](top::SubOp o) { return lowerBinary<tpu::SubOp>(L, o); })
      .Case([&](top::MulOp o) { return lowerBinary<tpu::MulOp>(L, o); })
      .Case([&](top::DivOp o) { return lowerBinary<tpu::DivOp>(L, o); })
      .Case([&](top::MaxOp o) { return lowerBinary<tpu::MaxOp>(L, o); })
      .Case([&](top::MinOp o) { return lowerBinary<tpu::MinOp>(L, o); })
      .Case([&](top::PowerOp o) { return lowerBinary<tpu::PowerOp>(L, o); })
      .Case([&](top::AddConstOp o) { return lowerConst<tpu::AddConstOp>(L, o, addFn); })
      .Case([&](top::SubConstOp o) { return lowerConst<tpu::SubConstOp>(L, o, subFn); })
      .Case([&](top::MulConstOp o) { return lowerConst<tpu::MulConstOp>(L, o, mulFn); })
      .Case([&](top::DivConstOp o) { return lowerConst<tpu::DivConstOp>(L, o, divFn); })
      .Case([&](top::MaxConstOp o) { return lowerConst<tpu::MaxConstOp>(L, o, maxFn); })
      .Case([&](top::MinConstOp o) { return lowerConst<tpu::MinConstOp>(L, o, minFn); })
      .Case([&](top::ReluOp o) { return lowerKeepType<tpu::ReluOp>(L, o); })
      .Case([&](top::ClipOp o) { return lowerKeepType<tpu::ClipOp>(L, o); })
      .Case([&](top::LeakyReluOp o) {
        return lowerActive(L, o, M::leaky_relu, o.getAlpha().convertToDouble(), 0, {"alpha"});
      })
      .Case([&](top::HardSigmoidOp o) {
        return lowerActive(L, o, M::hardsigmoid, o.getAlpha().convertToDouble(), o.getBeta().convertToDouble(),
                           {"alpha", "beta"});
      })
      .Case([&](top::GELUOp o) {
        return lowerActive(L, o, o.getGeluApprox() == top::GeluApprox::tanh ? M::gelu_tanh : M::gelu, 0, 0,
                           {"gelu_approx"});
      })
      .Case([&](top::PowOp o) {
        return lowerActive(L, o, M::pow, o.getExponent().convertToDouble(), 0, {"exponent"});
      })
      .Case([&](top::SigmoidOp o) { return lowerActive(L, o, M::sigmoid); })
      .Case([&](top::SiLUOp o) { return lowerActive(L, o, M::silu); })
      .Case([&](top::MishOp o) { return lowerActive(L, o, M::mish); })
      .Case([&](top::TanhOp o) { return lowerActive(L, o, M::tanh); })
      .Case([&](top::HardSwishOp o) { return lowerActive(L, o, M::hardswish); })
      .Case([&](top::ExpOp o) { return lowerActive(L, o, M::exp); })
      .Case([&](top::LogOp o) { return lowerActive(L, o, M::log); })
      .Case([&](top::SqrtOp o) { return lowerActive(L, o, M::sqrt); })
      .Case([&](top::RsqrtOp o) { return lowerActive(L, o, M::rsqrt); })
      .Case([&](top::AbsOp o) { return lowerActive(L, o, M::abs); })
      .Case([&](top::ErfOp o) { return lowerActive(L, o, M::erf); })
      .Case([&](top::ReciprocalOp o) { return lowerActive(L, o, M::reciprocal); })
      .Case([&](top::FloorOp o) { return lowerActive(L, o, M::floor); })
      .Case([&](top::CeilOp o) { return lowerActive(L, o, M::ceil); })
      .Case([&](top::RoundOp o) { return lowerActive(L, o, M::round); })
      .Case([&](top::SignOp o) { return lowerActive(L, o, M::sign); })
      .Case([&](top::SinOp o) { return lowerActive(L, o, M::sin); })
      .Case([&](top::CosOp o) { return lowerActive(L, o, M::cos); })
      .Case([&](top::TanOp o) { return lowerActive(L, o, M::tan); })
      .Case([&](top::AsinOp o) { return lowerActive(L, o, M::asin); })
      .Case([&](top::AcosOp o) { return lowerActive(L, o, M::acos); })
      .Case([&](top::AtanOp o) { return lowerActive(L, o, M::atan); })
      .Case([&](top::SinhOp o) { return lowerActive(L, o, M::sinh); })
      .Case([&](top::CoshOp o) { return lowerActive(L, o, M::cosh); })
      .Case([&](top::AsinhOp o) { return lowerActive(L, o, M::asinh); })
      .Case([&](top::AcoshOp o) { return lowerActive(L, o, M::acosh); })
      .Case([&](top::AtanhOp o) { return lowerActive(L, o, M::atanh); })
      .Default([&](Operation *) {
        handled = false;
        return failure();
      });
}

} // namespace tpuc::lowering
