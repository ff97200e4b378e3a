//===- Tokenizer.cpp - HuggingFace byte-level BPE tokenizer (tokenizer.json) -//

#include "tpuc/LLM/Tokenizer.h"

#include "TokenizerParts.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

using namespace tpuc::llm;
using llvm::Expected;
using llvm::StringRef;
using nlohmann::json;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

Tokenizer::Tokenizer() = default;
Tokenizer::~Tokenizer() = default;

/// A token named in tokenizer_config.json: a string or {"content": ...}.
static std::string configTokenText(const json &config, const char *key) {
  auto it = config.find(key);
  if (it == config.end())
    return {};
  if (it->is_string())
    return it->get<std::string>();
  if (it->is_object() && it->contains("content") && (*it)["content"].is_string())
    return (*it)["content"].get<std::string>();
  return {};
}

Expected<std::unique_ptr<Tokenizer>> Tokenizer::fromJson(StringRef tokenizerJson, StringRef configJson,
                                                         StringRef name) {
  json root = json::parse(tokenizerJson.begin(), tokenizerJson.end(), nullptr,
                          /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object())
    return makeError(name + ": not a JSON object");
  json config;
  if (!configJson.empty()) {
    config = json::parse(configJson.begin(), configJson.end(), nullptr, false);
    if (config.is_discarded() || !config.is_object())
      return makeError(name + ": tokenizer_config.json is not a JSON object");
  }

  auto tokenizer = std::unique_ptr<Tokenizer>(new Tokenizer());
  // nlohmann's typed accessors throw on a wrong type; report those as one
  // line rather than letting them escape.
  try {
    if (!root.contains("model"))
      return makeError(name + ": no 'model' section");
    Expected<std::unique_ptr<BpeModel>> model = BpeModel::fromJson(root["model"], name);
    if (!model)
      return model.takeError();
    tokenizer->model = std::move(*model);

    Expected<std::unique_ptr<Normalizer>> normalizer =
        Normalizer::fromJson(root.value("normalizer", json()), name);
    if (!normalizer)
      return normalizer.takeError();
    tokenizer->normalizer = std::move(*normalizer);

    Expected<std::unique_ptr<PreTokenizer>> pre =
        PreTokenizer::fromJson(root.value("pre_tokenizer", json()), name);
    if (!pre)
      return pre.takeError();
    tokenizer->preTokenizer = std::move(*pre);

    const json &decoder = root.value("decoder", json());
    if (!decoder.is_null() && decoder.value("type", std::string()) != "ByteLevel")
      return makeError(name + ": unsupported decoder type '" + decoder.value("type", std::string("?")) +
                       "' (only ByteLevel)");

    tokenizer->rawMatcher = std::make_unique<AddedTokenMatcher>();
    tokenizer->normalizedMatcher = std::make_unique<AddedTokenMatcher>();
    if (root.contains("added_tokens")) {
      if (!root["added_tokens"].is_array())
        return makeError(name + ": 'added_tokens' is not a list");
      for (const json &entry : root["added_tokens"]) {
        AddedToken token;
        if (!entry.is_object() || !entry.contains("id") || !entry["id"].is_number_integer() ||
            !entry.contains("content") || !entry["content"].is_string())
          return makeError(name + ": added token without an id and content");
        int64_t id = entry["id"].get<int64_t>();
        if (id < 0 || id > INT32_MAX)
          return makeError(name + ": added token '" + entry["content"].get<std::string>() +
                           "' has an invalid id");
        token.id = static_cast<TokenId>(id);
        token.content = entry["content"].get<std::string>();
        token.special = entry.value("special", false);
        token.singleWord = entry.value("single_word", false);
        token.lstrip = entry.value("lstrip", false);
        token.rstrip = entry.value("rstrip", false);
        token.normalized = entry.value("normalized", !token.special);
        tokenizer->added.push_back(std::move(token));
      }
    }
    for (size_t i = 0; i < tokenizer->added.size(); ++i) {
      const AddedToken &token = tokenizer->added[i];
      (token.normalized ? *tokenizer->normalizedMatcher : *tokenizer->rawMatcher)
          .add(token, static_cast<int>(i));
      tokenizer->addedIndex[token.id] = i;
    }

    std::string chatTemplate;
    if (config.is_object() && config.contains("chat_template")) {
      const json &tmpl = config["chat_template"];
      if (tmpl.is_string())
        chatTemplate = tmpl.get<std::string>();
      else if (tmpl.is_array())
        for (const json &entry : tmpl)
          if (entry.is_object() && entry.value("name", "") == "default" && entry.contains("template") &&
              entry["template"].is_string())
            chatTemplate = entry["template"].get<std::string>();
    }
    tokenizer->chatStyle = std::make_unique<ChatStyle>(detectChatStyle(chatTemplate, tokenizer->added));
    ChatFormat format = tokenizer->chatStyle->format;

    std::string bos, eos;
    if (config.is_object()) {
      bos = configTokenText(config, "bos_token");
      eos = configTokenText(config, "eos_token");
    }
    if (bos.empty() && format == ChatFormat::Llama3)
      bos = "<|begin_of_text|>";
    if (eos.empty()) {
      if (format == ChatFormat::Llama3)
        eos = "<|eot_id|>";
      else if (format != ChatFormat::None)
        eos = "<|im_end|>";
    }
    if (!bos.empty()) {
      tokenizer->bosId = tokenizer->tokenToId(bos);
      if (tokenizer->bosId)
        tokenizer->bosText = bos;
    }
    if (!eos.empty())
      tokenizer->eosId = tokenizer->tokenToId(eos);
  } catch (const json::exception &e) {
    return makeError(name + ": malformed tokenizer: " + e.what());
  }
  return tokenizer;
}

