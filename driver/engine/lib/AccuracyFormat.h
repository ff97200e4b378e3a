//===- AccuracyFormat.h - Numbers in the accuracy reports (internal) -------===//
#ifndef TPUC_DRIVER_ENGINE_LIB_ACCURACYFORMAT_H
#define TPUC_DRIVER_ENGINE_LIB_ACCURACYFORMAT_H

#include "tpuc/Simulator/Compare.h"

#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>

namespace tpuc::driver::accuracy_format {

/// A metric with `digits` decimals; "inf", "-inf", "nan" as compare prints them.
inline std::string fixed(double value, int digits = 6) {
  if (!std::isfinite(value))
    return formatMetric(value);
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << value;
  return out.str();
}

/// A change of a metric, with its sign ("+0.012000").
inline std::string signedFixed(double value, int digits = 6) {
  return (std::isfinite(value) && value >= 0 ? "+" : "") + fixed(value, digits);
}

} // namespace tpuc::driver::accuracy_format

#endif // TPUC_DRIVER_ENGINE_LIB_ACCURACYFORMAT_H
