//===- FoldMath.cpp - Import-time evaluation of ONNX arithmetic on constants -===//
// Element-wise arithmetic, comparisons, BitShift, Where, reductions and DequantizeLinear on tensors known
// at import time: index arithmetic of shape subgraphs and preprocessing of weights (Mul(w, s), ...).
// Integers compute in int64 with C semantics, floats in float32 like ONNX Runtime.
//===----------------------------------------------------------------------===//
#include "OpParams.h"

#include <cmath>

using namespace mlir;

namespace tpuc::importer {
namespace {

using Outputs = std::vector<HostTensor>;

enum class BinKind { Add, Sub, Mul, Div, Pow, Max, Min, Mod, BitShift, Eq, Lt, Le, Gt, Ge, And, Or, Xor };

bool isComparison(BinKind k) { return k >= BinKind::Eq; }

/// Folds a binary op with NumPy broadcasting. Returns false (not folded) for results above the fold limit.
FailureOr<bool> foldBinaryOp(GraphImporter &g, BinKind kind, const HostTensor &a, const HostTensor &b,
                             HostTensor &out) {
  auto shape = broadcastAll({a.shape, b.shape});
  if (!shape)
    return g.fail("operand shapes do not broadcast");
  auto n = checkedNumel(*shape);
  if (!n || *n > kMaxFoldElements)
    return false;
  std::vector<int64_t> ia = broadcastIndex(a.shape, *shape), ib = broadcastIndex(b.shape, *shape);
  out = HostTensor::filled(*shape, isComparison(kind) ? onnx::TensorProto::BOOL : a.dtype, 0);
  bool ints = !a.isFloat() && !b.isFloat();
  bool fmod = g.attrInt("fmod", 0) != 0;
  for (int64_t k = 0; k < *n; ++k) {
    if (ints && !isComparison(kind)) {
      int64_t x = a.i[ia[k]], y = b.i[ib[k]], r = 0;
      switch (kind) {
      case BinKind::Add:
        r = (int64_t)((uint64_t)x + (uint64_t)y);
        break;
      case BinKind::Sub:
        r = (int64_t)((uint64_t)x - (uint64_t)y);
        break;
      case BinKind::Mul:
        r = (int64_t)((uint64_t)x * (uint64_t)y);
        break;
      case BinKind::Div:
      case BinKind::Mod:
        if (y == 0 || (x == INT64_MIN && y == -1))
          return g.fail("integer division by zero or overflow in a constant expression");
        if (kind == BinKind::Div) {
          r = x / y;
        } else {
          r = x % y;
          if (!fmod && r != 0 && ((r < 0) != (y < 0)))
            r += y; // Python-style: the sign follows the divisor
        }
        break;
      case BinKind::Pow: {
        double v = std::pow((double)x, (double)y);
        r = std::isfinite(v) && std::fabs(v) < 9.2e18 ? (int64_t)v : 0;
        break;
      }
      case BinKind::Max:
        r = std::max(x, y);
        break;
      case BinKind::Min:
        r = std::min(x, y);
        break;
      case BinKind::BitShift: {
        // ONNX BitShift is defined on unsigned integers; shifts past the width give 0.
        uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
        bool left = g.attrString("direction", "") == "LEFT";
        r = uy >= 64 ? 0 : (int64_t)(left ? ux << uy : ux >> uy);
        break;
      }
      default:
        break;
      }
      if (out.dtype == onnx::TensorProto::INT64)
        out.i[k] = r;
      else
        out.set(k, (double)r); // wraps to the narrower dtype
      continue;
    }
    double x = a.at(ia[k]), y = b.at(ib[k]);
    float fx = (float)x, fy = (float)y;
    double r = 0;
    switch (kind) {
    case BinKind::Add:
      r = a.isFloat() ? (double)(fx + fy) : x + y;
      break;
    case BinKind::Sub:
      r = a.isFloat() ? (double)(fx - fy) : x - y;
      break;
    case BinKind::Mul:
      r = a.isFloat() ? (double)(fx * fy) : x * y;
      break;
    case BinKind::Div:
      r = a.isFloat() ? (double)(fx / fy) : x / y;
      break;
    case BinKind::Pow:
      r = std::pow(fx, fy);
      break;
    case BinKind::Max:
      r = std::max(x, y);
      break;
    case BinKind::Min:
      r = std::min(x, y);
      break;
    case BinKind::Mod:
      r = fmod ? std::fmod(x, y) : x - y * std::floor(x / y);
      break;
    case BinKind::BitShift:
      return g.fail("BitShift is defined on unsigned integers only");
    case BinKind::Eq:
      r = x == y;
      break;
    case BinKind::Lt:
      r = x < y;
      break;
    case BinKind::Le:
      r = x <= y;
      break;
    case BinKind::Gt:
      r = x > y;
      break;
    case BinKind::Ge:
      r = x >= y;
      break;
    case BinKind::And:
      r = (x != 0) && (y != 0);
      break;
    case BinKind::Or:
      r = (x != 0) || (y != 0);
      break;
    case BinKind::Xor:
      r = (x != 0) != (y != 0);
      break;
    }
    out.set(k, r);
  }
  return true;
}

template <BinKind Kind> FailureOr<bool> foldBinary(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant() || g.node().input_size() < 1)
    return false;
  // Variadic Max / Min / Sum fold pairwise from the left.
  HostTensor acc = *g.constInput(0);
  for (int k = 1; k < g.node().input_size(); ++k) {
    HostTensor next;
    auto folded = foldBinaryOp(g, Kind, acc, *g.constInput(k), next);
    if (failed(folded) || !*folded)
      return folded;
    acc = std::move(next);
  }
  outs.push_back(std::move(acc));
  return true;
}

FailureOr<bool> foldMean(GraphImporter &g, Outputs &outs) {
  auto folded = foldBinary<BinKind::Add>(g, outs);
  if (failed(folded) || !*folded)
    return folded;
  double n = g.node().input_size();
  for (int64_t k = 0; k < outs[0].numel(); ++k)
    outs[0].set(k, outs[0].at(k) / n);
  return true;
}

FailureOr<bool> foldNot(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant())
    return false;
  HostTensor out = g.constInput(0)->castTo(onnx::TensorProto::BOOL);
  for (auto &v : out.i)
    v = !v;
  outs.push_back(std::move(out));
  return true;
}

