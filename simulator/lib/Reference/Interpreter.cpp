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
  /// One block run op by op: the function's body, or a region of top.if / top.loop, with what it keeps
  /// between runs.
  struct Body {
    const FunctionProgram *program = nullptr;
    std::unique_ptr<FunctionProgram> owned;  ///< A region's program.
    std::vector<std::vector<float>> weights; ///< Per step; empty until loaded.
    /// Per step: what the kernel derives from the op's weight operands (packed filters), kept with the
    /// weights.
    std::vector<std::unique_ptr<ref::OpCache>> caches;
    /// Per step of a region op: its regions' bodies (top.if: then, else; top.loop: the body).
    std::vector<std::vector<std::unique_ptr<Body>>> regions;
  };

  explicit Impl(const FunctionProgram &program) { main.program = &program; }
  Body main; ///< The function (FunctionRunner's program).
  BufferPool pool;
  std::vector<std::string> messages; ///< Diagnostics of the op being run.

  /// Sizes `body`'s per-step state and builds its region ops' bodies, recursively.
  static llvm::Error prepare(Body &body);
  static llvm::Error checkProgram(const Body &body);
  /// Runs the steps of `body` on `run`; `top` for the function's own (progress is reported for those).
  llvm::Error runSteps(Body &body, ProgramRun &run, const RunOptions &options, RunStats &stats, NpzFile *dump,
                       bool top);
  llvm::Error runStep(Body &body, size_t index, ProgramRun &run);
  /// Runs `body` on `args` (one buffer per block argument); `yielded` receives a copy of each result.
  llvm::Error runRegion(Body &body, ArrayRef<const float *> args, const RunOptions &options, RunStats &stats,
                        NpzFile *dump, std::vector<std::vector<float>> &yielded);
  /// top.if: the region its condition picks. top.loop: its body while step < max_trips (when given) and
  /// the condition is nonzero (when given), the step number as the first argument (0, 1, 2, ...).
  llvm::Error runRegionOp(Body &body, size_t index, ProgramRun &run, const RunOptions &options,
                          RunStats &stats, NpzFile *dump);
  static void release(Body &body);
  static void countWeights(const Body &body, RunStats &stats);
};

llvm::Error Interpreter::Impl::prepare(Body &body) {
  const FunctionProgram &p = *body.program;
  body.weights.resize(p.steps.size());
  body.caches = makeWeightCaches(p);
  body.regions.resize(p.steps.size());
  for (auto [index, step] : llvm::enumerate(p.steps)) {
    if (!isa<top::IfOp, top::LoopOp>(step.op))
      continue;
    for (Region &region : step.op->getRegions()) {
      auto built = FunctionProgram::buildBlock(region.front());
      if (!built)
        return p.opError(step, llvm::toString(built.takeError()));
      auto nested = std::make_unique<Body>();
      nested->owned = std::make_unique<FunctionProgram>(std::move(*built));
      nested->program = nested->owned.get();
      if (auto err = prepare(*nested))
        return err;
      body.regions[index].push_back(std::move(nested));
    }
  }
  return llvm::Error::success();
}

llvm::Error Interpreter::Impl::checkProgram(const Body &body) {
  const FunctionProgram &program = *body.program;
  for (auto [index, step] : llvm::enumerate(program.steps)) {
    if (!isa<top::InferenceInterface>(step.op) && body.regions[index].empty())
      return program.opError(step, "no reference kernel for this op");
    for (auto [i, id] : llvm::enumerate(step.results))
      if (program.sizes[id] < 0 && !isa<NoneType>(program.values[id].getType()))
        return program.opError(step, "result #" + Twine(i) + " has no static tensor shape (" +
                                         "run top-shape-infer first)");
    for (const std::unique_ptr<Body> &region : body.regions[index])
      if (auto err = checkProgram(*region))
        return err;
  }
  return llvm::Error::success();
}

