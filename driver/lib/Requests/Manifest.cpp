//===- Manifest.cpp - Run manifests, their differences, two runs' layers ---===//

#include "tpuc/Driver/Manifest.h"

#include "tpuc/Driver/AccuracyRecords.h"

#include "JsonNumbers.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

namespace tpuc::driver {
namespace {

using json_numbers::number;
using json_numbers::numberOf;
using nlohmann::ordered_json;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string dump(const ordered_json &j) {
  return j.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

ordered_json checked(const std::string &text, const char *schema, int newest) {
  ordered_json j = ordered_json::parse(text);
  if (!j.is_object() || j.value("schema", std::string()) != schema)
    throw std::runtime_error(std::string("not a ") + schema + " record (schema is not \"" + schema + "\")");
  int version = j.at("version").get<int>();
  if (version < 1 || version > newest)
    throw std::runtime_error(std::string(schema) + " version " + std::to_string(version) +
                             " is not supported (this build reads " + std::to_string(newest) + ")");
  return j;
}

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(path + ": cannot read");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string fixed(double value) {
  if (std::isnan(value))
    return "-";
  std::ostringstream out;
  out << std::fixed << std::setprecision(6) << value;
  return out.str();
}

} // namespace

const char *tpucVersion() { return TPUC_VERSION; }

std::string toJson(const RunManifest &m) {
  ordered_json j = {{"schema", kManifestSchema}, {"version", kManifestVersion}};
  j["tool"] = {{"name", "tpuc"}, {"version", m.version}};
  j["command"] = m.command;
  j["argv"] = m.argv;
  ordered_json flags = ordered_json::array();
  for (const auto &[name, value] : m.flags)
    flags.push_back({{"name", name}, {"value", value}});
  j["flags"] = std::move(flags);
  ordered_json inputs = ordered_json::array();
  for (const ManifestInput &in : m.inputs)
    inputs.push_back({{"role", in.role},
                      {"path", in.path},
                      {"sha256", in.sha256},
                      {"bytes", in.bytes},
                      {"files", in.files}});
  j["inputs"] = std::move(inputs);
  j["records"] = {{"result", m.result},
                  {"compare", m.compare},
                  {"compare_samples", m.compareSamples},
                  {"first_divergent", m.firstDivergent},
                  {"trace", m.trace}};
  return dump(j);
}

ReadResult<RunManifest> parseManifest(const std::string &text) {
  ReadResult<RunManifest> out;
  try {
    ordered_json j = checked(text, kManifestSchema, kManifestVersion);
    RunManifest &m = out.result;
    m.version = j.at("tool").at("version").get<std::string>();
    m.command = j.at("command").get<std::string>();
    m.argv = j.at("argv").get<std::vector<std::string>>();
    for (const ordered_json &f : j.at("flags"))
      m.flags.emplace_back(f.at("name").get<std::string>(), f.at("value").get<std::string>());
    for (const ordered_json &in : j.at("inputs"))
      m.inputs.push_back({in.at("role").get<std::string>(), in.at("path").get<std::string>(),
                          in.at("sha256").get<std::string>(), in.at("bytes").get<int64_t>(),
                          in.at("files").get<int64_t>()});
    const ordered_json &records = j.at("records");
    m.result = records.at("result").get<std::string>();
    m.compare = records.at("compare").get<std::string>();
    m.compareSamples = records.at("compare_samples").get<std::string>();
    m.firstDivergent = records.at("first_divergent").get<std::string>();
    m.trace = records.value("trace", std::string());
  } catch (const std::exception &e) {
    out.error = e.what();
  }
  return out;
}

std::string deployManifestPath(const DeployOptions &o) { return deployArtifactStem(o) + "_manifest.json"; }

std::string calibrateManifestPath(const CalibrateOptions &o) { return o.calibrationTable + "_manifest.json"; }

std::vector<ManifestDifference> diffManifests(const RunManifest &a, const RunManifest &b) {
  std::vector<ManifestDifference> out;
  if (a.version != b.version)
    out.push_back({"version", a.version, b.version});
  if (a.command != b.command)
    out.push_back({"command", a.command, b.command});
  std::map<std::string, std::string> bFlags(b.flags.begin(), b.flags.end());
  std::map<std::string, std::string> aFlags(a.flags.begin(), a.flags.end());
  for (const auto &[name, value] : a.flags) {
    auto it = bFlags.find(name);
    if (it == bFlags.end() || it->second != value)
      out.push_back({"flag " + name, value, it == bFlags.end() ? "" : it->second});
  }
  for (const auto &[name, value] : b.flags)
    if (!aFlags.count(name))
      out.push_back({"flag " + name, "", value});
  // Inputs by role; a role with several entries (one file per input) compares them in order.
  auto describe = [](const ManifestInput &in) {
    return in.path + " (" + in.sha256 + (in.files > 1 ? ", " + std::to_string(in.files) + " files" : "") +
           ")";
  };
  std::vector<std::string> roles;
  for (const auto *m : {&a, &b})
    for (const ManifestInput &in : m->inputs)
      if (std::find(roles.begin(), roles.end(), in.role) == roles.end())
        roles.push_back(in.role);
  for (const std::string &role : roles) {
    std::vector<const ManifestInput *> left, right;
    for (const ManifestInput &in : a.inputs)
      if (in.role == role)
        left.push_back(&in);
    for (const ManifestInput &in : b.inputs)
      if (in.role == role)
        right.push_back(&in);
    for (size_t i = 0; i < std::max(left.size(), right.size()); ++i) {
      const ManifestInput *l = i < left.size() ? left[i] : nullptr,
                          *r = i < right.size() ? right[i] : nullptr;
      if (l && r && l->sha256 == r->sha256 && l->path == r->path)
        continue;
      std::string what = "input " + role;
      if (l && r)
        what += l->sha256 == r->sha256 ? " (same content, another path)" : " (content differs)";
      out.push_back({what, l ? describe(*l) : "", r ? describe(*r) : ""});
    }
  }
  return out;
}

ReadResult<LayerCosines> readLayerCosines(const RunManifest &m, const std::string &manifestPath) {
  ReadResult<LayerCosines> out;
  LayerCosines &layers = out.result;
  auto beside = [&](const std::string &name) {
    return (std::filesystem::path(manifestPath).parent_path() / name).string();
  };
  try {
    if (!m.compareSamples.empty()) {
      layers.file = beside(m.compareSamples);
      ReadResult<CompareSamplesRecord> record = parseCompareSamples(readText(layers.file));
      if (!record)
        throw std::runtime_error(layers.file + ": " + record.error);
      for (const LayerStats &l : record.result.layers) {
        layers.names.push_back(l.name);
        layers.cosine.push_back(l.accumulated.meanCosine);
        layers.isolated.push_back(l.isolated ? l.isolated->meanCosine : kNaN);
      }
    } else if (!m.compare.empty()) {
      // deploy's single-sample record: {"tolerance", "layers": [{"name", "accumulated": {...}, "isolated"}]}.
      layers.file = beside(m.compare);
      ordered_json j = ordered_json::parse(readText(layers.file));
      for (const ordered_json &l : j.at("layers")) {
        layers.names.push_back(l.at("name").get<std::string>());
        layers.cosine.push_back(numberOf(l.at("accumulated").at("cosine")));
        layers.isolated.push_back(l.contains("isolated") ? numberOf(l.at("isolated").at("cosine")) : kNaN);
      }
    } else {
      throw std::runtime_error("the run wrote no per-layer comparison (deploy --compare_all writes one)");
    }
  } catch (const std::exception &e) {
    out.error = e.what();
    if (!layers.file.empty() && out.error.rfind(layers.file, 0) != 0)
      out.error = layers.file + ": " + out.error;
  }
  return out;
}

std::vector<LayerDelta> diffRunLayers(const LayerCosines &a, const LayerCosines &b) {
  std::map<std::string, size_t> inB, inA;
  for (size_t i = 0; i < b.names.size(); ++i)
    inB.emplace(b.names[i], i);
  for (size_t i = 0; i < a.names.size(); ++i)
    inA.emplace(a.names[i], i);
  std::vector<LayerDelta> out;
  for (size_t i = 0; i < a.names.size(); ++i) {
    auto j = inB.find(a.names[i]);
    out.push_back({a.names[i], a.cosine[i], j == inB.end() ? kNaN : b.cosine[j->second], a.isolated[i],
                   j == inB.end() ? kNaN : b.isolated[j->second]});
  }
  for (size_t i = 0; i < b.names.size(); ++i)
    if (!inA.count(b.names[i]))
      out.push_back({b.names[i], kNaN, b.cosine[i], kNaN, b.isolated[i]});
  return out;
}

void addRunCycles(std::vector<LayerDelta> &layers, const RunCycles *a, const RunCycles *b) {
  std::map<std::string, size_t> row;
  for (size_t i = 0; i < layers.size(); ++i)
    row.emplace(layers[i].name, i);
  auto add = [&](const RunCycles *run, std::optional<int64_t> LayerDelta::*cycles) {
    if (!run)
      return;
    for (const auto &[name, value] : run->ops) {
      auto [it, added] = row.emplace(name, layers.size());
      if (added)
        layers.push_back({name, kNaN, kNaN, kNaN, kNaN});
      layers[it->second].*cycles = value;
    }
  };
  add(a, &LayerDelta::aCycles);
  add(b, &LayerDelta::bCycles);
}

std::string toJson(const RunsDiff &d) {
  ordered_json j = {{"schema", kRunsDiffSchema}, {"version", kManifestVersion}, {"a", d.a}, {"b", d.b}};
  ordered_json differences = ordered_json::array();
  for (const ManifestDifference &x : d.differences)
    differences.push_back({{"what", x.what}, {"a", x.a}, {"b", x.b}});
  j["differences"] = std::move(differences);
  j["layers_a"] = d.layersA;
  j["layers_b"] = d.layersB;
  // Simulated time (optional since the engine trace joined the manifest): each run's latency, and per layer
  // the cycles of each side that has them.
  auto latency = [](const std::optional<RunLatency> &l) {
    return l ? ordered_json{{"trace", l->trace}, {"ms", l->ms}, {"cycles", l->cycles}} : ordered_json();
  };
  j["latency_a"] = latency(d.latencyA);
  j["latency_b"] = latency(d.latencyB);
  ordered_json layers = ordered_json::array();
  for (const LayerDelta &l : d.layers) {
    ordered_json a = {{"cosine", number(l.aCosine)}, {"isolated_cosine", number(l.aIsolated)}},
                 b = {{"cosine", number(l.bCosine)}, {"isolated_cosine", number(l.bIsolated)}};
    if (l.aCycles)
      a["cycles"] = *l.aCycles;
    if (l.bCycles)
      b["cycles"] = *l.bCycles;
    ordered_json layer = {
        {"name", l.name}, {"a", a}, {"b", b}, {"delta_cosine", number(l.bCosine - l.aCosine)}};
    if (l.aCycles && l.bCycles)
      layer["delta_cycles"] = *l.bCycles - *l.aCycles;
    layers.push_back(std::move(layer));
  }
  j["layers"] = std::move(layers);
  return dump(j);
}

ReadResult<RunsDiff> parseRunsDiff(const std::string &text) {
  ReadResult<RunsDiff> out;
  try {
    ordered_json j = checked(text, kRunsDiffSchema, kManifestVersion);
    RunsDiff &d = out.result;
    d.a = j.at("a").get<std::string>();
    d.b = j.at("b").get<std::string>();
    for (const ordered_json &x : j.at("differences"))
      d.differences.push_back(
          {x.at("what").get<std::string>(), x.at("a").get<std::string>(), x.at("b").get<std::string>()});
    d.layersA = j.at("layers_a").get<std::string>();
    d.layersB = j.at("layers_b").get<std::string>();
    auto cycles = [](const ordered_json &side) {
      return side.contains("cycles") ? std::optional<int64_t>(side.at("cycles").get<int64_t>())
                                     : std::nullopt;
    };
    for (const ordered_json &l : j.at("layers"))
      d.layers.push_back({l.at("name").get<std::string>(), numberOf(l.at("a").at("cosine")),
                          numberOf(l.at("b").at("cosine")), numberOf(l.at("a").at("isolated_cosine")),
                          numberOf(l.at("b").at("isolated_cosine")), cycles(l.at("a")), cycles(l.at("b"))});
    auto latency = [&](const char *key) -> std::optional<RunLatency> {
      if (!j.contains(key) || j.at(key).is_null())
        return std::nullopt;
      const ordered_json &l = j.at(key);
      return RunLatency{l.at("trace").get<std::string>(), l.at("ms").get<double>(),
                        l.at("cycles").get<int64_t>()};
    };
    d.latencyA = latency("latency_a");
    d.latencyB = latency("latency_b");
  } catch (const std::exception &e) {
    out.error = e.what();
  }
  return out;
}

std::string formatRunsDiff(const RunsDiff &d) {
  std::ostringstream out;
  out << "A: " << d.a << "\nB: " << d.b << "\n";
  if (d.differences.empty())
    out << "the manifests agree: same version, flags and inputs\n";
  for (const ManifestDifference &x : d.differences)
    out << x.what << ": " << (x.a.empty() ? "(none)" : x.a) << " -> " << (x.b.empty() ? "(none)" : x.b)
        << "\n";
  if (d.latencyA || d.latencyB) {
    auto latency = [](const std::optional<RunLatency> &l) {
      if (!l)
        return std::string("(no trace)");
      std::ostringstream text;
      text << std::fixed << std::setprecision(3) << l->ms << " ms (" << l->cycles << " cycles)";
      return text.str();
    };
    out << "simulated latency: " << latency(d.latencyA) << " -> " << latency(d.latencyB);
    if (d.latencyA && d.latencyB)
      out << ", " << (d.latencyB->cycles >= d.latencyA->cycles ? "+" : "")
          << d.latencyB->cycles - d.latencyA->cycles << " cycles";
    out << "\n";
  }
  if (d.layers.empty())
    return out.str();
  bool cycles = std::any_of(d.layers.begin(), d.layers.end(),
                            [](const LayerDelta &l) { return l.aCycles || l.bCycles; });
  auto count = [](std::optional<int64_t> v) { return v ? std::to_string(*v) : std::string("-"); };
  size_t width = 24;
  for (const LayerDelta &l : d.layers)
    width = std::max(width, l.name.size() + 2);
  out << "\n"
      << std::left << std::setw(static_cast<int>(width)) << "name" << std::right << std::setw(11) << "A cos"
      << std::setw(11) << "B cos" << std::setw(11) << "delta" << std::setw(11) << "A iso" << std::setw(11)
      << "B iso";
  if (cycles)
    out << std::setw(11) << "A cycles" << std::setw(11) << "B cycles" << std::setw(11) << "cyc delta";
  out << "\n";
  for (const LayerDelta &l : d.layers) {
    double delta = l.bCosine - l.aCosine;
    out << std::left << std::setw(static_cast<int>(width)) << l.name << std::right << std::setw(11)
        << fixed(l.aCosine) << std::setw(11) << fixed(l.bCosine) << std::setw(11)
        << (std::isnan(delta) ? std::string("-") : (delta >= 0 ? "+" : "") + fixed(delta)) << std::setw(11)
        << fixed(l.aIsolated) << std::setw(11) << fixed(l.bIsolated);
    if (cycles) {
      std::string change = "-";
      if (l.aCycles && l.bCycles)
        change = (*l.bCycles >= *l.aCycles ? "+" : "") + std::to_string(*l.bCycles - *l.aCycles);
      out << std::setw(11) << count(l.aCycles) << std::setw(11) << count(l.bCycles) << std::setw(11)
          << change;
    }
    out << "\n";
  }
  return out.str();
}

} // namespace tpuc::driver