enum class UnKind {
  Neg,
  Abs,
  Sqrt,
  Exp,
  Log,
  Reciprocal,
  Floor,
  Ceil,
  Round,
  Sign,
  Relu,
  Sigmoid,
  Tanh,
  Sin,
  Cos,
  Erf
};

template <UnKind Kind> FailureOr<bool> foldUnary(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant())
    return false;
  HostTensor out = *g.constInput(0);
  for (int64_t k = 0; k < out.numel(); ++k) {
    double x = out.at(k), r = x;
    if (!out.isFloat() && Kind == UnKind::Neg) {
      out.i[k] = (int64_t)(0 - (uint64_t)out.i[k]);
      continue;
    }
    switch (Kind) {
    case UnKind::Neg:
      r = -x;
      break;
    case UnKind::Abs:
      r = std::fabs(x);
      break;
    case UnKind::Sqrt:
      r = std::sqrt((float)x);
      break;
    case UnKind::Exp:
      r = std::exp((float)x);
      break;
    case UnKind::Log:
      r = std::log((float)x);
      break;
    case UnKind::Reciprocal:
      r = 1.0f / (float)x;
      break;
    case UnKind::Floor:
      r = std::floor(x);
      break;
    case UnKind::Ceil:
      r = std::ceil(x);
      break;
    case UnKind::Round:
      r = std::nearbyint(x);
      break; // half to even
    case UnKind::Sign:
      r = (x > 0) - (x < 0);
      break;
    case UnKind::Relu:
      r = std::max(x, 0.0);
      break;
    case UnKind::Sigmoid:
      r = 1.0f / (1.0f + std::exp(-(float)x));
      break;
    case UnKind::Tanh:
      r = std::tanh((float)x);
      break;
    case UnKind::Sin:
      r = std::sin((float)x);
      break;
    case UnKind::Cos:
      r = std::cos((float)x);
      break;
    case UnKind::Erf:
      r = std::erf((float)x);
      break;
    }
    out.set(k, r);
  }
  outs.push_back(std::move(out));
  return true;
}

