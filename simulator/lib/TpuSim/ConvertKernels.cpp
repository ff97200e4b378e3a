//===- ConvertKernels.cpp - Casts, lookup tables, 16-bit rounding, weight-only matmul ---===//
// Every float <-> integer step goes through TpucQuant (quantize, dequantize, requantizeInt, roundToF16/BF16)
// so the simulator and the lowering agree bit for bit.
//===----------------------------------------------------------------------===//
#include "tpuc/Simulator/TpuKernels.h"

#include "../Reference/Kernels.h"

#include <algorithm>

namespace tpuc::sim::tpu {

Lut buildLut(double (*f)(double, const void *), const void *ctx, quant::QuantParams in, quant::IntType inType,
             quant::QuantParams out, quant::IntType outType) {
  Lut lut(256);
  int64_t lo = quant::intMin(inType);
  for (int64_t i = 0; i < 256; ++i) {
    int64_t code = std::min(lo + i, quant::intMax(inType));
    lut[i] = static_cast<float>(quant::quantize(f(quant::dequantize(code, in), ctx), out, outType));
  }
  return lut;
}

void applyLut(const Lut &lut, quant::IntType inType, const float *x, int64_t count, float *y) {
  int64_t lo = quant::intMin(inType);
  parallelFor(count, ref::kElementGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      y[i] = lut[static_cast<size_t>(static_cast<int64_t>(x[i]) - lo) & 255];
  });
}

void quantizeFloats(const float *x, int64_t count, quant::QuantParams params, quant::IntType type, float *y) {
  parallelFor(count, ref::kElementGrain, [&](int64_t begin, int64_t end) {
    size_t n = static_cast<size_t>(end - begin);
    quant::quantizeSpan({x + begin, n}, params, type, quant::RoundingMode::HalfAwayFromZero, {y + begin, n});
  });
}

void dequantizeCodes(const float *x, int64_t count, quant::QuantParams params, float *y) {
  parallelFor(count, ref::kElementGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      y[i] = static_cast<float>(quant::dequantize(static_cast<int64_t>(x[i]), params));
  });
}

void roundHalf(float *data, int64_t count, Half half) {
  if (half == Half::None)
    return;
  parallelFor(count, ref::kElementGrain, [&](int64_t begin, int64_t end) {
    std::span<float> part(data + begin, static_cast<size_t>(end - begin));
    if (half == Half::F16)
      quant::roundToF16(part);
    else
      quant::roundToBF16(part);
  });
}

std::vector<float> a16Weights(const quant::GroupQuantWeights &q, Half half) {
  std::vector<float> w = q.dequantize(); // [n, k]
  roundHalf(w.data(), static_cast<int64_t>(w.size()), half);
  return w;
}

void a16Matmul(int64_t m, int64_t k, int64_t n, const float *x, const quant::GroupQuantWeights &q,
               const float *bias, Half half, float *y) {
  std::vector<float> w = a16Weights(q, half);
  a16MatmulDequantized(m, k, n, x, w.data(), bias, half, y);
}

void a16MatmulDequantized(int64_t m, int64_t k, int64_t n, const float *x, const float *w, const float *bias,
                          Half half, float *y) {
  ref::gemm(false, true, m, n, k, x, k, w, k, y, n);
  if (bias)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        y[i * n + j] += bias[j];
  roundHalf(y, m * n, half);
}

} // namespace tpuc::sim::tpu
