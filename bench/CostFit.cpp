//===- CostFit.cpp - Fit chip-profile cost parameters to published figures ===//
//
// bench-cost-fit --table TABLE.json [--fit P,...] [--share P,...] [--write DIR] [--json OUT] [--evals N]
// [--loo]
//
// The rows of TABLE.json (bench/cost_table.py --prepare writes it) are published latencies of compiled
// networks (a lowered Tpu module each, `tpuc deploy --tpu_mlir`) and of LLM decode (a HuggingFace
// config.json, predicted by the dry run). For a candidate set of profile parameters every row runs as
// `tpuc deploy --model` would time it — layer groups, DDR plan, codegen, the command-level simulation —
// in process, so one evaluation of the 12 training rows takes seconds, not minutes.
//
// The fit minimizes the sum over rows of log(simulated / published)^2 by coordinate search in a
// transformed space (log for cycle counts, logit for fractions), each parameter per chip (--fit) or
// one value for all chips (--share). It prints every row before and after, the fitted values, and with
// --loo the leave-one-out figure: each row predicted by a fit that did not see it (what a new model
// would meet). --write DIR writes the fitted profiles (the base profile with the values replaced and a
// `calibration` note naming the rows).
//
//===----------------------------------------------------------------------===//

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Backend/CostModel.h"
#include "tpuc/Backend/FromMlir.h"
#include "tpuc/Backend/GlobalMemory.h"
#include "tpuc/Backend/LayerGroup.h"
#include "tpuc/Codegen/Codegen.h"
#include "tpuc/LLM/DryRun.h"
#include "tpuc/LLM/HFConfig.h"
#include "tpuc/LLM/LlmConvert.h"
#include "tpuc/Simulator/CmdSim.h"
#include "tpuc/Transforms/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using json = nlohmann::json;
using namespace tpuc;

/// One published figure and what is needed to simulate it.
struct Row {
  std::string name, chip, precision;
  double published = 0; ///< ms (a network) or ms per token (LLM decode, from tokens/s).
  std::optional<backend::Graph> graph;
  std::optional<llm::ModelConfig> config;
  std::optional<llm::ConvertPlan> plan;
  bool decode = false;
};

/// A parameter being fitted: a dotted path into the profile JSON, and the chips it applies to.
struct Param {
  std::string path;
  std::vector<std::string> chips; ///< One chip, or every chip of the table (--share).
  double value = 0;
  bool fraction = false; ///< In (0, 1] (an efficiency); otherwise >= 0 (cycles).
};

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "bench-cost-fit: %s\n", message.c_str());
  std::exit(2);
}

std::vector<std::string> splitList(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, ','))
    if (!part.empty())
      out.push_back(part);
  return out;
}

/// The JSON pointer of a dotted profile path ("tiu.pass_cycles" -> "/tiu/pass_cycles").
json::json_pointer pointer(std::string path) {
  std::replace(path.begin(), path.end(), '.', '/');
  return json::json_pointer("/" + path);
}

/// Sets a profile field; an F16 efficiency is BF16's too (the same 16-bit cube).
void set(json &profile, const std::string &path, const json &value) {
  profile[pointer(path)] = value; // creates the objects on the way
  const std::string f16 = ".F16";
  if (path.find("efficiency") != std::string::npos && path.size() > f16.size() &&
      path.compare(path.size() - f16.size(), f16.size(), f16) == 0)
    profile[pointer(path.substr(0, path.size() - f16.size()) + ".BF16")] = value;
}

bool isFraction(const std::string &path) { return path.find("efficiency") != std::string::npos; }

/// The value a parameter has in a profile JSON (its default when absent: 1 for a fraction, 0 otherwise).
double valueIn(const json &profile, const std::string &path) {
  json::json_pointer p = pointer(path);
  if (profile.contains(p) && profile.at(p).is_number())
    return profile.at(p).get<double>();
  return isFraction(path) ? 1.0 : 0.0;
}

/// The largest value a non-fraction parameter may take (npu.engine_contention is in [0, 1]).
double upperBound(const std::string &path) {
  return path.find("contention") != std::string::npos ? 1.0 : std::numeric_limits<double>::infinity();
}

