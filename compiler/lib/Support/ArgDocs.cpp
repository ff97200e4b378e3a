//===- ArgDocs.cpp - Man pages and bash completion from an ArgParser's table -===//

#include "tpuc/Support/ArgDocs.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace tpuc {

namespace {

bool isLong(const std::string &name) { return name.rfind("--", 0) == 0; }

/// What --help shows after an entry's text: its choices, [required] and default.
std::string described(const ArgSpec &spec) {
  std::string desc = spec.help;
  if (!spec.choices.empty()) {
    std::string list;
    for (const std::string &choice : spec.choices)
      list += (list.empty() ? "" : "|") + choice;
    desc += " {" + list + "}";
  }
  if (spec.required)
    desc += " [required]";
  if (!spec.defaultText.empty())
    desc += " (default: " + spec.defaultText + ")";
  return desc;
}

/// The summary's first sentence without its full stop (the NAME line's whatis text).
std::string firstSentence(const std::string &summary) {
  std::string s = summary.substr(0, summary.find(". "));
  while (!s.empty() && (s.back() == '.' || s.back() == ' '))
    s.pop_back();
  return s;
}

std::string bashQuote(const std::string &word) {
  std::string out = "'";
  for (char c : word)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Whether an option's value is a file system path, judged by its placeholder ("FILE", "DIR|LIST", ...).
bool namesPath(const std::string &metavar) {
  std::string upper(metavar);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  for (const char *word : {"FILE", "DIR", "PATH", "FOLDER", "LIST", "NPZ", "MLIR", "MODEL", "TABLE"})
    if (upper.find(word) != std::string::npos)
      return true;
  return false;
}

std::string joinAlternatives(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &name : names)
    out += (out.empty() ? "" : "|") + name;
  return out;
}

} // namespace

std::string roffEscape(std::string_view text) {
  std::string out;
  bool lineStart = true;
  for (char c : text) {
    if (lineStart && (c == '.' || c == '\''))
      out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    lineStart = c == '\n';
  }
  return out;
}

std::string manPageName(std::string_view program) {
  std::string name(program);
  std::replace(name.begin(), name.end(), ' ', '-');
  return name;
}

std::string manPage(const ArgParser &parser, std::string_view source, const ManSections &extra) {
  const std::string name = manPageName(parser.program());
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  std::string page = ".TH \"" + roffEscape(upper) + "\" \"1\" \"\" \"" + roffEscape(source) +
                     "\" \"User Commands\"\n";
  page += ".SH NAME\n" + roffEscape(name) + " \\- " + roffEscape(firstSentence(parser.summary())) + "\n";

  const std::vector<ArgParser::Described> entries = parser.describe();
  page += ".SH SYNOPSIS\n.B " + roffEscape(parser.program()) + "\n[\\fIoptions\\fR]";
  for (const ArgParser::Described &d : entries)
    if (d.positional) {
      const std::string arg = "\\fI" + roffEscape(d.spec->names.front()) + "\\fR";
      page += d.spec->required ? " " + arg : " [" + arg + "]";
    }
  page += "\n.SH DESCRIPTION\n" + roffEscape(parser.summary()) + "\n";

  auto item = [](const ArgParser::Described &d) {
    std::string head;
    if (d.positional) {
      head = "\\fI" + roffEscape(d.spec->names.front()) + "\\fR";
    } else {
      // Short spellings first, as --help shows them.
      for (bool wantLong : {false, true})
        for (const std::string &n : d.spec->names)
          if (isLong(n) == wantLong)
            head += (head.empty() ? "" : ", ") + std::string("\\fB") + roffEscape(n) + "\\fR";
      if (!d.spec->metavar.empty())
        head += " \\fI" + roffEscape(d.spec->metavar) + "\\fR";
    }
    return ".TP\n" + head + "\n" + roffEscape(described(*d.spec)) + "\n";
  };
  if (std::any_of(entries.begin(), entries.end(), [](const auto &d) { return d.positional; })) {
    page += ".SH ARGUMENTS\n";
    for (const ArgParser::Described &d : entries)
      if (d.positional)
        page += item(d);
  }
  page += ".SH OPTIONS\n";
  for (const ArgParser::Described &d : entries)
    if (!d.positional)
      page += item(d);
  page += ".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nshow the help and exit\n";
  for (const auto &[heading, body] : extra)
    page += ".SH " + roffEscape(heading) + "\n" + body + (body.ends_with('\n') ? "" : "\n");
  return page;
}

std::string bashFunctionName(std::string_view program) {
  std::string name = "_" + std::string(program);
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return name;
}

std::string bashCompletionFunction(const ArgParser &parser) {
  std::string choiceArms, pathValues, otherValues, words;
  std::set<std::string> positionalChoices;
  bool positionalPath = false;
  for (const ArgParser::Described &d : parser.describe()) {
    if (d.positional) {
      if (d.spec->choices.empty())
        positionalPath = true;
      positionalChoices.insert(d.spec->choices.begin(), d.spec->choices.end());
      continue;
    }
    for (const std::string &n : d.spec->names)
      words += (words.empty() ? "" : " ") + n;
    if (!d.takesValue)
      continue;
    const std::string alternatives = joinAlternatives(d.spec->names);
    if (!d.spec->choices.empty()) {
      std::string list;
      for (const std::string &c : d.spec->choices)
        list += (list.empty() ? "" : " ") + c;
      choiceArms += "    " + alternatives + ") COMPREPLY=($(compgen -W " + bashQuote(list) +
                    " -- \"$cur\")); return 0 ;;\n";
    } else {
      std::string &into = namesPath(d.spec->metavar) ? pathValues : otherValues;
      into += (into.empty() ? "" : "|") + alternatives;
    }
  }
  words += " -h --help";

  std::string fn = bashFunctionName(parser.program()) + "() {\n";
  fn += "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n";
  fn += "  case \"$prev\" in\n" + choiceArms;
  if (!pathValues.empty())
    fn += "    " + pathValues + ") compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")); "
          "return 0 ;;\n";
  if (!otherValues.empty())
    fn += "    " + otherValues + ") COMPREPLY=(); return 0 ;;\n";
  fn += "  esac\n";
  fn += "  if [[ $cur == -* ]]; then\n    COMPREPLY=($(compgen -W " + bashQuote(words) +
        " -- \"$cur\"))\n    return 0\n  fi\n";
  std::string list;
  for (const std::string &c : positionalChoices)
    list += (list.empty() ? "" : " ") + c;
  fn += "  COMPREPLY=(";
  if (!list.empty())
    fn += "$(compgen -W " + bashQuote(list) + " -- \"$cur\")";
  fn += ")\n";
  if (positionalPath)
    fn += "  compopt -o filenames 2>/dev/null; COMPREPLY+=($(compgen -f -- \"$cur\"))\n";
  fn += "}\n";
  return fn;
}

} // namespace tpuc
