//===- CalibrateCommand.cpp - tpuc calibrate: the adapter of driver::calibrate ===//
//
// The calibration itself is TpucDriver's (tpuc/Driver/Driver.h, the pieces in tpuc/Driver/Calibration.h);
// here its progress goes to --progress, its text to stdout and its notes and one-line errors to stderr,
// and the report becomes the exit code.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tpuc/Driver/Driver.h"

#include <iostream>

namespace tpuc::cli {

int runCalibrate(const CalibrateOptions &o) {
  ProgressReporter progress = makeProgressReporter(o.progress);
  driver::Sink sink = consoleSink(&progress);
  auto report = driver::calibrate(o, sink);
  if (!report) {
    std::cerr << "tpuc calibrate: " << llvm::toString(report.takeError()) << std::endl;
    return kExitFailed;
  }
  for (const std::string &message : report->messages)
    std::cerr << "tpuc calibrate: " << message << std::endl;
  return report->exitCode;
}

} // namespace tpuc::cli