/// Parameters move in log space: a fraction as log(x) (clamped to [0.02, 1]), a cycle count or a
/// contention as log(1 + x) (clamped to [0, upperBound]), so a step is a ratio, not an offset.
double toSpace(const Param &p, double x) {
  return p.fraction ? std::log(std::clamp(x, 0.02, 1.0)) : std::log1p(std::clamp(x, 0.0, upperBound(p.path)));
}

double fromSpace(const Param &p, double y) {
  return p.fraction ? std::clamp(std::exp(y), 0.02, 1.0) : std::clamp(std::expm1(y), 0.0, upperBound(p.path));
}

class Fitter {
public:
  Fitter(std::vector<Row> &rows, std::map<std::string, json> base) : rows(rows), base(std::move(base)) {}

  /// The profile of `chip` with the parameters' current values.
  backend::ChipProfile profile(const std::string &chip, const std::vector<Param> &params) const {
    json j = base.at(chip);
    for (const Param &p : params)
      if (std::find(p.chips.begin(), p.chips.end(), chip) != p.chips.end())
        set(j, p.path,
            isIntegerField(p.path) ? json(static_cast<int64_t>(std::llround(p.value))) : json(p.value));
    return backend::parseChipProfile(j.dump(), chip + ".json (candidate)");
  }

  /// Simulated figure of one row (ms, or ms per decode token).
  double simulate(const Row &r, const backend::ChipProfile &chip) const {
    if (r.decode) {
      auto run = llm::dryRunOnChip(*r.config, *r.plan, chip);
      if (!run)
        die(r.name + ": " + llvm::toString(run.takeError()));
      return run->decodeMsPerToken;
    }
    backend::GroupOptions options;
    backend::LayerGroupPlan groups = backend::planLayerGroups(chip, *r.graph, options);
    backend::GmemPlan gmem = backend::planGlobalMemory(chip, *r.graph, groups);
    codegen::StageCode code = codegen::generateStage(chip, *r.graph, groups, gmem, "main");
    cmdsim::SimResult sim = cmdsim::simulateStage(chip, code.stage);
    if (!sim.errors.empty())
      die(r.name + ": " + sim.errors.front());
    return backend::cyclesToUs(chip, sim.totalCycles) / 1000.0;
  }