Expected<std::unique_ptr<Tokenizer>> Tokenizer::fromFile(StringRef path) {
  llvm::SmallString<256> file(path);
  if (llvm::sys::fs::is_directory(path))
    llvm::sys::path::append(file, "tokenizer.json");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(file, /*IsText=*/true);
  if (!buffer)
    return makeError(file + ": cannot open: " + buffer.getError().message());
  llvm::SmallString<256> configPath(llvm::sys::path::parent_path(file));
  llvm::sys::path::append(configPath, "tokenizer_config.json");
  std::string configText;
  if (llvm::sys::fs::exists(configPath)) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> config =
        llvm::MemoryBuffer::getFile(configPath, /*IsText=*/true);
    if (!config)
      return makeError(configPath + ": cannot open: " + config.getError().message());
    configText = (*config)->getBuffer().str();
  }
  return fromJson((*buffer)->getBuffer(), configText, file);
}

std::string Tokenizer::normalize(StringRef text) const {
  return normalizer ? normalizer->apply(text) : text.str();
}

void Tokenizer::encodeSegment(StringRef segment, std::vector<TokenId> &out) const {
  for (const std::string &piece : preTokenizer->split(segment))
    model->encodeWord(piece, out);
}

std::vector<TokenId> Tokenizer::encode(StringRef text, bool parseSpecial) const {
  std::string clean = sanitizeUtf8(text);
  std::vector<TokenId> ids;
  if (!parseSpecial) {
    encodeSegment(normalize(clean), ids);
    return ids;
  }
  // Tokens with normalized=false are found in the raw text, the others in
  // the normalized text of the remaining runs (HF's two passes).
  for (const AddedTokenMatcher::Segment &segment : rawMatcher->split(clean, added)) {
    if (segment.tokenIndex >= 0) {
      ids.push_back(added[segment.tokenIndex].id);
      continue;
    }
    std::string normalized = normalize(segment.text);
    for (const AddedTokenMatcher::Segment &inner : normalizedMatcher->split(normalized, added)) {
      if (inner.tokenIndex >= 0)
        ids.push_back(added[inner.tokenIndex].id);
      else
        encodeSegment(inner.text, ids);
    }
  }
  return ids;
}

std::string Tokenizer::tokenBytes(TokenId id) const {
  auto it = addedIndex.find(id);
  if (it != addedIndex.end())
    return added[it->second].content;
  return model->bytesOf(id).str();
}

std::string Tokenizer::decode(llvm::ArrayRef<TokenId> ids, bool skipSpecial) const {
  std::string bytes;
  for (TokenId id : ids) {
    if (skipSpecial && isSpecial(id))
      continue;
    bytes += tokenBytes(id);
  }
  return sanitizeUtf8(bytes);
}

std::optional<TokenId> Tokenizer::tokenToId(StringRef token) const {
  for (const AddedToken &entry : added)
    if (entry.content == token)
      return entry.id;
  return model->idOfSpelling(token);
}

std::string Tokenizer::idToToken(TokenId id) const {
  auto it = addedIndex.find(id);
  if (it != addedIndex.end())
    return added[it->second].content;
  return model->spellingOf(id).str();
}

size_t Tokenizer::vocabSize() const {
  size_t size = model->size();
  for (const AddedToken &token : added)
    size = std::max(size, static_cast<size_t>(token.id) + 1);
  return size;
}

bool Tokenizer::isSpecial(TokenId id) const {
  auto it = addedIndex.find(id);
  return it != addedIndex.end() && added[it->second].special;
}

llvm::ArrayRef<AddedToken> Tokenizer::addedTokens() const { return added; }

Expected<std::string> Tokenizer::applyChatTemplate(llvm::ArrayRef<ChatMessage> messages,
                                                   const ChatOptions &options) const {
  if (chatStyle->format == ChatFormat::None)
    return makeError("tokenizer has no known chat format (expected a Qwen "
                     "ChatML or Llama 3 tokenizer)");
  return renderChat(*chatStyle, messages, options, bosText);
}

ChatFormat Tokenizer::chatFormat() const { return chatStyle->format; }

void Tokenizer::setChatFormat(ChatFormat newFormat) {
  *chatStyle = ChatStyle();
  chatStyle->format = newFormat;
}

std::string IncrementalDecoder::push(TokenId id) {
  if (skipSpecial && tokenizer.isSpecial(id))
    return {};
  pending += tokenizer.tokenBytes(id);
  return drainUtf8(pending, /*final=*/false);
}

std::string IncrementalDecoder::finish() { return drainUtf8(pending, /*final=*/true); }
