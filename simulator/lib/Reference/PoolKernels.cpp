//===- PoolKernels.cpp - Max, average, adaptive average and RoI pooling -----===//
// ONNX Runtime's window rules: a window is clipped to the padded input (ceil-mode windows may overhang
// the end pad), padded cells never win a max and count in an average only with count_include_pad.
// Windows are reduced over the stride phases of the input (Window.h), one plane per task. The max pool with
// indices and the RoI pools (RoiAlign, MaxRoiPool) follow ONNX Runtime's CPU kernels.
//===----------------------------------------------------------------------===//
#include "Kernels.h"
#include "Window.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
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

LogicalResult run(top::MaxPoolWithMaskOp op, Inputs in, Outputs out) {
  auto inShape = shapeOf(op.getInput()), outShape = shapeOf(op.getOutput());
  int64_t planes = inShape[0] * inShape[1], ih = inShape[2], iw = inShape[3], oh = outShape[2],
          ow = outShape[3];
  auto k = op.getKernelShape(), st = op.getStrides(), p = op.getPads();
  bool columnMajor = op.getStorageOrder();
  parallelFor(planes, rowGrain(oh * ow * k[0] * k[1]), [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) {
      const float *src = in[0] + plane * ih * iw;
      for (int64_t oy = 0; oy < oh; ++oy) {
        Window wy = window(oy, st[0], p[0], p[2], k[0], ih);
        for (int64_t ox = 0; ox < ow; ++ox) {
          Window wx = window(ox, st[1], p[1], p[3], k[1], iw);
          float best = std::numeric_limits<float>::lowest();
          int64_t by = wy.begin, bx = wx.begin;
          for (int64_t y = wy.begin; y < wy.end; ++y)
            for (int64_t x = wx.begin; x < wx.end; ++x)
              if (src[y * iw + x] > best)
                best = src[y * iw + x], by = y, bx = x;
          int64_t o = (plane * oh + oy) * ow + ox;
          out[0][o] = best;
          out[1][o] = static_cast<float>(plane * ih * iw + (columnMajor ? bx * ih + by : by * iw + bx));
        }
      }
    }
  });
  return success();
}

/// Zeros, then every value at its flat position in the indexed frame (placed in the possibly larger output);
/// an index that is not a position is named.
LogicalResult run(top::MaxUnpoolOp op, Inputs in, Outputs out) {
  auto outShape = shapeOf(op.getOutput());
  ArrayRef<int64_t> frame = op.getIndexedShape() ? *op.getIndexedShape() : outShape;
  int64_t count = numel(op.getInput()), total = product(frame, 0, 4);
  std::fill(out[0], out[0] + numel(op.getOutput()), 0.0f);
  for (int64_t i = 0; i < count; ++i) {
    float index = in[1][i];
    if (!(index >= 0.0f && index < static_cast<float>(total)) || std::floor(index) != index) {
      bool whole = std::isfinite(index) && std::floor(index) == index && std::abs(index) < 1e18f;
      std::string text = whole ? std::to_string(static_cast<long long>(index)) : std::to_string(index);
      return op.emitOpError() << "index " << text << " at input element " << i
                              << " is not a position of the indexed output (" << total << " elements)";
    }
    auto flat = static_cast<int64_t>(index);
    int64_t x = flat % frame[3], y = flat / frame[3] % frame[2], plane = flat / (frame[2] * frame[3]);
    out[0][(plane * outShape[2] + y) * outShape[3] + x] = in[0][i];
  }
  return success();
}

namespace {

/// The batch image of RoI `r`, checked against the input's batch.
FailureOr<int64_t> roiBatch(Operation *op, float value, int64_t batch, int64_t r) {
  auto b = static_cast<int64_t>(value);
  if (static_cast<float>(b) != value)
    return op->emitOpError() << "RoI " << r << " names batch index " << value << ", not a whole number";
  if (b < 0 || b >= batch)
    return op->emitOpError() << "RoI " << r << " names batch index " << b << " of an input with batch "
                             << batch;
  return b;
}

} // namespace

