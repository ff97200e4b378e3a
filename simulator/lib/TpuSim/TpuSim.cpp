//===- TpuSim.cpp - Functional simulator of the Tpu dialect ---------------===//
// Prepares a function once (value numbering, names, encodings, shadow Top ops for float math, last uses),
// then runs it op by op in accumulated or isolated mode, dumping dequantized tensors.
//===----------------------------------------------------------------------===//
#include "tpuc/Simulator/TpuSim.h"

#include "../Reference/FunctionInputs.h"
#include "../Reference/Kernels.h"
#include "SimOps.h"
#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/Dialect/Tpu/TpuOps.h"
#include "tpuc/Simulator/ReferenceKernels.h"
#include "tpuc/Simulator/ThreadPool.h"
#include "tpuc/Support/FloatConvert.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <map>

using namespace mlir;

namespace tpuc::sim {
using tpusim::Encoding;
using tpusim::makeError;

namespace {

/// One op with its operand and result value ids.
struct Step {
  Operation *op;
  SmallVector<int> operands, results;
  SmallVector<int> freeAfter;
  Operation *shadow = nullptr;
  /// Data kernels derive from the op's weights (packed filters), kept while the weights are loaded.
  std::unique_ptr<ref::OpCache> cache;
};

/// Recycles freed buffers between ops and runs (see the Interpreter: avoids page faults per op).
class BufferPool {
public:
  std::unique_ptr<float[]> acquire(int64_t n, int64_t &capacity) {
    n = std::max<int64_t>(n, 1);
    auto it = free.lower_bound(n);
    if (it != free.end() && it->first <= 2 * n) {
      capacity = it->first;
      auto buffer = std::move(it->second);
      free.erase(it);
      return buffer;
    }
    capacity = n;
    return std::unique_ptr<float[]>(new float[n]);
  }
  void release(std::unique_ptr<float[]> buffer, int64_t capacity) { free.emplace(capacity, std::move(buffer)); }
  void clear() { free.clear(); }

private:
  std::multimap<int64_t, std::unique_ptr<float[]>> free;
};

struct Slot {
  std::unique_ptr<float[]> owned;
  int64_t capacity = 0;
  const float *data = nullptr;
};

/// A loaded weight: float values, and exact integers for integer element types.
struct Weight {
  std::vector<float> values;
  std::vector<int64_t> ints;
  bool loaded = false;
};

bool isCastLike(Operation *op) { return isa<::tpuc::tpu::CastOp, ::tpuc::tpu::RequantIntOp>(op); }

} // namespace

struct TpuSimulator::Impl {
  ModuleOp module;
  func::FuncOp func;
  std::string setupError;
  OwningOpRef<ModuleOp> scratch; ///< Holds the shadow Top ops.

  std::vector<Value> values;
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> aliases; ///< Further names per value (TensorNaming::aliases).
  std::vector<std::string> resultNames;          ///< The function results' names (graph outputs).
  std::vector<int64_t> sizes;
  std::vector<Encoding> encodings;
  std::vector<bool> isWeight;  ///< Produced by top.weight (never dumped, never replaced in isolated mode).
  std::vector<int> producer;   ///< Step producing each value; -1 for arguments.
  std::vector<Step> steps;
  std::vector<int> resultIds;
  std::vector<std::string> argNames;
  std::vector<std::unique_ptr<float[]>> inputs;
  /// The input rules shared with the other simulator (positions, names, npz; shapes checked).
  FunctionInputs boundInputs() { return {inputs, argNames, values}; }
  std::vector<Weight> weights; ///< Per step.
  std::map<std::string, std::unique_ptr<NpzFile>> weightFiles;
  BufferPool pool;
  NpzFile outputs, tensors;
  RunStats stats;

