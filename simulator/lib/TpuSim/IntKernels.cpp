//===- IntKernels.cpp - Exact INT8 conv, matmul, pooling and requant epilogues ---===//
// Integer products are contracted by float32 sgemm in K-chunks short enough that every partial sum is
// an exactly representable integer (<= 2^24), then summed in int32 and requantized through TpucQuant.
//===----------------------------------------------------------------------===//
#include "tpuc/Simulator/TpuKernels.h"

#include "../Reference/Kernels.h"
#include "../Reference/PackedGemm.h"

#include <algorithm>
#include <cstring>

namespace tpuc::sim::tpu {
namespace {

/// Thread-local scratch buffers reused across calls (im2col columns, chunk products, accumulators).
template <typename T, int Slot>
T *localBuffer(int64_t n) {
  thread_local std::vector<T> buffer;
  if (static_cast<int64_t>(buffer.size()) < n)
    buffer.resize(n);
  return buffer.data();
}

/// Unfolds output columns [c0, c1) of `channels` input planes into col[channels*kh*kw, c1-c0] holding
/// x - zp (padding gives 0, the real zero). Rows are copied in contiguous runs of valid columns.
void im2colShifted(const ConvShape &s, int64_t channels, const float *x, float zp, int64_t c0, int64_t c1,
                   float *col) {
  int64_t width = c1 - c0;
  for (int64_t r = 0, rows = channels * s.kh * s.kw; r < rows; ++r) {
    int64_t c = r / (s.kh * s.kw), ky = (r / s.kw) % s.kh, kx = r % s.kw;
    const float *plane = x + c * s.ih * s.iw;
    int64_t xOffset = kx * s.dw - s.padLeft;
    // Valid output columns ox: 0 <= ox * sw + xOffset < iw.
    int64_t lo = xOffset >= 0 ? 0 : (-xOffset + s.sw - 1) / s.sw;
    int64_t last = s.iw - 1 - xOffset;
    int64_t hi = last < 0 ? 0 : std::min(s.ow, last / s.sw + 1);
    lo = std::min(lo, hi);
    float *dst = col + r * width;
    for (int64_t j = c0; j < c1;) {
      int64_t oy = j / s.ow, ox0 = j % s.ow, ox1 = std::min(s.ow, ox0 + (c1 - j));
      int64_t iy = oy * s.sh - s.padTop + ky * s.dh;
      float *d = dst - ox0;
      if (iy < 0 || iy >= s.ih) {
        std::fill(d + ox0, d + ox1, 0.0f);
      } else {
        const float *row = plane + iy * s.iw + xOffset;
        int64_t a = std::clamp(lo, ox0, ox1), b = std::clamp(hi, ox0, ox1);
        std::fill(d + ox0, d + a, 0.0f);
        if (s.sw == 1)
          for (int64_t ox = a; ox < b; ++ox)
            d[ox] = row[ox] - zp;
        else
          for (int64_t ox = a; ox < b; ++ox)
            d[ox] = row[ox * s.sw] - zp;
        std::fill(d + b, d + ox1, 0.0f);
      }
      dst += ox1 - ox0;
      j += ox1 - ox0;
    }
  }
}

/// Depthwise INT8 conv of one output plane: float accumulation is exact because the caller checked
/// kh * kw * maxX * 128 <= 2^24.
void depthwisePlane(const ConvShape &s, const float *x, float zp, const float *w, float *acc) {
  int64_t plane = s.oh * s.ow;
  std::fill(acc, acc + plane, 0.0f);
  for (int64_t ky = 0; ky < s.kh; ++ky) {
    for (int64_t kx = 0; kx < s.kw; ++kx) {
      float wv = w[ky * s.kw + kx];
      if (wv == 0.0f)
        continue;
      for (int64_t oy = 0; oy < s.oh; ++oy) {
        int64_t iy = oy * s.sh - s.padTop + ky * s.dh;
        if (iy < 0 || iy >= s.ih)
          continue;
        const float *row = x + iy * s.iw;
        float *o = acc + oy * s.ow;
        int64_t off = kx * s.dw - s.padLeft;
        int64_t lo = off >= 0 ? 0 : (-off + s.sw - 1) / s.sw;
        int64_t last = s.iw - 1 - off;
        int64_t hi = last < 0 ? 0 : std::min(s.ow, last / s.sw + 1);
        if (s.sw == 1) { // unit stride: a contiguous, vectorizable run
          const float *r = row + off;
          for (int64_t ox = lo; ox < hi; ++ox)
            o[ox] += wv * (r[ox] - zp);
        } else {
          for (int64_t ox = lo; ox < hi; ++ox)
            o[ox] += wv * (row[ox * s.sw + off] - zp);
        }
      }
    }
  }
}

/// Broadcast strides of `shape` against `outShape` (0 on broadcast axes); shapes are right-aligned.
std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &shape, std::span<const int64_t> outShape) {
  size_t rank = outShape.size();
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    size_t axis = shape.size() - 1 - i, outAxis = rank - 1 - i;
    strides[outAxis] = shape[axis] == 1 ? 0 : stride;
    stride *= shape[axis];
  }
  return strides;
}

