//===- DeployCommand.cpp - deploy (TPU-MLIR's model_deploy, up to Tpu) ----===//
//
// Top MLIR -> (lowerToTpu, one precision plus quantize-table overrides) -> Tpu MLIR + weights; with
// --test_input the Tpu functional simulator runs the lowered module and its tensors are compared with the
// float reference (--test_reference, or the Top interpreter on the same input): the outputs by default,
// every layer with --compare_all, which also runs the isolated mode (each op fed the reference's inputs)
// and prints both side by side, so the user sees where error is born and where it piles up. The model
// file (--model) comes from the backend (runBackend: layer groups, addresses, codegen) on a copy, with the
// studio's plan and the engine trace (the model file's timing simulation; the check writes it when there
// is a test input); --explain_groups prints the plan's reason for every cut.
//
//===----------------------------------------------------------------------===//

#include "DeployInternal.h"

#include "tpuc/Driver/AccuracyRecords.h"
#include "tpuc/Driver/DeployStages.h"
#include "tpuc/Driver/Driver.h"
#include "tpuc/Driver/ManifestInputs.h"
#include "tpuc/Driver/TestInputs.h"
#include "tpuc/Driver/TopModule.h"
#include "tpuc/Support/FileWrite.h"

#include "tpuc/Backend/Artifacts.h"
#include "tpuc/Codegen/ModelCodegen.h"
#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/Simulator/CmdSim.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Simulator/Runner.h"
#include "tpuc/Simulator/TpuSim.h"
#include "tpuc/Support/Progress.h"
#include "tpuc/Transforms/FusePreprocess.h"
#include "tpuc/Transforms/PassRecorder.h"
#include "tpuc/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

namespace tpuc::cli {
using driver::deployArtifactStem;
using driver::DeployOptions;
using driver::DeployResult;
using driver::deployResultPath;
using driver::kExitFailed;
using driver::kExitOk;
using driver::kExitUsage;
using driver::resultStatus;
using driver::TensorResult;
using driver::toJson;

llvm::Error writeText(std::initializer_list<std::pair<std::string, std::string>> files) {
  for (const auto &[path, text] : files)
    if (Result<void> written = writeFileAtomically(path, text); !written)
      return llvm::createStringError(written.error());
  return llvm::Error::success();
}

int DeployContext::fail(int code, const std::string &line) const {
  report.messages.push_back(line);
  report.record.message = line;
  return code;
}

namespace {

std::string stripSuffix(const std::string &path, const std::string &suffix) {
  if (path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
    return path.substr(0, path.size() - suffix.size());
  return path;
}

std::string artifactStem(const DeployOptions &o) { return deployArtifactStem(o); }

/// A metric to six decimals (as the text table prints it); "nan" / "inf" / "-inf" as strings.
nlohmann::ordered_json metricJson(double v) {
  if (!std::isfinite(v))
    return formatMetric(v);
  return std::strtod(formatMetric(v).c_str(), nullptr);
}

nlohmann::ordered_json metricsJson(const TensorComparison &c) {
  nlohmann::ordered_json j;
  j["status"] = std::string(compareStatusName(c.status));
  j["pass"] = c.passed();
  j["cosine"] = metricJson(c.metrics.cosine);
  j["euclidean"] = metricJson(c.metrics.euclidean);
  j["sqnr"] = metricJson(c.metrics.sqnr);
  j["max_abs_diff"] = metricJson(c.metrics.maxAbsDiff);
  return j;
}

/// Lowering as the top-to-tpu pass under a PassRecorder: the snapshot folder then holds the Top input and
/// the Tpu result, which the studio's pass inspection shows side by side with provenance.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> lowerCopyRecorded(mlir::ModuleOp top,
                                                                    const DeployOptions &o) {
  PassRecorder recorder(o.snapshots);
  if (!recorder.error().empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "--snapshots: " + recorder.error());
  mlir::OwningOpRef<mlir::ModuleOp> copy(top.clone());
  mlir::PassManager pm(top.getContext());
  recorder.attach(pm, "deploy");
  TopToTpuOptions options;
  options.chip = o.chip;
  options.mode = o.quantize;
  options.asymmetric = o.asymmetric;
  options.calibrationTable = o.calibrationTable;
  options.quantizeTable = o.quantizeTable;
  options.qGroupSize = o.qGroupSize;
  options.quantInput = o.quantInput;
  options.quantOutput = o.quantOutput;
  if (o.fusePreprocess) {
    TopFusePreprocessOptions fuse;
    fuse.customizationFormat = o.customizationFormat;
    pm.addPass(createTopFusePreprocess(fuse));
  }
  pm.addPass(createTopToTpu(options));
  std::string firstError;
  mlir::ScopedDiagnosticHandler handler(top.getContext(), [&](mlir::Diagnostic &diag) {
    if (diag.getSeverity() == mlir::DiagnosticSeverity::Error && firstError.empty())
      firstError = diag.str();
    return mlir::success();
  });
  if (mlir::failed(pm.run(*copy)))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   firstError.empty() ? "top-to-tpu failed" : firstError);
  if (!recorder.error().empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "--snapshots: " + recorder.error());
  return copy;
}

} // namespace

