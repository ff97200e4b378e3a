//===- ResizeKernels.cpp - Nearest and linear resize (ONNX Resize) ----------===//
// Per-axis source tables computed once with ONNX Runtime's float arithmetic (scale = out / in), then
// one task per plane.
//===----------------------------------------------------------------------===//
#include "Kernels.h"

#include <optional>
#include <vector>

using namespace mlir;

namespace tpuc::sim::ref {
namespace {

/// Where output index `o` of an axis resized from `in` to `out` samples the input (ONNX
/// coordinate_transformation_mode).
float sourceCoord(int64_t o, int64_t in, int64_t out, top::CoordMode mode) {
  float scale = static_cast<float>(out) / static_cast<float>(in);
  float x = static_cast<float>(o);
  switch (mode) {
  case top::CoordMode::half_pixel:
    return (x + 0.5f) / scale - 0.5f;
  case top::CoordMode::pytorch_half_pixel:
    return out > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
  case top::CoordMode::align_corners:
    return out == 1 ? 0.0f : x * static_cast<float>(in - 1) / static_cast<float>(out - 1);
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

std::vector<Tap> axisTaps(int64_t in, int64_t out, top::CoordMode mode, bool nearest,
                          std::optional<top::NearestMode> nearestMode) {
  // Without a nearest_mode: `floor` with asymmetric coordinates, `round_prefer_floor` otherwise.
  top::NearestMode rounding = nearestMode ? *nearestMode
                              : mode == top::CoordMode::asymmetric ? top::NearestMode::floor
                                                                   : top::NearestMode::round_prefer_floor;
  std::vector<Tap> taps;
  for (int64_t o = 0; o < out; ++o) {
    float c = sourceCoord(o, in, out, mode);
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

} // namespace

LogicalResult run(top::InterpOp op, Inputs in, Outputs out) {
  auto inShape = shapeOf(op.getInput()), outShape = shapeOf(op.getOutput());
  bool is2d = inShape.size() == 4;
  int64_t planes = inShape[0] * inShape[1];
  int64_t ih = is2d ? inShape[2] : 1, iw = inShape.back();
  int64_t oh = is2d ? outShape[2] : 1, ow = outShape.back();
  bool nearest = op.getMode() == top::InterpMode::nearest;
  std::vector<Tap> ty = axisTaps(ih, oh, op.getCoordMode(), nearest, op.getNearestMode());
  std::vector<Tap> tx = axisTaps(iw, ow, op.getCoordMode(), nearest, op.getNearestMode());
  const float *x = in[0];
  float *y = out[0];
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
