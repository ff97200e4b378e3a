//===- ConvertShape.cpp - ONNX data movement, reductions, resize, selection -===//
// Converters of the layout ops (Reshape, Transpose, Slice, ...), reductions, Resize/Upsample, TopK and
// ArgMax, GatherElements / CumSum (its axis possibly fed at run time) / Trilu / Hardmax, Compress and
// GatherND as gathers of positions (constant, or computed from indices fed at run time), and the shape-only
// constants EyeLike and the Hann/Hamming/Blackman windows. Their parameters come from OpParams so the
// import-time folders read them the same way.
//===----------------------------------------------------------------------===//
#include "OpParams.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace tpuc::top;

namespace tpuc::importer {
namespace {

int64_t product(const std::vector<int64_t> &shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<int64_t>());
}

/// A shape-only parameter fed at run time: output `i`'s shape as the model declares it, which the static
/// input and output shapes imply (GraphImporter::declaredShape); failure naming `what` when undeclared.
FailureOr<std::vector<int64_t>> impliedShape(GraphImporter &g, size_t i, StringRef what) {
  if (auto shape = g.declaredShape(i))
    return *shape;
  (void)g.fail(what + " must be known at import time (or the output's shape declared)");
  return failure();
}

/// The ONNX dtype of a Top integer element type (i1 is BOOL).
int32_t onnxIntegerDType(IntegerType t) {
  using P = onnx::TensorProto;
  switch (t.getWidth()) {
  case 1:
    return P::BOOL;
  case 8:
    return t.isUnsigned() ? P::UINT8 : P::INT8;
  case 16:
    return t.isUnsigned() ? P::UINT16 : P::INT16;
  case 32:
    return t.isUnsigned() ? P::UINT32 : P::INT32;
  default:
    return t.isUnsigned() ? P::UINT64 : P::INT64;
  }
}

/// The declared output shape as the reshape of input 0 it must be (same number of elements).
LogicalResult reshapeToDeclared(GraphImporter &g, StringRef what) {
  auto out = impliedShape(g, 0, what);
  if (failed(out))
    return failure();
  if (product(*out) != product(g.inputShape(0)))
    return g.fail("the declared output shape " + listText(*out) + " does not hold the input's " +
                  std::to_string(product(g.inputShape(0))) + " elements");
  return g.finish(g.reshape(g.input(0), *out, ""));
}

LogicalResult convertReshape(GraphImporter &g) {
  if (g.runtimeInput(1))
    return reshapeToDeclared(g, "the target shape");
  auto out = reshapeTarget(g, g.inputShape(0));
  return failed(out) ? failure() : g.finish(g.reshape(g.input(0), *out, ""));
}

LogicalResult convertFlatten(GraphImporter &g) {
  auto out = flattenTarget(g, g.inputShape(0));
  return failed(out) ? failure() : g.finish(g.reshape(g.input(0), *out, ""));
}

LogicalResult convertTranspose(GraphImporter &g) {
  auto perm = transposePerm(g, g.inputShape(0).size());
  if (failed(perm))
    return failure();
  return g.finish(g.build<PermuteOp>("", {g.input(0)}, {g.i64s("order", *perm)}));
}

LogicalResult convertSqueeze(GraphImporter &g) {
  if (g.opset() >= 13 && g.runtimeInput(1))
    return reshapeToDeclared(g, "input 'axes'");
  auto axes = squeezeAxes(g, g.inputShape(0));
  if (failed(axes))
    return failure();
  if (axes->empty())
    return g.finish(g.input(0));
  return g.finish(g.build<SqueezeOp>("", {g.input(0)}, {g.i64s("axes", *axes)}));
}

LogicalResult convertUnsqueeze(GraphImporter &g) {
  if (g.opset() >= 13 && g.runtimeInput(1))
    return reshapeToDeclared(g, "input 'axes'");
  auto axes = unsqueezeAxes(g, g.inputShape(0));
  if (failed(axes))
    return failure();
  return g.finish(g.build<UnsqueezeOp>("", {g.input(0)}, {g.i64s("axes", *axes)}));
}

LogicalResult convertConcat(GraphImporter &g) {
  std::vector<int64_t> first = g.inputShape(0);
  auto axis = g.normalizeAxis(g.attrInt("axis", 0), first.size(), "axis");
  if (failed(axis))
    return failure();
  // Empty pieces contribute nothing; exporters emit them for empty caches.
  SmallVector<Value> inputs;
  for (int k = 0; k < g.node().input_size(); ++k) {
    std::vector<int64_t> shape = g.inputShape(k);
    bool empty = std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d == 0; });
    if (!empty || (k == g.node().input_size() - 1 && inputs.empty()))
      inputs.push_back(g.input(k));
  }
  if (inputs.size() == 1)
    return g.finish(inputs[0]);
  return g.finish(g.build<ConcatOp>("", inputs, {g.i64("axis", *axis)}));
}

/// Slice with bounds fed at run time: top.dynamic_slice with the output shape the model declares (absent
/// axes and steps become their defaults, 0..n-1 and ones).
LogicalResult convertRuntimeSlice(GraphImporter &g) {
  auto declared = impliedShape(g, 0, "the bounds");
  if (failed(declared))
    return failure();
  std::vector<int64_t> starts = g.inputShape(1);
  if (starts.size() != 1)
    return g.fail("'starts' must be 1-D, got " + listText(starts));
  int64_t n = starts[0];
  int32_t dtype = onnxIntegerDType(cast<IntegerType>(g.inputElemType(1)));
  Value axes = g.hasInput(3) ? g.input(3) : Value();
  if (!g.hasInput(3)) {
    std::vector<int64_t> all(n);
    std::iota(all.begin(), all.end(), 0);
    axes = g.materialize(g.nodeName() + "_axes", HostTensor::ints({n}, all, dtype));
  }
  Value steps = g.hasInput(4) ? g.input(4)
                              : g.materialize(g.nodeName() + "_steps",
                                              HostTensor::ints({n}, std::vector<int64_t>(n, 1), dtype));
  Value x = g.input(0), s = g.input(1), e = g.input(2);
  if (!x || !s || !e || !axes || !steps)
    return failure();
  Type type = RankedTensorType::get(*declared, g.outputElemType(0));
  Operation *op = g.createTyped(DynamicSliceOp::getOperationName(), "", {x, s, e, axes, steps}, {}, {type});
  return g.finish(op ? op->getResult(0) : Value());
}

LogicalResult convertSlice(GraphImporter &g) {
  if (g.opset() >= 10 && (g.runtimeInput(1) || g.runtimeInput(2) || g.runtimeInput(3) || g.runtimeInput(4)))
    return convertRuntimeSlice(g);
  auto p = sliceParams(g, g.inputShape(0));
  if (failed(p))
    return failure();
  return g.finish(g.build<SliceOp>(
      "", {g.input(0)}, {g.i64s("offset", p->offset), g.i64s("steps", p->steps), g.i64s("ends", p->ends)}));
}