/// Calls fn(i, ia, ib) for every output index with the broadcast indices of both inputs.
template <typename Fn>
void forEachBroadcast(const BroadcastInput &a, const BroadcastInput &b, std::span<const int64_t> outShape,
                      Fn fn) {
  int64_t total = 1;
  for (int64_t d : outShape)
    total *= d;
  std::vector<int64_t> sa = broadcastStrides(a.shape, outShape), sb = broadcastStrides(b.shape, outShape);
  size_t rank = outShape.size();
  parallelFor(total, ref::kElementGrain, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> idx(rank);
    int64_t rest = begin, ia = 0, ib = 0;
    for (size_t d = rank; d-- > 0;) {
      idx[d] = rest % outShape[d];
      rest /= outShape[d];
      ia += idx[d] * sa[d];
      ib += idx[d] * sb[d];
    }
    for (int64_t i = begin; i < end; ++i) {
      fn(i, ia, ib);
      for (size_t d = rank; d-- > 0;) { // odometer step
        ia += sa[d];
        ib += sb[d];
        if (++idx[d] < outShape[d])
          break;
        ia -= sa[d] * outShape[d];
        ib -= sb[d] * outShape[d];
        idx[d] = 0;
      }
    }
  });
}

} // namespace

namespace {
/// Adds one K chunk's exact float products [rows, n] into the int32 accumulators (or starts them).
void accumulateChunk(const float *chunk, int64_t rows, int64_t n, int32_t *c, int64_t ldc, bool first) {
  for (int64_t i = 0; i < rows; ++i) {
    const float *src = chunk + i * n;
    int32_t *dst = c + i * ldc;
    if (first)
      for (int64_t j = 0; j < n; ++j)
        dst[j] = static_cast<int32_t>(src[j]);
    else
      for (int64_t j = 0; j < n; ++j)
        dst[j] += static_cast<int32_t>(src[j]);
  }
}
} // namespace

int64_t exactChunk(int64_t maxProduct) {
  return std::max<int64_t>(1, (int64_t{1} << 24) / std::max<int64_t>(maxProduct, 1));
}

void intGemm(bool transA, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *b,
             int64_t ldb, int32_t *c, int64_t ldc, int64_t maxA, int64_t maxB, float *scratch) {
  int64_t chunk = exactChunk(maxA * maxB);
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      std::fill(c + i * ldc, c + i * ldc + n, 0);
    return;
  }
  for (int64_t k0 = 0; k0 < k; k0 += chunk) {
    int64_t kc = std::min(chunk, k - k0);
    const float *ak = transA ? a + k0 * lda : a + k0;
    ref::gemmSerial(transA, false, m, n, kc, ak, lda, b + k0 * ldb, ldb, scratch, n);
    accumulateChunk(scratch, m, n, c, ldc, k0 == 0);
  }
}

