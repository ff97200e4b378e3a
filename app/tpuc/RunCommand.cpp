//===- RunCommand.cpp - tpuc run: a model file on the command-level simulator ---===//
//
// model_runner's job. A .tpum runs on the command-level simulator (CmdExec.h: both engines' streams
// over simulated DDR and LMEM, with the cycle model's timing); Top or Tpu MLIR runs on the reference
// interpreter or the Tpu functional simulator, so the same command dumps every level of the pipeline.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "tpuc/Driver/DeployStages.h"
#include "tpuc/Driver/Results.h"
#include "tpuc/Driver/TopModule.h"

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Simulator/CmdExec.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Simulator/ThreadPool.h"
#include "tpuc/Simulator/TpuSim.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace tpuc::cli {

namespace {

/// Prints the error line and keeps it for the result record.
int fail(driver::ModelRunResult &record, int code, const std::string &message) {
  std::cerr << "tpuc run: " << message << std::endl;
  record.message = message;
  return code;
}

int writeOutputs(driver::ModelRunResult &record, const NpzFile &npz, const std::string &path) {
  try {
    npz.write(path, /*compressed=*/false);
  } catch (const std::exception &e) {
    return fail(record, kExitUsage, e.what());
  }
  return kExitOk;
}

/// MLIR bytecode (its magic "ML\xefR") or text without NUL bytes in its first kilobyte.
bool looksLikeMlir(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  char head[1024];
  in.read(head, sizeof(head));
  std::streamsize n = in.gcount();
  if (n >= 4 && std::memcmp(head, "ML\xefR", 4) == 0)
    return true;
  return std::memchr(head, '\0', static_cast<size_t>(n)) == nullptr;
}

/// Top or Tpu MLIR: the interpreter or the functional simulator.
int runMlir(const RunOptions &o, const NpzFile &inputs, ProgressReporter &progress,
            driver::ModelRunResult &record) {
  mlir::MLIRContext context;
  std::string error;
  auto loaded = loadTopModule(context, o.model);
  if (!loaded) {
    error = llvm::toString(loaded.takeError());
    return fail(record, kExitUsage, error);
  }
  mlir::OwningOpRef<mlir::ModuleOp> module = std::move(*loaded);
  bool tpu = false;
  module->walk([&](mlir::Operation *op) {
    if (op->getName().getDialectNamespace() == "tpu")
      tpu = true;
  });
  // --threads sizes the kernels' pool for MLIR as for model files (0: every core).
  sim::ThreadPool::setGlobalThreads(static_cast<unsigned>(o.threads));
  progress.report("run", 0.0, std::string(tpu ? "Tpu functional simulation" : "reference interpreter") + " of " +
                                  o.model + " on " + std::to_string(sim::ThreadPool::global().numThreads()) +
                                  " thread(s)");
  record.runner = tpu ? "tpu" : "reference";
  std::unique_ptr<sim::Runner> runner;
  if (tpu)
    runner = std::make_unique<sim::TpuRunner>(*module);
  else
    runner = std::make_unique<sim::TopRunner>(*module);
  if (auto err = sim::runOn(*runner, inputs, {.dumpAll = o.dumpAllTensors}))
    return fail(record, kExitFailed, llvm::toString(std::move(err)));
  if (int rc = writeOutputs(record, o.dumpAllTensors ? runner->tensors() : runner->outputs(), o.output))
    return rc;
  record.artifacts = {o.output};
  progress.report("run", 1.0, "wrote " + o.output, {o.output});
  return kExitOk;
}

/// The run; every failure is printed and kept in `record.message`.
int run(const RunOptions &o, driver::ModelRunResult &record) {
  ProgressReporter progress = makeProgressReporter(o.progress);
  NpzFile inputs;
  if (o.input.ends_with(".npy")) { // one array: the model's only input
    try {
      inputs.set("input", readNpy(o.input));
    } catch (const std::exception &e) {
      return fail(record, kExitUsage, e.what());
    }
  } else if (Result<NpzFile> file = NpzFile::tryRead(o.input)) {
    inputs = std::move(*file);
  } else {
    return fail(record, kExitUsage, file.error());
  }
  // By content, not by name: a model file of any name (TPU-MLIR users pass x.bmodel) or MLIR.
  if (!std::filesystem::exists(o.model))
    return fail(record, kExitUsage, o.model + ": no such file");
  if (!codegen::isModelFile(o.model)) {
    if (!looksLikeMlir(o.model))
      return fail(record, kExitUsage,
                  o.model + ": neither a TPU Studio model file (tpuc deploy --model) nor MLIR");
    return runMlir(o, inputs, progress, record);
  }

  codegen::Model model;
  backend::ChipProfile chip;
  if (llvm::Error err = loadModelFile(o.model, model, chip))
    return fail(record, kExitUsage, llvm::toString(std::move(err)));
  size_t net = 0;
  if (!o.net.empty()) {
    net = model.nets.size();
    for (size_t i = 0; i < model.nets.size(); ++i)
      if (model.nets[i].name == o.net)
        net = i;
    if (net == model.nets.size())
      return fail(record, kExitUsage, o.model + ": no net '" + o.net + "'");
  }
  if (model.nets.empty() || model.nets[net].stages.empty())
    return fail(record, kExitUsage, o.model + ": the model has no net to run");
  record.runner = "cmdsim";
  record.chip = chip.name;
  record.net = model.nets[net].name;
  cmdsim::StageRunner runner(chip, model, net, 0);
  if (auto err = runner.setInputs(inputs))
    return fail(record, kExitUsage, o.input + ": " + llvm::toString(std::move(err)));
  const codegen::Stage &stage = runner.stage();
  progress.report("run", 0.0, "simulating net '" + model.nets[net].name + "' on " + chip.name);
  cmdsim::ExecOptions options;
  options.dumpAll = o.dumpAllTensors;
  options.numThreads = static_cast<unsigned>(o.threads);
  size_t lastPercent = 0;
  options.progress = [&](size_t done, size_t total) {
    size_t percent = total ? done * 100 / total : 100;
    if (percent >= lastPercent + 5) {
      lastPercent = percent;
      progress.report("run", static_cast<double>(done) / static_cast<double>(total),
                      "command " + std::to_string(done) + "/" + std::to_string(total));
    }
    return true;
  };
  if (auto err = runner.run(options))
    return fail(record, kExitFailed, o.model + ": " + llvm::toString(std::move(err)));
  if (int rc = writeOutputs(record, runner.tensors(), o.output))
    return rc;
  std::vector<std::string> artifacts = {o.output};
  const cmdsim::ExecStats &s = runner.stats();
  if (!o.profile.empty()) {
    std::ofstream f(o.profile);
    f << cmdsim::traceJson(chip, stage, s.timing);
    if (!f)
      return fail(record, kExitUsage, o.profile + ": cannot write the trace");
    artifacts.push_back(o.profile);
  }
  double ms = cmdsim::latencyMs(chip, s.timing.totalCycles);
  auto pct = [&](int64_t busy) {
    return s.timing.totalCycles ? 100.0 * static_cast<double>(busy) / static_cast<double>(s.timing.totalCycles)
                                : 0.0;
  };
  std::ostringstream summary;
  summary << std::fixed << std::setprecision(3) << "simulated " << s.timing.totalCycles << " cycles = " << ms
          << " ms on " << chip.name << " (TIU busy " << std::setprecision(1) << pct(s.timing.tiuBusy)
          << "%, GDMA busy " << pct(s.timing.gdmaBusy) << "%); " << s.tiuCommands << " TIU + " << s.gdmaCommands
          << " GDMA commands, " << s.bytesMoved << " bytes moved; wall " << std::setprecision(3) << s.seconds
          << " s";
  std::cout << summary.str() << std::endl;
  record.artifacts = artifacts;
  record.cycles = s.timing.totalCycles;
  record.latencyMs = ms;
  record.tiuBusy = s.timing.tiuBusy;
  record.gdmaBusy = s.timing.gdmaBusy;
  record.tiuCommands = static_cast<int64_t>(s.tiuCommands);
  record.gdmaCommands = static_cast<int64_t>(s.gdmaCommands);
  progress.report("run", 1.0, summary.str(), artifacts);
  return kExitOk;
}

} // namespace

int runRun(const RunOptions &o) {
  driver::ModelRunResult record;
  record.model = o.model;
  record.input = o.input;
  record.output = o.output;
  record.exitCode = run(o, record);
  record.status = driver::resultStatus(record.exitCode);
  // The record the studio reads (runResultPath), beside the outputs, whatever the outcome.
  return writeResultRecord("run", driver::runResultPath(o), driver::toJson(record), record.exitCode);
}

} // namespace tpuc::cli
