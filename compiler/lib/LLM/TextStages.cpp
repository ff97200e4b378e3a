//===- TextStages.cpp - UTF-8, normalization, regex splitting, pre-tokens -===//

#include "TokenizerParts.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>

#include <nlohmann/json.hpp>

using namespace tpuc::llm;
using llvm::Expected;
using llvm::StringRef;
using nlohmann::json;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// UTF-8
//===----------------------------------------------------------------------===//

int tpuc::llm::classifyUtf8(const unsigned char *s, size_t n) {
  unsigned char b0 = s[0];
  if (b0 < 0x80)
    return 1;
  int need;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
  } else if (b0 == 0xE0) {
    need = 2;
    lo = 0xA0;
  } else if ((b0 >= 0xE1 && b0 <= 0xEC) || b0 == 0xEE || b0 == 0xEF) {
    need = 2;
  } else if (b0 == 0xED) {
    need = 2;
    hi = 0x9F;
  } else if (b0 == 0xF0) {
    need = 3;
    lo = 0x90;
  } else if (b0 >= 0xF1 && b0 <= 0xF3) {
    need = 3;
  } else if (b0 == 0xF4) {
    need = 3;
    hi = 0x8F;
  } else {
    return -1;
  }
  for (int i = 1; i <= need; ++i) {
    if (static_cast<size_t>(i) >= n)
      return 0;
    if (s[i] < lo || s[i] > hi)
      return -i;
    lo = 0x80;
    hi = 0xBF;
  }
  return need + 1;
}

void tpuc::llm::appendUtf8(uint32_t cp, std::string &out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

uint32_t tpuc::llm::decodeUtf8(StringRef text, size_t &pos) {
  const auto *s = reinterpret_cast<const unsigned char *>(text.data()) + pos;
  int length = classifyUtf8(s, text.size() - pos);
  if (length <= 0) {
    ++pos;
    return 0xFFFD;
  }
  pos += length;
  if (length == 1)
    return s[0];
  uint32_t cp = s[0] & (0x7F >> length);
  for (int i = 1; i < length; ++i)
    cp = (cp << 6) | (s[i] & 0x3F);
  return cp;
}

std::string tpuc::llm::drainUtf8(std::string &pending, bool final) {
  std::string out;
  const auto *s = reinterpret_cast<const unsigned char *>(pending.data());
  size_t n = pending.size(), pos = 0;
  while (pos < n) {
    int length = classifyUtf8(s + pos, n - pos);
    if (length > 0) {
      out.append(pending, pos, length);
      pos += length;
    } else if (length < 0) {
      out += "\xEF\xBF\xBD";
      pos += -length;
    } else if (final) {
      out += "\xEF\xBF\xBD";
      pos = n;
    } else {
      break;
    }
  }
  pending.erase(0, pos);
  return out;
}

std::string tpuc::llm::sanitizeUtf8(StringRef bytes) {
  std::string pending = bytes.str();
  return drainUtf8(pending, /*final=*/true);
}

const std::array<uint32_t, 256> &tpuc::llm::byteToUnicode() {
  // GPT-2's bytes_to_unicode(): printable Latin-1 bytes map to themselves,
  // the others to U+0100 and up, in byte order.
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    uint32_t next = 256;
    for (uint32_t b = 0; b < 256; ++b) {
      bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      t[b] = printable ? b : next++;
    }
    return t;
  }();
  return table;
}

int tpuc::llm::unicodeToByte(uint32_t cp) {
  static const std::array<int16_t, 512> inverse = [] {
    std::array<int16_t, 512> t;
    t.fill(-1);
    for (int b = 0; b < 256; ++b)
      t[byteToUnicode()[b]] = static_cast<int16_t>(b);
    return t;
  }();
  return cp < inverse.size() ? inverse[cp] : -1;
}

//===----------------------------------------------------------------------===//
// Normalizer
//===----------------------------------------------------------------------===//

Expected<std::unique_ptr<Normalizer>> Normalizer::fromJson(const json &config, StringRef name) {
  if (config.is_null())
    return nullptr;
  auto normalizer = std::unique_ptr<Normalizer>(new Normalizer());
  std::vector<const json *> work{&config};
  while (!work.empty()) {
    const json &node = *work.back();
    work.pop_back();
    if (!node.is_object() || !node.contains("type") || !node["type"].is_string())
      return makeError(name + ": normalizer entry without a 'type'");
    std::string type = node["type"].get<std::string>();
    if (type == "Sequence") {
      if (!node.contains("normalizers") || !node["normalizers"].is_array())
        return makeError(name + ": Sequence normalizer without 'normalizers'");
      const json &list = node["normalizers"];
      for (auto it = list.rbegin(); it != list.rend(); ++it)
        work.push_back(&*it);
    } else if (type == "NFC") {
      normalizer->forms.push_back(Form::NFC);
    } else if (type == "NFD") {
      normalizer->forms.push_back(Form::NFD);
    } else if (type == "NFKC") {
      normalizer->forms.push_back(Form::NFKC);
    } else if (type == "NFKD") {
      normalizer->forms.push_back(Form::NFKD);
    } else {
      return makeError(name + ": unsupported normalizer type '" + type + "'");
    }
  }
  return normalizer;
}