FailureOr<bool> foldWhere(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant())
    return false;
  const HostTensor &c = *g.constInput(0), &x = *g.constInput(1), &y = *g.constInput(2);
  auto shape = broadcastAll({c.shape, x.shape, y.shape});
  if (!shape)
    return g.fail("operand shapes do not broadcast");
  auto n = checkedNumel(*shape);
  if (!n || *n > kMaxFoldElements)
    return false;
  std::vector<int64_t> ic = broadcastIndex(c.shape, *shape), ix = broadcastIndex(x.shape, *shape),
                       iy = broadcastIndex(y.shape, *shape);
  HostTensor out = HostTensor::filled(*shape, x.dtype, 0);
  for (int64_t k = 0; k < *n; ++k) {
    bool pick = c.at(ic[k]) != 0;
    if (out.isFloat())
      out.f[k] = pick ? x.f[ix[k]] : y.at(iy[k]);
    else
      out.i[k] = pick ? x.i[ix[k]] : y.intAt(iy[k]);
  }
  outs.push_back(std::move(out));
  return true;
}

enum class RedKind { Sum, Mean, Max, Min, Prod };

template <RedKind Kind> FailureOr<bool> foldReduce(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant())
    return false;
  const HostTensor &in = *g.constInput(0);
  int64_t rank = in.shape.size();
  auto given = intsParam(g, "axes", Kind == RedKind::Sum ? 13 : 18, 1);
  if (failed(given))
    return failure();
  std::vector<bool> reduced(rank, false);
  if (*given && !(*given)->empty()) {
    auto axes = normalizeAxes(g, **given, rank);
    if (failed(axes))
      return failure();
    for (int64_t a : *axes)
      reduced[a] = true;
  } else if (g.attrInt("noop_with_empty_axes", 0)) {
    outs.push_back(in);
    return true;
  } else {
    reduced.assign(rank, true);
  }
  bool keep = g.attrInt("keepdims", 1) != 0;
  std::vector<int64_t> keptShape, outShape;
  for (int64_t a = 0; a < rank; ++a) {
    keptShape.push_back(reduced[a] ? 1 : in.shape[a]);
    if (!reduced[a] || keep)
      outShape.push_back(keptShape.back());
  }
  int64_t outN = checkedNumel(keptShape).value_or(0);
  std::vector<double> acc(outN, Kind == RedKind::Prod  ? 1.0
                                : Kind == RedKind::Max ? -INFINITY
                                : Kind == RedKind::Min ? INFINITY
                                                       : 0.0);
  std::vector<int64_t> outStrides = stridesOf(keptShape), inStrides = stridesOf(in.shape);
  int64_t count = outN ? in.numel() / outN : 0;
  for (int64_t k = 0; k < in.numel(); ++k) {
    int64_t o = 0, rest = k;
    for (int64_t a = 0; a < rank; ++a) {
      int64_t idx = rest / inStrides[a];
      rest %= inStrides[a];
      if (!reduced[a])
        o += idx * outStrides[a];
    }
    double v = in.at(k);
    switch (Kind) {
    case RedKind::Sum:
    case RedKind::Mean:
      acc[o] += v;
      break;
    case RedKind::Max:
      acc[o] = std::max(acc[o], v);
      break;
    case RedKind::Min:
      acc[o] = std::min(acc[o], v);
      break;
    case RedKind::Prod:
      acc[o] *= v;
      break;
    }
  }
  HostTensor out = HostTensor::filled(outShape, in.dtype, 0);
  for (int64_t k = 0; k < outN; ++k)
    out.set(k, Kind == RedKind::Mean && count ? acc[k] / count : acc[k]);
  outs.push_back(std::move(out));
  return true;
}

