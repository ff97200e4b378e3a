//===- OpRunner.cpp - Model-file ops re-typed per slice, run on the Tpu kernels ---===//

#include "tpuc/Simulator/OpRunner.h"

#include "../Reference/Kernels.h"
#include "../TpuSim/SimOps.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Tpu/TpuOps.h"
#include "tpuc/Simulator/ReferenceKernels.h"
#include "tpuc/Simulator/TpuSim.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Parser/Parser.h"

#include <map>
#include <sstream>

using namespace mlir;

namespace tpuc::sim {

namespace {

ValueInfo infoOf(Type type) {
  ValueInfo v;
  tpusim::Encoding e = tpusim::encodingOf(type);
  switch (e.kind) {
  case tpusim::Encoding::None:
    v.kind = ValueInfo::None;
    return v;
  case tpusim::Encoding::Quant:
    v.kind = ValueInfo::Quant;
    v.scale = e.q.scale;
    v.zeroPoint = e.q.zeroPoint;
    break;
  case tpusim::Encoding::F16:
    v.kind = ValueInfo::F16;
    break;
  case tpusim::Encoding::BF16:
    v.kind = ValueInfo::BF16;
    break;
  case tpusim::Encoding::Float:
    v.kind = isa<IntegerType>(getElementTypeOrSelf(type)) ? ValueInfo::Integer : ValueInfo::Float;
    break;
  }
  if (auto rt = dyn_cast<RankedTensorType>(type))
    v.shape.assign(rt.getShape().begin(), rt.getShape().end());
  return v;
}

std::vector<int64_t> i64s(Operation *op, StringRef name) {
  if (auto a = op->getAttrOfType<DenseI64ArrayAttr>(name))
    return {a.asArrayRef().begin(), a.asArrayRef().end()};
  return {};
}

struct Variant {
  Operation *op = nullptr;
  Operation *shadow = nullptr;
};

struct Entry {
  std::string name;
  OwningOpRef<ModuleOp> module;
  Operation *op = nullptr;
  std::vector<ValueInfo> args, results;
  std::optional<OpWindow> window;
  std::vector<tpusim::Encoding> argEnc, resultEnc;
  Variant full;
  bool fullBuilt = false;
};

} // namespace

struct KernelCacheStore::Impl {
  std::map<std::string, std::unique_ptr<ref::OpCache>> caches;
};

KernelCacheStore::KernelCacheStore() : impl(std::make_unique<Impl>()) {}
KernelCacheStore::~KernelCacheStore() = default;
std::shared_ptr<KernelCacheStore> KernelCacheStore::create() {
  return std::shared_ptr<KernelCacheStore>(new KernelCacheStore());
}

struct OpRunner::Impl {
  std::shared_ptr<KernelCacheStore> store;
  MLIRContext ctx;
  OwningOpRef<ModuleOp> scratch;
  std::vector<Entry> ops;
  std::map<std::string, Variant> variants;
  std::map<int64_t, std::unique_ptr<ref::OpCache>> caches;
  std::vector<std::string> messages;

  Impl() {
    DialectRegistry registry;
    registry.insert<top::TopDialect, ::tpuc::tpu::TpuDialect, func::FuncDialect, mlir::quant::QuantDialect>();
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    registerTopReferenceKernels(ctx);
    registerTpuKernels(ctx);
    scratch = ModuleOp::create(UnknownLoc::get(&ctx));
  }

  llvm::Error fail(const Entry &e, const Twine &message) const {
    return tpusim::makeError("'" + e.name + "' (" + e.op->getName().getStringRef() + "): " + message);
  }

  /// The shadow Top op of `op` when it needs one.
  llvm::Expected<Operation *> shadowOf(const Entry &e, Operation *op) {
    auto kernel = dyn_cast<::tpuc::tpu::KernelInterface>(op);
    if (!kernel)
      return fail(e, "has no Tpu kernel");
    if (!kernel.needsFloatTwin())
      return nullptr;
    bool int8 = !e.resultEnc.empty() && e.resultEnc[0].isQuant();
    auto shadow = kernel.buildFloatTwin(*scratch->getBody(), int8);
    if (!shadow)
      return fail(e, llvm::toString(shadow.takeError()));
    return *shadow;
  }