LogicalResult convertSplit(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0);
  auto axis = g.normalizeAxis(g.attrInt("axis", 0), in.size(), "axis");
  if (failed(axis))
    return failure();
  FailureOr<std::vector<int64_t>> sizes = failure();
  if (g.opset() >= 13 && g.runtimeInput(1)) {
    // The sizes fed at run time are the declared outputs' extents along the axis.
    std::vector<int64_t> along;
    for (int k = 0; k < g.node().output_size(); ++k) {
      auto out = impliedShape(g, k, "input 'split'");
      if (failed(out))
        return failure();
      if (out->size() != in.size())
        return g.fail("output #" + std::to_string(k) + " is declared with rank " + std::to_string(out->size()));
      along.push_back((*out)[*axis]);
    }
    if (std::accumulate(along.begin(), along.end(), int64_t{0}) != in[*axis])
      return g.fail("the declared outputs do not add up to the input's " + std::to_string(in[*axis]) +
                    " along axis " + std::to_string(*axis));
    sizes = along;
  } else {
    sizes = splitSizes(g, in, *axis);
  }
  if (failed(sizes))
    return failure();
  SmallVector<Type> elems;
  for (int k = 0; k < g.node().output_size(); ++k)
    elems.push_back(g.outputElemType(k));
  auto op = g.create<SplitOp>("", {g.input(0)}, {g.i64("axis", *axis), g.i64s("split_size", *sizes)}, elems);
  if (!op)
    return failure();
  for (int k = 0; k < g.node().output_size(); ++k)
    g.setOutput(k, op->getResult(k));
  return success();
}

LogicalResult convertGather(GraphImporter &g) {
  auto axis = g.normalizeAxis(g.attrInt("axis", 0), g.inputShape(0).size(), "axis");
  if (failed(axis))
    return failure();
  return g.finish(g.build<GatherOp>("", {g.input(0), g.input(1)}, {g.i64("axis", *axis)}));
}

LogicalResult convertPad(GraphImporter &g) {
  auto p = padParams(g, g.inputShape(0).size());
  if (failed(p))
    return failure();
  PadMode mode = p->mode == "reflect" ? PadMode::reflect
                 : p->mode == "edge"  ? PadMode::edge
                                      : PadMode::constant;
  return g.finish(g.build<PadOp>("", {g.input(0)},
                                  {g.i64s("paddings", p->pads), g.f64("val", p->value),
                                   g.named("pad_mode", PadModeAttr::get(g.builder().getContext(), mode))}));
}

/// ReduceX and the composed ReduceSumSquare / ReduceLogSum / ReduceLogSumExp.
enum class Pre { None, Square, Exp };
/// The axes of a Reduce whose `axes` input is fed at run time and which keeps its dimensions: those the
/// declared output shape shrank to 1. An axis already of size 1 reduces to itself in the modes that allow
/// this, so whether the run lists it does not matter.
FailureOr<std::vector<int64_t>> axesFromDeclaredShape(GraphImporter &g, const std::vector<int64_t> &in) {
  auto out = impliedShape(g, 0, "input 'axes'");
  if (failed(out))
    return failure();
  if (out->size() != in.size()) {
    (void)g.fail("the declared output shape " + listText(*out) + " does not keep the input's rank " +
                 std::to_string(in.size()));
    return failure();
  }
  std::vector<int64_t> axes;
  for (size_t k = 0; k < in.size(); ++k) {
    if ((*out)[k] == in[k])
      continue;
    if ((*out)[k] != 1) {
      (void)g.fail("the declared output shape " + listText(*out) + " is no reduction of " + listText(in));
      return failure();
    }
    axes.push_back(static_cast<int64_t>(k));
  }
  return axes;
}

template <ReduceMode Mode, Pre Before = Pre::None, bool LogAfter = false>
LogicalResult convertReduce(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0);
  // ReduceSum took its axes as an input from opset 13; the others only from opset 18.
  int64_t inputFrom = Mode == ReduceMode::sum && Before == Pre::None && !LogAfter ? 13 : 18;
  constexpr bool sizeOneIsIdentity = Mode == ReduceMode::sum || Mode == ReduceMode::mean ||
                                     Mode == ReduceMode::max || Mode == ReduceMode::min || Mode == ReduceMode::prod;
  const bool keepdims = g.attrInt("keepdims", 1) != 0;
  std::vector<int64_t> axes;
  bool identity = false; // nothing to reduce: the result is the (pre-processed) input
  if (sizeOneIsIdentity && keepdims && g.opset() >= inputFrom && g.runtimeInput(1)) {
    auto derived = axesFromDeclaredShape(g, in);
    if (failed(derived))
      return failure();
    axes = *derived;
    identity = axes.empty();
  } else {
    auto given = intsParam(g, "axes", inputFrom, 1);
    if (failed(given))
      return failure();
    if (*given && !(*given)->empty()) {
      auto normalized = normalizeAxes(g, **given, in.size());
      if (failed(normalized))
        return failure();
      axes = *normalized;
    } else if (g.attrInt("noop_with_empty_axes", 0)) {
      return g.finish(g.input(0));
    } else {
      for (size_t k = 0; k < in.size(); ++k)
        axes.push_back(k);
    }
  }
  std::sort(axes.begin(), axes.end());
  Value x = g.input(0);
  if (Before == Pre::Square)
    x = g.build<MulOp>("square", {x, x});
  else if (Before == Pre::Exp)
    x = g.build<ExpOp>("exp", {x});
  if (!x)
    return failure();
  Value y = identity ? x
                     : g.build<ReduceOp>(LogAfter ? "reduce" : "", {x},
                                         {g.i64s("axes", axes), g.boolean("keepdims", keepdims),
                                          g.named("mode", ReduceModeAttr::get(g.builder().getContext(), Mode))});
  if (LogAfter && y)
    y = g.build<LogOp>("", {y});
  return g.finish(y);
}

