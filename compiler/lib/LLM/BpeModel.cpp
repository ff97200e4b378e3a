//===- BpeModel.cpp - Byte-level BPE merging and added-token matching -----===//

#include "TokenizerParts.h"

#include <unicode/uchar.h>

#include <nlohmann/json.hpp>

#include <queue>

using namespace tpuc::llm;
using llvm::Expected;
using llvm::StringRef;
using nlohmann::json;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Words longer than this are not cached (they rarely repeat).
static constexpr size_t kMaxCachedWordBytes = 256;
/// The cache is emptied when it grows past this many words.
static constexpr size_t kMaxCacheEntries = 100000;

static uint64_t pairKey(TokenId left, TokenId right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

/// Raw bytes of a token spelled in the byte-level alphabet. Characters
/// outside the alphabet keep their UTF-8 bytes (HF does the same).
static std::string spellingToBytes(StringRef spelling) {
  std::string bytes;
  size_t pos = 0;
  while (pos < spelling.size()) {
    size_t start = pos;
    uint32_t cp = decodeUtf8(spelling, pos);
    int byte = unicodeToByte(cp);
    if (byte >= 0)
      bytes += static_cast<char>(byte);
    else
      bytes.append(spelling.data() + start, pos - start);
  }
  return bytes;
}

Expected<std::unique_ptr<BpeModel>> BpeModel::fromJson(const json &model, StringRef name) {
  if (!model.is_object())
    return makeError(name + ": 'model' is not an object");
  std::string type = model.value("type", std::string("BPE"));
  if (type != "BPE")
    return makeError(name + ": unsupported model type '" + type + "' (only byte-level BPE is supported)");
  if (model.value("byte_fallback", false))
    return makeError(name + ": BPE with byte_fallback is not supported");
  if (!model.contains("vocab") || !model["vocab"].is_object())
    return makeError(name + ": model has no 'vocab' object");
  if (!model.contains("merges") || !model["merges"].is_array())
    return makeError(name + ": model has no 'merges' list");

  auto bpe = std::unique_ptr<BpeModel>(new BpeModel());
  bpe->ignoreMerges = model.value("ignore_merges", false);
  const json &vocab = model["vocab"];
  // Ids index dense tables: a real vocabulary numbers its entries 0..n-1 (added tokens live apart), so an
  // id far past the entry count is a damaged file, not a table of gigabytes to allocate (found by
  // tests/fuzz, tokenizer).
  const int64_t idLimit = static_cast<int64_t>(vocab.size()) + 65536;
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > INT32_MAX)
      return makeError(name + ": vocab entry '" + it.key() + "' has an invalid id");
    if (it->get<int64_t>() >= idLimit)
      return makeError(name + ": vocab entry '" + it.key() + "' has id " + llvm::Twine(it->get<int64_t>()) +
                       ", far beyond the vocabulary's " + llvm::Twine(vocab.size()) + " entries");
    auto id = static_cast<TokenId>(it->get<int64_t>());
    if (static_cast<size_t>(id) >= bpe->idBytes.size()) {
      bpe->idBytes.resize(id + 1);
      bpe->idSpelling.resize(id + 1);
    }
    std::string bytes = spellingToBytes(it.key());
    bpe->idSpelling[id] = it.key();
    bpe->spellingToId[it.key()] = id;
    bpe->bytesToId[bytes] = id;
    bpe->idBytes[id] = std::move(bytes);
  }
  for (int b = 0; b < 256; ++b) {
    auto it = bpe->bytesToId.find(StringRef(reinterpret_cast<char *>(&b), 1));
    if (it == bpe->bytesToId.end())
      return makeError(name + ": vocab lacks the byte-level token for byte " + llvm::Twine(b) +
                       " (not a byte-level BPE vocab)");
    bpe->byteId[b] = it->second;
  }

  const json &merges = model["merges"];
  uint32_t rank = 0;
  for (const json &merge : merges) {
    std::string left, right;
    if (merge.is_string()) {
      // Old form "a b": the two parts split at the first space.
      const std::string &text = merge.get_ref<const std::string &>();
      size_t space = text.find(' ');
      if (space == std::string::npos)
        return makeError(name + ": merge '" + text + "' has no space");
      left = text.substr(0, space);
      right = text.substr(space + 1);
    } else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string()) {
      left = merge[0].get<std::string>();
      right = merge[1].get<std::string>();
    } else {
      return makeError(name + ": merge #" + llvm::Twine(rank) + " is neither \"a b\" nor [\"a\", \"b\"]");
    }
    auto leftIt = bpe->spellingToId.find(left);
    auto rightIt = bpe->spellingToId.find(right);
    auto resultIt = bpe->spellingToId.find(left + right);
    if (leftIt == bpe->spellingToId.end() || rightIt == bpe->spellingToId.end() ||
        resultIt == bpe->spellingToId.end())
      return makeError(name + ": merge #" + llvm::Twine(rank) + " ('" + left + "', '" + right +
                       "') uses a token not in the vocab");
    // The first (lowest-rank) occurrence of a pair wins.
    bpe->merges.try_emplace(pairKey(leftIt->second, rightIt->second), MergeInfo{rank, resultIt->second});
    ++rank;
  }
  return bpe;
}

