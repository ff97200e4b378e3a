// TPU-MLIR's text formats of calibration and quantize tables.
#include "project/TableFiles.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>
#include <unordered_set>

namespace tpuc::project {

namespace {

std::vector<std::string_view> splitWords(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    if (i > start)
      words.push_back(line.substr(start, i - start));
  }
  return words;
}

bool parseNumber(std::string_view word, double &out) {
  auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), out);
  return ec == std::errc() && end == word.data() + word.size();
}

/// Calls `onLine(lineNumber, words)` for each non-comment line until `onLine` returns false.
template <typename F> void forEachLine(std::string_view text, F onLine) {
  int number = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    auto words = splitWords(line);
    if (words.empty())
      continue;
    if (words[0].front() == '#') {
      if (words[0] == "#int4_th" || words[0] == "#weight_scale")
        return;
      continue;
    }
    if (!onLine(number, words))
      return;
  }
}

std::string at(const std::string &name, int line) { return name + ":" + std::to_string(line) + ": "; }

} // namespace

Result<std::vector<CaliEntry>> parseCaliTable(std::string_view text, const std::string &name) {
  std::vector<CaliEntry> entries;
  std::unordered_set<std::string> seen;
  std::string error;
  forEachLine(text, [&](int line, const std::vector<std::string_view> &words) {
    if (words.size() != 4) {
      error = at(name, line) + "expected 'op_name threshold min max', got " + std::to_string(words.size()) +
              " fields";
      return false;
    }
    CaliEntry e{std::string(words[0]), 0, 0, 0};
    if (!parseNumber(words[1], e.threshold) || !parseNumber(words[2], e.min) ||
        !parseNumber(words[3], e.max)) {
      error = at(name, line) + "threshold, min and max of '" + e.opName + "' must be numbers";
      return false;
    }
    if (e.min > e.max || e.threshold < 0) {
      error = at(name, line) + "'" + e.opName + "' needs min <= max and threshold >= 0";
      return false;
    }
    if (!seen.insert(e.opName).second) {
      error = at(name, line) + "'" + e.opName + "' appears twice";
      return false;
    }
    entries.push_back(std::move(e));
    return true;
  });
  if (!error.empty())
    return Failure{std::move(error)};
  return entries;
}

Result<std::vector<QuantEntry>> parseQuantTable(std::string_view text, const std::string &name) {
  static const std::unordered_set<std::string> modes = {"F32",   "F16",   "BF16",   "INT8",  "INT4",
                                                        "W8F16", "W4F16", "W8BF16", "W4BF16"};
  std::vector<QuantEntry> entries;
  std::unordered_set<std::string> seen;
  std::string error;
  forEachLine(text, [&](int line, const std::vector<std::string_view> &words) {
    if (words.size() != 2) {
      error = at(name, line) + "expected 'op_name MODE', got " + std::to_string(words.size()) + " fields";
      return false;
    }
    QuantEntry e{std::string(words[0]), std::string(words[1])};
    std::transform(e.mode.begin(), e.mode.end(), e.mode.begin(),
                   [](unsigned char c) { return std::toupper(c); });
    if (!modes.count(e.mode)) {
      error = at(name, line) + "unknown mode '" + std::string(words[1]) + "' for '" + e.opName + "'";
      return false;
    }
    if (!seen.insert(e.opName).second) {
      error = at(name, line) + "'" + e.opName + "' appears twice";
      return false;
    }
    entries.push_back(std::move(e));
    return true;
  });
  if (!error.empty())
    return Failure{std::move(error)};
  return entries;
}

std::string formatCaliTable(const CaliTable &table) {
  std::ostringstream out;
  out << "# calibration table '" << table.name << "' version " << table.version << " (TPU Studio)\n"
      << "# op_name threshold min max\n";
  char buffer[64];
  for (const CaliEntry &e : table.entries) {
    out << e.opName;
    for (double v : {e.threshold, e.min, e.max}) {
      // The shortest text that reads back as the same double: "3.5", not "3.50000000000000000".
      auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
      out << ' ' << std::string_view(buffer, ec == std::errc() ? end - buffer : 0);
    }
    out << '\n';
  }
  return out.str();
}

std::string formatQuantTable(const QuantTable &table) {
  std::ostringstream out;
  out << "# quantize table '" << table.name << "' version " << table.version << " (TPU Studio)\n"
      << "# op_name quantize_mode\n";
  for (const QuantEntry &e : table.entries)
    out << e.opName << ' ' << e.mode << '\n';
  return out.str();
}

} // namespace tpuc::project
