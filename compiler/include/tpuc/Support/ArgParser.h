//===- ArgParser.h - A small command-line parser for tpuc subcommands -----===//
//
// Qt-free. Options are bound to fields of a plain options struct, so a
// subcommand's flags, their parsing and its engine stay separate. Accepts
// TPU-MLIR's spellings: `--flag value`, `--flag=value`, short aliases
// (`-o out`), comma lists (`--mean 0,0,0`), shape lists
// (`--input_shapes [[1,3,224,224],[1,10]]`) and case-insensitive enum values
// that are normalised to their canonical spelling.
//
// The binding also renders a struct back to arguments (render()): each
// option records its field's value at bind time as its default, and every
// field that differs from it is written in a spelling parse() reads back to
// the same value, so a caller builds a value-type request and gets the
// command line from the CLI's own binding.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_SUPPORT_ARGPARSER_H
#define TPUC_SUPPORT_ARGPARSER_H

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
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

  /// Parses arguments (without the program/subcommand words). `checkRequired` false: a missing required
  /// option is no error (reading back a command line recorded in part).
  ParseOutcome parse(std::span<const std::string> args, bool checkRequired = true);
  /// The --help text.
  std::string help() const;
  /// The bound fields that differ from their values at bind time, as arguments parse() reads back to
  /// the same values: options in binding order (long spelling; `--flag` / `--flag=false` for booleans,
  /// lists comma-joined, shapes as [[..]]), then positionals in order. An error (one line naming the
  /// option) for a value no argument spells: a list item holding a comma or blank ends, an empty item,
  /// a value outside the choices or not in their canonical spelling, a NaN, a negative dimension, a
  /// positional set after an unset one.
  struct Rendered {
    std::vector<std::string> args;
    std::string error;
  };
  Rendered render() const;
  /// The long spellings of every option ("--model_path"), in binding order.
  std::vector<std::string> flagNames() const;
  /// Every bound field with its current value, defaults included, in binding order: options by their long
  /// spelling, positionals by their name; values as render() spells them (booleans "true" / "false", lists
  /// comma-joined, shapes as [[..]]) but never refused (what a run manifest records).
  std::vector<std::pair<std::string, std::string>> values() const;
  const std::string &program() const { return program_; }
  const std::string &summary() const { return summary_; }
  /// One bound argument as --help shows it: what the man page and shell completion writers
  /// (tpuc/Support/ArgDocs.h) read, so they describe the flags parse() takes.
  struct Described {
    const ArgSpec *spec;
    bool positional;
    bool takesValue; ///< false for boolean switches
  };
  std::vector<Described> describe() const;

private:
  using Target =
      std::variant<bool *, std::string *, int64_t *, double *,
                   std::vector<std::string> *, std::vector<double> *,
                   std::vector<int64_t> *, std::vector<std::vector<int64_t>> *>;
  using Value = std::variant<bool, std::string, int64_t, double, std::vector<std::string>,
                             std::vector<double>, std::vector<int64_t>, std::vector<std::vector<int64_t>>>;
  struct Entry {
    ArgSpec spec;
    Target target;
    /// The field's value when it was bound: render() writes only what differs.
    Value initial;
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