/// Resize (opset 10+) and Upsample (opset 7-9) on NCW / NCHW input.
LogicalResult convertResize(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0);
  int64_t rank = in.size();
  if (rank != 3 && rank != 4)
    return g.fail("only 3-D and 4-D inputs can be resized (input " + listText(in) + ")");
  bool upsample = g.node().op_type() == "Upsample";
  bool legacy = upsample || g.opset() < 11; // Upsample and Resize-10: asymmetric, nearest rounds down
  std::string mode = g.attrString("mode", "nearest");
  if (mode == "bilinear")
    mode = "linear";
  if (mode == "bicubic")
    mode = "cubic";
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return g.fail("resize mode '" + mode + "' is not supported (nearest, linear and cubic are)");
  if (g.attrInt("antialias", 0) != 0)
    return g.fail("antialias = 1 is not supported");
  // Resize-18's `axes` (scales or sizes of some axes only) and aspect-ratio policies.
  if (std::string policy = g.attrString("keep_aspect_ratio_policy", "stretch"); policy != "stretch")
    return g.fail("keep_aspect_ratio_policy '" + policy + "' is not supported (stretch is)");
  if (g.hasAttr("axes")) {
    std::vector<int64_t> axes = g.attrInts("axes");
    for (int64_t &a : axes)
      a = a < 0 ? a + rank : a;
    std::vector<int64_t> all(rank);
    std::iota(all.begin(), all.end(), 0);
    if (axes != all)
      return g.fail("'axes' " + listText(g.attrInts("axes")) +
                    " is not supported (only every axis in order)");
  }
  std::string coord = legacy ? "asymmetric" : g.attrString("coordinate_transformation_mode", "half_pixel");
  std::string nearestMode = legacy ? "floor" : g.attrString("nearest_mode", "round_prefer_floor");

  // Target size: from `sizes`, or floor(in * scale) from `scales`. Top resizes by the ratio of the sizes and
  // ONNX by the scale; they agree when the sizes are whole, otherwise the scales go along as an operand.
  std::vector<double> scales;
  std::vector<int64_t> out;
  // The scales as an operand: fed at run time, or known but giving a fractional size (ONNX then maps
  // coordinates by the scale, not by out / in).
  Value scalesOperand;
  size_t scalesIndex = upsample || g.opset() < 11 ? 1 : 2;
  if (upsample && g.opset() < 9) {
    for (float s : g.attrFloats("scales"))
      scales.push_back(s);
  } else if (const HostTensor *s = g.constInput(scalesIndex); s && s->numel() > 0) {
    for (int64_t k = 0; k < s->numel(); ++k)
      scales.push_back(s->at(k));
  } else if (const HostTensor *sz = g.constInput(3); !legacy && sz && sz->numel() > 0) {
    out = sz->toInts();
  } else if (g.runtimeInput(scalesIndex) && !(upsample && g.opset() < 9)) {
    // Scales fed at run time: the declared output is their floor(in * scale); the kernel maps by them.
    auto declared = impliedShape(g, 0, "'scales'");
    if (failed(declared))
      return failure();
    out = *declared;
    scalesOperand = g.input(scalesIndex);
    if (!scalesOperand)
      return failure();
  } else if (!legacy && g.runtimeInput(3)) {
    // `sizes` fed at run time: a static-shape model's declared output is what they must be.
    auto declared = impliedShape(g, 0, "'sizes'");
    if (failed(declared))
      return failure();
    out = *declared;
  } else {
    return g.fail("the scales or sizes must be known at import time");
  }
  if (!scales.empty()) {
    if ((int64_t)scales.size() != rank)
      return g.fail("'scales' has " + std::to_string(scales.size()) + " values for rank " +
                    std::to_string(rank));
    for (int64_t k = 0; k < rank; ++k) {
      double exact = in[k] * scales[k];
      if (!std::isfinite(exact) || exact < 1 || exact > (1 << 24))
        return g.fail("scale " + std::to_string(scales[k]) + " on axis " + std::to_string(k) +
                      " is out of range");
      bool whole = std::abs(exact - std::round(exact)) <= 1e-4 * std::max(1.0, exact);
      out.push_back(whole ? std::llround(exact) : (int64_t)std::floor(exact));
      if (!whole && !scalesOperand) {
        std::vector<float> given(scales.begin(), scales.end());
        scalesOperand = g.materialize(g.nodeName() + "_scales", HostTensor::floats({rank}, given));
        if (!scalesOperand)
          return failure();
      }
    }
  }
  if ((int64_t)out.size() != rank)
    return g.fail("'sizes' has " + std::to_string(out.size()) + " values for rank " + std::to_string(rank));
  for (int64_t size : out)
    if (size < 1 || size > (1 << 24))
      return g.fail("output size " + std::to_string(size) + " is out of range");
  if (out[0] != in[0] || out[1] != in[1])
    return g.fail("resizing the batch or channel axis is not supported");

  CoordMode coordMode;
  if (coord == "half_pixel")
    coordMode = CoordMode::half_pixel;
  else if (coord == "pytorch_half_pixel")
    coordMode = CoordMode::pytorch_half_pixel;
  else if (coord == "align_corners")
    coordMode = CoordMode::align_corners;
  else if (coord == "asymmetric")
    coordMode = CoordMode::asymmetric;
  else if (coord == "tf_half_pixel_for_nn" && mode == "nearest")
    coordMode = CoordMode::tf_half_pixel_for_nn;
  else
    return g.fail("coordinate_transformation_mode '" + coord + "' is not supported" +
                  (mode == "nearest" ? "" : " with mode '" + mode + "'"));
  std::vector<int64_t> target(out.begin() + 2, out.end());
  MLIRContext *ctx = g.builder().getContext();
  std::vector<NamedAttribute> attrs{
      g.i64s("target_shape", target),
      g.named("mode", InterpModeAttr::get(ctx, mode == "linear"  ? InterpMode::linear
                                               : mode == "cubic" ? InterpMode::cubic
                                                                 : InterpMode::nearest)),
      g.named("coord_mode", CoordModeAttr::get(ctx, coordMode))};
  if (mode == "cubic") {
    attrs.push_back(g.f64("cubic_coeff_a", g.attrFloat("cubic_coeff_a", -0.75)));
    if (g.attrInt("exclude_outside", 0) != 0)
      attrs.push_back(g.boolean("exclude_outside", true));
  }
  if (mode == "nearest") {
    // Top's default rounding is floor for asymmetric coordinates and round_prefer_floor otherwise; any
    // other rounding is spelled out. Asymmetric with round_prefer_floor agrees with floor when every ratio
    // is 1, 2 or 1/m.
    bool ratiosFloorSafe = true;
    for (int64_t k = 2; k < rank; ++k)
      ratiosFloorSafe &= out[k] == in[k] || out[k] == 2 * in[k] || (out[k] > 0 && in[k] % out[k] == 0);
    bool isDefault = coordMode == CoordMode::asymmetric
                         ? nearestMode == "floor" ||
                               (nearestMode == "round_prefer_floor" && ratiosFloorSafe && !scalesOperand)
                         : nearestMode == "round_prefer_floor";
    std::optional<NearestMode> rounding = nearestMode == "round_prefer_floor"  ? NearestMode::round_prefer_floor
                                          : nearestMode == "round_prefer_ceil" ? NearestMode::round_prefer_ceil
                                          : nearestMode == "floor"             ? NearestMode::floor
                                          : nearestMode == "ceil"              ? NearestMode::ceil
                                                                               : std::optional<NearestMode>();
    if (!rounding)
      return g.fail("nearest_mode '" + nearestMode + "' is not supported");
    if (!isDefault)
      attrs.push_back(g.named("nearest_mode", NearestModeAttr::get(ctx, *rounding)));
  }
  if (scalesOperand && !isa<FloatType>(GraphImporter::elementTypeOf(scalesOperand)))
    return g.fail("'scales' must be floating-point");
  SmallVector<Value> operands{g.input(0)};
  if (scalesOperand)
    operands.push_back(scalesOperand);
  return g.finish(g.build<InterpOp>("", operands, attrs));
}

