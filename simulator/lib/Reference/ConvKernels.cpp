//===- ConvKernels.cpp - Convolution and transposed convolution -----------===//
// Conv: blocks of output columns spread over the pool, each unfolded (im2col, skipped for 1x1 / stride 1 /
// no pad) into a cache-sized buffer and multiplied by one single-threaded OpenBLAS GEMM. Depthwise convs
// (one input channel per group) run directly over stride phases (Window.h), one plane per task.
// Deconv: GEMM into columns, then col2im scatter-add per output channel.
//===----------------------------------------------------------------------===//
#include "Kernels.h"
#include "Window.h"

#include <cstring>
#include <vector>

using namespace mlir;

namespace tpuc::sim::ref {
namespace {

/// Unfolds output columns [c0, c1) (flat oy * ow + ox) of the `channels` input planes at `x` into the
/// [channels*kh*kw, c1 - c0] matrix `col`.
void im2colBlock(const Geometry &g, int64_t channels, const float *x, int64_t c0, int64_t c1, float *col) {
  int64_t width = c1 - c0;
  for (int64_t r = 0, rows = channels * g.kh * g.kw; r < rows; ++r) {
    int64_t c = r / (g.kh * g.kw), ky = (r / g.kw) % g.kh, kx = r % g.kw;
    const float *src = x + c * g.ih * g.iw;
    int64_t xOffset = kx * g.dw - g.padLeft;
    auto [lo, hi] = validRange(g.ow, g.sw, xOffset, g.iw);
    float *dst = col + r * width;
    for (int64_t j = c0; j < c1;) {
      int64_t oy = j / g.ow, ox0 = j % g.ow, ox1 = std::min(g.ow, ox0 + (c1 - j));
      int64_t iy = oy * g.sh - g.padTop + ky * g.dh;
      if (iy < 0 || iy >= g.ih) {
        std::fill(dst, dst + (ox1 - ox0), 0.0f);
      } else {
        const float *row = src + iy * g.iw;
        int64_t a = std::clamp(lo, ox0, ox1), b = std::clamp(hi, ox0, ox1);
        std::fill(dst, dst + (a - ox0), 0.0f);
        if (g.sw == 1)
          std::memcpy(dst + (a - ox0), row + a + xOffset, (b - a) * sizeof(float));
        else
          for (int64_t ox = a; ox < b; ++ox)
            dst[ox - ox0] = row[ox * g.sw + xOffset];
        std::fill(dst + (b - ox0), dst + (ox1 - ox0), 0.0f);
      }
      dst += ox1 - ox0;
      j += ox1 - ox0;
    }
  }
}

/// Adds `bias` per row to the [rows, c1 - c0] block of `out` (row stride `ld`) and applies the Relu.
void finishBlock(float *out, int64_t rows, int64_t width, int64_t ld, const float *bias, bool doRelu,
                 float hi) {
  for (int64_t r = 0; r < rows; ++r) {
    float b = bias ? bias[r] : 0.0f, *o = out + r * ld;
    if (doRelu)
      for (int64_t i = 0; i < width; ++i)
        o[i] = std::min(std::max(o[i] + b, 0.0f), hi);
    else if (bias)
      for (int64_t i = 0; i < width; ++i)
        o[i] += b;
  }
}

/// Adds the bias (if any) and applies the fused Relu, one output plane per task.
void finishPlanes(const Geometry &g, float *out, const float *bias, bool doRelu, double limit) {
  int64_t plane = g.oh * g.ow;
  if (!bias && !doRelu)
    return;
  float hi = limit > 0 ? static_cast<float>(limit) : INFINITY;
  parallelFor(g.n * g.oc, rowGrain(plane), [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      float b = bias ? bias[p % g.oc] : 0.0f;
      float *o = out + p * plane;
      if (doRelu)
        for (int64_t i = 0; i < plane; ++i)
          o[i] = std::min(std::max(o[i] + b, 0.0f), hi);
      else
        for (int64_t i = 0; i < plane; ++i)
          o[i] += b;
    }
  });
}

/// One output plane of a depthwise conv over the stride phases of its input (Window.h): every kernel tap
/// is one contiguous multiply-add over an output laid out with the phase width (columns past `ow` are
/// scratch), which the compiler vectorizes, here for AVX-512 and AVX2 too (chosen at run time).
__attribute__((target_clones("avx512f", "avx2", "default"))) void
depthwisePlane(const Geometry &g, const Phases &ph, const int64_t *offsets, const float **taps,
               const float *src, const float *kernel, float bias, bool doRelu, float hi,
               float *__restrict out, float *__restrict buffer) {
  buildPhases(g, ph, src, 0.0f, buffer);
  int64_t wq = ph.wq, total = g.oh * wq;
  float *__restrict acc = buffer + g.sh * g.sw * ph.planeSize;
  for (int64_t t = 0; t < g.kh * g.kw; ++t)
    taps[t] = buffer + offsets[t];
  combineTaps<TapOp::MulAdd>(g.kh * g.kw, total, acc, bias, taps, kernel);
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    const float *a = acc + oy * wq;
    float *o = out + oy * g.ow;
    if (doRelu)
      for (int64_t ox = 0; ox < g.ow; ++ox)
        o[ox] = std::min(std::max(a[ox], 0.0f), hi);
    else
      std::memcpy(o, a, g.ow * sizeof(float));
  }
}

