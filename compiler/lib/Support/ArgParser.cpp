//===- ArgParser.cpp - A small command-line parser for tpuc subcommands ---===//

#include "tpuc/Support/ArgParser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace tpuc {
namespace {

std::string trim(const std::string &text) {
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos)
    return "";
  size_t end = text.find_last_not_of(" \t");
  return text.substr(begin, end - begin + 1);
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return text;
}

std::optional<int64_t> parseInt(const std::string &text) {
  std::string t = trim(text);
  int64_t value = 0;
  const char *begin = t.data();
  if (!t.empty() && t.front() == '+')
    ++begin;
  auto [ptr, ec] = std::from_chars(begin, t.data() + t.size(), value);
  if (ec != std::errc() || ptr != t.data() + t.size() || t.empty())
    return std::nullopt;
  return value;
}

std::optional<double> parseDouble(const std::string &text) {
  std::string t = trim(text);
  if (t.empty())
    return std::nullopt;
  char *end = nullptr;
  double value = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || std::isnan(value))
    return std::nullopt;
  return value;
}

/// The shortest text strtod reads back to the same double.
std::string formatDouble(double value) {
  char buffer[64];
  auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return ec == std::errc() ? std::string(buffer, ptr) : std::to_string(value);
}

/// The long spelling ("--model_path") if there is one.
std::string displayName(const ArgSpec &spec) {
  for (const std::string &name : spec.names)
    if (name.rfind("--", 0) == 0)
      return name;
  return spec.names.front();
}

} // namespace

std::vector<std::string> splitList(const std::string &text, char sep) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(sep, start);
    if (end == std::string::npos)
      end = text.size();
    std::string item = trim(text.substr(start, end - start));
    if (!item.empty())
      items.push_back(item);
    start = end + 1;
  }
  return items;
}

std::optional<std::vector<std::vector<int64_t>>>
parseShapeList(const std::string &text) {
  std::string t;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c)))
      t += c;
  if (t.empty())
    return std::nullopt;
  // A bare "1,3,224,224" is one shape.
  if (t.front() != '[')
    t = "[" + t + "]";
  // "[1,3]" (one shape) -> "[[1,3]]"; "[]" is one scalar shape.
  if (t.size() < 2 || t[1] != '[')
    t = "[" + t + "]";
  std::vector<std::vector<int64_t>> shapes;
  size_t pos = 1;
  while (true) {
    if (pos >= t.size() || t[pos] != '[')
      return std::nullopt;
    size_t close = t.find(']', pos);
    if (close == std::string::npos)
      return std::nullopt;
    std::string inner = t.substr(pos + 1, close - pos - 1);
    std::vector<int64_t> shape;
    if (!inner.empty()) {
      if (inner.front() == ',' || inner.back() == ',' ||
          inner.find(",,") != std::string::npos)
        return std::nullopt;
      for (const std::string &item : splitList(inner)) {
        auto dim = parseInt(item);
        if (!dim || *dim < 0)
          return std::nullopt;
        shape.push_back(*dim);
      }
    }
    shapes.push_back(std::move(shape));
    pos = close + 1;
    if (pos < t.size() && t[pos] == ',') {
      ++pos;
      continue;
    }
    if (pos == t.size() - 1 && t[pos] == ']')
      return shapes;
    return std::nullopt;
  }
}

ArgParser::ArgParser(std::string program, std::string summary)
    : program_(std::move(program)), summary_(std::move(summary)) {}

void ArgParser::add(ArgSpec spec, Target target, bool positional) {
  Value initial = std::visit([](auto *out) -> Value { return *out; }, target);
  entries_.push_back({std::move(spec), target, std::move(initial), positional, false});
}

void ArgParser::addFlag(ArgSpec spec, bool *out) { add(std::move(spec), out); }
void ArgParser::addOption(ArgSpec spec, std::string *out) {
  add(std::move(spec), out);
}
void ArgParser::addOption(ArgSpec spec, int64_t *out) {
  add(std::move(spec), out);
}
void ArgParser::addOption(ArgSpec spec, double *out) {
  add(std::move(spec), out);
}
void ArgParser::addOption(ArgSpec spec, std::vector<std::string> *out) {
  add(std::move(spec), out);
}
void ArgParser::addOption(ArgSpec spec, std::vector<double> *out) {
  add(std::move(spec), out);
}
void ArgParser::addOption(ArgSpec spec, std::vector<int64_t> *out) {
  add(std::move(spec), out);
}
void ArgParser::addOption(ArgSpec spec,
                          std::vector<std::vector<int64_t>> *out) {
  add(std::move(spec), out);
}
void ArgParser::addPositional(ArgSpec spec, std::string *out) {
  add(std::move(spec), out, /*positional=*/true);
}

