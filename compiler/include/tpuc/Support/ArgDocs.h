//===- ArgDocs.h - Man pages and bash completion from an ArgParser's table -===//
//
// Qt-free. The installed man pages (tpuc-deploy.1, ...) and the bash
// completion of tpuc are written from the same bindings that parse the flags
// and print --help, so they cannot drift from the program. `--help-man` and
// `--help-bash` (tpuc/Support/ParseOrExit.h) print them for any command.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_SUPPORT_ARGDOCS_H
#define TPUC_SUPPORT_ARGDOCS_H

#include "tpuc/Support/ArgParser.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpuc {

/// Text made safe for roff: backslashes, a leading '.' or '\'' and dashes (as \-, so options copy and
/// search as typed).
std::string roffEscape(std::string_view text);

/// The man page name of a command: "tpuc deploy" -> "tpuc-deploy".
std::string manPageName(std::string_view program);

/// Sections after OPTIONS: (heading, roff body already escaped).
using ManSections = std::vector<std::pair<std::string, std::string>>;

/// The man(7) page of `parser`'s command in section 1: NAME (program and the summary's first sentence),
/// SYNOPSIS, DESCRIPTION (the whole summary), ARGUMENTS and OPTIONS (each entry as --help shows it, with
/// its choices, [required] and default), then `extra`. `source` goes into .TH ("TPU Studio 0.1.0").
std::string manPage(const ArgParser &parser, std::string_view source, const ManSections &extra = {});

/// A bash function `_tpuc_deploy` (named after the program, words joined by '_', dashes as '_') that fills
/// COMPREPLY for the word `$cur` after `$prev`: a value of an option with choices completes to its
/// choices, one whose placeholder names a FILE, DIR, PATH, FOLDER or LIST to file names, any other value
/// to nothing; a word starting with '-' to the option spellings (and -h, --help); else file names (the
/// positional arguments).
std::string bashCompletionFunction(const ArgParser &parser);
/// The function name bashCompletionFunction() defines for `program`.
std::string bashFunctionName(std::string_view program);

} // namespace tpuc

#endif // TPUC_SUPPORT_ARGDOCS_H
