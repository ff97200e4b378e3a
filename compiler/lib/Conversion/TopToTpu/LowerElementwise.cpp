//===- LowerElementwise.cpp - Lowering of element-wise Top ops -------------===//
// Binary ops with per-input requantization, scalar and unary ops through 256-entry tables in INT8.
//===----------------------------------------------------------------------===//
#include "TopLowering.h"

#include "mlir/IR/TypeUtilities.h"

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
  return L.createWeight(opName(op), "table", RankedTensorType::get({256}, L.rewriter().getI8Type()),
                        Tensor::fromValues<int8_t>({256}, table));
}

/// Arithmetic on integer tensors (indices or bounds computed from inputs fed at run time): the chip's
/// element-wise units compute in float and have no integer form.
LogicalResult rejectIntegerArithmetic(Lowering &L, Operation *op) {
  if (isa<IntegerType>(mlir::getElementTypeOrSelf(op->getResult(0).getType())))
    return L.failOp(op, "integer arithmetic has no Tpu lowering (the chip computes element-wise in float); "
                        "fix the integer inputs it comes from with --const_inputs at transform");
  return success();
}

/// Arithmetic patterns refuse integer tensors before asking for the precision.
template <typename TopOp> class ArithmeticLowering : public TopLowering<TopOp> {
public:
  using TopLowering<TopOp>::TopLowering;

protected:
  LogicalResult lower(TopOp op) const override {
    if (failed(rejectIntegerArithmetic(this->L, op)))
      return failure();
    return TopLowering<TopOp>::lower(op);
  }
};

/// What a table op lowers with: attributes to add and to drop, and the real function its INT8 table holds.
struct TableForm {
  SmallVector<NamedAttribute> extra;
  SmallVector<StringRef> drop;
  std::function<double(double)> function;
};

/// A unary op through `TpuOp` (tpu.active or a *_const op): float with no table, or INT8 with a 256-entry
/// table of its function.
template <typename TopOp, typename TpuOp> class TableLowering : public TopLowering<TopOp> {
public:
  using TopLowering<TopOp>::TopLowering;

protected:
  virtual TableForm form(TopOp op) const = 0;

  LogicalResult lowerInt8(TopOp op) const override {
    Lowering &L = this->L;
    TableForm table = form(op);
    auto x = L.operandInt8(op->getOperand(0));
    auto out = L.calibratedType(opName(op));
    if (failed(x) || failed(out))
      return failure();
    auto values = buildTable(L, op, quantTypeOf(*x), *out, table.function);
    if (failed(values))
      return failure();
    auto attrs = L.attrsOf(op, top::Precision::INT8, table.drop);
    attrs.append(table.extra.begin(), table.extra.end());
    L.build<TpuOp>(op, {*x, *values}, {L.resultType(op->getResult(0), *out)}, attrs);
    return success();
  }

  LogicalResult lowerFloat(TopOp op, top::Precision precision) const override {
    Lowering &L = this->L;
    TableForm table = form(op);
    Type element = L.floatType(precision);
    auto x = L.operandAs(op->getOperand(0), element);
    if (failed(x))
      return failure();
    auto attrs = L.attrsOf(op, precision, table.drop);
    attrs.append(table.extra.begin(), table.extra.end());
    L.build<TpuOp>(op, {*x, L.none()}, {L.resultType(op->getResult(0), element)}, attrs);
    return success();
  }
};

/// The tpu.active form of a unary Top op: its mode, alpha and beta (0 = absent) and the Top attributes
/// they replace.
struct ActiveForm {
  tpu::ActiveMode mode;
  double alpha = 0, beta = 0;
  SmallVector<StringRef> drop;
};

/// A unary op lowering to tpu.active; `formOf` reads its mode and parameters.
template <typename TopOp> class ActiveLowering : public TableLowering<TopOp, tpu::ActiveOp> {
public:
  ActiveLowering(Lowering &lowering, std::function<ActiveForm(TopOp)> formOf)
      : TableLowering<TopOp, tpu::ActiveOp>(lowering), formOf(std::move(formOf)) {}

protected:
  LogicalResult lower(TopOp op) const override {
    // Of the unary ops only abs is arithmetic a model applies to integer tensors.
    if (std::is_same_v<TopOp, top::AbsOp> && failed(rejectIntegerArithmetic(this->L, op)))
      return failure();
    return TopLowering<TopOp>::lower(op);
  }

  TableForm form(TopOp op) const override {
    ActiveForm active = formOf(op);
    OpBuilder &b = this->L.rewriter();
    TableForm table;
    table.extra = {b.getNamedAttr("active_mode", tpu::ActiveModeAttr::get(b.getContext(), active.mode))};
    if (active.alpha != 0)
      table.extra.push_back(b.getNamedAttr("alpha", b.getF64FloatAttr(active.alpha)));
    if (active.beta != 0)
      table.extra.push_back(b.getNamedAttr("beta", b.getF64FloatAttr(active.beta)));
    table.drop = active.drop;
    table.function = [active](double x) { return activeValue(active.mode, active.alpha, active.beta, x); };
    return table;
  }

private:
  std::function<ActiveForm(TopOp)> formOf;
};