/// Convolution with one input channel per group (depthwise, possibly with a channel multiplier), one
/// output plane per task.
void depthwiseConv(const Geometry &g, const float *x, const float *w, const float *bias, bool doRelu,
                   float hi, float *out) {
  int64_t plane = g.oh * g.ow, ocPerGroup = g.oc / g.group;
  Phases ph(g);
  std::vector<int64_t> offsets = tapOffsets(g, ph);
  parallelFor(g.n * g.oc, rowGrain(plane * g.kh * g.kw), [&](int64_t begin, int64_t end) {
    float *buffer = scratch(ph.scratchSize(g));
    std::vector<const float *> taps(offsets.size());
    for (int64_t p = begin; p < end; ++p) {
      int64_t n = p / g.oc, oc = p % g.oc, ic = oc / ocPerGroup;
      depthwisePlane(g, ph, offsets.data(), taps.data(), x + (n * g.ic + ic) * g.ih * g.iw,
                     w + oc * g.kh * g.kw, bias ? bias[oc] : 0.0f, doRelu, hi, out + p * plane, buffer);
    }
  });
}

} // namespace

LogicalResult run(top::ConvOp op, Inputs in, Outputs out) {
  Geometry g = makeGeometry(shapeOf(op.getInput()), shapeOf(op.getOutput()), op.getKernelShape(),
                            op.getStrides(), op.getPads(), op.getDilations(), op.getGroup());
  const float *x = in[0], *w = in[1], *bias = in[2];
  float *y = out[0];
  int64_t icg = g.ic / g.group, ocg = g.oc / g.group;
  bool doRelu = op.getDoRelu();
  double limit = op.getReluLimit().convertToDouble();
  float hi = limit > 0 ? static_cast<float>(limit) : INFINITY;
  if (icg == 1 && g.group > 1) {
    depthwiseConv(g, x, w, bias, doRelu, hi, y);
    return success();
  }
  int64_t k = icg * g.kh * g.kw, plane = g.oh * g.ow;
  bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.padTop == 0 && g.padLeft == 0 &&
                   g.oh == g.ih && g.ow == g.iw;
  // Tasks are blocks of output columns: each unfolds its block into a thread-local buffer that stays in
  // cache (about 512 KiB), multiplies it with one OpenBLAS call and finishes bias and Relu while the
  // output block is still in cache.
  int64_t threads = ThreadPool::global().numThreads();
  // Columns per block: the unfolded input (k rows) and the output block (ocg rows) both stay in cache.
  int64_t block = std::max<int64_t>(64, (int64_t{1} << 17) / std::max<int64_t>(std::max(k, ocg), 1));
  block = std::min(block, (plane + threads - 1) / threads); // at least one block per thread
  block = std::max<int64_t>(16, (block + 15) / 16 * 16);
  int64_t blocks = (plane + block - 1) / block;
  parallelFor(g.n * g.group * blocks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      int64_t n = task / (g.group * blocks), grp = (task / blocks) % g.group;
      int64_t c0 = (task % blocks) * block, c1 = std::min(plane, c0 + block);
      const float *xg = x + (n * g.ic + grp * icg) * g.ih * g.iw;
      float *yg = y + (n * g.oc + grp * ocg) * plane + c0;
      if (pointwise) {
        gemmSerial(false, false, ocg, c1 - c0, k, w + grp * ocg * k, k, xg + c0, plane, yg, plane);
      } else {
        float *col = scratch(k * (c1 - c0));
        im2colBlock(g, icg, xg, c0, c1, col);
        gemmSerial(false, false, ocg, c1 - c0, k, w + grp * ocg * k, k, col, c1 - c0, yg, plane);
      }
      finishBlock(yg, ocg, c1 - c0, plane, bias ? bias + grp * ocg : nullptr, doRelu, hi);
    }
  });
  return success();
}

LogicalResult run(top::DeconvOp op, Inputs in, Outputs out) {
  Geometry g = makeGeometry(shapeOf(op.getInput()), shapeOf(op.getOutput()), op.getKernelShape(),
                            op.getStrides(), op.getPads(), op.getDilations(), op.getGroup());
  const float *x = in[0], *w = in[1], *bias = in[2];
  float *y = out[0];
  int64_t icg = g.ic / g.group, ocg = g.oc / g.group;
  int64_t k = ocg * g.kh * g.kw, inPlane = g.ih * g.iw, outPlane = g.oh * g.ow;
  float *col = scratch(k * inPlane);
  std::fill(y, y + g.n * g.oc * outPlane, 0.0f);
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t grp = 0; grp < g.group; ++grp) {
      // col[ocg*kh*kw, ih*iw] = W_g^T x X_g, with W_g stored [icg, ocg*kh*kw].
      gemm(true, false, k, inPlane, icg, w + grp * icg * k, k, x + (n * g.ic + grp * icg) * inPlane, inPlane,
           col, inPlane);
      float *yg = y + (n * g.oc + grp * ocg) * outPlane;
      parallelFor(ocg, rowGrain(g.kh * g.kw * inPlane), [&](int64_t begin, int64_t end) {
        for (int64_t oc = begin; oc < end; ++oc) {
          float *o = yg + oc * outPlane;
          for (int64_t ky = 0; ky < g.kh; ++ky) {
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              const float *src = col + ((oc * g.kh + ky) * g.kw + kx) * inPlane;
              int64_t xOffset = kx * g.dw - g.padLeft;
              auto [lo, hi] = validRange(g.iw, g.sw, xOffset, g.ow);
              for (int64_t iy = 0; iy < g.ih; ++iy) {
                int64_t oy = iy * g.sh - g.padTop + ky * g.dh;
                if (oy < 0 || oy >= g.oh)
                  continue;
                float *orow = o + oy * g.ow;
                const float *srow = src + iy * g.iw;
                for (int64_t ix = lo; ix < hi; ++ix)
                  orow[ix * g.sw + xOffset] += srow[ix];
              }
            }
          }
        }
      });
    }
  }
  finishPlanes(g, y, bias, op.getDoRelu(), op.getReluLimit().convertToDouble());
  return success();
}

} // namespace tpuc::sim::ref
