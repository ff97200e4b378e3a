//===- LlmStages.h - The Top IR of each LLM stage (internal) --------------===//
//
// Builders of the stage modules LlmConvert.h lists, from weights already
// loaded (and quantized) by LlmConvert.cpp. The decoder layer follows the
// HuggingFace Llama / Qwen2 / Qwen3 modeling code: pre-norm attention with
// GQA and half-rotation RoPE, Qwen3's per-head q/k RMSNorm before RoPE, and
// a SiLU-gated MLP.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_LIB_LLM_LLMSTAGES_H
#define TPUC_LIB_LLM_LLMSTAGES_H

#include "tpuc/LLM/HFConfig.h"
#include "tpuc/LLM/QuantizedLinear.h"
#include "tpuc/Support/Npz.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace tpuc::llm {

/// RoPE as configured: inverse frequencies [D/2] (rope_scaling applied) and
/// the factor cos/sin are multiplied by (YaRN's attention factor, else 1).
struct RopeParams {
  std::vector<float> invFreq;
  double attentionFactor = 1.0;
};

/// Computes RopeParams from config.json's rope_theta / rope_scaling for a
/// context of `seqLength` (dynamic NTK scaling depends on it). Errors name an
/// unsupported rope_scaling type.
llvm::Expected<RopeParams> computeRope(const ModelConfig &config, int64_t seqLength);

/// The weights of decoder layer `index`, named `prefix` ("model.layers.<i>").
struct LayerWeights {
  std::string prefix;
  std::vector<float> inputNorm, postNorm;
  /// Qwen3 only: [D] each.
  std::vector<float> qNorm, kNorm;
  LinearWeights q, k, v, o, gate, up, down;
  std::optional<std::vector<float>> qBias, kBias, vBias, oBias, gateBias, upBias, downBias;
};

/// One InternViT encoder layer (LlmConvert.cpp reads "vision_model.encoder.layers.<i>").
struct VisionLayerWeights {
  std::vector<float> norm1Weight, norm1Bias, norm2Weight, norm2Bias, ls1, ls2;
  /// attn.qkv split into its three [C, C] parts (rows 0..C-1 are q, then k, then v).
  LinearWeights q, k, v, proj, fc1, fc2;
  std::optional<std::vector<float>> qBias, kBias, vBias;
  std::vector<float> projBias, fc1Bias, fc2Bias;
};

/// The vision tower and projector of an InternVL checkpoint (HFConfig.h VisionConfig).
struct VisionWeights {
  std::vector<float> patchWeight;                       ///< [C, 3, p, p]
  std::vector<float> patchBias;                         ///< [C]
  std::vector<float> classEmbedding, positionEmbedding; ///< [C], [(N + 1) * C]
  std::vector<VisionLayerWeights> layers;
  /// mlp1: LayerNorm over C * r^2, Linear to the LM's hidden size, GELU, Linear.
  std::vector<float> projectorNormWeight, projectorNormBias;
  LinearWeights projector1, projector2;
  std::vector<float> projector1Bias, projector2Bias;
};

/// The `vit` stage: pixel_values [1, 3, S, S] (normalized) -> image_embeds [1, T, H], the rows the runtime
/// puts in place of the prompt's image tokens.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> buildVisionStage(mlir::MLIRContext &context,
                                                                   const ModelConfig &config,
                                                                   const VisionWeights &weights,
                                                                   NpzFile &file, llvm::StringRef weightPath);

/// Which of the three per-layer stages to build.
enum class BlockKind {
  Prefill, ///< block_i
  Cache,   ///< block_cache_i: one token against the history
  History, ///< block_kv_i: a chunk against the history
};

/// One decoder-layer stage: `length` tokens (1 for Cache), history of `seqLength`.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildBlockStage(mlir::MLIRContext &context, llvm::StringRef stageName, const ModelConfig &config,
                const LayerWeights &layer, const RopeParams &rope, BlockKind kind, int64_t length,
                int64_t seqLength, NpzFile &weights, llvm::StringRef weightPath);

/// embedding / embedding_cache: a gather from the [V, H] table `tableName` (`table` may be empty when
/// `weights` holds the table already: a weight already in the file is not copied).
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildEmbeddingStage(mlir::MLIRContext &context, llvm::StringRef stageName, const ModelConfig &config,
                    llvm::StringRef tableName, const std::vector<float> &table, int64_t length,
                    NpzFile &weights, llvm::StringRef weightPath);

/// lm_head: final RMSNorm, then logits with the [V, H] matrix `headName` (`head` may be empty when
/// `weights` holds it already).
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildLmHeadStage(mlir::MLIRContext &context, const ModelConfig &config, const std::vector<float> &norm,
                 llvm::StringRef headName, const std::vector<float> &head, NpzFile &weights,
                 llvm::StringRef weightPath);

/// greedy_head: the most likely token.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> buildGreedyHeadStage(mlir::MLIRContext &context,
                                                                       int64_t vocab);

/// sample_head: LLM-TPU's sampling head (repetition penalty over the
/// `seqLength` ids so far, top-k, temperature, top-p); the runtime draws from
/// the returned distribution over the k candidate tokens.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildSampleHeadStage(mlir::MLIRContext &context, int64_t vocab, int64_t seqLength, int64_t topK);

} // namespace tpuc::llm

#endif // TPUC_LIB_LLM_LLMSTAGES_H
