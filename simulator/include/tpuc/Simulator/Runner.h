//===- Runner.h - One interface over the four runners, and "run both, compare" -*- C++ -*-===//
//
// Qt-free. The reference interpreter (TopRunner, Interpreter.h), the Tpu functional simulator
// (TpuRunner, TpuSim.h), the command-level stage runner (cmdsim::ModelFileRunner, CmdExec.h) and an
// ONNX Runtime session (OrtRunner below) all take named inputs, run, and give named outputs and, with
// dumpAll, every tensor under the names TensorNames.h gives it. Callers that only need "run this and
// give me tensors", and the checks that run two of them and compare (runAndCompare), use this surface;
// the runners' own classes keep their specific options (isolated mode, profiles, traces).
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_SIMULATOR_RUNNER_H
#define TPUC_SIMULATOR_RUNNER_H

#include "tpuc/Simulator/Compare.h"
#include "tpuc/Support/Npz.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tpuc::sim {

/// What every runner's run takes.
struct RunnerOptions {
  /// Keep every tensor in tensors() (else only the outputs).
  bool dumpAll = false;
  /// Threads for the kernels; 0 keeps the process-wide setting.
  unsigned numThreads = 0;
  /// Called with (steps done, steps in total, tensor name or ""); false cancels the run ("cancelled").
  std::function<bool(size_t, size_t, llvm::StringRef)> progress;
};

/// What every runner measures.
struct RunnerStats {
  double seconds = 0; ///< Wall time of the last run.
  size_t steps = 0;   ///< Ops (or commands) executed.
};

/// A model that runs on named inputs and gives named tensors.
class Runner {
public:
  virtual ~Runner() = default;
  /// What runs, as its errors are prefixed: "reference", "Tpu simulation", a model file's path, ...
  virtual std::string name() const = 0;
  /// The names of the inputs and of the outputs, in order.
  virtual std::vector<std::string> inputNames() const = 0;
  virtual std::vector<std::string> outputNames() const = 0;
  /// Sets every input from `inputs` by name. Fails with one line naming a missing or bad input.
  virtual llvm::Error setInputs(const NpzFile &inputs) = 0;
  /// Runs on the inputs set. Fails with one line (the op or command that could not run).
  virtual llvm::Error run(const RunnerOptions &options) = 0;
  /// The outputs of the last run, under the graph's output names.
  virtual const NpzFile &outputs() const = 0;
  /// Every tensor of the last run with RunnerOptions::dumpAll, else the outputs.
  virtual const NpzFile &tensors() const = 0;
  virtual RunnerStats stats() const = 0;
};

/// Sets `inputs` and runs; an error is prefixed with the runner's name ("reference: missing input ...").
llvm::Error runOn(Runner &runner, const NpzFile &inputs, const RunnerOptions &options);

/// A runner whose tensors were recorded before: a reference file (`--test_reference`). Running it does
/// nothing; its outputs are the file's tensors of the given output names.
class RecordedRunner : public Runner {
public:
  /// Fails naming the first output `file` lacks.
  static llvm::Expected<std::unique_ptr<RecordedRunner>> create(std::string name, NpzFile file,
                                                                std::vector<std::string> outputNames);
  std::string name() const override { return label; }
  std::vector<std::string> inputNames() const override { return {}; }
  std::vector<std::string> outputNames() const override { return names; }
  llvm::Error setInputs(const NpzFile &) override { return llvm::Error::success(); }
  llvm::Error run(const RunnerOptions &) override { return llvm::Error::success(); }
  const NpzFile &outputs() const override { return outs; }
  const NpzFile &tensors() const override { return all; }
  RunnerStats stats() const override { return {}; }

private:
  std::string label;
  NpzFile all, outs;
  std::vector<std::string> names;
};

/// ONNX Runtime on an .onnx model (OnnxRuntime.h's Session) as a runner. Outputs and tensors are what the
/// session returns: the graph outputs, or with ort::RunOptions::allTensors every node output. Inputs are
/// every array of the npz given (the model's inputs must all be there; constant inputs may be added).
class OrtRunner : public Runner {
public:
  /// Opens `modelPath` (allTensors, threads and optimize as `options` say); fails with one line when ONNX
  /// Runtime is unavailable or the model does not load.
  static llvm::Expected<std::unique_ptr<OrtRunner>> open(const std::string &modelPath, bool allTensors,
                                                         unsigned threads = 0);
  ~OrtRunner() override;
  std::string name() const override { return "ONNX Runtime"; }
  std::vector<std::string> inputNames() const override;
  std::vector<std::string> outputNames() const override;
  llvm::Error setInputs(const NpzFile &inputs) override;
  llvm::Error run(const RunnerOptions &options) override;
  const NpzFile &outputs() const override { return result; }
  const NpzFile &tensors() const override { return result; }
  RunnerStats stats() const override { return runStats; }

private:
  struct Impl;
  explicit OrtRunner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
  NpzFile result;
  RunnerStats runStats;
};

/// How runAndCompare runs and compares two runners.
struct RunCompareOptions {
  /// The target's and the reference's inputs; null when that runner has run already (its last run's
  /// tensors are compared). The reference runs first.
  const NpzFile *targetInputs = nullptr;
  const NpzFile *referenceInputs = nullptr;
  /// Compare every tensor (tensors(); both runs dump them all) or only the outputs.
  bool allTensors = false;
  /// Runs keep every tensor even when only the outputs are compared (the caller writes them).
  bool dumpAll = false;
  /// Threads of both runs (0 keeps the process-wide setting).
  unsigned numThreads = 0;
  CompareTolerance tolerance;
  std::vector<std::string> excepts;
  /// The names the comparison gives the two sides (NpzComparison::targetName, referenceName).
  std::string targetName, referenceName;
  /// Called before each run (the reference's first).
  std::function<void(const Runner &)> beforeRun;
  /// Adjusts copies of both sides' tensors before they are compared (renames, masks).
  std::function<void(NpzFile &target, NpzFile &reference)> align;
};

/// The comparison of two runs.
struct RunComparison {
  NpzComparison comparison;
  /// The first tensor beyond the tolerance in the target's order, or null.
  const TensorComparison *firstFailing() const;
};

/// Runs the reference and then the target (those given inputs), and compares the target's tensors (or
/// outputs) with the reference's. Fails with the first run's error, prefixed with its runner's name.
llvm::Expected<RunComparison> runAndCompare(Runner &target, Runner &reference,
                                            const RunCompareOptions &options);

} // namespace tpuc::sim

#endif // TPUC_SIMULATOR_RUNNER_H
