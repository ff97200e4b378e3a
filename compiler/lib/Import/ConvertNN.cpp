//===- ConvertNN.cpp - ONNX conv, matmul, pooling, normalization, softmax -===//
// Converters of the compute-heavy ONNX ops to top.conv / deconv / matmul / pools / norms / softmax, and the
// integer and quantized-linear conv and matmul, computed exactly in float on centered operands.
//===----------------------------------------------------------------------===//
#include "ConvertVolume.h"
#include "GraphImporter.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace tpuc::top;

namespace tpuc::importer {
namespace {

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t k = 0; k < shape.size(); ++k)
    text += (k ? "," : "") + std::to_string(shape[k]);
  return text + "]";
}

/// Window sizes, strides and dilations must be positive and sane (output_padding non-negative); this
/// keeps the window arithmetic below far from overflow.
LogicalResult checkRange(GraphImporter &g, StringRef name, ArrayRef<int64_t> values, int64_t lowest = 1) {
  for (int64_t v : values)
    if (v < lowest || v > (1 << 20))
      return g.fail("'" + name + "' value " + std::to_string(v) + " is out of range");
  return success();
}

/// A per-spatial-axis attribute (strides, dilations), defaulting to all ones.
FailureOr<std::vector<int64_t>> spatialAttr(GraphImporter &g, StringRef name, size_t spatial,
                                            int64_t fallback = 1) {
  std::vector<int64_t> values = g.attrInts(name);
  if (values.empty())
    return std::vector<int64_t>(spatial, fallback);
  if (values.size() != spatial) {
    (void)g.fail("'" + name + "' has " + std::to_string(values.size()) + " values for " +
                 std::to_string(spatial) + " spatial axes");
    return failure();
  }
  if (failed(checkRange(g, name, values, fallback)))
    return failure();
  return values;
}

/// Begin-then-end pads of a conv or pool window, resolving auto_pad against the input's spatial sizes.
FailureOr<std::vector<int64_t>> windowPads(GraphImporter &g, ArrayRef<int64_t> in, ArrayRef<int64_t> kernel,
                                           ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations) {
  size_t n = in.size();
  std::string autoPad = g.attrString("auto_pad", "NOTSET");
  if (failed(checkRange(g, "kernel_shape", kernel)))
    return failure();
  if (autoPad == "NOTSET") {
    std::vector<int64_t> pads = g.attrInts("pads");
    if (failed(checkRange(g, "pads", pads, 0)))
      return failure();
    if (pads.empty())
      return std::vector<int64_t>(2 * n, 0);
    if (pads.size() != 2 * n) {
      (void)g.fail("'pads' has " + std::to_string(pads.size()) + " values; expected " +
                   std::to_string(2 * n));
      return failure();
    }
    return pads;
  }
  if (autoPad == "VALID")
    return std::vector<int64_t>(2 * n, 0);
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER") {
    (void)g.fail("auto_pad '" + autoPad + "' is not supported");
    return failure();
  }
  std::vector<int64_t> pads(2 * n, 0);
  for (size_t i = 0; i < n; ++i) {
    int64_t out = (in[i] + strides[i] - 1) / strides[i];
    int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in[i]);
    int64_t begin = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
    pads[i] = begin;
    pads[i + n] = total - begin;
  }
  return pads;
}

/// Input rank check shared by conv and pooling: Top handles NCW and NCHW.
LogicalResult checkSpatialRank(GraphImporter &g, const std::vector<int64_t> &in, StringRef what) {
  if (in.size() >= 3 && in.size() <= 5)
    return success();
  return g.fail("only 1-D, 2-D and 3-D " + what + " is supported (input shape " + shapeText(in) + ")");
}

/// A `kernel_shape` attribute must be the filter's spatial extents (the lowerings build the filter's
/// reorders from both).
LogicalResult checkKernelMatchesFilter(GraphImporter &g, const std::vector<int64_t> &kernel,
                                       const std::vector<int64_t> &filter) {
  if (std::equal(kernel.begin(), kernel.end(), filter.begin() + 2))
    return success();
  return g.fail("'kernel_shape' " + shapeText(kernel) + " does not match the filter " + shapeText(filter));
}

//===--- 1-D windows as 2-D ones over a height of 1 ----------------------------===//
// The chip's conv and pool units are 2-D: a 1-D conv, transposed conv or pool (speech front ends, TCNs)
// runs on [N, C, 1, L] with the height's window 1, stride 1 and no pads, between two reshapes. The 2-D op
// is named "<output>_2d"; the reshape back carries the ONNX output's name.

std::string twoDSuffix(StringRef suffix) { return suffix.empty() ? "2d" : (suffix + "_2d").str(); }

Value asUnitHeight(GraphImporter &g, Value x, StringRef suffix) {
  if (!x)
    return {};
  auto shape = getShape(x);
  return g.reshape(x, {shape[0], shape[1], 1, shape[2]},
                   suffix.empty() ? "input_2d" : (suffix + "_input_2d").str());
}

Value dropUnitHeight(GraphImporter &g, Value y, StringRef suffix) {
  auto shape = getShape(y);
  return g.reshape(y, {shape[0], shape[1], shape[3]}, suffix);
}