  void prepare(StringRef function);
  llvm::Error opError(const Step &step, const Twine &message) const;
  llvm::Error loadWeight(size_t index, std::vector<std::string> &messages);
  /// The reference tensor for value `id` (its name, or the names up a chain of casts), or null.
  const Tensor *referenceFor(int id, const NpzFile &reference) const;
  Tensor dumpTensor(int id, const float *data) const;
};

void TpuSimulator::Impl::prepare(StringRef function) {
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  if (!function.empty())
    func = module.lookupSymbol<func::FuncOp>(function);
  else if (auto main = module.lookupSymbol<func::FuncOp>("main"); main && main.isPublic())
    func = main;
  else if (funcs.size() == 1)
    func = funcs.front();
  if (!func) {
    setupError = function.empty() ? "the module has " + std::to_string(funcs.size()) +
                                        " functions and no public 'main'; name the function to run"
                                  : ("the module has no function '" + function + "'").str();
    return;
  }
  if (func.isExternal() || !func.getBody().hasOneBlock()) {
    setupError = ("function '" + func.getSymName() + "' must have a body of one block").str();
    return;
  }
  MLIRContext *ctx = module.getContext();
  registerTopReferenceKernels(*ctx);
  registerTpuKernels(*ctx);
  ctx->getOrLoadDialect<top::TopDialect>();
  ctx->getOrLoadDialect<func::FuncDialect>();
  scratch = ModuleOp::create(UnknownLoc::get(ctx));

  Block &body = func.getBody().front();
  DenseMap<Value, int> ids;
  auto addValue = [&](Value v, int step) {
    ids[v] = values.size();
    values.push_back(v);
    auto type = dyn_cast<RankedTensorType>(v.getType());
    sizes.push_back(type && type.hasStaticShape() ? type.getNumElements() : -1);
    encodings.push_back(tpusim::encodingOf(v.getType()));
    producer.push_back(step);
    isWeight.push_back(step >= 0 && isa<top::WeightOp>(v.getDefiningOp()));
  };
  for (BlockArgument arg : body.getArguments())
    addValue(arg, -1);
  for (Operation &op : body.without_terminator()) {
    Step step{&op, {}, {}, {}};
    for (Value operand : op.getOperands()) {
      auto it = ids.find(operand);
      if (it == ids.end()) {
        setupError = ("op '" + op.getName().getStringRef() + "' uses a value defined outside the function").str();
        return;
      }
      step.operands.push_back(it->second);
    }
    for (Value result : op.getResults()) {
      step.results.push_back(values.size());
      addValue(result, steps.size());
    }
    steps.push_back(std::move(step));
  }
  for (Value v : body.getTerminator()->getOperands())
    resultIds.push_back(ids.lookup(v));
  top::TensorNaming naming = top::nameTensors(func, values);
  names = std::move(naming.names);
  resultNames = std::move(naming.results);
  aliases.assign(values.size(), {});
  for (auto &[id, alias] : naming.aliases)
    aliases[id].push_back(std::move(alias));
  argNames.assign(names.begin(), names.begin() + body.getNumArguments());
  inputs.resize(body.getNumArguments());
  weights.resize(steps.size());

  for (Step &step : steps) {
    StringRef name = step.op->getName().getStringRef(); // for messages
    if (isa<top::TopDialect>(step.op->getDialect())) {
      if (!isa<top::InferenceInterface>(step.op)) {
        setupError = ("'" + names[step.results.empty() ? 0 : step.results[0]] + "' (" + name +
                      "): no kernel for this op")
                         .str();
        return;
      }
      continue;
    }
    auto kernel = dyn_cast<::tpuc::tpu::KernelInterface>(step.op);
    if (!kernel) {
      setupError = ("op '" + name + "' is neither a Tpu nor a Top op").str();
      return;
    }
    for (int id : step.results)
      if (sizes[id] < 0) {
        setupError = ("'" + names[id] + "' (" + name + "): result has no static tensor shape").str();
        return;
      }
    if (kernel.needsFloatTwin()) {
      bool int8 = !step.results.empty() && encodings[step.results[0]].isQuant();
      auto twin = kernel.buildFloatTwin(*scratch->getBody(), int8);
      if (!twin) {
        setupError =
            ("'" + names[step.results[0]] + "' (" + name + "): " + llvm::toString(twin.takeError())).str();
        return;
      }
      step.shadow = *twin;
    }
  }

  for (Step &step : steps) {
    SmallVector<bool> constant;
    for (int id : step.operands)
      constant.push_back(isWeight[id]);
    if (llvm::is_contained(constant, true))
      step.cache = std::make_unique<ref::OpCache>(std::move(constant));
  }

  std::vector<int> lastUse(values.size(), -1);
  for (auto [index, step] : llvm::enumerate(steps)) {
    for (int id : step.operands)
      lastUse[id] = index;
    for (int id : step.results)
      lastUse[id] = index;
  }
  for (int id : resultIds)
    lastUse[id] = -1;
  for (size_t id = body.getNumArguments(); id < values.size(); ++id)
    if (lastUse[id] >= 0 && !isWeight[id])
      steps[lastUse[id]].freeAfter.push_back(id);
}

llvm::Error TpuSimulator::Impl::opError(const Step &step, const Twine &message) const {
  std::string loc;
  llvm::raw_string_ostream os(loc);
  step.op->getLoc().print(os);
  std::string name = step.results.empty() ? std::string("?") : names[step.results.front()];
  return makeError("'" + name + "' (" + step.op->getName().getStringRef() + " at " + loc + "): " + message);
}

llvm::Error TpuSimulator::Impl::loadWeight(size_t index, std::vector<std::string> &messages) {
  Weight &w = weights[index];
  if (w.loaded)
    return llvm::Error::success();
  const Step &step = steps[index];
  auto op = cast<top::WeightOp>(step.op);
  int id = step.results[0];
  Type element = cast<ShapedType>(values[id].getType()).getElementType();
  bool integer = isa<IntegerType>(element);
  messages.clear();
  auto data = top::readWeightF32(op);
  if (failed(data))
    return opError(step, messages.empty() ? std::string("cannot read the weight") : messages.front());
  w.values = std::move(*data);
  w.loaded = true;
  if (!integer)
    return llvm::Error::success();
  w.ints.reserve(w.values.size());
  bool exact = true;
  for (float v : w.values) {
    w.ints.push_back(static_cast<int64_t>(v));
    exact &= std::fabs(v) < 16777216.0f; // float32 holds every integer below 2^24
  }
  // An int32 bias beyond 2^24 lost bits on the way through float32: take its exact values from the file.
  if (!exact && op.getValue()) {
    if (auto dense = dyn_cast<DenseIntElementsAttr>(*op.getValue())) {
      bool isUnsigned = element.isUnsignedInteger();
      int64_t i = 0;
      for (const APInt &v : dense.getValues<APInt>())
        w.ints[i++] = isUnsigned ? static_cast<int64_t>(v.getZExtValue()) : v.getSExtValue();
    }
  }
  auto attr = module->getAttrOfType<StringAttr>(top::TopDialect::kWeightFileAttr);
  if (!exact && !op.getValue() && attr) {
    auto &file = weightFiles[attr.str()];
    std::string error;
    if (!file) {
      file = std::make_unique<NpzFile>();
      if (!NpzFile::tryRead(attr.str(), *file, error))
        file->set("", Tensor()); // unreadable: keep the float values
    }
    if (file->has(op.getName().str()) && file->get(op.getName().str()).numElements() == sizes[id]) {
      const Tensor &raw = file->get(op.getName().str());
      for (int64_t i = 0; i < sizes[id]; ++i)
        w.ints[i] = static_cast<int64_t>(raw.valueAsDouble(i));
    }
  }
  return llvm::Error::success();
}

const Tensor *TpuSimulator::Impl::referenceFor(int id, const NpzFile &reference) const {
  for (int cur = id;;) {
    if (reference.has(names[cur]))
      return &reference.get(names[cur]);
    int p = producer[cur];
    if (p < 0 || !isCastLike(steps[p].op) || steps[p].operands.empty())
      return nullptr;
    cur = steps[p].operands[0];
  }
}

Tensor TpuSimulator::Impl::dumpTensor(int id, const float *data) const {
  auto type = cast<ShapedType>(values[id].getType());
  Tensor t(DType::F32, std::vector<int64_t>(type.getShape().begin(), type.getShape().end()));
  if (sizes[id] <= 0)
    return t;
  float *dst = reinterpret_cast<float *>(t.data());
  if (encodings[id].isQuant())
    tpu::dequantizeCodes(data, sizes[id], encodings[id].q, dst);
  else
    std::memcpy(dst, data, sizes[id] * sizeof(float));
  return t;
}

TpuSimulator::TpuSimulator(ModuleOp module, StringRef function) : impl(std::make_unique<Impl>()) {
  impl->module = module;
  impl->prepare(function);
}

TpuSimulator::~TpuSimulator() = default;

size_t TpuSimulator::numInputs() const { return impl->inputs.size(); }
std::vector<std::string> TpuSimulator::inputNames() const { return impl->argNames; }
std::vector<int64_t> TpuSimulator::inputShape(size_t index) const { return impl->boundInputs().shape(index); }
std::vector<std::string> TpuSimulator::outputNames() const { return impl->resultNames; }

llvm::Error TpuSimulator::setInput(size_t index, const Tensor &tensor) {
  if (!impl->setupError.empty())
    return makeError(impl->setupError);
  return impl->boundInputs().set(index, tensor);
}

llvm::Error TpuSimulator::setInput(StringRef name, const Tensor &tensor) {
  if (!impl->setupError.empty())
    return makeError(impl->setupError);
  return impl->boundInputs().set(name, tensor);
}

llvm::Error TpuSimulator::setInputs(const NpzFile &npz) {
  if (!impl->setupError.empty())
    return makeError(impl->setupError);
  return impl->boundInputs().setAll(npz);
}

llvm::Error TpuSimulator::run(const TpuRunOptions &options) {
  Impl &m = *impl;
  if (!m.setupError.empty())
    return makeError(m.setupError);
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
  auto bytes = [&](int id) { return std::max<int64_t>(m.sizes[id], 0) * (int64_t)sizeof(float); };
  int64_t live = 0, dumped = 0;
  // Inputs come as real values; an argument in INT8 (deploy --quant_input) holds its codes, one in F16/BF16
  // its rounded values, as every other tensor of that encoding does.
  std::vector<std::unique_ptr<float[]>> encodedInputs;
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    slots[i].data = m.inputs[i].get();
    const Encoding &e = m.encodings[i];
    if (e.isQuant() || e.half() != tpu::Half::None) {
      std::unique_ptr<float[]> buf(new float[std::max<int64_t>(m.sizes[i], 1)]);
      if (e.isQuant())
        tpu::quantizeFloats(m.inputs[i].get(), m.sizes[i], e.q, e.storage, buf.get());
      else {
        std::memcpy(buf.get(), m.inputs[i].get(), m.sizes[i] * sizeof(float));
        tpu::roundHalf(buf.get(), m.sizes[i], e.half());
      }
      slots[i].data = buf.get();
      encodedInputs.push_back(std::move(buf));
    }
    live += bytes(i);
  }
  m.stats.totalTensorBytes = m.stats.peakLiveBytes = live;

  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(m.module.getContext(), [&](Diagnostic &diag) {
    messages.push_back(diag.str());
    return success();
  });
  std::vector<std::unique_ptr<float[]>> isolatedInputs;
  for (auto [index, step] : llvm::enumerate(m.steps)) {
    auto opStart = Clock::now();
    if (isa<top::WeightOp>(step.op)) {
      if (auto err = m.loadWeight(index, messages))
        return err;
      slots[step.results[0]].data = m.weights[index].values.data();
      m.stats.numOps++;
      continue;
    }
    SmallVector<const float *> ins;
    SmallVector<Encoding> inEnc;
    SmallVector<const std::vector<int64_t> *> intWeights;
    isolatedInputs.clear();
    for (int id : step.operands) {
      const float *data = slots[id].data;
      const Tensor *ref = options.reference && !m.isWeight[id] && m.producer[id] >= 0 &&
                                  !isa<top::InputOp>(step.op)
                              ? m.referenceFor(id, *options.reference)
                              : nullptr;
      if (ref) {
        if (ref->numElements() != m.sizes[id])
          return m.opError(step, "reference tensor for input '" + m.names[id] + "' has shape " +
                                     shapeToString(ref->shape()) + ", not the simulated one");
        Tensor f32 = ref->dtype() == DType::F32 ? *ref : toF32Tensor(*ref);
        const float *src = reinterpret_cast<const float *>(f32.data());
        std::unique_ptr<float[]> buf(new float[std::max<int64_t>(m.sizes[id], 1)]);
        const Encoding &e = m.encodings[id];
        if (e.isQuant())
          tpu::quantizeFloats(src, m.sizes[id], e.q, e.storage, buf.get());
        else {
          std::memcpy(buf.get(), src, m.sizes[id] * sizeof(float));
          tpu::roundHalf(buf.get(), m.sizes[id], e.half());
        }
        data = buf.get();
        isolatedInputs.push_back(std::move(buf));
      }
      ins.push_back(data);
      inEnc.push_back(m.encodings[id]);
      int p = m.producer[id];
      intWeights.push_back(m.isWeight[id] && !m.weights[p].ints.empty() ? &m.weights[p].ints : nullptr);
    }
    SmallVector<float *> outs;
    SmallVector<Encoding> outEnc;
    for (int id : step.results) {
      outEnc.push_back(m.encodings[id]);
      if (m.sizes[id] < 0) {
        outs.push_back(nullptr);
        continue;
      }
      slots[id].owned = m.pool.acquire(m.sizes[id], slots[id].capacity);
      slots[id].data = slots[id].owned.get();
      outs.push_back(slots[id].owned.get());
    }
    messages.clear();
    tpusim::OpContext ctx{step.op, inEnc, outEnc, ins, outs, intWeights, step.shadow};
    // Isolated runs feed every op fresh inputs but the same weights, so the cache stays valid.
    ref::ScopedOpCache scope(step.cache.get());
    if (auto err = tpusim::execute(ctx)) {
      std::string text = llvm::toString(std::move(err));
      if (!messages.empty())
        text += ": " + messages.front();
      return m.opError(step, text);
    }
    m.stats.numOps++;
    for (int id : step.results) {
      live += bytes(id);
      m.stats.totalTensorBytes += bytes(id);
      if (options.dumpAll && m.sizes[id] >= 0) {
        m.tensors.set(m.names[id], m.dumpTensor(id, slots[id].data));
        for (const std::string &alias : m.aliases[id])
          m.tensors.set(alias, m.dumpTensor(id, slots[id].data));
        dumped += bytes(id) * (1 + m.aliases[id].size());
      }
    }
    m.stats.peakLiveBytes = std::max(m.stats.peakLiveBytes, live + dumped);
    for (int id : step.freeAfter) {
      if (slots[id].owned) {
        m.pool.release(std::move(slots[id].owned), slots[id].capacity);
        live -= bytes(id);
      }
      slots[id].data = nullptr;
    }
    StringRef tensorName = step.results.empty() ? StringRef() : StringRef(m.names[step.results[0]]);
    if (options.profile)
      m.stats.opSeconds.push_back({tensorName.str(), step.op->getName().getStringRef().str(),
                                   std::chrono::duration<double>(Clock::now() - opStart).count()});
    if (options.progress && !options.progress(index + 1, m.steps.size(), tensorName))
      return makeError("cancelled");
  }
  // The outputs under the graph's output names; a full dump holds them too.
  for (auto [i, id] : llvm::enumerate(m.resultIds)) {
    const std::string &name = m.resultNames[i];
    if (m.sizes[id] < 0 || !slots[id].data)
      return makeError("function result '" + name + "' is not a tensor");
    m.outputs.set(name, m.dumpTensor(id, slots[id].data));
    if (!m.tensors.has(name))
      m.tensors.set(name, m.dumpTensor(id, slots[id].data));
  }
  for (Slot &slot : slots)
    if (slot.owned)
      m.pool.release(std::move(slot.owned), slot.capacity);
  for (const Weight &w : m.weights)
    m.stats.weightBytes += w.values.size() * sizeof(float);
  m.stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return llvm::Error::success();
}

const NpzFile &TpuSimulator::outputs() const { return impl->outputs; }
const NpzFile &TpuSimulator::tensors() const { return impl->tensors; }
const RunStats &TpuSimulator::stats() const { return impl->stats; }

void TpuSimulator::releaseMemory() {
  for (Weight &w : impl->weights)
    w = Weight();
  for (Step &step : impl->steps)
    if (step.cache)
      step.cache->clear();
  impl->weightFiles.clear();
  impl->pool.clear();
}

} // namespace tpuc::sim
