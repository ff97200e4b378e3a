//===- SweepReport.cpp - Sweep records and the report: JSON, comparison, HTML ===//

#include "tpuc/Driver/Sweep.h"

#include "JsonNumbers.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>

namespace tpuc::driver {
namespace {

using json_numbers::number;
using json_numbers::numberOf;
using json_numbers::tensorsJson;
using json_numbers::tensorsOf;
using nlohmann::json;

json optionalNumber(const std::optional<double> &v) { return v ? number(*v) : json(nullptr); }
std::optional<double> optionalOf(const json &j, const char *key) {
  if (!j.contains(key) || j.at(key).is_null())
    return std::nullopt;
  return numberOf(j.at(key));
}

json cellJson(const SweepCellRecord &r, bool report) {
  json stages = json::array();
  for (const SweepStage &s : r.stages)
    stages.push_back(
        {{"name", s.name}, {"exit_code", s.exitCode}, {"seconds", s.seconds}, {"peak_rss_kb", s.peakRssKb}});
  json j = {{"index", r.index},
            {"model", r.model},
            {"precision", r.precision},
            {"chip", r.chip},
            {"status", r.status},
            {"stage", r.stage},
            {"message", r.message},
            {"tolerance", r.tolerance},
            {"outputs", tensorsJson(r.outputs)},
            {"min_output_cosine", number(minOutputCosine(r))},
            {"first_divergent", r.firstDivergent},
            {"latency_ms", number(r.latencyMs)},
            {"cycles", r.cycles},
            {"compile_seconds", r.compileSeconds},
            {"peak_rss_kb", r.peakRssKb},
            {"stages", stages},
            {"run_dir", r.runDir},
            {"accuracy", r.accuracy},
            {"attempts", r.attempts}};
  if (report) {
    j["accuracy_regression"] = r.accuracyRegression;
    j["latency_regression"] = r.latencyRegression;
    j["previous_output_cosine"] = optionalNumber(r.previousOutputCosine);
    j["previous_latency_ms"] = optionalNumber(r.previousLatencyMs);
    j["previous_status"] = r.previousStatus;
  }
  return j;
}

SweepCellRecord cellOf(const json &j) {
  SweepCellRecord r;
  r.index = j.at("index").get<int64_t>();
  r.model = j.at("model").get<std::string>();
  r.precision = j.at("precision").get<std::string>();
  r.chip = j.at("chip").get<std::string>();
  r.status = j.at("status").get<std::string>();
  r.stage = j.at("stage").get<std::string>();
  r.message = j.at("message").get<std::string>();
  r.tolerance = j.at("tolerance").get<std::string>();
  r.outputs = tensorsOf(j.at("outputs"));
  r.firstDivergent = j.at("first_divergent").get<std::string>();
  r.latencyMs = numberOf(j.at("latency_ms"));
  r.cycles = j.at("cycles").get<int64_t>();
  r.compileSeconds = j.at("compile_seconds").get<double>();
  r.peakRssKb = j.at("peak_rss_kb").get<int64_t>();
  for (const json &s : j.at("stages"))
    r.stages.push_back({s.at("name").get<std::string>(), s.at("exit_code").get<int>(),
                        s.at("seconds").get<double>(), s.at("peak_rss_kb").get<int64_t>()});
  r.runDir = j.at("run_dir").get<std::string>();
  r.accuracy = j.at("accuracy").get<std::string>();
  r.attempts = j.at("attempts").get<int64_t>();
  r.accuracyRegression = j.value("accuracy_regression", false);
  r.latencyRegression = j.value("latency_regression", false);
  r.previousOutputCosine = optionalOf(j, "previous_output_cosine");
  r.previousLatencyMs = optionalOf(j, "previous_latency_ms");
  r.previousStatus = j.value("previous_status", "");
  return r;
}

void checkHeader(const json &j, const char *schema) {
  if (!j.is_object() || j.value("schema", std::string()) != schema)
    throw std::runtime_error(std::string("not a ") + schema + " record");
  const int version = j.at("version").get<int>();
  if (version < 1 || version > kSweepVersion)
    throw std::runtime_error(std::string(schema) + " version " + std::to_string(version) +
                             " is not supported (this build reads " + std::to_string(kSweepVersion) + ")");
}

std::string escapeHtml(const std::string &text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string fixed(double v, int digits) {
  if (std::isnan(v))
    return "";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, v);
  return buffer;
}

} // namespace

double minOutputCosine(const SweepCellRecord &r) {
  double lowest = std::numeric_limits<double>::quiet_NaN();
  for (const TensorResult &t : r.outputs)
    if (std::isnan(lowest) || t.cosine < lowest)
      lowest = t.cosine;
  return lowest;
}

bool isFinished(const SweepCellRecord &r) { return r.status == "passed" || r.status == "failed"; }

std::string toJson(const SweepCellRecord &record) {
  json j = {{"schema", kSweepCellSchema}, {"version", kSweepVersion}};
  j.update(cellJson(record, false));
  return j.dump(2) + "\n";
}

ReadResult<SweepCellRecord> parseSweepCellRecord(const std::string &text) {
  ReadResult<SweepCellRecord> out;
  try {
    json j = json::parse(text);
    checkHeader(j, kSweepCellSchema);
    out.result = cellOf(j);
  } catch (const std::exception &e) {
    out.error = e.what();
  }
  return out;
}

std::string cellRecordPath(const std::string &outDir, int64_t index) {
  return outDir + "/cells/" + std::to_string(index) + ".json";
}

void countSweep(SweepReport &report) {
  report.passed = report.failed = report.errors = report.regressions = 0;
  for (const SweepCellRecord &c : report.cells) {
    report.passed += c.status == "passed";
    report.failed += c.status == "failed";
    report.errors += c.status != "passed" && c.status != "failed";
    report.regressions += c.accuracyRegression || c.latencyRegression;
  }
}

void compareSweeps(SweepReport &report, const SweepReport &previous) {
  std::map<std::tuple<std::string, std::string, std::string>, const SweepCellRecord *> before;
  for (const SweepCellRecord &c : previous.cells)
    before[{c.model, c.precision, c.chip}] = &c;
  for (SweepCellRecord &c : report.cells) {
    auto it = before.find({c.model, c.precision, c.chip});
    if (it == before.end())
      continue;
    const SweepCellRecord &p = *it->second;
    c.previousStatus = p.status;
    const double cosine = minOutputCosine(c), previousCosine = minOutputCosine(p);
    if (!std::isnan(previousCosine))
      c.previousOutputCosine = previousCosine;
    if (p.latencyMs > 0)
      c.previousLatencyMs = p.latencyMs;
    c.accuracyRegression = (p.status == "passed" && c.status != "passed") ||
                           (!std::isnan(previousCosine) &&
                            (std::isnan(cosine) || cosine < previousCosine - report.accuracyThreshold));
    c.latencyRegression = p.latencyMs > 0 && c.latencyMs > p.latencyMs * (1.0 + report.latencyThreshold);
  }
  report.compared = !previous.name.empty() ? previous.name : "the previous sweep";
  std::sort(report.cells.begin(), report.cells.end(), [](const SweepCellRecord &a, const SweepCellRecord &b) {
    const bool ra = a.accuracyRegression || a.latencyRegression,
               rb = b.accuracyRegression || b.latencyRegression;
    if (ra != rb)
      return ra;
    return a.index < b.index;
  });
  countSweep(report);
}

std::string toJson(const SweepReport &report) {
  json cells = json::array();
  for (const SweepCellRecord &c : report.cells)
    cells.push_back(cellJson(c, true));
  json j = {{"schema", kSweepReportSchema},
            {"version", kSweepVersion},
            {"name", report.name},
            {"manifest", report.manifest},
            {"executor", report.executor},
            {"compared", report.compared},
            {"accuracy_threshold", report.accuracyThreshold},
            {"latency_threshold", report.latencyThreshold},
            {"passed", report.passed},
            {"failed", report.failed},
            {"errors", report.errors},
            {"regressions", report.regressions},
            {"wall_seconds", report.wallSeconds},
            {"cells", cells}};
  return j.dump(2) + "\n";
}

ReadResult<SweepReport> parseSweepReport(const std::string &text) {
  ReadResult<SweepReport> out;
  try {
    json j = json::parse(text);
    checkHeader(j, kSweepReportSchema);
    SweepReport &r = out.result;
    r.name = j.at("name").get<std::string>();
    r.manifest = j.at("manifest").get<std::string>();
    r.executor = j.at("executor").get<std::string>();
    r.compared = j.at("compared").get<std::string>();
    r.accuracyThreshold = j.at("accuracy_threshold").get<double>();
    r.latencyThreshold = j.at("latency_threshold").get<double>();
    r.wallSeconds = j.at("wall_seconds").get<double>();
    size_t i = 0;
    for (const json &c : j.at("cells")) {
      try {
        r.cells.push_back(cellOf(c));
      } catch (const std::exception &e) {
        throw std::runtime_error("cells[" + std::to_string(i) + "]: " + e.what());
      }
      ++i;
    }
    countSweep(r);
  } catch (const std::exception &e) {
    out.error = e.what();
  }
  return out;
}

ReadResult<SweepReport> readSweepReport(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return {{}, path + ": cannot read"};
  std::stringstream text;
  text << in.rdbuf();
  ReadResult<SweepReport> report = parseSweepReport(text.str());
  if (!report)
    report.error = path + ": " + report.error;
  return report;
}

std::string sweepReportHtml(const SweepReport &r) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>Sweep "
    << escapeHtml(r.name) << "</title>\n<style>\n"
    << "body{font-family:sans-serif;margin:1.5em;color:#222}\n"
    << "table{border-collapse:collapse;font-size:13px}\n"
    << "th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}\n"
    << "th{background:#eee}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    << "tr.passed td.s{color:#1a7f37}tr.failed td.s{color:#b35900}tr.error td.s{color:#c00}\n"
    << "tr.regression{background:#ffe3e3}span.r{color:#c00;font-weight:bold}\n"
    << "</style></head><body>\n<h1>Sweep " << escapeHtml(r.name) << "</h1>\n<p>" << r.cells.size()
    << " cells: " << r.passed << " passed, " << r.failed << " failed, " << r.errors << " errors";
  if (!r.compared.empty())
    h << "; " << r.regressions << " regression(s) against " << escapeHtml(r.compared)
      << " (accuracy: lowest output cosine down by more than " << r.accuracyThreshold
      << ", latency: up by more than " << fixed(r.latencyThreshold * 100, 1) << " %)";
  h << ". Executor " << escapeHtml(r.executor) << ", " << fixed(r.wallSeconds, 1) << " s wall. Manifest "
    << escapeHtml(r.manifest) << ".</p>\n<table>\n<tr><th>#</th><th>model</th>"
    << "<th>precision</th><th>chip</th><th>status</th><th>regression</th><th>min output cos</th>"
    << "<th>outputs (cos / euc / SQNR dB)</th><th>first divergent</th><th>latency ms</th>"
    << "<th>compile s</th><th>peak RSS MiB</th><th>error</th><th>run</th></tr>\n";
  for (const SweepCellRecord &c : r.cells) {
    const bool regression = c.accuracyRegression || c.latencyRegression;
    h << "<tr class=\"" << escapeHtml(c.status) << (regression ? " regression" : "") << "\"><td class=n>"
      << c.index << "</td><td>" << escapeHtml(c.model) << "</td><td>" << escapeHtml(c.precision)
      << "</td><td>" << escapeHtml(c.chip) << "</td><td class=s>" << escapeHtml(c.status) << "</td><td>";
    if (c.accuracyRegression)
      h << "<span class=r>accuracy</span> (was " << fixed(c.previousOutputCosine.value_or(NAN), 4) << ", "
        << escapeHtml(c.previousStatus) << ") ";
    if (c.latencyRegression)
      h << "<span class=r>latency</span> (was " << fixed(c.previousLatencyMs.value_or(NAN), 3) << " ms)";
    h << "</td><td class=n>" << fixed(minOutputCosine(c), 4) << "</td><td>";
    for (const TensorResult &t : c.outputs)
      h << escapeHtml(t.name) << ": " << fixed(t.cosine, 4) << " / " << fixed(t.euclidean, 4) << " / "
        << fixed(t.sqnr, 1) << (t.pass ? "" : " <span class=r>out of tolerance</span>") << "<br>";
    h << "</td><td>" << escapeHtml(c.firstDivergent) << "</td><td class=n>"
      << (c.latencyMs > 0 ? fixed(c.latencyMs, 3) : "") << "</td><td class=n>" << fixed(c.compileSeconds, 2)
      << "</td><td class=n>" << fixed(c.peakRssKb / 1024.0, 1) << "</td><td>"
      << escapeHtml(c.stage.empty() ? "" : c.stage + ": " + c.message) << "</td><td><a href=\""
      << escapeHtml(c.runDir) << "/\">" << escapeHtml(c.runDir) << "</a></td></tr>\n";
  }
  h << "</table>\n</body></html>\n";
  return h.str();
}

} // namespace tpuc::driver