/// The filter [O, I, K] (or a transposed conv's [I, O, K]) as [O, I, 1, K]: a new weight when it is node
/// input `input`'s own constant (the INT8 lowering needs a weight), else a reshape.
Value filterAsUnitHeight(GraphImporter &g, Value w, size_t input, StringRef suffix) {
  if (!w)
    return {};
  if (const HostTensor *c = w == g.input(input) ? g.constInput(input) : nullptr) {
    HostTensor f = *c;
    f.shape.insert(f.shape.begin() + 2, 1);
    return g.materialize(g.nodeName() + "_filter_2d", f);
  }
  auto ws = getShape(w);
  return g.reshape(w, {ws[0], ws[1], 1, ws[2]}, suffix.empty() ? "filter_2d" : (suffix + "_filter_2d").str());
}

/// The 2-D window of a 1-D one: kernel, strides, pads, and dilations unless none are given (pools).
std::vector<NamedAttribute> unitHeightWindow(GraphImporter &g, ArrayRef<int64_t> kernel,
                                             ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                                             ArrayRef<int64_t> dilations) {
  std::vector<NamedAttribute> attrs{g.i64s("kernel_shape", {1, kernel[0]}),
                                    g.i64s("strides", {1, strides[0]}),
                                    g.i64s("pads", {0, pads[0], 0, pads[1]})};
  if (!dilations.empty())
    attrs.push_back(g.i64s("dilations", {1, dilations[0]}));
  return attrs;
}

/// A top.conv of `x` and `w` (bias `b` or none) with the node's window attributes and result type `elem`;
/// the filter is node input `filterInput`.
Value buildConv(GraphImporter &g, Value x, Value w, Value b, StringRef suffix, Type elem, size_t filterInput = 1) {
  std::vector<int64_t> in = g.inputShape(0), ws = g.inputShape(filterInput);
  if (failed(checkSpatialRank(g, in, "convolution")))
    return {};
  size_t spatial = in.size() - 2;
  if (ws.size() != in.size()) {
    (void)g.fail("filter shape " + shapeText(ws) + " does not match the input rank");
    return {};
  }
  std::vector<int64_t> kernel = g.attrInts("kernel_shape");
  if (kernel.empty())
    kernel.assign(ws.begin() + 2, ws.end());
  auto strides = spatialAttr(g, "strides", spatial);
  auto dilations = spatialAttr(g, "dilations", spatial);
  if (failed(strides) || failed(dilations) || kernel.size() != spatial) {
    if (!failed(strides) && !failed(dilations))
      (void)g.fail("'kernel_shape' does not match the input rank");
    return {};
  }
  if (failed(checkKernelMatchesFilter(g, kernel, ws)))
    return {};
  auto pads = windowPads(g, ArrayRef<int64_t>(in).drop_front(2), kernel, *strides, *dilations);
  if (failed(pads) || !x || !w || !b)
    return {};
  if (spatial == 3)
    return buildConv3D(g, x, w, b, filterInput, {kernel, *strides, *pads, *dilations}, g.attrInt("group", 1),
                       elem);
  std::vector<NamedAttribute> attrs{g.i64s("kernel_shape", kernel), g.i64s("strides", *strides),
                                    g.i64s("pads", *pads), g.i64s("dilations", *dilations)};
  if (spatial == 1) {
    x = asUnitHeight(g, x, suffix);
    w = filterAsUnitHeight(g, w, filterInput, suffix);
    attrs = unitHeightWindow(g, kernel, *strides, *pads, *dilations);
    if (!x || !w)
      return {};
  }
  attrs.push_back(g.i64("group", g.attrInt("group", 1)));
  Operation *op = g.createOp(ConvOp::getOperationName(), spatial == 1 ? twoDSuffix(suffix) : suffix.str(),
                             {x, w, b}, attrs, {elem});
  if (!op)
    return {};
  return spatial == 1 ? dropUnitHeight(g, op->getResult(0), suffix) : op->getResult(0);
}

LogicalResult convertConv(GraphImporter &g) {
  Value y = buildConv(g, g.input(0), g.input(1), g.optionalInput(2), "", g.outputElemType(0));
  if (!y)
    return failure();
  g.setOutput(0, y);
  return success();
}

//===--- integer and quantized linear ops, computed exactly in float ----------===//

/// Input `i` as f32 minus the zero point input `zp` (if present); a per-channel zero point of a filter is
/// reshaped to [M, 1, ...] (`perRow`), else it broadcasts as given.
Value centered(GraphImporter &g, size_t i, size_t zp, StringRef name, bool perRow) {
  Type f32 = g.builder().getF32Type();
  auto toF32 = [&](Value v, StringRef suffix) -> Value {
    if (!v || isa<FloatType>(GraphImporter::elementTypeOf(v)))
      return v;
    Operation *op = g.createOp(CastOp::getOperationName(), suffix, {v}, {}, {f32});
    return op ? op->getResult(0) : Value();
  };
  Value v = toF32(g.input(i), (name + "_float").str());
  if (!v || !g.hasInput(zp))
    return v;
  Value z = toF32(g.input(zp), (name + "_zero_point").str());
  std::vector<int64_t> zs = g.inputShape(zp), vs = g.inputShape(i);
  if (z && perRow && zs.size() == 1 && zs[0] > 1) {
    std::vector<int64_t> target(vs.size(), 1);
    target[0] = zs[0];
    z = g.reshape(z, target, (name + "_zero_point_rows").str());
  }
  return z ? g.build<SubOp>((name + "_centered").str(), {v, z}) : Value();
}

Value castTo(GraphImporter &g, Value v, StringRef suffix, Type elem) {
  Operation *op = v ? g.createOp(CastOp::getOperationName(), suffix, {v}, {}, {elem}) : nullptr;
  return op ? op->getResult(0) : Value();
}