  /// The op re-typed to the slice: arguments and results of the given shapes, the slice's padding,
  /// per-channel parameters and conv groups of its output channels.
  llvm::Expected<Variant> build(const Entry &e, std::span<const OpArg> args,
                                std::span<const std::vector<int64_t>> outShapes, const std::array<int64_t, 4> &pad,
                                int64_t channel0) {
    OpBuilder b(&ctx);
    b.setInsertionPointToEnd(scratch->getBody());
    SmallVector<Type> argTypes;
    for (auto [i, arg] : llvm::enumerate(args)) {
      Type t = e.op->getOperand(i).getType();
      if (auto rt = dyn_cast<RankedTensorType>(t))
        t = RankedTensorType::get(arg.shape, rt.getElementType());
      argTypes.push_back(t);
    }
    auto fn = func::FuncOp::create(b, UnknownLoc::get(&ctx), "slice_" + std::to_string(variants.size()),
                                   b.getFunctionType(argTypes, {}));
    Block *entry = fn.addEntryBlock();
    b.setInsertionPointToStart(entry);
    IRMapping map;
    for (unsigned i = 0; i < e.op->getNumOperands(); ++i)
      map.map(e.op->getOperand(i), entry->getArgument(i));
    Operation *op = b.clone(*e.op, map);
    for (auto [i, r] : llvm::enumerate(op->getResults()))
      if (auto rt = dyn_cast<RankedTensorType>(r.getType()))
        r.setType(RankedTensorType::get(outShapes[i], rt.getElementType()));
    if (e.window) {
      op->setAttr("pads", DenseI64ArrayAttr::get(&ctx, {pad[0], pad[2], pad[1], pad[3]}));
      if (op->hasAttr("ceil_mode"))
        op->setAttr("ceil_mode", b.getBoolAttr(false)); // the slice's padding already holds the extra cells
    }
    int64_t fullC = e.results.empty() || e.results[0].shape.size() < 2 ? 1 : e.results[0].shape[1];
    int64_t boxC = outShapes.empty() || outShapes[0].size() < 2 ? 1 : outShapes[0][1];
    // Per-channel parameters follow a C cut of a 4-D op; a row slice of a matmul (per column) or of a
    // rank-2/3 tensor (dim 1 is rows, not channels) keeps them all; a column tile of a matmul takes its
    // columns'.
    bool channels = e.results.empty() || e.results[0].shape.size() == 4;
    bool matmul = isa<::tpuc::tpu::MatMulOp, ::tpuc::tpu::A16MatMulOp>(e.op);
    if (matmul && !e.results.empty() && !e.results[0].shape.empty() && !outShapes.empty() &&
        !outShapes[0].empty()) {
      fullC = e.results[0].shape.back();
      boxC = outShapes[0].back();
    }
    if (boxC != fullC && (matmul || channels)) {
      if (!matmul && e.window && e.window->group > 1) {
        if (boxC * e.window->group % fullC || channel0 * e.window->group % fullC)
          return fail(e, "a slice of output channels [" + Twine(channel0) + ", " + Twine(channel0 + boxC) +
                             ") splits a convolution group");
        op->setAttr("group", b.getI64IntegerAttr(boxC * e.window->group / fullC));
      }
      for (StringRef name : {"multiplier", "rshift"}) {
        std::vector<int64_t> values = i64s(op, name);
        if (values.size() > 1 && static_cast<int64_t>(values.size()) == fullC)
          op->setAttr(name, DenseI64ArrayAttr::get(&ctx, ArrayRef<int64_t>(values).slice(channel0, boxC)));
      }
    }
    auto shadow = shadowOf(e, op);
    if (!shadow)
      return shadow.takeError();
    return Variant{op, *shadow};
  }
};

OpRunner::OpRunner() : impl(std::make_unique<Impl>()) {}
OpRunner::~OpRunner() = default;

llvm::Expected<size_t> OpRunner::add(const std::string &name, const std::string &program) {
  Impl &m = *impl;
  std::string diagnostic;
  ScopedDiagnosticHandler handler(&m.ctx, [&](Diagnostic &d) {
    if (diagnostic.empty())
      diagnostic = d.str();
    return success();
  });
  Entry e;
  e.name = name;
  ParserConfig config(&m.ctx);
  e.module = parseSourceString<ModuleOp>(program, config);
  if (!e.module)
    return tpusim::makeError("'" + name + "': the op's program does not parse: " + diagnostic);
  auto fn = e.module->lookupSymbol<func::FuncOp>("op");
  if (!fn || fn.getBody().empty() || fn.getBody().front().getOperations().size() != 2)
    return tpusim::makeError("'" + name + "': the op's program is not one op in a function 'op'");
  e.op = &fn.getBody().front().front();
  for (Type t : e.op->getOperandTypes()) {
    e.args.push_back(infoOf(t));
    e.argEnc.push_back(tpusim::encodingOf(t));
  }
  for (Type t : e.op->getResultTypes()) {
    e.results.push_back(infoOf(t));
    e.resultEnc.push_back(tpusim::encodingOf(t));
    if (e.results.back().kind != ValueInfo::None && e.results.back().shape.empty() && !isa<RankedTensorType>(t))
      return tpusim::makeError("'" + name + "': result is not a ranked tensor");
  }
  auto k = i64s(e.op, "kernel_shape");
  if (k.size() == 2 && e.op->getNumOperands() >= 1) {
    OpWindow w;
    w.kh = k[0], w.kw = k[1];
    if (auto s = i64s(e.op, "strides"); s.size() == 2)
      w.sh = s[0], w.sw = s[1];
    if (auto d = i64s(e.op, "dilations"); d.size() == 2)
      w.dh = d[0], w.dw = d[1];
    if (auto p = i64s(e.op, "pads"); p.size() == 4)
      w.padTop = p[0], w.padLeft = p[1], w.padBottom = p[2], w.padRight = p[3];
    if (auto g = e.op->getAttrOfType<IntegerAttr>("group"))
      w.group = g.getInt();
    w.pooling = isa<::tpuc::tpu::Pool2DOp>(e.op);
    e.window = w;
  }
  m.ops.push_back(std::move(e));
  return m.ops.size() - 1;
}

const std::vector<ValueInfo> &OpRunner::args(size_t op) const { return impl->ops.at(op).args; }
const std::vector<ValueInfo> &OpRunner::results(size_t op) const { return impl->ops.at(op).results; }
std::optional<OpWindow> OpRunner::window(size_t op) const { return impl->ops.at(op).window; }
bool OpRunner::reducesLastAxis(size_t op) const {
  return isa<::tpuc::tpu::MatMulOp, ::tpuc::tpu::A16MatMulOp>(impl->ops.at(op).op);
}
size_t OpRunner::numVariants() const { return impl->variants.size(); }
void OpRunner::shareKernelCaches(std::shared_ptr<KernelCacheStore> store) { impl->store = std::move(store); }

std::string OpRunner::cacheSignature(size_t index) const {
  const Entry &e = impl->ops.at(index);
  std::string text;
  llvm::raw_string_ostream os(text);
  // Placement (the address, the backend's discardable `tpu.*` annotations such as the layer group)
  // does not change what a kernel computes; two nets place the same op differently.
  os << e.op->getName() << " {";
  for (NamedAttribute a : e.op->getAttrs())
    if (a.getName() != "address" && !a.getName().strref().contains('.'))
      os << a.getName() << "=" << a.getValue() << ";";
  os << "}";
  auto element = [&](Value v) {
    if (auto shaped = dyn_cast<ShapedType>(v.getType()))
      os << " " << shaped.getElementType();
    else
      os << " " << v.getType();
  };
  for (Value v : e.op->getOperands())
    element(v);
  os << " ->";
  for (Value v : e.op->getResults())
    element(v);
  return text;
}

llvm::Error OpRunner::run(size_t index, std::span<const OpArg> args, std::span<float *const> outs,
                          std::span<const std::vector<int64_t>> outShapes, const std::array<int64_t, 4> *pad,
                          int64_t channel0, int64_t cacheId, bool constantsChanged,
                          const std::string &sharedKey) {
  Impl &m = *impl;
  if (index >= m.ops.size())
    return tpusim::makeError("op index " + Twine(index) + " out of range");
  Entry &e = m.ops[index];
  if (args.size() != e.args.size() || outs.size() != e.results.size() || outShapes.size() != outs.size())
    return m.fail(e, "expects " + Twine(e.args.size()) + " arguments and " + Twine(e.results.size()) +
                         " results, the command gives " + Twine(args.size()) + " and " + Twine(outs.size()));
  bool whole = true;
  for (size_t i = 0; i < args.size(); ++i)
    if (e.args[i].kind != ValueInfo::None) {
      if (!args[i].data)
        return m.fail(e, "argument " + Twine(i) + " has no data");
      whole &= args[i].shape == e.args[i].shape;
    }
  for (size_t i = 0; i < outs.size(); ++i)
    whole &= outShapes[i] == e.results[i].shape;
  std::array<int64_t, 4> fullPad{};
  if (e.window)
    fullPad = {e.window->padTop, e.window->padBottom, e.window->padLeft, e.window->padRight};
  Variant *variant = nullptr;
  if (whole && (!pad || !e.window || *pad == fullPad)) {
    if (!e.fullBuilt) {
      auto shadow = m.shadowOf(e, e.op);
      if (!shadow)
        return shadow.takeError();
      e.full = {e.op, *shadow};
      e.fullBuilt = true;
    }
    variant = &e.full;
  } else {
    if (!pad)
      return m.fail(e, "a box of the tensors outside a layer group");
    std::ostringstream key;
    key << index;
    for (const OpArg &a : args) {
      key << "|";
      for (int64_t d : a.shape)
        key << d << ",";
    }
    for (const auto &s : outShapes) {
      key << "|";
      for (int64_t d : s)
        key << d << ",";
    }
    key << "|" << (*pad)[0] << "," << (*pad)[1] << "," << (*pad)[2] << "," << (*pad)[3] << "|" << channel0;
    auto it = m.variants.find(key.str());
    if (it == m.variants.end()) {
      std::string diagnostic;
      ScopedDiagnosticHandler handler(&m.ctx, [&](Diagnostic &d) {
        if (diagnostic.empty())
          diagnostic = d.str();
        return success();
      });
      auto v = m.build(e, args, outShapes, *pad, channel0);
      if (!v)
        return v.takeError();
      it = m.variants.emplace(key.str(), *v).first;
    }
    variant = &it->second;
  }
  SmallVector<const float *> in;
  SmallVector<const std::vector<int64_t> *> ints;
  for (const OpArg &a : args) {
    in.push_back(a.data);
    ints.push_back(a.ints);
  }
  SmallVector<float *> out(outs.begin(), outs.end());
  std::string diagnostic;
  ScopedDiagnosticHandler handler(&m.ctx, [&](Diagnostic &d) {
    if (diagnostic.empty())
      diagnostic = d.str();
    return success();
  });
  ref::OpCache *cache = nullptr;
  bool shared = m.store && !sharedKey.empty();
  if (cacheId >= 0 || shared) {
    std::unique_ptr<ref::OpCache> &slot = shared ? m.store->impl->caches[sharedKey] : m.caches[cacheId];
    if (!slot) {
      SmallVector<bool> constant;
      for (const OpArg &a : args)
        constant.push_back(a.constant);
      slot = std::make_unique<ref::OpCache>(std::move(constant));
    } else if (constantsChanged && !shared) { // a shared key names its constants exactly
      slot->clear();
    }
    cache = slot.get();
  }
  ref::ScopedOpCache scope(cache);
  tpusim::OpContext ctx{variant->op, e.argEnc, e.resultEnc, in, out, ints, variant->shadow};
  if (auto err = tpusim::execute(ctx)) {
    std::string text = llvm::toString(std::move(err));
    if (!diagnostic.empty())
      text += ": " + diagnostic;
    return m.fail(e, text);
  }
  return llvm::Error::success();
}

} // namespace tpuc::sim
