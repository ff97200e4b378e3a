//===- Requests.cpp - What every request shares: tolerances, flag names ----===//

#include "tpuc/Driver/Requests.h"
#include "tpuc/Driver/Sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

namespace tpuc::driver {
namespace {

/// Every flag a binding of `Request` declares.
template <typename Request> void addFlagNames(std::set<std::string> &names) {
  Request fields;
  ArgParser parser("", "");
  bindOptions(parser, fields);
  for (std::string &name : parser.flagNames())
    names.insert(std::move(name));
}

} // namespace

std::string checkTolerance(const std::string &flag, const std::string &value) {
  std::vector<std::string> items = splitList(value);
  bool ok = items.size() == 2;
  for (size_t i = 0; ok && i < items.size(); ++i) {
    char *end = nullptr;
    double number = std::strtod(items[i].c_str(), &end);
    ok = end == items[i].c_str() + items[i].size() && std::isfinite(number);
  }
  if (ok)
    return "";
  return "'" + flag + "' expects two numbers 'cos,euc' (e.g. 0.99,0.90), got '" + value + "'";
}

std::vector<std::string> allFlagNames() {
  std::set<std::string> names;
  addFlagNames<TransformOptions>(names);
  addFlagNames<CalibrateOptions>(names);
  addFlagNames<DeployOptions>(names);
  addFlagNames<RunOptions>(names);
  addFlagNames<CompareOptions>(names);
  addFlagNames<LlmConvertOptions>(names);
  addFlagNames<LlmRunOptions>(names);
  addFlagNames<ModelToolOptions>(names);
  addFlagNames<GraphOptions>(names);
  addFlagNames<DatasetOptions>(names);
  addFlagNames<RunsOptions>(names);
  addFlagNames<SweepOptions>(names);
  return {names.begin(), names.end()};
}

} // namespace tpuc::driver