StringRef BpeModel::bytesOf(TokenId id) const {
  if (id < 0 || static_cast<size_t>(id) >= idBytes.size())
    return {};
  return idBytes[id];
}

StringRef BpeModel::spellingOf(TokenId id) const {
  if (id < 0 || static_cast<size_t>(id) >= idSpelling.size())
    return {};
  return idSpelling[id];
}

std::optional<TokenId> BpeModel::idOfSpelling(StringRef spelling) const {
  auto it = spellingToId.find(spelling);
  if (it == spellingToId.end())
    return std::nullopt;
  return it->second;
}

void BpeModel::encodeWord(StringRef word, std::vector<TokenId> &out) const {
  if (word.empty())
    return;
  if (ignoreMerges) {
    auto it = bytesToId.find(word);
    if (it != bytesToId.end()) {
      out.push_back(it->second);
      return;
    }
  }
  bool cacheable = word.size() <= kMaxCachedWordBytes;
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cacheMutex);
    auto it = cache.find(word.str());
    if (it != cache.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<TokenId> ids;
  mergeWord(word, ids);
  out.insert(out.end(), ids.begin(), ids.end());
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cacheMutex);
    if (cache.size() >= kMaxCacheEntries)
      cache.clear();
    cache.emplace(word.str(), std::move(ids));
  }
}

void BpeModel::mergeWord(StringRef word, std::vector<TokenId> &out) const {
  // Symbols in a doubly linked list over an array; a heap of candidate
  // merges ordered by (rank, position). A popped candidate is stale if
  // either side has changed since it was pushed.
  struct Symbol {
    TokenId id;
    int prev, next;
    bool alive;
  };
  struct Candidate {
    uint32_t rank;
    int pos;
    TokenId left, right, result;
    bool operator>(const Candidate &other) const {
      return rank != other.rank ? rank > other.rank : pos > other.pos;
    }
  };
  const int n = static_cast<int>(word.size());
  std::vector<Symbol> symbols(n);
  for (int i = 0; i < n; ++i)
    symbols[i] = {byteId[static_cast<unsigned char>(word[i])], i - 1, i + 1 < n ? i + 1 : -1, true};

  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  auto consider = [&](int pos) {
    int next = symbols[pos].next;
    if (next < 0)
      return;
    auto it = merges.find(pairKey(symbols[pos].id, symbols[next].id));
    if (it != merges.end())
      heap.push({it->second.rank, pos, symbols[pos].id, symbols[next].id, it->second.result});
  };
  for (int i = 0; i + 1 < n; ++i)
    consider(i);

  while (!heap.empty()) {
    Candidate top = heap.top();
    heap.pop();
    Symbol &left = symbols[top.pos];
    if (!left.alive || left.id != top.left || left.next < 0)
      continue;
    Symbol &right = symbols[left.next];
    if (right.id != top.right)
      continue;
    left.id = top.result;
    right.alive = false;
    left.next = right.next;
    if (right.next >= 0)
      symbols[right.next].prev = top.pos;
    if (left.prev >= 0)
      consider(left.prev);
    consider(top.pos);
  }
  for (int i = 0; i >= 0 && i < n; i = symbols[i].next)
    out.push_back(symbols[i].id);
}

