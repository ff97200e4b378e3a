//===- ConvertComposite.cpp - ONNX ops composed exactly from several Top ops -===//
// Elu, Selu, Celu, Shrink, Softsign, float Mod, BitShift, (Dynamic)QuantizeLinear / DequantizeLinear,
// MeanVarianceNormalization, LRN, Einsum, ReverseSequence / Scatter* with indices known at import time,
// and If (the branch taken when the condition is known, else both branches and a where), each spelled out
// as its ONNX definition.
//===----------------------------------------------------------------------===//
#include "GraphImporter.h"
#include "OpParams.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <numeric>

using namespace mlir;
using namespace tpuc::top;

namespace tpuc::importer {
namespace {

Value compare(GraphImporter &g, StringRef suffix, Value lhs, Value rhs, CompareMode mode) {
  if (!lhs || !rhs)
    return {};
  return g.build<CompareOp>(suffix, {lhs, rhs},
                         {g.named("mode", CompareModeAttr::get(g.builder().getContext(), mode))},
                         g.builder().getI1Type());
}

Value scalar(GraphImporter &g, StringRef what, float value) {
  return g.materialize(g.nodeName() + "_" + what.str(), HostTensor::floats({}, {value}));
}

template <typename OpTy> Value constOp(GraphImporter &g, StringRef suffix, Value x, double c) {
  return x ? g.build<OpTy>(suffix, {x}, {g.f64("const_val", c)}) : Value();
}

/// alpha * (exp(x) - 1), the negative branch of Elu.
Value expMinusOne(GraphImporter &g, Value x, double alpha, StringRef prefix) {
  Value e = x ? g.build<ExpOp>((prefix + "exp").str(), {x}) : Value();
  return constOp<MulConstOp>(g, (prefix + "scaled").str(), constOp<SubConstOp>(g, (prefix + "minus_one").str(), e, 1.0),
                             alpha);
}

/// Elu: x > 0 ? x : alpha * (exp(x) - 1).
LogicalResult convertElu(GraphImporter &g) {
  Value x = g.input(0);
  double alpha = g.attrFloat("alpha", 1.0);
  Value neg = expMinusOne(g, x, alpha, "");
  Value pos = compare(g, "positive", x, scalar(g, "zero", 0.0f), CompareMode::gt);
  return g.finish(neg && pos ? g.build<WhereOp>("", {pos, x, neg}) : Value());
}

/// Selu: gamma * (x > 0 ? x : alpha * (exp(x) - 1)).
LogicalResult convertSelu(GraphImporter &g) {
  Value x = g.input(0);
  double alpha = g.attrFloat("alpha", 1.67326319217681884765625);
  double gamma = g.attrFloat("gamma", 1.05070102214813232421875);
  Value neg = expMinusOne(g, x, alpha, "");
  Value pos = compare(g, "positive", x, scalar(g, "zero", 0.0f), CompareMode::gt);
  Value elu = neg && pos ? g.build<WhereOp>("elu", {pos, x, neg}) : Value();
  return g.finish(constOp<MulConstOp>(g, "", elu, gamma));
}

/// Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
LogicalResult convertCelu(GraphImporter &g) {
  Value x = g.input(0);
  double alpha = g.attrFloat("alpha", 1.0);
  if (alpha == 0)
    return g.fail("'alpha' must not be 0");
  Value neg = expMinusOne(g, constOp<DivConstOp>(g, "div_alpha", x, alpha), alpha, "");
  Value low = constOp<MinConstOp>(g, "negative", neg, 0.0);
  Value high = x ? g.build<ReluOp>("positive", {x}) : Value();
  return g.finish(low && high ? g.build<AddOp>("", {high, low}) : Value());
}

/// Shrink: x < -lambd ? x + bias : (x > lambd ? x - bias : 0).
LogicalResult convertShrink(GraphImporter &g) {
  Value x = g.input(0);
  double lambd = g.attrFloat("lambd", 0.5), bias = g.attrFloat("bias", 0.0);
  Value below = compare(g, "below", x, scalar(g, "neg_lambd", (float)-lambd), CompareMode::lt);
  Value above = compare(g, "above", x, scalar(g, "lambd", (float)lambd), CompareMode::gt);
  Value plus = constOp<AddConstOp>(g, "plus_bias", x, bias);
  Value minus = constOp<SubConstOp>(g, "minus_bias", x, bias);
  Value zero = scalar(g, "zero", 0.0f);
  Value upper = above && minus && zero ? g.build<WhereOp>("upper", {above, minus, zero}, {}, g.outputElemType(0))
                                       : Value();
  return g.finish(below && plus && upper ? g.build<WhereOp>("", {below, plus, upper}) : Value());
}

/// trunc(v) = sign(v) * floor(|v|).
Value truncate(GraphImporter &g, Value q, StringRef suffix) {
  Value mag = q ? g.build<AbsOp>("magnitude", {q}) : Value();
  Value fl = mag ? g.build<FloorOp>("floor", {mag}) : Value();
  Value sg = q ? g.build<SignOp>("sign", {q}) : Value();
  return fl && sg ? g.build<MulOp>(suffix, {sg, fl}) : Value();
}

/// An integer operand in f32, where the integer composites compute (exact while the values and the
/// quotients stay below 2^24 in magnitude: every tensor is computed in float32).
Value asFloat(GraphImporter &g, size_t i, StringRef suffix) {
  Value v = g.input(i);
  if (!v || isa<FloatType>(GraphImporter::elementTypeOf(v)))
    return v;
  return g.build<CastOp>(suffix, {v}, {}, g.builder().getF32Type());
}

/// The integer result type of output 0 again, from the f32 composite (its values are whole numbers).
Value asOutputType(GraphImporter &g, Value v) {
  Type elem = g.outputElemType(0);
  if (!v || isa<FloatType>(elem))
    return v;
  return g.build<CastOp>("", {v}, {}, elem);
}

/// Mod: a - b * floor(a / b) (the sign of b, Python's), or with fmod a - b * trunc(a / b) (the sign of a,
/// C's). Integer tensors are computed in f32 and cast back.
LogicalResult convertMod(GraphImporter &g) {
  bool integer = !isa<FloatType>(g.outputElemType(0));
  Value a = asFloat(g, 0, "lhs_f32"), b = asFloat(g, 1, "rhs_f32");
  Value q = a && b ? g.build<DivOp>("quotient", {a, b}) : Value();
  Value whole = g.attrInt("fmod", 0) ? truncate(g, q, "trunc") : q ? g.build<FloorOp>("floor", {q}) : Value();
  Value prod = whole ? g.build<MulOp>("product", {b, whole}) : Value();
  if (!integer)
    return g.finish(prod ? g.build<SubOp>("", {a, prod}) : Value());
  return g.finish(asOutputType(g, prod ? g.build<SubOp>("remainder", {a, prod}) : Value()));
}



/// A per-axis quantization parameter reshaped to broadcast along `axis` of a rank-`rank` tensor.
Value alongAxis(GraphImporter &g, Value p, int64_t rank, int64_t axis, StringRef suffix) {
  auto shape = getShape(p);
  if (!p || shape.size() != 1 || rank == 0)
    return p;
  std::vector<int64_t> target(rank, 1);
  target[axis] = shape[0];
  return g.reshape(p, target, suffix);
}

/// The quantization axis; only checked when the scale is per axis (a per-tensor scale ignores it).
FailureOr<int64_t> quantAxis(GraphImporter &g) {
  int64_t rank = g.inputShape(0).size();
  std::vector<int64_t> scale = g.inputShape(1);
  if (rank == 0 || scale.empty() || (scale.size() == 1 && scale[0] == 1 && !g.hasAttr("axis")))
    return 0;
  return g.normalizeAxis(g.attrInt("axis", 1), rank, "axis");
}

Value toF32(GraphImporter &g, Value v, StringRef suffix) {
  if (!v || isa<FloatType>(GraphImporter::elementTypeOf(v)))
    return v;
  return g.build<CastOp>(suffix, {v}, {}, g.builder().getF32Type());
}

/// DequantizeLinear: (x - zero_point) * scale, per tensor or along `axis`.
LogicalResult convertDequantize(GraphImporter &g) {
  auto axis = quantAxis(g);
  if (failed(axis))
    return failure();
  int64_t rank = g.inputShape(0).size();
  Value x = toF32(g, g.input(0), "float");
  Value scale = alongAxis(g, g.input(1), rank, *axis, "scale");
  if (!x || !scale)
    return failure();
  if (g.hasInput(2)) {
    Value zp = alongAxis(g, toF32(g, g.input(2), "zero_point_float"), rank, *axis, "zero_point");
    x = zp ? g.build<SubOp>("centered", {x, zp}) : Value();
  }
  return g.finish(x ? g.build<MulOp>("", {x, scale}) : Value());
}

/// QuantizeLinear: saturate(round_half_even(x / scale) + zero_point) in the zero point's integer type
/// (uint8 without one).
LogicalResult convertQuantize(GraphImporter &g) {
  auto axis = quantAxis(g);
  if (failed(axis))
    return failure();
  auto intType = dyn_cast<IntegerType>(g.outputElemType(0));
  if (!intType || intType.getWidth() > 32)
    return g.fail("only 8-, 16- and 32-bit integer outputs are supported");
  int64_t rank = g.inputShape(0).size();
  Value x = g.input(0);
  Value scale = alongAxis(g, g.input(1), rank, *axis, "scale");
  Value q = x && scale ? g.build<DivOp>("scaled", {x, scale}) : Value();
  q = q ? g.build<RoundOp>("rounded", {q}) : Value();
  if (q && g.hasInput(2)) {
    Value zp = alongAxis(g, toF32(g, g.input(2), "zero_point_float"), rank, *axis, "zero_point");
    q = zp ? g.build<AddOp>("shifted", {q, zp}) : Value();
  }
  unsigned w = intType.getWidth();
  bool isUnsigned = intType.isUnsigned();
  double lo = isUnsigned ? 0.0 : -std::ldexp(1.0, w - 1);
  double hi = isUnsigned ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
  Value sat = q ? g.build<ClipOp>("saturated", {q}, {g.f64("min", lo), g.f64("max", hi)}) : Value();
  return g.finish(sat ? g.build<CastOp>("", {sat}, {}, intType) : Value());
}

/// MeanVarianceNormalization: (x - mean) / (sqrt(var) + 1e-9) over `axes` (default N, H, W).
LogicalResult convertMVN(GraphImporter &g) {
  int64_t rank = g.inputShape(0).size();
  std::vector<int64_t> axes = g.hasAttr("axes") ? g.attrInts("axes") : std::vector<int64_t>{0, 2, 3};
  for (int64_t &a : axes) {
    auto n = g.normalizeAxis(a, rank, "axes");
    if (failed(n))
      return failure();
    a = *n;
  }
  std::sort(axes.begin(), axes.end());
  auto mean = [&](StringRef suffix, Value v) -> Value {
    return v ? g.build<ReduceOp>(suffix, {v},
                                 {g.i64s("axes", axes), g.boolean("keepdims", true),
                                  g.named("mode", ReduceModeAttr::get(g.builder().getContext(), ReduceMode::mean))})
             : Value();
  };
  Value x = g.input(0);
  Value m = mean("mean", x);
  Value d = m ? g.build<SubOp>("centered", {x, m}) : Value();
  Value var = mean("variance", d ? g.build<MulOp>("squared", {d, d}) : Value());
  Value sd = constOp<AddConstOp>(g, "std_eps", var ? g.build<SqrtOp>("std", {var}) : Value(), 1e-9);
  return g.finish(d && sd ? g.build<DivOp>("", {d, sd}) : Value());
}

/// ReverseSequence with `sequence_lens` known at import time: the first `len[b]` steps of every batch
/// entry are reversed by a gather over the flattened (batch, time) axes.
LogicalResult convertReverseSequence(GraphImporter &g) {
  const HostTensor *lens = g.constInput(1);
  if (!lens)
    return g.fail("'sequence_lens' must be known at import time");
  std::vector<int64_t> in = g.inputShape(0);
  int64_t batchAxis = g.attrInt("batch_axis", 1), timeAxis = g.attrInt("time_axis", 0);
  if (in.size() < 2 || !((batchAxis == 0 && timeAxis == 1) || (batchAxis == 1 && timeAxis == 0)))
    return g.fail("expects batch_axis and time_axis to be 0 and 1 of an input of rank >= 2");
  int64_t batch = in[batchAxis], time = in[timeAxis];
  if (lens->numel() != batch)
    return g.fail("'sequence_lens' has " + std::to_string(lens->numel()) + " values for a batch of " +
                  std::to_string(batch));
  std::vector<int64_t> source(in[0] * in[1]);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t len = lens->intAt(b);
    if (len < 0 || len > time)
      return g.fail("sequence length " + std::to_string(len) + " is out of range [0, " + std::to_string(time) + "]");
    for (int64_t t = 0; t < time; ++t) {
      int64_t from = t < len ? len - 1 - t : t;
      auto flat = [&](int64_t bb, int64_t tt) { return batchAxis == 0 ? bb * time + tt : tt * batch + bb; };
      source[flat(b, t)] = flat(b, from);
    }
  }
  int64_t rest = 1;
  for (size_t d = 2; d < in.size(); ++d)
    rest *= in[d];
  Value x = g.reshape(g.input(0), {in[0] * in[1], rest}, "flat");
  Value idx = g.materialize(g.nodeName() + "_source", HostTensor::ints({(int64_t)source.size()}, source));
  Value y = x && idx ? g.build<GatherOp>("gather", {x, idx}, {g.i64("axis", 0)}) : Value();
  return g.finish(g.reshape(y, in, ""));
}

/// Writes `updates` into `data` at flat positions known at import time. Each layer maps every data element
/// to the flat index into `updates` that lands on it, or -1; a layer is
/// y = where(written, gather(updates, source), y), or with a reduction y (op) gather(...) where written.
/// Without a reduction the last write wins and one layer suffices; with one, duplicate targets go to
/// later layers, applied in order.
using Layers = std::vector<std::vector<int64_t>>;

LogicalResult scatterByPositions(GraphImporter &g, const Layers &layers, StringRef reduction) {
  std::vector<int64_t> data = g.inputShape(0), updShape = g.inputShape(2);
  int64_t updates = 1;
  for (int64_t d : updShape)
    updates *= d;
  Value flat = g.reshape(g.input(2), {updates}, "flat_updates");
  Value y = g.input(0);
  for (size_t l = 0; l < layers.size() && y && flat; ++l) {
    const std::vector<int64_t> &source = layers[l];
    std::vector<int64_t> written(source.size()), from(source.size());
    for (size_t k = 0; k < source.size(); ++k) {
      written[k] = source[k] >= 0;
      from[k] = std::max<int64_t>(source[k], 0);
    }
    std::string tag = layers.size() > 1 ? std::to_string(l) : "";
    bool last = l + 1 == layers.size();
    Value mask =
        g.materialize(g.nodeName() + "_written" + tag, HostTensor::ints(data, written, onnx::TensorProto::BOOL));
    Value idx = g.materialize(g.nodeName() + "_source" + tag, HostTensor::ints(data, from));
    Value picked =
        mask && idx ? g.build<GatherOp>("picked" + tag, {flat, idx}, {g.i64("axis", 0)}) : Value();
    if (picked && reduction != "none") {
      if (reduction == "add")
        picked = g.build<AddOp>("combined" + tag, {y, picked});
      else if (reduction == "mul")
        picked = g.build<MulOp>("combined" + tag, {y, picked});
      else if (reduction == "max")
        picked = g.build<MaxOp>("combined" + tag, {y, picked});
      else if (reduction == "min")
        picked = g.build<MinOp>("combined" + tag, {y, picked});
      else
        return g.fail("unknown reduction '" + reduction.str() + "'");
    }
    y = picked ? g.build<WhereOp>(last ? "" : "layer" + tag, {mask, picked, y}, {}, g.outputElemType(0)) : Value();
  }
  return g.finish(y);
}

/// Records that update `u` lands on data element `target` (of `total`).
void place(Layers &layers, int64_t total, int64_t target, int64_t u, StringRef reduction) {
  size_t l = 0;
  if (reduction != "none")
    while (l < layers.size() && layers[l][target] >= 0)
      ++l;
  if (l == layers.size())
    layers.emplace_back(total, -1);
  layers[l][target] = u;
}

/// A scatter's `reduction` attribute as Top's enum; failure naming an unknown one.
FailureOr<ScatterReduce> scatterReduction(GraphImporter &g) {
  std::string text = g.attrString("reduction", "none");
  if (auto mode = symbolizeScatterReduce(text))
    return *mode;
  (void)g.fail("reduction '" + text + "' is not one of none, add, mul, max, min");
  return failure();
}

/// A scatter whose indices are only known at run time: one top.scatter_elements / top.scatter_nd, its
/// indices read by the kernel.
template <typename OpTy>
LogicalResult runtimeScatter(GraphImporter &g, ArrayRef<NamedAttribute> attrs) {
  auto mode = scatterReduction(g);
  if (failed(mode))
    return failure();
  SmallVector<NamedAttribute> all(attrs.begin(), attrs.end());
  all.push_back(g.named("reduction", ScatterReduceAttr::get(g.builder().getContext(), *mode)));
  return g.finish(g.build<OpTy>("", {g.input(0), g.input(1), g.input(2)}, all));
}

/// ScatterElements (and the older Scatter): indices known at import time become selects on known
/// positions, indices fed at run time a top.scatter_elements.
LogicalResult convertScatterElements(GraphImporter &g) {
  const HostTensor *ids = g.constInput(1);
  std::vector<int64_t> data = g.inputShape(0);
  int64_t rank = data.size();
  auto axis = g.normalizeAxis(g.attrInt("axis", 0), rank, "axis");
  if (failed(axis))
    return failure();
  if (!ids)
    return runtimeScatter<ScatterElementsOp>(g, {g.i64("axis", *axis)});
  std::vector<int64_t> ishape = ids->shape;
  if ((int64_t)ishape.size() != rank || g.inputShape(2) != ishape)
    return g.fail("'indices' and 'updates' must have the same shape and the rank of 'data'");
  std::string reduction = g.attrString("reduction", "none");
  std::vector<int64_t> strides = stridesOf(data);
  int64_t total = 1;
  for (int64_t d : data)
    total *= d;
  Layers layers;
  for (int64_t u = 0; u < ids->numel(); ++u) {
    int64_t rest = u, target = 0;
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t c = rest % ishape[d];
      rest /= ishape[d];
      if (d == *axis) {
        int64_t v = ids->intAt(u), size = data[d];
        if (v < -size || v >= size)
          return g.fail("index " + std::to_string(v) + " is out of range for axis " + std::to_string(d));
        c = v < 0 ? v + size : v;
      } else if (c >= data[d]) {
        return g.fail("'indices' is larger than 'data' on axis " + std::to_string(d));
      }
      target += c * strides[d];
    }
    place(layers, total, target, u, reduction);
  }
  if (layers.empty())
    return g.fail("empty 'indices' are not supported");
  return scatterByPositions(g, layers, reduction);
}