std::vector<TensorResult> tensorResults(const NpzComparison &comparison) {
  std::vector<TensorResult> rows;
  for (const TensorComparison &c : comparison.results)
    rows.push_back({c.name, std::string(compareStatusName(c.status)), c.passed(), c.metrics.cosine,
                    c.metrics.euclidean, c.metrics.sqnr, c.metrics.maxAbsDiff});
  return rows;
}

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> lowerCopy(mlir::ModuleOp top,
                                                            const LoweringOptions &options) {
  mlir::OwningOpRef<mlir::ModuleOp> copy(top.clone());
  if (auto err = lowerToTpu(*copy, options))
    return std::move(err);
  return copy;
}

std::vector<std::string> topOutputNames(mlir::ModuleOp top) { return sim::Interpreter(top).outputNames(); }

llvm::Expected<RunResult> runReference(mlir::ModuleOp top, const NpzFile &inputs) {
  sim::TopRunner runner(top);
  if (auto err = sim::runOn(runner, inputs, {.dumpAll = true}))
    return std::move(err);
  return RunResult{runner.tensors(), runner.outputs()};
}

llvm::Expected<RunResult> runTpu(mlir::ModuleOp tpu, const NpzFile &inputs, bool dumpAll,
                                 const NpzFile *reference, const std::vector<std::string> &outputNames) {
  sim::TpuRunner runner(tpu, outputNames, reference);
  if (auto err = sim::runOn(runner, inputs, {.dumpAll = dumpAll}))
    return std::move(err);
  return RunResult{runner.tensors(), runner.outputs()};
}

double cosineOf(const Tensor &a, const Tensor &b) {
  return compareTensors(a, b, CompareTolerance{}).metrics.cosine;
}

double outputCosine(const RunResult &tpu, const RunResult &reference) {
  double worst = 1.0;
  for (const std::string &name : reference.outputs.names())
    worst = std::min(
        worst, tpu.outputs.has(name) ? cosineOf(tpu.outputs.get(name), reference.outputs.get(name)) : 0.0);
  return worst;
}

