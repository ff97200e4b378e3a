//===- JsonNumbers.h - Metrics in JSON records (internal to TpucRequests) ---===//
//
// JSON has no infinities or NaN: the records store them as "inf", "-inf" and null, and read them back.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_LIB_REQUESTS_JSONNUMBERS_H
#define TPUC_DRIVER_LIB_REQUESTS_JSONNUMBERS_H

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <string>

namespace tpuc::driver::json_numbers {

/// A metric as JSON: the number, "inf", "-inf" or null (NaN).
inline nlohmann::json number(double v) {
  if (std::isnan(v))
    return nullptr;
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return v;
}

/// The metric number() wrote; throws a json type error for anything else.
inline double numberOf(const nlohmann::json &v) {
  if (v.is_number())
    return v.get<double>();
  if (v.is_string() && v.get<std::string>() == "inf")
    return std::numeric_limits<double>::infinity();
  if (v.is_string() && v.get<std::string>() == "-inf")
    return -std::numeric_limits<double>::infinity();
  if (v.is_null())
    return std::numeric_limits<double>::quiet_NaN();
  throw nlohmann::json::type_error::create(302, "a metric must be a number, \"inf\", \"-inf\" or null", &v);
}

} // namespace tpuc::driver::json_numbers

#endif // TPUC_DRIVER_LIB_REQUESTS_JSONNUMBERS_H
