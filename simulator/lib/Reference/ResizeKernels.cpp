//===- ResizeKernels.cpp - Nearest, linear and cubic resize (ONNX Resize) ----===//
// Per-axis source tables computed once with ONNX Runtime's float arithmetic (scale = out / in, or the
// scales ONNX gives), then one task per plane.
//===----------------------------------------------------------------------===//
#include "Kernels.h"

#include <cmath>
#include <optional>
#include <vector>

using namespace mlir;

namespace tpuc::sim::ref {
namespace {

/// How one axis is resized: sizes, and the scale coordinates map by (out / in, or ONNX's given scale).
struct AxisResize {
  int64_t in, out;
  float scale;
  bool givenScale;
};

/// Where output index `o` samples the input along an axis (ONNX coordinate_transformation_mode). With a
/// given scale, align_corners divides by in * scale, as ONNX's reference does.
float sourceCoord(int64_t o, const AxisResize &a, top::CoordMode mode) {
  float x = static_cast<float>(o), scale = a.scale;
  switch (mode) {
  case top::CoordMode::half_pixel:
    return (x + 0.5f) / scale - 0.5f;
  case top::CoordMode::pytorch_half_pixel:
    return a.out > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
  case top::CoordMode::align_corners: {
    float outWidth = a.givenScale ? scale * static_cast<float>(a.in) : static_cast<float>(a.out);
    return outWidth == 1.0f ? 0.0f : x * static_cast<float>(a.in - 1) / (outWidth - 1.0f);
  }
  case top::CoordMode::asymmetric:
    return x / scale;
  case top::CoordMode::tf_half_pixel_for_nn:
    return (x + 0.5f) / scale;
  }
  return 0.0f;
}

/// A source sample along one axis: lower and upper neighbours and the weight of the upper one.
struct Tap {
  int64_t lo, hi;
  float weight;
};

/// The input index nearest resize takes for source coordinate `c` (ONNX nearest_mode).
int64_t nearestIndex(float c, top::NearestMode mode) {
  float f = std::floor(c);
  switch (mode) {
  case top::NearestMode::floor:
    return static_cast<int64_t>(f);
  case top::NearestMode::ceil:
    return static_cast<int64_t>(std::ceil(c));
  case top::NearestMode::round_prefer_floor:
    return static_cast<int64_t>(c - f == 0.5f ? f : std::round(c));
  case top::NearestMode::round_prefer_ceil:
    return static_cast<int64_t>(c - f == 0.5f ? f + 1.0f : std::round(c));
  }
  return static_cast<int64_t>(f);
}

std::vector<Tap> axisTaps(const AxisResize &a, top::CoordMode mode, bool nearest,
                          std::optional<top::NearestMode> nearestMode) {
  int64_t in = a.in, out = a.out;
  // Without a nearest_mode: `floor` with asymmetric coordinates, `round_prefer_floor` otherwise.
  top::NearestMode rounding = nearestMode ? *nearestMode
                              : mode == top::CoordMode::asymmetric ? top::NearestMode::floor
                                                                   : top::NearestMode::round_prefer_floor;
  std::vector<Tap> taps;
  for (int64_t o = 0; o < out; ++o) {
    float c = sourceCoord(o, a, mode);
    if (nearest) {
      int64_t i = nearestIndex(c, rounding);
      i = std::clamp<int64_t>(i, 0, in - 1);
      taps.push_back({i, i, 0.0f});
      continue;
    }
    c = std::clamp(c, 0.0f, static_cast<float>(in - 1));
    int64_t lo = static_cast<int64_t>(c), hi = std::min(lo + 1, in - 1);
    taps.push_back({lo, hi, hi == lo ? 0.0f : c - static_cast<float>(lo)});
  }
  return taps;
}

/// Cubic: four taps per output index around floor(c), with ONNX's kernel of parameter `A`; samples past
/// the edges repeat the edge (ONNX pads with edge values), or with `excludeOutside` get no weight and the
/// others are renormalized.
struct CubicTaps {
  std::vector<int64_t> index; // 4 per output index
  std::vector<float> weight;
};

CubicTaps cubicTaps(const AxisResize &a, top::CoordMode mode, float A, bool excludeOutside) {
  CubicTaps t;
  for (int64_t o = 0; o < a.out; ++o) {
    float c = sourceCoord(o, a, mode);
    float f = std::floor(c), r = c - f;
    float w[4] = {((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A,
                  ((A + 2) * r - (A + 3)) * r * r + 1, ((A + 2) * (1 - r) - (A + 3)) * (1 - r) * (1 - r) + 1,
                  ((A * (2 - r) - 5 * A) * (2 - r) + 8 * A) * (2 - r) - 4 * A};
    float sum = 0;
    for (int k = 0; k < 4; ++k) {
      int64_t i = static_cast<int64_t>(f) - 1 + k;
      if (excludeOutside && (i < 0 || i >= a.in))
        w[k] = 0;
      sum += w[k];
      t.index.push_back(std::clamp<int64_t>(i, 0, a.in - 1));
    }
    for (int k = 0; k < 4; ++k)
      t.weight.push_back(excludeOutside && sum != 0 ? w[k] / sum : w[k]);
  }
  return t;
}

} // namespace

LogicalResult run(top::InterpOp op, Inputs in, Outputs out) {
  auto inShape = shapeOf(op.getInput()), outShape = shapeOf(op.getOutput());
  bool is2d = inShape.size() == 4;
  int64_t planes = inShape[0] * inShape[1];
  int64_t ih = is2d ? inShape[2] : 1, iw = inShape.back();
  int64_t oh = is2d ? outShape[2] : 1, ow = outShape.back();
  AxisResize ay{ih, oh, static_cast<float>(oh) / static_cast<float>(ih), false};
  AxisResize ax{iw, ow, static_cast<float>(ow) / static_cast<float>(iw), false};
  if (op.getScales()) { // ONNX scales of every axis; the spatial ones are the last one or two
    const float *s = in[1];
    int64_t rank = static_cast<int64_t>(inShape.size());
    if (is2d)
      ay = {ih, oh, s[rank - 2], true};
    ax = {iw, ow, s[rank - 1], true};
    for (const AxisResize *a : {&ay, &ax})
      if (!(a->scale > 0) || !std::isfinite(a->scale))
        return op.emitOpError() << "'scales' value " << a->scale << " is not a positive number";
  }
  const float *x = in[0];
  float *y = out[0];
  if (op.getMode() == top::InterpMode::cubic) {
    float A = static_cast<float>(op.getCubicCoeffA().convertToDouble());
    CubicTaps cy = is2d ? cubicTaps(ay, op.getCoordMode(), A, op.getExcludeOutside())
                        : CubicTaps{{0, 0, 0, 0}, {0, 1, 0, 0}};
    CubicTaps cx = cubicTaps(ax, op.getCoordMode(), A, op.getExcludeOutside());
    parallelFor(planes, rowGrain(oh * ow * 20), [&](int64_t begin, int64_t end) {
      std::vector<float> rows(4 * ow);
      for (int64_t p = begin; p < end; ++p) {
        const float *src = x + p * ih * iw;
        float *dst = y + p * oh * ow;
        for (int64_t oy = 0; oy < oh; ++oy) {
          for (int k = 0; k < 4; ++k) { // the four source rows resized along x
            const float *r = src + cy.index[oy * 4 + k] * iw;
            for (int64_t ox = 0; ox < ow; ++ox) {
              const int64_t *i = &cx.index[ox * 4];
              const float *w = &cx.weight[ox * 4];
              rows[k * ow + ox] = w[0] * r[i[0]] + w[1] * r[i[1]] + w[2] * r[i[2]] + w[3] * r[i[3]];
            }
          }
          const float *w = &cy.weight[oy * 4];
          for (int64_t ox = 0; ox < ow; ++ox)
            dst[oy * ow + ox] =
                w[0] * rows[ox] + w[1] * rows[ow + ox] + w[2] * rows[2 * ow + ox] + w[3] * rows[3 * ow + ox];
        }
      }
    });
    return success();
  }
  bool nearest = op.getMode() == top::InterpMode::nearest;
  std::vector<Tap> ty = axisTaps(ay, op.getCoordMode(), nearest, op.getNearestMode());
  std::vector<Tap> tx = axisTaps(ax, op.getCoordMode(), nearest, op.getNearestMode());
  parallelFor(planes, rowGrain(oh * ow * (nearest ? 1 : 4)), [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const float *src = x + p * ih * iw;
      float *dst = y + p * oh * ow;
      for (int64_t oy = 0; oy < oh; ++oy) {
        const float *r0 = src + ty[oy].lo * iw, *r1 = src + ty[oy].hi * iw;
        float wy = ty[oy].weight;
        float *row = dst + oy * ow;
        if (nearest) {
          for (int64_t ox = 0; ox < ow; ++ox)
            row[ox] = r0[tx[ox].lo];
          continue;
        }
        for (int64_t ox = 0; ox < ow; ++ox) {
          const Tap &t = tx[ox];
          float top = r0[t.lo] + (r0[t.hi] - r0[t.lo]) * t.weight;
          float bottom = r1[t.lo] + (r1[t.hi] - r1[t.lo]) * t.weight;
          row[ox] = top + (bottom - top) * wy;
        }
      }
    }
  });
  return success();
}

} // namespace tpuc::sim::ref