//===----------------------------------------------------------------------===//
// AddedTokenMatcher
//===----------------------------------------------------------------------===//

void AddedTokenMatcher::add(const AddedToken &token, int index) {
  if (token.content.empty())
    return;
  int node = 0;
  for (char c : token.content) {
    auto byte = static_cast<unsigned char>(c);
    int child = -1;
    for (auto &[key, target] : nodes[node].next)
      if (key == byte)
        child = target;
    if (child < 0) {
      child = static_cast<int>(nodes.size());
      nodes[node].next.emplace_back(byte, child);
      nodes.emplace_back();
    }
    node = child;
  }
  nodes[node].tokenIndex = index;
}

/// Whether the code point is a word character for single_word matching.
static bool isWordChar(uint32_t cp) { return cp == '_' || u_isalnum(cp); }

/// Start of the code point that ends right before byte `pos`.
static size_t previousCharStart(StringRef text, size_t pos) {
  size_t start = pos - 1;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80)
    --start;
  return start;
}

std::vector<AddedTokenMatcher::Segment> AddedTokenMatcher::split(StringRef text,
                                                                 llvm::ArrayRef<AddedToken> tokens) const {
  std::vector<Segment> segments;
  size_t textStart = 0; // start of the pending plain-text run
  size_t pos = 0;
  while (pos < text.size()) {
    // Longest token starting at pos.
    int node = 0, found = -1;
    size_t foundEnd = pos;
    for (size_t i = pos; i < text.size(); ++i) {
      auto byte = static_cast<unsigned char>(text[i]);
      int child = -1;
      for (auto &[key, target] : nodes[node].next)
        if (key == byte)
          child = target;
      if (child < 0)
        break;
      node = child;
      if (nodes[node].tokenIndex >= 0) {
        found = nodes[node].tokenIndex;
        foundEnd = i + 1;
      }
    }
    if (found >= 0) {
      const AddedToken &token = tokens[found];
      if (token.singleWord) {
        bool ok = true;
        if (pos > 0) {
          size_t before = previousCharStart(text, pos);
          ok &= !isWordChar(decodeUtf8(text, before));
        }
        if (foundEnd < text.size()) {
          size_t after = foundEnd;
          ok &= !isWordChar(decodeUtf8(text, after));
        }
        if (!ok)
          found = -1;
      }
    }
    if (found < 0) {
      decodeUtf8(text, pos); // step one character
      continue;
    }
    const AddedToken &token = tokens[found];
    size_t matchStart = pos, matchEnd = foundEnd;
    if (token.lstrip)
      while (matchStart > textStart) {
        size_t before = previousCharStart(text, matchStart);
        size_t probe = before;
        if (!u_isUWhiteSpace(decodeUtf8(text, probe)))
          break;
        matchStart = before;
      }
    if (token.rstrip)
      while (matchEnd < text.size()) {
        size_t probe = matchEnd;
        if (!u_isUWhiteSpace(decodeUtf8(text, probe)))
          break;
        matchEnd = probe;
      }
    if (matchStart > textStart)
      segments.push_back({text.slice(textStart, matchStart), -1});
    segments.push_back({text.slice(pos, foundEnd), found});
    pos = textStart = matchEnd;
  }
  if (textStart < text.size())
    segments.push_back({text.substr(textStart), -1});
  return segments;
}