std::vector<LayerRow> sideBySide(const NpzComparison &accumulated, const NpzComparison *isolated,
                                 const NpzFile &reference) {
  std::map<std::string, const TensorComparison *> acc, iso;
  for (const TensorComparison &c : accumulated.results)
    acc[c.name] = &c;
  if (isolated)
    for (const TensorComparison &c : isolated->results)
      iso[c.name] = &c;
  std::vector<LayerRow> rows;
  for (const std::string &name : reference.names()) {
    auto a = acc.find(name);
    if (a == acc.end())
      continue;
    LayerRow row{name, *a->second, std::nullopt};
    if (auto i = iso.find(name); i != iso.end())
      row.isolated = *i->second;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string formatSideBySideText(const std::vector<LayerRow> &rows) {
  size_t width = 24;
  for (const LayerRow &row : rows)
    width = std::max(width, row.name.size() + 2);
  std::ostringstream out;
  out << std::left << std::setw(static_cast<int>(width)) << "name" << std::setw(40)
      << "accumulated (cos euc status)"
      << "isolated (cos euc status)\n";
  for (const LayerRow &row : rows) {
    auto cell = [](const TensorComparison &c) {
      std::ostringstream s;
      s << formatMetric(c.metrics.cosine) << " " << formatMetric(c.metrics.euclidean) << " "
        << compareStatusName(c.status);
      return s.str();
    };
    out << std::setw(static_cast<int>(width)) << row.name << std::setw(40) << cell(row.accumulated)
        << (row.isolated ? cell(*row.isolated) : std::string("-")) << "\n";
  }
  return out.str();
}

std::string formatSideBySideCsv(const std::vector<LayerRow> &rows) {
  std::ostringstream out;
  out << "name,acc_status,acc_pass,acc_cosine,acc_euclidean,acc_sqnr,iso_status,iso_pass,iso_cosine,iso_"
         "euclidean,"
         "iso_sqnr\n";
  for (const LayerRow &row : rows) {
    auto cells = [](const TensorComparison *c) {
      if (!c)
        return std::string(",,,,");
      return std::string(compareStatusName(c->status)) + "," + (c->passed() ? "1" : "0") + "," +
             formatMetric(c->metrics.cosine) + "," + formatMetric(c->metrics.euclidean) + "," +
             formatMetric(c->metrics.sqnr);
    };
    out << row.name << "," << cells(&row.accumulated) << "," << cells(row.isolated ? &*row.isolated : nullptr)
        << "\n";
  }
  return out.str();
}

std::string formatSideBySideJson(const std::vector<LayerRow> &rows, const CompareTolerance &tolerance) {
  nlohmann::ordered_json j;
  j["tolerance"] = {{"cosine", metricJson(tolerance.cosine)}, {"euclidean", metricJson(tolerance.euclidean)}};
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  std::string firstFailing;
  for (const LayerRow &row : rows) {
    if (firstFailing.empty() && !row.accumulated.passed())
      firstFailing = row.name;
    nlohmann::ordered_json layer;
    layer["name"] = row.name;
    layer["accumulated"] = metricsJson(row.accumulated);
    if (row.isolated)
      layer["isolated"] = metricsJson(*row.isolated);
    layers.push_back(std::move(layer));
  }
  j["layers"] = std::move(layers);
  j["first_failing"] =
      firstFailing.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(firstFailing);
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

llvm::Error loadModelFile(const std::string &path, codegen::Model &model, backend::ChipProfile &chip) {
  try {
    model = codegen::readModelFile(path);
    chip = backend::findChipProfile(model.chip);
  } catch (const std::exception &e) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), e.what());
  }
  return llvm::Error::success();
}

llvm::Expected<ModelCheck> checkModelFile(const std::string &modelPath, const NpzFile &inputs,
                                          sim::Runner &tpu, const std::string &correctness,
                                          const std::string &outputsPath) {
  codegen::Model model;
  backend::ChipProfile chip;
  if (llvm::Error err = loadModelFile(modelPath, model, chip))
    return std::move(err);
  cmdsim::ModelFileRunner runner(modelPath, chip, model);
  sim::RunCompareOptions options;
  options.targetInputs = &inputs;
  options.allTensors = true;
  options.tolerance = *CompareTolerance::parse(correctness);
  // Elements of intermediates that no command computed are left out of both sides.
  options.align = [&](NpzFile &target, NpzFile &reference) {
    cmdsim::maskNotComputed(runner.stageRunner().stats().partial, target, reference);
  };
  auto compared = sim::runAndCompare(runner, tpu, options);
  if (!compared)
    return compared.takeError();
  try {
    runner.tensors().write(outputsPath, /*compressed=*/false);
  } catch (const std::exception &e) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), e.what());
  }
  ModelCheck check;
  check.stats = runner.stageRunner().stats();
  check.trace = cmdsim::traceJson(chip, runner.stageRunner().stage(), check.stats.timing);
  if (const TensorComparison *failing = compared->firstFailing())
    check.failing = failing->name;
  check.comparison = std::move(compared->comparison);
  const auto &t = check.stats.timing;
  std::ostringstream out;
  out << "model file vs Tpu simulation: " << check.comparison.count(CompareStatus::Equal) << " of "
      << check.comparison.results.size() << " tensors EQUAL, " << check.comparison.failedCount()
      << " failing";
  if (!check.stats.partial.empty())
    out << " (" << check.stats.partial.size()
        << " computed in part: cells no reader needs are never computed)";
  out << "; simulated " << std::fixed << std::setprecision(3) << cmdsim::latencyMs(chip, t.totalCycles)
      << " ms on " << chip.name << " (" << check.stats.tiuCommands << " TIU + " << check.stats.gdmaCommands
      << " GDMA commands), wall " << check.stats.seconds << " s";
  check.summary = out.str();
  return check;
}

