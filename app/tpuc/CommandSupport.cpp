//===- CommandSupport.cpp - Helpers shared by the tpuc subcommands --------===//

#include "Commands.h"

#include "tpuc/Simulator/Compare.h"

#include <iostream>

namespace tpuc::cli {

int notImplemented(std::string_view subcommand) {
  std::cerr << "tpuc " << subcommand << ": not implemented yet in this build"
            << std::endl;
  return kExitNotImplemented;
}

ProgressReporter makeProgressReporter(const std::string &format) {
  auto parsed = ProgressReporter::parseFormat(format);
  return ProgressReporter(parsed.value_or(ProgressReporter::Format::None),
                          std::cout, std::cerr);
}

std::string checkTolerance(const std::string &flag, const std::string &value) {
  if (CompareTolerance::parse(value))
    return "";
  return "'" + flag + "' expects two numbers 'cos,euc' (e.g. 0.99,0.90), got '" +
         value + "'";
}

} // namespace tpuc::cli