/// ConvInteger: int32 conv of (x - x_zero_point) and (w - w_zero_point).
LogicalResult convertConvInteger(GraphImporter &g) {
  Value x = centered(g, 0, 2, "x", false), w = centered(g, 1, 3, "w", true);
  Value y = buildConv(g, x, w, g.none(), "conv", g.builder().getF32Type());
  y = castTo(g, y, "", g.outputElemType(0));
  if (!y)
    return failure();
  g.setOutput(0, y);
  return success();
}

/// MatMulInteger: int32 product of (A - a_zero_point) and (B - b_zero_point).
LogicalResult convertMatMulInteger(GraphImporter &g) {
  Value a = centered(g, 0, 2, "a", true), b = centered(g, 1, 3, "b", false);
  Value y = a && b ? g.createOp(MatMulOp::getOperationName(), "matmul", {a, b, g.none()}, {},
                                {g.builder().getF32Type()})
                         ->getResult(0)
                   : Value();
  y = castTo(g, y, "", g.outputElemType(0));
  if (!y)
    return failure();
  g.setOutput(0, y);
  return success();
}

/// saturate(round_half_even(acc * scale / y_scale) + y_zero_point) in the output's integer type.
Value requantize(GraphImporter &g, Value acc, Value scale, size_t yScale, size_t yZp) {
  auto intType = dyn_cast<IntegerType>(g.outputElemType(0));
  if (!intType || intType.getWidth() > 16) {
    (void)g.fail("only 8- and 16-bit integer outputs are supported");
    return {};
  }
  Value v = acc && scale ? g.build<MulOp>("real", {acc, scale}) : Value();
  Value ys = g.input(yScale);
  v = v && ys ? g.build<DivOp>("scaled", {v, ys}) : Value();
  v = v ? g.build<RoundOp>("rounded", {v}) : Value();
  if (v && g.hasInput(yZp)) {
    Value zp = g.input(yZp);
    Operation *zf = zp ? g.createOp(CastOp::getOperationName(), "y_zero_point_float", {zp}, {},
                                    {g.builder().getF32Type()})
                       : nullptr;
    v = zf ? g.build<AddOp>("shifted", {v, zf->getResult(0)}) : Value();
  }
  unsigned w = intType.getWidth();
  double lo = intType.isUnsigned() ? 0.0 : -std::ldexp(1.0, w - 1);
  double hi = intType.isUnsigned() ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
  v = v ? g.build<ClipOp>("saturated", {v}, {g.f64("min", lo), g.f64("max", hi)}) : Value();
  return castTo(g, v, "", intType);
}

/// QLinearMatMul: the integer product of the centered operands, rescaled by a_scale * b_scale / y_scale.
LogicalResult convertQLinearMatMul(GraphImporter &g) {
  Value a = centered(g, 0, 2, "a", true), b = centered(g, 3, 5, "b", false);
  Operation *mm = a && b ? g.createOp(MatMulOp::getOperationName(), "matmul", {a, b, g.none()}, {},
                                      {g.builder().getF32Type()})
                         : nullptr;
  Value as = g.input(1), bs = g.input(4);
  Value scale = as && bs ? g.build<MulOp>("scale", {as, bs}) : Value();
  Value y = mm ? requantize(g, mm->getResult(0), scale, 6, 7) : Value();
  if (!y)
    return failure();
  g.setOutput(0, y);
  return success();
}

/// QLinearConv: the integer conv of the centered operands plus the int32 bias, rescaled by
/// x_scale * w_scale (per output channel) / y_scale.
LogicalResult convertQLinearConv(GraphImporter &g) {
  Value x = centered(g, 0, 2, "x", false), w = centered(g, 3, 5, "w", true);
  Value bias = g.none();
  if (g.hasInput(8)) {
    Value b = g.input(8);
    bias = b ? castTo(g, b, "bias_float", g.builder().getF32Type()) : Value();
  }
  Value acc = buildConv(g, x, w, bias, "conv", g.builder().getF32Type(), 3);
  Value xs = g.input(1), ws = g.input(4);
  std::vector<int64_t> wss = g.inputShape(4);
  if (ws && wss.size() == 1 && wss[0] > 1) {
    std::vector<int64_t> target(g.inputShape(0).size(), 1);
    target[1] = wss[0];
    ws = g.reshape(ws, target, "w_scale_channels");
  }
  Value scale = xs && ws ? g.build<MulOp>("scale", {xs, ws}) : Value();
  Value y = acc ? requantize(g, acc, scale, 6, 7) : Value();
  if (!y)
    return failure();
  g.setOutput(0, y);
  return success();
}

