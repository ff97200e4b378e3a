//===- TokenizerReferenceTest.cpp - Real Qwen3 / Llama 3 tokenizers -------===//
//
// Loads the real tokenizer.json files fetched by scripts/assets/tokenizers.sh
// and compares encode() with reference ids from transformers.js (the npm
// packages) on every string of Inputs/tokenizer_strings.json, and the chat
// formats with the Jinja rendering of the real chat templates.
//
//===----------------------------------------------------------------------===//

#include "LLMTestUtil.h"

#include "TokenizerParts.h"
#include "tpuc/LLM/Tokenizer.h"

#include <chrono>
#include <map>
#include <sstream>

using namespace tpuc::llm;
using namespace tpuc::llm::test;
using nlohmann::json;

namespace {

/// Strings where the reference (JavaScript regex semantics) and HF's
/// tokenizers (and this implementation, PCRE2 with Unicode properties)
/// legitimately disagree, with the reason. Empty: none found so far.
const std::map<std::string, std::string> kKnownDifferences = {};

struct Assets {
  std::string dir;
  std::unique_ptr<Tokenizer> tokenizer;
  json reference;
  json chats;
};

const char *kFetchHint = "run scripts/assets/tokenizers.sh (or set TPUC_ASSETS_DIR to the "
                         "folder it filled)";

/// Loads one tokenizer and its references; fails the test if missing.
Assets loadAssets(const std::string &name) {
  Assets assets;
  assets.dir = assetsDir() + "/tokenizers/" + name;
  std::string tokenizerPath = assets.dir + "/package/models/tokenizer.json";
  if (!llvm::sys::fs::exists(tokenizerPath)) {
    ADD_FAILURE() << tokenizerPath << " is missing: " << kFetchHint;
    return assets;
  }
  auto tokenizer = Tokenizer::fromFile(tokenizerPath);
  if (!tokenizer) {
    ADD_FAILURE() << errorText(tokenizer.takeError());
    return assets;
  }
  assets.tokenizer = std::move(*tokenizer);
  for (auto [file, target] :
       {std::pair{"/reference.json", &assets.reference}, std::pair{"/chat_reference.json", &assets.chats}}) {
    std::string path = assets.dir + file;
    if (!llvm::sys::fs::exists(path)) {
      ADD_FAILURE() << path << " is missing: " << kFetchHint;
      continue;
    }
    *target = json::parse(readFile(path), nullptr, false);
    if (target->is_discarded())
      ADD_FAILURE() << path << " is not valid JSON: " << kFetchHint;
  }
  return assets;
}

std::vector<std::string> committedStrings() {
  json strings =
      json::parse(readFile(std::string(TPUC_LLM_TEST_INPUTS) + "/tokenizer_strings.json"), nullptr, false);
  EXPECT_TRUE(strings.is_array());
  return strings.is_array() ? strings.get<std::vector<std::string>>() : std::vector<std::string>{};
}

std::string show(const std::vector<TokenId> &ids) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < ids.size(); ++i)
    out << (i ? ", " : "") << ids[i];
  out << "]";
  return out.str();
}

class TokenizerReference : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    assets = loadAssets(GetParam());
    ASSERT_TRUE(assets.tokenizer) << "tokenizer not loaded";
    ASSERT_TRUE(assets.reference.is_object()) << "reference ids not loaded";
  }
  Assets assets;
};

TEST_P(TokenizerReference, EncodeMatchesReferenceIds) {
  const json &encodings = assets.reference["encodings"];
  std::vector<std::string> strings = committedStrings();
  ASSERT_EQ(encodings.size(), strings.size())
      << "reference.json is out of date with tokenizer_strings.json: " << kFetchHint;
  ASSERT_GE(strings.size(), 300u);
  int mismatches = 0, known = 0;
  for (size_t i = 0; i < strings.size(); ++i) {
    const std::string text = encodings[i]["text"].get<std::string>();
    ASSERT_EQ(text, strings[i]) << "reference.json is out of date: " << kFetchHint;
    std::vector<TokenId> expected = encodings[i]["ids"].get<std::vector<TokenId>>();
    std::vector<TokenId> actual = assets.tokenizer->encode(text);
    if (kKnownDifferences.count(text)) {
      ++known;
      continue;
    }
    if (actual != expected && ++mismatches <= 10)
      ADD_FAILURE() << GetParam() << ": string #" << i << " " << json(text).dump() << "\n  expected "
                    << show(expected) << "\n  actual   " << show(actual);
  }
  EXPECT_EQ(mismatches, 0) << "strings encoded differently from the reference";
  EXPECT_EQ(known, static_cast<int>(kKnownDifferences.size()));
}

TEST_P(TokenizerReference, DecodeInvertsEncode) {
  for (const std::string &text : committedStrings()) {
    std::vector<TokenId> ids = assets.tokenizer->encode(text);
    // Qwen's NFC normalizer changes decomposed input; decode gives the
    // normalized text back.
    EXPECT_EQ(assets.tokenizer->decode(ids), assets.tokenizer->normalize(text)) << json(text).dump();
  }
}