/// ScatterND; with indices known at import time every index tuple addresses a slice of `data`, which
/// becomes selects and arithmetic on known positions.
LogicalResult convertScatterND(GraphImporter &g) {
  const HostTensor *ids = g.constInput(1);
  if (!ids)
    return runtimeScatter<ScatterNDOp>(g, {});
  std::vector<int64_t> data = g.inputShape(0), ishape = ids->shape;
  int64_t r = data.size(), m = ishape.empty() ? 0 : ishape.back();
  if (m < 1 || m > r)
    return g.fail("the last indices axis (" + std::to_string(m) + ") must be in [1, data rank]");
  int64_t total = 1, slice = 1;
  for (int64_t d = 0; d < r; ++d)
    (d < m ? total : slice) *= data[d];
  total *= slice;
  std::string reduction = g.attrString("reduction", "none");
  Layers layers;
  int64_t tuples = ids->numel() / m;
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t pos = 0;
    for (int64_t j = 0; j < m; ++j) {
      int64_t size = data[j], v = ids->intAt(t * m + j);
      if (v < -size || v >= size)
        return g.fail("index " + std::to_string(v) + " is out of range for data axis " + std::to_string(j));
      pos = pos * size + (v < 0 ? v + size : v);
    }
    for (int64_t k = 0; k < slice; ++k)
      place(layers, total, pos * slice + k, t * slice + k, reduction);
  }
  if (layers.empty())
    return g.fail("empty 'indices' are not supported");
  return scatterByPositions(g, layers, reduction);
}

