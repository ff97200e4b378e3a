//===- TpuSim.cpp - Functional simulator of the Tpu dialect ---------------===//
// Prepares a function once (the FunctionProgram's numbering, names and last uses; encodings, shadow Top
// ops for float math), then runs it op by op in accumulated or isolated mode, dumping dequantized tensors.
//===----------------------------------------------------------------------===//
#include "tpuc/Simulator/TpuSim.h"

#include "../Reference/Kernels.h"
#include "../Reference/ProgramRun.h"
#include "SimOps.h"
#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/Dialect/Tpu/TpuOps.h"
#include "tpuc/Simulator/ReferenceKernels.h"
#include "tpuc/Support/FloatConvert.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
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

/// A loaded weight: float values, and exact integers for integer element types.
struct Weight {
  std::vector<float> values;
  std::vector<int64_t> ints;
  bool loaded = false;
};

bool isCastLike(Operation *op) { return isa<::tpuc::tpu::CastOp, ::tpuc::tpu::RequantIntOp>(op); }

} // namespace

struct TpuSimulator::Impl {
  Impl(ModuleOp module, const FunctionProgram &program) : module(module), program(program) {}
  ModuleOp module;
  const FunctionProgram
      &program;                  ///< Values numbered, named, with producers and last uses (FunctionRunner's).
  OwningOpRef<ModuleOp> scratch; ///< Holds the shadow Top ops.

  std::vector<Encoding> encodings; ///< Per value.
  std::vector<bool> isWeight;  ///< Produced by top.weight (never dumped, never replaced in isolated mode).
  std::vector<Operation *> shadows; ///< Per step: the shadow Top op doing its float math, or null.
  /// Per step: data kernels derive from the op's weights (packed filters), kept while the weights are loaded.
  std::vector<std::unique_ptr<ref::OpCache>> caches;
  std::vector<Weight> weights; ///< Per step.
  std::map<std::string, std::unique_ptr<NpzFile>> weightFiles;
  BufferPool pool;
  /// Control flow: each region of a tpu.if / tpu.loop outlined into a function of `regions` and simulated
  /// by a simulator of its own (per step: the then and else branches, or the body).
  OwningOpRef<ModuleOp> regions;
  std::vector<std::vector<std::unique_ptr<TpuSimulator>>> regionSims;
  /// Iterations a tpu.loop may run before the run fails (a loop that never ends).
  static constexpr int64_t kMaxLoopSteps = 1000000;

  /// Encodings, weights and shadow ops of the program; a one-line problem, or "".
  std::string prepare();
  llvm::Error loadWeight(size_t index, std::vector<std::string> &messages);
  /// Outlines every region of control op `op` into `regions` and prepares its simulator; a problem, or "".
  std::string prepareRegions(size_t index, Operation *op);
  /// Runs control op step `index`: the region its condition picks, or the body while its flag is set.
  llvm::Error runControl(size_t index, const ProgramStep &step, ProgramRun &run, const TpuRunOptions &options,
                         NpzFile *dumpInto);
  /// The reference tensor for value `id` (its name, or the names up a chain of casts), or null.
  const Tensor *referenceFor(int id, const NpzFile &reference) const;
  Tensor dumpTensor(int id, const float *data) const;
};