/// y = (x - zero_point) * scale, per tensor or per `axis`.
FailureOr<bool> foldDequantize(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant())
    return false;
  const HostTensor &x = *g.constInput(0), &scale = *g.constInput(1);
  const HostTensor *zp = g.constInput(2);
  int64_t rank = x.shape.size();
  bool perAxis = scale.numel() != 1;
  int64_t axis = 0, inner = 1;
  if (perAxis) {
    auto a = g.normalizeAxis(g.attrInt("axis", 1), rank, "axis");
    if (failed(a))
      return failure();
    axis = *a;
    if (scale.numel() != x.shape[axis])
      return g.fail("'x_scale' must hold one value per element of axis " + std::to_string(axis));
    for (int64_t k = axis + 1; k < rank; ++k)
      inner *= x.shape[k];
  }
  if (zp && zp->numel() != scale.numel())
    return g.fail("'x_zero_point' must match 'x_scale'");
  HostTensor out = HostTensor::filled(x.shape, onnx::TensorProto::FLOAT, 0);
  for (int64_t k = 0; k < x.numel(); ++k) {
    int64_t c = perAxis ? (k / inner) % x.shape[axis] : 0;
    out.f[k] = (float)((x.at(k) - (zp ? zp->at(c) : 0.0)) * scale.at(c));
  }
  outs.push_back(std::move(out));
  return true;
}

} // namespace

void addShapeFolders(OpTable &table);

void addFolders(OpTable &table) {
  addShapeFolders(table);
  table["Add"].fold = foldBinary<BinKind::Add>;
  table["Sum"].fold = foldBinary<BinKind::Add>;
  table["Sub"].fold = foldBinary<BinKind::Sub>;
  table["Mul"].fold = foldBinary<BinKind::Mul>;
  table["Div"].fold = foldBinary<BinKind::Div>;
  table["Pow"].fold = foldBinary<BinKind::Pow>;
  table["Max"].fold = foldBinary<BinKind::Max>;
  table["Min"].fold = foldBinary<BinKind::Min>;
  table["Mod"].fold = foldBinary<BinKind::Mod>;
  table["BitShift"].fold = foldBinary<BinKind::BitShift>;
  table["Mean"].fold = foldMean;
  table["Equal"].fold = foldBinary<BinKind::Eq>;
  table["Less"].fold = foldBinary<BinKind::Lt>;
  table["LessOrEqual"].fold = foldBinary<BinKind::Le>;
  table["Greater"].fold = foldBinary<BinKind::Gt>;
  table["GreaterOrEqual"].fold = foldBinary<BinKind::Ge>;
  table["And"].fold = foldBinary<BinKind::And>;
  table["Or"].fold = foldBinary<BinKind::Or>;
  table["Xor"].fold = foldBinary<BinKind::Xor>;
  table["Not"].fold = foldNot;
  table["Where"].fold = foldWhere;
  table["Neg"].fold = foldUnary<UnKind::Neg>;
  table["Abs"].fold = foldUnary<UnKind::Abs>;
  table["Sqrt"].fold = foldUnary<UnKind::Sqrt>;
  table["Exp"].fold = foldUnary<UnKind::Exp>;
  table["Log"].fold = foldUnary<UnKind::Log>;
  table["Reciprocal"].fold = foldUnary<UnKind::Reciprocal>;
  table["Floor"].fold = foldUnary<UnKind::Floor>;
  table["Ceil"].fold = foldUnary<UnKind::Ceil>;
  table["Round"].fold = foldUnary<UnKind::Round>;
  table["Sign"].fold = foldUnary<UnKind::Sign>;
  table["Relu"].fold = foldUnary<UnKind::Relu>;
  table["Sigmoid"].fold = foldUnary<UnKind::Sigmoid>;
  table["Tanh"].fold = foldUnary<UnKind::Tanh>;
  table["Sin"].fold = foldUnary<UnKind::Sin>;
  table["Cos"].fold = foldUnary<UnKind::Cos>;
  table["Erf"].fold = foldUnary<UnKind::Erf>;
  table["ReduceSum"].fold = foldReduce<RedKind::Sum>;
  table["ReduceMean"].fold = foldReduce<RedKind::Mean>;
  table["ReduceMax"].fold = foldReduce<RedKind::Max>;
  table["ReduceMin"].fold = foldReduce<RedKind::Min>;
  table["ReduceProd"].fold = foldReduce<RedKind::Prod>;
  table["DequantizeLinear"].fold = foldDequantize;
}

} // namespace tpuc::importer
