//===- ConvKernels.cpp - Convolution and transposed convolution -----------===//
// Conv: with AVX-512, tiles of (output columns x output channels) spread over the pool, each unfolded
// (im2col, skipped for 1x1 / stride 1 / no pad) into the column panels of PackedGemm.h and multiplied by
// the filters packed once per op (OpCache); otherwise column blocks on single-threaded OpenBLAS GEMMs.
// Depthwise convs (one input channel per group) run directly over stride phases (Window.h), one plane
// per task. Deconv: GEMM into columns, then col2im scatter-add per output channel.
//===----------------------------------------------------------------------===//
#include "Kernels.h"
#include "PackedGemm.h"
#include "Window.h"

#include <cstring>
#include <immintrin.h>
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

/// A run of block columns within one output row and one column panel of PackedGemm.h.
struct ColumnRun {
  int64_t dst, oy, ox0, len; ///< Offset in the panels of the run's first row, output row and columns.
};

/// The runs of output columns [c0, c1): no run crosses an output row or a 32-column panel.
std::vector<ColumnRun> columnRuns(const Geometry &g, int64_t rows, int64_t c0, int64_t c1) {
  std::vector<ColumnRun> runs;
  for (int64_t j = c0; j < c1;) {
    int64_t jj = j - c0, oy = j / g.ow, ox0 = j % g.ow;
    int64_t len = std::min({g.ow - ox0, c1 - j, kTileColumns - jj % kTileColumns});
    runs.push_back({(jj / kTileColumns) * rows * kTileColumns + jj % kTileColumns, oy, ox0, len});
    j += len;
  }
  return runs;
}

