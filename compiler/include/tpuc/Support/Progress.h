//===- Progress.h - JSON-lines progress reports for long tpuc jobs --------===//
//
// Qt-free. `tpuc ... --progress json` makes a long job print one JSON object
// per line on stdout, which the studio (running tpuc as a child process)
// reads to drive its progress bars:
//   {"stage":"calibrate","fraction":0.25,"message":"image 25/100","artifacts":[]}
// With Format::Text the same reports are printed as readable lines on
// stderr; Format::None drops them.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_SUPPORT_PROGRESS_H
#define TPUC_SUPPORT_PROGRESS_H

#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace tpuc {

/// Escapes `text` as the body of a JSON string (quotes not included).
std::string jsonEscape(std::string_view text);

/// Thread-safe progress reporter; one report is one line, flushed at once.
class ProgressReporter {
public:
  enum class Format { None, Json, Text };

  /// Reports to `jsonOut` (Json) or `textOut` (Text).
  ProgressReporter(Format format, std::ostream &jsonOut, std::ostream &textOut);
  /// Parses "none", "json" or "text" ("" means none).
  static std::optional<Format> parseFormat(std::string_view name);

  /// One report. `fraction` is clamped to [0, 1]; artifacts are files the
  /// stage produced (paths as given).
  void report(std::string_view stage, double fraction,
              std::string_view message,
              const std::vector<std::string> &artifacts = {});
  /// The JSON line report() would print, without the newline.
  static std::string formatJson(std::string_view stage, double fraction,
                                std::string_view message,
                                const std::vector<std::string> &artifacts);
  Format format() const { return format_; }

private:
  Format format_;
  std::ostream &jsonOut_;
  std::ostream &textOut_;
  std::mutex mutex_;
};

} // namespace tpuc

#endif // TPUC_SUPPORT_PROGRESS_H