std::string TpuSimulator::Impl::prepare() {
  MLIRContext *ctx = module.getContext();
  registerTopReferenceKernels(*ctx);
  registerTpuKernels(*ctx);
  ctx->getOrLoadDialect<top::TopDialect>();
  ctx->getOrLoadDialect<func::FuncDialect>();
  scratch = ModuleOp::create(UnknownLoc::get(ctx));

  const FunctionProgram &p = program;
  for (auto [id, v] : llvm::enumerate(p.values)) {
    encodings.push_back(tpusim::encodingOf(v.getType()));
    isWeight.push_back(p.producer[id] >= 0 && isa<top::WeightOp>(v.getDefiningOp()));
  }
  weights.resize(p.steps.size());
  shadows.assign(p.steps.size(), nullptr);

  regionSims.resize(p.steps.size());
  for (auto [index, step] : llvm::enumerate(p.steps)) {
    StringRef name = step.op->getName().getStringRef(); // for messages
    if (isa<::tpuc::tpu::IfOp, ::tpuc::tpu::LoopOp>(step.op)) {
      if (std::string problem = prepareRegions(index, step.op); !problem.empty())
        return problem;
      continue;
    }
    if (isa<top::TopDialect>(step.op->getDialect())) {
      if (!isa<top::InferenceInterface>(step.op))
        return ("'" + p.names[step.results.empty() ? 0 : step.results[0]] + "' (" + name +
                "): no kernel for this op")
            .str();
      continue;
    }
    auto kernel = dyn_cast<::tpuc::tpu::KernelInterface>(step.op);
    if (!kernel)
      return ("op '" + name + "' is neither a Tpu nor a Top op").str();
    for (int id : step.results)
      if (p.sizes[id] < 0)
        return ("'" + p.names[id] + "' (" + name + "): result has no static tensor shape").str();
    if (kernel.needsFloatTwin()) {
      bool int8 = !step.results.empty() && encodings[step.results[0]].isQuant();
      auto twin = kernel.buildFloatTwin(*scratch->getBody(), int8);
      if (!twin)
        return ("'" + p.names[step.results[0]] + "' (" + name + "): " + llvm::toString(twin.takeError())).str();
      shadows[index] = *twin;
    }
  }
  caches = makeWeightCaches(p);
  return "";
}

std::string TpuSimulator::Impl::prepareRegions(size_t index, Operation *op) {
  MLIRContext *ctx = module.getContext();
  if (!regions) {
    regions = ModuleOp::create(UnknownLoc::get(ctx));
    (*regions)->setAttrs(module->getAttrDictionary()); // the weight file, chip and mode
  }
  for (Region &region : op->getRegions()) {
    Block &block = region.front();
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(regions->getBody());
    std::string name = "region_" + std::to_string(index) + "_" + std::to_string(region.getRegionNumber());
    auto fn = func::FuncOp::create(b, op->getLoc(), name,
                                   b.getFunctionType(block.getArgumentTypes(), block.getTerminator()->getOperandTypes()));
    Block *entry = fn.addEntryBlock();
    IRMapping map;
    for (auto [from, to] : llvm::zip(block.getArguments(), entry->getArguments()))
      map.map(from, to);
    b.setInsertionPointToStart(entry);
    for (Operation &inner : block.without_terminator())
      b.clone(inner, map);
    SmallVector<Value> results;
    for (Value v : block.getTerminator()->getOperands())
      results.push_back(map.lookupOrDefault(v));
    func::ReturnOp::create(b, op->getLoc(), results);
    regionSims[index].push_back(std::make_unique<TpuSimulator>(*regions, name));
  }
  return "";
}

