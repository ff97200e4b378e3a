//===- TpuKernels.h - Exact integer and 16-bit float kernels of the Tpu ops -*- C++ -*-===//
// Qt-free, MLIR-free. Plain functions over buffers that the Tpu functional simulator binds to the ops.
//===----------------------------------------------------------------------===//
#ifndef TPUC_SIMULATOR_TPUKERNELS_H
#define TPUC_SIMULATOR_TPUKERNELS_H

#include "tpuc/Quant/Arith.h"

#include <cstdint>
#include <span>
#include <vector>

namespace tpuc::sim::tpu {

// Storage convention: a quantized tensor is held as its integer codes, each stored exactly as a float32
// value (every integer of magnitude <= 2^24 is exact in float32, so int8/uint8/int16 codes lose nothing).
// Integer products are then summed by float32 GEMMs only where the sum is provably exact (see
// intGemm); accumulators are int32 and every rescale goes through TpucQuant (Quant/Arith.h).

/// The float32 sum of at most this many terms of magnitude <= `maxProduct` is exact: every partial sum is
/// an integer of magnitude <= 2^24.
int64_t exactChunk(int64_t maxProduct);

/// C[m, n] = sum_k A[m, k] * B[k, n] in exact integer arithmetic, for float matrices holding integers
/// with |a| <= maxA and |b| <= maxB (row-major, leading dimensions lda/ldb/ldc, A optionally transposed,
/// i.e. stored [k, m]). K is cut into chunks of exactChunk(maxA * maxB) contracted by single-threaded
/// OpenBLAS sgemm (exact within a chunk) and summed in int32, which must not overflow. Runs on the
/// calling thread; `scratch` needs m * n floats when K spans more than one chunk.
void intGemm(bool transA, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *b,
             int64_t ldb, int32_t *c, int64_t ldc, int64_t maxA, int64_t maxB, float *scratch);

/// Per-tensor (one value) or per-channel requantization of an int32 accumulator (Quant/Arith.h's
/// `requantize`): y = saturate(round(acc * multiplier / 2^rshift) + zpOut).
struct Requant {
  std::vector<int64_t> multiplier, rshift; ///< 1 value, or one per channel.
  int64_t zpOut = 0;
  quant::IntType type = quant::IntType::Int8;
  quant::RoundingMode mode = quant::RoundingMode::HalfUp;
  /// Fused relu: clamp the result below at zpOut (real 0) and, when reluMax is set, above at it.
  bool relu = false;
  int64_t reluMax = INT64_MAX;
  /// The pair of channel c.
  quant::MultiplierShift at(int64_t c) const {
    size_t i = multiplier.size() == 1 ? 0 : static_cast<size_t>(c);
    return {multiplier[i], rshift[i]};
  }
  /// The requantized value of `acc` in channel c, relu included.
  int64_t apply(int64_t acc, int64_t c) const;
};

/// Requantizes `count` accumulators of channel `c`, each plus `bias`, into codes (relu included).
void requantizeRow(const int32_t *acc, int64_t count, const Requant &rq, int64_t c, float *out,
                   int64_t bias = 0);

/// Geometry of a 2-D NCHW convolution or pooling window (1-D: height 1).
struct ConvShape {
  int64_t n = 1, ic = 1, ih = 1, iw = 1, oc = 1, oh = 1, ow = 1;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  int64_t group = 1;
};

/// INT8 convolution: acc = sum (x - zpX) * w + bias over each window (padding contributes real 0, i.e. the
/// code zpX), then `rq` per output channel. `x` holds codes [n, ic, ih, iw] with |x - zpX| <= maxX, `w`
/// holds int8 codes [oc, ic/group, kh, kw] (symmetric, |w| <= 128), `bias` int32 per output channel (or
/// empty). Output codes [n, oc, oh, ow]. Multi-threaded (tpuc::sim::ThreadPool).
void convInt8(const ConvShape &s, const float *x, int64_t zpX, int64_t maxX, const float *w,
              std::span<const int64_t> bias, const Requant &rq, float *y);

/// INT8 matmul [batch, m, k] x [k, n] (or [n, k] with transB, or batched B when `batchB`) + bias[n], each
/// output column requantized by `rq` (per tensor or per column n). `a` codes with zero point zpA.
void matmulInt8(int64_t batch, int64_t m, int64_t k, int64_t n, const float *a, int64_t zpA, int64_t maxA,
                const float *b, int64_t zpB, int64_t maxB, bool transB, bool batchB,
                std::span<const int64_t> bias, const Requant &rq, float *y);

/// INT8 max pooling over codes (padding never wins).
void maxPoolInt8(const ConvShape &s, const float *x, float *y);
/// INT8 average pooling: the sum of (x - zpX) over the kh*kw window (padding contributes 0) requantized
/// by `rq` (the divisor kh*kw is folded into the multiplier, as TPU-MLIR does).
void avgPoolInt8(const ConvShape &s, const float *x, int64_t zpX, const Requant &rq, float *y);

/// One input of an INT8 element-wise op: its codes, shape and zero point.
struct BroadcastInput {
  const float *data = nullptr;
  std::vector<int64_t> shape; ///< Right-aligned against the output shape; 1 = broadcast.
  int64_t zp = 0;
};

/// INT8 add/sub (TpuOps.td): acc = (xa - zpa) * ma +- (xb - zpb) * mb, y = saturate(roundingRightShift(acc,
/// rshift, mode) + zpOut), with NumPy broadcasting; `relu` clamps to [zpOut, reluMax].
void addInt8(const BroadcastInput &a, const BroadcastInput &b, int64_t ma, int64_t mb, int64_t rshift,
             bool subtract, std::span<const int64_t> outShape, int64_t zpOut, quant::IntType type,
             quant::RoundingMode mode, bool relu, int64_t reluMax, float *y);
/// INT8 mul: y = saturate(applyMultiplierShift((xa - zpa) * (xb - zpb), ms) + zpOut) with broadcasting.
void mulInt8(const BroadcastInput &a, const BroadcastInput &b, quant::MultiplierShift ms,
             std::span<const int64_t> outShape, int64_t zpOut, quant::IntType type, quant::RoundingMode mode,
             bool relu, int64_t reluMax, float *y);

/// A 256-entry lookup table indexed by an 8-bit code (int8 code c at c + 128, uint8 code at c).
using Lut = std::vector<float>;
/// The table of y = f(x) for 8-bit codes: y_q = quantize(f(dequantize(x_q, in)), out) with TpucQuant's
/// quantize (round half away from zero, saturate).
Lut buildLut(double (*f)(double, const void *), const void *ctx, quant::QuantParams in, quant::IntType inType,
             quant::QuantParams out, quant::IntType outType);
/// Applies `lut` to `count` codes of type inType.
void applyLut(const Lut &lut, quant::IntType inType, const float *x, int64_t count, float *y);

/// Rescales codes from one scale to another: requantizeInt per element, per tensor or per channel of
/// `channels` (axis 1, each holding `inner` contiguous elements).
void requantInt(const float *x, int64_t outer, int64_t channels, int64_t inner, int64_t zpIn,
                std::span<const quant::MultiplierShift> ms, int64_t zpOut, quant::IntType type,
                quant::RoundingMode mode, float *y);

/// Quantizes floats into codes: quantize(x, params, type, half away from zero).
void quantizeFloats(const float *x, int64_t count, quant::QuantParams params, quant::IntType type, float *y);
/// Dequantizes codes into float32: float((q - zp) * scale).
void dequantizeCodes(const float *x, int64_t count, quant::QuantParams params, float *y);

/// The 16-bit float formats a tensor may be rounded to.
enum class Half : uint8_t { None, F16, BF16 };
/// Rounds `count` floats in place to the nearest f16 / bf16 value (nothing for Half::None).
void roundHalf(float *data, int64_t count, Half half);

/// Weight-only matmul: y[m, n] = sum_k x[m, k] * w[n, k] + bias[n], where w is dequantized group-wise
/// from `q` ((q - zp) * scale, Quant/Arith.h's GroupQuantWeights layout), each w rounded to `half`, the
/// product accumulated in f32 and the result rounded to `half`. `x` rows must already be rounded.
void a16Matmul(int64_t m, int64_t k, int64_t n, const float *x, const quant::GroupQuantWeights &q,
               const float *bias, Half half, float *y);
/// The weights a16Matmul multiplies by: `q` dequantized to [n, k] floats, each rounded to `half`.
std::vector<float> a16Weights(const quant::GroupQuantWeights &q, Half half);
/// a16Matmul on weights a16Weights already produced (kernels keep them across calls of a constant weight).
void a16MatmulDequantized(int64_t m, int64_t k, int64_t n, const float *x, const float *w, const float *bias,
                          Half half, float *y);

} // namespace tpuc::sim::tpu

#endif // TPUC_SIMULATOR_TPUKERNELS_H
