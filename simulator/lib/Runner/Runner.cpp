//===- Runner.cpp - Running a Runner, a recorded reference, and "run both, compare" ---===//
#include "tpuc/Simulator/Runner.h"

namespace tpuc::sim {

llvm::Error runOn(Runner &runner, const NpzFile &inputs, const RunnerOptions &options) {
  llvm::Error err = runner.setInputs(inputs);
  if (!err)
    err = runner.run(options);
  if (err)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   runner.name() + ": " + llvm::toString(std::move(err)));
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<RecordedRunner>> RecordedRunner::create(std::string name, NpzFile file,
                                                                       std::vector<std::string> outputNames) {
  std::unique_ptr<RecordedRunner> runner(new RecordedRunner());
  for (const std::string &output : outputNames) {
    if (!file.has(output))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     name + ": no tensor '" + output + "' (an output of the model)");
    runner->outs.set(output, file.get(output));
  }
  runner->label = std::move(name);
  runner->all = std::move(file);
  runner->names = std::move(outputNames);
  return runner;
}

const TensorComparison *RunComparison::firstFailing() const {
  for (const TensorComparison &c : comparison.results)
    if (!c.passed())
      return &c;
  return nullptr;
}

llvm::Expected<RunComparison> runAndCompare(Runner &target, Runner &reference,
                                            const RunCompareOptions &options) {
  RunnerOptions run;
  run.dumpAll = options.allTensors || options.dumpAll;
  run.numThreads = options.numThreads;
  for (auto [runner, inputs] :
       {std::pair{&reference, options.referenceInputs}, {&target, options.targetInputs}}) {
    if (!inputs)
      continue;
    if (options.beforeRun)
      options.beforeRun(*runner);
    if (auto err = runOn(*runner, *inputs, run))
      return std::move(err);
  }
  const NpzFile &t = options.allTensors ? target.tensors() : target.outputs();
  const NpzFile &r = options.allTensors ? reference.tensors() : reference.outputs();
  RunComparison result;
  if (options.align) {
    NpzFile alignedTarget = t, alignedReference = r;
    options.align(alignedTarget, alignedReference);
    result.comparison = compareNpz(alignedTarget, alignedReference, options.tolerance, options.excepts);
  } else {
    result.comparison = compareNpz(t, r, options.tolerance, options.excepts);
  }
  result.comparison.targetName = options.targetName;
  result.comparison.referenceName = options.referenceName;
  return result;
}

} // namespace tpuc::sim
