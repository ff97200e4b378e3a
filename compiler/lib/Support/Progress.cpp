//===- Progress.cpp - JSON-lines progress reports for long tpuc jobs ------===//

#include "tpuc/Support/Progress.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tpuc {

std::string jsonEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out += c;
      }
    }
  }
  return out;
}

ProgressReporter::ProgressReporter(Format format, std::ostream &jsonOut,
                                   std::ostream &textOut)
    : format_(format), jsonOut_(jsonOut), textOut_(textOut) {}

std::optional<ProgressReporter::Format>
ProgressReporter::parseFormat(std::string_view name) {
  if (name.empty() || name == "none")
    return Format::None;
  if (name == "json")
    return Format::Json;
  if (name == "text")
    return Format::Text;
  return std::nullopt;
}

std::string
ProgressReporter::formatJson(std::string_view stage, double fraction,
                             std::string_view message,
                             const std::vector<std::string> &artifacts) {
  if (!std::isfinite(fraction))
    fraction = 0.0;
  fraction = std::clamp(fraction, 0.0, 1.0);
  // Six significant digits, as the text form shows; messages may hold any byte (names from a model), which
  // the dump replaces when it is not UTF-8 so the line always parses.
  char number[32];
  std::snprintf(number, sizeof(number), "%.6g", fraction);
  nlohmann::ordered_json line;
  line["stage"] = std::string(stage);
  double rounded = std::strtod(number, nullptr);
  if (rounded == std::floor(rounded))
    line["fraction"] = static_cast<int>(rounded); // 0 and 1, as %g prints them
  else
    line["fraction"] = rounded;
  line["message"] = std::string(message);
  line["artifacts"] = artifacts;
  return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void ProgressReporter::report(std::string_view stage, double fraction,
                              std::string_view message,
                              const std::vector<std::string> &artifacts) {
  if (format_ == Format::None)
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (format_ == Format::Json) {
    jsonOut_ << formatJson(stage, fraction, message, artifacts) << '\n';
    jsonOut_.flush();
    return;
  }
  int percent = static_cast<int>(
      std::lround(std::clamp(std::isfinite(fraction) ? fraction : 0.0, 0.0,
                             1.0) *
                  100));
  textOut_ << "[" << stage << " " << percent << "%] " << message << '\n';
  textOut_.flush();
}

} // namespace tpuc
