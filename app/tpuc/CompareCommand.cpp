//===- CompareCommand.cpp - compare (TPU-MLIR's npz_tool compare) ---------===//
//
// Two .npz files as npz_tool compares them; or two folders of them (not in npz_tool): every pair of files of
// the same name, with per-tensor statistics over the pairs (driver::compareFolders, docs/ACCURACY.md).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "tpuc/Driver/Accuracy.h"
#include "tpuc/Driver/Calibration.h"
#include "tpuc/Driver/DeployStages.h"

#include "tpuc/Simulator/Compare.h"
#include "tpuc/Support/Npz.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

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

/// One CSV row per tensor: its statistics over the pairs.
std::string formatStatsCsv(const driver::CompareSamplesRecord &r) {
  std::ostringstream out;
  out << "name,samples,mean_cosine,min_cosine,p5_cosine,mean_euclidean,min_euclidean,p5_euclidean,failing_"
         "samples,"
         "worst_sample\n";
  for (const driver::LayerStats &l : r.layers) {
    const driver::MetricStats &s = l.accumulated;
    out << l.name << "," << s.samples << "," << formatMetric(s.meanCosine) << "," << formatMetric(s.minCosine)
        << "," << formatMetric(s.p5Cosine) << "," << formatMetric(s.meanEuclidean) << ","
        << formatMetric(s.minEuclidean) << "," << formatMetric(s.p5Euclidean) << "," << s.failingSamples
        << "," << s.worstSampleName << "\n";
  }
  return out.str();
}

int compareFolders(const CompareOptions &o, CompareResult &record) {
  if (!o.save.empty()) {
    std::cerr << "tpuc compare: '--save' writes the CSV of one comparison: with folders use --format csv"
              << std::endl;
    return kExitUsage;
  }
  CompareTolerance tolerance = *CompareTolerance::parse(o.tolerance);
  tolerance.u16AsBF16 = !o.rawU16;
  auto compared = driver::compareFolders(o.targetFile, o.referenceFile, tolerance, o.excepts);
  if (!compared) {
    record.message = llvm::toString(compared.takeError());
    std::cerr << "tpuc compare: " << record.message << std::endl;
    return kExitUsage;
  }
  const driver::CompareSamplesRecord &samples = compared->record;
  record.tensors = tensorResults(compared->worst);
  std::string report = o.format == "json"  ? driver::toJson(samples)
                       : o.format == "csv" ? formatStatsCsv(samples)
                                           : driver::formatCompareSamples(samples);
  bool passed = samples.failingSamples == 0;
  if (o.output.empty()) {
    std::cout << report << std::flush;
  } else {
    std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
    if (!(out << report) || !out.flush()) {
      std::cerr << "tpuc compare: " << o.output << ": cannot write" << std::endl;
      return kExitUsage;
    }
    std::cout << samples.samples.size() << " pair(s), " << samples.failingSamples
              << " failing. (report: " << o.output << ")" << std::endl;
  }
  if (!passed)
    record.message = std::to_string(samples.failingSamples) + " of " +
                     std::to_string(samples.samples.size()) + " pairs differ beyond --tolerance " +
                     o.tolerance;
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
  std::error_code ec;
  bool targetFolder = std::filesystem::is_directory(o.targetFile, ec),
       referenceFolder = std::filesystem::is_directory(o.referenceFile, ec);
  if (targetFolder != referenceFolder) {
    record.message = "'" + (targetFolder ? o.targetFile : o.referenceFile) +
                     "' is a folder: compare two .npz files or two folders of them";
    std::cerr << "tpuc compare: " << record.message << std::endl;
    record.exitCode = kExitUsage;
  } else {
    record.exitCode = targetFolder ? compareFolders(o, record) : compareFiles(o, record);
  }
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
