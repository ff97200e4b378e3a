//===- Sweep.cpp - tpuc sweep: flags, the manifest and its cells -----------===//
//
// The manifest's stage objects are read as the subcommands' own flags ("mean": [127.5, ...] is --mean
// 127.5,...), parsed by their bindings when the manifest is read, so a misspelt flag is an error naming the
// model and the key, and the man pages of transform / calibrate / deploy document the keys.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Driver/Sweep.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace tpuc::driver {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

/// The flags each stage object may not set: the sweep sets them per cell.
const std::set<std::string> kTransformReserved = {"model_name", "mlir", "test_result", "progress"};
const std::set<std::string> kCalibrateReserved = {"mlir_file", "calibration_table", "o", "progress"};
const std::set<std::string> kDeployReserved = {
    "mlir",       "quantize",       "chip",      "processor", "calibration_table", "model",
    "test_input", "test_reference", "tolerance", "tpu_mlir",  "progress"};
/// Keys holding paths (comma lists for test_input), made absolute against the manifest's folder.
const std::set<std::string> kPathKeys = {"model_def", "test_input",     "dataset",
                                         "data_list", "quantize_table", "subset"};

std::string numberText(const json &v) {
  if (v.is_number_integer())
    return std::to_string(v.get<int64_t>());
  std::ostringstream out;
  out.precision(17);
  out << v.get<double>();
  return out.str();
}

/// A JSON value as the flag's text; throws std::runtime_error naming what it cannot spell.
std::string valueText(const json &v) {
  if (v.is_string())
    return v.get<std::string>();
  if (v.is_number())
    return numberText(v);
  if (v.is_array()) {
    std::string text;
    bool nested = !v.empty() && v.front().is_array();
    for (const json &item : v) {
      if (!text.empty())
        text += ",";
      if (item.is_array()) {
        std::string inner;
        for (const json &d : item) {
          if (!d.is_number())
            throw std::runtime_error("a shape holds numbers only");
          inner += (inner.empty() ? "" : ",") + numberText(d);
        }
        text += "[" + inner + "]";
      } else if (item.is_string() || item.is_number()) {
        text += valueText(item);
      } else {
        throw std::runtime_error("a list holds strings, numbers or shapes");
      }
    }
    return nested ? "[" + text + "]" : text;
  }
  throw std::runtime_error("expects a string, a number, a boolean or a list");
}

std::string resolvePath(const std::string &value, const fs::path &base) {
  if (value.empty() || fs::path(value).is_absolute())
    return value;
  return (base / value).lexically_normal().string();
}

/// A stage object as command-line arguments of its subcommand.
template <typename Request>
std::vector<std::string> stageArgs(const json &object, const std::set<std::string> &reserved,
                                   const fs::path &base, const std::string &where) {
  if (!object.is_object())
    throw std::runtime_error(where + ": expects an object of flags");
  std::vector<std::string> args;
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string key = it.key();
    if (reserved.count(key))
      throw std::runtime_error(where + "." + key + ": set by the sweep for each cell");
    if (it->is_boolean()) {
      args.push_back("--" + key + (it->get<bool>() ? "" : "=false"));
      continue;
    }
    std::string value;
    try {
      value = valueText(*it);
    } catch (const std::exception &e) {
      throw std::runtime_error(where + "." + key + ": " + e.what());
    }
    if (kPathKeys.count(key)) {
      std::string joined;
      for (const std::string &item :
           key == "test_input" ? splitList(value) : std::vector<std::string>{value}) {
        // A subset is a name in the dataset's index or a data list file.
        std::string resolved = resolvePath(item, base);
        if (key == "subset" && !fs::exists(resolved))
          resolved = item;
        joined += (joined.empty() ? "" : ",") + resolved;
      }
      value = joined;
    }
    args.push_back("--" + key);
    args.push_back(value);
  }
  // The subcommand's own flag table reads them (required flags are checked per cell, when the sweep has
  // added its own).
  Parsed<Request> parsed = parseRequest<Request>(args, false);
  if (!parsed)
    throw std::runtime_error(where + ": " + parsed.error);
  return args;
}

