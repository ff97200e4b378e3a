//===- Interpreter.cpp - Float32 reference interpreter for Top IR ---------===//
// Prepares a function once (value numbering, names, last uses), then runs it op by op through
// InferenceInterface, freeing each tensor after its last use and optionally dumping all of them.
//===----------------------------------------------------------------------===//
#include "tpuc/Simulator/Interpreter.h"

#include "FunctionInputs.h"
#include "Kernels.h"
#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Simulator/ReferenceKernels.h"
#include "tpuc/Simulator/ThreadPool.h"
#include "tpuc/Support/FloatConvert.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"

#include <chrono>
#include <cstring>
#include <map>

using namespace mlir;

namespace tpuc::sim {
namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// One op of the program with its operands and results as value ids.
struct Step {
  Operation *op;
  SmallVector<int> operands, results;
  SmallVector<int> freeAfter; ///< Values whose last use is this op.
  /// What the kernel derives from the op's weight operands (packed filters), kept with the weights.
  std::unique_ptr<ref::OpCache> cache;
};

/// A value's storage during a run: owned by the run, or borrowed (inputs, weights).
struct Slot {
  std::unique_ptr<float[]> owned;
  int64_t capacity = 0; ///< Floats in `owned`.
  const float *data = nullptr;
};

/// Recycles freed tensor buffers between ops and runs. Memory that has been written once is mapped
/// already: reusing it avoids the page faults that a fresh multi-megabyte allocation costs on every op.
class BufferPool {
public:
  std::unique_ptr<float[]> acquire(int64_t n, int64_t &capacity) {
    n = std::max<int64_t>(n, 1);
    auto it = free.lower_bound(n);
    if (it != free.end() && it->first <= 2 * n) { // no more than half of a recycled buffer goes unused
      capacity = it->first;
      std::unique_ptr<float[]> buffer = std::move(it->second);
      free.erase(it);
      return buffer;
    }
    capacity = n;
    return std::unique_ptr<float[]>(new float[n]);
  }
  void release(std::unique_ptr<float[]> buffer, int64_t capacity) {
    free.emplace(capacity, std::move(buffer));
  }
  void clear() { free.clear(); }

private:
  std::multimap<int64_t, std::unique_ptr<float[]>> free;
};

} // namespace

struct Interpreter::Impl {
  ModuleOp module;
  func::FuncOp func;
  std::string setupError;

  // Values are numbered: the arguments first, then every op result in program order.
  std::vector<Value> values;
  std::vector<std::string> names; ///< Tensor name per value.
  std::vector<std::vector<std::string>> aliases; ///< Further names per value (TensorNaming::aliases).
  std::vector<std::string> resultNames; ///< The function results' names (graph outputs).
  std::vector<int64_t> sizes;     ///< Elements per value; -1 for `none` or a non-static type.
  std::vector<Step> steps;
  std::vector<int> resultIds; ///< Returned values.
  std::vector<std::string> argNames;
  std::vector<std::unique_ptr<float[]>> inputs;
  /// The input rules shared with the other simulator (positions, names, npz; shapes checked).
  FunctionInputs boundInputs() { return {inputs, argNames, values}; }
  std::vector<std::vector<float>> weights; ///< Per step; empty until loaded.
  BufferPool pool;

  NpzFile outputs, tensors;
  RunStats stats;

  LogicalResult prepare(StringRef function);
  llvm::Error checkProgram() const;
  llvm::Error opError(const Step &step, const Twine &message) const;
  llvm::Error runStep(const Step &step, std::vector<Slot> &slots, std::vector<std::string> &messages);
};