/// im2colBlock in the column panels of PackedGemm.h: column j of the block goes to panel j / 32, row r
/// of it at r * 32 + j % 32 (rows of the last panel padded to 32 floats, the padding left unset). With
/// AVX-512 (the packed path always has it), a stride-1 run is one masked load and store per 16 columns,
/// the mask zeroing the padding; stride 2 adds a shuffle of the even columns.
__attribute__((target("avx512f"))) void im2colPanels(const Geometry &g, int64_t channels, const float *x,
                                                     int64_t c0, int64_t c1, float *col) {
  int64_t rows = channels * g.kh * g.kw;
  std::vector<ColumnRun> runs = columnRuns(g, rows, c0, c1);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t c = r / (g.kh * g.kw), ky = (r / g.kw) % g.kh, kx = r % g.kw;
    const float *src = x + c * g.ih * g.iw;
    int64_t xOffset = kx * g.dw - g.padLeft;
    auto [lo, hi] = validRange(g.ow, g.sw, xOffset, g.iw);
    float *base = col + r * kTileColumns;
    for (const ColumnRun &run : runs) {
      float *dst = base + run.dst;
      int64_t iy = run.oy * g.sh - g.padTop + ky * g.dh, ox1 = run.ox0 + run.len;
      int64_t a = std::clamp(lo, run.ox0, ox1), b = std::clamp(hi, run.ox0, ox1);
      if (iy < 0 || iy >= g.ih)
        a = b = run.ox0;
      const float *row = src + iy * g.iw + xOffset;
      if (g.sw == 1) {
        // Lanes [a, b) - ox0 come from the row, the others of the run are zero.
        uint32_t valid = static_cast<uint32_t>(((uint64_t{1} << (b - run.ox0)) - 1) &
                                               ~((uint64_t{1} << (a - run.ox0)) - 1));
        uint32_t store = static_cast<uint32_t>((uint64_t{1} << run.len) - 1);
        const float *from = row + run.ox0;
        _mm512_mask_storeu_ps(dst, static_cast<__mmask16>(store),
                              _mm512_maskz_loadu_ps(static_cast<__mmask16>(valid), from));
        if (run.len > 16)
          _mm512_mask_storeu_ps(dst + 16, static_cast<__mmask16>(store >> 16),
                                _mm512_maskz_loadu_ps(static_cast<__mmask16>(valid >> 16), from + 16));
        continue;
      }
      if (g.sw == 2) {
        // Per 16 output lanes: two masked loads of 16 input columns each (the even columns of valid
        // lanes only), then their even elements.
        const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        uint32_t valid = static_cast<uint32_t>(((uint64_t{1} << (b - run.ox0)) - 1) &
                                               ~((uint64_t{1} << (a - run.ox0)) - 1));
        for (int64_t h = 0; h < run.len; h += 16) {
          uint32_t lanes = valid >> h;
          const float *from = row + 2 * (run.ox0 + h);
          auto spread = [](uint32_t bits) { // bit i -> bit 2i, for i < 8
            uint32_t out = 0;
            for (int i = 0; i < 8; ++i)
              out |= ((bits >> i) & 1u) << (2 * i);
            return static_cast<__mmask16>(out);
          };
          __m512 lo = _mm512_maskz_loadu_ps(spread(lanes & 0xff), from);
          __m512 hi = _mm512_maskz_loadu_ps(spread((lanes >> 8) & 0xff), from + 16);
          uint32_t store = run.len - h >= 16 ? 0xffffu : (1u << (run.len - h)) - 1;
          _mm512_mask_storeu_ps(dst + h, static_cast<__mmask16>(store), _mm512_permutex2var_ps(lo, evens, hi));
        }
        continue;
      }
      for (int64_t ox = run.ox0; ox < a; ++ox)
        dst[ox - run.ox0] = 0.0f;
      for (int64_t ox = a; ox < b; ++ox)
        dst[ox - run.ox0] = row[ox * g.sw];
      for (int64_t ox = b; ox < ox1; ++ox)
        dst[ox - run.ox0] = 0.0f;
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

/// depthwisePlane with AVX-512 after the phases are built: each output row is one pass of 16-wide
/// vectors, all NT taps (0: `numTaps` at run time) accumulated in a register with the bias, then Relu
/// and a (masked) store straight into the output, so no accumulator plane is stored or reloaded.
template <int NT>
__attribute__((target("avx512f"))) void depthwiseRows(const Geometry &g, int64_t wq, const float *const *taps,
                                                      int64_t numTaps, const float *kernel, float bias,
                                                      bool doRelu, float hi, float *__restrict out) {
  int64_t count = NT ? NT : numTaps;
  __m512 weights[NT ? NT : 1]; // hoisted broadcasts of a fixed tap count
  if constexpr (NT > 0)
    for (int t = 0; t < NT; ++t)
      weights[t] = _mm512_set1_ps(kernel[t]);
  __m512 zero = _mm512_setzero_ps(), top = _mm512_set1_ps(hi), b = _mm512_set1_ps(bias);
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    int64_t rowOffset = oy * wq;
    float *o = out + oy * g.ow;
    for (int64_t x = 0; x < g.ow; x += 16) {
      __mmask16 mask = g.ow - x >= 16 ? 0xffff : static_cast<__mmask16>((1u << (g.ow - x)) - 1);
      __m512 acc = b;
      for (int64_t t = 0; t < count; ++t) {
        __m512 w = NT > 0 ? weights[t] : _mm512_set1_ps(kernel[t]);
        acc = _mm512_fmadd_ps(w, _mm512_maskz_loadu_ps(mask, taps[t] + rowOffset + x), acc);
      }
      if (doRelu)
        acc = _mm512_min_ps(_mm512_max_ps(acc, zero), top);
      _mm512_mask_storeu_ps(o + x, mask, acc);
    }
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
      if (packedGemmAvailable()) {
        const float *src = x + (n * g.ic + ic) * g.ih * g.iw, *kernel = w + oc * g.kh * g.kw;
        float b = bias ? bias[oc] : 0.0f, *o = out + p * plane;
        buildPhases(g, ph, src, 0.0f, buffer);
        for (size_t t = 0; t < offsets.size(); ++t)
          taps[t] = buffer + offsets[t];
        if (offsets.size() == 9)
          depthwiseRows<9>(g, ph.wq, taps.data(), 9, kernel, b, doRelu, hi, o);
        else if (offsets.size() == 25)
          depthwiseRows<25>(g, ph.wq, taps.data(), 25, kernel, b, doRelu, hi, o);
        else
          depthwiseRows<0>(g, ph.wq, taps.data(), offsets.size(), kernel, b, doRelu, hi, o);
        continue;
      }
      depthwisePlane(g, ph, offsets.data(), taps.data(), x + (n * g.ic + ic) * g.ih * g.iw,
                     w + oc * g.kh * g.kw, bias ? bias[oc] : 0.0f, doRelu, hi, out + p * plane, buffer);
    }
  });
}

/// The filters of every group packed for packedGemm; cached per op by the interpreter when they are a
/// weight (OpCache), packed for this call otherwise.
struct PackedFilters {
  std::vector<PackedMatrix> groups;
};