std::string Normalizer::apply(StringRef text) const {
  std::string current = text.str();
  for (Form form : forms) {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2 *norm = nullptr;
    switch (form) {
    case Form::NFC:
      norm = icu::Normalizer2::getNFCInstance(status);
      break;
    case Form::NFD:
      norm = icu::Normalizer2::getNFDInstance(status);
      break;
    case Form::NFKC:
      norm = icu::Normalizer2::getNFKCInstance(status);
      break;
    case Form::NFKD:
      norm = icu::Normalizer2::getNFKDInstance(status);
      break;
    }
    if (U_FAILURE(status))
      continue;
    icu::StringPiece piece(current.data(), static_cast<int32_t>(current.size()));
    if (norm->isNormalizedUTF8(piece, status) && U_SUCCESS(status))
      continue;
    status = U_ZERO_ERROR;
    std::string result;
    icu::StringByteSink<std::string> sink(&result);
    norm->normalizeUTF8(0, piece, sink, nullptr, status);
    if (U_SUCCESS(status))
      current = std::move(result);
  }
  return current;
}

//===----------------------------------------------------------------------===//
// Regex
//===----------------------------------------------------------------------===//

Expected<std::unique_ptr<Regex>> Regex::compile(StringRef pattern, bool literal, StringRef name) {
  int errorCode = 0;
  PCRE2_SIZE errorOffset = 0;
  // PCRE2 refuses UCP together with LITERAL (it has no meaning there).
  uint32_t options = PCRE2_UTF | (literal ? PCRE2_LITERAL : PCRE2_UCP);
  pcre2_code *code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), options,
                                   &errorCode, &errorOffset, nullptr);
  if (!code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(errorCode, message, sizeof(message));
    return makeError(name + ": cannot compile regex '" + pattern + "' at " + llvm::Twine(errorOffset) + ": " +
                     reinterpret_cast<const char *>(message));
  }
  auto regex = std::unique_ptr<Regex>(new Regex());
  regex->code = code;
  regex->jit = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
  return regex;
}

Regex::~Regex() { pcre2_code_free(static_cast<pcre2_code *>(code)); }

std::vector<std::pair<size_t, size_t>> Regex::findAll(StringRef subject) const {
  auto *pattern = static_cast<pcre2_code *>(code);
  std::vector<std::pair<size_t, size_t>> matches;
  pcre2_match_data *data = pcre2_match_data_create_from_pattern(pattern, nullptr);
  // Long whitespace runs backtrack deeply in `\s+(?!\S)`; give the JIT a
  // stack that grows to 8 MiB instead of the 32 KiB default.
  pcre2_jit_stack *stack = jit ? pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr) : nullptr;
  pcre2_match_context *context = pcre2_match_context_create(nullptr);
  if (stack)
    pcre2_jit_stack_assign(context, nullptr, stack);
  const auto *text = reinterpret_cast<PCRE2_SPTR>(subject.data());
  size_t offset = 0;
  while (offset <= subject.size()) {
    int rc = pcre2_match(pattern, text, subject.size(), offset, PCRE2_NO_UTF_CHECK, data, context);
    if (rc < 0)
      break;
    PCRE2_SIZE *ovector = pcre2_get_ovector_pointer(data);
    size_t begin = ovector[0], end = ovector[1];
    if (end > begin) {
      matches.emplace_back(begin, end);
      offset = end;
    } else {
      // Empty match: step over one character.
      if (begin >= subject.size())
        break;
      size_t pos = begin;
      decodeUtf8(subject, pos);
      offset = pos;
    }
  }
  pcre2_match_context_free(context);
  if (stack)
    pcre2_jit_stack_free(stack);
  pcre2_match_data_free(data);
  return matches;
}

//===----------------------------------------------------------------------===//
// PreTokenizer
//===----------------------------------------------------------------------===//

/// GPT-2's pattern, used by ByteLevel when use_regex is true.
static const char kGpt2Pattern[] = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|"
                                   "\\s+(?!\\S)|\\s+";

struct PreTokenizer::Step {
  enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };
  std::unique_ptr<Regex> regex; // null: no split
  Behavior behavior = Behavior::Isolated;
  bool invert = false;
  bool addPrefixSpace = false;

  void apply(const std::string &piece, std::vector<std::string> &out) const;
};

