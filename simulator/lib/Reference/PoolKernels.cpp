//===- PoolKernels.cpp - Max, average and adaptive average pooling ---------===//
// ONNX Runtime's window rules: a window is clipped to the padded input (ceil-mode windows may overhang
// the end pad), padded cells never win a max and count in an average only with count_include_pad.
// Windows are reduced over the stride phases of the input (Window.h), one plane per task.
//===----------------------------------------------------------------------===//
#include "Kernels.h"
#include "Window.h"

#include <cstring>
#include <limits>
#include <vector>

using namespace mlir;

namespace tpuc::sim::ref {
namespace {

/// A window along one axis: [begin, end) clipped to the input and the size it has inside the pads.
struct Window {
  int64_t begin, end, padded;
};
Window window(int64_t o, int64_t stride, int64_t padBegin, int64_t padEnd, int64_t kernel, int64_t size) {
  int64_t start = o * stride - padBegin;
  int64_t stop = std::min(start + kernel, size + padEnd);
  return {std::max<int64_t>(start, 0), std::min(stop, size), stop - start};
}

template <typename OpT> Geometry poolGeometry(OpT op) {
  SmallVector<int64_t> ones(op.getKernelShape().size(), 1);
  return makeGeometry(shapeOf(op.getInput()), shapeOf(op.getOutput()), op.getKernelShape(), op.getStrides(),
                      op.getPads(), ones, 1);
}

/// The end pads (bottom, right) of a 1-D or 2-D pool.
template <typename OpT> std::pair<int64_t, int64_t> endPads(OpT op) {
  auto p = op.getPads();
  return p.size() == 4 ? std::pair<int64_t, int64_t>{p[2], p[3]} : std::pair<int64_t, int64_t>{0, p[1]};
}

/// Max (`isMax`) or sum over every window of one plane, through the stride phases of the input
/// (Window.h) so each tap is one contiguous, vectorized pass; the result has row stride `ph.wq`.
__attribute__((target_clones("avx512f", "avx2", "default"))) void
reducePlane(const Geometry &g, const Phases &ph, const int64_t *offsets, const float **taps, const float *src,
            bool isMax, float *__restrict acc, float *__restrict buffer) {
  buildPhases(g, ph, src, isMax ? -std::numeric_limits<float>::infinity() : 0.0f, buffer);
  int64_t total = g.oh * ph.wq;
  int64_t numTaps = g.kh * g.kw;
  for (int64_t t = 0; t < numTaps; ++t)
    taps[t] = buffer + offsets[t];
  if (isMax)
    combineTaps<TapOp::Max>(numTaps, total, acc, std::numeric_limits<float>::lowest(), taps, nullptr);
  else
    combineTaps<TapOp::Add>(numTaps, total, acc, 0.0f, taps, nullptr);
}

/// Runs a pool one plane per task; `finish(acc, oy, out row)` turns a row of window results into output.
template <typename Finish>
void poolPlanes(const Geometry &g, const float *x, bool isMax, float *y, Finish finish) {
  Phases ph(g);
  std::vector<int64_t> offsets = tapOffsets(g, ph);
  int64_t planes = g.n * g.oc;
  parallelFor(planes, rowGrain(g.oh * g.ow * g.kh * g.kw), [&](int64_t begin, int64_t end) {
    float *buffer = scratch(g.sh * g.sw * ph.planeSize + g.oh * ph.wq);
    float *acc = buffer + g.sh * g.sw * ph.planeSize;
    std::vector<const float *> taps(offsets.size());
    for (int64_t p = begin; p < end; ++p) {
      reducePlane(g, ph, offsets.data(), taps.data(), x + p * g.ih * g.iw, isMax, acc, buffer);
      for (int64_t oy = 0; oy < g.oh; ++oy)
        finish(acc + oy * ph.wq, oy, y + (p * g.oh + oy) * g.ow);
    }
  });
}

} // namespace

LogicalResult run(top::MaxPoolOp op, Inputs in, Outputs out) {
  Geometry g = poolGeometry(op);
  poolPlanes(g, in[0], true, out[0],
             [&](const float *acc, int64_t, float *row) { std::memcpy(row, acc, g.ow * sizeof(float)); });
  maybeRelu(op.getDoRelu(), out[0], numel(op.getOutput()), op.getReluLimit().convertToDouble());
  return success();
}

LogicalResult run(top::AvgPoolOp op, Inputs in, Outputs out) {
  Geometry g = poolGeometry(op);
  auto [padBottom, padRight] = endPads(op);
  bool includePad = op.getCountIncludePad();
  // The divisor is separable: cells counted along y times cells counted along x.
  std::vector<float> countY(g.oh), countX(g.ow);
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    Window w = window(oy, g.sh, g.padTop, padBottom, g.kh, g.ih);
    countY[oy] = static_cast<float>(includePad ? w.padded : w.end - w.begin);
  }
  for (int64_t ox = 0; ox < g.ow; ++ox) {
    Window w = window(ox, g.sw, g.padLeft, padRight, g.kw, g.iw);
    countX[ox] = static_cast<float>(includePad ? w.padded : w.end - w.begin);
  }
  poolPlanes(g, in[0], false, out[0], [&](const float *acc, int64_t oy, float *row) {
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      float count = countY[oy] * countX[ox];
      row[ox] = count > 0 ? acc[ox] / count : 0.0f;
    }
  });
  maybeRelu(op.getDoRelu(), out[0], numel(op.getOutput()), op.getReluLimit().convertToDouble());
  return success();
}

LogicalResult run(top::AdaptiveAvgPoolOp op, Inputs in, Outputs out) {
  auto inShape = shapeOf(op.getInput()), outShape = shapeOf(op.getOutput());
  bool is2d = inShape.size() == 4;
  int64_t planes = inShape[0] * inShape[1];
  int64_t ih = is2d ? inShape[2] : 1, iw = inShape.back();
  int64_t oh = is2d ? outShape[2] : 1, ow = outShape.back();
  const float *x = in[0];
  float *y = out[0];
  // Cell i averages [floor(i * in / out), ceil((i + 1) * in / out)).
  auto bounds = [](int64_t i, int64_t size, int64_t outSize) {
    return std::pair<int64_t, int64_t>{i * size / outSize, ((i + 1) * size + outSize - 1) / outSize};
  };
  parallelFor(planes, rowGrain(ih * iw), [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const float *src = x + p * ih * iw;
      for (int64_t oy = 0; oy < oh; ++oy) {
        auto [y0, y1] = bounds(oy, ih, oh);
        for (int64_t ox = 0; ox < ow; ++ox) {
          auto [x0, x1] = bounds(ox, iw, ow);
          double sum = 0.0;
          for (int64_t iy = y0; iy < y1; ++iy)
            for (int64_t ix = x0; ix < x1; ++ix)
              sum += src[iy * iw + ix];
          y[(p * oh + oy) * ow + ox] = static_cast<float>(sum / ((y1 - y0) * (x1 - x0)));
        }
      }
    }
  });
  return success();
}

} // namespace tpuc::sim::ref
