//===- LlmRuntime.h - Runs a compiled LLM's stages on the command-level simulator -*- C++ -*-===//
//
// What LLM-TPU's C++ demo does on the chip, over the model file `tpuc llm-convert` writes (one net per
// stage, LlmConvert.h has their interfaces): the runtime owns the KV cache (per layer a key and a value
// buffer of seq_length positions, the layout of the stages' history_k / history_v inputs, whose DDR
// addresses the compiler fixed), builds positions and additive masks, and combines the stages:
//
//   prefill  embedding(L) -> block_i (first chunk, no history) -> block_kv_i (later chunks, with history)
//            or, when a stage of the right kind is missing, block_cache_i token by token; a model built
//            with --dynamic runs a prefill in the smallest bucket that holds it (embedding_len<b>,
//            block_len<b>_i, block_kv_len<b>_i) instead of paying for the whole length;
//   decode   embedding_cache -> block_cache_i (one token against the history) ;
//   then     lm_head (last token) -> greedy_head, or sample_head (repetition penalty, temperature, top-p)
//            and a draw on the host from its candidates.
//
// Every stage runs through cmdsim::StageRunner (the functional command-level simulator), so what comes
// out is what the command streams compute; each run's simulated time comes from the cycle model.
// Token ids only: tokenizing is the caller's job. Qt-free and MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_SIMULATOR_LLMRUNTIME_H
#define TPUC_SIMULATOR_LLMRUNTIME_H

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Codegen/ModelFile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace tpuc::cmdsim {

/// The sizes the runtime reads off the stages' inputs and outputs.
struct LlmShape {
  int64_t layers = 0;
  int64_t seqLength = 0;      ///< KV cache positions (history_k's second axis).
  int64_t maxInputLength = 0; ///< Tokens one block_i prefill takes (0: no block_ stages).
  int64_t chunkLength = 0;    ///< Tokens one block_kv_i chunk takes (0: no block_kv_ stages).
  int64_t hidden = 0, kvHeads = 0, headDim = 0, vocab = 0;
  int64_t sampleCandidates = 0; ///< Width of sample_head's top-k (0: no sample_head).
  /// --dynamic prefill buckets below maxInputLength, ascending (empty: every prefill pays for the full
  /// length). A chunk with history uses the buckets below chunkLength.
  std::vector<int64_t> buckets;
  /// A vision-language model's `vit` net: the side of its square pixel input and the image tokens one
  /// image becomes (0: a text-only model).
  int64_t imageSize = 0, imageTokens = 0;
};

/// How the next token is chosen.
struct Sampling {
  /// 1 with penalty 1: greedy_head. Otherwise sample_head, then a draw among its first top_k candidates
  /// (renormalized); top_k 1 with a penalty takes the best penalized token.
  int64_t topK = 1;
  double temperature = 1.0, topP = 1.0, repetitionPenalty = 1.0;
};

/// How tokens are fed into the cache.
enum class FeedMode {
  Auto,   ///< block_ then block_kv_ chunks where they exist, else block_cache_ token by token.
  Decode, ///< block_cache_ token by token (the decode path).
};

/// Which stages one feed step ran (the three prefill/decode paths of LLM-TPU's runtime).
enum class StepKind {
  Prefill,   ///< embedding + block_i: the first chunk into an empty cache.
  PrefillKv, ///< embedding + block_kv_i: a chunk against the history in the cache.
  Decode,    ///< embedding_cache + block_cache_i: one token against the history.
};

/// "prefill", "prefill_kv" or "decode".
const char *stepKindName(StepKind kind);

/// One step of feed(): `tokens` tokens written at positions `position`.. of the cache, with the simulated
/// and wall time of its stage runs (lm_head and the heads are not part of it).
struct FeedStep {
  StepKind kind = StepKind::Decode;
  int64_t position = 0, tokens = 0;
  /// The length the stages ran at: the prefill's bucket (max_input_length or chunk_length without one),
  /// 1 for decode.
  int64_t stageTokens = 0;
  double simulatedMs = 0, wallSeconds = 0;
  int64_t stageRuns = 0;
};

/// Simulated and wall time of the stage runs since the last takeTime().
struct RunTime {
  double simulatedMs = 0;
  double wallSeconds = 0;
  int64_t stageRuns = 0;
};

class LlmRuntime {
public:
  /// Checks that `model` holds the stages of an LLM (embedding_cache, block_cache_<i> for every layer,
  /// lm_head and a head) with consistent shapes; one line naming the net or input otherwise. `chip` and
  /// `model` must outlive the runtime.
  static llvm::Expected<std::unique_ptr<LlmRuntime>> create(const backend::ChipProfile &chip,
                                                            const codegen::Model &model);
  ~LlmRuntime();

  const LlmShape &shape() const;
  /// Tokens held in the KV cache (the next token's position).
  int64_t position() const;
  /// Every token fed so far (the repetition penalty's history).
  const std::vector<int32_t> &tokens() const;
  /// Empties the KV cache.
  void reset();
  /// Keeps the first `count` tokens of the cache (the rest is hidden by the masks of later steps and
  /// overwritten as new tokens arrive); a count at or past position() changes nothing.
  void truncate(int64_t count);
  /// Called after each step of feed() and recompute() (prefill chunk or decoded token); empty: none.
  void setStepObserver(std::function<void(const FeedStep &)> observer);

  /// Appends `tokens` to the cache at the current position and returns the logits [vocab] after the
  /// last of them. Fails (cache untouched past the last complete stage) when the context would exceed
  /// seq_length, a token is outside the vocabulary, or a stage fails.
  llvm::Expected<std::vector<float>> feed(llvm::ArrayRef<int32_t> tokens, FeedMode mode = FeedMode::Auto);
  /// The logits of the last of `tokens` recomputed from nothing: one block_ prefill over all of them, no
  /// cache read (HuggingFace's use_cache=False). Needs tokens.size() <= maxInputLength; the cache ends up
  /// holding exactly `tokens`.
  llvm::Expected<std::vector<float>> recompute(llvm::ArrayRef<int32_t> tokens);
  /// The next token from `logits` through the head stages (see Sampling); `rng` draws when sampling.
  llvm::Expected<int32_t> choose(const std::vector<float> &logits, const Sampling &sampling, std::mt19937_64 &rng);

  /// A VLM's image through the `vit` net: pixel_values [1, 3, S, S] (normalized) -> the image's embedding
  /// rows [imageTokens x hidden]. Fails for a text-only model or a wrong pixel count.
  llvm::Expected<std::vector<float>> encodeImage(llvm::ArrayRef<float> pixels);
  /// An image's rows (encodeImage's) that replace the embedding of the `imageToken`s fed after the ones the
  /// cache holds now, in order, as InternVL splices image features into the prompt's embeddings (a
  /// recompute from an empty cache uses them again). feed() fails for an image token without a row.
  void setImageRows(int32_t imageToken, std::vector<float> rows);

  /// Time of the stage runs since the previous call.
  RunTime takeTime();

  struct Impl;

private:
  explicit LlmRuntime(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace tpuc::cmdsim

#endif // TPUC_SIMULATOR_LLMRUNTIME_H