llvm::Error TpuSimulator::Impl::runControl(size_t index, const ProgramStep &step, ProgramRun &run,
                                           const TpuRunOptions &options, NpzFile *dumpInto) {
  const FunctionProgram &p = program;
  auto valueOf = [&](int id) { return dumpTensor(id, run.data(id)); };
  auto firstNonzero = [](const Tensor &t) { return t.numElements() > 0 && t.valueAsDouble(0) != 0; };
  // Runs region simulator `sim` on `inputs`; its outputs in result order.
  auto runRegion = [&](TpuSimulator &sim, const std::vector<Tensor> &inputs) -> llvm::Expected<std::vector<Tensor>> {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (auto err = sim.setInput(i, inputs[i]))
        return std::move(err);
    TpuRunOptions nested;
    nested.dumpAll = dumpInto != nullptr;
    nested.numThreads = options.numThreads;
    if (auto err = sim.run(nested))
      return std::move(err);
    if (dumpInto)
      for (const std::string &name : sim.tensors().names())
        dumpInto->set(name, sim.tensors().get(name));
    std::vector<Tensor> outs;
    for (const std::string &name : sim.outputNames())
      outs.push_back(sim.outputs().get(name));
    return outs;
  };
  std::vector<Tensor> results;
  if (auto ifOp = dyn_cast<::tpuc::tpu::IfOp>(step.op)) {
    bool taken = firstNonzero(valueOf(step.operands[0]));
    std::vector<Tensor> inputs;
    for (size_t i = 1; i < step.operands.size(); ++i)
      inputs.push_back(valueOf(step.operands[i]));
    auto outs = runRegion(*regionSims[index][taken ? 0 : 1], inputs);
    if (!outs)
      return p.opError(step, (taken ? "then_branch: " : "else_branch: ") + llvm::toString(outs.takeError()));
    results = std::move(*outs);
  } else {
    auto loop = cast<::tpuc::tpu::LoopOp>(step.op);
    size_t carried = loop.getInits().size();
    std::vector<Tensor> state;
    for (int id : step.operands)
      state.push_back(valueOf(id));
    int64_t steps = 0;
    while (firstNonzero(state[0])) {
      if (++steps > kMaxLoopSteps)
        return p.opError(step, "the loop did not end after " + llvm::Twine(kMaxLoopSteps) + " steps");
      auto outs = runRegion(*regionSims[index][0], state);
      if (!outs)
        return p.opError(step, "step " + llvm::Twine(steps - 1) + ": " + llvm::toString(outs.takeError()));
      for (size_t k = 0; k < carried; ++k)
        state[k] = std::move((*outs)[k]);
    }
    state.resize(carried);
    results = std::move(state);
  }
  // Back into the op's encodings (lossless: the region computed in the same types).
  for (auto [k, id] : llvm::enumerate(step.results)) {
    float *out = run.allocate(id);
    const Tensor &t = results[k];
    if (!out || t.numElements() != p.sizes[id])
      return p.opError(step, "result #" + llvm::Twine(k) + " has the wrong size");
    Tensor f32 = t.dtype() == DType::F32 ? t : toF32Tensor(t);
    const float *src = reinterpret_cast<const float *>(f32.data());
    const Encoding &e = encodings[id];
    if (e.isQuant())
      tpu::quantizeFloats(src, p.sizes[id], e.q, e.storage, out);
    else {
      std::memcpy(out, src, p.sizes[id] * sizeof(float));
      tpu::roundHalf(out, p.sizes[id], e.half());
    }
  }
  return llvm::Error::success();
}

llvm::Error TpuSimulator::Impl::loadWeight(size_t index, std::vector<std::string> &messages) {
  Weight &w = weights[index];
  if (w.loaded)
    return llvm::Error::success();
  const ProgramStep &step = program.steps[index];
  auto op = cast<top::WeightOp>(step.op);
  int id = step.results[0];
  Type element = cast<ShapedType>(program.values[id].getType()).getElementType();
  bool integer = isa<IntegerType>(element);
  messages.clear();
  auto data = top::readWeightF32(op);
  if (failed(data))
    return program.opError(step, messages.empty() ? std::string("cannot read the weight") : messages.front());
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
    if (!file) {
      Result<NpzFile> read = NpzFile::tryRead(attr.str());
      file = std::make_unique<NpzFile>(read ? std::move(*read) : NpzFile());
      if (!read)
        file->set("", Tensor()); // unreadable: keep the float values
    }
    if (file->has(op.getName().str()) && file->get(op.getName().str()).numElements() == program.sizes[id]) {
      const Tensor &raw = file->get(op.getName().str());
      for (int64_t i = 0; i < program.sizes[id]; ++i)
        w.ints[i] = static_cast<int64_t>(raw.valueAsDouble(i));
    }
  }
  return llvm::Error::success();
}

