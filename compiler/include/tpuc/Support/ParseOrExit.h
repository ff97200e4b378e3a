//===- ParseOrExit.h - What a command line program does with a parse ------===//

#ifndef TPUC_SUPPORT_PARSEOREXIT_H
#define TPUC_SUPPORT_PARSEOREXIT_H

#include "tpuc/Support/ArgDocs.h"
#include "tpuc/Support/ArgParser.h"

#include <algorithm>
#include <iostream>
#include <optional>
#include <span>
#include <string>

namespace tpuc {

/// Parses `args` with `parser`: on --help the help goes to stdout and the result is 0, on an error its one
/// line goes to stderr and the result is `usageExit`; nullopt when the options are to be used. The only
/// option `--help-man` (last, after positional words such as `tpuc view calibration`'s) prints the
/// command's man page (roff), `--help-bash` its bash completion function (tpuc/Support/ArgDocs.h): what
/// the package installs, written from this same binding.
inline std::optional<int> parseOrExit(ArgParser &parser, std::span<const std::string> args, int usageExit) {
  if (!args.empty() && (args.back() == "--help-man" || args.back() == "--help-bash") &&
      std::none_of(args.begin(), args.end() - 1, [](const std::string &a) { return a.starts_with('-'); })) {
    std::cout << (args.back() == "--help-man" ? manPage(parser, "TPU Studio") : bashCompletionFunction(parser));
    return 0;
  }
  ParseOutcome outcome = parser.parse(args);
  if (outcome.kind == ParseOutcome::Help) {
    std::cout << parser.help();
    return 0;
  }
  if (outcome.kind == ParseOutcome::Error) {
    std::cerr << outcome.message << std::endl;
    return usageExit;
  }
  return std::nullopt;
}

} // namespace tpuc

#endif // TPUC_SUPPORT_PARSEOREXIT_H
