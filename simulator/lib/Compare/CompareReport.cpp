//===- CompareReport.cpp - npz-level comparison and its text/CSV/JSON form ===//

#include "tpuc/Simulator/Compare.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace tpuc {

int64_t NpzComparison::count(CompareStatus status) const {
  return std::count_if(results.begin(), results.end(),
                       [&](const auto &r) { return r.status == status; });
}

int64_t NpzComparison::passedCount() const {
  return std::count_if(results.begin(), results.end(),
                       [](const auto &r) { return r.passed(); });
}

int64_t NpzComparison::failedCount() const {
  return static_cast<int64_t>(results.size()) - passedCount();
}

bool NpzComparison::allPassed() const {
  return !results.empty() && failedCount() == 0;
}

CompareMetrics NpzComparison::minSimilarity() const {
  CompareMetrics min;
  for (const TensorComparison &r : results) {
    if (r.status != CompareStatus::Similar &&
        r.status != CompareStatus::NotSimilar)
      continue;
    min.cosine = std::min(min.cosine, r.metrics.cosine);
    min.euclidean = std::min(min.euclidean, r.metrics.euclidean);
    min.sqnr = std::min(min.sqnr, r.metrics.sqnr);
  }
  return min;
}

NpzComparison compareNpz(const NpzFile &target, const NpzFile &reference,
                         const CompareTolerance &tolerance,
                         const std::vector<std::string> &excepts) {
  NpzComparison out;
  out.tolerance = tolerance;
  std::set<std::string, std::less<>> skip(excepts.begin(), excepts.end());
  for (const std::string &name : target.names()) {
    if (skip.count(name)) {
      out.excepted.push_back(name);
      continue;
    }
    if (!reference.has(name)) {
      out.onlyInTarget.push_back(name);
      continue;
    }
    out.results.push_back(compareTensors(target.get(name), reference.get(name),
                                         tolerance, name));
  }
  for (const std::string &name : reference.names())
    if (!target.has(name) && !skip.count(name))
      out.onlyInReference.push_back(name);
  return out;
}

std::string formatMetric(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6f", value);
  return buf;
}

