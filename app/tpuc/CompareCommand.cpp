//===- CompareCommand.cpp - compare (TPU-MLIR's npz_tool compare) ---------===//

#include "Commands.h"

#include "tpuc/Simulator/Compare.h"
#include "tpuc/Support/Npz.h"

#include <fstream>
#include <iostream>

namespace tpuc::cli {

void addCompareOptions(ArgParser &p, CompareOptions &o) {
  p.addPositional({{"target_file"}, "", "tensors to check (.npz)", true},
                  &o.targetFile);
  p.addPositional({{"ref_file"}, "", "reference tensors (.npz)", true},
                  &o.referenceFile);
  p.addOption({{"--tolerance"}, "COS,EUC",
               "minimum cosine and euclidean similarity", false, {},
               "0.99,0.99"},
              &o.tolerance);
  p.addOption({{"--excepts"}, "NAMES",
               "tensors left out of the comparison, comma-separated"},
              &o.excepts);
  p.addOption({{"--format"}, "FMT", "report format", false,
               {"text", "csv", "json"}, "text"},
              &o.format);
  p.addOption({{"-o", "--output"}, "FILE",
               "write the report here instead of stdout"},
              &o.output);
  p.addOption({{"--save"}, "FILE",
               "also write a CSV report here (npz_tool's --save)"},
              &o.save);
  p.addFlag({{"-v", "--verbose"}, "",
             "text report: shapes, dtypes, close order and notes per tensor"},
            &o.verbose);
  p.addFlag({{"--raw_u16"}, "",
             "compare uint16 arrays as integers (default: decode as bf16, "
             "like npz_tool)"},
            &o.rawU16);
}

std::string validateCompareOptions(const CompareOptions &o) {
  return checkTolerance("--tolerance", o.tolerance);
}

int runCompare(const CompareOptions &o) {
  NpzFile target, reference;
  std::string error;
  if (!NpzFile::tryRead(o.targetFile, target, error) ||
      !NpzFile::tryRead(o.referenceFile, reference, error)) {
    std::cerr << "tpuc compare: " << error << std::endl;
    return kExitUsage;
  }
  CompareTolerance tolerance = *CompareTolerance::parse(o.tolerance);
  tolerance.u16AsBF16 = !o.rawU16;
  NpzComparison comparison =
      compareNpz(target, reference, tolerance, o.excepts);
  comparison.targetName = o.targetFile;
  comparison.referenceName = o.referenceFile;

  std::string report = o.format == "json"  ? formatCompareJson(comparison)
                       : o.format == "csv" ? formatCompareCsv(comparison)
                                           : formatCompareText(comparison,
                                                               o.verbose);
  bool passed = comparison.allPassed();
  auto writeFile = [](const std::string &path, const std::string &text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if ((out << text) && out.flush())
      return true;
    std::cerr << "tpuc compare: " << path << ": cannot write" << std::endl;
    return false;
  };
  if (!o.save.empty() && !writeFile(o.save, formatCompareCsv(comparison)))
    return kExitUsage;
  if (o.output.empty()) {
    std::cout << report << std::flush;
  } else {
    if (!writeFile(o.output, report))
      return kExitUsage;
    std::cout << (passed ? "npz compare PASSED." : "npz compare FAILED.")
              << " (report: " << o.output << ")" << std::endl;
  }
  return passed ? kExitOk : kExitFailed;
}

} // namespace tpuc::cli