ArgParser::Entry *ArgParser::find(const std::string &name) {
  for (Entry &entry : entries_)
    if (!entry.positional &&
        std::find(entry.spec.names.begin(), entry.spec.names.end(), name) !=
            entry.spec.names.end())
      return &entry;
  return nullptr;
}

std::string ArgParser::error(const std::string &what) const {
  return program_ + ": " + what + " (see '" + program_ + " --help')";
}

std::string ArgParser::assign(Entry &entry, const std::string &raw) {
  const std::string name = displayName(entry.spec);
  std::string value = raw;
  if (!entry.spec.choices.empty()) {
    auto it = std::find_if(
        entry.spec.choices.begin(), entry.spec.choices.end(),
        [&](const std::string &choice) { return lower(choice) == lower(raw); });
    if (it == entry.spec.choices.end()) {
      std::string list;
      for (const std::string &choice : entry.spec.choices)
        list += (list.empty() ? "" : ", ") + choice;
      return error("invalid value '" + raw + "' for '" + name +
                   "' (choose from " + list + ")");
    }
    value = *it;
  }
  auto expects = [&](const std::string &what) {
    return error("'" + name + "' expects " + what + ", got '" + raw + "'");
  };
  // "1,2,3" or "[1,2,3]"; a repeated flag appends, the first use replaces the default.
  auto appendNumbers = [&](auto &list, auto parse, const std::string &what) -> std::string {
    if (!entry.seen)
      list.clear();
    std::string v = value;
    if (v.size() >= 2 && v.front() == '[' && v.back() == ']')
      v = v.substr(1, v.size() - 2);
    for (const std::string &item : splitList(v)) {
      auto number = parse(item);
      if (!number)
        return expects(what);
      list.push_back(*number);
    }
    return "";
  };
  return std::visit(
      [&](auto *out) -> std::string {
        using T = std::remove_pointer_t<decltype(out)>;
        if constexpr (std::is_same_v<T, bool>) {
          std::string v = lower(value);
          if (v == "true" || v == "1" || v == "yes" || v == "on")
            *out = true;
          else if (v == "false" || v == "0" || v == "no" || v == "off")
            *out = false;
          else
            return expects("true or false");
        } else if constexpr (std::is_same_v<T, std::string>) {
          *out = value;
        } else if constexpr (std::is_same_v<T, int64_t>) {
          auto v = parseInt(value);
          if (!v)
            return expects("an integer");
          *out = *v;
        } else if constexpr (std::is_same_v<T, double>) {
          auto v = parseDouble(value);
          if (!v)
            return expects("a number");
          *out = *v;
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          if (!entry.seen)
            out->clear();
          for (std::string &item : splitList(value))
            out->push_back(std::move(item));
        } else if constexpr (std::is_same_v<T, std::vector<double>>) {
          return appendNumbers(*out, parseDouble, "comma-separated numbers");
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          return appendNumbers(*out, parseInt, "comma-separated integers");
        } else {
          auto shapes = parseShapeList(value);
          if (!shapes)
            return expects("shapes like [[1,3,224,224],[1,10]]");
          if (!entry.seen)
            out->clear();
          out->insert(out->end(), shapes->begin(), shapes->end());
        }
        return "";
      },
      entry.target);
}

ParseOutcome ArgParser::parse(std::span<const std::string> args, bool checkRequired) {
  size_t nextPositional = 0;
  bool optionsEnded = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    if (!optionsEnded && arg == "--") {
      optionsEnded = true;
      continue;
    }
    if (!optionsEnded && (arg == "-h" || arg == "--help"))
      return {ParseOutcome::Help, ""};
    bool looksLikeOption = !optionsEnded && arg.size() > 1 && arg[0] == '-';
    if (looksLikeOption) {
      size_t eq = arg.find('=');
      std::string name = arg.substr(0, eq);
      Entry *entry = find(name);
      if (!entry)
        return {ParseOutcome::Error, error("unknown option '" + name + "'")};
      std::string value;
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
      } else if (std::holds_alternative<bool *>(entry->target)) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return {ParseOutcome::Error,
                error("option '" + name + "' needs a value")};
      }
      std::string message = assign(*entry, value);
      if (!message.empty())
        return {ParseOutcome::Error, message};
      entry->seen = true;
      continue;
    }
    // A positional argument.
    size_t seenPositionals = 0;
    Entry *target = nullptr;
    for (Entry &entry : entries_) {
      if (!entry.positional)
        continue;
      if (seenPositionals++ == nextPositional) {
        target = &entry;
        break;
      }
    }
    if (!target)
      return {ParseOutcome::Error, error("unexpected argument '" + arg + "'")};
    ++nextPositional;
    std::string message = assign(*target, arg);
    if (!message.empty())
      return {ParseOutcome::Error, message};
    target->seen = true;
  }
  for (const Entry &entry : entries_) {
    if (!checkRequired || !entry.spec.required || entry.seen)
      continue;
    if (entry.positional)
      return {ParseOutcome::Error,
              error("missing required argument <" +
                    displayName(entry.spec) + ">")};
    return {ParseOutcome::Error,
            error("missing required option '" + displayName(entry.spec) +
                  "'")};
  }
  return {ParseOutcome::Ok, ""};
}

