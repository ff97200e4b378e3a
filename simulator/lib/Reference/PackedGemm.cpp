//===- PackedGemm.cpp - AVX-512 GEMM on packed convolution weights ---------===//
// A BLIS-style loop nest: K in blocks of kDepth (the B strip of one micro-tile, kDepth x 32 floats, stays
// in L1 while every row block of A passes over it), then micro-tiles of up to 12 rows x 32 columns held
// in 24 zmm accumulators; the weights come from the packed blocks as broadcasts.
//===----------------------------------------------------------------------===//
#include "PackedGemm.h"

#include <algorithm>
#include <cstring>
#include <immintrin.h>

namespace tpuc::sim::ref {
namespace {

/// Depth of one pass over K: the B strip (kDepth x kTileColumns floats, 32 KiB) fits in L1.
constexpr int64_t kDepth = 256;
/// Depths up to this run row block by row block (see packedGemm).
constexpr int64_t kShallow = 64;

/// One micro-tile: C[MR rows, up to 32 columns] (+)= A block * B strip over `depth` steps of k. `first`
/// starts from zero instead of C, `last` applies the epilogue; `rows` <= MR rows and `cols` <= 32
/// columns are stored. `next` (may be null) is the A block of the tile that follows, prefetched into L1
/// while this one computes: the filters of a late layer (9 MB for resnet18's 512-channel 3x3 convs) come
/// from DRAM on every inference, and without the prefetch each tile waits on its first loads.
template <int MR>
__attribute__((target("avx512f"))) void microTile(int64_t depth, const float *__restrict a,
                                                  const float *__restrict b, int64_t ldb, float *c, int64_t ldc,
                                                  int64_t rows, int64_t cols, bool first, bool last,
                                                  const float *bias, bool relu, float reluMax,
                                                  const float *next) {
  __mmask16 mask0 = cols >= 16 ? 0xffff : static_cast<__mmask16>((1u << cols) - 1);
  __mmask16 mask1 = cols >= 32 ? 0xffff : cols <= 16 ? 0 : static_cast<__mmask16>((1u << (cols - 16)) - 1);
  __m512 acc0[MR], acc1[MR];
  for (int i = 0; i < MR; ++i) {
    if (first || i >= rows) {
      acc0[i] = _mm512_setzero_ps();
      acc1[i] = _mm512_setzero_ps();
    } else {
      acc0[i] = _mm512_maskz_loadu_ps(mask0, c + i * ldc);
      acc1[i] = _mm512_maskz_loadu_ps(mask1, c + i * ldc + 16);
    }
  }
  if (cols == kTileColumns) {
    for (int64_t p = 0; p < depth; ++p) {
      __m512 b0 = _mm512_loadu_ps(b + p * ldb), b1 = _mm512_loadu_ps(b + p * ldb + 16);
      const float *ap = a + p * kPackRows;
      if (next)
        _mm_prefetch(reinterpret_cast<const char *>(next + p * kPackRows), _MM_HINT_T0);
      for (int i = 0; i < MR; ++i) {
        __m512 w = _mm512_set1_ps(ap[i]);
        acc0[i] = _mm512_fmadd_ps(w, b0, acc0[i]);
        acc1[i] = _mm512_fmadd_ps(w, b1, acc1[i]);
      }
    }
  } else {
    for (int64_t p = 0; p < depth; ++p) {
      __m512 b0 = _mm512_maskz_loadu_ps(mask0, b + p * ldb), b1 = _mm512_maskz_loadu_ps(mask1, b + p * ldb + 16);
      const float *ap = a + p * kPackRows;
      for (int i = 0; i < MR; ++i) {
        __m512 w = _mm512_set1_ps(ap[i]);
        acc0[i] = _mm512_fmadd_ps(w, b0, acc0[i]);
        acc1[i] = _mm512_fmadd_ps(w, b1, acc1[i]);
      }
    }
  }
  __m512 zero = _mm512_setzero_ps(), top = _mm512_set1_ps(reluMax);
  for (int i = 0; i < MR; ++i) {
    if (i >= rows)
      break;
    __m512 r0 = acc0[i], r1 = acc1[i];
    if (last) {
      if (bias) {
        __m512 bv = _mm512_set1_ps(bias[i]);
        r0 = _mm512_add_ps(r0, bv);
        r1 = _mm512_add_ps(r1, bv);
      }
      if (relu) {
        r0 = _mm512_min_ps(_mm512_max_ps(r0, zero), top);
        r1 = _mm512_min_ps(_mm512_max_ps(r1, zero), top);
      }
    }
    _mm512_mask_storeu_ps(c + i * ldc, mask0, r0);
    _mm512_mask_storeu_ps(c + i * ldc + 16, mask1, r1);
  }
}

using MicroTileFn = void (*)(int64_t, const float *, const float *, int64_t, float *, int64_t, int64_t, int64_t,
                             bool, bool, const float *, bool, float, const float *);

template <int... MR>
constexpr MicroTileFn pickTile(int64_t rows, std::integer_sequence<int, MR...>) {
  MicroTileFn fns[] = {&microTile<MR + 1>...};
  return fns[rows - 1];
}

} // namespace

bool packedGemmAvailable() {
  static const bool available = __builtin_cpu_supports("avx512f");
  return available;
}

PackedMatrix PackedMatrix::pack(const float *a, int64_t m, int64_t k, int64_t lda) {
  PackedMatrix packed;
  packed.m = m;
  packed.k = k;
  int64_t blocks = (m + kPackRows - 1) / kPackRows;
  packed.data.reset(new float[std::max<int64_t>(blocks * kPackRows * k, 1)]);
  for (int64_t blk = 0; blk < blocks; ++blk) {
    float *dst = packed.data.get() + blk * kPackRows * k;
    for (int64_t p = 0; p < k; ++p)
      for (int64_t i = 0; i < kPackRows; ++i) {
        int64_t row = blk * kPackRows + i;
        dst[p * kPackRows + i] = row < m ? a[row * lda + p] : 0.0f;
      }
  }
  return packed;
}

void packedGemm(const PackedMatrix &a, int64_t m0, int64_t m1, const RightMatrix &b, int64_t n, float *c,
                int64_t ldc, const Epilogue &epilogue) {
  int64_t k = a.k;
  if (m1 <= m0 || n <= 0)
    return;
  if (k == 0) { // an empty contraction: the epilogue of zero
    for (int64_t r = m0; r < m1; ++r) {
      float v = epilogue.bias ? epilogue.bias[r] : 0.0f;
      if (epilogue.relu)
        v = std::min(std::max(v, 0.0f), epilogue.reluMax);
      std::fill(c + (r - m0) * ldc, c + (r - m0) * ldc + n, v);
    }
    return;
  }
  if (k <= kShallow && !b.panels) {
    // A shallow product is bound by its output stores: sweep each row block along its rows, so the tile
    // stores form a few sequential streams, and read B in place.
    for (int64_t r = m0; r < m1; r += kPackRows) {
      int64_t rows = std::min(kPackRows, m1 - r);
      const float *block = a.data.get() + (r / kPackRows) * kPackRows * k;
      MicroTileFn tile = pickTile(rows, std::make_integer_sequence<int, kPackRows>());
      for (int64_t j = 0; j < n; j += kTileColumns)
        tile(k, block, b.data + j, b.ld, c + (r - m0) * ldc + j, ldc, rows, std::min(kTileColumns, n - j), true,
             true, epilogue.bias ? epilogue.bias + r : nullptr, epilogue.relu, epilogue.reluMax, nullptr);
    }
    return;
  }
  // A row-major B strip is copied to a contiguous buffer first when more than one row block reads it:
  // strided rows defeat the prefetchers and spread over L1 sets. Panels are contiguous already.
  bool copyStrip = !b.panels && m1 - m0 > kPackRows && b.ld != kTileColumns;
  alignas(64) float strip[kDepth * kTileColumns];
  for (int64_t k0 = 0; k0 < k; k0 += kDepth) {
    int64_t depth = std::min(kDepth, k - k0);
    bool first = k0 == 0, last = k0 + depth == k;
    for (int64_t j = 0; j < n; j += kTileColumns) {
      int64_t cols = std::min(kTileColumns, n - j);
      const float *bs = b.panels ? b.data + (j / kTileColumns) * k * kTileColumns + k0 * kTileColumns
                                 : b.data + k0 * b.ld + j;
      int64_t lds = b.panels ? kTileColumns : b.ld;
      if (copyStrip) {
        for (int64_t p = 0; p < depth; ++p)
          std::memcpy(strip + p * kTileColumns, bs + p * b.ld, cols * sizeof(float));
        bs = strip;
        lds = kTileColumns;
      }
      for (int64_t r = m0; r < m1; r += kPackRows) {
        int64_t rows = std::min(kPackRows, m1 - r);
        const float *block = a.data.get() + (r / kPackRows) * kPackRows * k + k0 * kPackRows;
        MicroTileFn tile = pickTile(rows, std::make_integer_sequence<int, kPackRows>());
        const float *next = r + kPackRows < m1 ? block + kPackRows * k : nullptr;
        tile(depth, block, bs, lds, c + (r - m0) * ldc + j, ldc, rows, cols, first, last,
             epilogue.bias ? epilogue.bias + r : nullptr, epilogue.relu, epilogue.reluMax, next);
      }
    }
  }
}

} // namespace tpuc::sim::ref