template <bool Inverse> LogicalResult convertDepthToSpace(GraphImporter &g) {
  int64_t block = g.attrInt("blocksize", 0);
  if (block < 1 || block > (1 << 12))
    return g.fail("'blocksize' " + std::to_string(block) + " is out of range");
  std::string mode = Inverse ? "DCR" : g.attrString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    return g.fail("mode '" + mode + "' is not supported");
  auto d2s = Depth2SpaceModeAttr::get(g.builder().getContext(),
                                      mode == "CRD" ? Depth2SpaceMode::crd : Depth2SpaceMode::dcr);
  return g.finish(g.build<Depth2SpaceOp>("", {g.input(0)},
                                          {g.i64("block_h", block), g.i64("block_w", block),
                                           g.named("d2s_mode", d2s), g.boolean("is_inversed", Inverse)}));
}

LogicalResult convertTopK(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0);
  auto axis = g.normalizeAxis(g.attrInt("axis", -1), in.size(), "axis");
  if (failed(axis))
    return failure();
  int64_t k;
  if (g.opset() < 10) {
    k = g.attrInt("k", 0);
  } else if (g.runtimeInput(1)) {
    // K fed at run time is the declared values' extent along the axis.
    auto out = impliedShape(g, 0, "'K'");
    if (failed(out))
      return failure();
    if (out->size() != in.size())
      return g.fail("the values are declared with rank " + std::to_string(out->size()));
    k = (*out)[*axis];
  } else {
    const HostTensor *kIn = g.constInput(1);
    if (!kIn || kIn->numel() != 1)
      return g.fail("'K' must be a scalar known at import time");
    k = kIn->intAt(0);
  }
  auto op = g.create<TopKOp>("", {g.input(0)},
                             {g.i64("axis", *axis), g.i64("k", k),
                              g.boolean("largest", g.attrInt("largest", 1)), g.boolean("sorted", true)},
                             {g.outputElemType(0), g.outputElemType(1)});
  if (!op)
    return failure();
  g.setOutput(0, op.getValues());
  g.setOutput(1, op.getIndices());
  return success();
}

/// ArgMax / ArgMin: the indices of a top-1 (ties keep the first index). With select_last_index the axis is
/// reversed first (a slice with step -1) and the index mapped back: dim - 1 - i.
template <bool Largest> LogicalResult convertArgExtreme(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0);
  auto axis = g.normalizeAxis(g.attrInt("axis", 0), in.size(), "axis");
  if (failed(axis))
    return failure();
  bool keep = g.attrInt("keepdims", 1) != 0, last = g.attrInt("select_last_index", 0) != 0;
  Value x = g.input(0);
  if (last && x) {
    std::vector<int64_t> offset(in.size(), 0), steps(in.size(), 1), ends = in;
    offset[*axis] = in[*axis] - 1;
    steps[*axis] = -1;
    ends[*axis] = -1;
    x = g.build<SliceOp>("reverse", {x},
                         {g.i64s("offset", offset), g.i64s("steps", steps), g.i64s("ends", ends)});
  }
  if (!x)
    return failure();
  auto op = g.create<TopKOp>(
      keep && !last ? "" : "topk", {x},
      {g.i64("axis", *axis), g.i64("k", 1), g.boolean("largest", Largest), g.boolean("sorted", true)},
      {GraphImporter::elementTypeOf(x), g.outputElemType(0)});
  if (!op)
    return failure();
  Value y = op.getIndices();
  if (last) {
    Value negated = g.build<MulConstOp>("negate", {y}, {g.f64("const_val", -1.0)});
    y = negated ? g.build<AddConstOp>(keep ? "" : "unreverse", {negated}, {g.f64("const_val", in[*axis] - 1)})
                : Value();
  }
  if (!keep && y)
    y = g.build<SqueezeOp>("", {y}, {g.i64s("axes", {*axis})});
  return g.finish(y);
}

/// Repeats `x` `times` times along `axis` with a concat (exact data movement, no new op needed).
Value repeatAlong(GraphImporter &g, Value x, int64_t axis, int64_t times, StringRef suffix) {
  if (times == 1 || !x)
    return x;
  if (times < 1 || times > 4096) {
    (void)g.fail("repeating an axis " + std::to_string(times) + " times is not supported (1 to 4096)");
    return {};
  }
  SmallVector<Value> copies(times, x);
  return g.build<ConcatOp>(suffix, copies, {g.i64("axis", axis)});
}

/// Expand: reshape to the output rank, then repeat every size-1 axis that grows.
LogicalResult convertExpand(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0);
  FailureOr<std::vector<int64_t>> out = g.runtimeInput(1) ? impliedShape(g, 0, "the target shape") : expandTarget(g, in);
  if (failed(out))
    return failure();
  if (out->size() < in.size())
    return g.fail("the output rank " + std::to_string(out->size()) + " is below the input's");
  for (size_t k = 0; k < in.size(); ++k) {
    int64_t o = (*out)[out->size() - in.size() + k];
    if (in[k] != o && in[k] != 1)
      return g.fail("the input " + listText(in) + " does not broadcast to " + listText(*out));
  }
  std::vector<int64_t> padded(out->size() - in.size(), 1);
  padded.insert(padded.end(), in.begin(), in.end());
  std::vector<int64_t> grow;
  for (size_t k = 0; k < out->size(); ++k)
    if (padded[k] != (*out)[k])
      grow.push_back(k);
  Value x = g.reshape(g.input(0), padded, grow.empty() ? "" : "rank");
  for (size_t j = 0; j < grow.size() && x; ++j)
    x = repeatAlong(g, x, grow[j], (*out)[grow[j]],
                    j + 1 == grow.size() ? "" : "axis" + std::to_string(grow[j]));
  return g.finish(x);
}