LogicalResult convertConvTranspose(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0), w = g.inputShape(1);
  if (failed(checkSpatialRank(g, in, "transposed convolution")))
    return failure();
  size_t spatial = in.size() - 2;
  if (w.size() != in.size())
    return g.fail("filter shape " + shapeText(w) + " does not match the input rank");
  std::vector<int64_t> kernel = g.attrInts("kernel_shape");
  if (kernel.empty())
    kernel.assign(w.begin() + 2, w.end());
  auto strides = spatialAttr(g, "strides", spatial);
  auto dilations = spatialAttr(g, "dilations", spatial);
  auto outPadding = spatialAttr(g, "output_padding", spatial, 0);
  if (failed(strides) || failed(dilations) || failed(outPadding))
    return failure();
  if (kernel.size() != spatial)
    return g.fail("'kernel_shape' does not match the input rank");
  if (failed(checkKernelMatchesFilter(g, kernel, w)))
    return failure();
  if (in[1] > 0 && w[0] != in[1])
    return g.fail("the filter " + shapeText(w) + " is for " + std::to_string(w[0]) +
                  " input channels; the input " + shapeText(in) + " has " + std::to_string(in[1]));
  std::string autoPad = g.attrString("auto_pad", "NOTSET");
  std::vector<int64_t> outputShape = g.attrInts("output_shape");
  if (failed(checkRange(g, "kernel_shape", kernel)) ||
      failed(checkRange(g, "output_shape", outputShape, 0)) ||
      failed(checkRange(g, "pads", g.attrInts("pads"), 0)))
    return failure();
  if (outputShape.size() == spatial + 2)
    outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
  if (outputShape.empty() && (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER"))
    for (size_t i = 0; i < spatial; ++i)
      outputShape.push_back(in[2 + i] * (*strides)[i]);
  std::vector<int64_t> pads(2 * spatial, 0);
  if (!outputShape.empty()) {
    if (outputShape.size() != spatial)
      return g.fail("'output_shape' has " + std::to_string(outputShape.size()) + " values for " +
                    std::to_string(spatial) + " spatial axes");
    for (size_t i = 0; i < spatial; ++i) {
      int64_t total = (*strides)[i] * (in[2 + i] - 1) + (*outPadding)[i] + (kernel[i] - 1) * (*dilations)[i] +
                      1 - outputShape[i];
      // ONNX's rule, with floor division: a negative total extends the output at the end.
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      bool upper = autoPad == "SAME_UPPER";
      pads[i] = upper ? half : total - half;
      pads[i + spatial] = total - pads[i];
      if (pads[i] < 0)
        return g.fail("'output_shape' " + shapeText(outputShape) +
                      " needs padding before the first output "
                      "element, which is not supported");
      if (pads[i + spatial] < 0) {
        (*outPadding)[i] -= pads[i + spatial];
        pads[i + spatial] = 0;
      }
    }
  } else if (autoPad == "NOTSET") {
    std::vector<int64_t> given = g.attrInts("pads");
    if (!given.empty() && given.size() != 2 * spatial)
      return g.fail("'pads' has " + std::to_string(given.size()) + " values; expected " +
                    std::to_string(2 * spatial));
    if (!given.empty())
      pads = given;
  } else if (autoPad != "VALID") {
    return g.fail("auto_pad '" + autoPad + "' is not supported");
  }
  Value y;
  if (spatial == 3) {
    y = buildDeconv3D(g, g.input(0), g.input(1), g.optionalInput(2), 1, {kernel, *strides, pads, *dilations},
                      *outPadding, g.attrInt("group", 1), g.outputElemType(0));
  } else if (spatial == 1) {
    Value x = asUnitHeight(g, g.input(0), ""), w = filterAsUnitHeight(g, g.input(1), 1, "");
    std::vector<NamedAttribute> attrs = unitHeightWindow(g, kernel, *strides, pads, *dilations);
    attrs.push_back(g.i64s("output_padding", {0, (*outPadding)[0]}));
    attrs.push_back(g.i64("group", g.attrInt("group", 1)));
    Value y2 =
        x && w ? g.build<DeconvOp>("2d", {x, w, g.optionalInput(2)}, attrs, g.outputElemType(0)) : Value();
    y = y2 ? dropUnitHeight(g, y2, "") : Value();
  } else {
    y = g.build<DeconvOp>("", {g.input(0), g.input(1), g.optionalInput(2)},
                          {g.i64s("kernel_shape", kernel), g.i64s("strides", *strides), g.i64s("pads", pads),
                           g.i64s("dilations", *dilations), g.i64s("output_padding", *outPadding),
                           g.i64("group", g.attrInt("group", 1))});
  }
  if (!y)
    return failure();
  g.setOutput(0, y);
  return success();
}

LogicalResult convertMatMul(GraphImporter &g) {
  Value y = g.build<MatMulOp>("", {g.input(0), g.input(1), g.none()});
  if (!y)
    return failure();
  g.setOutput(0, y);
  return success();
}

/// Gemm: alpha * A' B' + beta * C. The common case (alpha = beta = 1, C a vector) is one matmul with bias.
LogicalResult convertGemm(GraphImporter &g) {
  bool transA = g.attrInt("transA", 0), transB = g.attrInt("transB", 0);
  double alpha = g.attrFloat("alpha", 1.0), beta = g.attrFloat("beta", 1.0);
  std::vector<int64_t> a = g.inputShape(0), b = g.inputShape(1);
  if (a.size() != 2 || b.size() != 2)
    return g.fail("Gemm needs 2-D operands, got " + shapeText(a) + " and " + shapeText(b));
  int64_t n = transB ? b[0] : b[1];
  bool hasC = g.hasInput(2) && beta != 0;
  std::vector<int64_t> c = hasC ? g.inputShape(2) : std::vector<int64_t>();
  int64_t cCount = 1;
  for (int64_t d : c)
    cCount *= d;
  bool biasInMatmul = hasC && alpha == 1.0 && beta == 1.0 && cCount == n && (c.size() <= 1 || c[0] == 1);
  std::vector<NamedAttribute> attrs{g.boolean("left_transpose", transA),
                                    g.boolean("right_transpose", transB)};
  bool last = !hasC || biasInMatmul;
  Value y = g.build<MatMulOp>(last && alpha == 1.0 ? "" : "matmul",
                              {g.input(0), g.input(1), biasInMatmul ? g.input(2) : g.none()}, attrs);
  if (y && alpha != 1.0)
    y = g.build<MulConstOp>(last ? "" : "alpha", {y}, {g.f64("const_val", alpha)});
  if (y && !last) {
    Value cv = g.input(2);
    if (cv && beta != 1.0)
      cv = g.build<MulConstOp>("beta", {cv}, {g.f64("const_val", beta)});
    y = g.build<AddOp>("", {y, cv});
  }
  if (!y)
    return failure();
  g.setOutput(0, y);
  return success();
}

/// Window attributes of MaxPool / AveragePool.
struct PoolAttrs {
  std::vector<int64_t> kernel, strides, pads;
};

FailureOr<PoolAttrs> poolAttrs(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0);
  if (failed(checkSpatialRank(g, in, "pooling")))
    return failure();
  size_t spatial = in.size() - 2;
  PoolAttrs p;
  p.kernel = g.attrInts("kernel_shape");
  if (p.kernel.size() != spatial) {
    (void)g.fail("'kernel_shape' needs " + std::to_string(spatial) + " values");
    return failure();
  }
  auto strides = spatialAttr(g, "strides", spatial);
  auto dilations = spatialAttr(g, "dilations", spatial);
  if (failed(strides) || failed(dilations))
    return failure();
  if (llvm::any_of(*dilations, [](int64_t d) { return d != 1; })) {
    (void)g.fail("pooling with dilations other than 1 is not supported");
    return failure();
  }
  p.strides = *strides;
  auto pads = windowPads(g, ArrayRef<int64_t>(in).drop_front(2), p.kernel, p.strides, *dilations);
  if (failed(pads))
    return failure();
  p.pads = *pads;
  return p;
}