namespace {

/// An [m, k] integer matrix (one conv group's filters) cut into K chunks of exactChunk terms, each packed
/// for the AVX-512 GEMM once per call, shared by every task. Within a chunk every partial sum is an
/// integer below 2^24, so the GEMM's summation order does not matter: the result is exact.
struct PackedChunks {
  int64_t chunk = 0;
  std::vector<ref::PackedMatrix> parts;
};

PackedChunks packChunks(const float *a, int64_t m, int64_t k, int64_t lda, int64_t maxA, int64_t maxB) {
  PackedChunks p;
  p.chunk = exactChunk(maxA * maxB);
  for (int64_t k0 = 0; k0 < k; k0 += p.chunk)
    p.parts.push_back(ref::PackedMatrix::pack(a + k0, m, std::min(p.chunk, k - k0), lda));
  return p;
}

/// intGemm on packed rows [m0, m1) (m0 a multiple of ref::kPackRows): c[m1 - m0, n] with row stride ldc;
/// `scratch` holds (m1 - m0) * n floats.
void intGemmPacked(const PackedChunks &a, int64_t m0, int64_t m1, int64_t n, const float *b, int64_t ldb,
                   int32_t *c, int64_t ldc, float *scratch) {
  if (a.parts.empty()) {
    for (int64_t i = 0; i < m1 - m0; ++i)
      std::fill(c + i * ldc, c + i * ldc + n, 0);
    return;
  }
  for (size_t q = 0; q < a.parts.size(); ++q) {
    ref::packedGemm(a.parts[q], m0, m1, ref::RightMatrix{b + static_cast<int64_t>(q) * a.chunk * ldb, ldb}, n,
                    scratch, n, ref::Epilogue{});
    accumulateChunk(scratch, m1 - m0, n, c, ldc, q == 0);
  }
}

} // namespace

int64_t Requant::apply(int64_t acc, int64_t c) const {
  int64_t y = quant::requantize(acc, at(c), zpOut, type, mode);
  if (relu)
    y = std::min(std::max(y, zpOut), reluMax);
  return y;
}

void requantizeRow(const int32_t *acc, int64_t count, const Requant &rq, int64_t c, float *out, int64_t bias) {
  // One batched TpucQuant call per row: the channel's pair and the fused relu are read once, and the
  // span runs in 64-bit arithmetic whenever its products fit (bit-identical to quant::requantize).
  size_t n = static_cast<size_t>(count);
  quant::requantizeSpan({acc, n}, bias, rq.at(c), rq.zpOut, rq.type, rq.mode, {out, n},
                        rq.relu ? rq.zpOut : INT64_MIN, rq.relu ? rq.reluMax : INT64_MAX);
}