LogicalResult convertTile(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0);
  FailureOr<std::vector<int64_t>> repeats = failure();
  if (g.runtimeInput(1)) {
    // Repeats fed at run time: the declared output over the input, axis by axis.
    auto out = impliedShape(g, 0, "'repeats'");
    if (failed(out))
      return failure();
    if (out->size() != in.size())
      return g.fail("the output is declared with rank " + std::to_string(out->size()));
    std::vector<int64_t> r;
    for (size_t k = 0; k < in.size(); ++k) {
      if (in[k] == 0 || (*out)[k] % in[k])
        return g.fail("the declared output " + listText(*out) + " is no tiling of " + listText(in));
      r.push_back((*out)[k] / in[k]);
    }
    repeats = r;
  } else {
    repeats = tileRepeats(g, in);
  }
  if (failed(repeats))
    return failure();
  if (std::find(repeats->begin(), repeats->end(), 0) != repeats->end())
    return g.fail("'repeats' of 0 (an empty result) is not supported");
  std::vector<int64_t> grow;
  for (size_t k = 0; k < in.size(); ++k)
    if ((*repeats)[k] != 1)
      grow.push_back(k);
  Value x = g.input(0);
  for (size_t j = 0; j < grow.size() && x; ++j)
    x = repeatAlong(g, x, grow[j], (*repeats)[grow[j]],
                    j + 1 == grow.size() ? "" : "axis" + std::to_string(grow[j]));
  return g.finish(x);
}


/// NonZero of a tensor fed at run time: its extent is the data's, so the result takes the shape the model
/// declares and a run with another count fails naming both.
LogicalResult convertNonZero(GraphImporter &g) {
  auto out = impliedShape(g, 0, "the number of non-zero elements");
  if (failed(out))
    return failure();
  int64_t rank = g.inputShape(0).size();
  if (out->size() != 2 || (*out)[0] != rank)
    return g.fail("the declared output shape " + listText(*out) + " is not [" + std::to_string(rank) + ", n]");
  Type type = RankedTensorType::get(*out, g.builder().getI64Type());
  Operation *op = g.createTyped(NonZeroOp::getOperationName(), "", {g.input(0)}, {}, {type});
  return g.finish(op ? op->getResult(0) : Value());
}

/// Unique: the number of distinct values is the data's, so the results take the shapes the model declares
/// for them (the distinct values' is enough: the index lists follow from it).
LogicalResult convertUnique(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0);
  std::vector<NamedAttribute> attrs{g.boolean("sorted", g.attrInt("sorted", 1) != 0)};
  std::optional<int64_t> axis;
  if (g.hasAttr("axis")) {
    auto normalized = g.normalizeAxis(g.attrInt("axis", 0), in.size(), "axis");
    if (failed(normalized))
      return failure();
    axis = *normalized;
    attrs.push_back(g.i64("axis", *axis));
  }
  auto y = impliedShape(g, 0, "the number of distinct values");
  if (failed(y))
    return failure();
  int64_t total = 1;
  for (int64_t d : in)
    total *= d;
  if (y->size() != (axis ? in.size() : 1))
    return g.fail("the declared output shape " + listText(*y) + " does not fit an input of rank " +
                  std::to_string(in.size()) + (axis ? " with an axis" : " without an axis (1-D)"));
  int64_t n = (*y)[axis.value_or(0)], all = axis ? in[*axis] : total;
  Type i64 = g.builder().getI64Type();
  SmallVector<Type> types{RankedTensorType::get(*y, g.outputElemType(0)), RankedTensorType::get({n}, i64),
                          RankedTensorType::get({all}, i64), RankedTensorType::get({n}, i64)};
  Operation *op = g.createTyped(UniqueOp::getOperationName(), "", {g.input(0)}, attrs, types);
  if (!op)
    return failure();
  for (unsigned i = 0; i < 4; ++i)
    g.setOutput(i, op->getResult(i));
  return success();
}

LogicalResult convertGatherElements(GraphImporter &g) {
  auto axis = g.normalizeAxis(g.attrInt("axis", 0), g.inputShape(0).size(), "axis");
  if (failed(axis))
    return failure();
  return g.finish(g.build<GatherElementsOp>("", {g.input(0), g.input(1)}, {g.i64("axis", *axis)}));
}

/// CumSum along `axis`. An axis fed at run time selects among the sums along every axis of the (static)
/// rank: where(axis is k, cumsum_k, ...), innermost an out-of-range axis's NaN (zero for integers), so a
/// bad axis shows instead of passing for another axis's sum.
LogicalResult convertCumSum(GraphImporter &g) {
  int64_t rank = g.inputShape(0).size();
  auto sumAlong = [&](int64_t axis, StringRef suffix) {
    return g.build<CumSumOp>(suffix, {g.input(0)},
                             {g.i64("axis", axis), g.boolean("exclusive", g.attrInt("exclusive", 0) != 0),
                              g.boolean("reverse", g.attrInt("reverse", 0) != 0)});
  };
  if (const HostTensor *a = g.constInput(1)) {
    if (a->numel() != 1)
      return g.fail("'axis' must be a scalar");
    auto axis = g.normalizeAxis(a->intAt(0), rank, "axis");
    return failed(axis) ? failure() : g.finish(sumAlong(*axis, ""));
  }
  std::vector<int64_t> axisShape = g.inputShape(1);
  if (axisShape.size() > 1 || (axisShape.size() == 1 && axisShape[0] != 1))
    return g.fail("'axis' must be a scalar, got shape " + listText(axisShape));
  Type elem = g.outputElemType(0);
  HostTensor invalid =
      HostTensor::filled({}, isa<FloatType>(elem) ? onnx::TensorProto::FLOAT : onnx::TensorProto::INT64,
                         isa<FloatType>(elem) ? std::nan("") : 0.0);
  if (!isa<FloatType>(elem))
    invalid = invalid.castTo(onnxIntegerDType(cast<IntegerType>(elem)));
  Value y = g.materialize(g.nodeName() + "_invalid_axis", invalid);
  auto eq = CompareModeAttr::get(g.builder().getContext(), CompareMode::eq);
  auto orMode = CompareModeAttr::get(g.builder().getContext(), CompareMode::Or);
  Type i1 = g.builder().getI1Type();
  int32_t axisDType = onnxIntegerDType(cast<IntegerType>(g.inputElemType(1)));
  for (int64_t k = rank - 1; k >= 0 && y; --k) {
    std::string tag = "axis" + std::to_string(k);
    Value sum = sumAlong(k, tag);
    Value pos = g.materialize(g.nodeName() + "_" + tag, HostTensor::ints(axisShape, {k}, axisDType));
    Value neg = g.materialize(g.nodeName() + "_" + tag + "_from_end",
                              HostTensor::ints(axisShape, {k - rank}, axisDType));
    Value isPos =
        pos ? g.build<CompareOp>(tag + "_given", {g.input(1), pos}, {g.named("mode", eq)}, i1) : Value();
    Value isNeg =
        neg ? g.build<CompareOp>(tag + "_given_from_end", {g.input(1), neg}, {g.named("mode", eq)}, i1)
            : Value();
    Value is = isPos && isNeg
                   ? g.build<CompareOp>(tag + "_chosen", {isPos, isNeg}, {g.named("mode", orMode)}, i1)
                   : Value();
    y = sum && is ? g.build<WhereOp>(k == 0 ? "" : tag + "_or_later", {is, sum, y}, {}, elem) : Value();
  }
  return g.finish(y);
}

