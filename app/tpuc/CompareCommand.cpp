//===- CompareCommand.cpp - compare (TPU-MLIR's npz_tool compare) ---------===//

#include "Commands.h"
#include "tpuc/Driver/DeployStages.h"

#include "tpuc/Simulator/Compare.h"
#include "tpuc/Support/Npz.h"

#include <fstream>
#include <iostream>

namespace tpuc::cli {

namespace {

int compareFiles(const CompareOptions &o, CompareResult &record) {
  auto unreadable = [&](const std::string &error) {
    std::cerr << "tpuc compare: " << error << std::endl;
    record.message = error;
    return kExitUsage;
  };
  Result<NpzFile> target = NpzFile::tryRead(o.targetFile);
  if (!target)
    return unreadable(target.error());
  Result<NpzFile> reference = NpzFile::tryRead(o.referenceFile);
  if (!reference)
    return unreadable(reference.error());
  CompareTolerance tolerance = *CompareTolerance::parse(o.tolerance);
  tolerance.u16AsBF16 = !o.rawU16;
  NpzComparison comparison = compareNpz(*target, *reference, tolerance, o.excepts);
  comparison.targetName = o.targetFile;
  comparison.referenceName = o.referenceFile;
  record.tensors = tensorResults(comparison);

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

} // namespace

int runCompare(const CompareOptions &o) {
  CompareResult record;
  record.target = o.targetFile;
  record.reference = o.referenceFile;
  if (auto tolerance = CompareTolerance::parse(o.tolerance)) {
    record.toleranceCosine = tolerance->cosine;
    record.toleranceEuclidean = tolerance->euclidean;
  }
  record.exitCode = compareFiles(o, record);
  record.status = resultStatus(record.exitCode);
  if (!o.resultJson.empty()) {
    std::ofstream out(o.resultJson, std::ios::binary | std::ios::trunc);
    if (!(out << toJson(record)) || !out.flush()) {
      std::cerr << "tpuc compare: " << o.resultJson << ": cannot write" << std::endl;
      return kExitUsage;
    }
  }
  return record.exitCode;
}

} // namespace tpuc::cli
