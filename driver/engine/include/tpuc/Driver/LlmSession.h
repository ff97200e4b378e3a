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
#include <memory>
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
  double firstTokenMs = 0, firstTokenWall = 0;
  double decodeMs = 0, decodeWall = 0;
  int64_t decodeSteps = 0;
  double tokensPerSecond() const { return decodeMs > 0 ? 1000.0 * double(decodeSteps) / decodeMs : 0; }
  double wallTokensPerSecond() const { return decodeWall > 0 ? double(decodeSteps) / decodeWall : 0; }
};

class LlmSession {
public:
  /// Opens `options.model` with its tokenizer (--tokenizer or tokenizer.json beside it), stop tokens and
  /// sampling. Errors are one line (tpuc exits with kExitUsage). Notes for the user (a --top_k wider than
  /// the sample head) go to `warnings`.
  static llvm::Expected<std::unique_ptr<LlmSession>> open(const LlmRunOptions &options,
                                                          std::vector<std::string> *warnings = nullptr);

  /// Feeds `prompt` (reusing the cached prefix it starts with) and generates up to --max_new_tokens;
  /// each decoded piece goes to `sink.print` as it is chosen, then a newline. Cancelling through the sink
  /// (polled before every token) ends the answer with an error.
  llvm::Expected<LlmAnswer> answer(const std::vector<int32_t> &prompt, const Sink &sink = {});

  /// The prompt of one user turn: the chat template over the conversation when the tokenizer has one.
  llvm::Expected<std::vector<int32_t>> encodeTurn(const std::vector<llm::ChatMessage> &conversation,
                                                  bool useTemplate) const;
  /// The answer as llm-run's --output_json line, and written to --output_json / --dump_logits ("" or why
  /// not).
  std::string answerJson(const LlmAnswer &answer) const;
  std::string writeAnswer(const LlmAnswer &answer) const;

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

/// The ids of "1, 2,3" (--prompt_ids), or a one-line error.
llvm::Expected<std::vector<int32_t>> parsePromptIds(const std::string &text);

} // namespace tpuc::driver

#endif // TPUC_DRIVER_LLMSESSION_H
