//===- Tokenizer.h - HuggingFace byte-level BPE tokenizer (tokenizer.json) -===//
//
// Qt-free. Loads the tokenizer.json of Qwen2/Qwen3 and Llama 3 style models:
// a BPE model over GPT-2's byte-level alphabet, added/special tokens matched
// before anything else, an optional Unicode normalizer (NFC), a pre-tokenizer
// of regex splits (run with PCRE2, exactly as written in the file) and the
// ByteLevel decoder. Also renders the chat formats of these families
// (ChatML for Qwen, header tokens for Llama 3) in plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_LLM_TOKENIZER_H
#define TPUC_LLM_TOKENIZER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tpuc::llm {

class PreTokenizer;
class BpeModel;
class AddedTokenMatcher;
class Normalizer;
struct ChatStyle;

/// A token id.
using TokenId = int32_t;

/// The chat formats this tokenizer can render.
enum class ChatFormat {
  /// No chat format known.
  None,
  /// `<|im_start|>role\ncontent<|im_end|>\n` (Qwen2, Qwen2.5).
  ChatML,
  /// ChatML plus Qwen3's <think> handling of assistant turns.
  Qwen3,
  /// `<|start_header_id|>role<|end_header_id|>\n\ncontent<|eot_id|>`.
  Llama3,
};

/// One chat turn.
struct ChatMessage {
  /// "system", "user", "assistant" or "tool".
  std::string role;
  std::string content;
};

/// Options of Tokenizer::applyChatTemplate.
struct ChatOptions {
  /// End with the header of an assistant turn so the model answers.
  bool addGenerationPrompt = true;
  /// Qwen3: false adds an empty <think></think> block after the generation
  /// prompt (the template's enable_thinking=false); unset or true adds none.
  std::optional<bool> enableThinking;
};

/// One entry of tokenizer.json's added_tokens.
struct AddedToken {
  TokenId id = 0;
  std::string content;
  bool special = false;
  bool singleWord = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = false;
};

/// A loaded tokenizer. Encoding is thread-safe (the word cache is locked).
class Tokenizer {
public:
  /// Loads tokenizer.json (or <dir>/tokenizer.json). A tokenizer_config.json
  /// beside it, if present, supplies the chat template and bos/eos tokens.
  static llvm::Expected<std::unique_ptr<Tokenizer>> fromFile(llvm::StringRef path);
  /// Loads from JSON text; `configJson` is tokenizer_config.json's text or
  /// empty. `name` labels errors.
  static llvm::Expected<std::unique_ptr<Tokenizer>>
  fromJson(llvm::StringRef tokenizerJson, llvm::StringRef configJson, llvm::StringRef name);
  ~Tokenizer();

  /// Token ids of `text`. Added tokens in the text become their ids when
  /// `parseSpecial` (as HF does by default); otherwise they are tokenized as
  /// plain text. Invalid UTF-8 is replaced by U+FFFD first. No BOS is added:
  /// the chat template places it.
  std::vector<TokenId> encode(llvm::StringRef text, bool parseSpecial = true) const;
  /// Text of `ids`; bytes that do not form valid UTF-8 become U+FFFD.
  /// Special tokens are dropped when `skipSpecial`. Unknown ids are skipped.
  std::string decode(llvm::ArrayRef<TokenId> ids, bool skipSpecial = false) const;
  /// The raw bytes of one token (its content for added tokens); empty for an
  /// unknown id.
  std::string tokenBytes(TokenId id) const;

  /// The normalizer applied to `text` (identity if there is none).
  std::string normalize(llvm::StringRef text) const;

  /// Id of a vocabulary or added token spelled as in tokenizer.json.
  std::optional<TokenId> tokenToId(llvm::StringRef token) const;
  /// Spelling of a token as in tokenizer.json; empty for unknown ids.
  std::string idToToken(TokenId id) const;
  /// One more than the largest id.
  size_t vocabSize() const;
  /// Whether `id` is an added token marked special.
  bool isSpecial(TokenId id) const;
  llvm::ArrayRef<AddedToken> addedTokens() const;

  /// Chat format detected from tokenizer_config.json's template, else from
  /// the added tokens.
  ChatFormat chatFormat() const;
  /// Overrides the detected format.
  void setChatFormat(ChatFormat newFormat);
  /// Renders a conversation; an error if the format is None.
  llvm::Expected<std::string> applyChatTemplate(llvm::ArrayRef<ChatMessage> messages,
                                                const ChatOptions &options = {}) const;

  /// bos/eos tokens from tokenizer_config.json, falling back to the chat
  /// format's conventions (eos <|im_end|> for Qwen, <|eot_id|> for Llama 3;
  /// bos <|begin_of_text|> for Llama 3, none for Qwen).
  std::optional<TokenId> bosTokenId() const { return bosId; }
  std::optional<TokenId> eosTokenId() const { return eosId; }

private:
  Tokenizer();
  void encodeSegment(llvm::StringRef segment, std::vector<TokenId> &out) const;

  std::unique_ptr<Normalizer> normalizer;
  std::unique_ptr<PreTokenizer> preTokenizer;
  std::unique_ptr<BpeModel> model;
  /// Added tokens with normalized=false (matched in the raw text) and with
  /// normalized=true (matched after normalization).
  std::unique_ptr<AddedTokenMatcher> rawMatcher;
  std::unique_ptr<AddedTokenMatcher> normalizedMatcher;
  std::vector<AddedToken> added;
  /// Token id -> index into `added`.
  std::unordered_map<TokenId, size_t> addedIndex;
  std::unique_ptr<ChatStyle> chatStyle;
  std::optional<TokenId> bosId;
  std::optional<TokenId> eosId;
  std::string bosText;
};

/// Turns a stream of token ids into text, emitting only complete UTF-8: a
/// character whose bytes are split over several tokens comes out with the
/// token that completes it. Bytes that can never form a character come out
/// as U+FFFD, like Tokenizer::decode.
class IncrementalDecoder {
public:
  explicit IncrementalDecoder(const Tokenizer &tokenizer, bool skipSpecial = false)
      : tokenizer(tokenizer), skipSpecial(skipSpecial) {}

  /// Adds one token; returns the text completed by it (possibly empty).
  std::string push(TokenId id);
  /// Ends the stream: returns U+FFFD for an incomplete trailing sequence.
  std::string finish();

private:
  const Tokenizer &tokenizer;
  bool skipSpecial;
  std::string pending;
};

} // namespace tpuc::llm

#endif // TPUC_LLM_TOKENIZER_H