LogicalResult Interpreter::Impl::prepare(StringRef function) {
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  if (!function.empty()) {
    func = module.lookupSymbol<func::FuncOp>(function);
    if (!func) {
      setupError = ("the module has no function '" + function + "'").str();
      return failure();
    }
  } else if (auto main = module.lookupSymbol<func::FuncOp>("main"); main && main.isPublic()) {
    func = main;
  } else if (funcs.size() == 1) {
    func = funcs.front();
  } else {
    setupError = "the module has " + std::to_string(funcs.size()) +
                 " functions and no public 'main'; name the function to run";
    return failure();
  }
  if (func.isExternal() || !func.getBody().hasOneBlock()) {
    setupError = ("function '" + func.getSymName() + "' must have a body of one block").str();
    return failure();
  }
  registerTopReferenceKernels(*module.getContext());

  Block &body = func.getBody().front();
  DenseMap<Value, int> ids;
  auto addValue = [&](Value v) {
    ids[v] = values.size();
    values.push_back(v);
    auto type = dyn_cast<RankedTensorType>(v.getType());
    sizes.push_back(type && type.hasStaticShape() ? type.getNumElements() : -1);
  };
  for (BlockArgument arg : body.getArguments())
    addValue(arg);
  for (Operation &op : body.without_terminator()) {
    Step step{&op, {}, {}, {}, nullptr};
    SmallVector<bool> constant;
    for (Value operand : op.getOperands()) {
      constant.push_back(operand.getDefiningOp<top::WeightOp>() != nullptr);
      auto it = ids.find(operand);
      if (it == ids.end()) {
        setupError = ("op '" + op.getName().getStringRef() + "' uses a value defined after it or outside " +
                      "the function")
                         .str();
        return failure();
      }
      step.operands.push_back(it->second);
    }
    for (Value result : op.getResults()) {
      step.results.push_back(values.size());
      addValue(result);
    }
    if (llvm::is_contained(constant, true))
      step.cache = std::make_unique<ref::OpCache>(std::move(constant));
    steps.push_back(std::move(step));
  }
  for (Value v : body.getTerminator()->getOperands()) {
    if (!ids.count(v)) {
      setupError = "the function returns a value defined outside it";
      return failure();
    }
    resultIds.push_back(ids.lookup(v));
  }
  top::TensorNaming naming = top::nameTensors(func, values);
  names = std::move(naming.names);
  resultNames = std::move(naming.results);
  aliases.assign(values.size(), {});
  for (auto &[id, alias] : naming.aliases)
    aliases[id].push_back(std::move(alias));
  argNames.assign(names.begin(), names.begin() + body.getNumArguments());
  inputs.resize(body.getNumArguments());
  weights.resize(steps.size());

  // Free each value after its last user; returned values and arguments never.
  std::vector<int> lastUse(values.size(), -1);
  for (auto [index, step] : llvm::enumerate(steps)) {
    for (int id : step.operands)
      lastUse[id] = index;
    for (int id : step.results) // unused results die where they are born
      lastUse[id] = index;
  }
  for (int id : resultIds)
    lastUse[id] = -1;
  for (size_t id = body.getNumArguments(); id < values.size(); ++id)
    if (lastUse[id] >= 0)
      steps[lastUse[id]].freeAfter.push_back(id);
  return success();
}

llvm::Error Interpreter::Impl::opError(const Step &step, const Twine &message) const {
  std::string loc;
  llvm::raw_string_ostream os(loc);
  step.op->getLoc().print(os);
  std::string name = step.results.empty() ? std::string("?") : names[step.results.front()];
  return makeError("'" + name + "' (" + step.op->getName().getStringRef() + " at " + loc + "): " + message);
}

llvm::Error Interpreter::Impl::checkProgram() const {
  if (!setupError.empty())
    return makeError(setupError);
  for (const Step &step : steps) {
    if (!isa<top::InferenceInterface>(step.op))
      return opError(step, "no reference kernel for this op");
    for (auto [i, id] : llvm::enumerate(step.results))
      if (sizes[id] < 0 && !isa<NoneType>(values[id].getType()))
        return opError(step, "result #" + Twine(i) + " has no static tensor shape (" +
                                 "run top-shape-infer first)");
  }
  return llvm::Error::success();
}

llvm::Error Interpreter::Impl::runStep(const Step &step, std::vector<Slot> &slots,
                                       std::vector<std::string> &messages) {
  SmallVector<const float *> ins;
  for (int id : step.operands)
    ins.push_back(slots[id].data);
  SmallVector<float *> outs;
  for (int id : step.results) {
    if (sizes[id] < 0) {
      outs.push_back(nullptr);
      continue;
    }
    slots[id].owned = pool.acquire(sizes[id], slots[id].capacity);
    slots[id].data = slots[id].owned.get();
    outs.push_back(slots[id].owned.get());
  }
  messages.clear();
  ref::ScopedOpCache scope(step.cache.get());
  if (failed(cast<top::InferenceInterface>(step.op).inference(ins, outs)))
    return opError(step, messages.empty() ? std::string("the kernel failed") : messages.front());
  return llvm::Error::success();
}

Interpreter::Interpreter(ModuleOp module, StringRef function) : impl(std::make_unique<Impl>()) {
  impl->module = module;
  (void)impl->prepare(function);
}

Interpreter::~Interpreter() = default;

