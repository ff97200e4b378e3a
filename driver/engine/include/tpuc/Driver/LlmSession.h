//===- LlmSession.h - A converted LLM opened for generation (llm-run) -----===//
//
// What `tpuc llm-run` does between its flags and its printing: the model file (or the one .tpum in a
// folder) on the command-level runtime, its tokenizer and stop tokens, the sampling settings, and
// answers generated one token at a time over the KV cache the session keeps between turns.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_LLMSESSION_H
#define TPUC_DRIVER_LLMSESSION_H

#include "tpuc/Driver/Driver.h"
#include "tpuc/LLM/Tokenizer.h"
#include "tpuc/Simulator/LlmRuntime.h"

#include <cstdint>
#include <functional>
#include <istream>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace tpuc::driver {

/// One answer: its tokens, why it stopped and its timing.
struct LlmAnswer {
  std::vector<int32_t> prompt, tokens;
  /// With --dump_logits: the logits each of `tokens` was chosen from, one row of vocab floats per token.
  std::vector<float> logits;
  std::string text, stop;
  /// Leading tokens of `prompt` already in the KV cache (not prefilled again).
  int64_t cachedTokens = 0;
  double firstTokenMs = 0, firstTokenWall = 0;
  double decodeMs = 0, decodeWall = 0;
  int64_t decodeSteps = 0;
  double tokensPerSecond() const { return decodeMs > 0 ? 1000.0 * double(decodeSteps) / decodeMs : 0; }
  double wallTokensPerSecond() const { return decodeWall > 0 ? double(decodeSteps) / decodeWall : 0; }
};

/// How the next tokens are generated; the flags of llm-run (--max_new_tokens --top_k --top_p
/// --temperature --repetition_penalty --seed), changeable between turns.
struct LlmGeneration {
  int64_t maxNewTokens = 128;
  /// 1: greedy (greedy_head) unless there is a repetition penalty.
  int64_t topK = 1;
  double temperature = 1.0, topP = 1.0, repetitionPenalty = 1.0;
  /// Reseeds the draws when set.
  std::optional<int64_t> seed;
};

/// One chosen token as answer() reports it: the simulated and wall time of the stage runs since the
/// previous token (for the first: lm_head and the head after the prefill steps, which are reported as
/// FeedSteps), and the tokens the KV cache holds afterwards.
struct LlmTokenStep {
  int64_t index = 0;
  int32_t token = 0;
  std::string piece;
  double simulatedMs = 0, wallSeconds = 0;
  int64_t cacheTokens = 0;
};

/// What answer() reports while it runs; empty members are not called.
struct LlmEvents {
  /// Each prefill chunk or decoded token fed into the cache (lm_head and the heads not included).
  std::function<void(const cmdsim::FeedStep &)> step;
  /// Each chosen token, after its piece went to the sink.
  std::function<void(const LlmTokenStep &)> token;
};

class LlmSession {
public:
  /// Opens `options.model` with its tokenizer (--tokenizer or tokenizer.json beside it), stop tokens and
  /// sampling. Errors are one line (tpuc exits with kExitUsage). Notes for the user (a --top_k wider than
  /// the sample head) go to `warnings`.
  static llvm::Expected<std::unique_ptr<LlmSession>> open(const LlmRunOptions &options,
                                                          std::vector<std::string> *warnings = nullptr);

  /// Feeds `prompt` (reusing the longest prefix it shares with the tokens in the KV cache) and generates
  /// up to maxNewTokens; each decoded piece goes to `sink.print` as it is chosen, then a newline.
  /// Cancelling through the sink (polled before every token) ends the answer early with stop "cancelled".
  llvm::Expected<LlmAnswer> answer(const std::vector<int32_t> &prompt, const Sink &sink = {},
                                   const LlmEvents &events = {});

  /// The generation settings for the next answers: one line naming the setting when one is out of range
  /// (the rules of llm-run's flags) or sampling needs a sample_head the model does not have; a top_k
  /// wider than the sample head is clamped (said in `warning`).
  llvm::Error setGeneration(const LlmGeneration &generation, std::string *warning = nullptr);
  LlmGeneration generation() const;
  /// Empties the KV cache (a new conversation).
  void reset();
  /// Tokens in the KV cache.
  int64_t cacheTokens() const;
  /// How many leading tokens of `prompt` answer() would take from the KV cache.
  int64_t cachedPrefix(const std::vector<int32_t> &prompt) const;

  /// The prompt of one user turn: the chat template over the conversation when the tokenizer has one.
  llvm::Expected<std::vector<int32_t>> encodeTurn(const std::vector<llm::ChatMessage> &conversation,
                                                  bool useTemplate) const;
  /// The answer as llm-run's --output_json line, and written to --output_json / --dump_logits ("" or why
  /// not).
  std::string answerJson(const LlmAnswer &answer) const;
  std::string writeAnswer(const LlmAnswer &answer) const;

  /// A vision-language model's image (--image): a .npy/.npz pixel tensor [1, 3, S, S] as it is, or a picture
  /// resized to S x S (bilinear) and normalized with ImageNet's mean and std, as InternVL's load_image does
  /// (it resizes bicubic). The `vit` net encodes it and its rows replace the prompt's image tokens, the
  /// tokenizer's "<IMG_CONTEXT>". Errors: a text-only model, no such token, a bad image (one line).
  /// `simulatedMs`, when given, receives the vit net's simulated time (not part of the answer's timing).
  llvm::Error attachImage(const std::string &path, double *simulatedMs = nullptr);
  /// InternVL's placeholder of one image in a user message: "<img>", imageTokens x "<IMG_CONTEXT>",
  /// "</img>\n".
  std::string imagePlaceholder() const;

  const cmdsim::LlmShape &shape() const { return runtime_->shape(); }
  const std::string &modelPath() const { return modelPath_; }
  const std::string &chipName() const { return chip_.name; }
  bool hasTokenizer() const { return tokenizer_ != nullptr; }

private:
  LlmSession(const LlmRunOptions &options) : options_(options) {}

  LlmRunOptions options_;
  std::string modelPath_;
  backend::ChipProfile chip_;
  codegen::Model model_; ///< The runtime refers to it (and to chip_).
  std::unique_ptr<cmdsim::LlmRuntime> runtime_;
  std::unique_ptr<llm::Tokenizer> tokenizer_;
  std::set<int32_t> stops_;
  std::mt19937_64 rng_;
  cmdsim::Sampling sampling_;
};

/// `tpuc llm-run --serve`: reads requests (tpuc/Driver/LlmServe.h) from `in`, one per line, until it
/// ends, and passes each event line (no newline) to `out` as it happens: ready first, then per chat turn
/// turn, step (each prefill chunk), token (each chosen token), done. A line that is not a request, a
/// setting out of range or a failing turn is one error event and the session goes on (a failed turn
/// also starts a new conversation). A stop line ends the turn running when it arrives (stdin is read on
/// a thread of its own while a turn runs).
void serveLlm(LlmSession &session, std::istream &in, const std::function<void(const std::string &)> &out,
              bool useChatTemplate);

/// The ids of "1, 2,3" (--prompt_ids), or a one-line error.
llvm::Expected<std::vector<int32_t>> parsePromptIds(const std::string &text);

} // namespace tpuc::driver

#endif // TPUC_DRIVER_LLMSESSION_H