void PreTokenizer::Step::apply(const std::string &input, std::vector<std::string> &out) const {
  std::string piece = input;
  if (addPrefixSpace && (piece.empty() || piece[0] != ' '))
    piece.insert(piece.begin(), ' ');
  if (!regex) {
    out.push_back(std::move(piece));
    return;
  }
  // Alternating runs of (text, isMatch), covering the whole piece.
  std::vector<std::pair<std::string, bool>> runs;
  size_t previous = 0;
  for (auto [begin, end] : regex->findAll(piece)) {
    if (begin > previous)
      runs.emplace_back(piece.substr(previous, begin - previous), invert);
    runs.emplace_back(piece.substr(begin, end - begin), !invert);
    previous = end;
  }
  if (previous < piece.size())
    runs.emplace_back(piece.substr(previous), invert);

  switch (behavior) {
  case Behavior::Removed:
    for (auto &[text, isMatch] : runs)
      if (!isMatch)
        out.push_back(std::move(text));
    return;
  case Behavior::Isolated:
    for (auto &run : runs)
      out.push_back(std::move(run.first));
    return;
  case Behavior::MergedWithPrevious: {
    std::vector<std::string> result;
    bool lastWasText = false;
    for (auto &[text, isMatch] : runs) {
      if (isMatch && !result.empty() && lastWasText)
        result.back() += text;
      else
        result.push_back(text);
      lastWasText = !isMatch;
    }
    for (auto &text : result)
      out.push_back(std::move(text));
    return;
  }
  case Behavior::MergedWithNext: {
    std::vector<std::string> result;
    std::string carry;
    for (auto &[text, isMatch] : runs) {
      if (isMatch) {
        if (!carry.empty())
          result.push_back(std::move(carry));
        carry = text;
      } else {
        result.push_back(carry + text);
        carry.clear();
      }
    }
    if (!carry.empty())
      result.push_back(std::move(carry));
    for (auto &text : result)
      out.push_back(std::move(text));
    return;
  }
  case Behavior::Contiguous: {
    std::vector<std::string> result;
    bool lastWasMatch = false;
    for (auto &[text, isMatch] : runs) {
      if (isMatch && lastWasMatch && !result.empty())
        result.back() += text;
      else
        result.push_back(text);
      lastWasMatch = isMatch;
    }
    for (auto &text : result)
      out.push_back(std::move(text));
    return;
  }
  }
}

PreTokenizer::~PreTokenizer() = default;

Expected<std::unique_ptr<PreTokenizer>> PreTokenizer::fromJson(const json &config, StringRef name) {
  auto pre = std::unique_ptr<PreTokenizer>(new PreTokenizer());
  if (config.is_null())
    return pre;
  std::vector<const json *> work{&config};
  while (!work.empty()) {
    const json &node = *work.back();
    work.pop_back();
    if (!node.is_object() || !node.contains("type") || !node["type"].is_string())
      return makeError(name + ": pre_tokenizer entry without a 'type'");
    std::string type = node["type"].get<std::string>();
    auto step = std::make_unique<Step>();
    if (type == "Sequence") {
      if (!node.contains("pretokenizers") || !node["pretokenizers"].is_array())
        return makeError(name + ": Sequence pre_tokenizer without 'pretokenizers'");
      const json &list = node["pretokenizers"];
      for (auto it = list.rbegin(); it != list.rend(); ++it)
        work.push_back(&*it);
      continue;
    }
    if (type == "Split") {
      const json &pattern = node.value("pattern", json());
      bool literal = false;
      std::string text;
      if (pattern.is_object() && pattern.contains("Regex") && pattern["Regex"].is_string()) {
        text = pattern["Regex"].get<std::string>();
      } else if (pattern.is_object() && pattern.contains("String") && pattern["String"].is_string()) {
        text = pattern["String"].get<std::string>();
        literal = true;
      } else {
        return makeError(name + ": Split pre_tokenizer needs a 'pattern' "
                                "with 'Regex' or 'String'");
      }
      Expected<std::unique_ptr<Regex>> regex = Regex::compile(text, literal, name);
      if (!regex)
        return regex.takeError();
      step->regex = std::move(*regex);
      step->invert = node.value("invert", false);
      std::string behavior = node.value("behavior", std::string("Isolated"));
      if (behavior == "Removed")
        step->behavior = Step::Behavior::Removed;
      else if (behavior == "Isolated")
        step->behavior = Step::Behavior::Isolated;
      else if (behavior == "MergedWithPrevious")
        step->behavior = Step::Behavior::MergedWithPrevious;
      else if (behavior == "MergedWithNext")
        step->behavior = Step::Behavior::MergedWithNext;
      else if (behavior == "Contiguous")
        step->behavior = Step::Behavior::Contiguous;
      else
        return makeError(name + ": unknown Split behavior '" + behavior + "'");
    } else if (type == "ByteLevel") {
      // The byte-to-alphabet mapping itself happens in the BPE model, which
      // works on raw bytes; here only the optional regex split and prefix.
      step->addPrefixSpace = node.value("add_prefix_space", false);
      if (node.value("use_regex", true)) {
        Expected<std::unique_ptr<Regex>> regex = Regex::compile(kGpt2Pattern, false, name);
        if (!regex)
          return regex.takeError();
        step->regex = std::move(*regex);
      }
    } else {
      return makeError(name + ": unsupported pre_tokenizer type '" + type + "'");
    }
    pre->steps.push_back(std::move(step));
  }
  return pre;
}

std::vector<std::string> PreTokenizer::split(StringRef text) const {
  std::vector<std::string> pieces{text.str()};
  for (const auto &step : steps) {
    std::vector<std::string> next;
    next.reserve(pieces.size());
    for (const std::string &piece : pieces)
      step->apply(piece, next);
    pieces = std::move(next);
  }
  return pieces;
}