size_t Interpreter::numInputs() const { return impl->inputs.size(); }
std::vector<std::string> Interpreter::inputNames() const { return impl->argNames; }
std::vector<int64_t> Interpreter::inputShape(size_t index) const { return impl->boundInputs().shape(index); }
std::vector<std::string> Interpreter::outputNames() const { return impl->resultNames; }

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
  for (size_t i = 0; i < m.inputs.size(); ++i)
    if (!m.inputs[i])
      return makeError("missing input '" + m.argNames[i] + "' (argument " + Twine(i) + ")");
  if (options.numThreads)
    ThreadPool::setGlobalThreads(options.numThreads);

  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  m.outputs = NpzFile();
  m.tensors = NpzFile();
  m.stats = RunStats();
  std::vector<Slot> slots(m.values.size());
  int64_t live = 0, dumpedBytes = 0;
  auto bytes = [&](int id) { return std::max<int64_t>(m.sizes[id], 0) * (int64_t)sizeof(float); };
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    slots[i].data = m.inputs[i].get();
    live += bytes(i);
  }
  m.stats.totalTensorBytes = live;
  m.stats.peakLiveBytes = live;
  auto dump = [&](int id, NpzFile &into, const std::string &name) {
    auto type = cast<ShapedType>(m.values[id].getType());
    Tensor t(DType::F32, std::vector<int64_t>(type.getShape().begin(), type.getShape().end()));
    if (m.sizes[id] > 0)
      std::memcpy(t.data(), slots[id].data, bytes(id));
    into.set(name, std::move(t));
  };

  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(m.module.getContext(), [&](Diagnostic &diag) {
    messages.push_back(diag.str());
    return success();
  });
  for (auto [index, step] : llvm::enumerate(m.steps)) {
    auto opStart = Clock::now();
    bool isWeight = isa<top::WeightOp>(step.op);
    if (isWeight) {
      std::vector<float> &weight = m.weights[index];
      if (weight.empty() && m.sizes[step.results[0]] > 0) {
        std::vector<float> loaded(m.sizes[step.results[0]]);
        messages.clear();
        float *out = loaded.data();
        if (failed(cast<top::InferenceInterface>(step.op).inference({}, {out})))
          return m.opError(step, messages.empty() ? std::string("cannot read the weight") : messages.front());
        weight = std::move(loaded);
      }
      slots[step.results[0]].data = weight.data();
    } else if (auto err = m.runStep(step, slots, messages)) {
      return err;
    }
    m.stats.numOps++;
    if (!isWeight) {
      for (int id : step.results) {
        live += bytes(id);
        m.stats.totalTensorBytes += bytes(id);
        if (options.dumpAll && m.sizes[id] >= 0) {
          dump(id, m.tensors, m.names[id]);
          for (const std::string &alias : m.aliases[id])
            dump(id, m.tensors, alias);
          dumpedBytes += bytes(id) * (1 + m.aliases[id].size()); // the copies stay alive in tensors()
        }
        if (options.onTensor && m.sizes[id] >= 0)
          options.onTensor(m.names[id], cast<ShapedType>(m.values[id].getType()).getShape(),
                           llvm::ArrayRef<float>(slots[id].data, m.sizes[id]));
      }
    }
    m.stats.peakLiveBytes = std::max(m.stats.peakLiveBytes, live + dumpedBytes);
    for (int id : step.freeAfter) {
      if (slots[id].owned) {
        m.pool.release(std::move(slots[id].owned), slots[id].capacity);
        live -= bytes(id);
      }
      slots[id].data = nullptr;
    }
    if (options.profile)
      m.stats.opSeconds.push_back({step.results.empty() ? "" : m.names[step.results[0]],
                                   step.op->getName().getStringRef().str(),
                                   std::chrono::duration<double>(Clock::now() - opStart).count()});
    if (options.progress &&
        !options.progress(index + 1, m.steps.size(),
                          step.results.empty() ? StringRef() : StringRef(m.names[step.results[0]])))
      return makeError("cancelled");
  }
  // The outputs under the graph's output names; a full dump holds them too (a returned weight or
  // input is no op result of its own).
  for (auto [i, id] : llvm::enumerate(m.resultIds)) {
    const std::string &name = m.resultNames[i];
    if (m.sizes[id] < 0 || !slots[id].data)
      return makeError("function result '" + name + "' is not a tensor");
    dump(id, m.outputs, name);
    if (!m.tensors.has(name))
      dump(id, m.tensors, name);
  }
  for (Slot &slot : slots) // outputs and other survivors go back to the pool for the next run
    if (slot.owned)
      m.pool.release(std::move(slot.owned), slot.capacity);
  for (const std::vector<float> &w : m.weights)
    m.stats.weightBytes += w.size() * sizeof(float);
  for (const Step &step : m.steps)
    if (step.cache)
      m.stats.weightBytes += step.cache->bytes;
  m.stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return llvm::Error::success();
}

const NpzFile &Interpreter::outputs() const { return impl->outputs; }
const NpzFile &Interpreter::tensors() const { return impl->tensors; }
const RunStats &Interpreter::stats() const { return impl->stats; }

void Interpreter::releaseMemory() {
  for (std::vector<float> &w : impl->weights)
    std::vector<float>().swap(w);
  for (Step &step : impl->steps)
    if (step.cache)
      step.cache->clear();
  impl->pool.clear();
}

} // namespace tpuc::sim