std::vector<std::string> ArgParser::flagNames() const {
  std::vector<std::string> names;
  for (const Entry &entry : entries_)
    if (!entry.positional)
      names.push_back(displayName(entry.spec));
  return names;
}

std::vector<std::pair<std::string, std::string>> ArgParser::values() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Entry &entry : entries_) {
    std::string text;
    Value current = std::visit([](auto *field) -> Value { return *field; }, entry.target);
    std::visit(
        [&](const auto &value) {
          using T = std::decay_t<decltype(value)>;
          auto join = [&](const auto &items, auto spell) {
            for (size_t i = 0; i < items.size(); ++i)
              text += (i ? "," : "") + spell(items[i]);
          };
          if constexpr (std::is_same_v<T, bool>)
            text = value ? "true" : "false";
          else if constexpr (std::is_same_v<T, std::string>)
            text = value;
          else if constexpr (std::is_same_v<T, int64_t>)
            text = std::to_string(value);
          else if constexpr (std::is_same_v<T, double>)
            text = formatDouble(value);
          else if constexpr (std::is_same_v<T, std::vector<std::string>>)
            join(value, [](const std::string &v) { return v; });
          else if constexpr (std::is_same_v<T, std::vector<double>>)
            join(value, [](double v) { return formatDouble(v); });
          else if constexpr (std::is_same_v<T, std::vector<int64_t>>)
            join(value, [](int64_t v) { return std::to_string(v); });
          else {
            text = "[";
            join(value, [](const std::vector<int64_t> &shape) {
              std::string dims;
              for (size_t i = 0; i < shape.size(); ++i)
                dims += (i ? "," : "") + std::to_string(shape[i]);
              return "[" + dims + "]";
            });
            text += "]";
          }
        },
        current);
    out.emplace_back(displayName(entry.spec), std::move(text));
  }
  return out;
}

