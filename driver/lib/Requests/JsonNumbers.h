//===- JsonNumbers.h - Metrics in JSON records (internal to TpucRequests) ---===//
//
// JSON has no infinities or NaN: the records store them as "inf", "-inf" and null, and read them back.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_LIB_REQUESTS_JSONNUMBERS_H
#define TPUC_DRIVER_LIB_REQUESTS_JSONNUMBERS_H

#include "tpuc/Driver/Results.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

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

/// Per-output comparison rows as the result records and sweep reports store them.
inline nlohmann::json tensorsJson(const std::vector<TensorResult> &tensors) {
  nlohmann::json out = nlohmann::json::array();
  for (const TensorResult &t : tensors)
    out.push_back({{"name", t.name},
                   {"status", t.status},
                   {"pass", t.pass},
                   {"cosine", number(t.cosine)},
                   {"euclidean", number(t.euclidean)},
                   {"sqnr", number(t.sqnr)},
                   {"max_abs_diff", number(t.maxAbsDiff)}});
  return out;
}

/// The rows tensorsJson wrote; throws a json error for anything else.
inline std::vector<TensorResult> tensorsOf(const nlohmann::json &array) {
  std::vector<TensorResult> tensors;
  for (const nlohmann::json &t : array.get_ref<const nlohmann::json::array_t &>())
    tensors.push_back({t.at("name").get<std::string>(), t.at("status").get<std::string>(),
                       t.at("pass").get<bool>(), numberOf(t.at("cosine")), numberOf(t.at("euclidean")),
                       numberOf(t.at("sqnr")), numberOf(t.at("max_abs_diff"))});
  return tensors;
}

} // namespace tpuc::driver::json_numbers

#endif // TPUC_DRIVER_LIB_REQUESTS_JSONNUMBERS_H
