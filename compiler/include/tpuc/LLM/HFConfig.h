//===- HFConfig.h - Typed HuggingFace config.json / generation_config.json --===//
//
// Qt-free. Reads the model configuration of the decoder families the LLM path
// supports (LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM) into a
// typed struct with HuggingFace's defaults applied, and the generation
// config (eos ids, sampling defaults). Errors name the file and the field.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_LLM_HFCONFIG_H
#define TPUC_LLM_HFCONFIG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tpuc::llm {

/// The decoder families the LLM path understands.
enum class ModelFamily { Llama, Qwen2, Qwen3 };

/// "llama", "qwen2", "qwen3".
llvm::StringRef modelFamilyName(ModelFamily family);

/// config.json's rope_scaling (absent for plain RoPE).
struct RopeScaling {
  /// "linear", "dynamic", "yarn", "llama3", "longrope", ... taken from
  /// "rope_type" or the older "type" key.
  std::string type;
  double factor = 1.0;
  /// llama3 style.
  std::optional<double> lowFreqFactor;
  std::optional<double> highFreqFactor;
  std::optional<int64_t> originalMaxPositionEmbeddings;
  /// yarn style.
  std::optional<double> attentionFactor;
  std::optional<double> betaFast;
  std::optional<double> betaSlow;
  /// Every numeric entry as given (including the ones above).
  std::map<std::string, double> numbers;
};

/// Pre-quantized checkpoints' quantization_config.
struct QuantizationConfig {
  enum class Method { GPTQ, AWQ, AutoRound };
  Method method = Method::GPTQ;
  /// The spelling found in the file ("gptq", "awq", "auto-round", ...).
  std::string methodName;
  int64_t bits = 4;
  /// -1 means one group per row (per-channel).
  int64_t groupSize = 128;
  bool sym = true;
  /// GPTQ act-order (g_idx is meaningful).
  bool descAct = false;
  /// AutoRound's packing_format ("auto_round:auto_gptq", ...), AWQ's
  /// version ("gemm"), GPTQ's checkpoint_format; empty if absent.
  std::string packingFormat;
};

/// The typed subset of config.json the LLM path uses.
/// The vision tower and projector of a vision-language checkpoint. Supported: InternVL
/// (InternVLChatModel: an InternViT tower with LayerNorm, GELU MLP and layer scale, the last layer's
/// patch features, pixel shuffle by downsample_ratio, then mlp1 = LayerNorm, Linear, GELU, Linear into
/// the language model's hidden size).
struct VisionConfig {
  /// The checkpoint's architectures[0] ("InternVLChatModel").
  std::string architecture;
  int64_t imageSize = 0, patchSize = 0;
  int64_t hiddenSize = 0, numLayers = 0, numHeads = 0, intermediateSize = 0;
  double layerNormEps = 1e-6;
  bool qkvBias = true;
  /// Pixel shuffle factor of the patch grid (0.5: each 2 x 2 patches become one token).
  double downsampleRatio = 0.5;
  /// Patches per side of the image.
  int64_t grid() const { return patchSize > 0 ? imageSize / patchSize : 0; }
  /// Patches per side after the pixel shuffle.
  int64_t tokenGrid() const {
    return static_cast<int64_t>(static_cast<double>(grid()) * downsampleRatio + 0.5);
  }
  /// Image tokens one image becomes in the prompt.
  int64_t imageTokens() const { return tokenGrid() * tokenGrid(); }
};

struct ModelConfig {
  ModelFamily family = ModelFamily::Llama;
  /// The architectures[0] string.
  std::string architecture;
  int64_t hiddenSize = 0;
  int64_t intermediateSize = 0;
  int64_t numHiddenLayers = 0;
  int64_t numAttentionHeads = 0;
  /// Defaults to numAttentionHeads (no GQA).
  int64_t numKeyValueHeads = 0;
  /// Defaults to hiddenSize / numAttentionHeads.
  int64_t headDim = 0;
  int64_t vocabSize = 0;
  int64_t maxPositionEmbeddings = 0;
  double rmsNormEps = 1e-6;
  double ropeTheta = 10000.0;
  std::optional<RopeScaling> ropeScaling;
  bool tieWordEmbeddings = false;
  /// q/k/v (and for Llama o_proj) biases. Qwen2 always has q/k/v bias.
  bool attentionBias = false;
  /// Llama's mlp_bias.
  bool mlpBias = false;
  /// Qwen3 normalizes q and k per head (q_norm / k_norm weights).
  bool qkNorm = false;
  std::string hiddenAct = "silu";
  /// Qwen2's sliding-window attention: used only when use_sliding_window is
  /// true, then for layers at or above maxWindowLayers.
  bool useSlidingWindow = false;
  std::optional<int64_t> slidingWindow;
  std::optional<int64_t> maxWindowLayers;
  /// "bfloat16", "float16", "float32" (torch_dtype or dtype); may be empty.
  std::string torchDType;
  std::optional<int64_t> bosTokenId;
  std::vector<int64_t> eosTokenIds;
  std::optional<QuantizationConfig> quantization;
  /// A vision-language checkpoint: its vision tower; the fields above describe its language model.
  std::optional<VisionConfig> vision;
  /// The language model's tensors are named with this prefix in the checkpoint ("language_model." for
  /// InternVL; empty for a text model).
  std::string weightPrefix;
};

/// generation_config.json.
struct GenerationConfig {
  std::vector<int64_t> eosTokenIds;
  std::optional<int64_t> bosTokenId;
  std::optional<int64_t> padTokenId;
  std::optional<bool> doSample;
  std::optional<double> temperature;
  std::optional<int64_t> topK;
  std::optional<double> topP;
  std::optional<double> repetitionPenalty;
  std::optional<int64_t> maxNewTokens;
  std::optional<int64_t> maxLength;
};

/// Parses config.json text; `fileName` labels errors. An architecture other
/// than the three supported families is an error naming it.
llvm::Expected<ModelConfig> parseModelConfig(llvm::StringRef jsonText, llvm::StringRef fileName);
/// Reads and parses a config.json file (or <dir>/config.json).
llvm::Expected<ModelConfig> readModelConfig(llvm::StringRef path);

/// Parses generation_config.json text.
llvm::Expected<GenerationConfig> parseGenerationConfig(llvm::StringRef jsonText, llvm::StringRef fileName);
/// Reads a generation_config.json file (or <dir>/generation_config.json).
llvm::Expected<GenerationConfig> readGenerationConfig(llvm::StringRef path);

} // namespace tpuc::llm

#endif // TPUC_LLM_HFCONFIG_H