const PackedFilters &packFilters(const Geometry &g, const float *w, PackedFilters &local) {
  int64_t icg = g.ic / g.group, ocg = g.oc / g.group, k = icg * g.kh * g.kw;
  auto make = [&] {
    PackedFilters filters;
    for (int64_t grp = 0; grp < g.group; ++grp)
      filters.groups.push_back(PackedMatrix::pack(w + grp * ocg * k, ocg, k, k));
    return filters;
  };
  OpCache *cache = currentOpCache();
  if (cache && cache->isConstant(1)) {
    return cache->get<PackedFilters>([&] {
      PackedFilters filters = make();
      for (const PackedMatrix &m : filters.groups)
        cache->bytes += m.bytes();
      return filters;
    });
  }
  local = make();
  return local;
}

/// Conv as GEMMs on packed filters (PackedGemm.h). Tasks are tiles of (image, group, output columns,
/// output channels): column blocks keep the unfolded input (im2col, skipped for a 1x1 stride-1 conv,
/// which reads its input planes in place) in cache; when they are too few to feed every thread the
/// output channels are split as well, so small late layers still use the whole pool. Bias and the fused
/// Relu are applied in the GEMM's output pass.
void packedConv(const Geometry &g, const float *x, const float *w, const float *bias, bool doRelu, float hi,
                float *y) {
  int64_t icg = g.ic / g.group, ocg = g.oc / g.group;
  int64_t k = icg * g.kh * g.kw, plane = g.oh * g.ow;
  bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.padTop == 0 && g.padLeft == 0 &&
                   g.oh == g.ih && g.ow == g.iw;
  PackedFilters local;
  const PackedFilters &filters = packFilters(g, w, local);
  int64_t threads = ThreadPool::global().numThreads();
  // Column blocks: the unfolded input block (k rows) stays in L2. Blocks are whole micro-tiles of 32
  // columns of about equal size, a multiple of the thread count when the plane is wide enough to split.
  auto divideUp = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  int64_t target = std::max<int64_t>(kTileColumns, (int64_t{1} << 18) / std::max<int64_t>(k, 1));
  int64_t blocks = divideUp(plane, target);
  if (threads > 1 && plane >= threads * 2 * kTileColumns)
    blocks = divideUp(blocks, threads) * threads;
  int64_t block = std::min(plane, divideUp(divideUp(plane, blocks), kTileColumns) * kTileColumns);
  blocks = divideUp(plane, block);
  // Output channel chunks (whole packed row blocks) when the column blocks alone leave threads idle.
  int64_t rowBlocks = (ocg + kPackRows - 1) / kPackRows, chunks = 1;
  int64_t tiles = g.n * g.group * blocks;
  if (threads > 1 && tiles < 2 * threads)
    chunks = std::min(rowBlocks, (2 * threads + tiles - 1) / tiles);
  int64_t chunkRows = (rowBlocks + chunks - 1) / chunks * kPackRows;
  chunks = (ocg + chunkRows - 1) / chunkRows;
  const int64_t width = (block + kTileColumns - 1) / kTileColumns * kTileColumns; // panel columns per tile
  auto tileOf = [&](int64_t tile, int64_t &n, int64_t &grp, int64_t &c0, int64_t &c1) {
    n = tile / (g.group * blocks), grp = (tile / blocks) % g.group;
    c0 = (tile % blocks) * block, c1 = std::min(plane, c0 + block);
  };
  // With output channels split, the chunks of a tile share its unfolded input: unfold every tile once
  // first (into one buffer), instead of once per chunk.
  float *shared = nullptr;
  if (!pointwise && chunks > 1) {
    thread_local std::vector<float> panels;
    panels.resize(static_cast<size_t>(tiles * k * width));
    shared = panels.data();
    parallelFor(tiles, 1, [&](int64_t begin, int64_t end) {
      for (int64_t tile = begin; tile < end; ++tile) {
        int64_t n, grp, c0, c1;
        tileOf(tile, n, grp, c0, c1);
        im2colPanels(g, icg, x + (n * g.ic + grp * icg) * g.ih * g.iw, c0, c1, shared + tile * k * width);
      }
    });
  }
  parallelFor(tiles * chunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      int64_t chunk = task % chunks, tile = task / chunks, n, grp, c0, c1;
      tileOf(tile, n, grp, c0, c1);
      int64_t m0 = chunk * chunkRows, m1 = std::min(ocg, m0 + chunkRows);
      const float *xg = x + (n * g.ic + grp * icg) * g.ih * g.iw;
      float *yg = y + (n * g.oc + grp * ocg + m0) * plane + c0;
      Epilogue epilogue{bias ? bias + grp * ocg : nullptr, doRelu, hi};
      if (pointwise) {
        packedGemm(filters.groups[grp], m0, m1, RightMatrix{xg + c0, plane}, c1 - c0, yg, plane, epilogue);
        continue;
      }
      float *col = shared ? shared + tile * k * width : scratch(k * width);
      if (!shared)
        im2colPanels(g, icg, xg, c0, c1, col);
      packedGemm(filters.groups[grp], m0, m1, RightMatrix{col, kTileColumns, true}, c1 - c0, yg, plane, epilogue);
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
  if (packedGemmAvailable()) {
    packedConv(g, x, w, bias, doRelu, hi, y);
    return success();
  }
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

namespace {

/// Bilinear sample of one plane at (y, x) as deformable conv reads it: 0 at or beyond -1 and the size on
/// either axis, neighbours outside the plane read 0.
float deformSample(const float *plane, int64_t height, int64_t width, float y, float x) {
  if (!(y > -1.0f && x > -1.0f && y < static_cast<float>(height) && x < static_cast<float>(width)))
    return 0.0f; // also NaN offsets
  float fy = std::floor(y), fx = std::floor(x);
  auto y0 = static_cast<int64_t>(fy), x0 = static_cast<int64_t>(fx);
  float ly = y - fy, lx = x - fx, hy = 1.0f - ly, hx = 1.0f - lx;
  auto at = [&](int64_t r, int64_t c) {
    return r >= 0 && r < height && c >= 0 && c < width ? plane[r * width + c] : 0.0f;
  };
  return hy * hx * at(y0, x0) + hy * lx * at(y0, x0 + 1) + ly * hx * at(y0 + 1, x0) +
         ly * lx * at(y0 + 1, x0 + 1);
}

} // namespace

/// Deformable conv: per image and group, the samples unfold into columns [C/g * kh * kw, oh * ow] (row
/// order as the filter's), multiplied by the group's filters.
LogicalResult run(top::DeformConv2DOp op, Inputs in, Outputs out) {
  Geometry g = makeGeometry(shapeOf(op.getInput()), shapeOf(op.getOutput()), op.getKernelShape(),
                            op.getStrides(), op.getPads(), op.getDilations(), op.getGroup());
  const float *x = in[0], *w = in[1], *offset = in[2], *mask = in[3], *bias = in[4];
  float *y = out[0];
  int64_t taps = g.kh * g.kw, cols = g.oh * g.ow, icg = g.ic / g.group, ocg = g.oc / g.group;
  int64_t offsetGroups = op.getOffsetGroup(), perOffsetGroup = g.ic / offsetGroups, k = icg * taps;
  float *col = scratch(k * cols);
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t grp = 0; grp < g.group; ++grp) {
      parallelFor(k, rowGrain(cols * 8), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          int64_t c = grp * icg + r / taps, t = r % taps, ky = t / g.kw, kx = t % g.kw;
          int64_t og = c / perOffsetGroup;
          const float *plane = x + (n * g.ic + c) * g.ih * g.iw;
          const float *dy = offset + ((n * offsetGroups + og) * 2 * taps + 2 * t) * cols, *dx = dy + cols;
          const float *m = mask ? mask + ((n * offsetGroups + og) * taps + t) * cols : nullptr;
          float *dst = col + r * cols;
          for (int64_t oy = 0; oy < g.oh; ++oy) {
            float baseY = static_cast<float>(oy * g.sh - g.padTop + ky * g.dh);
            for (int64_t ox = 0; ox < g.ow; ++ox) {
              int64_t p = oy * g.ow + ox;
              float baseX = static_cast<float>(ox * g.sw - g.padLeft + kx * g.dw);
              float v = deformSample(plane, g.ih, g.iw, baseY + dy[p], baseX + dx[p]);
              dst[p] = m ? v * m[p] : v;
            }
          }
        }
      });
      gemm(false, false, ocg, cols, k, w + grp * ocg * k, k, col, cols, y + (n * g.oc + grp * ocg) * cols,
           cols);
    }
  }
  finishPlanes(g, y, bias, false, -1.0);
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
