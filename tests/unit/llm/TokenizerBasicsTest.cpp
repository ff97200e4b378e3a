//===- TokenizerBasicsTest.cpp - BPE, added tokens, splits on tiny vocabs -===//
//
// Hand-made tokenizer.json files small enough to know the answer: merge
// order, added-token flags, split behaviours, UTF-8 streaming, load errors.
//
//===----------------------------------------------------------------------===//

#include "LLMTestUtil.h"

#include "TokenizerParts.h"
#include "tpuc/LLM/Tokenizer.h"

using namespace tpuc::llm;
using namespace tpuc::llm::test;
using nlohmann::json;

namespace {

/// The byte-level spelling of raw bytes.
std::string spell(const std::string &bytes) {
  std::string out;
  for (unsigned char b : bytes)
    appendUtf8(byteToUnicode()[b], out);
  return out;
}

/// A byte-level tokenizer: ids 0..255 are the bytes, then one id per merge
/// result in merge order. `merges` are raw-byte pairs.
json tinyTokenizer(const std::vector<std::pair<std::string, std::string>> &merges, bool pairForm = true) {
  json vocab = json::object();
  for (int b = 0; b < 256; ++b)
    vocab[spell(std::string(1, static_cast<char>(b)))] = b;
  json mergeList = json::array();
  int next = 256;
  for (const auto &[left, right] : merges) {
    std::string merged = spell(left + right);
    if (!vocab.contains(merged))
      vocab[merged] = next++;
    if (pairForm)
      mergeList.push_back({spell(left), spell(right)});
    else
      mergeList.push_back(spell(left) + " " + spell(right));
  }
  return {{"version", "1.0"},
          {"added_tokens", json::array()},
          {"normalizer", nullptr},
          {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
          {"decoder", {{"type", "ByteLevel"}}},
          {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", mergeList}}}};
}

std::unique_ptr<Tokenizer> load(const json &tokenizerJson, const std::string &config = "") {
  auto tokenizer = Tokenizer::fromJson(tokenizerJson.dump(), config, "tiny.json");
  EXPECT_TRUE(bool(tokenizer)) << errorText(tokenizer.takeError());
  return tokenizer ? std::move(*tokenizer) : nullptr;
}

std::vector<std::string> pieces(const Tokenizer &tokenizer, const std::vector<TokenId> &ids) {
  std::vector<std::string> out;
  for (TokenId id : ids)
    out.push_back(tokenizer.tokenBytes(id));
  return out;
}

using Strings = std::vector<std::string>;

TEST(TokenizerBasics, MergesApplyInRankOrder) {
  auto abFirst = load(tinyTokenizer({{"a", "b"}, {"b", "c"}}));
  EXPECT_EQ(pieces(*abFirst, abFirst->encode("abc")), (Strings{"ab", "c"}));
  auto bcFirst = load(tinyTokenizer({{"b", "c"}, {"a", "b"}}, /*pairForm=*/false));
  EXPECT_EQ(pieces(*bcFirst, bcFirst->encode("abc")), (Strings{"a", "bc"}));
  // Equal ranks: leftmost first.
  auto aa = load(tinyTokenizer({{"a", "a"}}));
  EXPECT_EQ(pieces(*aa, aa->encode("aaa")), (Strings{"aa", "a"}));
  EXPECT_EQ(pieces(*aa, aa->encode("aaaa")), (Strings{"aa", "aa"}));
  // Chained merges build up a word; the regex splits " world" off.
  auto hello = load(tinyTokenizer(
      {{"h", "e"}, {"l", "l"}, {"he", "ll"}, {"hell", "o"}, {" ", "w"}, {"o", "r"}, {" w", "or"}}));
  EXPECT_EQ(pieces(*hello, hello->encode("hello world")), (Strings{"hello", " wor", "l", "d"}));
  // " hello" is one piece (no merge joins the space); "hello" comes from the
  // cache the second time with the same result.
  EXPECT_EQ(pieces(*hello, hello->encode("hello hello")), (Strings{"hello", " ", "hello"}));
  EXPECT_EQ(pieces(*hello, hello->encode("hello")), (Strings{"hello"}));
}

TEST(TokenizerBasics, IgnoreMergesTakesWholeWordsFromVocab) {
  json tok = tinyTokenizer({{"a", "b"}, {"b", "c"}});
  tok["model"]["vocab"][spell("abc")] = 300;
  EXPECT_EQ(load(tok)->encode("abc"), (std::vector<TokenId>{256, 'c'}));
  tok["model"]["ignore_merges"] = true;
  EXPECT_EQ(load(tok)->encode("abc"), (std::vector<TokenId>{300}));
}

TEST(TokenizerBasics, AddedTokenFlags) {
  json tok = tinyTokenizer({});
  tok["added_tokens"] = {
      {{"id", 400},
       {"content", "<sep>"},
       {"special", true},
       {"lstrip", true},
       {"rstrip", true},
       {"normalized", false},
       {"single_word", false}},
      {{"id", 401}, {"content", "[W]"}, {"special", false}, {"single_word", true}, {"normalized", false}},
      {{"id", 402}, {"content", "<s>"}, {"special", true}, {"normalized", false}},
      {{"id", 403}, {"content", "<s>>"}, {"special", true}, {"normalized", false}}};
  auto tokenizer = load(tok);
  // lstrip/rstrip swallow the whitespace around the token.
  EXPECT_EQ(tokenizer->encode("x  <sep>\n y"), (std::vector<TokenId>{'x', 400, 'y'}));
  // single_word: only between non-word characters.
  EXPECT_EQ(tokenizer->encode("a [W] b"), (std::vector<TokenId>{'a', ' ', 401, ' ', 'b'}));
  EXPECT_EQ(tokenizer->encode("a[W]b").size(), 5u);
  // Longest match wins.
  EXPECT_EQ(tokenizer->encode("<s>>"), (std::vector<TokenId>{403}));
  EXPECT_EQ(tokenizer->encode("<s>"), (std::vector<TokenId>{402}));
  // parseSpecial=false treats them as text.
  EXPECT_EQ(tokenizer->encode("<s>", /*parseSpecial=*/false), (std::vector<TokenId>{'<', 's', '>'}));
  EXPECT_EQ(tokenizer->decode({'a', 402, 'b'}), "a<s>b");
  EXPECT_EQ(tokenizer->decode({'a', 402, 'b'}, /*skipSpecial=*/true), "ab");
  EXPECT_EQ(tokenizer->decode({'a', 401, 'b'}, /*skipSpecial=*/true), "a[W]b");
  EXPECT_TRUE(tokenizer->isSpecial(402));
  EXPECT_FALSE(tokenizer->isSpecial(401));
  EXPECT_EQ(tokenizer->tokenToId("<sep>"), 400);
  EXPECT_EQ(tokenizer->idToToken(400), "<sep>");
  EXPECT_EQ(tokenizer->vocabSize(), 404u);
}

TEST(TokenizerBasics, NormalizedAddedTokensMatchAfterNfc) {
  json tok = tinyTokenizer({});
  tok["normalizer"] = {{"type", "NFC"}};
  // "é" precomposed; the text spells it e + combining acute.
  tok["added_tokens"] = {{{"id", 500}, {"content", "\xC3\xA9!"}, {"special", false}, {"normalized", true}}};
  auto tokenizer = load(tok);
  EXPECT_EQ(tokenizer->encode("xe\xCC\x81!"), (std::vector<TokenId>{'x', 500}));
  EXPECT_EQ(tokenizer->normalize("e\xCC\x81"), "\xC3\xA9");
}

TEST(TokenizerBasics, IncrementalDecodeEmitsOnlyCompleteUtf8) {
  auto tokenizer = load(tinyTokenizer({}));
  std::string text = "a\xC3\xA9\xF0\x9F\x98\x80z"; // a é 😀 z
  std::vector<TokenId> ids = tokenizer->encode(text);
  ASSERT_EQ(ids.size(), 8u); // one token per byte
  IncrementalDecoder decoder(*tokenizer);
  std::vector<std::string> outputs;
  for (TokenId id : ids)
    outputs.push_back(decoder.push(id));
  EXPECT_EQ(outputs, (Strings{"a", "", "\xC3\xA9", "", "", "", "\xF0\x9F\x98\x80", "z"}));
  EXPECT_EQ(decoder.finish(), "");

  // Bytes that can never form a character come out as U+FFFD right away;
  // an incomplete tail only at the end.
  IncrementalDecoder broken(*tokenizer);
  EXPECT_EQ(broken.push(0xFF), "\xEF\xBF\xBD");
  EXPECT_EQ(broken.push(0xE4), "");
  EXPECT_EQ(broken.push('x'), "\xEF\xBF\xBDx");
  EXPECT_EQ(broken.push(0xF0), "");
  EXPECT_EQ(broken.push(0x9F), "");
  EXPECT_EQ(broken.finish(), "\xEF\xBF\xBD");
  EXPECT_EQ(tokenizer->decode({0xFF, 0xE4, 'x', 0xF0, 0x9F}), "\xEF\xBF\xBD\xEF\xBF\xBDx\xEF\xBF\xBD");
}

TEST(TokenizerBasics, InvalidUtf8InputIsReplaced) {
  auto tokenizer = load(tinyTokenizer({}));
  EXPECT_EQ(tokenizer->decode(tokenizer->encode("a\xFF"
                                                "b")),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(sanitizeUtf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(sanitizeUtf8("\xE2\x82"), "\xEF\xBF\xBD"); // truncated: one subpart
}

TEST(TokenizerBasics, SplitBehaviors) {
  auto split = [](const std::string &behavior, bool invert = false) {
    json config = {
        {"type", "Split"}, {"pattern", {{"String", "-"}}}, {"behavior", behavior}, {"invert", invert}};
    auto pre = PreTokenizer::fromJson(config, "t");
    EXPECT_TRUE(bool(pre)) << errorText(pre.takeError());
    return pre ? (*pre)->split("the-final--countdown") : Strings{};
  };
  // The examples of HF's SplitDelimiterBehavior documentation.
  EXPECT_EQ(split("Removed"), (Strings{"the", "final", "countdown"}));
  EXPECT_EQ(split("Isolated"), (Strings{"the", "-", "final", "-", "-", "countdown"}));
  EXPECT_EQ(split("MergedWithPrevious"), (Strings{"the-", "final-", "-", "countdown"}));
  EXPECT_EQ(split("MergedWithNext"), (Strings{"the", "-final", "-", "-countdown"}));
  EXPECT_EQ(split("Contiguous"), (Strings{"the", "-", "final", "--", "countdown"}));
  EXPECT_EQ(split("Removed", /*invert=*/true), (Strings{"-", "-", "-"}));
}

TEST(TokenizerBasics, RegexNeedsLookaheadAndUnicodeClasses) {
  // The Qwen/Llama 3 pattern: \s+(?!\S) leaves the last space for the word.
  auto regex = Regex::compile("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
                              "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
                              false, "t");
  ASSERT_TRUE(bool(regex)) << errorText(regex.takeError());
  std::string text = "Hi   there\n\n12345 你好'S";
  Strings parts;
  for (auto [begin, end] : (*regex)->findAll(text))
    parts.push_back(text.substr(begin, end - begin));
  EXPECT_EQ(parts, (Strings{"Hi", "  ", " there", "\n\n", "123", "45", " 你好", "'S"}));

  std::string message = errorText(Regex::compile("(unclosed", false, "bad.json").takeError());
  EXPECT_NE(message.find("bad.json"), std::string::npos) << message;
  EXPECT_NE(message.find("(unclosed"), std::string::npos) << message;
}

TEST(TokenizerBasics, LoadErrorsNameTheProblem) {
  auto fail = [](const json &tok) {
    auto result = Tokenizer::fromJson(tok.dump(), "", "tok.json");
    EXPECT_FALSE(bool(result));
    return result ? "" : errorText(result.takeError());
  };
  json tok = tinyTokenizer({});
  tok["model"]["type"] = "WordPiece";
  EXPECT_NE(fail(tok).find("unsupported model type 'WordPiece'"), std::string::npos);
  tok = tinyTokenizer({});
  tok["pre_tokenizer"] = {{"type", "Metaspace"}};
  EXPECT_NE(fail(tok).find("unsupported pre_tokenizer type 'Metaspace'"), std::string::npos);
  tok = tinyTokenizer({});
  tok["normalizer"] = {{"type", "Lowercase"}};
  EXPECT_NE(fail(tok).find("unsupported normalizer type 'Lowercase'"), std::string::npos);
  tok = tinyTokenizer({});
  tok["model"]["merges"].push_back({"zz", "q"});
  EXPECT_NE(fail(tok).find("not in the vocab"), std::string::npos);
  tok = tinyTokenizer({});
  tok["model"]["vocab"].erase(spell("A"));
  EXPECT_NE(fail(tok).find("byte 65"), std::string::npos);
  // Found by tests/fuzz (tokenizer): an id near INT32_MAX asked for dense tables of 64 GB.
  tok = tinyTokenizer({});
  tok["model"]["vocab"]["big"] = 2000000000;
  EXPECT_NE(fail(tok).find("vocab entry 'big' has id 2000000000, far beyond the vocabulary's 257 entries"),
            std::string::npos);
  tok = tinyTokenizer({});
  tok["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "[a-"}}}};
  EXPECT_NE(fail(tok).find("cannot compile regex"), std::string::npos);
  tok = tinyTokenizer({});
  tok["added_tokens"] = {{{"content", "<x>"}}};
  EXPECT_NE(fail(tok).find("added token"), std::string::npos);
  tok = tinyTokenizer({});
  tok["added_tokens"] = {{{"id", 300}, {"content", "<x>"}, {"special", "yes"}}};
  EXPECT_NE(fail(tok).find("tok.json"), std::string::npos);
  EXPECT_NE(errorText(Tokenizer::fromJson("[1", "", "tok.json").takeError()).find("tok.json"),
            std::string::npos);
  EXPECT_NE(errorText(Tokenizer::fromFile("/nonexistent/tokenizer.json").takeError())
                .find("/nonexistent/tokenizer.json"),
            std::string::npos);
}

TEST(TokenizerBasics, ChatFormatDetection) {
  json tok = tinyTokenizer({});
  auto plain = load(tok);
  EXPECT_EQ(plain->chatFormat(), ChatFormat::None);
  EXPECT_FALSE(bool(plain->applyChatTemplate({{"user", "hi"}})));

  // Qwen2.5 carries a default system prompt in its template.
  json config = {{"chat_template", "{%- else %}\n{{- '<|im_start|>system\\nYou are Qwen, created by Alibaba "
                                   "Cloud. You are a helpful assistant.<|im_end|>\\n' }}\n"
                                   "{{- '<|im_start|>' + message.role }}"},
                 {"eos_token", "<|im_end|>"}};
  tok["added_tokens"] = {{{"id", 300}, {"content", "<|im_start|>"}, {"special", true}},
                         {{"id", 301}, {"content", "<|im_end|>"}, {"special", true}}};
  auto qwen25 = load(tok, config.dump());
  EXPECT_EQ(qwen25->chatFormat(), ChatFormat::ChatML);
  EXPECT_EQ(qwen25->eosTokenId(), 301);
  auto text = qwen25->applyChatTemplate({{"user", "hi"}});
  ASSERT_TRUE(bool(text));
  EXPECT_EQ(*text, "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a "
                   "helpful assistant.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n"
                   "<|im_start|>assistant\n");
  text = qwen25->applyChatTemplate({{"system", "S"}, {"user", "hi"}}, {false, {}});
  ASSERT_TRUE(bool(text));
  EXPECT_EQ(*text, "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n");
  // Without a config, the tokens decide.
  EXPECT_EQ(load(tok)->chatFormat(), ChatFormat::ChatML);
}

} // namespace
