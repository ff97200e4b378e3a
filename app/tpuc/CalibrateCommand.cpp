//===- CalibrateCommand.cpp - tpuc calibrate: the adapter of driver::calibrate ===//
//
// The calibration itself is TpucDriver's (tpuc/Driver/Driver.h, the pieces in tpuc/Driver/Calibration.h);
// here its progress goes to --progress, its text to stdout and its notes and one-line errors to stderr,
// and the report becomes the exit code.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tpuc/Driver/Driver.h"
#include "tpuc/Driver/Results.h"

#include <iostream>

namespace tpuc::cli {

int runCalibrate(const CalibrateOptions &o) {
  ProgressReporter progress = makeProgressReporter(o.progress);
  driver::Sink sink = consoleSink(&progress);
  auto report = driver::calibrate(o, sink);
  if (!report) { // cancelled: nothing was written
    std::cerr << "tpuc calibrate: " << llvm::toString(report.takeError()) << std::endl;
    return kExitFailed;
  }
  for (const std::string &message : report->messages)
    std::cerr << "tpuc calibrate: " << message << std::endl;
  // The record the studio reads (calibrateResultPath), beside the table, whatever the outcome.
  driver::CalibrateResult record;
  record.exitCode = report->exitCode;
  record.status = driver::resultStatus(report->exitCode);
  if (report->exitCode != kExitOk && !report->messages.empty())
    record.message = report->messages.back();
  record.mlir = o.mlirFile;
  record.table = o.calibrationTable;
  record.artifacts = report->artifacts;
  record.samples = static_cast<int64_t>(report->numSamples);
  record.tensors = static_cast<int64_t>(report->numTensors);
  record.summary = report->summary;
  record.seconds = report->seconds;
  record.stableAfter = static_cast<int64_t>(report->stableAfter);
  record.enoughData = report->enoughData;
  return writeResultRecord("calibrate", driver::calibrateResultPath(o), driver::toJson(record),
                           record.exitCode);
}

} // namespace tpuc::cli