ArgParser::Rendered ArgParser::render() const {
  Rendered out;
  std::vector<std::string> positionals;
  bool positionalGap = false;
  // Required options first, as a usage line lists them, then the rest in binding order.
  std::vector<const Entry *> order;
  for (const Entry &entry : entries_)
    if (!entry.positional && entry.spec.required)
      order.push_back(&entry);
  for (const Entry &entry : entries_)
    if (entry.positional || !entry.spec.required)
      order.push_back(&entry);
  for (const Entry *entryPtr : order) {
    const Entry &entry = *entryPtr;
    const std::string name = displayName(entry.spec);
    auto fail = [&](const std::string &why) {
      out.error = "'" + name + "' " + why;
      out.args.clear();
    };
    // "a,b" for a list; "" when an item cannot be spelled in one.
    auto joinItems = [&](const std::vector<std::string> &items) -> std::optional<std::string> {
      std::string text;
      for (const std::string &item : items) {
        if (item.empty() || item.find(',') != std::string::npos || trim(item) != item) {
          fail("cannot pass the list item '" + item + "' (empty, holds a comma or blank ends)");
          return std::nullopt;
        }
        text += (text.empty() ? "" : ",") + item;
      }
      return text;
    };
    Value current = std::visit([](auto *field) -> Value { return *field; }, entry.target);
    if (current == entry.initial) {
      positionalGap |= entry.positional;
      continue;
    }
    std::optional<std::string> text;
    bool isBool = false;
    std::visit(
        [&](const auto &value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, bool>) {
            isBool = true;
            text = value ? "true" : "false";
          } else if constexpr (std::is_same_v<T, std::string>) {
            text = value;
          } else if constexpr (std::is_same_v<T, int64_t>) {
            text = std::to_string(value);
          } else if constexpr (std::is_same_v<T, double>) {
            if (std::isnan(value))
              return fail("cannot pass NaN");
            text = formatDouble(value);
          } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            text = joinItems(value);
          } else if constexpr (std::is_same_v<T, std::vector<double>>) {
            std::vector<std::string> items;
            for (double v : value) {
              if (std::isnan(v))
                return fail("cannot pass NaN");
              items.push_back(formatDouble(v));
            }
            text = joinItems(items);
          } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
            std::vector<std::string> items;
            for (int64_t v : value)
              items.push_back(std::to_string(v));
            text = joinItems(items);
          } else {
            if (value.empty())
              return fail("cannot pass an empty list of shapes");
            std::string shapes = "[";
            for (const std::vector<int64_t> &shape : value) {
              shapes += shapes.size() > 1 ? ",[" : "[";
              for (size_t i = 0; i < shape.size(); ++i) {
                if (shape[i] < 0)
                  return fail("cannot pass the negative dimension " + std::to_string(shape[i]));
                shapes += (i ? "," : "") + std::to_string(shape[i]);
              }
              shapes += "]";
            }
            text = shapes + "]";
          }
        },
        current);
    if (!out.error.empty())
      return out;
    if (!text)
      return out;
    if (!entry.spec.choices.empty() &&
        std::find(entry.spec.choices.begin(), entry.spec.choices.end(), *text) == entry.spec.choices.end()) {
      std::string list;
      for (const std::string &choice : entry.spec.choices)
        list += (list.empty() ? "" : ", ") + choice;
      fail("cannot pass '" + *text + "' (choose from " + list + ")");
      return out;
    }
    if (entry.positional) {
      if (positionalGap) {
        fail("is set but an earlier argument is not");
        return out;
      }
      positionals.push_back(*text);
    } else if (isBool) {
      out.args.push_back(*text == "true" ? name : name + "=false");
    } else {
      out.args.push_back(name);
      out.args.push_back(*text);
    }
  }
  // A positional that looks like an option follows "--", which ends the options.
  if (std::any_of(positionals.begin(), positionals.end(),
                  [](const std::string &p) { return p.size() > 1 && p[0] == '-'; }))
    out.args.push_back("--");
  out.args.insert(out.args.end(), positionals.begin(), positionals.end());
  return out;
}

std::vector<ArgParser::Described> ArgParser::describe() const {
  std::vector<Described> out;
  for (const Entry &entry : entries_)
    out.push_back({&entry.spec, entry.positional, !std::holds_alternative<bool *>(entry.target)});
  return out;
}

std::string ArgParser::help() const {
  std::string usage = "usage: " + program_ + " [options]";
  for (const Entry &entry : entries_)
    if (entry.positional)
      usage += entry.spec.required ? " <" + displayName(entry.spec) + ">"
                                   : " [" + displayName(entry.spec) + "]";
  std::string text = usage + "\n\n" + summary_ + "\n";

  auto leftColumn = [](const Entry &entry) {
    if (entry.positional)
      return "<" + displayName(entry.spec) + ">";
    // Short spellings ("-o") first, then the long ones, as argparse does.
    std::string left;
    for (bool wantLong : {false, true})
      for (const std::string &name : entry.spec.names)
        if ((name.rfind("--", 0) == 0) == wantLong)
          left += (left.empty() ? "" : ", ") + name;
    if (!entry.spec.metavar.empty())
      left += " " + entry.spec.metavar;
    return left;
  };
  auto description = [](const Entry &entry) {
    std::string desc = entry.spec.help;
    if (!entry.spec.choices.empty()) {
      std::string list;
      for (const std::string &choice : entry.spec.choices)
        list += (list.empty() ? "" : "|") + choice;
      desc += " {" + list + "}";
    }
    if (entry.spec.required)
      desc += " [required]";
    if (!entry.spec.defaultText.empty())
      desc += " (default: " + entry.spec.defaultText + ")";
    return desc;
  };
  constexpr size_t kColumn = 34;
  auto line = [&](const std::string &left, const std::string &desc) {
    std::string out = "  " + left;
    if (out.size() + 2 > kColumn)
      out += "\n" + std::string(kColumn, ' ');
    else
      out += std::string(kColumn - out.size(), ' ');
    return out + desc + "\n";
  };

  bool anyPositional = std::any_of(entries_.begin(), entries_.end(),
                                   [](const Entry &e) { return e.positional; });
  if (anyPositional) {
    text += "\narguments:\n";
    for (const Entry &entry : entries_)
      if (entry.positional)
        text += line(leftColumn(entry), description(entry));
  }
  text += "\noptions:\n";
  for (const Entry &entry : entries_)
    if (!entry.positional)
      text += line(leftColumn(entry), description(entry));
  text += line("-h, --help", "show this help and exit");
  return text;
}

} // namespace tpuc