  /// Simulated / published per row (the row `skip` is not evaluated: 0). A row is simulated again only
  /// when a parameter of its chip changed; the rows to simulate run in parallel, a thread each.
  std::vector<double> ratios(const std::vector<Param> &params, int skip = -1) {
    ++evaluations;
    std::map<std::string, std::string> keys;
    for (const std::string &chip : chipsOf())
      for (const Param &p : params)
        if (std::find(p.chips.begin(), p.chips.end(), chip) != p.chips.end())
          keys[chip] += p.path + "=" + std::to_string(p.value) + ";";
    std::vector<double> out(rows.size(), 0);
    std::vector<size_t> todo;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (static_cast<int>(i) == skip)
        continue;
      auto hit = memo.find({i, keys[rows[i].chip]});
      if (hit != memo.end())
        out[i] = hit->second;
      else
        todo.push_back(i);
    }
    std::map<std::string, backend::ChipProfile> chips;
    for (size_t i : todo)
      if (!chips.count(rows[i].chip))
        chips.emplace(rows[i].chip, profile(rows[i].chip, params));
    std::vector<std::future<double>> running;
    for (size_t i : todo)
      running.push_back(std::async(std::launch::async, [&, i] {
        return simulate(rows[i], chips.at(rows[i].chip)) / rows[i].published;
      }));
    for (size_t k = 0; k < todo.size(); ++k) {
      out[todo[k]] = running[k].get();
      memo[{todo[k], keys[rows[todo[k]].chip]}] = out[todo[k]];
    }
    return out;
  }

  static double loss(const std::vector<double> &ratios, int skip = -1) {
    double l = 0;
    for (size_t i = 0; i < ratios.size(); ++i)
      if (static_cast<int>(i) != skip) {
        double e = std::log(ratios[i]);
        l += e * e;
        // Outside 0.76..1.24 costs far more: every row within ±25 % is the goal, not the mean alone (the
        // 1 % margin keeps rounded profile values inside).
        double over = std::max({0.0, e - std::log(1.24), std::log(0.76) - e});
        l += 1000 * over * over;
      }
    return l;
  }

  /// Coordinate search: each parameter in turn moves along its space while that lowers the loss (the
  /// step growing 1.5x per success, up or down), and its step halves when neither direction helps; it
  /// stops when every step is below 0.01 (1 % in value) or the budget is spent.
  double fit(std::vector<Param> &params, int maxEvals, int skip = -1, bool verbose = false) {
    double best = loss(ratios(params, skip), skip);
    std::vector<double> step(params.size(), 0.5);
    int used = 1;
    auto tryValue = [&](Param &p, double y) {
      double old = p.value;
      p.value = fromSpace(p, y);
      if (p.value == old)
        return false; // at a bound
      double l = loss(ratios(params, skip), skip);
      ++used;
      if (l < best - 1e-9) {
        best = l;
        if (verbose)
          std::fprintf(stderr, "  eval %d: loss %.5f  %s (%s) = %.4g\n", used, l, p.path.c_str(),
                       p.chips.size() == 1 ? p.chips[0].c_str() : "all", p.value);
        return true;
      }
      p.value = old;
      return false;
    };
    while (used < maxEvals) {
      for (size_t k = 0; k < params.size() && used < maxEvals; ++k) {
        Param &p = params[k];
        bool moved = false;
        for (double dir : {+1.0, -1.0}) {
          double s = step[k];
          while (used < maxEvals && tryValue(p, toSpace(p, p.value) + dir * s)) {
            moved = true;
            s *= 1.5;
          }
          if (moved)
            break;
        }
        if (!moved)
          step[k] *= 0.5;
      }
      double largest = 0;
      for (double s : step)
        largest = std::max(largest, s);
      if (largest < 0.01)
        break;
    }
    return best;
  }

  int evaluations = 0;

private:
  std::vector<std::string> chipsOf() const {
    std::vector<std::string> out;
    for (const Row &r : rows)
      if (std::find(out.begin(), out.end(), r.chip) == out.end())
        out.push_back(r.chip);
    return out;
  }
  std::map<std::pair<size_t, std::string>, double> memo;
  static bool isIntegerField(const std::string &path) {
    return path == "tiu.command_cycles" || path == "gdma.latency_cycles" || path == "sync_cycles";
  }
  std::vector<Row> &rows;
  std::map<std::string, json> base;
};

void printRows(const std::vector<Row> &rows, const std::vector<double> &before,
               const std::vector<double> &after, const std::vector<double> *loo) {
  std::printf("%-22s %-8s %-5s %10s %10s %8s %8s%s\n", "row", "chip", "prec", "published", "fitted", "before",
              "after", loo ? "   held out" : "");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row &r = rows[i];
    std::printf("%-22s %-8s %-5s %10.3f %10.3f %8.2f %8.2f %s", r.name.c_str(), r.chip.c_str(),
                r.precision.c_str(), r.published, r.published * after[i], before[i], after[i],
                after[i] >= 0.75 && after[i] <= 1.25 ? "ok " : "OFF");
    if (loo)
      std::printf(" %8.2f %s", (*loo)[i], (*loo)[i] >= 0.75 && (*loo)[i] <= 1.25 ? "ok" : "OFF");
    std::printf("\n");
  }
}

double geomean(const std::vector<double> &ratios) {
  double s = 0;
  for (double r : ratios)
    s += std::abs(std::log(r));
  return std::exp(s / static_cast<double>(ratios.size()));
}

int within(const std::vector<double> &ratios) {
  int n = 0;
  for (double r : ratios)
    n += r >= 0.75 && r <= 1.25;
  return n;
}

} // namespace

