//===- Tables.cpp - TPU-MLIR calibration and quantize tables --------------===//

#include "tpuc/Quant/Tables.h"

#include "tpuc/Support/FileWrite.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace tpuc::quant {

namespace {

/// Splits on spaces and tabs.
/// Fields separated by any whitespace, as TPU-MLIR's `line.split()` does (a vertical tab or form feed too,
/// so that a name the writer refuses for its whitespace never reads back as one field).
std::vector<std::string_view> splitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && space(line[i]))
      ++i;
    size_t start = i;
    while (i < line.size() && !space(line[i]))
      ++i;
    if (i > start)
      fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

/// Iterates over lines with their 1-based numbers; strips a trailing CR.
template <typename Fn> void forEachLine(std::string_view text, Fn &&fn) {
  size_t lineNo = 0, pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    ++lineNo;
    if (!(end == text.size() && line.empty()))
      fn(lineNo, line);
    pos = end + 1;
  }
}

[[noreturn]] void failAt(const std::string &file, size_t line,
                         const std::string &message) {
  throw TableError(file + ":" + std::to_string(line) + ": " + message);
}

std::string readWholeFile(const std::string &path, const char *what) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw TableError(path + ": cannot open " + what);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void writeWholeFile(const std::string &path, const std::string &text,
                    const char *what) {
  if (Result<void> written = writeFileAtomically(path, text); !written)
    throw TableError(written.error() + " (" + what + ")");
}

/// Parses a finite double occupying the whole field.
std::optional<double> parseNumber(std::string_view field) {
  std::string s(field);
  char *end = nullptr;
  errno = 0;
  double value = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

std::optional<int64_t> parseInteger(std::string_view field) {
  std::string s(field);
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE)
    return std::nullopt;
  return value;
}

enum class Section { Int8, WeightScale, Int4, Fp8, AsymOp, Int4Op };

/// TPU-MLIR's classification of a '#' line (substring tests, in its order).
std::optional<Section> sectionOf(std::string_view line) {
  auto has = [&](std::string_view key) {
    return line.find(key) != std::string_view::npos;
  };
  if (has("#weight_scale"))
    return Section::WeightScale;
  if (has("#int4_th"))
    return Section::Int4;
  if (has("#tpu-mlir-fp8") || has("mqbench-fp8"))
    return Section::Fp8;
  if (has("asym_op"))
    return Section::AsymOp;
  if (has("int4_op"))
    return Section::Int4Op;
  return std::nullopt;
}

template <typename T>
void upsert(std::vector<T> &entries, T entry) {
  for (T &existing : entries)
    if (existing.name == entry.name) {
      existing = std::move(entry);
      return;
    }
  entries.push_back(std::move(entry));
}

void upsertName(std::vector<std::string> &names, std::string_view name) {
  for (const std::string &existing : names)
    if (existing == name)
      return;
  names.emplace_back(name);
}

