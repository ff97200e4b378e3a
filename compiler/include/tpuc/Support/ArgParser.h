//===- ArgParser.h - A small command-line parser for tpuc subcommands -----===//
//
// Qt-free. Options are bound to fields of a plain options struct, so a
// subcommand's flags, their parsing and its engine stay separate. Accepts
// TPU-MLIR's spellings: `--flag value`, `--flag=value`, short aliases
// (`-o out`), comma lists (`--mean 0,0,0`), shape lists
// (`--input_shapes [[1,3,224,224],[1,10]]`) and case-insensitive enum values
// that are normalised to their canonical spelling.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_SUPPORT_ARGPARSER_H
#define TPUC_SUPPORT_ARGPARSER_H

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace tpuc {

/// One option's description. `names` holds its spellings, long first
/// ("--model_path", "-m"); a positional argument has a single name without
/// dashes.
struct ArgSpec {
  std::vector<std::string> names;
  /// Placeholder shown in --help ("FILE", "N"); empty for boolean flags.
  std::string metavar;
  /// One-line description for --help.
  std::string help;
  bool required = false;
  /// Allowed values of an enum option (matched case-insensitively).
  std::vector<std::string> choices;
  /// Default shown in --help (informational only; the bound field holds the
  /// real default).
  std::string defaultText;
};

/// How a parse ended.
struct ParseOutcome {
  enum Kind { Ok, Help, Error } kind = Ok;
  /// For Error: one line, "tpuc transform: unknown option '--foo' (...)".
  std::string message;
};

/// A parser for one (sub)command; bind options, then parse().
class ArgParser {
public:
  /// `program` is the command as the user types it ("tpuc transform").
  ArgParser(std::string program, std::string summary);

  /// A boolean switch: present -> true (`--flag=false` sets it false).
  void addFlag(ArgSpec spec, bool *out);
  void addOption(ArgSpec spec, std::string *out);
  void addOption(ArgSpec spec, int64_t *out);
  void addOption(ArgSpec spec, double *out);
  /// Comma-separated values; repeating the option appends.
  void addOption(ArgSpec spec, std::vector<std::string> *out);
  void addOption(ArgSpec spec, std::vector<double> *out);
  void addOption(ArgSpec spec, std::vector<int64_t> *out);
  /// Shapes: "[[1,3,224,224],[1,10]]", "[1,3,224,224]" or "1,3,224,224".
  void addOption(ArgSpec spec, std::vector<std::vector<int64_t>> *out);
  /// Positional arguments are taken in the order they are added.
  void addPositional(ArgSpec spec, std::string *out);

  /// Parses arguments (without the program/subcommand words).
  ParseOutcome parse(std::span<const std::string> args);
  /// The --help text.
  std::string help() const;
  const std::string &program() const { return program_; }

private:
  using Target =
      std::variant<bool *, std::string *, int64_t *, double *,
                   std::vector<std::string> *, std::vector<double> *,
                   std::vector<int64_t> *, std::vector<std::vector<int64_t>> *>;
  struct Entry {
    ArgSpec spec;
    Target target;
    bool positional = false;
    bool seen = false;
  };

  void add(ArgSpec spec, Target target, bool positional = false);
  Entry *find(const std::string &name);
  /// Stores `value` into the entry; returns an error message or "".
  std::string assign(Entry &entry, const std::string &value);
  std::string error(const std::string &what) const;

  std::string program_;
  std::string summary_;
  std::vector<Entry> entries_;
};

/// Splits "a,b,c" (empty items dropped, spaces trimmed).
std::vector<std::string> splitList(const std::string &text, char sep = ',');
/// Parses TPU-MLIR shape lists ("[[1,3,224,224],[1,10]]", "[1,3]", "1,3",
/// "[]" for a scalar); std::nullopt if malformed.
std::optional<std::vector<std::vector<int64_t>>>
parseShapeList(const std::string &text);

} // namespace tpuc

#endif // TPUC_SUPPORT_ARGPARSER_H