/// Trilu: a where() over the last two axes (j - i >= k keeps the upper triangle, j - i <= k the lower
/// one): a constant mask when `k` is known at import time, else the comparison of a constant j - i ramp
/// with the scalar k at run time.
LogicalResult convertTrilu(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0);
  if (in.size() < 2)
    return g.fail("expects an input of rank >= 2, got rank " + std::to_string(in.size()));
  bool upper = g.attrInt("upper", 1) != 0;
  int64_t rows = in[in.size() - 2], cols = in.back();
  int64_t k = 0;
  Value keep;
  if (g.hasInput(1) && !g.constInput(1)) {
    if (g.inputShape(1).size() > 1 || (!g.inputShape(1).empty() && g.inputShape(1)[0] != 1))
      return g.fail("'k' must be a scalar");
    std::vector<int64_t> diff(rows * cols);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        diff[i * cols + j] = j - i;
    Value ramp = g.materialize(g.nodeName() + "_diagonal", HostTensor::ints({rows, cols}, diff));
    Value kv = g.input(1);
    if (!ramp || !kv)
      return failure();
    auto mode = CompareModeAttr::get(g.builder().getContext(), upper ? CompareMode::ge : CompareMode::le);
    keep = g.build<CompareOp>("mask", {ramp, kv}, {g.named("mode", mode)}, g.builder().getI1Type());
  } else {
    if (g.hasInput(1)) {
      const HostTensor *kt = g.constInput(1);
      if (kt->numel() != 1)
        return g.fail("'k' must be a scalar");
      k = kt->intAt(0);
    }
    std::vector<int64_t> mask(rows * cols);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        mask[i * cols + j] = upper ? (j - i >= k) : (j - i <= k);
    keep = g.materialize(g.nodeName() + "_mask", HostTensor::ints({rows, cols}, mask, onnx::TensorProto::BOOL));
  }
  Type elem = g.inputElemType(0);
  HostTensor zeroValue = isa<FloatType>(elem) ? HostTensor::floats({}, {0.0f})
                                              : HostTensor::ints({}, {0}, onnx::TensorProto::INT64);
  Value zero = g.materialize(g.nodeName() + "_zero", zeroValue);
  Value x = g.input(0);
  if (!keep || !zero || !x)
    return failure();
  return g.finish(g.build<WhereOp>("", {keep, x, zero}));
}
/// Hardmax (opset 13+): 1 at the first maximum along `axis`, else 0; a top-1 whose index is compared
/// with a constant 0..C-1 ramp along the axis.
LogicalResult convertHardmax(GraphImporter &g) {
  if (g.opset() < 13)
    return g.fail("Hardmax before opset 13 (on the input coerced to 2-D) is not supported");
  std::vector<int64_t> in = g.inputShape(0);
  auto axis = g.normalizeAxis(g.attrInt("axis", -1), in.size(), "axis");
  Value x = g.input(0);
  if (failed(axis) || !x)
    return failure();
  Type i64 = g.builder().getI64Type(), i1 = g.builder().getI1Type();
  auto top1 = g.create<TopKOp>(
      "top1", {x}, {g.i64("axis", *axis), g.i64("k", 1), g.boolean("largest", true), g.boolean("sorted", true)},
      {GraphImporter::elementTypeOf(x), i64});
  std::vector<int64_t> rampShape(in.size(), 1), ramp(in[*axis]);
  rampShape[*axis] = in[*axis];
  std::iota(ramp.begin(), ramp.end(), 0);
  Value r = g.materialize(g.nodeName() + "_ramp", HostTensor::ints(rampShape, ramp));
  if (!top1 || !r)
    return failure();
  auto eq = CompareModeAttr::get(g.builder().getContext(), CompareMode::eq);
  Operation *hit =
      g.createOp(CompareOp::getOperationName(), "is_max", {top1.getIndices(), r}, {g.named("mode", eq)}, {i1});
  if (!hit)
    return failure();
  Operation *y = g.createOp(CastOp::getOperationName(), "", {hit->getResult(0)}, {}, {g.outputElemType(0)});
  return g.finish(y ? y->getResult(0) : Value());
}
/// EyeLike: its result depends only on the input's shape, so it is a constant (of the input's dtype unless
/// 'dtype' says otherwise).
LogicalResult convertEyeLike(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0);
  if (in.size() != 2)
    return g.fail("expects a 2-D input, got rank " + std::to_string(in.size()));
  int32_t dtype = onnx::TensorProto::FLOAT;
  if (g.hasAttr("dtype"))
    dtype = (int32_t)g.attrInt("dtype", dtype);
  else if (const HostTensor *x = g.constInput(0))
    dtype = x->dtype;
  else if (auto it = dyn_cast<IntegerType>(g.inputElemType(0)))
    dtype = onnxIntegerDType(it);
  if (!isSupportedDType(dtype))
    return g.fail("dtype " + dtypeName(dtype) + " is not supported");
  int64_t k = g.attrInt("k", 0);
  HostTensor eye = HostTensor::filled(in, dtype, 0);
  for (int64_t i = 0; i < in[0]; ++i)
    if (i + k >= 0 && i + k < in[1])
      eye.set(i * in[1] + i + k, 1);
  g.setConstOutput(0, std::move(eye));
  return success();
}

/// Compress: a gather of the selected positions (of the flattened input when there is no axis). The
/// positions are known at import time for a known condition; for one fed at run time they are its
/// top.nonzero, whose count the declared output shape gives (a run selecting another count fails).
LogicalResult convertCompress(GraphImporter &g) {
  const HostTensor *cond = g.constInput(1);
  std::vector<int64_t> in = g.inputShape(0);
  Value x = g.input(0);
  int64_t axis = 0;
  if (g.hasAttr("axis")) {
    auto normalized = g.normalizeAxis(g.attrInt("axis", 0), in.size(), "axis");
    if (failed(normalized))
      return failure();
    axis = *normalized;
  } else {
    int64_t n = 1;
    for (int64_t d : in)
      n *= d;
    x = g.reshape(x, {n}, "flat");
    in = {n};
  }
  if (!cond) {
    auto out = impliedShape(g, 0, "'condition'");
    if (failed(out))
      return failure();
    if (out->size() != in.size() || (*out)[axis] < 1)
      return g.fail("the declared output shape " + listText(*out) + " selects nothing along the axis");
    std::vector<int64_t> condShape = g.inputShape(1);
    if (condShape.size() != 1 || condShape[0] > in[axis])
      return g.fail("'condition' " + listText(condShape) + " must be 1-D, at most as long as the axis");
    Type type = RankedTensorType::get({1, (*out)[axis]}, g.builder().getI64Type());
    Operation *nz = g.createTyped(NonZeroOp::getOperationName(), "positions", {g.input(1)}, {}, {type});
    Value positions = nz ? g.reshape(nz->getResult(0), {(*out)[axis]}, "positions_flat") : Value();
    return g.finish(x && positions ? g.build<GatherOp>("", {x, positions}, {g.i64("axis", axis)}) : Value());
  }
  std::vector<int64_t> picked;
  for (int64_t k = 0; k < cond->numel() && k < in[axis]; ++k)
    if (cond->at(k) != 0)
      picked.push_back(k);
  if (picked.empty())
    return g.fail("the condition selects nothing (empty results are not supported)");
  Value idx = g.materialize(g.nodeName() + "_indices", HostTensor::ints({(int64_t)picked.size()}, picked));
  return g.finish(x && idx ? g.build<GatherOp>("", {x, idx}, {g.i64("axis", axis)}) : Value());
}