/// A `*_const` op: f(x) = x op c (or c op x with is_reverse), then the fused Relu.
template <typename TopOp, typename TpuOp> class ConstLowering : public TableLowering<TopOp, TpuOp> {
public:
  ConstLowering(Lowering &lowering, double (*fn)(double, double))
      : TableLowering<TopOp, TpuOp>(lowering), fn(fn) {}

protected:
  LogicalResult lower(TopOp op) const override {
    if (failed(rejectIntegerArithmetic(this->L, op)))
      return failure();
    return TopLowering<TopOp>::lower(op);
  }

  TableForm form(TopOp op) const override {
    double c = op.getConstVal().convertToDouble(), limit = op.getReluLimit().convertToDouble();
    bool reverse = op.getIsReverse(), relu = op.getDoRelu();
    TableForm table;
    table.function = [c, limit, reverse, relu, fn = fn](double x) {
      double y = reverse ? fn(c, x) : fn(x, c);
      if (relu) {
        y = std::max(y, 0.0);
        if (limit > 0)
          y = std::min(y, limit);
      }
      return y;
    };
    return table;
  }

private:
  double (*fn)(double, double);
};

/// add, sub, mul: INT8 with requantization (add and sub share one shift); div, max, min, power: float only.
/// A weight operand with infinities (an attention mask) has no int8 scale: the op then stays in F32.
template <typename TopOp, typename TpuOp> class BinaryLowering : public ArithmeticLowering<TopOp> {
public:
  using ArithmeticLowering<TopOp>::ArithmeticLowering;

protected:
  LogicalResult lowerInt8(TopOp op) const override {
    Lowering &L = this->L;
    bool hasInt8 = llvm::is_one_of<TpuOp, tpu::AddOp, tpu::SubOp, tpu::MulOp>::value;
    for (Value v : op->getOperands()) {
      if (!Lowering::isWeight(v))
        continue;
      auto data = L.weightData(v);
      if (failed(data))
        return failure();
      if (!llvm::all_of(*data, [](float x) { return std::isfinite(x); }))
        hasInt8 = false;
    }
    if (!hasInt8)
      return this->lowerF32(op);
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

  LogicalResult lowerFloat(TopOp op, top::Precision precision) const override {
    return this->L.template lowerFloat<TpuOp>(op, precision);
  }
};

/// relu and clip: INT8 keeps the input's type.
template <typename TopOp, typename TpuOp> class KeepTypeLowering : public ArithmeticLowering<TopOp> {
public:
  using ArithmeticLowering<TopOp>::ArithmeticLowering;

protected:
  LogicalResult lowerInt8(TopOp op) const override {
    Lowering &L = this->L;
    auto x = L.operandInt8(op->getOperand(0));
    if (failed(x))
      return failure();
    L.build<TpuOp>(op, {*x}, {L.resultType(op->getResult(0), quantTypeOf(*x))},
                   L.attrsOf(op, top::Precision::INT8));
    return success();
  }

  LogicalResult lowerFloat(TopOp op, top::Precision precision) const override {
    return this->L.template lowerFloat<TpuOp>(op, precision);
  }
};

double addFn(double a, double b) { return a + b; }
double subFn(double a, double b) { return a - b; }
double mulFn(double a, double b) { return a * b; }
double divFn(double a, double b) { return a / b; }
double maxFn(double a, double b) { return std::max(a, b); }
double minFn(double a, double b) { return std::min(a, b); }

/// The form of a unary op with no parameters.
template <typename TopOp> std::function<ActiveForm(TopOp)> fixedMode(tpu::ActiveMode mode) {
  return [mode](TopOp) { return ActiveForm{mode}; };
}

} // namespace