llvm::Expected<SimulatedLatency> simulatedLatency(mlir::ModuleOp tpu, const std::string &chip, int opt) {
  // The same backend deploy runs for --model, on a copy (the caller keeps simulating the lowered module);
  // weights that live only in memory are encoded from it, so nothing is written to disk.
  mlir::OwningOpRef<mlir::ModuleOp> addressed(tpu.clone());
  BackendOptions backend;
  backend.chip = chip;
  backend.opt = opt;
  if (llvm::Error err = runBackend(*addressed, backend))
    return std::move(err);
  auto model = generateModel(*addressed);
  if (!model)
    return model.takeError();
  if (model->nets.empty() || model->nets[0].stages.empty())
    return llvm::createStringError("the generated model has no stage");
  backend::ChipProfile profile;
  try {
    profile = backend::findChipProfile(model->chip);
  } catch (const std::exception &e) {
    return llvm::createStringError(e.what());
  }
  cmdsim::SimResult timing = cmdsim::simulateStage(profile, model->nets[0].stages[0]);
  if (!timing.errors.empty())
    return llvm::createStringError("timing simulation: " + timing.errors.front());
  return SimulatedLatency{timing.totalCycles, cmdsim::latencyMs(profile, timing.totalCycles)};
}

std::optional<int> checkModelStage(DeployContext &context, const NpzFile &inputs, sim::Runner &tpu,
                                   std::vector<std::string> &artifacts) {
  // Codegen's proof: the model file on the command-level simulator against the Tpu simulation, per layer.
  const DeployOptions &o = context.options;
  const driver::Sink &progress = context.progress;
  if (progress.isCancelled()) {
    context.cancelled = "before the run stage";
    return kCancelled;
  }
  progress.report("run", 0.0, "command-level simulation of " + o.model);
  std::string stem = artifactStem(o);
  std::string modelOutputs = stem + "_model_outputs.npz", trace = stem + "_trace.json",
              modelInputs = stem + "_in_f32.npz";
  auto check = checkModelFile(o.model, inputs, tpu, o.correctness, modelOutputs);
  if (!check)
    return context.fail(kExitUsage, llvm::toString(check.takeError()));
  progress.write(check->summary + "\n", /*flush=*/true);
  // The engine trace of that run, and its inputs as tensors (model_runner's input; TPU-MLIR's in_f32.npz).
  if (llvm::Error err = writeText({{trace, check->trace}}))
    return context.fail(kExitUsage, llvm::toString(std::move(err)));
  try {
    inputs.write(modelInputs, /*compressed=*/false);
  } catch (const std::exception &e) {
    return context.fail(kExitUsage, e.what());
  }
  artifacts.insert(artifacts.end(), {modelOutputs, trace, modelInputs});
  if (!check->failing.empty()) {
    progress.report("run", 1.0, "model file differs at " + check->failing, artifacts);
    return context.fail(kExitFailed, o.model + ": model-file tensor '" + check->failing +
                                         "' differs from the Tpu simulation beyond --correctness " +
                                         o.correctness);
  }
  progress.report("run", 1.0, check->summary, artifacts);
  return std::nullopt;
}