/// Imports If's subgraph `name` in place; `outs` receives one entry per node output.
LogicalResult importBranch(GraphImporter &g, const char *name, std::vector<TensorInfo> &outs) {
  const onnx::AttributeProto *branch = g.attr(name);
  if (!branch || !branch->has_g())
    return g.fail(std::string("no '") + name + "' subgraph");
  if (failed(g.importSubgraph(branch->g(), outs)))
    return failure();
  if (outs.size() != static_cast<size_t>(g.node().output_size()))
    return g.fail(std::string("'") + name + "' has " + std::to_string(outs.size()) +
                  " outputs for the node's " + std::to_string(g.node().output_size()));
  return success();
}

/// If whose condition is fed at run time: a top.if with each subgraph imported into its region. The regions
/// are isolated: outer values a branch reads become the op's inputs, outer weights are copied in. A
/// static-shape compiler needs the branches to agree on every output's shape and type; otherwise the
/// message points at fixing the condition at import.
LogicalResult convertRuntimeIf(GraphImporter &g) {
  std::vector<int64_t> condShape = g.inputShape(0);
  if (std::accumulate(condShape.begin(), condShape.end(), int64_t{1}, std::multiplies<int64_t>()) != 1)
    return g.fail("the condition has " + listText(condShape) + " elements, not one");
  const char *names[2] = {"then_branch", "else_branch"};
  const onnx::GraphProto *graphs[2];
  for (int b = 0; b < 2; ++b) {
    const onnx::AttributeProto *branch = g.attr(names[b]);
    if (!branch || !branch->has_g())
      return g.fail(std::string("no '") + names[b] + "' subgraph");
    graphs[b] = &branch->g();
  }
  Value cond = g.input(0);
  if (!cond)
    return failure();
  size_t numOutputs = static_cast<size_t>(g.node().output_size());
  // Results are placeholders until the branches are in: their yields give the types.
  SmallVector<Type> placeholders(numOutputs, UnrankedTensorType::get(g.builder().getF32Type()));
  auto op = IfOp::create(g.builder(), g.loc(), placeholders, cond, ValueRange());
  auto refuse = [&](const Twine &message) {
    op->erase();
    return g.fail(message);
  };
  Region *regions[2] = {&op.getThenBranch(), &op.getElseBranch()};
  Operation *yields[2];
  for (int b = 0; b < 2; ++b) {
    Block &block = regions[b]->emplaceBlock();
    if (failed(g.importRegion(*graphs[b], block))) {
      op->erase();
      return failure();
    }
    yields[b] = block.getTerminator();
    if (yields[b]->getNumOperands() != numOutputs)
      return refuse(std::string("'") + names[b] + "' has " + std::to_string(yields[b]->getNumOperands()) +
                    " outputs for the node's " + std::to_string(numOutputs));
  }
  for (size_t k = 0; k < numOutputs; ++k) {
    Value picked[2] = {yields[0]->getOperand(k), yields[1]->getOperand(k)};
    if (picked[0].getType() != picked[1].getType())
      return refuse("its condition is only known at run time and output " + std::to_string(k) +
                    " differs between the branches (" + listText(getShape(picked[0]).vec()) + " vs " +
                    listText(getShape(picked[1]).vec()) +
                    "); fix the graph inputs it depends on with --const_inputs NAME=VALUE");
    op->getResult(k).setType(picked[0].getType());
  }
  op.getInputsMutable().append(g.isolateRegions(regions));
  if (failed(g.finishRegionOp(op)))
    return failure();
  for (size_t k = 0; k < numOutputs; ++k)
    g.setOutput(k, op->getResult(k));
  return success();
}