int main(int argc, char **argv) {
  std::string table, write, jsonOut;
  std::vector<std::string> fitList = {"tiu.conv_efficiency.INT8", "tiu.conv_efficiency.F16",
                                      "tiu.conv_efficiency.F32", "gdma.efficiency"};
  std::vector<std::string> shareList = {"tiu.pass_cycles", "gdma.run_cycles", "tiu.conv_stride_efficiency",
                                        "npu.engine_contention"};
  int maxEvals = 400;
  bool loo = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc)
        die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--table")
      table = next();
    else if (a == "--fit")
      fitList = splitList(next());
    else if (a == "--share")
      shareList = splitList(next());
    else if (a == "--write")
      write = next();
    else if (a == "--evals") {
      std::string v = next();
      char *end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n < 1 || n > 1000000)
        die("--evals: expected a positive number of evaluations, got '" + v + "'");
      maxEvals = static_cast<int>(n);
    } else if (a == "--json")
      jsonOut = next();
    else if (a == "--loo")
      loo = true;
    else if (a == "-h" || a == "--help") {
      std::printf(
          "usage: bench-cost-fit --table TABLE.json [--fit P,...] [--share P,...] [--evals N] [--loo] "
          "[--write DIR] [--json OUT]\n");
      return 0;
    } else
      die("unknown argument " + a);
  }
  if (table.empty())
    die("--table is required (bench/cost_table.py --prepare writes it)");
  std::ifstream in(table);
  if (!in)
    die(table + ": cannot open");
  json t;
  try {
    in >> t;
  } catch (const std::exception &e) {
    die(table + ": invalid JSON: " + e.what());
  }
  if (!t.contains("rows") || !t["rows"].is_array() || t["rows"].empty())
    die(table + ": rows: expected a non-empty array");

  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::vector<Row> rows;
  std::map<std::string, json> base;
  std::vector<std::string> chipOrder;
  for (const json &jr : t["rows"]) {
    Row r;
    r.name = jr.value("name", "");
    r.chip = jr.value("chip", "");
    r.precision = jr.value("precision", "");
    if (r.name.empty() || r.chip.empty())
      die(table + ": rows[]: name and chip are required");
    if (!base.count(r.chip)) {
      backend::ChipProfile p;
      try {
        p = backend::findChipProfile(r.chip);
      } catch (const std::exception &e) {
        die(e.what());
      }
      std::ifstream pf(p.sourceFile);
      base[r.chip] = json::parse(pf);
      chipOrder.push_back(r.chip);
    }
    if (jr.contains("tpu_mlir")) {
      std::string path = jr["tpu_mlir"].get<std::string>();
      auto module = mlir::parseSourceFile<mlir::ModuleOp>(path, &context);
      if (!module)
        die(path + ": cannot parse");
      mlir::func::FuncOp func;
      for (auto f : module->getOps<mlir::func::FuncOp>())
        if (!f.isDeclaration())
          func = f;
      auto g = backend::graphFromFunc(func);
      if (!func || mlir::failed(g))
        die(path + ": no backend graph");
      r.graph = std::move(*g);
      r.published = jr.value("published_ms", 0.0);
    } else if (jr.contains("llm_config")) {
      auto config = llm::readModelConfig(jr["llm_config"].get<std::string>());
      if (!config)
        die(r.name + ": " + llvm::toString(config.takeError()));
      llm::ConvertOptions options;
      options.seqLength = jr.value("seq_length", 512);
      options.quantize = jr.value("quantize", std::string("w4bf16"));
      options.qGroupSize = jr.value("q_group_size", 64);
      auto plan = llm::planConversion(*config, options);
      if (!plan)
        die(r.name + ": " + llvm::toString(plan.takeError()));
      r.config = std::move(*config);
      r.plan = std::move(*plan);
      r.decode = true;
      double tps = jr.value("published_tokens_per_s", 0.0);
      r.published = tps > 0 ? 1000.0 / tps : 0;
    } else
      die(table + ": row " + r.name + ": expected tpu_mlir or llm_config");
    if (r.published <= 0)
      die(table + ": row " + r.name + ": expected a positive published figure");
    rows.push_back(std::move(r));
  }

  std::vector<Param> params;
  for (const std::string &path : shareList) {
    Param p{path, chipOrder, valueIn(base[chipOrder.front()], path), isFraction(path)};
    params.push_back(p);
  }
  for (const std::string &chip : chipOrder)
    for (const std::string &path : fitList)
      params.push_back({path, {chip}, valueIn(base[chip], path), isFraction(path)});

  Fitter fitter(rows, base);
  auto start = std::chrono::steady_clock::now();
  std::vector<double> before = fitter.ratios(params);
  double evalSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "bench-cost-fit: %zu rows, %zu parameters, one evaluation %.2f s\n", rows.size(),
               params.size(), evalSeconds);
  std::vector<Param> fitted = params;
  double l = fitter.fit(fitted, maxEvals, -1, true);
  std::vector<double> after = fitter.ratios(fitted);

  std::vector<double> held;
  if (loo)
    for (size_t i = 0; i < rows.size(); ++i) {
      std::vector<Param> p = params;
      fitter.fit(p, maxEvals, static_cast<int>(i));
      const backend::ChipProfile chip = fitter.profile(rows[i].chip, p);
      held.push_back(fitter.simulate(rows[i], chip) / rows[i].published);
      std::fprintf(stderr, "  held out %s %s %s: %.2f\n", rows[i].name.c_str(), rows[i].chip.c_str(),
                   rows[i].precision.c_str(), held.back());
    }

  printRows(rows, before, after, loo ? &held : nullptr);
  std::printf("\nbefore: %d of %zu within ±25 %%, geometric-mean error x%.3f\n", within(before), rows.size(),
              geomean(before));
  std::printf("after:  %d of %zu within ±25 %%, geometric-mean error x%.3f (loss %.4f, %d evaluations)\n",
              within(after), rows.size(), geomean(after), l, fitter.evaluations);
  if (loo)
    std::printf("held out: %d of %zu within ±25 %%, geometric-mean error x%.3f\n", within(held), rows.size(),
                geomean(held));
  std::printf("\nfitted parameters:\n");
  for (const Param &p : fitted) {
    std::string chips;
    for (const std::string &c : p.chips)
      chips += (chips.empty() ? "" : ",") + c;
    std::printf("  %-22s %-24s %.4g (was %.4g)\n", p.path.c_str(), chips.c_str(), p.value,
                valueIn(base[p.chips.front()], p.path));
  }

  if (!jsonOut.empty()) {
    json j;
    for (size_t i = 0; i < rows.size(); ++i) {
      json r = {{"name", rows[i].name},           {"chip", rows[i].chip}, {"precision", rows[i].precision},
                {"published", rows[i].published}, {"before", before[i]},  {"after", after[i]}};
      if (loo)
        r["held_out"] = held[i];
      j["rows"].push_back(r);
    }
    for (const Param &p : fitted)
      j["parameters"].push_back({{"path", p.path}, {"chips", p.chips}, {"value", p.value}});
    j["geomean_before"] = geomean(before);
    j["geomean_after"] = geomean(after);
    std::ofstream out(jsonOut);
    out << j.dump(1) << "\n";
    if (!out)
      die(jsonOut + ": cannot write");
  }
  if (!write.empty()) {
    for (const std::string &chip : chipOrder) {
      json j = base[chip];
      for (const Param &p : fitted)
        if (std::find(p.chips.begin(), p.chips.end(), chip) != p.chips.end()) {
          set(j, p.path,
              p.fraction || upperBound(p.path) <= 1 ? std::round(p.value * 1000) / 1000
                                                    : std::round(p.value * 10) / 10);
        }
      std::string note;
      for (const Param &p : fitted)
        if (std::find(p.chips.begin(), p.chips.end(), chip) != p.chips.end())
          note += (note.empty() ? "" : ", ") + p.path;
      note += " fitted by bench-cost-fit to:";
      for (const Row &r : rows)
        if (r.chip == chip)
          note += " " + r.name + (r.precision.empty() ? "" : " " + r.precision) + ";";
      j["calibration"] = note;
      std::string path = write + "/" + chip + ".json";
      std::ofstream out(path);
      out << j.dump(2) << "\n";
      if (!out)
        die(path + ": cannot write");
      std::printf("wrote %s\n", path.c_str());
    }
  }
  return 0;
}