namespace {

/// The deploy itself; `report` collects what the result record says beyond the exit code, and the stage
/// the sink cancelled before (with kCancelled).
int deploy(const DeployOptions &o, const driver::Sink &progress, driver::DeployReport &report,
           std::string &cancelledStage) {
  DeployResult &record = report.record;
  auto fail = [&report](int code, const std::string &message) {
    report.messages.push_back(message);
    report.record.message = message;
    return code;
  };
  // Cancellation is polled between stages: a stage, once started, runs to its end.
  auto cancelled = [&](const char *stage) {
    if (!progress.isCancelled())
      return false;
    cancelledStage = std::string("before the ") + stage + " stage";
    return true;
  };
  if (cancelled("lower"))
    return kCancelled;
  // --num_core against the chip before any work: one line naming the chip and its cores.
  try {
    backend::ChipProfile chip = backend::findChipProfile(o.chip);
    if (o.numCore > chip.cores)
      return fail(kExitUsage, "'--num_core " + std::to_string(o.numCore) + "': chip " + chip.name + " has " +
                                  std::to_string(chip.cores) + (chip.cores == 1 ? " core" : " cores"));
  } catch (const std::exception &e) {
    return fail(kExitUsage, e.what());
  }
  progress.report("lower", 0.0, "reading " + o.mlir);
  mlir::MLIRContext context;
  std::string error;
  auto loaded = loadTopModule(context, o.mlir);
  if (!loaded) {
    error = llvm::toString(loaded.takeError());
    return fail(kExitUsage, error);
  }
  mlir::OwningOpRef<mlir::ModuleOp> top = std::move(*loaded);
  // The run manifest's inputs: what this deploy reads, hashed as it starts.
  report.inputs = driver::modelInputs(o.mlir, *top);
  if (!o.calibrationTable.empty())
    report.inputs.push_back(driver::hashInput("calibration_table", o.calibrationTable));
  if (!o.quantizeTable.empty())
    report.inputs.push_back(driver::hashInput("quantize_table", o.quantizeTable));
  if (std::string profile = driver::chipProfileFile(o.chip); !profile.empty())
    report.inputs.push_back(driver::hashInput("chip_profile", profile));
  // --fuse_preprocess: the Top module whose inputs take raw pixels. It is what gets lowered; the reference
  // stays the unfused module on the preprocessed input.
  mlir::OwningOpRef<mlir::ModuleOp> fusedTop;
  std::vector<FusedInput> fusedInputs;
  if (o.fusePreprocess) {
    fusedTop = top->clone();
    auto fused = fusePreprocess(*fusedTop, o.customizationFormat);
    if (!fused)
      return fail(kExitUsage, o.mlir + ": " + llvm::toString(fused.takeError()));
    fusedInputs = std::move(*fused);
    for (const FusedInput &f : fusedInputs)
      progress.report("lower", 0.0,
                      "input '" + f.input + "' takes " + f.format + " pixels; '" + f.preprocessed +
                          "' is its preprocessed tensor");
  }
  mlir::ModuleOp lowered = fusedTop ? *fusedTop : *top;
  LoweringOptions lowering;
  lowering.chip = o.chip;
  lowering.mode = *parseLoweringMode(o.quantize);
  lowering.asymmetric = o.asymmetric;
  lowering.calibrationTableFile = o.calibrationTable;
  lowering.quantizeTableFile = o.quantizeTable;
  lowering.qGroupSize = o.qGroupSize;
  lowering.quantInput = o.quantInput;
  lowering.quantOutput = o.quantOutput;
  auto loweredCopy = o.snapshots.empty() ? lowerCopy(lowered, lowering) : lowerCopyRecorded(*top, o);
  if (!loweredCopy)
    return fail(kExitFailed, llvm::toString(loweredCopy.takeError()));
  mlir::OwningOpRef<mlir::ModuleOp> tpu = std::move(*loweredCopy);
  std::vector<std::string> artifacts;
  if (!o.snapshots.empty())
    progress.report("lower", 0.5, "IR snapshots in " + o.snapshots, {o.snapshots + "/index.json"});
  // --tpu_mlir, or with --debug <stem>_tpu.mlir: the lowered module and its weights.
  const std::string tpuMlir = !o.tpuMlir.empty() ? o.tpuMlir : o.debug ? artifactStem(o) + "_tpu.mlir" : "";
  if (!tpuMlir.empty()) {
    std::string weights = stripSuffix(tpuMlir, ".mlir") + "_weight.npz";
    if (mlir::failed(top::saveWeights(*tpu, weights)))
      return fail(kExitUsage, weights + ": cannot write the Tpu weights");
    std::error_code ec;
    llvm::raw_fd_ostream out(tpuMlir, ec);
    if (ec)
      return fail(kExitUsage, tpuMlir + ": " + ec.message());
    tpu->print(out, mlir::OpPrintingFlags().enableDebugInfo().useLocalScope());
    artifacts = {tpuMlir, weights};
  }
  progress.report("lower", 1.0, "lowered to Tpu " + o.quantize + " for " + o.chip, artifacts);
  record.artifacts.insert(record.artifacts.end(), artifacts.begin(), artifacts.end());
  if (!o.model.empty()) {
    // The backend reads weights from the file, so a Tpu module that only holds them in memory saves
    // them first; it then works on a copy so the simulation below runs on the lowered module as is.
    if (tpuMlir.empty()) {
      std::string weights = artifactStem(o) + "_tpu_weight.npz";
      if (mlir::failed(top::saveWeights(*tpu, weights)))
        return fail(kExitUsage, weights + ": cannot write the Tpu weights");
    }
    if (cancelled("backend"))
      return kCancelled;
    progress.report("backend", 0.0, "layer groups, addresses and codegen for " + o.chip);
    mlir::OwningOpRef<mlir::ModuleOp> addressed(tpu->clone());
    BackendOptions backend;
    backend.chip = o.chip;
    backend.opt = static_cast<int>(o.opt);
    backend.numCore = static_cast<int>(o.numCore);
    backend.planJsonPath = artifactStem(o) + "_plan.json";
    backend.modelPath = o.model;
    if (auto err = runBackend(*addressed, backend))
      return fail(kExitFailed, o.model + ": " + llvm::toString(std::move(err)));
    if (o.debug) {
      // The module as the backend left it: layer groups and DDR addresses on every op.
      std::string path = artifactStem(o) + "_tpu_addressed.mlir";
      std::error_code ec;
      llvm::raw_fd_ostream out(path, ec);
      if (ec)
        return fail(kExitUsage, path + ": " + ec.message());
      addressed->print(out, mlir::OpPrintingFlags().enableDebugInfo().useLocalScope());
      progress.report("backend", 0.9, "kept " + path, {path});
    }
    std::vector<std::string> written = {o.model, backend.planJsonPath};
    if (o.explainGroups) {
      try {
        std::string cuts;
        for (const auto &[group, message] : backend::readPlanCuts(backend.planJsonPath))
          cuts += "group " + std::to_string(group) + ": " + message + "\n";
        progress.write(cuts, /*flush=*/true);
      } catch (const std::exception &e) {
        return fail(kExitUsage, e.what());
      }
    }
    if (o.testInput.empty()) {
      // The engine trace of the model file from the timing simulation alone (no tensors), so every
      // compiled model has one; with a test input the check below writes it from its run.
      std::string trace = artifactStem(o) + "_trace.json";
      codegen::Model model;
      backend::ChipProfile chip;
      if (llvm::Error err = loadModelFile(o.model, model, chip))
        return fail(kExitUsage, llvm::toString(std::move(err)));
      if (model.nets.empty() || model.nets[0].stages.empty())
        return fail(kExitFailed, o.model + ": the model file has no stage");
      const codegen::Stage &stage = model.nets[0].stages[0];
      if (llvm::Error err =
              writeText({{trace, cmdsim::traceJson(chip, stage, cmdsim::simulateStage(chip, stage))}}))
        return fail(kExitUsage, llvm::toString(std::move(err)));
      written.push_back(trace);
    }
    progress.report("backend", 1.0, "wrote " + o.model, written);
    record.artifacts.insert(record.artifacts.end(), written.begin(), written.end());
  }
  if (o.testInput.empty())
    return kExitOk;
  if (cancelled("simulate"))
    return kCancelled;
  DeployContext deployed{o,       progress, report,      cancelledStage, *top, fusedTop ? *fusedTop : nullptr,
                         lowered, *tpu,     fusedInputs, lowering};
  if (manyTestSamples(o))
    return compareSamples(deployed);
  for (const std::string &file : o.testInput)
    report.inputs.push_back(driver::hashInput("test_input", file));
  if (!o.testReference.empty())
    report.inputs.push_back(driver::hashInput("test_reference", o.testReference));
  if (o.testNum > 0)
    return fail(kExitUsage, "'--test_num' applies to a folder or data list of test inputs, not to '" +
                                o.testInput.front() + "'");

  sim::Interpreter interpreter(*top);
  auto referenceInputs = loadTestInputs(o.testInput, interpreter, *top);
  if (!referenceInputs) {
    error = llvm::toString(referenceInputs.takeError());
    return fail(kExitUsage, error);
  }
  // What the chip is given: the same preprocessed tensors, or with --fuse_preprocess the raw pixels of
  // the same images (decoded and resized only).
  std::optional<NpzFile> inputs = *referenceInputs;
  if (fusedTop) {
    for (const std::string &file : o.testInput)
      if (!preprocess::isImageFile(file))
        return fail(kExitUsage, file + ": with --fuse_preprocess the test input must be an image (the model "
                                       "takes raw pixels; a tensor file holds preprocessed values)");
    auto raw = loadTestInputs(o.testInput, sim::Interpreter(*fusedTop), *fusedTop);
    if (!raw)
      return fail(kExitUsage, llvm::toString(raw.takeError()));
    inputs = std::move(*raw);
  }
  // The reference: the Top interpreter on the same input, or the tensors of --test_reference.
  std::vector<std::string> outputNames = interpreter.outputNames();
  std::unique_ptr<sim::Runner> reference;
  if (!o.testReference.empty()) {
    Result<NpzFile> file = NpzFile::tryRead(o.testReference);
    if (!file)
      return fail(kExitUsage, file.error());
    auto recorded = sim::RecordedRunner::create(o.testReference, std::move(*file), outputNames);
    if (!recorded)
      return fail(kExitUsage, llvm::toString(recorded.takeError()));
    reference = std::move(*recorded);
  } else {
    reference = std::make_unique<sim::TopRunner>(*top);
  }
  CompareTolerance tolerance = *CompareTolerance::parse(o.tolerance);
  sim::TpuRunner accumulated(*tpu, outputNames);
  sim::RunCompareOptions outputsCheck;
  outputsCheck.targetInputs = &*inputs;
  outputsCheck.referenceInputs = o.testReference.empty() ? &*referenceInputs : nullptr;
  outputsCheck.dumpAll = true;
  outputsCheck.tolerance = tolerance;
  outputsCheck.excepts = o.excepts;
  outputsCheck.targetName = "tpu";
  outputsCheck.referenceName = o.testReference.empty() ? "top" : o.testReference;
  outputsCheck.beforeRun = [&](const sim::Runner &runner) {
    if (&runner == &accumulated)
      progress.report("simulate", 0.0, "Tpu functional simulation (accumulated)");
    else
      progress.report("reference", 0.0, "running the Top IR on the test input");
  };
  auto outputs = sim::runAndCompare(accumulated, *reference, outputsCheck);
  if (!outputs)
    return fail(kExitFailed, llvm::toString(outputs.takeError()));
  std::string stem = artifactStem(o);
  std::string outputsFile = stem + "_tpu_outputs.npz";
  try {
    accumulated.tensors().write(outputsFile, /*compressed=*/false);
  } catch (const std::exception &e) {
    return fail(kExitUsage, e.what());
  }
  artifacts = {outputsFile};
  if (!o.model.empty())
    if (std::optional<int> code = checkModelStage(deployed, *inputs, accumulated, artifacts))
      return *code;

  record.artifacts.insert(record.artifacts.end(), artifacts.begin(), artifacts.end());
  record.outputs = tensorResults(outputs->comparison);
  if (o.compareAll) {
    if (cancelled("compare"))
      return kCancelled;
    // With fused preprocessing, an input's name holds raw pixels on the chip and preprocessed values in the
    // reference: the reference's tensor is compared with (and in isolated mode fed to) the preprocessed one.
    auto renameFused = [&](const NpzFile &tensors) {
      return driver::renameFusedInputs(tensors, fusedInputs);
    };
    std::optional<NpzFile> renamed;
    if (!fusedInputs.empty())
      renamed = renameFused(reference->tensors());
    const NpzFile &referenceTensors = renamed ? *renamed : reference->tensors();
    // Every reference tensor beside the Tpu ones (`_tpu_outputs.npz`): the studio's tensor viewer shows
    // both side by side, layer by layer.
    const std::string referenceFile = stem + "_top_outputs.npz";
    try {
      referenceTensors.write(referenceFile, /*compressed=*/false);
    } catch (const std::exception &e) {
      return fail(kExitUsage, e.what());
    }
    artifacts.push_back(referenceFile);
    record.artifacts.push_back(referenceFile);
    sim::TpuRunner isolated(*tpu, outputNames, &referenceTensors);
    sim::RunCompareOptions layers;
    layers.allTensors = true;
    layers.tolerance = tolerance;
    layers.excepts = o.excepts;
    if (renamed)
      layers.align = [&](NpzFile &, NpzFile &ref) { ref = renameFused(ref); };
    layers.targetInputs = &*inputs;
    layers.beforeRun = [&](const sim::Runner &) {
      progress.report("simulate", 0.5, "Tpu functional simulation (isolated)");
    };
    auto isoAll = sim::runAndCompare(isolated, *reference, layers);
    if (!isoAll)
      return fail(kExitFailed, llvm::toString(isoAll.takeError()));
    layers.targetInputs = nullptr; // the accumulated run is done
    auto accAll = sim::runAndCompare(accumulated, *reference, layers);
    if (!accAll)
      return fail(kExitFailed, llvm::toString(accAll.takeError()));
    std::vector<LayerRow> rows = sideBySide(accAll->comparison, &isoAll->comparison, referenceTensors);
    progress.write(formatSideBySideText(rows));
    std::string csv = stem + "_compare.csv", json = stem + "_compare.json";
    if (llvm::Error err =
            writeText({{csv, formatSideBySideCsv(rows)}, {json, formatSideBySideJson(rows, tolerance)}}))
      return fail(kExitUsage, llvm::toString(std::move(err)));
    artifacts.push_back(csv);
    artifacts.push_back(json);
    record.artifacts.insert(record.artifacts.end(), {csv, json});
    if (o.findDivergent) {
      // The rule on this one sample's comparisons; the float re-runs on the same sample.
      driver::SampleAggregator one;
      one.add(driver::sampleResult(o.testInput, {outputs->comparison, rows}), driver::observations(rows));
      driver::SampleLoader loader(*top, fusedTop ? *fusedTop : nullptr);
      if (std::optional<int> code = writeFirstDivergent(
              deployed, one.layers(), 1, {driver::CalibrationSample{o.testInput, ""}}, loader, artifacts))
        return *code;
    }
    for (const LayerRow &row : rows)
      if (!row.accumulated.passed()) {
        record.firstFailing = row.name;
        progress.write("\n", /*flush=*/true);
        progress.write(formatCompareText(outputs->comparison, false));
        progress.report("compare", 1.0, "failed at " + row.name, artifacts);
        return fail(kExitFailed, "Tpu tensors differ from the reference beyond --tolerance " + o.tolerance +
                                     "; first failing layer '" + row.name + "' (cos " +
                                     formatMetric(row.accumulated.metrics.cosine) + ", euc " +
                                     formatMetric(row.accumulated.metrics.euclidean) + ")");
      }
    progress.write("\n", /*flush=*/true);
  }
  progress.write(formatCompareText(outputs->comparison, false));
  if (const TensorComparison *c = outputs->firstFailing()) {
    record.firstFailing = c->name;
    progress.report("compare", 1.0, "failed at " + c->name, artifacts);
    return fail(kExitFailed, "Tpu outputs differ from the reference beyond --tolerance " + o.tolerance +
                                 "; first failing layer '" + c->name + "' (cos " +
                                 formatMetric(c->metrics.cosine) + ", euc " +
                                 formatMetric(c->metrics.euclidean) + ")");
  }
  progress.report("compare", 1.0, "Tpu outputs within --tolerance " + o.tolerance, artifacts);
  return kExitOk;
}

} // namespace

} // namespace tpuc::cli

