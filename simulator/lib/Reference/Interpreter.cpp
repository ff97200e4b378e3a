//===- Interpreter.cpp - Float32 reference interpreter for Top IR ---------===//
// Runs a FunctionProgram (value numbering, names, last uses) op by op through InferenceInterface, with
// ProgramRun's bookkeeping: each tensor freed after its last use, optionally all of them dumped.
//===----------------------------------------------------------------------===//
#include "tpuc/Simulator/Interpreter.h"

#include "FunctionInputs.h"
#include "Kernels.h"
#include "ProgramRun.h"
#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Simulator/ReferenceKernels.h"
#include "tpuc/Simulator/ThreadPool.h"
#include "tpuc/Support/FloatConvert.h"

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
  ModuleOp module;
  FunctionProgram program; ///< Values numbered, named, with their last uses.
  std::string setupError;

  std::vector<std::unique_ptr<float[]>> inputs;
  /// The input rules shared with the other simulator (positions, names, npz; shapes checked).
  FunctionInputs boundInputs() { return {inputs, program.argumentNames(), program.values}; }
  std::vector<std::vector<float>> weights; ///< Per step; empty until loaded.
  /// Per step: what the kernel derives from the op's weight operands (packed filters), kept with the weights.
  std::vector<std::unique_ptr<ref::OpCache>> caches;
  BufferPool pool;

  NpzFile outputs, tensors;
  RunStats stats;

  void prepare(StringRef function);
  llvm::Error checkProgram() const;
  llvm::Error runStep(size_t index, ProgramRun &run, std::vector<std::string> &messages);
};

void Interpreter::Impl::prepare(StringRef function) {
  auto built = FunctionProgram::build(module, function);
  if (!built) {
    setupError = llvm::toString(built.takeError());
    return;
  }
  program = std::move(*built);
  registerTopReferenceKernels(*module.getContext());
  inputs.resize(program.numArguments);
  weights.resize(program.steps.size());
  caches = makeWeightCaches(program);
}

llvm::Error Interpreter::Impl::checkProgram() const {
  if (!setupError.empty())
    return makeError(setupError);
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

Interpreter::Interpreter(ModuleOp module, StringRef function) : impl(std::make_unique<Impl>()) {
  impl->module = module;
  impl->prepare(function);
}

Interpreter::~Interpreter() = default;

size_t Interpreter::numInputs() const { return impl->inputs.size(); }
std::vector<std::string> Interpreter::inputNames() const { return impl->program.argumentNames().vec(); }
std::vector<int64_t> Interpreter::inputShape(size_t index) const { return impl->boundInputs().shape(index); }
std::vector<std::string> Interpreter::outputNames() const { return impl->program.resultNames; }

llvm::Error Interpreter::setInput(size_t index, const Tensor &tensor) {
  if (!impl->setupError.empty())
    return makeError(impl->setupError);
  return impl->boundInputs().set(index, tensor);
}

llvm::Error Interpreter::setInput(StringRef name, const Tensor &tensor) {
  if (!impl->setupError.empty())
    return makeError(impl->setupError);
  return impl->boundInputs().set(name, tensor);
}

llvm::Error Interpreter::setInputs(const NpzFile &npz) {
  if (!impl->setupError.empty())
    return makeError(impl->setupError);
  return impl->boundInputs().setAll(npz);
}

llvm::Error Interpreter::run(const RunOptions &options) {
  Impl &m = *impl;
  if (auto err = m.checkProgram())
    return err;
  const FunctionProgram &p = m.program;
  for (size_t i = 0; i < m.inputs.size(); ++i)
    if (!m.inputs[i])
      return makeError("missing input '" + p.names[i] + "' (argument " + Twine(i) + ")");
  if (options.numThreads)
    ThreadPool::setGlobalThreads(options.numThreads);

  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  m.outputs = NpzFile();
  m.tensors = NpzFile();
  m.stats = RunStats();
  ProgramRun run(p, m.pool, m.stats);
  for (size_t i = 0; i < m.inputs.size(); ++i)
    run.bindArgument(i, m.inputs[i].get());
  auto copy = [&](int id, const float *data) { return run.copyF32(id, data); };

  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(m.module.getContext(), [&](Diagnostic &diag) {
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
    m.stats.numOps++;
    if (!isWeight) {
      run.produced(step, options.dumpAll ? &m.tensors : nullptr, copy);
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
      m.stats.opSeconds.push_back({p.stepName(step).str(), step.op->getName().getStringRef().str(),
                                   std::chrono::duration<double>(Clock::now() - opStart).count()});
    if (options.progress && !options.progress(index + 1, p.steps.size(), p.stepName(step)))
      return makeError("cancelled");
  }
  // The outputs under the graph's output names; a full dump holds them too.
  if (auto err = run.collectOutputs(m.outputs, m.tensors, copy))
    return err;
  for (const std::vector<float> &w : m.weights)
    m.stats.weightBytes += w.size() * sizeof(float);
  for (const std::unique_ptr<ref::OpCache> &cache : m.caches)
    if (cache)
      m.stats.weightBytes += cache->bytes;
  m.stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return llvm::Error::success();
}

const NpzFile &Interpreter::outputs() const { return impl->outputs; }
const NpzFile &Interpreter::tensors() const { return impl->tensors; }
const RunStats &Interpreter::stats() const { return impl->stats; }

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