/// ONNX RoiAlign as ONNX Runtime computes it: a sample outside [-1, size] contributes 0, one in the last
/// pixel row or column is clamped to it; `max` keeps the largest weighted tap of each sample.
LogicalResult run(top::RoiAlignOp op, Inputs in, Outputs out) {
  auto inShape = shapeOf(op.getInput());
  int64_t batch = inShape[0], channels = inShape[1], height = inShape[2], width = inShape[3];
  int64_t numRois = shapeOf(op.getRois())[0], oh = static_cast<int64_t>(op.getOutputHeight()),
          ow = static_cast<int64_t>(op.getOutputWidth()), ratio = static_cast<int64_t>(op.getSamplingRatio());
  float scale = static_cast<float>(op.getSpatialScale().convertToDouble());
  float offset = op.getHalfPixel() ? 0.5f : 0.0f;
  bool isMax = op.getMode() == top::RoiMode::max;
  for (int64_t r = 0; r < numRois; ++r) {
    auto b = roiBatch(op, in[2][r], batch, r);
    if (failed(b))
      return failure();
    const float *box = in[1] + r * 4;
    float x0 = box[0] * scale - offset, y0 = box[1] * scale - offset;
    float roiW = box[2] * scale - offset - x0, roiH = box[3] * scale - offset - y0;
    if (!op.getHalfPixel())
      roiW = std::max(roiW, 1.0f), roiH = std::max(roiH, 1.0f);
    float binH = roiH / static_cast<float>(oh), binW = roiW / static_cast<float>(ow);
    int64_t gridH = ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(roiH / static_cast<float>(oh)));
    int64_t gridW = ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(roiW / static_cast<float>(ow)));
    float count = static_cast<float>(std::max<int64_t>(gridH * gridW, 1));
    // The four taps of every sample of every bin, shared by the channels.
    struct Tap {
      int64_t pos[4];
      float w[4];
    };
    std::vector<Tap> taps;
    taps.reserve(oh * ow * gridH * gridW);
    for (int64_t py = 0; py < oh; ++py)
      for (int64_t px = 0; px < ow; ++px)
        for (int64_t iy = 0; iy < gridH; ++iy)
          for (int64_t ix = 0; ix < gridW; ++ix) {
            float y = y0 + py * binH + (iy + 0.5f) * binH / static_cast<float>(gridH);
            float x = x0 + px * binW + (ix + 0.5f) * binW / static_cast<float>(gridW);
            Tap t{{0, 0, 0, 0}, {0, 0, 0, 0}};
            if (y >= -1.0f && y <= height && x >= -1.0f && x <= width) {
              y = std::max(y, 0.0f), x = std::max(x, 0.0f);
              auto yl = static_cast<int64_t>(y), xl = static_cast<int64_t>(x);
              int64_t yh = yl + 1, xh = xl + 1;
              if (yl >= height - 1)
                yh = yl = height - 1, y = static_cast<float>(yl);
              if (xl >= width - 1)
                xh = xl = width - 1, x = static_cast<float>(xl);
              float ly = y - yl, lx = x - xl, hy = 1.0f - ly, hx = 1.0f - lx;
              t = {{yl * width + xl, yl * width + xh, yh * width + xl, yh * width + xh},
                   {hy * hx, hy * lx, ly * hx, ly * lx}};
            }
            taps.push_back(t);
          }
    int64_t perBin = gridH * gridW;
    parallelFor(channels, rowGrain(oh * ow * perBin * 4), [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        const float *src = in[0] + (*b * channels + c) * height * width;
        float *dst = out[0] + (r * channels + c) * oh * ow;
        for (int64_t bin = 0; bin < oh * ow; ++bin) {
          float acc = 0.0f;
          for (int64_t s = 0; s < perBin; ++s) {
            const Tap &t = taps[bin * perBin + s];
            if (isMax) {
              float m = std::max(std::max(t.w[0] * src[t.pos[0]], t.w[1] * src[t.pos[1]]),
                                 std::max(t.w[2] * src[t.pos[2]], t.w[3] * src[t.pos[3]]));
              acc = s == 0 ? m : std::max(acc, m);
            } else {
              acc += t.w[0] * src[t.pos[0]] + t.w[1] * src[t.pos[1]] + t.w[2] * src[t.pos[2]] +
                     t.w[3] * src[t.pos[3]];
            }
          }
          dst[bin] = isMax ? acc : acc / count;
        }
      }
    });
  }
  return success();
}

/// ONNX MaxRoiPool (Caffe's ROIPooling, as ONNX Runtime and torchvision compute it): the box rounded to whole
/// pixels with its end included, bins of floor/ceil bounds clipped to the image, an empty bin 0.
LogicalResult run(top::RoiPoolingOp op, Inputs in, Outputs out) {
  auto inShape = shapeOf(op.getInput());
  int64_t batch = inShape[0], channels = inShape[1], height = inShape[2], width = inShape[3];
  int64_t numRois = shapeOf(op.getRois())[0], ph = op.getPooledShape()[0], pw = op.getPooledShape()[1];
  float scale = static_cast<float>(op.getSpatialScale().convertToDouble());
  for (int64_t r = 0; r < numRois; ++r) {
    const float *box = in[1] + r * 5;
    auto b = roiBatch(op, box[0], batch, r);
    if (failed(b))
      return failure();
    auto px = [&](float v) { return static_cast<int64_t>(std::round(v * scale)); };
    int64_t x0 = px(box[1]), y0 = px(box[2]), x1 = px(box[3]), y1 = px(box[4]);
    float binH = static_cast<float>(std::max<int64_t>(y1 - y0 + 1, 1)) / static_cast<float>(ph);
    float binW = static_cast<float>(std::max<int64_t>(x1 - x0 + 1, 1)) / static_cast<float>(pw);
    auto bounds = [](int64_t i, float bin, int64_t start, int64_t size) {
      auto lo = static_cast<int64_t>(std::floor(i * bin)),
           hi = static_cast<int64_t>(std::ceil((i + 1) * bin));
      return std::pair<int64_t, int64_t>{std::clamp<int64_t>(lo + start, 0, size),
                                         std::clamp<int64_t>(hi + start, 0, size)};
    };
    for (int64_t c = 0; c < channels; ++c) {
      const float *src = in[0] + (*b * channels + c) * height * width;
      float *dst = out[0] + (r * channels + c) * ph * pw;
      for (int64_t oy = 0; oy < ph; ++oy) {
        auto [ys, ye] = bounds(oy, binH, y0, height);
        for (int64_t ox = 0; ox < pw; ++ox) {
          auto [xs, xe] = bounds(ox, binW, x0, width);
          float best = ye <= ys || xe <= xs ? 0.0f : std::numeric_limits<float>::lowest();
          for (int64_t y = ys; y < ye; ++y)
            for (int64_t x = xs; x < xe; ++x)
              best = std::max(best, src[y * width + x]);
          dst[oy * pw + ox] = best;
        }
      }
    }
  }
  return success();
}

} // namespace tpuc::sim::ref
