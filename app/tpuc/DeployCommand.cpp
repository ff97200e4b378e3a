//===- DeployCommand.cpp - tpuc deploy: the adapter of driver::deploy -----===//
//
// The deploy itself is TpucDriver's (tpuc/Driver/Driver.h); here its progress goes to --progress, its text
// to stdout and its one-line errors to stderr, and the report becomes the exit code.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tpuc/Driver/Driver.h"

#include <iostream>

namespace tpuc::cli {

int runDeploy(const DeployOptions &o) {
  ProgressReporter progress = makeProgressReporter(o.progress);
  driver::Sink sink = consoleSink(&progress);
  auto report = driver::deploy(o, sink);
  if (!report) {
    std::cerr << "tpuc deploy: " << llvm::toString(report.takeError()) << std::endl;
    return kExitFailed;
  }
  for (const std::string &message : report->messages)
    std::cerr << "tpuc deploy: " << message << std::endl;
  return report->exitCode;
}

} // namespace tpuc::cli