void convInt8(const ConvShape &s, const float *x, int64_t zpX, int64_t maxX, const float *w,
              std::span<const int64_t> bias, const Requant &rq, float *y) {
  int64_t icg = s.ic / s.group, ocg = s.oc / s.group, plane = s.oh * s.ow;
  int64_t taps = s.kh * s.kw;
  float zp = static_cast<float>(zpX);
  if (icg == 1 && ocg == 1 && s.group > 1 && taps * maxX * 128 <= (int64_t{1} << 24)) {
    parallelFor(s.n * s.oc, ref::rowGrain(plane * taps), [&](int64_t begin, int64_t end) {
      float *acc = localBuffer<float, 0>(plane);
      int32_t *iacc = localBuffer<int32_t, 1>(plane);
      for (int64_t p = begin; p < end; ++p) {
        int64_t n = p / s.oc, oc = p % s.oc;
        depthwisePlane(s, x + (n * s.ic + oc) * s.ih * s.iw, zp, w + oc * taps, acc);
        for (int64_t i = 0; i < plane; ++i)
          iacc[i] = static_cast<int32_t>(acc[i]);
        requantizeRow(iacc, plane, rq, oc, y + p * plane, bias.empty() ? 0 : bias[oc]);
      }
    });
    return;
  }
  int64_t k = icg * taps;
  // The filters of each group packed once for the AVX-512 GEMM (else OpenBLAS sgemm per K chunk).
  // Kept by the caller's op cache while the filter is a weight that does not change (the Tpu simulator's
  // steps, the command-level simulator's commands), packed for this call otherwise.
  std::vector<PackedChunks> local;
  const std::vector<PackedChunks> *packedPtr = &local;
  if (ref::packedGemmAvailable()) {
    auto make = [&] {
      std::vector<PackedChunks> groups;
      for (int64_t grp = 0; grp < s.group; ++grp)
        groups.push_back(packChunks(w + grp * ocg * k, ocg, k, k, maxX, 128));
      return groups;
    };
    ref::OpCache *cache = ref::currentOpCache();
    if (cache && cache->isConstant(1))
      packedPtr = &cache->get<std::vector<PackedChunks>>([&] {
        auto groups = make();
        for (const PackedChunks &g : groups)
          for (const ref::PackedMatrix &m : g.parts)
            cache->bytes += m.bytes();
        return groups;
      });
    else
      local = make();
  }
  const std::vector<PackedChunks> &packed = *packedPtr;
  auto gemm = [&](int64_t grp, int64_t r0, int64_t rows, int64_t n, const float *b, int64_t ldb, int32_t *acc,
                  float *tmp) {
    if (!packed.empty())
      intGemmPacked(packed[grp], r0, r0 + rows, n, b, ldb, acc, n, tmp);
    else
      intGemm(false, rows, n, k, w + (grp * ocg + r0) * k, k, b, ldb, acc, n, maxX, 128, tmp);
  };
  bool pointwise = taps == 1 && s.sh == 1 && s.sw == 1 && s.padTop == 0 && s.padLeft == 0 && s.oh == s.ih &&
                   s.ow == s.iw && zpX == 0;
  int64_t threads = ThreadPool::global().numThreads();
  int64_t block = std::max<int64_t>(64, (int64_t{1} << 17) / std::max<int64_t>(std::max(k, ocg), 1));
  block = std::min(block, (plane + threads - 1) / threads);
  block = std::max<int64_t>(16, (block + 15) / 16 * 16);
  int64_t blocks = (plane + block - 1) / block;
  // Small late planes (resnet18's 7x7 and 14x14 layers) give only a few narrow column blocks, where the
  // GEMM runs at a fraction of its speed; there each task takes the whole plane for a share of the output
  // channels instead (the unfold is repeated per task, which is cheap next to the GEMM at these sizes).
  if (threads > 1 && plane <= 256 && ocg >= 32 * threads) {
    int64_t rowsPerTask = (ocg + threads - 1) / threads;
    rowsPerTask = (rowsPerTask + 47) / 48 * 48; // whole packed row blocks (12) and vector widths (16)
    int64_t rowTasks = (ocg + rowsPerTask - 1) / rowsPerTask;
    parallelFor(s.n * s.group * rowTasks, 1, [&](int64_t begin, int64_t end) {
      for (int64_t task = begin; task < end; ++task) {
        int64_t n = task / (s.group * rowTasks), grp = (task / rowTasks) % s.group;
        int64_t r0 = (task % rowTasks) * rowsPerTask, rows = std::min(rowsPerTask, ocg - r0);
        const float *xg = x + (n * s.ic + grp * icg) * s.ih * s.iw;
        float *col = pointwise ? nullptr : localBuffer<float, 0>(k * plane);
        float *tmp = localBuffer<float, 2>(rows * plane);
        int32_t *acc = localBuffer<int32_t, 1>(rows * plane);
        if (!pointwise)
          im2colShifted(s, icg, xg, zp, 0, plane, col);
        gemm(grp, r0, rows, plane, pointwise ? xg : col, plane, acc, tmp);
        for (int64_t r = 0; r < rows; ++r) {
          int64_t oc = grp * ocg + r0 + r;
          requantizeRow(acc + r * plane, plane, rq, oc, y + (n * s.oc + oc) * plane, bias.empty() ? 0 : bias[oc]);
        }
      }
    });
    return;
  }
  parallelFor(s.n * s.group * blocks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      int64_t n = task / (s.group * blocks), grp = (task / blocks) % s.group;
      int64_t c0 = (task % blocks) * block, c1 = std::min(plane, c0 + block), width = c1 - c0;
      const float *xg = x + (n * s.ic + grp * icg) * s.ih * s.iw;
      float *col = pointwise ? nullptr : localBuffer<float, 0>(k * width);
      float *tmp = localBuffer<float, 2>(ocg * width);
      int32_t *acc = localBuffer<int32_t, 1>(ocg * width);
      if (pointwise) { // the input block is the GEMM operand already
        gemm(grp, 0, ocg, width, xg + c0, plane, acc, tmp);
      } else {
        im2colShifted(s, icg, xg, zp, c0, c1, col);
        gemm(grp, 0, ocg, width, col, width, acc, tmp);
      }
      for (int64_t r = 0; r < ocg; ++r) {
        int64_t oc = grp * ocg + r;
        requantizeRow(acc + r * width, width, rq, oc, y + (n * s.oc + oc) * plane + c0,
                      bias.empty() ? 0 : bias[oc]);
      }
    }
  });
}

