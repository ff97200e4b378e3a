//===- LlmServe.h - The JSON-lines protocol of `tpuc llm-run --serve` -----===//
//
// The studio's chat talks to a `tpuc llm-run --model M --serve` child: one request per line on its stdin,
// one event per line on its stdout (docs/LLM.md, "`--serve`"). Both sides use these types, so the schema
// is written down once: the engine renders events with toJsonLine and parses requests, the studio renders
// requests and parses events. Qt-free and MLIR-free (TpucRequests).
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_LLMSERVE_H
#define TPUC_DRIVER_LLMSERVE_H

#include "tpuc/Driver/Results.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpuc::driver {

/// The name and version the ready event announces.
inline constexpr std::string_view kLlmServeProtocol = "tpuc.llm_serve";
inline constexpr int kLlmServeVersion = 1;

/// One line on the child's stdin.
struct LlmServeRequest {
  enum class Type {
    Chat,     ///< {"type": "chat", "message": "...", "image": "..."}: a user turn (a VLM's image optional),
              ///< answered with token events and done.
    Reset,    ///< {"type": "reset"}: a new conversation, the KV cache emptied.
    Stop,     ///< {"type": "stop"}: ends every chat turn received before it (the one running: now).
    Settings, ///< {"type": "settings", ...}: the generation settings alone, answered by a settings event.
  };
  Type type = Type::Chat;
  /// Echoed in every event of the request; optional.
  std::string id;
  std::string message;
  /// A vision-language model's image for this turn (llm-run --image's forms); empty: none.
  std::string image;
  /// Generation settings (chat or settings); absent ones keep their value. `greedy` true is top_k 1.
  std::optional<bool> greedy;
  std::optional<int64_t> maxNewTokens, topK, seed;
  std::optional<double> temperature, topP, repetitionPenalty;
  bool operator==(const LlmServeRequest &) const = default;
};

/// One line on the child's stdout. Which fields mean something depends on `event`:
///  ready    model, chip, layers, seqLength, maxInputLength, chunkLength, buckets, imageTokens,
///           sampleCandidates, vocab
///  turn     id, promptTokens, cachedTokens (reused from the KV cache), newTokens (to prefill), kvUsed
///  step     id, stage (prefill, prefill_kv, decode), position, tokens, stageTokens, simMs, wallMs, kvUsed
///  token    id, index, token, text, simMs, wallMs, kvUsed
///  done     id, stop, promptTokens, cachedTokens, generated, firstTokenSimMs, firstTokenWallMs,
///           decodeTokensPerS, wallDecodeTokensPerS, kvUsed, text
///  settings id, maxNewTokens, topK, temperature, topP, repetitionPenalty, seed
///  reset    id, kvUsed (0)
///  notice   id, message (the request was handled; something to say, e.g. a clamped top_k)
///  error    id, message (one line; the session goes on)
struct LlmServeEvent {
  std::string event, id;
  // ready
  std::string protocol, model, chip;
  int64_t version = 0, layers = 0, seqLength = 0, maxInputLength = 0, chunkLength = 0, sampleCandidates = 0,
          vocab = 0;
  /// --dynamic prefill buckets below maxInputLength (LlmShape::buckets).
  std::vector<int64_t> buckets;
  /// Image tokens per image of a vision-language model (0: text only).
  int64_t imageTokens = 0;
  // turn / done
  int64_t promptTokens = 0, cachedTokens = 0, newTokens = 0, generated = 0;
  // step / token
  std::string stage;
  int64_t position = 0, tokens = 0, index = 0, token = 0;
  /// The length the step's stages ran at (its --dynamic bucket; FeedStep::stageTokens).
  int64_t stageTokens = 0;
  double simMs = 0, wallMs = 0;
  int64_t kvUsed = 0;
  std::string text, stop, message;
  double firstTokenSimMs = 0, firstTokenWallMs = 0, decodeTokensPerS = 0, wallDecodeTokensPerS = 0;
  // settings
  int64_t maxNewTokens = 0, topK = 0, seed = 0;
  double temperature = 0, topP = 0, repetitionPenalty = 0;
};

/// A request as its line (no newline), and back; a line that is not a request gives one line saying why
/// ("line is not JSON: ...", "'top_k' must be an integer", "unknown type 'x'").
std::string toJsonLine(const LlmServeRequest &request);
ReadResult<LlmServeRequest> parseLlmServeRequest(std::string_view line);

/// An event as its line (no newline; text that cuts a UTF-8 sequence is replaced, so the line parses),
/// and back. Only the fields of its kind are written.
std::string toJsonLine(const LlmServeEvent &event);
ReadResult<LlmServeEvent> parseLlmServeEvent(std::string_view line);

} // namespace tpuc::driver

#endif // TPUC_DRIVER_LLMSERVE_H