/// MaxPool whose Indices output is used: top.maxpool_with_mask (2-D; the flat indices count over the input's
/// own N x C x H x W, which a 1-D or 3-D pool imported through 2-D views would not keep).
LogicalResult convertMaxPoolWithIndices(GraphImporter &g, const PoolAttrs &p) {
  if (p.kernel.size() != 2)
    return g.fail("the Indices output is supported for 2-D pooling only, got " +
                  std::to_string(p.kernel.size()) + "-D");
  auto op =
      g.create<MaxPoolWithMaskOp>("", {g.input(0)},
                                  {g.i64s("kernel_shape", p.kernel), g.i64s("strides", p.strides),
                                   g.i64s("pads", p.pads), g.boolean("ceil_mode", g.attrInt("ceil_mode", 0)),
                                   g.boolean("storage_order", g.attrInt("storage_order", 0))},
                                  {g.outputElemType(0), g.outputElemType(1)});
  if (!op)
    return failure();
  g.setOutput(0, op.getOutput());
  g.setOutput(1, op.getMask());
  return success();
}

template <typename PoolOp> LogicalResult convertPool(GraphImporter &g) {
  auto p = poolAttrs(g);
  if (failed(p))
    return failure();
  if (std::is_same_v<PoolOp, MaxPoolOp> && g.outputUsed(1))
    return convertMaxPoolWithIndices(g, *p);
  if (p->kernel.size() == 3)
    return g.finish(buildPool3D(g, g.input(0), std::is_same_v<PoolOp, MaxPoolOp>,
                                {p->kernel, p->strides, p->pads, {}}, g.attrInt("ceil_mode", 0),
                                g.attrInt("count_include_pad", 0), g.outputElemType(0)));
  bool oneD = p->kernel.size() == 1;
  std::vector<NamedAttribute> attrs =
      oneD ? unitHeightWindow(g, p->kernel, p->strides, p->pads, {})
           : std::vector<NamedAttribute>{g.i64s("kernel_shape", p->kernel), g.i64s("strides", p->strides),
                                         g.i64s("pads", p->pads)};
  attrs.push_back(g.boolean("ceil_mode", g.attrInt("ceil_mode", 0)));
  if (std::is_same_v<PoolOp, AvgPoolOp>)
    attrs.push_back(g.boolean("count_include_pad", g.attrInt("count_include_pad", 0)));
  Value x = oneD ? asUnitHeight(g, g.input(0), "") : g.input(0);
  Value y = x ? g.build<PoolOp>(oneD ? "2d" : "", {x}, attrs, g.outputElemType(0)) : Value();
  if (oneD && y)
    y = dropUnitHeight(g, y, "");
  if (!y)
    return failure();
  g.setOutput(0, y);
  return success();
}

/// Reduction over all spatial axes (axis 2 onwards), keeping them as size 1.
Value reduceSpatial(GraphImporter &g, ReduceMode mode) {
  int64_t rank = g.inputShape(0).size();
  std::vector<int64_t> axes;
  for (int64_t k = 2; k < rank; ++k)
    axes.push_back(k);
  return g.build<ReduceOp>("", {g.input(0)},
                           {g.i64s("axes", axes), g.boolean("keepdims", true),
                            g.named("mode", ReduceModeAttr::get(g.builder().getContext(), mode))});
}