std::vector<std::string> stringList(const json &j, const char *key) {
  std::vector<std::string> out;
  if (!j.contains(key))
    throw std::runtime_error(std::string(key) + ": missing (a list of strings)");
  const json &list = j.at(key);
  if (!list.is_array() || list.empty())
    throw std::runtime_error(std::string(key) + ": expects a non-empty list of strings");
  for (const json &item : list) {
    if (!item.is_string())
      throw std::runtime_error(std::string(key) + ": expects a non-empty list of strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

bool validName(const std::string &name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

} // namespace

void addSweepOptions(ArgParser &p, SweepOptions &o) {
  p.addPositional({{"manifest"}, "FILE", "the sweep manifest (JSON): models, precisions, chips", true},
                  &o.manifest);
  p.addOption({{"--executor"},
               "NAME",
               "where the cells run: a process pool here, or one Slurm job array",
               false,
               {"local", "slurm"},
               "local"},
              &o.executor);
  p.addOption({{"-j", "--jobs"}, "N", "local: cells run at once (0 = the number of cores)", false, {}, "0"},
              &o.jobs);
  p.addOption({{"--out"},
               "DIR",
               "the sweep folder: a folder per cell, cells/K.json records, report.json and report.html "
               "(default: <manifest stem>_sweep beside the manifest; shared by every node with slurm)"},
              &o.out);
  p.addOption({{"--cell"},
               "K",
               "run only cell K and write its record (what the executors launch; cells count model-major, "
               "then precision, then chip)",
               false,
               {},
               "-1"},
              &o.cell);
  p.addOption({{"--compare"},
               "FILE",
               "a previous sweep's report.json (or its folder): regressions are flagged and sorted first"},
              &o.compare);
  p.addOption({{"--accuracy_threshold"},
               "D",
               "an accuracy regression: the lowest output cosine dropped by more than D, or a pass failed",
               false,
               {},
               "0.01"},
              &o.accuracyThreshold);
  p.addOption({{"--latency_threshold"},
               "F",
               "a latency regression: the simulated latency grew by more than this fraction",
               false,
               {},
               "0.05"},
              &o.latencyThreshold);
  p.addOption({{"--retries"},
               "N",
               "re-launches of a cell that ended in error (a stage killed or not started, no record)",
               false,
               {},
               "1"},
              &o.retries);
  p.addOption({{"--partition"}, "NAME", "slurm: the partition (default: the manifest's, else the cluster's)"},
              &o.partition);
  p.addOption(
      {{"--cpus-per-task"}, "N", "slurm: CPUs per cell (default: the manifest's, else 1)", false, {}, "0"},
      &o.cpusPerTask);
  p.addOption({{"--mem"}, "SIZE", "slurm: memory per cell, as sbatch takes it (2G)"}, &o.mem);
  p.addOption({{"--time"}, "LIMIT", "slurm: time limit per cell, as sbatch takes it (00:30:00)"}, &o.time);
  p.addOption(
      {{"--tpuc"}, "FILE", "slurm: the tpuc the tasks run, a path valid on the nodes (default: this tpuc)"},
      &o.tpuc);
}

std::string validateSweepOptions(const SweepOptions &o) {
  if (o.jobs < 0)
    return "'--jobs' must not be negative";
  if (o.cell < -1)
    return "'--cell' must be a cell index (0 or more)";
  if (o.retries < 0)
    return "'--retries' must not be negative";
  if (o.cpusPerTask < 0)
    return "'--cpus-per-task' must not be negative";
  if (!(o.accuracyThreshold >= 0) || !(o.latencyThreshold >= 0))
    return "'--accuracy_threshold' and '--latency_threshold' must not be negative";
  return "";
}

std::string sweepOutDir(const SweepOptions &o) {
  if (!o.out.empty())
    return o.out;
  fs::path manifest(o.manifest);
  return (manifest.parent_path() / (manifest.stem().string() + "_sweep")).string();
}

ReadResult<SweepManifest> parseSweepManifest(const std::string &text, const std::string &path) {
  ReadResult<SweepManifest> out;
  SweepManifest &m = out.result;
  std::error_code ec;
  fs::path file = fs::absolute(path, ec);
  m.path = file.string();
  const fs::path base = file.parent_path();
  try {
    json j = json::parse(text);
    if (!j.is_object())
      throw std::runtime_error("expects a JSON object");
    m.name = j.value("name", file.stem().string());
    m.precisions = stringList(j, "precisions");
    const std::vector<std::string> &precisions = deployPrecisions();
    for (std::string &p : m.precisions) {
      auto known = std::find_if(precisions.begin(), precisions.end(), [&](const std::string &q) {
        return std::equal(p.begin(), p.end(), q.begin(), q.end(),
                          [](char a, char b) { return std::toupper(a) == std::toupper(b); });
      });
      if (known == precisions.end())
        throw std::runtime_error("precisions: unknown precision '" + p + "'");
      p = *known;
    }
    m.chips = stringList(j, "chips");
    const std::vector<std::string> chips = listChips();
    for (const std::string &c : m.chips)
      if (std::find(chips.begin(), chips.end(), c) == chips.end())
        throw std::runtime_error("chips: unknown chip '" + c + "'");
    if (j.contains("slurm")) {
      const json &s = j.at("slurm");
      if (!s.is_object())
        throw std::runtime_error("slurm: expects an object");
      m.slurm.partition = s.value("partition", "");
      m.slurm.mem = s.value("mem", "");
      m.slurm.time = s.value("time", "");
      m.slurm.cpusPerTask = s.value("cpus_per_task", int64_t(0));
    }
    if (!j.contains("models") || !j.at("models").is_array() || j.at("models").empty())
      throw std::runtime_error("models: expects a non-empty list of models");
    std::set<std::string> names;
    size_t i = 0;
    for (const json &entry : j.at("models")) {
      const std::string where = "models[" + std::to_string(i++) + "]";
      if (!entry.is_object())
        throw std::runtime_error(where + ": expects an object");
      SweepModel model;
      model.name = entry.value("name", "");
      if (!validName(model.name))
        throw std::runtime_error(where + ".name: expects a name of letters, digits, '_', '-' or '.'");
      if (!names.insert(model.name).second)
        throw std::runtime_error(where + ".name: '" + model.name + "' is listed twice");
      if (!entry.contains("transform"))
        throw std::runtime_error(where + ".transform: missing (model_def, input_shapes, test_input, ...)");
      model.transformArgs =
          stageArgs<TransformOptions>(entry.at("transform"), kTransformReserved, base, where + ".transform");
      Parsed<TransformOptions> transform = parseRequest<TransformOptions>(model.transformArgs, false);
      if (transform.request.modelDef.empty() || transform.request.inputShapes.empty() ||
          transform.request.testInput.empty())
        throw std::runtime_error(where +
                                 ".transform: needs model_def, input_shapes and test_input (the sample the "
                                 "cells compare on)");
      if (entry.contains("calibrate")) {
        model.calibrate = true;
        model.calibrateArgs = stageArgs<CalibrateOptions>(entry.at("calibrate"), kCalibrateReserved, base,
                                                          where + ".calibrate");
      } else if (std::find(m.precisions.begin(), m.precisions.end(), "INT8") != m.precisions.end()) {
        throw std::runtime_error(where + ".calibrate: missing, and INT8 needs a calibration (dataset, ...)");
      }
      if (entry.contains("deploy"))
        model.deployArgs =
            stageArgs<DeployOptions>(entry.at("deploy"), kDeployReserved, base, where + ".deploy");
      if (entry.contains("tolerance")) {
        const json &t = entry.at("tolerance");
        if (t.is_string()) {
          model.tolerance[""] = t.get<std::string>();
        } else if (t.is_object()) {
          for (auto it = t.begin(); it != t.end(); ++it) {
            if (!it->is_string())
              throw std::runtime_error(where + ".tolerance." + it.key() + ": expects \"cos,euc\"");
            model.tolerance[it.key()] = it->get<std::string>();
          }
        } else {
          throw std::runtime_error(where + ".tolerance: expects \"cos,euc\" or an object by precision");
        }
        for (const auto &[precision, value] : model.tolerance)
          if (std::string error = checkTolerance(where + ".tolerance", value); !error.empty())
            throw std::runtime_error(error);
      }
      m.models.push_back(std::move(model));
    }
  } catch (const std::exception &e) {
    out.error = path + ": " + e.what();
  }
  return out;
}

ReadResult<SweepManifest> readSweepManifest(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return {{}, path + ": cannot read"};
  std::stringstream text;
  text << in.rdbuf();
  return parseSweepManifest(text.str(), path);
}

std::vector<SweepCell> sweepCells(const SweepManifest &m) {
  std::vector<SweepCell> cells;
  for (size_t model = 0; model < m.models.size(); ++model)
    for (const std::string &precision : m.precisions)
      for (const std::string &chip : m.chips)
        cells.push_back({static_cast<int64_t>(cells.size()), model, precision, chip});
  return cells;
}

std::string cellName(const SweepManifest &m, const SweepCell &cell) {
  return m.models[cell.model].name + "/" + cell.precision + "/" + cell.chip;
}

std::string defaultTolerance(const std::string &precision) {
  if (precision == "F32")
    return "0.99,0.99";
  if (precision == "F16" || precision == "BF16")
    return "0.99,0.90";
  return "0.90,0.80";
}

std::string cellTolerance(const SweepModel &model, const std::string &precision) {
  if (auto it = model.tolerance.find(precision); it != model.tolerance.end())
    return it->second;
  if (auto it = model.tolerance.find(""); it != model.tolerance.end())
    return it->second;
  return defaultTolerance(precision);
}

} // namespace tpuc::driver