void matmulInt8(int64_t batch, int64_t m, int64_t k, int64_t n, const float *a, int64_t zpA, int64_t maxA,
                const float *b, int64_t zpB, int64_t maxB, bool transB, bool batchB,
                std::span<const int64_t> bias, const Requant &rq, float *y) {
  // Zero points are subtracted up front into shifted copies, so the GEMM sees x - zp directly.
  std::vector<float> bs;
  const float *bData = b;
  int64_t bCount = (batchB ? batch : 1) * k * n;
  if (zpB != 0 || transB) {
    bs.resize(bCount);
    for (int64_t bi = 0; bi < (batchB ? batch : 1); ++bi)
      for (int64_t r = 0; r < k; ++r)
        for (int64_t c = 0; c < n; ++c)
          bs[bi * k * n + r * n + c] =
              (transB ? b[bi * k * n + c * k + r] : b[bi * k * n + r * n + c]) - static_cast<float>(zpB);
    bData = bs.data();
  }
  int64_t rowsPerTask = std::max<int64_t>(1, std::min<int64_t>(m, 256));
  int64_t tasksPerBatch = (m + rowsPerTask - 1) / rowsPerTask;
  parallelFor(batch * tasksPerBatch, 1, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      int64_t bi = task / tasksPerBatch, r0 = (task % tasksPerBatch) * rowsPerTask;
      int64_t rows = std::min(rowsPerTask, m - r0);
      float *as = localBuffer<float, 0>(rows * k);
      const float *src = a + (bi * m + r0) * k;
      for (int64_t i = 0; i < rows * k; ++i)
        as[i] = src[i] - static_cast<float>(zpA);
      int32_t *acc = localBuffer<int32_t, 1>(rows * n);
      float *tmp = localBuffer<float, 2>(rows * n);
      intGemm(false, rows, n, k, as, k, bData + (batchB ? bi * k * n : 0), n, acc, n, maxA, maxB, tmp);
      bool perTensor = rq.multiplier.size() == 1 && bias.empty();
      for (int64_t i = 0; i < rows; ++i) {
        float *out = y + (bi * m + r0 + i) * n;
        if (perTensor) {
          requantizeRow(acc + i * n, n, rq, 0, out);
          continue;
        }
        for (int64_t j = 0; j < n; ++j)
          out[j] = static_cast<float>(rq.apply(int64_t{acc[i * n + j]} + (bias.empty() ? 0 : bias[j]), j));
      }
    }
  });
}

void maxPoolInt8(const ConvShape &s, const float *x, float *y) {
  int64_t plane = s.oh * s.ow;
  parallelFor(s.n * s.oc, ref::rowGrain(plane * s.kh * s.kw), [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const float *src = x + p * s.ih * s.iw;
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          float best = -INFINITY;
          for (int64_t ky = 0; ky < s.kh; ++ky) {
            int64_t iy = oy * s.sh - s.padTop + ky * s.dh;
            if (iy < 0 || iy >= s.ih)
              continue;
            for (int64_t kx = 0; kx < s.kw; ++kx) {
              int64_t ix = ox * s.sw - s.padLeft + kx * s.dw;
              if (ix >= 0 && ix < s.iw)
                best = std::max(best, src[iy * s.iw + ix]);
            }
          }
          y[p * plane + oy * s.ow + ox] = best;
        }
    }
  });
}

