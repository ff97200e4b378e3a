//===- TablesFuzzer.cpp - libFuzzer target for calibration/quantize tables -===//
//
// Both readers of TPU-MLIR's table formats: the compiler's (tpuc deploy --calibration_table /
// --quantize_table, compiler/lib/Quant/Tables.cpp) and the project's (the studio's imports,
// project/TableFiles.cpp). Each either rejects in one line naming the file ("file:line: what"), or accepts
// a table that survives its own writer: formatting and parsing it again gives the same names in the same
// order.
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"
#include "project/TableFiles.h"
#include "tpuc/Quant/Tables.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

using namespace tpuc;

namespace {

void compilerTables(std::string_view text) {
  quant::CalibrationTable cali;
  try {
    cali = quant::parseCalibrationTable(text, "fuzz.cali_table");
  } catch (const quant::TableError &e) {
    fuzz::rejectionIsOneLine(e.what(), "fuzz.cali_table");
    cali = {};
  }
  if (!cali.int8.empty() || !cali.perChannel.empty() || !cali.weightScales.empty()) {
    std::string written;
    try {
      written = quant::formatCalibrationTable(cali);
    } catch (const quant::TableError &e) {
      return; // names with whitespace cannot be written: refused in one line, which is the contract
    }
    quant::CalibrationTable again = quant::parseCalibrationTable(written, "again.cali_table");
    if (again.int8.size() != cali.int8.size())
      __builtin_trap();
    for (size_t i = 0; i < cali.int8.size(); ++i)
      if (again.int8[i].name != cali.int8[i].name)
        __builtin_trap();
  }
  try {
    quant::QuantizeTable table = quant::parseQuantizeTable(text, "fuzz.qtable");
    quant::QuantizeTable again = quant::parseQuantizeTable(quant::formatQuantizeTable(table), "again.qtable");
    if (!(again == table))
      __builtin_trap();
  } catch (const quant::TableError &e) {
    fuzz::rejectionIsOneLine(e.what(), "fuzz.qtable");
  }
}

void projectTables(std::string_view text) {
  Result<std::vector<project::CaliEntry>> cali = project::parseCaliTable(text, "fuzz.txt");
  if (!cali) {
    fuzz::rejectionIsOneLine(cali.error(), "fuzz.txt");
  } else {
    project::CaliTable table{1, "fuzz", 1, "", "", *cali};
    Result<std::vector<project::CaliEntry>> again =
        project::parseCaliTable(project::formatCaliTable(table), "again");
    if (!again || again->size() != cali->size())
      __builtin_trap();
  }
  Result<std::vector<project::QuantEntry>> quant = project::parseQuantTable(text, "fuzz.qtable");
  if (!quant) {
    fuzz::rejectionIsOneLine(quant.error(), "fuzz.qtable");
  } else {
    project::QuantTable table{1, "fuzz", 1, "", "", *quant};
    Result<std::vector<project::QuantEntry>> again =
        project::parseQuantTable(project::formatQuantTable(table), "again");
    if (!again || !(*again == *quant))
      __builtin_trap();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  compilerTables(text);
  projectTables(text);
  return 0;
}