template <typename T>
const T *findByName(const std::vector<T> &entries, std::string_view name) {
  for (const T &entry : entries)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

CalibrationEntry parseThresholdLine(const std::vector<std::string_view> &f,
                                    const std::string &file, size_t line) {
  static const char *const kFieldNames[] = {"threshold", "min", "max"};
  CalibrationEntry entry;
  entry.name = std::string(f[0]);
  double values[3];
  for (int i = 0; i < 3; ++i) {
    std::optional<double> v = parseNumber(f[i + 1]);
    if (!v)
      failAt(file, line,
             "op '" + entry.name + "': " + kFieldNames[i] + " '" +
                 std::string(f[i + 1]) + "' is not a finite number");
    values[i] = *v;
  }
  if (values[0] < 0)
    failAt(file, line,
           "op '" + entry.name + "': threshold " + std::string(f[1]) +
               " is negative");
  entry.threshold = values[0];
  entry.min = values[1];
  entry.max = values[2];
  return entry;
}

/// `name N s_1..s_N [M z_1..z_M]` (the zero points required when
/// `needZeroPoints`); nullopt when the line is not of that form.
std::optional<ScaleEntry>
tryParseScaleLine(const std::vector<std::string_view> &f, bool needZeroPoints,
                  std::string &why) {
  ScaleEntry entry;
  entry.name = std::string(f[0]);
  std::optional<int64_t> n = f.size() > 1 ? parseInteger(f[1]) : std::nullopt;
  if (!n || *n < 0) {
    why = "expected a scale count after the name";
    return std::nullopt;
  }
  size_t pos = 2;
  if (f.size() < pos + static_cast<size_t>(*n)) {
    why = "declares " + std::to_string(*n) + " scales but has " +
          std::to_string(f.size() - pos);
    return std::nullopt;
  }
  for (int64_t i = 0; i < *n; ++i, ++pos) {
    std::optional<double> v = parseNumber(f[pos]);
    if (!v) {
      why = "scale '" + std::string(f[pos]) + "' is not a finite number";
      return std::nullopt;
    }
    entry.scales.push_back(*v);
  }
  if (pos == f.size() && !needZeroPoints)
    return entry;
  std::optional<int64_t> m =
      pos < f.size() ? parseInteger(f[pos]) : std::nullopt;
  if (!m || *m < 0 ||
      f.size() != pos + 1 + static_cast<size_t>(*m)) {
    why = "expected a zero-point count and that many zero points after the "
          "scales";
    return std::nullopt;
  }
  for (++pos; pos < f.size(); ++pos) {
    // MQBench writes zero points as integers or as floats like "0.0".
    std::optional<double> z = parseNumber(f[pos]);
    if (!z || *z != std::floor(*z)) {
      why = "zero point '" + std::string(f[pos]) + "' is not an integer";
      return std::nullopt;
    }
    // Zero points live in the quantized type's range; anything past int32 is a corrupt table (and past
    // int64 would not even convert).
    if (std::fabs(*z) > 2147483647.0) {
      why = "zero point '" + std::string(f[pos]) + "' is out of range";
      return std::nullopt;
    }
    entry.zeroPoints.push_back(static_cast<int64_t>(*z));
  }
  return entry;
}

bool hasWhitespace(std::string_view name) {
  for (char c : name)
    if (std::isspace(static_cast<unsigned char>(c)))
      return true;
  return false;
}

std::string formatNumber(double value) {
  if (!std::isfinite(value))
    throw TableError("calibration table: value " + std::to_string(value) +
                     " is not finite");
  char buffer[64];
  if (value != 0 && std::fabs(value) < 1e-3)
    std::snprintf(buffer, sizeof buffer, "%.9e", value);
  else
    std::snprintf(buffer, sizeof buffer, "%.7f", value);
  return buffer;
}

void checkName(std::string_view name) {
  if (name.empty() || hasWhitespace(name) || name.front() == '#')
    throw TableError("table: op name '" + std::string(name) +
                     "' is empty, starts with '#' or contains whitespace");
}

void formatEntries(std::ostringstream &out,
                   const std::vector<CalibrationEntry> &entries) {
  for (const CalibrationEntry &e : entries) {
    checkName(e.name);
    out << e.name << ' ' << formatNumber(e.threshold) << ' '
        << formatNumber(e.min) << ' ' << formatNumber(e.max) << '\n';
  }
}

/// `writeZeroCount`: the main section's per-channel lines always carry their zero-point count, even 0, since
/// the reader requires it there (without it `name 3 a b c` would read back as `name threshold min max`).
void formatScales(std::ostringstream &out, const std::vector<ScaleEntry> &entries, bool writeZeroCount) {
  for (const ScaleEntry &e : entries) {
    checkName(e.name);
    out << e.name << ' ' << e.scales.size();
    for (double s : e.scales)
      out << ' ' << formatNumber(s);
    if (!e.zeroPoints.empty() || writeZeroCount) {
      out << ' ' << e.zeroPoints.size();
      for (int64_t z : e.zeroPoints)
        out << ' ' << z;
    }
    out << '\n';
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Calibration table
//===----------------------------------------------------------------------===//

const CalibrationEntry *CalibrationTable::find(std::string_view name) const {
  return findByName(int8, name);
}
const CalibrationEntry *
CalibrationTable::findInt4(std::string_view name) const {
  return findByName(int4, name);
}
const CalibrationEntry *CalibrationTable::findFp8(std::string_view name) const {
  return findByName(fp8, name);
}
void CalibrationTable::set(const CalibrationEntry &entry) {
  upsert(int8, entry);
}

CalibrationTable parseCalibrationTable(std::string_view text,
                                       const std::string &fileName) {
  CalibrationTable table;
  Section section = Section::Int8;
  bool seenEntry = false;
  forEachLine(text, [&](size_t lineNo, std::string_view rawLine) {
    std::string_view line = trim(rawLine);
    if (line.empty())
      return;
    if (line.front() == '#') {
      if (std::optional<Section> s = sectionOf(line)) {
        section = *s;
        seenEntry = true; // Header comments end at the first section marker.
      } else {
        // Any other comment returns to the main section, as in TPU-MLIR.
        section = Section::Int8;
        if (!seenEntry)
          table.header.emplace_back(line);
      }
      return;
    }
    seenEntry = true;
    std::vector<std::string_view> f = splitFields(line);
    switch (section) {
    case Section::Int8:
    case Section::Int4:
    case Section::Fp8: {
      if (f.size() == 4) {
        CalibrationEntry e = parseThresholdLine(f, fileName, lineNo);
        upsert(section == Section::Int8   ? table.int8
               : section == Section::Int4 ? table.int4
                                          : table.fp8,
               std::move(e));
        return;
      }
      std::string why;
      if (section == Section::Int8 && f.size() > 2)
        if (std::optional<ScaleEntry> s = tryParseScaleLine(f, true, why)) {
          upsert(table.perChannel, std::move(*s));
          return;
        }
      failAt(fileName, lineNo,
             "expected 'op_name threshold min max', got " +
                 std::to_string(f.size()) + " field" +
                 (f.size() == 1 ? "" : "s") +
                 (why.empty() ? "" : " (as a per-channel line: " + why + ")"));
    }
    case Section::WeightScale: {
      std::string why;
      std::optional<ScaleEntry> s = tryParseScaleLine(f, false, why);
      if (!s)
        failAt(fileName, lineNo,
               "#weight_scale line for '" + std::string(f[0]) + "': " + why);
      upsert(table.weightScales, std::move(*s));
      return;
    }
    case Section::AsymOp:
    case Section::Int4Op:
      if (f.size() != 1)
        failAt(fileName, lineNo,
               std::string("expected one op name a line in the ") +
                   (section == Section::AsymOp ? "#asym_op" : "#int4_op") +
                   " section, got " + std::to_string(f.size()) + " fields");
      upsertName(section == Section::AsymOp ? table.asymOps : table.int4Ops,
                 f[0]);
      return;
    }
  });
  return table;
}

CalibrationTable readCalibrationTable(const std::string &path) {
  return parseCalibrationTable(readWholeFile(path, "calibration table"), path);
}

std::string formatCalibrationTable(const CalibrationTable &table) {
  std::ostringstream out;
  if (table.header.empty()) {
    out << "# calibration table written by tpuc (TPU-MLIR format)\n";
    out << "# op_name    threshold    min    max\n";
  }
  for (const std::string &line : table.header) {
    if (line.empty() || line.front() != '#' || sectionOf(line) ||
        line.find('\n') != std::string::npos)
      throw TableError("calibration table: header line '" + line +
                       "' must be one '#' comment that opens no section");
    out << line << '\n';
  }
  formatEntries(out, table.int8);
  formatScales(out, table.perChannel, /*writeZeroCount=*/true);
  if (!table.int4.empty()) {
    out << "#int4_th\n";
    formatEntries(out, table.int4);
  }
  if (!table.fp8.empty()) {
    out << "#tpu-mlir-fp8\n";
    formatEntries(out, table.fp8);
  }
  if (!table.weightScales.empty()) {
    out << "#weight_scale\n";
    formatScales(out, table.weightScales, /*writeZeroCount=*/false);
  }
  if (!table.asymOps.empty()) {
    out << "#asym_op\n";
    for (const std::string &name : table.asymOps) {
      checkName(name);
      out << name << '\n';
    }
  }
  if (!table.int4Ops.empty()) {
    out << "#int4_op\n";
    for (const std::string &name : table.int4Ops) {
      checkName(name);
      out << name << '\n';
    }
  }
  return out.str();
}

void writeCalibrationTable(const std::string &path,
                           const CalibrationTable &table) {
  writeWholeFile(path, formatCalibrationTable(table), "calibration table");
}

//===----------------------------------------------------------------------===//
// Quantize table
//===----------------------------------------------------------------------===//

namespace {
constexpr QuantMode kAllQuantModes[] = {
    QuantMode::F32,    QuantMode::F16,   QuantMode::BF16,   QuantMode::INT8,
    QuantMode::UINT8,  QuantMode::INT4,  QuantMode::W8F16,  QuantMode::W8BF16,
    QuantMode::W4F16,  QuantMode::W4BF16, QuantMode::F8,    QuantMode::F8E4M3,
    QuantMode::F8E5M2};
} // namespace

std::string_view quantModeName(QuantMode mode) {
  switch (mode) {
  case QuantMode::F32:
    return "F32";
  case QuantMode::F16:
    return "F16";
  case QuantMode::BF16:
    return "BF16";
  case QuantMode::INT8:
    return "INT8";
  case QuantMode::UINT8:
    return "UINT8";
  case QuantMode::INT4:
    return "INT4";
  case QuantMode::W8F16:
    return "W8F16";
  case QuantMode::W8BF16:
    return "W8BF16";
  case QuantMode::W4F16:
    return "W4F16";
  case QuantMode::W4BF16:
    return "W4BF16";
  case QuantMode::F8:
    return "F8";
  case QuantMode::F8E4M3:
    return "F8E4M3";
  case QuantMode::F8E5M2:
    return "F8E5M2";
  }
  return "F32";
}

std::optional<QuantMode> parseQuantMode(std::string_view name) {
  std::string upper(name);
  for (char &c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (QuantMode mode : kAllQuantModes)
    if (quantModeName(mode) == upper)
      return mode;
  return std::nullopt;
}

std::optional<QuantMode> QuantizeTable::find(std::string_view name) const {
  if (const QuantizeEntry *e = findByName(entries, name))
    return e->mode;
  return std::nullopt;
}

void QuantizeTable::set(const std::string &name, QuantMode mode) {
  upsert(entries, QuantizeEntry{name, mode});
}

QuantizeTable parseQuantizeTable(std::string_view text,
                                 const std::string &fileName) {
  QuantizeTable table;
  forEachLine(text, [&](size_t lineNo, std::string_view rawLine) {
    std::string_view line = trim(rawLine);
    if (line.empty() || line.front() == '#')
      return;
    if (size_t hash = line.find('#'); hash != std::string_view::npos)
      line = trim(line.substr(0, hash));
    std::vector<std::string_view> f = splitFields(line);
    if (f.size() != 2)
      failAt(fileName, lineNo,
             "expected 'op_name MODE', got " + std::to_string(f.size()) +
                 " field" + (f.size() == 1 ? "" : "s"));
    std::optional<QuantMode> mode = parseQuantMode(f[1]);
    if (!mode) {
      std::string known;
      for (QuantMode m : kAllQuantModes)
        known += (known.empty() ? "" : ", ") + std::string(quantModeName(m));
      failAt(fileName, lineNo,
             "op '" + std::string(f[0]) + "': unknown mode '" +
                 std::string(f[1]) + "' (known: " + known + ")");
    }
    table.set(std::string(f[0]), *mode);
  });
  return table;
}

QuantizeTable readQuantizeTable(const std::string &path) {
  return parseQuantizeTable(readWholeFile(path, "quantize table"), path);
}

std::string formatQuantizeTable(const QuantizeTable &table) {
  std::ostringstream out;
  out << "# quantize table written by tpuc (TPU-MLIR format)\n";
  out << "# op_name   quantize_mode\n";
  for (const QuantizeEntry &e : table.entries) {
    checkName(e.name);
    out << e.name << ' ' << quantModeName(e.mode) << '\n';
  }
  return out.str();
}

void writeQuantizeTable(const std::string &path, const QuantizeTable &table) {
  writeWholeFile(path, formatQuantizeTable(table), "quantize table");
}

namespace {

/// Renames the entries of one section; a translation onto a name the section has is dropped.
template <typename T>
size_t translateEntries(std::vector<T> &entries, const NameTranslation &translate,
                        std::string &(*nameOf)(T &)) {
  std::set<std::string> present;
  for (T &e : entries)
    present.insert(nameOf(e));
  size_t renamed = 0;
  std::vector<T> kept;
  for (T &e : entries) {
    const std::string *to = translate(nameOf(e));
    if (to && *to != nameOf(e)) {
      if (!present.insert(*to).second)
        continue; // the tensor's own row wins
      nameOf(e) = *to;
      ++renamed;
    }
    kept.push_back(std::move(e));
  }
  entries = std::move(kept);
  return renamed;
}

template <typename T> std::string &nameField(T &entry) { return entry.name; }
std::string &itself(std::string &name) { return name; }

} // namespace

size_t translateNames(CalibrationTable &table, const NameTranslation &translate) {
  return translateEntries(table.int8, translate, nameField<CalibrationEntry>) +
         translateEntries(table.perChannel, translate, nameField<ScaleEntry>) +
         translateEntries(table.int4, translate, nameField<CalibrationEntry>) +
         translateEntries(table.fp8, translate, nameField<CalibrationEntry>) +
         translateEntries(table.weightScales, translate, nameField<ScaleEntry>) +
         translateEntries(table.asymOps, translate, itself) +
         translateEntries(table.int4Ops, translate, itself);
}

size_t translateNames(QuantizeTable &table, const NameTranslation &translate) {
  return translateEntries(table.entries, translate, nameField<QuantizeEntry>);
}

} // namespace tpuc::quant