/// GatherND's flat positions for indices fed at run time, computed with Top ops: each tuple's coordinates
/// (negative ones from the end) times the strides of the indexed axes, plus the batch's offset.
Value runtimePositions(GraphImporter &g, const std::vector<int64_t> &data, const std::vector<int64_t> &ishape,
                       int64_t b, int64_t m, int64_t indexed, int64_t tuples) {
  Value ids = g.input(1);
  if (!ids)
    return {};
  Type elem = GraphImporter::elementTypeOf(ids);
  int32_t dtype = onnxIntegerDType(cast<IntegerType>(elem));
  std::vector<int64_t> colShape = ishape;
  colShape.back() = 1;
  Value zero = g.materialize(g.nodeName() + "_zero", HostTensor::ints({1}, {0}, dtype));
  auto lt = CompareModeAttr::get(g.builder().getContext(), CompareMode::lt);
  Value pos;
  int64_t stride = 1;
  for (int64_t j = m - 1; j >= 0 && zero; --j) {
    std::string tag = "coord" + std::to_string(j);
    int64_t size = data[b + j];
    Value col = g.sliceAxis(ids, ishape.size() - 1, j, j + 1, tag);
    Value neg = col ? g.build<CompareOp>(tag + "_negative", {col, zero}, {g.named("mode", lt)},
                                         g.builder().getI1Type())
                    : Value();
    Value wrapped =
        col ? g.build<AddConstOp>(tag + "_from_end", {col}, {g.f64("const_val", (double)size)}, elem)
            : Value();
    Value fixed =
        neg && wrapped ? g.build<WhereOp>(tag + "_positive", {neg, wrapped, col}, {}, elem) : Value();
    Value term = fixed && stride != 1 ? g.build<MulConstOp>(tag + "_offset", {fixed},
                                                            {g.f64("const_val", (double)stride)}, elem)
                                      : fixed;
    pos = pos && term ? g.build<AddOp>(tag + "_position", {term, pos}, {}, elem) : term;
    stride *= size;
  }
  if (pos && b > 0) {
    int64_t perBatch =
        tuples / std::max<int64_t>(1, product(std::vector<int64_t>(data.begin(), data.begin() + b)));
    std::vector<int64_t> base(tuples);
    for (int64_t t = 0; t < tuples; ++t)
      base[t] = (t / perBatch) * indexed;
    Value offsets = g.materialize(g.nodeName() + "_batch_offsets", HostTensor::ints(colShape, base, dtype));
    pos = offsets ? g.build<AddOp>("batch_position", {pos, offsets}, {}, elem) : Value();
  }
  return pos ? g.reshape(pos, {tuples}, "positions") : Value();
}

/// GatherND: the indexed leading axes of `data` (and the batch axes) are flattened into one, and a gather
/// with the flat positions picks the slices. Indices known at import time give constant positions (range
/// checked here); indices fed at run time are turned into positions by Top ops.
LogicalResult convertGatherND(GraphImporter &g) {
  const HostTensor *ids = g.constInput(1);
  std::vector<int64_t> data = g.inputShape(0), ishape = g.inputShape(1);
  int64_t b = g.attrInt("batch_dims", 0), r = data.size(), q = ishape.size();
  if (q < 1 || b < 0 || b >= std::min(r, q))
    return g.fail("'batch_dims' " + std::to_string(b) + " does not fit data rank " + std::to_string(r) +
                  " and indices rank " + std::to_string(q));
  int64_t m = ishape.back();
  if (m < 1 || b + m > r)
    return g.fail("the last indices axis (" + std::to_string(m) + ") exceeds the data rank");
  for (int64_t d = 0; d < b; ++d)
    if (ishape[d] != data[d])
      return g.fail("batch axis " + std::to_string(d) + " differs between data and indices");
  // data viewed as [batch..., indexed..., rest...] -> [B * I, rest]; one flat position per index tuple.
  int64_t batch = 1, indexed = 1, rest = 1;
  for (int64_t d = 0; d < r; ++d)
    (d < b ? batch : d < b + m ? indexed : rest) *= data[d];
  int64_t tuples = product(ishape) / m, perBatch = tuples / batch;
  std::vector<int64_t> outShape(ishape.begin(), ishape.end() - 1);
  outShape.insert(outShape.end(), data.begin() + b + m, data.end());
  Value x = g.reshape(g.input(0), {batch * indexed, rest}, "flat");
  if (!ids) {
    Value idx = runtimePositions(g, data, ishape, b, m, indexed, tuples);
    Value picked = x && idx ? g.build<GatherOp>("gather", {x, idx}, {g.i64("axis", 0)}) : Value();
    return g.finish(g.reshape(picked, outShape, ""));
  }
  std::vector<int64_t> flat(tuples);
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t pos = 0;
    for (int64_t j = 0; j < m; ++j) {
      int64_t size = data[b + j], v = ids->intAt(t * m + j);
      if (v < -size || v >= size)
        return g.fail("index " + std::to_string(v) + " is out of range for data axis " + std::to_string(b + j));
      pos = pos * size + (v < 0 ? v + size : v);
    }
    flat[t] = (t / perBatch) * indexed + pos;
  }
  Value idx = g.materialize(g.nodeName() + "_positions", HostTensor::ints({tuples}, flat));
  Value picked = x && idx ? g.build<GatherOp>("gather", {x, idx}, {g.i64("axis", 0)}) : Value();
  return g.finish(g.reshape(picked, outShape, ""));
}
/// Hann, Hamming and Blackman windows: a0 - a1 cos(2 pi n / N') + a2 cos(4 pi n / N') with N' the size
/// (periodic) or size - 1 (symmetric). Only the size (known at import time, or fed at run time and then
/// the declared length) matters, so the window is a constant.
template <int Kind> LogicalResult convertWindow(GraphImporter &g) {
  int64_t n = 0;
  if (g.runtimeInput(0)) {
    // A size fed at run time is the declared window's length.
    auto out = impliedShape(g, 0, "'size'");
    if (failed(out))
      return failure();
    if (out->size() != 1)
      return g.fail("the window is declared with rank " + std::to_string(out->size()));
    n = (*out)[0];
  } else {
    const HostTensor *sizeTensor = g.constInput(0);
    if (!sizeTensor || sizeTensor->numel() != 1)
      return g.fail("'size' must be a scalar known at import time");
    n = sizeTensor->intAt(0);
  }
  if (n < 1 || n > kMaxFoldElements)
    return g.fail("window size " + std::to_string(n) + " is out of range");
  int32_t dtype = (int32_t)g.attrInt("output_datatype", onnx::TensorProto::FLOAT);
  if (!isSupportedDType(dtype))
    return g.fail("output_datatype " + dtypeName(dtype) + " is not supported");
  double a0 = Kind == 0 ? 0.5 : Kind == 1 ? 25.0 / 46.0 : 0.42;
  double a1 = Kind == 2 ? 0.5 : 1.0 - a0, a2 = Kind == 2 ? 0.08 : 0.0;
  double period = g.attrInt("periodic", 1) ? (double)n : (double)(n - 1);
  std::vector<float> values(n);
  for (int64_t k = 0; k < n; ++k) {
    double phase = period > 0 ? 2.0 * M_PI * (double)k / period : 0.0;
    values[k] = (float)(a0 - a1 * std::cos(phase) + a2 * std::cos(2.0 * phase));
  }
  HostTensor window = HostTensor::floats({n}, values);
  g.setConstOutput(0, isFloatDType(dtype) ? window : window.castTo(dtype));
  return success();
}
/// ConstantOfShape with the shape fed at run time: the declared shape, filled with `value`.
LogicalResult convertConstantOfShape(GraphImporter &g) {
  auto shape = impliedShape(g, 0, "the shape");
  if (failed(shape))
    return failure();
  HostTensor value = HostTensor::floats({1}, {0.0f});
  if (const auto *a = g.attr("value")) {
    std::string error;
    if (!decodeTensor(a->t(), value, error))
      return g.fail(error);
    if (value.numel() != 1)
      return g.fail("'value' must hold one element");
  }
  g.setConstOutput(0, HostTensor::filled(*shape, value.dtype, value.at(0)));
  return success();
}