void populateElementwisePatterns(RewritePatternSet &patterns, Lowering &L) {
  using M = tpu::ActiveMode;
  patterns.add<BinaryLowering<top::AddOp, tpu::AddOp>, BinaryLowering<top::SubOp, tpu::SubOp>,
               BinaryLowering<top::MulOp, tpu::MulOp>, BinaryLowering<top::DivOp, tpu::DivOp>,
               BinaryLowering<top::MaxOp, tpu::MaxOp>, BinaryLowering<top::MinOp, tpu::MinOp>,
               BinaryLowering<top::PowerOp, tpu::PowerOp>>(L);
  patterns.add<ConstLowering<top::AddConstOp, tpu::AddConstOp>>(L, addFn);
  patterns.add<ConstLowering<top::SubConstOp, tpu::SubConstOp>>(L, subFn);
  patterns.add<ConstLowering<top::MulConstOp, tpu::MulConstOp>>(L, mulFn);
  patterns.add<ConstLowering<top::DivConstOp, tpu::DivConstOp>>(L, divFn);
  patterns.add<ConstLowering<top::MaxConstOp, tpu::MaxConstOp>>(L, maxFn);
  patterns.add<ConstLowering<top::MinConstOp, tpu::MinConstOp>>(L, minFn);
  patterns.add<KeepTypeLowering<top::ReluOp, tpu::ReluOp>, KeepTypeLowering<top::ClipOp, tpu::ClipOp>>(L);

  patterns.add<ActiveLowering<top::LeakyReluOp>>(L, [](top::LeakyReluOp o) {
    return ActiveForm{M::leaky_relu, o.getAlpha().convertToDouble(), 0, {"alpha"}};
  });
  patterns.add<ActiveLowering<top::HardSigmoidOp>>(L, [](top::HardSigmoidOp o) {
    return ActiveForm{
        M::hardsigmoid, o.getAlpha().convertToDouble(), o.getBeta().convertToDouble(), {"alpha", "beta"}};
  });
  patterns.add<ActiveLowering<top::GELUOp>>(L, [](top::GELUOp o) {
    return ActiveForm{
        o.getGeluApprox() == top::GeluApprox::tanh ? M::gelu_tanh : M::gelu, 0, 0, {"gelu_approx"}};
  });
  patterns.add<ActiveLowering<top::PowOp>>(L, [](top::PowOp o) {
    return ActiveForm{M::pow, o.getExponent().convertToDouble(), 0, {"exponent"}};
  });
  patterns.add<ActiveLowering<top::SigmoidOp>>(L, fixedMode<top::SigmoidOp>(M::sigmoid));
  patterns.add<ActiveLowering<top::SiLUOp>>(L, fixedMode<top::SiLUOp>(M::silu));
  patterns.add<ActiveLowering<top::MishOp>>(L, fixedMode<top::MishOp>(M::mish));
  patterns.add<ActiveLowering<top::TanhOp>>(L, fixedMode<top::TanhOp>(M::tanh));
  patterns.add<ActiveLowering<top::HardSwishOp>>(L, fixedMode<top::HardSwishOp>(M::hardswish));
  patterns.add<ActiveLowering<top::ExpOp>>(L, fixedMode<top::ExpOp>(M::exp));
  patterns.add<ActiveLowering<top::LogOp>>(L, fixedMode<top::LogOp>(M::log));
  patterns.add<ActiveLowering<top::SqrtOp>>(L, fixedMode<top::SqrtOp>(M::sqrt));
  patterns.add<ActiveLowering<top::RsqrtOp>>(L, fixedMode<top::RsqrtOp>(M::rsqrt));
  patterns.add<ActiveLowering<top::AbsOp>>(L, fixedMode<top::AbsOp>(M::abs));
  patterns.add<ActiveLowering<top::ErfOp>>(L, fixedMode<top::ErfOp>(M::erf));
  patterns.add<ActiveLowering<top::ReciprocalOp>>(L, fixedMode<top::ReciprocalOp>(M::reciprocal));
  patterns.add<ActiveLowering<top::FloorOp>>(L, fixedMode<top::FloorOp>(M::floor));
  patterns.add<ActiveLowering<top::CeilOp>>(L, fixedMode<top::CeilOp>(M::ceil));
  patterns.add<ActiveLowering<top::RoundOp>>(L, fixedMode<top::RoundOp>(M::round));
  patterns.add<ActiveLowering<top::SignOp>>(L, fixedMode<top::SignOp>(M::sign));
  patterns.add<ActiveLowering<top::SinOp>>(L, fixedMode<top::SinOp>(M::sin));
  patterns.add<ActiveLowering<top::CosOp>>(L, fixedMode<top::CosOp>(M::cos));
  patterns.add<ActiveLowering<top::TanOp>>(L, fixedMode<top::TanOp>(M::tan));
  patterns.add<ActiveLowering<top::AsinOp>>(L, fixedMode<top::AsinOp>(M::asin));
  patterns.add<ActiveLowering<top::AcosOp>>(L, fixedMode<top::AcosOp>(M::acos));
  patterns.add<ActiveLowering<top::AtanOp>>(L, fixedMode<top::AtanOp>(M::atan));
  patterns.add<ActiveLowering<top::SinhOp>>(L, fixedMode<top::SinhOp>(M::sinh));
  patterns.add<ActiveLowering<top::CoshOp>>(L, fixedMode<top::CoshOp>(M::cosh));
  patterns.add<ActiveLowering<top::AsinhOp>>(L, fixedMode<top::AsinhOp>(M::asinh));
  patterns.add<ActiveLowering<top::AcoshOp>>(L, fixedMode<top::AcoshOp>(M::acosh));
  patterns.add<ActiveLowering<top::AtanhOp>>(L, fixedMode<top::AtanhOp>(M::atanh));
}

} // namespace tpuc::lowering