/// If whose condition is known at import time (a constant, or computed from graph inputs fixed with
/// --const_inputs): the taken branch's nodes are imported in its place, the other branch is dropped.
LogicalResult convertIf(GraphImporter &g) {
  const HostTensor *cond = g.constInput(0);
  if (!cond)
    return convertRuntimeIf(g);
  if (cond->numel() != 1)
    return g.fail("the condition has " + std::to_string(cond->numel()) + " elements, not one");
  std::vector<TensorInfo> outs;
  if (failed(importBranch(g, cond->at(0) != 0 ? "then_branch" : "else_branch", outs)))
    return failure();
  for (size_t k = 0; k < outs.size(); ++k) {
    if (outs[k].value)
      g.setOutput(k, outs[k].value);
    else
      g.setConstOutput(k, *outs[k].constant);
  }
  return success();
}

/// OneHot: out = values[1] where the index (negative ones counting from the end) equals the position along
/// `axis`, values[0] elsewhere. `depth` fed at run time is the declared output's extent along `axis`.
LogicalResult convertOneHot(GraphImporter &g) {
  std::vector<int64_t> idxShape = g.inputShape(0);
  int64_t rank = static_cast<int64_t>(idxShape.size()) + 1;
  auto axis = g.normalizeAxis(g.attrInt("axis", -1), rank, "axis");
  if (failed(axis))
    return failure();
  int64_t depth;
  if (const HostTensor *d = g.constInput(1)) {
    if (d->numel() != 1)
      return g.fail("'depth' must hold one value, it has " + std::to_string(d->numel()));
    depth = static_cast<int64_t>(d->at(0));
  } else if (auto out = g.declaredShape(0); out && static_cast<int64_t>(out->size()) == rank) {
    depth = (*out)[*axis];
  } else {
    return g.fail("'depth' must be known at import time (or the output's shape declared)");
  }
  if (depth < 1 || depth > (1 << 24))
    return g.fail("'depth' " + std::to_string(depth) + " is out of range");
  if (g.inputShape(2) != std::vector<int64_t>{2})
    return g.fail("'values' must hold two values (off, on), it has shape " + listText(g.inputShape(2)));
  // The indices with a unit axis where the classes go, against the positions 0..depth-1 (and their
  // negative spelling, -depth..-1) laid along that axis.
  std::vector<int64_t> unsq = idxShape;
  unsq.insert(unsq.begin() + *axis, 1);
  Value idx = g.reshape(g.input(0), unsq, "indices");
  std::vector<int64_t> posShape(rank, 1);
  posShape[*axis] = depth;
  const bool floatIndices = isa<FloatType>(g.inputElemType(0));
  // first, first + 1, ..., first + depth - 1 along the axis, in the indices' kind of element.
  auto positions = [&](const char *what, int64_t first) {
    std::vector<int64_t> ints(depth);
    std::iota(ints.begin(), ints.end(), first);
    HostTensor t = floatIndices ? HostTensor::floats(posShape, std::vector<float>(ints.begin(), ints.end()))
                                : HostTensor::ints(posShape, ints);
    return g.materialize(g.nodeName() + "_" + what, t);
  };
  Value hit = compare(g, "is_class", idx, positions("classes", 0), CompareMode::eq);
  Value hitNeg = compare(g, "is_class_from_end", idx, positions("classes_from_end", -depth), CompareMode::eq);
  Value any = compare(g, "hot", hit, hitNeg, CompareMode::Or);
  Value off = g.sliceAxis(g.input(2), 0, 0, 1, "off"), on = g.sliceAxis(g.input(2), 0, 1, 2, "on");
  return g.finish(any && on && off ? g.build<WhereOp>("", {any, on, off}, {}, g.outputElemType(0)) : Value());
}