/// Range with start, limit or delta fed at run time: start + k * delta for k < n, n the declared length
/// (the values are computed at run time; only the length is static).
LogicalResult convertRange(GraphImporter &g) {
  auto out = impliedShape(g, 0, "start, limit and delta");
  if (failed(out))
    return failure();
  if (out->size() != 1)
    return g.fail("the range is declared with rank " + std::to_string(out->size()));
  for (size_t i = 0; i < 3; ++i)
    if (!g.inputShape(i).empty() && !(g.inputShape(i).size() == 1 && g.inputShape(i)[0] == 1))
      return g.fail("start, limit and delta must be scalars");
  int64_t n = (*out)[0];
  std::vector<int64_t> ramp(n);
  std::iota(ramp.begin(), ramp.end(), 0);
  Type elem = g.inputElemType(0);
  int32_t dtype = isa<FloatType>(elem)     ? onnx::TensorProto::FLOAT
                  : elem.isInteger(32)     ? onnx::TensorProto::INT32
                  : elem.isInteger(16)     ? onnx::TensorProto::INT16
                                           : onnx::TensorProto::INT64;
  HostTensor steps = HostTensor::ints({n}, ramp).castTo(dtype);
  Value k = g.materialize(g.nodeName() + "_steps", steps);
  Value start = g.input(0), delta = g.input(2);
  Value scaled = k && delta ? g.build<MulOp>("scaled", {k, delta}, {}, elem) : Value();
  return g.finish(scaled && start ? g.build<AddOp>("", {scaled, start}, {}, elem) : Value());
}

} // namespace

void addShapeConverters(OpTable &table) {
  table["ConstantOfShape"].convert = convertConstantOfShape;
  table["Range"].convert = convertRange;
  table["HannWindow"].convert = convertWindow<0>;
  table["HammingWindow"].convert = convertWindow<1>;
  table["BlackmanWindow"].convert = convertWindow<2>;
  table["EyeLike"].convert = convertEyeLike;
  table["Compress"].convert = convertCompress;
  table["GatherND"].convert = convertGatherND;
  table["Hardmax"].convert = convertHardmax;
  table["GatherElements"].convert = convertGatherElements;
  table["NonZero"].convert = convertNonZero;
  table["Unique"].convert = convertUnique;
  table["CumSum"].convert = convertCumSum;
  table["Trilu"].convert = convertTrilu;
  table["Reshape"].convert = convertReshape;
  table["Flatten"].convert = convertFlatten;
  table["Transpose"].convert = convertTranspose;
  table["Squeeze"].convert = convertSqueeze;
  table["Unsqueeze"].convert = convertUnsqueeze;
  table["Concat"].convert = convertConcat;
  table["Slice"].convert = convertSlice;
  table["Split"].convert = convertSplit;
  table["Gather"].convert = convertGather;
  table["Pad"].convert = convertPad;
  table["ReduceMean"].convert = convertReduce<ReduceMode::mean>;
  table["ReduceSum"].convert = convertReduce<ReduceMode::sum>;
  table["ReduceMax"].convert = convertReduce<ReduceMode::max>;
  table["ReduceMin"].convert = convertReduce<ReduceMode::min>;
  table["ReduceProd"].convert = convertReduce<ReduceMode::prod>;
  table["ReduceL1"].convert = convertReduce<ReduceMode::l1>;
  table["ReduceL2"].convert = convertReduce<ReduceMode::l2>;
  table["ReduceSumSquare"].convert = convertReduce<ReduceMode::sum, Pre::Square>;
  table["ReduceLogSum"].convert = convertReduce<ReduceMode::sum, Pre::None, true>;
  table["ReduceLogSumExp"].convert = convertReduce<ReduceMode::sum, Pre::Exp, true>;
  table["Resize"].convert = convertResize;
  table["Upsample"].convert = convertResize;
  table["DepthToSpace"].convert = convertDepthToSpace<false>;
  table["SpaceToDepth"].convert = convertDepthToSpace<true>;
  table["TopK"].convert = convertTopK;
  table["ArgMax"].convert = convertArgExtreme<true>;
  table["ArgMin"].convert = convertArgExtreme<false>;
  table["Expand"].convert = convertExpand;
  table["Tile"].convert = convertTile;
}

} // namespace tpuc::importer
