//===- TokenizerParts.h - Internal stages of the byte-level BPE tokenizer -===//
//
// Private to TpucLLM: UTF-8 helpers, the normalizer (ICU), regex splitting
// (PCRE2, JIT), the pre-tokenizer pipeline, the BPE model and the added-token
// matcher. Tokenizer.cpp wires them together from tokenizer.json.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_LIB_LLM_TOKENIZERPARTS_H
#define TPUC_LIB_LLM_TOKENIZERPARTS_H

#include "tpuc/LLM/Tokenizer.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <mutex>
#include <unordered_map>

namespace tpuc::llm {

//===----------------------------------------------------------------------===//
// UTF-8
//===----------------------------------------------------------------------===//

/// Classifies the bytes at `s` (n > 0 available): > 0 is the length of one
/// valid character; < 0 is minus the length of an invalid maximal subpart
/// (to be replaced by one U+FFFD, as WHATWG and Rust's from_utf8_lossy do);
/// 0 means a valid but incomplete prefix running to the end of the buffer.
int classifyUtf8(const unsigned char *s, size_t n);
/// Appends code point `cp` as UTF-8.
void appendUtf8(uint32_t cp, std::string &out);
/// Decodes the valid character at `pos` (advancing it); U+FFFD and one byte
/// for invalid input.
uint32_t decodeUtf8(llvm::StringRef text, size_t &pos);
/// `bytes` with every invalid sequence replaced by U+FFFD.
std::string sanitizeUtf8(llvm::StringRef bytes);
/// Moves the complete UTF-8 prefix of `pending` to the result (invalid
/// subparts become U+FFFD); an incomplete tail stays in `pending` unless
/// `final`, when it too becomes U+FFFD.
std::string drainUtf8(std::string &pending, bool final);

/// GPT-2's byte-level alphabet: byte -> code point and back.
const std::array<uint32_t, 256> &byteToUnicode();
/// Code point -> byte, or -1 if the code point is not in the alphabet.
int unicodeToByte(uint32_t cp);

//===----------------------------------------------------------------------===//
// Normalizer
//===----------------------------------------------------------------------===//

/// Unicode normalization (NFC/NFD/NFKC/NFKD, or a sequence of them).
class Normalizer {
public:
  enum class Form { NFC, NFD, NFKC, NFKD };
  /// Builds from tokenizer.json's "normalizer" (null gives nullptr).
  static llvm::Expected<std::unique_ptr<Normalizer>> fromJson(const nlohmann::json &config,
                                                              llvm::StringRef name);
  std::string apply(llvm::StringRef text) const;

private:
  std::vector<Form> forms;
};

//===----------------------------------------------------------------------===//
// Regex splitting and the pre-tokenizer
//===----------------------------------------------------------------------===//

/// A PCRE2 pattern compiled with UTF and UCP, JIT-compiled when possible.
class Regex {
public:
  /// Compiles `pattern`; `literal` treats it as a plain string.
  static llvm::Expected<std::unique_ptr<Regex>> compile(llvm::StringRef pattern, bool literal,
                                                        llvm::StringRef name);
  ~Regex();
  /// Byte ranges [begin, end) of successive non-overlapping matches in
  /// `subject` (valid UTF-8). Empty matches are skipped.
  std::vector<std::pair<size_t, size_t>> findAll(llvm::StringRef subject) const;

private:
  Regex() = default;
  void *code = nullptr; // pcre2_code_8
  bool jit = false;
};

/// The pre-tokenizer pipeline: text -> pieces that BPE encodes separately.
class PreTokenizer {
public:
  /// Builds from tokenizer.json's "pre_tokenizer" (null: whole text).
  static llvm::Expected<std::unique_ptr<PreTokenizer>> fromJson(const nlohmann::json &config,
                                                                llvm::StringRef name);
  ~PreTokenizer();
  std::vector<std::string> split(llvm::StringRef text) const;

  struct Step;

private:
  std::vector<std::unique_ptr<Step>> steps;
};

//===----------------------------------------------------------------------===//
// BPE model
//===----------------------------------------------------------------------===//

/// Byte-level BPE: the vocabulary and merges held over raw bytes, merging by
/// rank with a heap over a linked list of symbols, results cached per word.
class BpeModel {
public:
  static llvm::Expected<std::unique_ptr<BpeModel>> fromJson(const nlohmann::json &model,
                                                            llvm::StringRef name);

  /// Appends the ids of one pre-tokenized piece (raw bytes).
  void encodeWord(llvm::StringRef word, std::vector<TokenId> &out) const;
  /// Raw bytes of a vocabulary id (empty if unknown).
  llvm::StringRef bytesOf(TokenId id) const;
  /// The spelling in tokenizer.json (byte-level alphabet).
  llvm::StringRef spellingOf(TokenId id) const;
  std::optional<TokenId> idOfSpelling(llvm::StringRef spelling) const;
  size_t size() const { return idBytes.size(); }

private:
  void mergeWord(llvm::StringRef word, std::vector<TokenId> &out) const;

  std::vector<std::string> idBytes;
  std::vector<std::string> idSpelling;
  llvm::StringMap<TokenId> bytesToId;
  llvm::StringMap<TokenId> spellingToId;
  std::array<TokenId, 256> byteId;
  struct MergeInfo {
    uint32_t rank;
    TokenId result;
  };
  llvm::DenseMap<uint64_t, MergeInfo> merges;
  bool ignoreMerges = false;

  mutable std::mutex cacheMutex;
  mutable std::unordered_map<std::string, std::vector<TokenId>> cache;
};

//===----------------------------------------------------------------------===//
// Added tokens
//===----------------------------------------------------------------------===//

/// Finds added tokens in text: leftmost-longest, honouring single_word,
/// lstrip and rstrip (the stripped whitespace is dropped).
class AddedTokenMatcher {
public:
  /// Segments of text: either plain text or an added token index.
  struct Segment {
    llvm::StringRef text;
    int tokenIndex = -1;
  };
  void add(const AddedToken &token, int index);
  bool empty() const { return nodes.size() <= 1; }
  std::vector<Segment> split(llvm::StringRef text, llvm::ArrayRef<AddedToken> tokens) const;

private:
  struct Node {
    std::vector<std::pair<unsigned char, int>> next;
    int tokenIndex = -1;
  };
  std::vector<Node> nodes{1};
};

//===----------------------------------------------------------------------===//
// Chat formats
//===----------------------------------------------------------------------===//

/// How a tokenizer's chat template renders, as far as the C++ formats care.
struct ChatStyle {
  ChatFormat format = ChatFormat::None;
  /// A template's built-in system prompt used when the conversation has
  /// none (Qwen2/2.5), else empty.
  std::string defaultSystem;
  /// The template ends with the assistant header even without
  /// add_generation_prompt (Llama 3.0's does).
  bool alwaysGenerationPrompt = false;
};

/// The chat style named by a tokenizer_config.json chat_template (empty if
/// none) or, failing that, suggested by the added tokens.
ChatStyle detectChatStyle(llvm::StringRef chatTemplate, llvm::ArrayRef<AddedToken> addedTokens);
/// Renders `messages` in `style`; `bosText` starts Llama 3 conversations.
std::string renderChat(const ChatStyle &style, llvm::ArrayRef<ChatMessage> messages,
                       const ChatOptions &options, llvm::StringRef bosText);

} // namespace tpuc::llm

#endif // TPUC_LIB_LLM_TOKENIZERPARTS_H
