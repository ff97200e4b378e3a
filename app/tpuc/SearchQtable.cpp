//===- SearchQtable.cpp - calibrate --search search_qtable: the adapter ---===//
//
// The search itself is TpucDriver's (tpuc/Driver/SearchQtable.h); here its progress goes to the calibrate
// job's reporter, its text to stdout and its one-line errors to stderr.
//
//===----------------------------------------------------------------------===//

#include "CalibrateCommand.h"

#include "tpuc/Driver/SearchQtable.h"

#include <iostream>

namespace tpuc::cli {

int runSearchQtable(const CalibrateOptions &o, mlir::ModuleOp top, const quant::CalibrationTable &table,
                    const std::vector<CalibrationSample> &samples, ProgressReporter &progress) {
  std::vector<std::vector<std::string>> files;
  for (const CalibrationSample &sample : samples)
    files.push_back(sample.files);
  driver::Sink sink = consoleSink(&progress);
  auto report = driver::searchQtable(o, top, table, files, sink);
  if (!report) {
    std::cerr << "tpuc calibrate: search_qtable: " << llvm::toString(report.takeError()) << std::endl;
    return kExitFailed;
  }
  for (const std::string &message : report->messages)
    std::cerr << "tpuc calibrate: search_qtable: " << message << std::endl;
  return report->exitCode;
}

} // namespace tpuc::cli
