//===- QuantizedLinear.h - Linear-layer weights, float or weight-only quantized ===//
//
// Qt-free, MLIR-free. The weights of one HuggingFace linear layer (q/k/v/o,
// gate/up/down projections) in the form top.matmul or top.a16matmul takes:
// float [N, K], or group-quantized integers with scales and zero points.
// They come from a float checkpoint (quantized here with Quant/Arith.h's
// group quantization) or pass through from a pre-quantized checkpoint:
//
//  - GPTQ (AutoGPTQ / GPTQModel / AutoRound's auto_gptq format): qweight
//    [K*bits/32, N] int32 packed along K (element 8r+j of a column in bits
//    4j..4j+3 for 4 bits), qzeros [K/G, N*bits/32] packed along N the same
//    way, scales [K/G, N], optional g_idx [K] (act-order: input channel k
//    belongs to group g_idx[k]). The original format stores zero - 1 (the
//    "+1 convention"); checkpoint_format gptq_v2 / GPTQModel store zero.
//  - AWQ GEMM (AutoAWQ, AutoRound's auto_awq format): qweight [K, N*bits/32]
//    int32 packed along N with the interleaved order 0,2,4,6,1,3,5,7 (so the
//    nibbles of a word read back in column order 0,4,1,5,2,6,3,7), qzeros
//    [K/G, N*bits/32] packed the same way, scales [K/G, N]; no zero offset.
//
// Either way w[n, k] = (q[n, k] - zp[n, g(k)]) * scale[n, g(k)], exactly the
// checkpoint's dequantization. Act-order groups are made contiguous by
// permuting the input channels (the stage gathers its input accordingly).
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_LLM_QUANTIZEDLINEAR_H
#define TPUC_LLM_QUANTIZEDLINEAR_H

#include "tpuc/LLM/SafeTensors.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tpuc::llm {

/// One linear layer y = x W^T (+ bias), W of [N, K] = [out, in] features.
struct LinearWeights {
  int64_t outFeatures = 0; ///< N
  int64_t inFeatures = 0;  ///< K
  /// Float [N, K] (when not quantized).
  std::vector<float> weight;

  /// Weight-only quantized form, laid out as top.a16matmul expects.
  bool quantized = false;
  int bits = 0;          ///< 4 or 8
  int64_t groupSize = 0; ///< divides K
  /// Signed values and no zero points (a16matmul's `sym`).
  bool symmetric = false;
  /// 8 bits: [N, K] bytes (int8 when symmetric, uint8 otherwise); 4 bits:
  /// [N, K/2], element 2k in the low nibble.
  std::vector<uint8_t> data;
  std::vector<float> scales;     ///< [N, K / groupSize]
  std::vector<float> zeroPoints; ///< [N, K / groupSize]; empty when symmetric
  /// Act-order checkpoints: column j of `data` holds input channel
  /// inputPermutation[j]. Empty means the identity.
  std::vector<int64_t> inputPermutation;

  /// The stored integer of (row, stored column j), unpacked.
  int64_t valueAt(int64_t row, int64_t col) const;
  /// The dequantized (or float) weights [N, K] in the checkpoint's input channel order.
  std::vector<float> dequantize() const;
};

/// The packing of a pre-quantized checkpoint's linear layers.
enum class PackedFormat {
  GPTQ,   ///< zero points stored as zero - 1 (AutoGPTQ v1 convention)
  GPTQv2, ///< zero points stored as they are (gptq_v2, GPTQModel)
  AWQ,    ///< AutoAWQ GEMM
};

/// The tensors of one packed linear layer (views into the checkpoint).
struct PackedLinear {
  TensorView qweight, qzeros, scales;
  std::optional<TensorView> gIdx;
};

/// Unpacks a GPTQ- or AWQ-packed layer with `bits` (4 or 8) and `groupSize`
/// (-1: one group over K). `name` labels errors (shapes or dtypes that do not
/// fit the format, act-order groups of unequal size).
llvm::Expected<LinearWeights> unpackLinear(const PackedLinear &packed, PackedFormat format, int bits,
                                           int64_t groupSize, llvm::StringRef name);

/// Group-quantizes float [N, K] weights (Quant/Arith.h's quantizeWeightsGroupWise);
/// `groupSize` 0 means one group per row. Errors name the layer when the
/// group size does not divide K.
llvm::Expected<LinearWeights> quantizeLinear(std::vector<float> weight, int64_t outFeatures,
                                             int64_t inFeatures, int bits, int64_t groupSize, bool symmetric,
                                             llvm::StringRef name);

} // namespace tpuc::llm

#endif // TPUC_LLM_QUANTIZEDLINEAR_H