/// DynamicQuantizeLinear, as its ONNX function: a uint8 scale and zero point from the range of x
/// (widened to include 0), then QuantizeLinear.
LogicalResult convertDynamicQuantize(GraphImporter &g) {
  Value x = g.input(0);
  if (!x)
    return failure();
  std::vector<int64_t> axes(getShape(x).size());
  std::iota(axes.begin(), axes.end(), 0);
  auto reduce = [&](StringRef suffix, ReduceMode mode) {
    return g.build<ReduceOp>(suffix, {x},
                             {g.i64s("axes", axes), g.boolean("keepdims", false),
                              g.named("mode", ReduceModeAttr::get(g.builder().getContext(), mode))});
  };
  Value hi = constOp<MaxConstOp>(g, "range_max", reduce("max", ReduceMode::max), 0.0);
  Value lo = constOp<MinConstOp>(g, "range_min", reduce("min", ReduceMode::min), 0.0);
  Value width = hi && lo ? g.build<SubOp>("range", {hi, lo}) : Value();
  Value scale = constOp<DivConstOp>(g, "scale", width, 255.0);
  Value ratio = scale ? g.build<DivOp>("min_over_scale", {lo, scale}) : Value();
  Value zp = constOp<MulConstOp>(g, "zero_point_raw", ratio, -1.0);
  zp = zp ? g.build<ClipOp>("zero_point_saturated", {zp}, {g.f64("min", 0.0), g.f64("max", 255.0)}) : Value();
  zp = zp ? g.build<RoundOp>("zero_point_rounded", {zp}) : Value();
  Value q = scale ? g.build<DivOp>("scaled", {x, scale}) : Value();
  q = q ? g.build<RoundOp>("rounded", {q}) : Value();
  q = q && zp ? g.build<AddOp>("shifted", {q, zp}) : Value();
  q = q ? g.build<ClipOp>("saturated", {q}, {g.f64("min", 0.0), g.f64("max", 255.0)}) : Value();
  Type u8 = IntegerType::get(g.builder().getContext(), 8, IntegerType::Unsigned);
  Value y = q ? g.build<CastOp>("", {q}, {}, u8) : Value();
  Value zpOut = zp ? g.build<CastOp>("zero_point", {zp}, {}, u8) : Value();
  if (!y || !zpOut)
    return failure();
  g.setOutput(0, y);
  g.setOutput(1, scale);
  g.setOutput(2, zpOut);
  return success();
}