LogicalResult convertGlobalAveragePool(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0);
  if (in.size() < 3)
    return g.fail("expects an input of rank 3 or more, got " + shapeText(in));
  Value y = in.size() <= 4
                ? g.build<AdaptiveAvgPoolOp>("", {g.input(0)},
                                             {g.i64s("output_size", std::vector<int64_t>(in.size() - 2, 1))})
                : reduceSpatial(g, ReduceMode::mean);
  if (!y)
    return failure();
  g.setOutput(0, y);
  return success();
}

LogicalResult convertGlobalMaxPool(GraphImporter &g) {
  if (g.inputShape(0).size() < 3)
    return g.fail("expects an input of rank 3 or more");
  Value y = reduceSpatial(g, ReduceMode::max);
  if (!y)
    return failure();
  g.setOutput(0, y);
  return success();
}

LogicalResult convertBatchNorm(GraphImporter &g) {
  if (g.attrInt("training_mode", 0) != 0)
    return g.fail("training_mode = 1 is not supported (inference only)");
  if (g.opset() < 9 && g.attrInt("spatial", 1) != 1)
    return g.fail("spatial = 0 is not supported");
  Value y = g.build<BatchNormOp>("", {g.input(0), g.input(3), g.input(4), g.input(1), g.input(2)},
                                 {g.f64("epsilon", g.attrFloat("epsilon", 1e-5))});
  if (!y)
    return failure();
  g.setOutput(0, y);
  return success();
}

LogicalResult convertInstanceNorm(GraphImporter &g) {
  Value y = g.build<InstanceNormOp>("", {g.input(0), g.input(1), g.input(2)},
                                    {g.f64("eps", g.attrFloat("epsilon", 1e-5))});
  if (!y)
    return failure();
  g.setOutput(0, y);
  return success();
}

/// GroupNormalization-18: its scale and bias hold one value per group (opset 21 made them per channel);
/// known at import, each group's value is repeated over its channels for top.groupnorm's per-channel ones.
LogicalResult convertGroupNorm(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0);
  int64_t groups = g.attrInt("num_groups", 0);
  if (in.size() < 3)
    return g.fail("expects an input of rank 3 or more, got " + shapeText(in));
  if (groups < 1 || in[1] % groups != 0)
    return g.fail("'num_groups' " + std::to_string(groups) + " does not divide the " + std::to_string(in[1]) +
                  " channels");
  if (g.attrInt("stash_type", 1) != 1)
    return g.fail("stash_type " + std::to_string(g.attrInt("stash_type", 1)) +
                  " is not supported (1, f32, is)");
  Value perChannel[2];
  for (int k = 0; k < 2; ++k) {
    const HostTensor *c = g.constInput(1 + k);
    if (!c)
      return g.fail(std::string(k ? "'bias'" : "'scale'") + " must be known at import time");
    if (c->numel() != groups)
      return g.fail(std::string(k ? "'bias'" : "'scale'") + " has " + std::to_string(c->numel()) +
                    " values; GroupNormalization-18 takes one per group (" + std::to_string(groups) + ")");
    std::vector<float> values;
    for (int64_t ch = 0; ch < in[1]; ++ch)
      values.push_back(static_cast<float>(c->at(ch / (in[1] / groups))));
    perChannel[k] =
        g.materialize(g.nodeName() + (k ? "_bias" : "_scale"), HostTensor::floats({in[1]}, values));
    if (!perChannel[k])
      return failure();
  }
  return g.finish(
      g.build<GroupNormOp>("", {g.input(0), perChannel[0], perChannel[1]},
                           {g.i64("num_groups", groups), g.f64("eps", g.attrFloat("epsilon", 1e-5))}));
}

/// GridSample (2-D), its mode under both spellings (opset 16's bilinear / bicubic, opset 20's linear /
/// cubic).
LogicalResult convertGridSample(GraphImporter &g) {
  std::string modeText = g.attrString("mode", "bilinear"), paddingText = g.attrString("padding_mode", "zeros");
  std::optional<GridMode> mode;
  if (modeText == "bilinear" || modeText == "linear")
    mode = GridMode::linear;
  else if (modeText == "bicubic" || modeText == "cubic")
    mode = GridMode::cubic;
  else if (modeText == "nearest")
    mode = GridMode::nearest;
  if (!mode)
    return g.fail("mode '" + modeText + "' is not one of bilinear, nearest, bicubic");
  auto padding = symbolizeGridPadding(paddingText);
  if (!padding)
    return g.fail("padding_mode '" + paddingText + "' is not one of zeros, border, reflection");
  if (g.inputShape(0).size() != 4)
    return g.fail("only 2-D sampling (a 4-D input) is supported, got rank " +
                  std::to_string(g.inputShape(0).size()));
  MLIRContext *ctx = g.builder().getContext();
  return g.finish(g.build<GridSampleOp>("", {g.input(0), g.input(1)},
                                        {g.named("mode", GridModeAttr::get(ctx, *mode)),
                                         g.named("padding", GridPaddingAttr::get(ctx, *padding)),
                                         g.boolean("align_corners", g.attrInt("align_corners", 0) != 0)}));
}

