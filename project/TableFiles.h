// TPU-MLIR's text formats of calibration tables (`op_name threshold min max`) and quantize tables
// (`op_name MODE`): parsing with line-numbered errors, and writing.
#ifndef TPUC_APP_PROJECT_TABLEFILES_H
#define TPUC_APP_PROJECT_TABLEFILES_H

#include "project/Project.h"
#include "tpuc/Support/Result.h"

#include <string>
#include <string_view>

namespace tpuc::project {

/// Parses a calibration table. `#` lines are comments; the table ends at TPU-MLIR's `#int4_th` or
/// `#weight_scale` sections, which this format does not carry. Errors read "<name>:<line>: <what>".
Result<std::vector<CaliEntry>> parseCaliTable(std::string_view text, const std::string &name);
/// Parses a quantize table (`op_name MODE`, `#` comments); modes are upper-cased.
Result<std::vector<QuantEntry>> parseQuantTable(std::string_view text, const std::string &name);

/// The table in TPU-MLIR's format, with a comment header naming it.
std::string formatCaliTable(const CaliTable &table);
std::string formatQuantTable(const QuantTable &table);

} // namespace tpuc::project

#endif
