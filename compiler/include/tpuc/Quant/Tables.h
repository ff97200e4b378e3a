//===- Tables.h - TPU-MLIR calibration and quantize tables ----------------===//
//
// Readers and writers for the two text files users carry between TPU-MLIR
// and tpuc: the calibration table (`op_name threshold min max`, with the
// optional `#int4_th`, `#tpu-mlir-fp8`, `#weight_scale`, `#asym_op` and
// `#int4_op` sections TPU-MLIR's importer knows) and the quantize table
// (`op_name MODE`). Bad input throws TableError naming file:line.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_QUANT_TABLES_H
#define TPUC_QUANT_TABLES_H

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tpuc::quant {

/// A table could not be read or written; what() is one line starting with
/// "file:line: " when a line is at fault.
class TableError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

//===----------------------------------------------------------------------===//
// Calibration table
//===----------------------------------------------------------------------===//

/// One `op_name threshold min max` line.
struct CalibrationEntry {
  std::string name;
  double threshold = 0;
  double min = 0;
  double max = 0;
  friend bool operator==(const CalibrationEntry &,
                         const CalibrationEntry &) = default;
};

/// A per-channel line `name N s_1 .. s_N [M z_1 .. z_M]`: weight scales of
/// the `#weight_scale` section (zero points optional), or per-channel
/// activation parameters that MQBench exports put in the main section (zero
/// points required there, so that `name threshold min max` stays unambiguous).
struct ScaleEntry {
  std::string name;
  std::vector<double> scales;
  std::vector<int64_t> zeroPoints; ///< Empty when the line has none.
  friend bool operator==(const ScaleEntry &, const ScaleEntry &) = default;
};

/// The contents of a calibration table, section by section, in file order.
/// A name appearing twice in one section keeps its first position and its
/// last values (TPU-MLIR's map semantics).
struct CalibrationTable {
  /// Comment lines before the first entry, verbatim (with their '#'), e.g.
  /// "# genetated time: 2024-01-01 ..." (sic, TPU-MLIR's spelling).
  std::vector<std::string> header;
  std::vector<CalibrationEntry> int8;     ///< The main section.
  std::vector<ScaleEntry> perChannel;     ///< Per-channel lines of the main section.
  std::vector<CalibrationEntry> int4;     ///< `#int4_th`.
  std::vector<CalibrationEntry> fp8;      ///< `#tpu-mlir-fp8` / `#mqbench-fp8`.
  std::vector<ScaleEntry> weightScales;   ///< `#weight_scale`.
  std::vector<std::string> asymOps;       ///< `#asym_op`: one op name a line.
  std::vector<std::string> int4Ops;       ///< `#int4_op`: one op name a line.

  /// The main-section entry for `name`, or null.
  const CalibrationEntry *find(std::string_view name) const;
  /// The `#int4_th` entry for `name`, or null.
  const CalibrationEntry *findInt4(std::string_view name) const;
  /// The `#tpu-mlir-fp8` entry for `name`, or null.
  const CalibrationEntry *findFp8(std::string_view name) const;
  /// Adds or replaces a main-section entry.
  void set(const CalibrationEntry &entry);

  friend bool operator==(const CalibrationTable &,
                         const CalibrationTable &) = default;
};

/// Parses calibration-table text. `fileName` prefixes error messages.
/// Rules (TPU-MLIR's importer, made strict): blank lines are skipped, CR LF
/// accepted; a line starting with '#' either opens a section (it contains
/// "#weight_scale", "#int4_th", "#tpu-mlir-fp8", "mqbench-fp8", "asym_op"
/// or "int4_op") or is a comment that returns to the main section; entry
/// lines have exactly four whitespace-separated fields with finite numbers
/// and a threshold >= 0, or the per-channel form above. Anything else
/// throws TableError("file:line: ...").
CalibrationTable parseCalibrationTable(std::string_view text,
                                       const std::string &fileName);
/// Reads and parses a file; throws TableError.
CalibrationTable readCalibrationTable(const std::string &path);
/// Formats a table as TPU-MLIR writes it: the header (or a default one),
/// the main section `name threshold min max` with 7 decimals (values below
/// 1e-3 in magnitude in %.9e form, which TPU-MLIR's number pattern also
/// accepts), then each non-empty section under its marker line. Throws
/// TableError on a non-finite value or a name containing whitespace.
std::string formatCalibrationTable(const CalibrationTable &table);
/// Writes formatCalibrationTable() to `path`; throws TableError.
void writeCalibrationTable(const std::string &path,
                           const CalibrationTable &table);

//===----------------------------------------------------------------------===//
// Quantize table
//===----------------------------------------------------------------------===//

/// Per-op precisions of TPU-MLIR's quantize table (module::Mode names).
enum class QuantMode : uint8_t {
  F32,
  F16,
  BF16,
  INT8,
  UINT8,
  INT4,
  W8F16,
  W8BF16,
  W4F16,
  W4BF16,
  F8,
  F8E4M3,
  F8E5M2,
};

/// The upper-case name ("F32", "W4BF16", ...).
std::string_view quantModeName(QuantMode mode);
/// Case-insensitive inverse of quantModeName; nullopt for unknown names.
std::optional<QuantMode> parseQuantMode(std::string_view name);

/// One `op_name MODE` line.
struct QuantizeEntry {
  std::string name;
  QuantMode mode = QuantMode::F32;
  friend bool operator==(const QuantizeEntry &, const QuantizeEntry &) = default;
};

/// A quantize table in file order (a repeated name keeps its first position
/// and its last mode).
struct QuantizeTable {
  std::vector<QuantizeEntry> entries;
  /// The mode of `name`, if listed.
  std::optional<QuantMode> find(std::string_view name) const;
  /// Adds or replaces an entry.
  void set(const std::string &name, QuantMode mode);
  friend bool operator==(const QuantizeTable &, const QuantizeTable &) = default;
};

/// Parses quantize-table text: blank lines and lines starting with '#' are
/// skipped, a '#' after the mode starts a trailing comment, every other line
/// is `op_name MODE` with a known mode (any case). Throws
/// TableError("file:line: ...") otherwise.
QuantizeTable parseQuantizeTable(std::string_view text,
                                 const std::string &fileName);
/// Reads and parses a file; throws TableError.
QuantizeTable readQuantizeTable(const std::string &path);
/// Formats a table: a comment header, then `name MODE` lines.
std::string formatQuantizeTable(const QuantizeTable &table);
/// Writes formatQuantizeTable() to `path`; throws TableError.
void writeQuantizeTable(const std::string &path, const QuantizeTable &table);

//===----------------------------------------------------------------------===//
// Names of another spelling
//===----------------------------------------------------------------------===//

/// The tensor name a row name of another spelling stands for (an ONNX node name of a table written when
/// ops were named after nodes, an alias), or null when the name needs no translation.
using NameTranslation = std::function<const std::string *(std::string_view name)>;
/// Renames every row (each section, the op lists) whose name `translate` maps. A renamed row never
/// replaces a row already named so: the table's own row for a tensor wins. Returns the rows renamed.
size_t translateNames(CalibrationTable &table, const NameTranslation &translate);
size_t translateNames(QuantizeTable &table, const NameTranslation &translate);

} // namespace tpuc::quant

#endif // TPUC_QUANT_TABLES_H
