//===- CommandSupport.cpp - Helpers shared by the tpuc subcommands --------===//

#include "Commands.h"

#include "tpuc/Simulator/Compare.h"

#include <fstream>
#include <iostream>

namespace tpuc::cli {

int notImplemented(std::string_view subcommand) {
  std::cerr << "tpuc " << subcommand << ": not implemented yet in this build"
            << std::endl;
  return kExitNotImplemented;
}

driver::Sink consoleSink(ProgressReporter *progress) {
  driver::Sink sink;
  if (progress)
    sink.progress = [progress](const driver::ProgressEvent &e) {
      progress->report(e.stage, e.fraction, e.message, e.artifacts);
    };
  sink.print = [](std::string_view text, bool flush) {
    std::cout << text;
    if (flush)
      std::cout.flush();
  };
  return sink;
}

int writeResultRecord(std::string_view command, const std::string &path, const std::string &json,
                      int exitCode) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if ((out << json) && out.flush())
    return exitCode;
  std::cerr << "tpuc " << command << ": " << path << ": cannot write the result record" << std::endl;
  return exitCode == kExitOk ? kExitUsage : exitCode;
}

ProgressReporter makeProgressReporter(const std::string &format) {
  auto parsed = ProgressReporter::parseFormat(format);
  return ProgressReporter(parsed.value_or(ProgressReporter::Format::None),
                          std::cout, std::cerr);
}

} // namespace tpuc::cli
