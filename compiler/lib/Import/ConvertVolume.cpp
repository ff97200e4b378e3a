//===- ConvertVolume.cpp - 3-D conv, transposed conv and pooling as 2-D ops -===//
// See ConvertVolume.h for the decompositions. Intermediate ops are named "<output>_<role>"; the last one
// carries the ONNX output's name.
//===----------------------------------------------------------------------===//
#include "ConvertVolume.h"

#include "HostTensor.h"

#include <optional>

using namespace mlir;
using namespace tpuc::top;

namespace tpuc::importer {
namespace {

/// The op builders the decompositions share; each returns null after the importer reported an error.
struct Ops {
  GraphImporter &g;

  Value permute(Value v, ArrayRef<int64_t> order, StringRef suffix) {
    return v ? g.build<PermuteOp>(suffix, {v}, {g.i64s("order", order)}, GraphImporter::elementTypeOf(v))
             : Value();
  }
  /// Pads with zeros; `paddings` holds the begin pads of every axis, then the end pads.
  Value pad(Value v, ArrayRef<int64_t> paddings, StringRef suffix) {
    if (!v || llvm::all_of(paddings, [](int64_t p) { return p == 0; }))
      return v;
    return g.build<PadOp>(suffix, {v}, {g.i64s("paddings", paddings)}, GraphImporter::elementTypeOf(v));
  }
  /// `count` elements along `axis` from `begin`, every `step`-th.
  Value slice(Value v, int64_t axis, int64_t begin, int64_t step, int64_t count, StringRef suffix) {
    return g.sliceAxis(v, axis, begin, begin + (count - 1) * step + 1, suffix, step);
  }
  Value add(Value a, Value b, StringRef suffix, Type elem) {
    return a && b ? g.build<AddOp>(suffix, {a, b}, {}, elem) : Value();
  }
  /// Pads of `axis` alone in a tensor of `rank`.
  static std::vector<int64_t> axisPads(size_t rank, int64_t axis, int64_t begin, int64_t end) {
    std::vector<int64_t> pads(2 * rank, 0);
    pads[axis] = begin;
    pads[rank + axis] = end;
    return pads;
  }
};

std::string tapSuffix(StringRef role, int64_t k) { return (role + "_d" + Twine(k)).str(); }

/// A filter reordered by `perm` and reshaped to `shape`: a new weight when it is node input `input`'s own
/// constant (the INT8 lowering quantizes weights, not computed tensors), else permute and reshape ops.
Value reorderedFilter(GraphImporter &g, Value w, size_t input, ArrayRef<int64_t> perm,
                      ArrayRef<int64_t> shape, StringRef suffix) {
  if (!w)
    return {};
  if (const HostTensor *c = w == g.input(input) ? g.constInput(input) : nullptr) {
    HostTensor f = transposeHost(*c, std::vector<int64_t>(perm.begin(), perm.end()));
    f.shape.assign(shape.begin(), shape.end());
    return g.materialize(g.nodeName() + "_" + suffix.str(), f);
  }
  Ops ops{g};
  return g.reshape(ops.permute(w, perm, (suffix + "_order").str()), shape, suffix);
}

/// Depth tap `k` of the filter [O, I, kD, kH, kW] as [O, I, kH, kW]: a block of `tapsMajor` (the constant
/// filter transposed once to [kD, O, I, kH, kW]) as a new weight, or, for a computed filter, slice ops.
Value filterTap(GraphImporter &g, Value w, const HostTensor *tapsMajor, int64_t k, StringRef suffix) {
  if (!w)
    return {};
  ArrayRef<int64_t> ws = getShape(w);
  std::vector<int64_t> tapShape{ws[0], ws[1], ws[3], ws[4]};
  if (tapsMajor) {
    HostTensor f;
    f.dtype = tapsMajor->dtype;
    f.shape = tapShape;
    int64_t n = ws[0] * ws[1] * ws[3] * ws[4];
    if (tapsMajor->isFloat())
      f.f.assign(tapsMajor->f.begin() + k * n, tapsMajor->f.begin() + (k + 1) * n);
    else
      f.i.assign(tapsMajor->i.begin() + k * n, tapsMajor->i.begin() + (k + 1) * n);
    return g.materialize(g.nodeName() + "_" + suffix.str(), f);
  }
  Ops ops{g};
  return g.reshape(ops.slice(w, 2, k, 1, 1, (suffix + "_tap").str()), tapShape, suffix);
}

int64_t windowOut(int64_t in, int64_t padsTotal, int64_t kernel, int64_t stride, int64_t dilation) {
  return (in + padsTotal - dilation * (kernel - 1) - 1) / stride + 1;
}

} // namespace

Value buildConv3D(GraphImporter &g, Value x, Value w, Value b, size_t filterInput, const Window3D &win,
                  int64_t group, Type elem) {
  if (!x || !w)
    return {};
  Ops ops{g};
  ArrayRef<int64_t> xs = getShape(x), ws = getShape(w);
  const int64_t n = xs[0], c = xs[1], d = xs[2], h = xs[3], wd = xs[4];
  const int64_t o = ws[0], kd = win.kernel[0], sd = win.strides[0], dd = win.dilations[0];
  const int64_t dOut = windowOut(d, win.pads[0] + win.pads[3], kd, sd, dd);
  if (dOut < 1) {
    (void)g.fail("the depth window does not fit the input");
    return {};
  }
  // [N, C, D, H, W] -> padded along D -> [N, D', C, H, W]; tap k is depth k*dd, k*dd + sd, ...
  Value xt = ops.permute(ops.pad(x, Ops::axisPads(5, 2, win.pads[0], win.pads[3]), "depth_pad"),
                         {0, 2, 1, 3, 4}, "depth_major");
  std::vector<NamedAttribute> attrs{g.i64s("kernel_shape", {win.kernel[1], win.kernel[2]}),
                                    g.i64s("strides", {win.strides[1], win.strides[2]}),
                                    g.i64s("pads", {win.pads[1], win.pads[2], win.pads[4], win.pads[5]}),
                                    g.i64s("dilations", {win.dilations[1], win.dilations[2]}),
                                    g.i64("group", group)};
  Type mid = GraphImporter::elementTypeOf(x);
  Value y;
  if (group == 1) {
    std::vector<Value> taps;
    for (int64_t k = 0; k < kd; ++k)
      taps.push_back(ops.slice(xt, 1, k * dd, sd, dOut, tapSuffix("tap", k)));
    if (llvm::any_of(taps, [](Value v) { return !v; }))
      return {};
    Value stacked = taps.size() == 1 ? taps[0] : g.build<ConcatOp>("taps", taps, {g.i64("axis", 2)}, mid);
    Value x2 = g.reshape(stacked, {n * dOut, kd * c, h, wd}, "input_2d");
    Value w2 =
        reorderedFilter(g, w, filterInput, {0, 2, 1, 3, 4}, {o, kd * ws[1], ws[3], ws[4]}, "filter_2d");
    y = x2 && w2 ? g.build<ConvOp>("2d", {x2, w2, b ? b : g.none()}, attrs, mid) : Value();
  } else {
    // Grouped (depthwise) taps cannot share one conv's channels: one grouped 2-D conv per tap, summed.
    std::optional<HostTensor> tapsMajor;
    if (const HostTensor *c = w == g.input(filterInput) ? g.constInput(filterInput) : nullptr)
      tapsMajor = transposeHost(*c, {2, 0, 1, 3, 4});
    for (int64_t k = 0; k < kd && (k == 0 || y); ++k) {
      Value tap = g.reshape(ops.slice(xt, 1, k * dd, sd, dOut, tapSuffix("tap", k)), {n * dOut, c, h, wd},
                            tapSuffix("input_2d", k));
      Value wk = filterTap(g, w, tapsMajor ? &*tapsMajor : nullptr, k, tapSuffix("filter_2d", k));
      Value yk = tap && wk
                     ? g.build<ConvOp>(tapSuffix("2d", k), {tap, wk, k == 0 && b ? b : g.none()}, attrs, mid)
                     : Value();
      y = k == 0 ? yk : ops.add(y, yk, tapSuffix("sum", k), mid);
    }
  }
  if (!y)
    return {};
  ArrayRef<int64_t> ys = getShape(y); // [N*D_out, O, H_out, W_out]
  Value y5 = g.reshape(y, {n, dOut, o, ys[2], ys[3]}, "depth_major_out");
  return y5 ? g.build<PermuteOp>("", {y5}, {g.i64s("order", {0, 2, 1, 3, 4})}, elem) : Value();
}

Value buildDeconv3D(GraphImporter &g, Value x, Value w, Value b, size_t filterInput, const Window3D &win,
                    ArrayRef<int64_t> outputPadding, int64_t group, Type elem) {
  if (!x || !w)
    return {};
  if (b && isa<NoneType>(b.getType()))
    b = {};
  Ops ops{g};
  ArrayRef<int64_t> xs = getShape(x), ws = getShape(w);
  const int64_t n = xs[0], c = xs[1], d = xs[2];
  const int64_t og = ws[1], o = og * group, kd = win.kernel[0], sd = win.strides[0], dd = win.dilations[0];
  // Depth before the pads crop it (output padding included), and after.
  const int64_t full = sd * (d - 1) + dd * (kd - 1) + 1 + outputPadding[0];
  const int64_t dOut = full - win.pads[0] - win.pads[3];
  if (dOut < 1) {
    (void)g.fail("the pads leave no output depth");
    return {};
  }
  Type mid = GraphImporter::elementTypeOf(x);
  Value x2 = g.reshape(ops.permute(x, {0, 2, 1, 3, 4}, "depth_major"), {n * d, c, xs[3], xs[4]}, "input_2d");
  Value w2 = reorderedFilter(g, w, filterInput, {0, 2, 1, 3, 4}, {c, kd * og, ws[3], ws[4]}, "filter_2d");
  std::vector<NamedAttribute> attrs{g.i64s("kernel_shape", {win.kernel[1], win.kernel[2]}),
                                    g.i64s("strides", {win.strides[1], win.strides[2]}),
                                    g.i64s("pads", {win.pads[1], win.pads[2], win.pads[4], win.pads[5]}),
                                    g.i64s("dilations", {win.dilations[1], win.dilations[2]}),
                                    g.i64s("output_padding", {outputPadding[1], outputPadding[2]}),
                                    g.i64("group", group)};
  // Upsampling along D (kernel = stride, no dilation, pads or output padding): every output depth takes one
  // tap, so a constant bias goes into the 2-D transposed conv, repeated for each tap's channels.
  const bool upsampling =
      kd == sd && dd == 1 && win.pads[0] == 0 && win.pads[3] == 0 && outputPadding[0] == 0;
  Value bias2 = g.none();
  const HostTensor *constBias = b && g.hasInput(2) && b == g.input(2) ? g.constInput(2) : nullptr;
  if (upsampling && constBias && constBias->isFloat()) {
    HostTensor tiled;
    tiled.dtype = constBias->dtype;
    tiled.shape = {group * kd * og};
    for (int64_t gr = 0; gr < group; ++gr)
      for (int64_t k = 0; k < kd; ++k)
        for (int64_t oo = 0; oo < og; ++oo)
          tiled.f.push_back(constBias->f[gr * og + oo]);
    bias2 = g.materialize(g.nodeName() + "_bias_2d", tiled);
    b = {};
  }
  Value y2 = x2 && w2 && bias2 ? g.build<DeconvOp>("2d", {x2, w2, bias2}, attrs, mid) : Value();
  if (!y2)
    return {};
  const int64_t ho = getShape(y2)[2], wo = getShape(y2)[3], plane = ho * wo;
  // [N*D, group*kD*O/group, Ho, Wo] -> [N, D, group, kD, O/group, Ho*Wo]
  Value taps = g.reshape(y2, {n, d, group, kd, og, plane}, "taps");
  Value depthMajor; // [N, D_out, O, Ho, Wo]
  if (upsampling) {
    // Output depth d*kD + k takes tap k of input depth d, nothing overlaps.
    Value ordered = group == 1 ? taps : ops.permute(taps, {0, 1, 3, 2, 4, 5}, "taps_order");
    depthMajor = g.reshape(ordered, {n, d * kd, o, ho, wo}, "depth_major_out");
  } else {
    Value sum;
    for (int64_t k = 0; k < kd && (k == 0 || sum); ++k) {
      // Tap k as [N, D, 1, O*plane]; zeros after each depth spread it to stride sd, then it shifts by k*dd.
      Value t = g.reshape(ops.slice(taps, 3, k, 1, 1, tapSuffix("tap", k)), {n, d, 1, o * plane},
                          tapSuffix("tap_flat", k));
      t = g.reshape(ops.pad(t, Ops::axisPads(4, 2, 0, sd - 1), tapSuffix("strided", k)),
                    {n, d * sd, o * plane}, tapSuffix("spread", k));
      int64_t shift = k * dd, length = shift + d * sd;
      t = ops.pad(t, Ops::axisPads(3, 1, shift, std::max<int64_t>(0, full - length)), tapSuffix("shift", k));
      t = ops.slice(t, 1, 0, 1, full, tapSuffix("fit", k));
      sum = k == 0 ? t : ops.add(sum, t, tapSuffix("sum", k), mid);
    }
    depthMajor = g.reshape(ops.slice(sum, 1, win.pads[0], 1, dOut, "depth_crop"), {n, dOut, o, ho, wo},
                           "depth_major_out");
  }
  if (!depthMajor)
    return {};
  if (!b)
    return g.build<PermuteOp>("", {depthMajor}, {g.i64s("order", {0, 2, 1, 3, 4})}, elem);
  Value y = ops.permute(depthMajor, {0, 2, 1, 3, 4}, "unbiased");
  Value bias = g.reshape(b, {1, o, 1, 1, 1}, "bias_5d");
  return y && bias ? g.build<AddOp>("", {y, bias}, {}, elem) : Value();
}

Value buildPool3D(GraphImporter &g, Value x, bool max, const Window3D &win, bool ceilMode,
                  bool countIncludePad, Type elem) {
  if (!x)
    return {};
  ArrayRef<int64_t> xs = getShape(x);
  const int64_t n = xs[0], c = xs[1], d = xs[2];
  auto pool = [&](Value v, ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                  StringRef suffix, Type type) -> Value {
    if (!v)
      return {};
    std::vector<NamedAttribute> attrs{g.i64s("kernel_shape", kernel), g.i64s("strides", strides),
                                      g.i64s("pads", pads), g.boolean("ceil_mode", ceilMode)};
    if (!max)
      attrs.push_back(g.boolean("count_include_pad", countIncludePad));
    return max ? g.build<MaxPoolOp>(suffix, {v}, attrs, type) : g.build<AvgPoolOp>(suffix, {v}, attrs, type);
  };
  Type mid = GraphImporter::elementTypeOf(x);
  // Over H, W with the depth folded into the channels, then over D with H_out*W_out as the width.
  Value hw =
      pool(g.reshape(x, {n, c * d, xs[3], xs[4]}, "hw_input"), {win.kernel[1], win.kernel[2]},
           {win.strides[1], win.strides[2]}, {win.pads[1], win.pads[2], win.pads[4], win.pads[5]}, "hw", mid);
  if (!hw)
    return {};
  const int64_t ho = getShape(hw)[2], wo = getShape(hw)[3];
  Value dp = pool(g.reshape(hw, {n, c, d, ho * wo}, "d_input"), {win.kernel[0], 1}, {win.strides[0], 1},
                  {win.pads[0], 0, win.pads[3], 0}, "d", mid);
  return dp ? g.reshape(dp, {n, c, getShape(dp)[2], ho, wo}, "") : Value();
}

} // namespace tpuc::importer