TEST_P(TokenizerReference, IncrementalDecodeEqualsDecode) {
  int splitCharacters = 0;
  for (const std::string &text : committedStrings()) {
    std::vector<TokenId> ids = assets.tokenizer->encode(text);
    IncrementalDecoder decoder(*assets.tokenizer);
    std::string streamed;
    for (TokenId id : ids) {
      std::string piece = decoder.push(id);
      // Every emitted piece is complete UTF-8 on its own.
      EXPECT_EQ(sanitizeUtf8(piece), piece);
      if (piece.empty() && !assets.tokenizer->tokenBytes(id).empty())
        ++splitCharacters;
      streamed += piece;
    }
    streamed += decoder.finish();
    EXPECT_EQ(streamed, assets.tokenizer->decode(ids)) << json(text).dump();
  }
  // The strings include emoji and rare CJK that are split over tokens.
  EXPECT_GT(splitCharacters, 0);
}

TEST_P(TokenizerReference, SpecialTokensAndOptions) {
  Tokenizer &tok = *assets.tokenizer;
  bool qwen = std::string(GetParam()) == "qwen3";
  std::string special = qwen ? "<|im_end|>" : "<|eot_id|>";
  std::optional<TokenId> id = tok.tokenToId(special);
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(*id, qwen ? 151645 : 128009);
  EXPECT_TRUE(tok.isSpecial(*id));
  EXPECT_EQ(tok.encode("a" + special + "b"),
            (std::vector<TokenId>{*tok.tokenToId("a"), *id, *tok.tokenToId("b")}));
  std::vector<TokenId> asText = tok.encode(special, /*parseSpecial=*/false);
  EXPECT_GT(asText.size(), 1u);
  EXPECT_EQ(tok.decode(asText), special);
  EXPECT_EQ(tok.decode({*id}, /*skipSpecial=*/true), "");
  EXPECT_EQ(tok.decode({*id}), special);
  EXPECT_EQ(tok.vocabSize(), qwen ? 151669u : 128256u);
  EXPECT_EQ(tok.chatFormat(), qwen ? ChatFormat::Qwen3 : ChatFormat::Llama3);
  EXPECT_EQ(tok.eosTokenId(), qwen ? 151645 : 128001);
  if (!qwen)
    EXPECT_EQ(tok.bosTokenId(), 128000);
}

TEST_P(TokenizerReference, ChatTemplateMatchesJinja) {
  ASSERT_TRUE(assets.chats.is_object()) << "chat references not loaded";
  int compared = 0;
  for (const json &chat : assets.chats["chats"]) {
    if (chat["rendered"].is_null())
      continue; // the Jinja template itself cannot render this case
    std::vector<ChatMessage> messages;
    for (const json &m : chat["messages"])
      messages.push_back({m["role"].get<std::string>(), m["content"].get<std::string>()});
    ChatOptions options;
    options.addGenerationPrompt = chat["add_generation_prompt"].get<bool>();
    if (chat.contains("enable_thinking"))
      options.enableThinking = chat["enable_thinking"].get<bool>();
    auto rendered = assets.tokenizer->applyChatTemplate(messages, options);
    ASSERT_TRUE(bool(rendered)) << errorText(rendered.takeError());
    EXPECT_EQ(*rendered, chat["rendered"].get<std::string>()) << chat["messages"].dump();
    ++compared;
  }
  EXPECT_GE(compared, 10);
}

TEST_P(TokenizerReference, LongPromptEncodesQuickly) {
  std::string text;
  for (const std::string &s : committedStrings())
    text += s + "\n";
  while (text.size() < (1u << 20))
    text += text;
  auto start = std::chrono::steady_clock::now();
  std::vector<TokenId> ids = assets.tokenizer->encode(text);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(assets.tokenizer->decode(ids), assets.tokenizer->normalize(text));
  // ~1 MiB; a few hundred ms here. The bound catches quadratic behaviour.
  EXPECT_LT(seconds, 10.0) << ids.size() << " tokens";
}

TEST_P(TokenizerReference, HugeWhitespaceRunsStayLinear) {
  // `\s+(?!\S)` and `\s*[\r\n]+` backtrack over whitespace runs; a pasted
  // block of blanks must not turn quadratic or exhaust the regex stack.
  std::string text = "start";
  for (int i = 0; i < 100000; ++i)
    text += i % 3 ? " " : "\t";
  text += "word" + std::string(100000, '\n') + "end" + std::string(50000, ' ');
  auto start = std::chrono::steady_clock::now();
  std::vector<TokenId> ids = assets.tokenizer->encode(text);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(assets.tokenizer->decode(ids), text);
  EXPECT_LT(seconds, 10.0);
}

INSTANTIATE_TEST_SUITE_P(Real, TokenizerReference, ::testing::Values("qwen3", "llama3"),
                         [](const auto &info) { return std::string(info.param); });

} // namespace