const Tensor *TpuSimulator::Impl::referenceFor(int id, const NpzFile &reference) const {
  for (int cur = id;;) {
    if (reference.has(program.names[cur]))
      return &reference.get(program.names[cur]);
    int p = program.producer[cur];
    if (p < 0 || !isCastLike(program.steps[p].op) || program.steps[p].operands.empty())
      return nullptr;
    cur = program.steps[p].operands[0];
  }
}

Tensor TpuSimulator::Impl::dumpTensor(int id, const float *data) const {
  int64_t n = program.sizes[id];
  Tensor t(DType::F32, program.shape(id));
  if (n <= 0)
    return t;
  float *dst = reinterpret_cast<float *>(t.data());
  if (encodings[id].isQuant())
    tpu::dequantizeCodes(data, n, encodings[id].q, dst);
  else
    std::memcpy(dst, data, n * sizeof(float));
  return t;
}

TpuSimulator::TpuSimulator(ModuleOp module, StringRef function)
    : FunctionRunner(module, function), impl(std::make_unique<Impl>(module, program)) {
  if (setupError.empty())
    setupError = impl->prepare();
}

TpuSimulator::~TpuSimulator() = default;

llvm::Error TpuSimulator::run(const TpuRunOptions &options) {
  Impl &m = *impl;
  if (auto err = beginRun(options.numThreads))
    return err;
  const FunctionProgram &p = program;
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  ProgramRun run(p, m.pool, lastStats);
  auto dump = [&](int id, const float *data) { return m.dumpTensor(id, data); };
  // Inputs come as real values; an argument in INT8 (deploy --quant_input) holds its codes, one in F16/BF16
  // its rounded values, as every other tensor of that encoding does.
  std::vector<std::unique_ptr<float[]>> encodedInputs;
  for (size_t i = 0; i < inputBuffers.size(); ++i) {
    const float *data = inputBuffers[i].get();
    const Encoding &e = m.encodings[i];
    if (e.isQuant() || e.half() != tpu::Half::None) {
      std::unique_ptr<float[]> buf(new float[std::max<int64_t>(p.sizes[i], 1)]);
      if (e.isQuant())
        tpu::quantizeFloats(inputBuffers[i].get(), p.sizes[i], e.q, e.storage, buf.get());
      else {
        std::memcpy(buf.get(), inputBuffers[i].get(), p.sizes[i] * sizeof(float));
        tpu::roundHalf(buf.get(), p.sizes[i], e.half());
      }
      data = buf.get();
      encodedInputs.push_back(std::move(buf));
    }
    run.bindArgument(i, data);
  }

  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    messages.push_back(diag.str());
    return success();
  });
  std::vector<std::unique_ptr<float[]>> isolatedInputs;
  for (auto [index, step] : llvm::enumerate(p.steps)) {
    auto opStart = Clock::now();
    if (isa<top::WeightOp>(step.op)) {
      if (auto err = m.loadWeight(index, messages))
        return err;
      run.borrow(step.results[0], m.weights[index].values.data());
      lastStats.numOps++;
      continue;
    }
    if (!m.regionSims[index].empty()) {
      if (auto err = m.runControl(index, step, run, options, options.dumpAll ? &lastTensors : nullptr))
        return err;
      lastStats.numOps++;
      run.produced(step, options.dumpAll ? &lastTensors : nullptr, dump);
      run.release(step);
      continue;
    }
    SmallVector<const float *> ins;
    SmallVector<Encoding> inEnc;
    SmallVector<const std::vector<int64_t> *> intWeights;
    isolatedInputs.clear();
    for (int id : step.operands) {
      const float *data = run.data(id);
      const Tensor *ref =
          options.reference && !m.isWeight[id] && p.producer[id] >= 0 && !isa<top::InputOp>(step.op)
              ? m.referenceFor(id, *options.reference)
              : nullptr;
      if (ref) {
        if (ref->numElements() != p.sizes[id])
          return p.opError(step, "reference tensor for input '" + p.names[id] + "' has shape " +
                                     shapeToString(ref->shape()) + ", not the simulated one");
        Tensor f32 = ref->dtype() == DType::F32 ? *ref : toF32Tensor(*ref);
        const float *src = reinterpret_cast<const float *>(f32.data());
        std::unique_ptr<float[]> buf(new float[std::max<int64_t>(p.sizes[id], 1)]);
        const Encoding &e = m.encodings[id];
        if (e.isQuant())
          tpu::quantizeFloats(src, p.sizes[id], e.q, e.storage, buf.get());
        else {
          std::memcpy(buf.get(), src, p.sizes[id] * sizeof(float));
          tpu::roundHalf(buf.get(), p.sizes[id], e.half());
        }
        data = buf.get();
        isolatedInputs.push_back(std::move(buf));
      }
      ins.push_back(data);
      inEnc.push_back(m.encodings[id]);
      int producer = p.producer[id];
      intWeights.push_back(m.isWeight[id] && !m.weights[producer].ints.empty() ? &m.weights[producer].ints
                                                                               : nullptr);
    }
    SmallVector<float *> outs;
    SmallVector<Encoding> outEnc;
    for (int id : step.results) {
      outEnc.push_back(m.encodings[id]);
      outs.push_back(run.allocate(id));
    }
    messages.clear();
    tpusim::OpContext ctx{step.op, inEnc, outEnc, ins, outs, intWeights, m.shadows[index]};
    // Isolated runs feed every op fresh inputs but the same weights, so the cache stays valid.
    ref::ScopedOpCache scope(m.caches[index].get());
    if (auto err = tpusim::execute(ctx)) {
      std::string text = llvm::toString(std::move(err));
      if (!messages.empty())
        text += ": " + messages.front();
      return p.opError(step, text);
    }
    lastStats.numOps++;
    run.produced(step, options.dumpAll ? &lastTensors : nullptr, dump);
    run.release(step);
    StringRef tensorName = p.stepName(step);
    if (options.profile)
      lastStats.opSeconds.push_back({tensorName.str(), step.op->getName().getStringRef().str(),
                                     std::chrono::duration<double>(Clock::now() - opStart).count()});
    if (options.progress && !options.progress(index + 1, p.steps.size(), tensorName))
      return makeError("cancelled");
  }
  // The outputs under the graph's output names; a full dump holds them too.
  if (auto err = run.collectOutputs(lastOutputs, lastTensors, dump))
    return err;
  for (const Weight &w : m.weights)
    lastStats.weightBytes += w.values.size() * sizeof(float);
  lastStats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return llvm::Error::success();
}