void avgPoolInt8(const ConvShape &s, const float *x, int64_t zpX, const Requant &rq, float *y) {
  int64_t plane = s.oh * s.ow;
  parallelFor(s.n * s.oc, ref::rowGrain(plane * s.kh * s.kw), [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const float *src = x + p * s.ih * s.iw;
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          int64_t sum = 0;
          for (int64_t ky = 0; ky < s.kh; ++ky) {
            int64_t iy = oy * s.sh - s.padTop + ky * s.dh;
            if (iy < 0 || iy >= s.ih)
              continue;
            for (int64_t kx = 0; kx < s.kw; ++kx) {
              int64_t ix = ox * s.sw - s.padLeft + kx * s.dw;
              if (ix >= 0 && ix < s.iw)
                sum += static_cast<int64_t>(src[iy * s.iw + ix]) - zpX;
            }
          }
          y[p * plane + oy * s.ow + ox] = static_cast<float>(rq.apply(sum, p % s.oc));
        }
    }
  });
}

void addInt8(const BroadcastInput &a, const BroadcastInput &b, int64_t ma, int64_t mb, int64_t rshift,
             bool subtract, std::span<const int64_t> outShape, int64_t zpOut, quant::IntType type,
             quant::RoundingMode mode, bool relu, int64_t reluMax, float *y) {
  if (std::equal(a.shape.begin(), a.shape.end(), outShape.begin(), outShape.end()) &&
      std::equal(b.shape.begin(), b.shape.end(), outShape.begin(), outShape.end())) {
    // No broadcast (a residual add): contiguous spans through Quant's batched form of the same formula.
    int64_t total = 1;
    for (int64_t d : outShape)
      total *= d;
    int64_t lo = relu ? zpOut : INT64_MIN, hi = relu ? reluMax : INT64_MAX;
    parallelFor(total, ref::kElementGrain, [&](int64_t begin, int64_t end) {
      size_t n = static_cast<size_t>(end - begin);
      quant::addRescaledSpan({a.data + begin, n}, a.zp, ma, {b.data + begin, n}, b.zp, mb, subtract,
                             static_cast<int>(rshift), zpOut, type, mode, {y + begin, n}, lo, hi);
    });
    return;
  }
  forEachBroadcast(a, b, outShape, [&](int64_t i, int64_t ia, int64_t ib) {
    int64_t va = (static_cast<int64_t>(a.data[ia]) - a.zp) * ma;
    int64_t vb = (static_cast<int64_t>(b.data[ib]) - b.zp) * mb;
    int64_t v = quant::saturate(quant::roundingRightShift(subtract ? va - vb : va + vb, rshift, mode) + zpOut,
                                type);
    y[i] = static_cast<float>(relu ? std::min(std::max(v, zpOut), reluMax) : v);
  });
}

void mulInt8(const BroadcastInput &a, const BroadcastInput &b, quant::MultiplierShift ms,
             std::span<const int64_t> outShape, int64_t zpOut, quant::IntType type, quant::RoundingMode mode,
             bool relu, int64_t reluMax, float *y) {
  forEachBroadcast(a, b, outShape, [&](int64_t i, int64_t ia, int64_t ib) {
    int64_t prod = (static_cast<int64_t>(a.data[ia]) - a.zp) * (static_cast<int64_t>(b.data[ib]) - b.zp);
    int64_t v = quant::requantize(prod, ms, zpOut, type, mode);
    y[i] = static_cast<float>(relu ? std::min(std::max(v, zpOut), reluMax) : v);
  });
}

void requantInt(const float *x, int64_t outer, int64_t channels, int64_t inner, int64_t zpIn,
                std::span<const quant::MultiplierShift> ms, int64_t zpOut, quant::IntType type,
                quant::RoundingMode mode, float *y) {
  parallelFor(outer * channels, ref::rowGrain(inner), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      quant::MultiplierShift m = ms.size() == 1 ? ms[0] : ms[row % channels];
      // requantizeInt(x) = requantize(x - zpIn): codes are integers, so an int32 copy is exact.
      int32_t *codes = localBuffer<int32_t, 1>(inner);
      const float *src = x + row * inner;
      for (int64_t i = 0; i < inner; ++i)
        codes[i] = static_cast<int32_t>(src[i]);
      size_t count = static_cast<size_t>(inner);
      quant::requantizeSpan({codes, count}, -zpIn, m, zpOut, type, mode, {y + row * inner, count});
    }
  });
}

} // namespace tpuc::sim::tpu