llvm::Error Interpreter::Impl::runStep(Body &body, size_t index, ProgramRun &run) {
  const FunctionProgram &program = *body.program;
  const ProgramStep &step = program.steps[index];
  SmallVector<const float *> ins;
  for (int id : step.operands)
    ins.push_back(run.data(id));
  SmallVector<float *> outs;
  for (int id : step.results)
    outs.push_back(run.allocate(id));
  messages.clear();
  ref::ScopedOpCache scope(body.caches[index].get());
  if (failed(cast<top::InferenceInterface>(step.op).inference(ins, outs)))
    return program.opError(step, messages.empty() ? std::string("the kernel failed") : messages.front());
  return llvm::Error::success();
}

llvm::Error Interpreter::Impl::runSteps(Body &body, ProgramRun &run, const RunOptions &options,
                                        RunStats &stats, NpzFile *dump, bool top) {
  using Clock = std::chrono::steady_clock;
  const FunctionProgram &p = *body.program;
  auto copy = [&](int id, const float *data) { return run.copyF32(id, data); };
  for (auto [index, step] : llvm::enumerate(p.steps)) {
    auto opStart = Clock::now();
    bool isWeight = isa<top::WeightOp>(step.op);
    if (isWeight) {
      std::vector<float> &weight = body.weights[index];
      if (weight.empty() && p.sizes[step.results[0]] > 0) {
        std::vector<float> loaded(p.sizes[step.results[0]]);
        messages.clear();
        float *out = loaded.data();
        if (failed(cast<top::InferenceInterface>(step.op).inference({}, {out})))
          return p.opError(step, messages.empty() ? std::string("cannot read the weight") : messages.front());
        weight = std::move(loaded);
      }
      run.borrow(step.results[0], weight.data());
    } else if (!body.regions[index].empty()) {
      if (auto err = runRegionOp(body, index, run, options, stats, dump))
        return err;
    } else if (auto err = runStep(body, index, run)) {
      return err;
    }
    stats.numOps++;
    if (!isWeight) {
      run.produced(step, dump, copy);
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
      stats.opSeconds.push_back({p.stepName(step).str(), step.op->getName().getStringRef().str(),
                                 std::chrono::duration<double>(Clock::now() - opStart).count()});
    if (top && options.progress && !options.progress(index + 1, p.steps.size(), p.stepName(step)))
      return makeError("cancelled");
  }
  return llvm::Error::success();
}

llvm::Error Interpreter::Impl::runRegion(Body &body, ArrayRef<const float *> args, const RunOptions &options,
                                         RunStats &stats, NpzFile *dump,
                                         std::vector<std::vector<float>> &yielded) {
  const FunctionProgram &p = *body.program;
  // The region's tensors count into the run's totals; its arguments are the op's operands, already counted.
  ProgramRun run(p, pool, stats);
  for (auto [id, data] : llvm::enumerate(args))
    run.borrow(id, data);
  if (auto err = runSteps(body, run, options, stats, dump, /*top=*/false))
    return err;
  yielded.resize(p.resultIds.size());
  for (auto [i, id] : llvm::enumerate(p.resultIds)) {
    const float *data = run.data(id);
    yielded[i].assign(data, data + std::max<int64_t>(p.sizes[id], 0));
  }
  return llvm::Error::success();
}

llvm::Error Interpreter::Impl::runRegionOp(Body &body, size_t index, ProgramRun &run,
                                           const RunOptions &options, RunStats &stats, NpzFile *dump) {
  const FunctionProgram &p = *body.program;
  const ProgramStep &step = p.steps[index];
  std::vector<std::vector<float>> yielded;
  auto store = [&](ArrayRef<std::vector<float>> values) {
    for (auto [i, id] : llvm::enumerate(step.results))
      if (float *out = run.allocate(id))
        std::copy(values[i].begin(), values[i].end(), out);
  };
  if (isa<top::IfOp>(step.op)) {
    bool taken = run.data(step.operands[0])[0] != 0;
    SmallVector<const float *> args;
    for (int id : ArrayRef<int>(step.operands).drop_front())
      args.push_back(run.data(id));
    if (auto err = runRegion(*body.regions[index][taken ? 0 : 1], args, options, stats, dump, yielded))
      return err;
    store(yielded);
    return llvm::Error::success();
  }
  auto loop = cast<top::LoopOp>(step.op);
  // A trip count beyond what int64 holds (ONNX's "no limit" spelling, INT64_MAX, as a float) is no limit.
  std::optional<int64_t> maxTrips;
  if (!isa<NoneType>(loop.getMaxTrips().getType())) {
    double m = run.data(step.operands[0])[0];
    if (m < 9.0e18)
      maxTrips = static_cast<int64_t>(m);
  }
  bool go = isa<NoneType>(loop.getCond().getType()) || run.data(step.operands[1])[0] != 0;
  size_t carried = loop.getInits().size();
  std::vector<std::vector<float>> state(carried);
  for (size_t k = 0; k < carried; ++k) {
    int id = step.operands[2 + k];
    state[k].assign(run.data(id), run.data(id) + std::max<int64_t>(p.sizes[id], 0));
  }
  Body &region = *body.regions[index][0];
  for (int64_t trip = 0; go && (!maxTrips || trip < *maxTrips); ++trip) {
    float stepValue = static_cast<float>(trip), condValue = 1.0f;
    SmallVector<const float *> args = {&stepValue, &condValue};
    for (const std::vector<float> &v : state)
      args.push_back(v.data());
    for (int id : ArrayRef<int>(step.operands).drop_front(2 + carried))
      args.push_back(run.data(id));
    if (auto err = runRegion(region, args, options, stats, dump, yielded))
      return err;
    go = !yielded[0].empty() && yielded[0][0] != 0;
    for (size_t k = 0; k < carried; ++k)
      state[k] = std::move(yielded[1 + k]);
  }
  store(state);
  return llvm::Error::success();
}

void Interpreter::Impl::release(Body &body) {
  for (std::vector<float> &w : body.weights)
    std::vector<float>().swap(w);
  for (std::unique_ptr<ref::OpCache> &cache : body.caches)
    if (cache)
      cache->clear();
  for (auto &regions : body.regions)
    for (std::unique_ptr<Body> &region : regions)
      release(*region);
}

void Interpreter::Impl::countWeights(const Body &body, RunStats &stats) {
  for (const std::vector<float> &w : body.weights)
    stats.weightBytes += w.size() * sizeof(float);
  for (const std::unique_ptr<ref::OpCache> &cache : body.caches)
    if (cache)
      stats.weightBytes += cache->bytes;
  for (const auto &regions : body.regions)
    for (const std::unique_ptr<Body> &region : regions)
      countWeights(*region, stats);
}

Interpreter::Interpreter(ModuleOp module, StringRef function)
    : FunctionRunner(module, function), impl(std::make_unique<Impl>(program)) {
  if (!setupError.empty())
    return;
  registerTopReferenceKernels(*module.getContext());
  if (auto err = Impl::prepare(impl->main))
    setupError = llvm::toString(std::move(err));
}

Interpreter::~Interpreter() = default;

llvm::Error Interpreter::run(const RunOptions &options) {
  Impl &m = *impl;
  if (!setupError.empty())
    return makeError(setupError);
  if (auto err = Impl::checkProgram(m.main))
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

  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    m.messages.push_back(diag.str());
    return success();
  });
  if (auto err = m.runSteps(m.main, run, options, lastStats, options.dumpAll ? &lastTensors : nullptr, true))
    return err;
  // The outputs under the graph's output names; a full dump holds them too.
  if (auto err = run.collectOutputs(lastOutputs, lastTensors, copy))
    return err;
  Impl::countWeights(m.main, lastStats);
  lastStats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return llvm::Error::success();
}

void Interpreter::releaseMemory() {
  Impl::release(impl->main);
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
