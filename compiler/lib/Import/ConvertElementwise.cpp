//===- ConvertElementwise.cpp - ONNX element-wise arithmetic, activations, logic -===//
// Binary ops with a scalar constant become the *_const ops; activations map one to one where Top has
// the op and are composed from Top ops where that is exact (Neg, PRelu, Softplus, Clip with tensors,
// ThresholdedRelu, IsNaN, IsInf).
//===----------------------------------------------------------------------===//
#include "GraphImporter.h"

#include <cfloat>
#include <cmath>

using namespace mlir;
using namespace tpuc::top;

namespace tpuc::importer {
namespace {

/// Whether input `k` is a one-element constant that broadcasting does not widen beyond input `other`.
const HostTensor *scalarOperand(GraphImporter &g, size_t k, size_t other) {
  const HostTensor *c = g.constInput(k);
  if (!c || c->numel() != 1 || g.constInput(other))
    return nullptr;
  if (c->shape.size() > g.inputShape(other).size())
    return nullptr;
  return c;
}

enum class Arith { Add, Sub, Mul, Div, Max, Min };

Value buildBinary(GraphImporter &g, Arith kind, StringRef suffix, Value lhs, Value rhs) {
  switch (kind) {
  case Arith::Add:
    return g.build<AddOp>(suffix, {lhs, rhs});
  case Arith::Sub:
    return g.build<SubOp>(suffix, {lhs, rhs});
  case Arith::Mul:
    return g.build<MulOp>(suffix, {lhs, rhs});
  case Arith::Div:
    return g.build<DivOp>(suffix, {lhs, rhs});
  case Arith::Max:
    return g.build<MaxOp>(suffix, {lhs, rhs});
  case Arith::Min:
    return g.build<MinOp>(suffix, {lhs, rhs});
  }
  return {};
}

Value buildConst(GraphImporter &g, Arith kind, StringRef suffix, Value x, double c, bool reverse) {
  std::vector<NamedAttribute> attrs{g.f64("const_val", c)};
  if (reverse)
    attrs.push_back(g.boolean("is_reverse", true));
  switch (kind) {
  case Arith::Add:
    return g.build<AddConstOp>(suffix, {x}, attrs);
  case Arith::Sub:
    return g.build<SubConstOp>(suffix, {x}, attrs);
  case Arith::Mul:
    return g.build<MulConstOp>(suffix, {x}, attrs);
  case Arith::Div:
    return g.build<DivConstOp>(suffix, {x}, attrs);
  case Arith::Max:
    return g.build<MaxConstOp>(suffix, {x}, attrs);
  case Arith::Min:
    return g.build<MinConstOp>(suffix, {x}, attrs);
  }
  return {};
}

/// A binary ONNX op: the *_const form when one side is a scalar constant, else the broadcasting op.
template <Arith Kind> LogicalResult convertBinary(GraphImporter &g) {
  if (Kind == Arith::Div && isa<IntegerType>(g.inputElemType(0)) && !g.allInputsConstant())
    return convertIntegerDiv(g);
  bool commutative = Kind == Arith::Add || Kind == Arith::Mul || Kind == Arith::Max || Kind == Arith::Min;
  if (const HostTensor *c = scalarOperand(g, 1, 0))
    return g.finish(buildConst(g, Kind, "", g.input(0), c->at(0), false));
  if (const HostTensor *c = scalarOperand(g, 0, 1))
    return g.finish(buildConst(g, Kind, "", g.input(1), c->at(0), !commutative));
  return g.finish(buildBinary(g, Kind, "", g.input(0), g.input(1)));
}

/// Variadic Max / Min / Sum / Mean: a chain of binary ops (Mean divides at the end).
template <Arith Kind, bool Mean = false> LogicalResult convertVariadic(GraphImporter &g) {
  int n = g.node().input_size();
  if (n == 2 && !Mean)
    return convertBinary<Kind>(g);
  Value acc = g.input(0);
  for (int k = 1; k < n && acc; ++k) {
    bool last = k == n - 1 && !Mean;
    acc = buildBinary(g, Kind, last ? "" : "acc" + std::to_string(k), acc, g.input(k));
  }
  if (Mean && acc)
    acc = n == 1 ? acc : g.build<DivConstOp>("", {acc}, {g.f64("const_val", n)});
  return g.finish(acc);
}

LogicalResult convertPow(GraphImporter &g) {
  if (const HostTensor *e = g.constInput(1); e && e->numel() == 1 && !g.constInput(0))
    return g.finish(g.build<PowOp>("", {g.input(0)}, {g.f64("exponent", e->at(0))}));
  // c ^ y = exp(y * ln c) for a positive scalar base.
  if (const HostTensor *b = scalarOperand(g, 0, 1)) {
    if (b->at(0) <= 0)
      return g.fail("Pow of a non-positive constant base to a tensor exponent is not supported");
    Value scaled = g.build<MulConstOp>("log_base", {g.input(1)}, {g.f64("const_val", std::log(b->at(0)))});
    return g.finish(scaled ? g.build<ExpOp>("", {scaled}) : Value());
  }
  // Two tensors (either may be integer; the result has the base's type).
  return g.finish(g.build<PowerOp>("", {g.input(0), g.input(1)}));
}

template <typename OpTy> LogicalResult convertUnary(GraphImporter &g) {
  return g.finish(g.build<OpTy>("", {g.input(0)}));
}

LogicalResult convertNeg(GraphImporter &g) {
  return g.finish(g.build<MulConstOp>("", {g.input(0)}, {g.f64("const_val", -1.0)}));
}

LogicalResult convertLeakyRelu(GraphImporter &g) {
  return g.finish(g.build<LeakyReluOp>("", {g.input(0)}, {g.f64("alpha", g.attrFloat("alpha", 0.01))}));
}

LogicalResult convertHardSigmoid(GraphImporter &g) {
  return g.finish(g.build<HardSigmoidOp>(
                       "", {g.input(0)},
                       {g.f64("alpha", g.attrFloat("alpha", 0.2)), g.f64("beta", g.attrFloat("beta", 0.5))}));
}

/// log(1 + exp(x)).
LogicalResult convertSoftplus(GraphImporter &g) {
  Value e = g.build<ExpOp>("exp", {g.input(0)});
  Value p = e ? g.build<AddConstOp>("plus_one", {e}, {g.f64("const_val", 1.0)}) : Value();
  return g.finish(p ? g.build<LogOp>("", {p}) : Value());
}

/// max(0, x) + slope * min(0, x); a scalar slope is a leaky relu.
LogicalResult convertPRelu(GraphImporter &g) {
  if (const HostTensor *s = g.constInput(1); s && s->numel() == 1)
    return g.finish(g.build<LeakyReluOp>("", {g.input(0)}, {g.f64("alpha", s->at(0))}));
  Value x = g.input(0);
  Value pos = g.build<ReluOp>("pos", {x});
  Value neg = g.build<MinConstOp>("neg", {x}, {g.f64("const_val", 0.0)});
  Value scaled = neg ? g.build<MulOp>("slope", {neg, g.input(1)}) : Value();
  return g.finish(pos && scaled ? g.build<AddOp>("", {pos, scaled}) : Value());
}

LogicalResult convertClip(GraphImporter &g) {
  double lo = -FLT_MAX, hi = FLT_MAX;
  Value x = g.input(0);
  if (g.opset() < 11) {
    lo = g.attrFloat("min", lo);
    hi = g.attrFloat("max", hi);
  } else {
    const HostTensor *cmin = g.constInput(1), *cmax = g.constInput(2);
    bool dynMin = g.hasInput(1) && !cmin, dynMax = g.hasInput(2) && !cmax;
    if ((cmin && cmin->numel() != 1) || (cmax && cmax->numel() != 1))
      return g.fail("'min' and 'max' must be scalars");
    if (dynMin || dynMax) {
      // Bounds computed by the graph: max(x, min) then min(., max), in ONNX's order.
      Value y = x;
      if (g.hasInput(1))
        y = g.build<MaxOp>(g.hasInput(2) ? "min" : "", {y, g.input(1)});
      if (g.hasInput(2) && y)
        y = g.build<MinOp>("", {y, g.input(2)});
      return g.finish(y);
    }
    if (cmin)
      lo = cmin->at(0);
    if (cmax)
      hi = cmax->at(0);
  }
  if (lo > hi)
    return g.fail("'min' (" + std::to_string(lo) + ") exceeds 'max' (" + std::to_string(hi) + ")");
  // Clip(0, inf) is Relu and Clip(0, 6) is Relu6; as relus they fuse into their producer.
  if (lo == 0 && hi > 0)
    return g.finish(g.build<ReluOp>("", {x}, {g.f64("relu_limit", hi >= FLT_MAX ? -1.0 : hi)}));
  return g.finish(g.build<ClipOp>("", {x}, {g.f64("min", lo), g.f64("max", hi)}));
}

template <CompareMode Mode> LogicalResult convertCompare(GraphImporter &g) {
  auto mode = CompareModeAttr::get(g.builder().getContext(), Mode);
  return g.finish(g.build<CompareOp>("", {g.input(0), g.input(1)}, {g.named("mode", mode)}));
}

/// Not x == (x == false).
LogicalResult convertNot(GraphImporter &g) {
  Value zero = g.materialize(g.nodeName() + "_false", HostTensor::ints({}, {0}, onnx::TensorProto::BOOL));
  auto mode = CompareModeAttr::get(g.builder().getContext(), CompareMode::eq);
  return g.finish(g.build<CompareOp>("", {g.input(0), zero}, {g.named("mode", mode)}));
}

LogicalResult convertWhere(GraphImporter &g) {
  return g.finish(g.build<WhereOp>("", {g.input(0), g.input(1), g.input(2)}));
}

LogicalResult convertCast(GraphImporter &g) {
  int64_t to = g.attrInt("to", 0);
  if (!isSupportedDType((int32_t)to))
    return g.fail("Cast to " + dtypeName((int32_t)to) + " is not supported");
  Value x = g.input(0);
  if (!x)
    return failure();
  Type elem = g.topElemType((int32_t)to);
  if (GraphImporter::elementTypeOf(x) == elem)
    return g.finish(x); // float16/double/float all become f32 in Top
  Operation *op = g.createOp(CastOp::getOperationName(), "", {x}, {}, {elem});
  return g.finish(op ? op->getResult(0) : Value());
}

LogicalResult convertIdentity(GraphImporter &g) { return g.finish(g.input(0)); }

/// Inference-mode Dropout: the identity, and an all-true mask.
LogicalResult convertDropout(GraphImporter &g) {
  // In training mode with ratio 0 nothing is dropped and the scale 1 / (1 - ratio) is 1: the identity.
  const HostTensor *ratio = g.constInput(1);
  bool keepsAll = g.hasInput(1) && ratio && ratio->numel() == 1 && ratio->at(0) == 0;
  if (const HostTensor *training = g.constInput(2);
      training && training->numel() == 1 && training->at(0) != 0 && !keepsAll)
    return g.fail("training_mode = true is not supported (inference only)");
  if (g.hasInput(2) && !g.constInput(2))
    return g.fail("'training_mode' must be known at import time");
  if (g.outputUsed(1))
    g.setConstOutput(1, HostTensor::filled(g.inputShape(0), onnx::TensorProto::BOOL, 1));
  return g.finish(g.input(0));
}

/// CastLike: Cast to the element type of the second input.
LogicalResult convertCastLike(GraphImporter &g) {
  Value x = g.input(0);
  Type elem = g.inputElemType(1);
  if (!x)
    return failure();
  if (GraphImporter::elementTypeOf(x) == elem)
    return g.finish(x);
  Operation *op = g.createOp(CastOp::getOperationName(), "", {x}, {}, {elem});
  return g.finish(op ? op->getResult(0) : Value());
}

/// x > alpha ? x : 0.
LogicalResult convertThresholdedRelu(GraphImporter &g) {
  Value x = g.input(0);
  Value alpha = g.materialize(g.nodeName() + "_alpha", HostTensor::floats({}, {(float)g.attrFloat("alpha", 1.0)}));
  Value zero = g.materialize(g.nodeName() + "_zero", HostTensor::floats({}, {0.0f}));
  if (!x || !alpha || !zero)
    return failure();
  auto gt = CompareModeAttr::get(g.builder().getContext(), CompareMode::gt);
  Operation *cond = g.createOp(CompareOp::getOperationName(), "above", {x, alpha}, {g.named("mode", gt)},
                               {g.builder().getI1Type()});
  return g.finish(cond ? g.build<WhereOp>("", {cond->getResult(0), x, zero}) : Value());
}

/// IsNaN is x != x.
LogicalResult convertIsNaN(GraphImporter &g) {
  auto ne = CompareModeAttr::get(g.builder().getContext(), CompareMode::ne);
  Value x = g.input(0);
  return g.finish(x ? g.build<CompareOp>("", {x, x}, {g.named("mode", ne)}) : Value());
}

/// IsInf: x == +inf and/or x == -inf, as `detect_positive` / `detect_negative` ask (x == NaN, never true,
/// when neither is asked for).
LogicalResult convertIsInf(GraphImporter &g) {
  bool pos = g.attrInt("detect_positive", 1) != 0, neg = g.attrInt("detect_negative", 1) != 0;
  Value x = g.input(0);
  if (!x)
    return failure();
  MLIRContext *ctx = g.builder().getContext();
  auto compare = [&](StringRef suffix, Value a, Value b, CompareMode mode) -> Value {
    Operation *op = g.createOp(CompareOp::getOperationName(), suffix, {a, b},
                               {g.named("mode", CompareModeAttr::get(ctx, mode))}, {g.builder().getI1Type()});
    return op ? op->getResult(0) : Value();
  };
  auto equals = [&](float value, StringRef what, StringRef suffix) -> Value {
    Value c = g.materialize(g.nodeName() + "_" + what.str(), HostTensor::floats({}, {value}));
    return c ? compare(suffix, x, c, CompareMode::eq) : Value();
  };
  if (!pos && !neg)
    return g.finish(equals(NAN, "nan", ""));
  if (pos != neg)
    return g.finish(pos ? equals(INFINITY, "pos_inf", "") : equals(-INFINITY, "neg_inf", ""));
  Value p = equals(INFINITY, "pos_inf", "pos"), n = equals(-INFINITY, "neg_inf", "neg");
  return g.finish(p && n ? compare("", p, n, CompareMode::Or) : Value());
}

} // namespace

void addElementwiseConverters(OpTable &table) {
  table["ThresholdedRelu"].convert = convertThresholdedRelu;
  table["IsNaN"].convert = convertIsNaN;
  table["IsInf"].convert = convertIsInf;
  table["Add"].convert = convertBinary<Arith::Add>;
  table["Sub"].convert = convertBinary<Arith::Sub>;
  table["Mul"].convert = convertBinary<Arith::Mul>;
  table["Div"].convert = convertBinary<Arith::Div>;
  table["Max"].convert = convertVariadic<Arith::Max>;
  table["Min"].convert = convertVariadic<Arith::Min>;
  table["Sum"].convert = convertVariadic<Arith::Add>;
  table["Mean"].convert = convertVariadic<Arith::Add, true>;
  table["Pow"].convert = convertPow;
  table["Relu"].convert = convertUnary<ReluOp>;
  table["Sigmoid"].convert = convertUnary<SigmoidOp>;
  table["Tanh"].convert = convertUnary<TanhOp>;
  table["Mish"].convert = convertUnary<MishOp>; // opset 18
  table["Exp"].convert = convertUnary<ExpOp>;
  table["Log"].convert = convertUnary<LogOp>;
  table["Sqrt"].convert = convertUnary<SqrtOp>;
  table["Reciprocal"].convert = convertUnary<ReciprocalOp>;
  table["Abs"].convert = convertUnary<AbsOp>;
  table["Erf"].convert = convertUnary<ErfOp>;
  table["HardSwish"].convert = convertUnary<HardSwishOp>;
  table["Floor"].convert = convertUnary<FloorOp>;
  table["Ceil"].convert = convertUnary<CeilOp>;
  table["Round"].convert = convertUnary<RoundOp>;
  table["Sign"].convert = convertUnary<SignOp>;
  table["Sin"].convert = convertUnary<SinOp>;
  table["Cos"].convert = convertUnary<CosOp>;
  table["Tan"].convert = convertUnary<TanOp>;
  table["Asin"].convert = convertUnary<AsinOp>;
  table["Acos"].convert = convertUnary<AcosOp>;
  table["Atan"].convert = convertUnary<AtanOp>;
  table["Sinh"].convert = convertUnary<SinhOp>;
  table["Cosh"].convert = convertUnary<CoshOp>;
  table["Asinh"].convert = convertUnary<AsinhOp>;
  table["Acosh"].convert = convertUnary<AcoshOp>;
  table["Atanh"].convert = convertUnary<AtanhOp>;
  table["Neg"].convert = convertNeg;
  table["LeakyRelu"].convert = convertLeakyRelu;
  table["HardSigmoid"].convert = convertHardSigmoid;
  table["Softplus"].convert = convertSoftplus;
  table["PRelu"].convert = convertPRelu;
  table["Clip"].convert = convertClip;
  table["Equal"].convert = convertCompare<CompareMode::eq>;
  table["Less"].convert = convertCompare<CompareMode::lt>;
  table["LessOrEqual"].convert = convertCompare<CompareMode::le>;
  table["Greater"].convert = convertCompare<CompareMode::gt>;
  table["GreaterOrEqual"].convert = convertCompare<CompareMode::ge>;
  table["And"].convert = convertCompare<CompareMode::And>;
  table["Or"].convert = convertCompare<CompareMode::Or>;
  table["Xor"].convert = convertCompare<CompareMode::Xor>;
  table["Not"].convert = convertNot;
  table["Where"].convert = convertWhere;
  table["Cast"].convert = convertCast;
  table["Identity"].convert = convertIdentity;
  table["Dropout"].convert = convertDropout;
  table["CastLike"].convert = convertCastLike;
}

} // namespace tpuc::importer