/// Einsum of one or two operands whose terms name each axis once (no ellipsis, no diagonals): every
/// operand is permuted into the order letters first appear and widened with 1s to all letters, the two are
/// multiplied with broadcasting, the letters missing from the output are summed away and the rest permuted
/// into the output's order. Without "->" the output is the letters used once, sorted.
LogicalResult convertEinsum(GraphImporter &g) {
  std::string eq;
  for (char c : g.attrString("equation", ""))
    if (c != ' ')
      eq += c;
  if (eq.find("...") != std::string::npos)
    return g.fail("equation '" + eq + "': ellipsis is not supported");
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow), out;
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  int n = g.node().input_size();
  if ((int)terms.size() != n || n < 1 || n > 2)
    return g.fail("equation '" + eq + "' must have one term per input (1 or 2 inputs are supported)");
  std::string all;
  std::map<char, int64_t> sizes, uses;
  for (int i = 0; i < n; ++i) {
    std::vector<int64_t> shape = g.inputShape(i);
    const std::string &t = terms[i];
    if (t.size() != shape.size())
      return g.fail("term '" + t + "' does not match the rank " + std::to_string(shape.size()) + " of input " +
                    std::to_string(i));
    for (size_t k = 0; k < t.size(); ++k) {
      char c = t[k];
      if (!std::isalpha((unsigned char)c))
        return g.fail("equation '" + eq + "': only letters name axes");
      if (t.find(c) != k)
        return g.fail("equation '" + eq + "': a letter repeated within one term (a diagonal) is not supported");
      if (sizes.count(c) && sizes[c] != shape[k])
        return g.fail("letter '" + std::string(1, c) + "' has sizes " + std::to_string(sizes[c]) + " and " +
                      std::to_string(shape[k]));
      if (!sizes.count(c))
        all += c;
      sizes[c] = shape[k];
      ++uses[c];
    }
  }
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
    for (size_t k = 0; k < out.size(); ++k)
      if (!sizes.count(out[k]) || out.find(out[k]) != k)
        return g.fail("equation '" + eq + "': output letter '" + std::string(1, out[k]) +
                      "' is repeated or not in an input");
  } else {
    for (auto &[c, count] : uses)
      if (count == 1)
        out += c;
  }
  // Every operand in `all` order, widened to all letters.
  Value acc;
  for (int i = 0; i < n; ++i) {
    const std::string &t = terms[i];
    std::vector<int64_t> perm, wide;
    for (char c : all)
      if (size_t k = t.find(c); k != std::string::npos)
        perm.push_back(k);
    for (char c : all)
      wide.push_back(t.find(c) != std::string::npos ? sizes[c] : 1);
    Value v = g.input(i);
    bool identity = std::is_sorted(perm.begin(), perm.end());
    if (v && !identity)
      v = g.build<PermuteOp>("permute" + std::to_string(i), {v}, {g.i64s("order", perm)});
    v = g.reshape(v, wide, "widen" + std::to_string(i));
    acc = i == 0 ? v : (acc && v ? g.build<MulOp>("product", {acc, v}) : Value());
  }
  if (!acc)
    return failure();
  std::vector<int64_t> summed;
  std::string kept;
  for (size_t k = 0; k < all.size(); ++k)
    (out.find(all[k]) == std::string::npos ? (void)summed.push_back(k) : (void)(kept += all[k]));
  bool needPermute = kept != out;
  if (!summed.empty())
    acc = g.build<ReduceOp>(needPermute ? "sum" : "", {acc},
                            {g.i64s("axes", summed), g.boolean("keepdims", false),
                             g.named("mode", ReduceModeAttr::get(g.builder().getContext(), ReduceMode::sum))});
  if (acc && needPermute) {
    std::vector<int64_t> perm;
    for (char c : out)
      perm.push_back(kept.find(c));
    acc = g.build<PermuteOp>("", {acc}, {g.i64s("order", perm)});
  }
  return g.finish(acc);
}