void TpuSimulator::releaseMemory() {
  for (Weight &w : impl->weights)
    w = Weight();
  for (std::unique_ptr<ref::OpCache> &cache : impl->caches)
    if (cache)
      cache->clear();
  impl->weightFiles.clear();
  impl->pool.clear();
}

TpuRunner::TpuRunner(ModuleOp module, std::vector<std::string> outputNames, const NpzFile *reference)
    : sim(module), names(std::move(outputNames)), reference(reference) {}

std::vector<std::string> TpuRunner::outputNames() const {
  std::vector<std::string> result = sim.outputNames();
  for (size_t i = 0; i < result.size() && i < names.size(); ++i)
    result[i] = names[i];
  return result;
}

llvm::Error TpuRunner::run(const RunnerOptions &options) {
  named = NpzFile();
  TpuRunOptions tpuOptions;
  tpuOptions.dumpAll = options.dumpAll;
  tpuOptions.reference = reference;
  tpuOptions.numThreads = options.numThreads;
  tpuOptions.progress = options.progress;
  if (auto err = sim.run(tpuOptions))
    return err;
  const NpzFile &outputs = sim.outputs();
  for (size_t i = 0; i < outputs.names().size(); ++i)
    named.set(i < names.size() ? names[i] : outputs.names()[i], outputs.get(outputs.names()[i]));
  return llvm::Error::success();
}

} // namespace tpuc::sim
