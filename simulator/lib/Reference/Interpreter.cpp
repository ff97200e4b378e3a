//===- Interpreter.cpp - Float32 reference interpreter for Top IR ---------===//
// Runs a FunctionProgram (value numbering, names, last uses) op by op through InferenceInterface, with
// ProgramRun's bookkeeping: each tensor freed after its last use, optionally all of them dumped.
//===----------------------------------------------------------------------===//
#include "tpuc/Simulator/Interpreter.h"

#include "Kernels.h"
#include "ProgramRun.h"
#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Simulator/ReferenceKernels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"

#include <chrono>

using namespace mlir;

namespace tpuc::sim {
namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace

struct Interpreter::Impl {
  explicit Impl(const FunctionProgram &program) : program(program) {}
  const FunctionProgram &program; ///< Values numbered, named, with their last uses (FunctionRunner's).

  std::vector<std::vector<float>> weights; ///< Per step; empty until loaded.
  /// Per step: what the kernel derives from the op's weight operands (packed filters), kept with the weights.
  std::vector<std::unique_ptr<ref::OpCache>> caches;
  BufferPool pool;

  llvm::Error checkProgram() const;
  llvm::Error runStep(size_t index, ProgramRun &run, std::vector<std::string> &messages);
};

llvm::Error Interpreter::Impl::checkProgram() const {
  for (const ProgramStep &step : program.steps) {
    if (!isa<top::InferenceInterface>(step.op))
      return program.opError(step, "no reference kernel for this op");
    for (auto [i, id] : llvm::enumerate(step.results))
      if (program.sizes[id] < 0 && !isa<NoneType>(program.values[id].getType()))
        return program.opError(step, "result #" + Twine(i) + " has no static tensor shape (" +
                                         "run top-shape-infer first)");
  }
  return llvm::Error::success();
}

llvm::Error Interpreter::Impl::runStep(size_t index, ProgramRun &run, std::vector<std::string> &messages) {
  const ProgramStep &step = program.steps[index];
  SmallVector<const float *> ins;
  for (int id : step.operands)
    ins.push_back(run.data(id));
  SmallVector<float *> outs;
  for (int id : step.results)
    outs.push_back(run.allocate(id));
  messages.clear();
  ref::ScopedOpCache scope(caches[index].get());
  if (failed(cast<top::InferenceInterface>(step.op).inference(ins, outs)))
    return program.opError(step, messages.empty() ? std::string("the kernel failed") : messages.front());
  return llvm::Error::success();
}

Interpreter::Interpreter(ModuleOp module, StringRef function)
    : FunctionRunner(module, function), impl(std::make_unique<Impl>(program)) {
  if (!setupError.empty())
    return;
  registerTopReferenceKernels(*module.getContext());
  impl->weights.resize(program.steps.size());
  impl->caches = makeWeightCaches(program);
}

Interpreter::~Interpreter() = default;

llvm::Error Interpreter::run(const RunOptions &options) {
  Impl &m = *impl;
  if (!setupError.empty())
    return makeError(setupError);
  if (auto err = m.checkProgram())
    return err;
  if (auto err = beginRun(options.numThreads))
    return err;
  const FunctionProgram &p = program;

  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  ProgramRun run(p, m.pool, lastStats);
  for (size_t i = 0; i < inputBuffers.size(); ++i)
    run.bindArgument(i, inputBuffers[i].get());
  auto copy = [&](int id, const float *data) { return run.copyF32(id, data); };

  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    messages.push_back(diag.str());
    return success();
  });
  for (auto [index, step] : llvm::enumerate(p.steps)) {
    auto opStart = Clock::now();
    bool isWeight = isa<top::WeightOp>(step.op);
    if (isWeight) {
      std::vector<float> &weight = m.weights[index];
      if (weight.empty() && p.sizes[step.results[0]] > 0) {
        std::vector<float> loaded(p.sizes[step.results[0]]);
        messages.clear();
        float *out = loaded.data();
        if (failed(cast<top::InferenceInterface>(step.op).inference({}, {out})))
          return p.opError(step, messages.empty() ? std::string("cannot read the weight") : messages.front());
        weight = std::move(loaded);
      }
      run.borrow(step.results[0], weight.data());
    } else if (auto err = m.runStep(index, run, messages)) {
      return err;
    }
    lastStats.numOps++;
    if (!isWeight) {
      run.produced(step, options.dumpAll ? &lastTensors : nullptr, copy);
      if (options.onTensor)
        for (int id : step.results)
          if (p.sizes[id] >= 0)
            options.onTensor(p.names[id], cast<ShapedType>(p.values[id].getType()).getShape(),
                             llvm::ArrayRef<float>(run.data(id), p.sizes[id]));
    } else {
      run.notePeak();
    }
    run.release(step);
    if (options.profile)
      lastStats.opSeconds.push_back({p.stepName(step).str(), step.op->getName().getStringRef().str(),
                                     std::chrono::duration<double>(Clock::now() - opStart).count()});
    if (options.progress && !options.progress(index + 1, p.steps.size(), p.stepName(step)))
      return makeError("cancelled");
  }
  // The outputs under the graph's output names; a full dump holds them too.
  if (auto err = run.collectOutputs(lastOutputs, lastTensors, copy))
    return err;
  for (const std::vector<float> &w : m.weights)
    lastStats.weightBytes += w.size() * sizeof(float);
  for (const std::unique_ptr<ref::OpCache> &cache : m.caches)
    if (cache)
      lastStats.weightBytes += cache->bytes;
  lastStats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return llvm::Error::success();
}

void Interpreter::releaseMemory() {
  for (std::vector<float> &w : impl->weights)
    std::vector<float>().swap(w);
  for (std::unique_ptr<ref::OpCache> &cache : impl->caches)
    if (cache)
      cache->clear();
  impl->pool.clear();
}

llvm::Error TopRunner::run(const RunnerOptions &options) {
  RunOptions run;
  run.dumpAll = options.dumpAll;
  run.numThreads = options.numThreads;
  run.progress = options.progress;
  return interp.run(run);
}

} // namespace tpuc::sim