/// RoiAlign: opset 10 has no coordinate_transformation_mode and behaves as opset 16's output_half_pixel.
LogicalResult convertRoiAlign(GraphImporter &g) {
  std::string modeText = g.attrString("mode", "avg");
  auto mode = symbolizeRoiMode(modeText);
  if (!mode)
    return g.fail("mode '" + modeText + "' is not one of avg, max");
  std::string transform =
      g.attrString("coordinate_transformation_mode", g.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel")
    return g.fail("coordinate_transformation_mode '" + transform +
                  "' is not one of half_pixel, output_half_pixel");
  MLIRContext *ctx = g.builder().getContext();
  return g.finish(g.build<RoiAlignOp>("", {g.input(0), g.input(1), g.input(2)},
                                      {g.named("mode", RoiModeAttr::get(ctx, *mode)),
                                       g.i64("output_height", g.attrInt("output_height", 1)),
                                       g.i64("output_width", g.attrInt("output_width", 1)),
                                       g.i64("sampling_ratio", g.attrInt("sampling_ratio", 0)),
                                       g.f64("spatial_scale", g.attrFloat("spatial_scale", 1.0)),
                                       g.boolean("half_pixel", transform == "half_pixel")}));
}

LogicalResult convertMaxRoiPool(GraphImporter &g) {
  return g.finish(g.build<RoiPoolingOp>("", {g.input(0), g.input(1)},
                                        {g.i64s("pooled_shape", g.attrInts("pooled_shape")),
                                         g.f64("spatial_scale", g.attrFloat("spatial_scale", 1.0))}));
}

/// The `pads` of a 2-D window op without auto_pad (DeformConv, MaxUnpool): four values, none by default.
FailureOr<std::vector<int64_t>> explicitPads2D(GraphImporter &g) {
  std::vector<int64_t> pads = g.attrInts("pads");
  if (pads.empty())
    pads.assign(4, 0);
  if (pads.size() != 4) {
    (void)g.fail("'pads' has " + std::to_string(pads.size()) + " values; expected 4");
    return failure();
  }
  if (failed(checkRange(g, "pads", pads, 0)))
    return failure();
  return pads;
}

/// DeformConv (opset 19; 2-D): inputs X, W, offset, B, mask; the kernel size defaults to the filter's.
LogicalResult convertDeformConv(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0), w = g.inputShape(1);
  if (in.size() != 4 || w.size() != 4)
    return g.fail("only 2-D deformable convolution is supported (input " + shapeText(in) + ", filter " +
                  shapeText(w) + ")");
  std::vector<int64_t> kernel = g.attrInts("kernel_shape");
  if (kernel.empty())
    kernel = {w[2], w[3]};
  if (kernel.size() != 2)
    return g.fail("'kernel_shape' has " + std::to_string(kernel.size()) + " values for 2 spatial axes");
  if (failed(checkRange(g, "kernel_shape", kernel)))
    return failure();
  auto strides = spatialAttr(g, "strides", 2);
  auto dilations = spatialAttr(g, "dilations", 2);
  if (failed(strides) || failed(dilations))
    return failure();
  auto pads = explicitPads2D(g);
  if (failed(pads))
    return failure();
  int64_t group = g.attrInt("group", 1), offsetGroup = g.attrInt("offset_group", 1);
  if (group < 1 || offsetGroup < 1)
    return g.fail("'group' and 'offset_group' must be positive, got " + std::to_string(group) + " and " +
                  std::to_string(offsetGroup));
  return g.finish(g.build<DeformConv2DOp>(
      "", {g.input(0), g.input(1), g.input(2), g.optionalInput(4), g.optionalInput(3)},
      {g.i64s("kernel_shape", kernel), g.i64s("strides", *strides), g.i64s("pads", *pads),
       g.i64s("dilations", *dilations), g.i64("group", group), g.i64("offset_group", offsetGroup)}));
}

/// MaxUnpool (2-D): the indices count over `(in - 1) * stride - pads + kernel` per axis; the `output_shape`
/// input (a constant, else the model's declaration of the output) pads that with zeros at the end.
LogicalResult convertMaxUnpool(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0);
  if (in.size() != 4)
    return g.fail("only 2-D unpooling (a 4-D input) is supported, got " + shapeText(in));
  std::vector<int64_t> kernel = g.attrInts("kernel_shape");
  if (kernel.size() != 2)
    return g.fail("'kernel_shape' must hold 2 values, got " + std::to_string(kernel.size()));
  if (failed(checkRange(g, "kernel_shape", kernel)))
    return failure();
  auto strides = spatialAttr(g, "strides", 2);
  if (failed(strides))
    return failure();
  auto pads = explicitPads2D(g);
  if (failed(pads))
    return failure();
  std::vector<int64_t> indexed{in[0], in[1]};
  for (int i = 0; i < 2; ++i)
    indexed.push_back((in[2 + i] - 1) * (*strides)[i] - (*pads)[i] - (*pads)[i + 2] + kernel[i]);
  std::vector<int64_t> out = indexed;
  if (g.hasInput(2)) {
    if (const HostTensor *shape = g.constInput(2))
      out = shape->toInts();
    else if (auto declared = g.declaredShape(0))
      out = *declared;
    else
      return g.fail("'output_shape' arrives at run time and the output's shape is not declared");
  }
  std::vector<NamedAttribute> attrs{g.i64s("output_shape", out)};
  if (out != indexed)
    attrs.push_back(g.i64s("indexed_shape", indexed));
  return g.finish(g.build<MaxUnpoolOp>("", {g.input(0), g.input(1)}, attrs));
}