namespace {

std::string padRight(std::string text, size_t width) {
  if (text.size() < width)
    text.append(width - text.size(), ' ');
  return text;
}

std::string padLeft(const std::string &text, size_t width) {
  return text.size() < width ? std::string(width - text.size(), ' ') + text
                             : text;
}

std::string joinNames(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &name : names)
    out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::string csvField(const std::string &text) {
  if (text.find_first_of(",\"\n") == std::string::npos)
    return text;
  std::string out = "\"";
  for (char c : text)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

nlohmann::ordered_json jsonNumber(double value) {
  if (std::isfinite(value))
    return value;
  return formatMetric(value);
}

} // namespace

std::string formatCompareText(const NpzComparison &c, bool verbose) {
  size_t nameWidth = 32;
  for (const TensorComparison &r : c.results)
    nameWidth = std::max(nameWidth, std::min<size_t>(r.name.size(), 64));
  std::string out;
  if (!c.targetName.empty())
    out += "Target    " + c.targetName + "\n";
  if (!c.referenceName.empty())
    out += "Reference " + c.referenceName + "\n";
  char tolerance[96];
  std::snprintf(tolerance, sizeof(tolerance), "Tolerance cos %g, euc %g\n\n",
                c.tolerance.cosine, c.tolerance.euclidean);
  out += tolerance;
  out += padRight("name", nameWidth) + "  " + padRight("status", 11) + "  " +
         padRight("result", 6) + padLeft("cosine", 11) + padLeft("euclid", 11) +
         padLeft("sqnr", 11) + padLeft("max_abs_diff", 14) + "\n";
  for (const TensorComparison &r : c.results) {
    const CompareMetrics &m = r.metrics;
    bool counted = r.status != CompareStatus::Mismatch;
    out += padRight(r.name, nameWidth) + "  " +
           padRight(std::string(compareStatusName(r.status)), 11) + "  " +
           padRight(r.passed() ? "PASSED" : "FAILED", 6) +
           padLeft(counted ? formatMetric(m.cosine) : "-", 11) +
           padLeft(counted ? formatMetric(m.euclidean) : "-", 11) +
           padLeft(counted ? formatMetric(m.sqnr) : "-", 11) +
           padLeft(counted ? formatMetric(m.maxAbsDiff) : "-", 14) + "\n";
    if (verbose) {
      out += "    " + shapeToString(r.targetShape) + " " +
             std::string(dtypeName(r.targetType)) + " vs " +
             shapeToString(r.referenceShape) + " " +
             std::string(dtypeName(r.referenceType));
      if (counted) {
        out += ", close order " + std::to_string(m.closeOrder) +
               ", mean |diff| " + formatMetric(m.meanAbsDiff);
        if (m.maxDiffIndex >= 0)
          out += ", max |diff| at " + std::to_string(m.maxDiffIndex);
        if (m.targetNonFinite || m.referenceNonFinite)
          out += ", NaN/Inf " + std::to_string(m.targetNonFinite) + " vs " +
                 std::to_string(m.referenceNonFinite);
      }
      out += "\n";
    }
    if (!r.note.empty())
      out += "    note: " + r.note + "\n";
  }
  CompareMetrics min = c.minSimilarity();
  out += "\n" + std::to_string(c.results.size()) + " compared\n";
  out += std::to_string(c.passedCount()) + " passed\n";
  out += "  " + std::to_string(c.count(CompareStatus::Equal)) + " equal, " +
         std::to_string(c.count(CompareStatus::Close)) + " close, " +
         std::to_string(c.count(CompareStatus::Similar)) + " similar\n";
  out += std::to_string(c.failedCount()) + " failed\n";
  out += "  " + std::to_string(c.count(CompareStatus::NotSimilar)) +
         " not similar, " + std::to_string(c.count(CompareStatus::Mismatch)) +
         " mismatched\n";
  out += "min_similarity = (cos " + formatMetric(min.cosine) + ", euc " +
         formatMetric(min.euclidean) + ", sqnr " + formatMetric(min.sqnr) +
         ")\n";
  if (!c.onlyInTarget.empty())
    out += "only in target (" + std::to_string(c.onlyInTarget.size()) +
           "): " + joinNames(c.onlyInTarget) + "\n";
  if (!c.onlyInReference.empty())
    out += "only in reference (" + std::to_string(c.onlyInReference.size()) +
           "): " + joinNames(c.onlyInReference) + "\n";
  if (!c.excepted.empty())
    out += "excepted (" + std::to_string(c.excepted.size()) +
           "): " + joinNames(c.excepted) + "\n";
  if (c.results.empty())
    out += "no tensor names in common\n";
  out += c.allPassed() ? "npz compare PASSED.\n" : "npz compare FAILED.\n";
  return out;
}

std::string formatCompareCsv(const NpzComparison &c) {
  std::string out = "name,status,pass,cosine,euclidean,sqnr,max_abs_diff,"
                    "mean_abs_diff,close_order,target_shape,reference_shape,"
                    "target_dtype,reference_dtype,note\n";
  for (const TensorComparison &r : c.results) {
    const CompareMetrics &m = r.metrics;
    bool counted = r.status != CompareStatus::Mismatch;
    auto metric = [&](double v) { return counted ? formatMetric(v) : ""; };
    out += csvField(r.name) + "," + std::string(compareStatusName(r.status)) +
           "," + (r.passed() ? "true" : "false") + "," + metric(m.cosine) +
           "," + metric(m.euclidean) + "," + metric(m.sqnr) + "," +
           metric(m.maxAbsDiff) + "," + metric(m.meanAbsDiff) + "," +
           (counted ? std::to_string(m.closeOrder) : "") + "," +
           csvField(shapeToString(r.targetShape)) + "," +
           csvField(shapeToString(r.referenceShape)) + "," +
           std::string(dtypeName(r.targetType)) + "," +
           std::string(dtypeName(r.referenceType)) + "," + csvField(r.note) +
           "\n";
  }
  return out;
}

std::string formatCompareJson(const NpzComparison &c) {
  using Json = nlohmann::ordered_json;
  Json results = Json::array();
  for (const TensorComparison &r : c.results) {
    const CompareMetrics &m = r.metrics;
    Json item = {{"name", r.name},
                 {"status", std::string(compareStatusName(r.status))},
                 {"pass", r.passed()},
                 {"target_shape", r.targetShape},
                 {"reference_shape", r.referenceShape},
                 {"target_dtype", std::string(dtypeName(r.targetType))},
                 {"reference_dtype", std::string(dtypeName(r.referenceType))}};
    if (r.status != CompareStatus::Mismatch) {
      item["cosine"] = jsonNumber(m.cosine);
      item["euclidean"] = jsonNumber(m.euclidean);
      item["sqnr"] = jsonNumber(m.sqnr);
      item["max_abs_diff"] = jsonNumber(m.maxAbsDiff);
      item["mean_abs_diff"] = jsonNumber(m.meanAbsDiff);
      item["max_diff_index"] = m.maxDiffIndex;
      item["close_order"] = m.closeOrder;
      item["count"] = m.count;
      item["target_nonfinite"] = m.targetNonFinite;
      item["reference_nonfinite"] = m.referenceNonFinite;
      item["nonfinite_mismatches"] = m.nonFiniteMismatches;
    }
    if (!r.note.empty())
      item["note"] = r.note;
    results.push_back(std::move(item));
  }
  CompareMetrics min = c.minSimilarity();
  Json doc = {
      {"target", c.targetName},
      {"reference", c.referenceName},
      {"tolerance",
       {{"cosine", c.tolerance.cosine},
        {"euclidean", c.tolerance.euclidean},
        {"close_order", c.tolerance.closeOrder}}},
      {"results", std::move(results)},
      {"summary",
       {{"compared", c.results.size()},
        {"passed", c.passedCount()},
        {"failed", c.failedCount()},
        {"equal", c.count(CompareStatus::Equal)},
        {"close", c.count(CompareStatus::Close)},
        {"similar", c.count(CompareStatus::Similar)},
        {"not_similar", c.count(CompareStatus::NotSimilar)},
        {"mismatch", c.count(CompareStatus::Mismatch)},
        {"min_cosine", jsonNumber(min.cosine)},
        {"min_euclidean", jsonNumber(min.euclidean)},
        {"min_sqnr", jsonNumber(min.sqnr)},
        {"only_in_target", c.onlyInTarget},
        {"only_in_reference", c.onlyInReference},
        {"excepted", c.excepted},
        {"all_passed", c.allPassed()}}}};
  return doc.dump(2) + "\n";
}

} // namespace tpuc
