//===- SearchRecord.cpp - tpuc.search_qtable JSON --------------------------===//

#include "tpuc/Driver/SearchRecord.h"

#include "tpuc/Backend/ChipProfile.h"

#include "JsonNumbers.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace tpuc::driver {
namespace {
using json_numbers::number;
using json_numbers::numberOf;
using nlohmann::ordered_json;
} // namespace

std::string toJson(const SearchQtableRecord &r) {
  ordered_json j;
  j["schema"] = kSearchQtableSchema;
  j["version"] = kSearchQtableVersion;
  j["mlir"] = r.mlir;
  j["chip"] = r.chip;
  j["calibration_table"] = r.calibrationTable;
  j["quantize_table"] = r.quantizeTable;
  j["float_mode"] = r.floatMode;
  j["expected_cos"] = number(r.expectedCos);
  j["max_float_layers"] = r.maxFloatLayers;
  j["samples"] = r.samples;
  j["scored"] = r.scored;
  ordered_json ranked = ordered_json::array();
  for (const SearchRankedOp &op : r.ranked)
    ranked.push_back({{"name", op.name}, {"isolated_error", number(op.isolatedError)}});
  j["ranked"] = std::move(ranked);
  ordered_json steps = ordered_json::array();
  for (const SearchStep &s : r.steps)
    steps.push_back({{"step", s.step},
                     {"op", s.op.empty() ? ordered_json(nullptr) : ordered_json(s.op)},
                     {"cosine", number(s.cosine)},
                     {"cycles", s.cycles},
                     {"latency_ms", number(s.latencyMs)}});
  j["steps"] = std::move(steps);
  j["reached"] = r.reached;
  // Names come from models: bytes that are not UTF-8 are replaced so that the record always parses.
  return j.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

ReadResult<SearchQtableRecord> parseSearchQtable(const std::string &text) {
  ReadResult<SearchQtableRecord> out;
  SearchQtableRecord &r = out.result;
  try {
    ordered_json j = ordered_json::parse(text);
    if (!j.is_object() || j.value("schema", std::string()) != kSearchQtableSchema)
      throw std::runtime_error(std::string("not a ") + kSearchQtableSchema + " record (schema is not \"" +
                               kSearchQtableSchema + "\")");
    int version = j.at("version").get<int>();
    if (version < 1 || version > kSearchQtableVersion)
      throw std::runtime_error(std::string(kSearchQtableSchema) + " version " + std::to_string(version) +
                               " is not supported (this build reads " + std::to_string(kSearchQtableVersion) +
                               ")");
    r.mlir = j.at("mlir").get<std::string>();
    r.chip = j.at("chip").get<std::string>();
    r.calibrationTable = j.at("calibration_table").get<std::string>();
    r.quantizeTable = j.at("quantize_table").get<std::string>();
    r.floatMode = j.at("float_mode").get<std::string>();
    r.expectedCos = numberOf(j.at("expected_cos"));
    r.maxFloatLayers = j.at("max_float_layers").get<int64_t>();
    r.samples = j.at("samples").get<int64_t>();
    r.scored = j.at("scored").get<std::vector<std::string>>();
    for (const ordered_json &op : j.at("ranked"))
      r.ranked.push_back({op.at("name").get<std::string>(), numberOf(op.at("isolated_error"))});
    for (const ordered_json &s : j.at("steps")) {
      SearchStep step;
      step.step = s.at("step").get<int64_t>();
      if (step.step != static_cast<int64_t>(r.steps.size()))
        throw std::runtime_error("steps[" + std::to_string(r.steps.size()) + "]: step " +
                                 std::to_string(step.step) + " out of order");
      if (!s.at("op").is_null())
        step.op = s.at("op").get<std::string>();
      if ((step.step == 0) != step.op.empty())
        throw std::runtime_error("steps[" + std::to_string(step.step) +
                                 "]: " + (step.step == 0 ? "the INT8 step names an op" : "no op"));
      step.cosine = numberOf(s.at("cosine"));
      step.cycles = s.at("cycles").get<int64_t>();
      step.latencyMs = numberOf(s.at("latency_ms"));
      r.steps.push_back(std::move(step));
    }
    if (r.steps.empty())
      throw std::runtime_error("no steps (the INT8 step 0 is always recorded)");
    r.reached = j.at("reached").get<bool>();
  } catch (const std::exception &e) {
    out.error = e.what();
  }
  return out;
}

std::string chipFloatMode(const std::string &chip) {
  try {
    return backend::findChipProfile(chip).macsPerLanePerCycle.count(backend::Precision::F16) ? "F16" : "BF16";
  } catch (const std::exception &) {
    return "BF16";
  }
}

} // namespace tpuc::driver