namespace tpuc::driver {

llvm::Expected<DeployReport> deploy(const DeployOptions &o, const Sink &sink) {
  DeployReport report;
  DeployResult &record = report.record;
  record.chip = o.chip;
  record.quantize = o.quantize;
  std::string cancelledStage;
  int code = cli::deploy(o, sink, report, cancelledStage);
  if (code == cli::kCancelled)
    return llvm::createStringError("deploy cancelled " + cancelledStage);
  record.exitCode = report.exitCode = code;
  record.status = resultStatus(record.exitCode);
  // The record beside the other outputs (deployResultPath): the studio reads it rather than the text. A
  // deploy that writes no file (no --tpu_mlir, --model or --debug) leaves none in the working directory.
  if (o.tpuMlir.empty() && o.model.empty() && !o.debug)
    return report;
  // The manifest first, so that the record lists it; it names the records beside it that this run wrote.
  std::string manifestPath = deployManifestPath(o), path = deployResultPath(o);
  auto written = [&](const std::string &file) {
    return llvm::is_contained(record.artifacts, file) ? std::filesystem::path(file).filename().string()
                                                      : std::string();
  };
  RunManifest manifest;
  manifest.version = tpucVersion();
  manifest.command = std::string(DeployOptions::kCommand);
  manifest.argv = toArgv(o).args;
  manifest.flags = requestFlags(o);
  manifest.inputs = report.inputs;
  manifest.result = std::filesystem::path(path).filename().string();
  manifest.compare = written(deployArtifactStem(o) + "_compare.json");
  manifest.compareSamples = written(compareSamplesPath(o));
  manifest.firstDivergent = written(firstDivergentPath(o));
  manifest.trace = written(deployArtifactStem(o) + "_trace.json");
  if (llvm::Error err = cli::writeText({{manifestPath, toJson(manifest)}}))
    report.messages.push_back(llvm::toString(std::move(err)));
  else
    record.artifacts.push_back(manifestPath);
  if (llvm::Error err = cli::writeText({{path, toJson(record)}})) {
    report.messages.push_back(llvm::toString(std::move(err)));
    if (report.exitCode == kExitOk)
      report.exitCode = kExitUsage;
  }
  return report;
}

} // namespace tpuc::driver
