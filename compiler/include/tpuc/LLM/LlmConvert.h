//===- LlmConvert.h - HuggingFace decoder checkpoint -> staged Top IR -----===//
//
// Qt-free. `tpuc llm-convert`'s engine up to the Top level: reads config.json
// and the safetensors checkpoint, and builds the Top IR of every stage
// directly (no ONNX step), one MLIR file per stage, with the weights in .npz
// files that the stages sharing them share.
//
// Stages and their interfaces (H hidden size, Hkv x D key/value heads x head
// size, V vocabulary, S seq_length, L max_input_length, C chunk_length; ids
// and positions are i32, masks are additive f32, 0 to attend and -10000 not):
//
//   embedding        input_ids [1, L]                         -> hidden [1, L, H]
//   embedding_cache  input_ids [1, 1]                         -> hidden [1, 1, H]
//   block_i          hidden [1, L, H], position_ids [1, L],
//                    attention_mask [1, 1, L, L]              -> hidden, k [1, L, Hkv, D], v
//   block_cache_i    hidden [1, 1, H], position_ids [1, 1],
//                    attention_mask [1, 1, 1, S + 1],
//                    history_k [1, S, Hkv, D], history_v      -> hidden, k [1, 1, Hkv, D], v
//   block_kv_i       hidden [1, C, H], position_ids [1, C],   (only with --use_history_kv)
//                    attention_mask [1, 1, C, S + C],
//                    history_k [1, S, Hkv, D], history_v      -> hidden, k [1, C, Hkv, D], v
//   embedding_len<b>, block_len<b>_i, block_kv_len<b>_i
//                    (only with --dynamic) the prefill stages again for a shorter
//                    prompt bucket of b tokens in place of L (or C): a prompt of
//                    n tokens runs in the smallest bucket that holds it
//   lm_head          hidden [1, H]                            -> logits [1, V]
//   greedy_head      logits [1, V]                            -> token [1, 1]
//   sample_head      logits [1, V], input_ids [1, S], top_p [1],
//                    temperature [1], penalty [1]             -> probs [1, K], tokens [1, K]
//
// The key/value a stage returns are after RoPE (what the cache holds); the
// cached stages attend to history positions first, then to their own tokens
// (mask columns in that order). Weight files: layer_<i>.npz (the three
// stages of layer i), embedding.npz (the table of both embedding stages),
// lm_head.npz (final norm and lm_head, or the table when tied).
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_LLM_LLMCONVERT_H
#define TPUC_LLM_LLMCONVERT_H

#include "tpuc/LLM/HFConfig.h"
#include "tpuc/LLM/PrefillBuckets.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tpuc::llm {

/// llm_convert's options (the CLI validates their ranges first).
struct ConvertOptions {
  std::string modelPath;
  int64_t seqLength = 0;
  /// bf16, f16, f32, w8bf16, w4bf16, w8f16, w4f16.
  std::string quantize = "bf16";
  /// Weight-only quantization group size; 0 = one group per row.
  int64_t qGroupSize = 64;
  bool symmetric = false;
  std::string chip = "bm1684x";
  bool useHistoryKv = false;
  /// 0: seq_length / 4 with --use_history_kv.
  int64_t chunkLength = 0;
  /// 0: the chunk length with --use_history_kv, else seq_length.
  int64_t maxInputLength = 0;
  std::string outDir;
  /// Top-k width of sample_head (capped at the vocabulary).
  int64_t sampleTopK = 50;
  /// --dynamic: the prefill stages are also built for shorter prompt buckets (`buckets`, or by default
  /// max_input_length halved, rounded up to 16, down to 16 tokens).
  bool dynamic = false;
  /// Explicit bucket lengths (each below max_input_length); non-empty implies dynamic.
  std::vector<int64_t> buckets;
  /// Called with each warning line (e.g. -q overridden by the checkpoint's quantization config).
  std::function<void(const std::string &)> warn;
  /// Called before each stage is built: (stages done, stages in total, stage name).
  std::function<void(size_t, size_t, const std::string &)> progress;
};

/// The lengths and precision the conversion resolved.
struct ConvertPlan {
  int64_t seqLength = 0;
  int64_t maxInputLength = 0;
  /// 0 without --use_history_kv.
  int64_t chunkLength = 0;
  /// The effective -q mode (a pre-quantized checkpoint's config wins).
  std::string quantize;
  /// 0 (float weights), 4 or 8.
  int weightBits = 0;
  int64_t groupSize = 0;
  bool symmetric = false;
  /// The checkpoint is pre-quantized and its layers pass through.
  bool prequantized = false;
  int64_t sampleTopK = 0;
  /// Prefill buckets shorter than max_input_length, ascending (empty without --dynamic); chunks with
  /// history get the buckets below chunk_length.
  std::vector<int64_t> buckets;
  /// Stage names in build order.
  std::vector<std::string> stages;
};

/// Resolves lengths and precision from the config alone (no weights needed);
/// warnings go to `options.warn`.
llvm::Expected<ConvertPlan> planConversion(const ModelConfig &config, const ConvertOptions &options);

/// One written stage.
struct StageFile {
  std::string name;
  std::string mlirPath;
  /// Empty when the stage has no file-backed weights.
  std::string weightPath;
};

/// What convertToTop produced.
struct ConvertResult {
  ModelConfig config;
  ConvertPlan plan;
  std::vector<StageFile> stages;
};

/// Builds every stage's Top module and writes `<outDir>/<stage>.mlir` plus the
/// weight files. Errors are one line naming the file, tensor or field at
/// fault (an unsupported architecture, a missing tensor, a bad shape).
/// `context` must have the Top and func dialects loadable.
llvm::Expected<ConvertResult> convertToTop(mlir::MLIRContext &context, const ConvertOptions &options);

} // namespace tpuc::llm

#endif // TPUC_LLM_LLMCONVERT_H
