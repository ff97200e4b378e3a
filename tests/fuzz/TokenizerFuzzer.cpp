//===- TokenizerFuzzer.cpp - libFuzzer target for tokenizer.json and chats -===//
//
// The input is tokenizer.json, tokenizer_config.json (its chat template, bos/eos) and a text, separated by
// NUL bytes. Loading either rejects in one line naming the file, or gives a tokenizer that encodes the
// text, decodes the ids back (ids within the vocabulary) and renders a two-turn chat through the detected
// template without crashing.
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"
#include "tpuc/LLM/Tokenizer.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

using namespace tpuc::llm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef input(reinterpret_cast<const char *>(data), size);
  auto [tokenizerJson, rest] = input.split('\0');
  auto [configJson, text] = rest.split('\0');
  auto tokenizer = Tokenizer::fromJson(tokenizerJson, configJson, "fuzz/tokenizer.json");
  if (!tokenizer) {
    tpuc::fuzz::rejectionIsOneLine(llvm::toString(tokenizer.takeError()), "fuzz/tokenizer.json");
    return 0;
  }
  const Tokenizer &t = **tokenizer;
  if (text.size() > 512)
    text = text.take_front(512); // the merges are quadratic in a word's length: keep runs fast
  std::vector<TokenId> ids = t.encode(text);
  for (TokenId id : ids)
    if (static_cast<size_t>(id) >= t.vocabSize())
      __builtin_trap();
  (void)t.decode(ids);
  (void)t.decode(ids, /*skipSpecial=*/true);
  (void)t.encode(text, /*parseSpecial=*/false);
  if (t.chatFormat() != ChatFormat::None) {
    std::vector<ChatMessage> chat{{"system", "You are terse."}, {"user", text.str()}};
    auto rendered = t.applyChatTemplate(chat);
    if (!rendered)
      llvm::consumeError(rendered.takeError());
  }
  return 0;
}