/// LRN: x / (bias + alpha / size * sum of x^2 over a window of `size` channels)^beta. The channel sum is an
/// average pool (padding counted) over the channel axis of x^2 viewed as [N, 1, C, rest].
LogicalResult convertLRN(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0);
  int64_t size = g.attrInt("size", 0);
  if (in.size() < 3 || size < 1)
    return g.fail("expects an input of rank >= 3 and a positive 'size'");
  double alpha = g.attrFloat("alpha", 1e-4), beta = g.attrFloat("beta", 0.75), bias = g.attrFloat("bias", 1.0);
  int64_t rest = 1;
  for (size_t d = 2; d < in.size(); ++d)
    rest *= in[d];
  Value x = g.input(0);
  Value sq = x ? g.build<MulOp>("square", {x, x}) : Value();
  Value view = g.reshape(sq, {in[0], 1, in[1], rest}, "channels");
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  Value avg = view ? g.build<AvgPoolOp>("window", {view},
                                        {g.i64s("kernel_shape", {size, 1}), g.i64s("strides", {1, 1}),
                                         g.i64s("pads", {before, 0, after, 0}), g.boolean("count_include_pad", true)})
                   : Value();
  Value mean = g.reshape(avg, in, "window_mean");
  Value scaled = constOp<MulConstOp>(g, "alpha", mean, alpha); // alpha / size * sum
  Value base = constOp<AddConstOp>(g, "bias", scaled, bias);
  Value denom = base ? g.build<PowOp>("power", {base}, {g.f64("exponent", beta)}) : Value();
  return g.finish(denom ? g.build<DivOp>("", {x, denom}) : Value());
}

