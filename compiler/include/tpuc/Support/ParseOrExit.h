//===- ParseOrExit.h - What a command line program does with a parse ------===//

#ifndef TPUC_SUPPORT_PARSEOREXIT_H
#define TPUC_SUPPORT_PARSEOREXIT_H

#include "tpuc/Support/ArgParser.h"

#include <iostream>
#include <optional>
#include <span>
#include <string>

namespace tpuc {

/// Parses `args` with `parser`: on --help the help goes to stdout and the result is 0, on an error its one
/// line goes to stderr and the result is `usageExit`; nullopt when the options are to be used.
inline std::optional<int> parseOrExit(ArgParser &parser, std::span<const std::string> args, int usageExit) {
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