/// NonMaxSuppression: how many boxes survive depends on the data, so the result takes the shape the model
/// declares ([n, 3]) and a run that keeps another number fails naming both.
LogicalResult convertNonMaxSuppression(GraphImporter &g) {
  auto out = g.declaredShape(0);
  if (!out)
    return g.fail("the number of selected boxes depends on the data: the output's shape must be declared");
  if (out->size() != 2 || (*out)[1] != 3)
    return g.fail("the declared output shape must be [n, 3], got rank " + std::to_string(out->size()));
  Type type = RankedTensorType::get(*out, g.builder().getI64Type());
  Operation *op = g.createTyped(NonMaxSuppressionOp::getOperationName(), "",
                                {g.input(0), g.input(1), g.optionalInput(2), g.optionalInput(3), g.optionalInput(4)},
                                {g.boolean("center_point_box", g.attrInt("center_point_box", 0) != 0)}, {type});
  return g.finish(op ? op->getResult(0) : Value());
}

LogicalResult convertLayerNorm(GraphImporter &g) {
  int64_t rank = g.inputShape(0).size();
  auto axis = g.normalizeAxis(g.attrInt("axis", -1), rank, "axis");
  if (failed(axis))
    return failure();
  double eps = g.attrFloat("epsilon", 1e-5);
  Value y = g.build<LayerNormOp>("", {g.input(0), g.input(1), g.optionalInput(2)},
                                 {g.i64("axis", *axis), g.f64("eps", eps)});
  if (!y)
    return failure();
  g.setOutput(0, y);
  if (!g.outputUsed(1) && !g.outputUsed(2))
    return success();
  // The statistics outputs: Mean and InvStdDev = 1 / sqrt(mean((x - Mean)^2) + epsilon), keeping dims.
  std::vector<int64_t> axes;
  for (int64_t k = *axis; k < rank; ++k)
    axes.push_back(k);
  auto reduceMean = [&](StringRef suffix, Value v) {
    return g.build<ReduceOp>(
        suffix, {v},
        {g.i64s("axes", axes), g.boolean("keepdims", true),
         g.named("mode", ReduceModeAttr::get(g.builder().getContext(), ReduceMode::mean))});
  };
  Value x = g.input(0);
  Value mean = reduceMean("mean", x);
  Value centered = mean ? g.build<SubOp>("centered", {x, mean}) : Value();
  Value square = centered ? g.build<MulOp>("square", {centered, centered}) : Value();
  Value var = square ? reduceMean("var", square) : Value();
  Value shifted = var ? g.build<AddConstOp>("var_eps", {var}, {g.f64("const_val", eps)}) : Value();
  Value inv = shifted ? g.build<RsqrtOp>("inv_std", {shifted}) : Value();
  if (!inv)
    return failure();
  g.setOutput(1, mean);
  g.setOutput(2, inv);
  return success();
}

/// Softmax and LogSoftmax. Before opset 13 the op works on the input coerced to 2-D at `axis` (default 1):
/// it becomes reshape -> softmax over axis 1 -> reshape back, unless `axis` is already the last axis.
template <bool Log> LogicalResult convertSoftmax(GraphImporter &g) {
  std::vector<int64_t> in = g.inputShape(0);
  int64_t rank = in.size();
  bool legacy = g.opset() < 13;
  if (rank == 0)
    return g.fail("softmax of a scalar is not supported");
  auto axis = g.normalizeAxis(g.attrInt("axis", legacy ? 1 : -1), rank, "axis");
  if (failed(axis))
    return failure();
  std::vector<NamedAttribute> attrs{g.boolean("log", Log)};
  Value y;
  if (!legacy || *axis == rank - 1) {
    attrs.push_back(g.i64("axis", *axis));
    y = g.build<SoftmaxOp>("", {g.input(0)}, attrs);
  } else {
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < rank; ++k)
      (k < *axis ? outer : inner) *= in[k];
    attrs.push_back(g.i64("axis", 1));
    Value flat = g.reshape(g.input(0), {outer, inner}, "flatten");
    Value s = flat ? g.build<SoftmaxOp>("softmax", {flat}, attrs) : Value();
    y = g.reshape(s, in, "");
  }
  if (!y)
    return failure();
  g.setOutput(0, y);
  return success();
}

} // namespace

void addNNConverters(OpTable &table) {
  table["Conv"].convert = convertConv;
  table["ConvInteger"].convert = convertConvInteger;
  table["MatMulInteger"].convert = convertMatMulInteger;
  table["QLinearMatMul"].convert = convertQLinearMatMul;
  table["QLinearConv"].convert = convertQLinearConv;
  table["ConvTranspose"].convert = convertConvTranspose;
  table["MatMul"].convert = convertMatMul;
  table["Gemm"].convert = convertGemm;
  table["MaxPool"].convert = convertPool<MaxPoolOp>;
  table["AveragePool"].convert = convertPool<AvgPoolOp>;
  table["GlobalAveragePool"].convert = convertGlobalAveragePool;
  table["GlobalMaxPool"].convert = convertGlobalMaxPool;
  table["BatchNormalization"].convert = convertBatchNorm;
  table["InstanceNormalization"].convert = convertInstanceNorm;
  table["GroupNormalization"].convert = convertGroupNorm;
  table["LayerNormalization"].convert = convertLayerNorm;
  table["GridSample"].convert = convertGridSample;
  table["RoiAlign"].convert = convertRoiAlign;
  table["MaxRoiPool"].convert = convertMaxRoiPool;
  table["DeformConv"].convert = convertDeformConv;
  table["MaxUnpool"].convert = convertMaxUnpool;
  table["NonMaxSuppression"].convert = convertNonMaxSuppression;
  table["Softmax"].convert = convertSoftmax<false>;
  table["LogSoftmax"].convert = convertSoftmax<true>;
}

} // namespace tpuc::importer