/// Softsign: x / (1 + |x|).
LogicalResult convertSoftsign(GraphImporter &g) {
  Value x = g.input(0);
  Value mag = x ? g.build<AbsOp>("magnitude", {x}) : Value();
  Value den = constOp<AddConstOp>(g, "denominator", mag, 1.0);
  return g.finish(den ? g.build<DivOp>("", {x, den}) : Value());
}

/// BitShift of unsigned integers fed at run time, in f32 like the other integer composites (exact below
/// 2^24): LEFT is x * 2^y wrapped at the type's width (x * 2^y - 2^w * floor(x * 2^y / 2^w)), RIGHT is
/// floor(x / 2^y).
LogicalResult convertBitShift(GraphImporter &g) {
  auto type = dyn_cast<IntegerType>(g.outputElemType(0));
  if (!type || !type.isUnsigned())
    return g.fail("BitShift is defined on unsigned integers only");
  std::string direction = g.attrString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return g.fail("'direction' must be LEFT or RIGHT, got '" + direction + "'");
  Value x = asFloat(g, 0, "x_f32"), y = asFloat(g, 1, "shift_f32");
  Value two = scalar(g, "two", 2.0f);
  Value factor = two && y ? g.build<PowerOp>("factor", {two, y}) : Value();
  Value v;
  if (direction == "LEFT") {
    Value shifted = x && factor ? g.build<MulOp>("shifted", {x, factor}) : Value();
    double modulus = std::ldexp(1.0, type.getWidth());
    Value wraps = shifted
                      ? g.build<FloorOp>("wraps", {constOp<DivConstOp>(g, "over_width", shifted, modulus)})
                      : Value();
    Value wrapped = constOp<MulConstOp>(g, "wrapped", wraps, modulus);
    v = shifted && wrapped ? g.build<SubOp>("kept", {shifted, wrapped}) : Value();
  } else {
    Value q = x && factor ? g.build<DivOp>("quotient", {x, factor}) : Value();
    v = q ? g.build<FloorOp>("floor", {q}) : Value();
  }
  return g.finish(asOutputType(g, v));
}

} // namespace

void addCompositeConverters(OpTable &table) {
  table["Softsign"].convert = convertSoftsign;
  table["BitShift"].convert = convertBitShift;
  table["LRN"].convert = convertLRN;
  table["Einsum"].convert = convertEinsum;
  table["DynamicQuantizeLinear"].convert = convertDynamicQuantize;
  table["Scatter"].convert = convertScatterElements;
  table["ScatterElements"].convert = convertScatterElements;
  table["ScatterND"].convert = convertScatterND;
  table["If"].convert = convertIf;
  table["OneHot"].convert = convertOneHot;
  table["Elu"].convert = convertElu;
  table["Celu"].convert = convertCelu;
  table["Selu"].convert = convertSelu;
  table["Shrink"].convert = convertShrink;
  table["Mod"].convert = convertMod;
  table["DequantizeLinear"].convert = convertDequantize;
  table["QuantizeLinear"].convert = convertQuantize;
  table["MeanVarianceNormalization"].convert = convertMVN;
  table["ReverseSequence"].convert = convertReverseSequence;
}

LogicalResult convertIntegerDiv(GraphImporter &g) {
  Value a = asFloat(g, 0, "lhs_f32"), b = asFloat(g, 1, "rhs_f32");
  Value q = a && b ? g.build<DivOp>("quotient", {a, b}) : Value();
  return g.finish(asOutputType(g, truncate(g, q, "trunc")));
}

} // namespace tpuc::importer
