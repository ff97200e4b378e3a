//===- PackedGemm.h - AVX-512 GEMM on packed convolution weights (internal) -*- C++ -*-===//
// C = A * B for convolutions: A (the filters, [M, K]) is packed once into row blocks, B (im2col columns or
// the input planes of a 1x1 conv, [K, N] row-major) is read in place, and the bias and the fused Relu are
// applied while the output tile is still in registers. Machines without AVX-512 use OpenBLAS instead.
//===----------------------------------------------------------------------===//
#ifndef TPUC_SIMULATOR_REFERENCE_PACKEDGEMM_H
#define TPUC_SIMULATOR_REFERENCE_PACKEDGEMM_H

#include <cstdint>
#include <memory>

namespace tpuc::sim::ref {

/// Rows of A per packed block (the micro-kernel's output rows) and output columns per micro-tile.
constexpr int64_t kPackRows = 12;
constexpr int64_t kTileColumns = 32;

/// Whether the packed GEMM can run on this CPU (AVX-512F).
bool packedGemmAvailable();

/// An [M, K] matrix packed for packedGemm: blocks of kPackRows rows (the last one zero-padded), each
/// stored k-major, so one k step of a block is kPackRows consecutive floats.
struct PackedMatrix {
  int64_t m = 0, k = 0;
  std::unique_ptr<float[]> data;

  /// Packs the [m, k] row-major matrix `a` (row stride `lda`).
  static PackedMatrix pack(const float *a, int64_t m, int64_t k, int64_t lda);
  /// Bytes held.
  int64_t bytes() const { return ((m + kPackRows - 1) / kPackRows) * kPackRows * k * 4; }
};

/// What to do with an output element once its dot product is complete: add bias[row] (if not null),
/// then clamp to [0, reluMax] when `relu` is set.
struct Epilogue {
  const float *bias = nullptr;
  bool relu = false;
  float reluMax = 0;
};

/// The right-hand [K, n] matrix: row-major with row stride `ld`, or, when `panels` is set, in column
/// panels of kTileColumns (panel q holds columns [32q, 32q + 32) as K rows of 32 floats, K * 32 floats
/// per panel; the last panel's rows are 32 floats long too), the layout im2colPanels writes.
struct RightMatrix {
  const float *data;
  int64_t ld = 0;
  bool panels = false;
};

/// C[rows [m0, m1), n columns] = A[rows, :] * B[K, n] with the epilogue. `m0` must be a multiple of
/// kPackRows; C has row stride `ldc` (C row r is at c + (r - m0) * ldc). Single-threaded; requires
/// packedGemmAvailable().
void packedGemm(const PackedMatrix &a, int64_t m0, int64_t m1, const RightMatrix &b, int64_t n, float *c,
                int64_t ldc, const Epilogue &epilogue);

} // namespace tpuc::sim::ref

#endif // TPUC_SIMULATOR_REFERENCE_PACKEDGEMM_H
