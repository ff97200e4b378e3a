//===- FromMlir.cpp - Backend graph from Top / Tpu IR ---------------------===//

#include "tpuc/Backend/FromMlir.h"
#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Tpu/TpuOps.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"

#include "llvm/ADT/DenseMap.h"

#include <functional>
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tpuc::backend {

namespace {

using tpu::BackendRole;

/// The role of a Top op: Top IR is planned too (the model zoo, tests), by the rules of the op its Tpu
/// lowering becomes. Tpu ops state theirs (tpu::BackendInterface).
BackendRole topRole(Operation *op) {
  return llvm::TypeSwitch<Operation *, BackendRole>(op)
      .Case<top::ConvOp>([](auto) { return BackendRole::Conv; })
      .Case<top::MaxPoolOp, top::AvgPoolOp>([](auto) { return BackendRole::Pool; })
      .Case<top::AddOp, top::SubOp, top::MulOp, top::DivOp, top::MaxOp, top::MinOp>(
          [](auto) { return BackendRole::Eltwise; })
      .Case<top::ReluOp, top::LeakyReluOp, top::ClipOp, top::HardSigmoidOp, top::GELUOp, top::PowOp,
            top::SigmoidOp, top::TanhOp, top::SiLUOp, top::HardSwishOp, top::ExpOp, top::LogOp, top::SqrtOp,
            top::RsqrtOp, top::AbsOp, top::ErfOp, top::ReciprocalOp, top::FloorOp, top::CeilOp, top::RoundOp,
            top::SignOp, top::SinOp, top::CosOp, top::TanOp, top::AsinOp, top::AcosOp, top::AtanOp,
            top::SinhOp, top::CoshOp, top::AsinhOp, top::AcoshOp, top::AtanhOp, top::AddConstOp,
            top::SubConstOp, top::MulConstOp, top::DivConstOp, top::MaxConstOp, top::MinConstOp, top::CastOp>(
          [](auto) { return BackendRole::Unary; })
      .Case<top::ReshapeOp, top::SqueezeOp, top::UnsqueezeOp>([](auto) { return BackendRole::Reshape; })
      .Case<top::AttentionOp>([](auto) { return BackendRole::Attention; })
      .Case<top::GatherOp>([](auto) { return BackendRole::Gather; })
      .Case<top::DeformConv2DOp>([](auto) { return BackendRole::DeformConv; })
      .Case<top::ConcatOp>([](auto) { return BackendRole::Concat; })
      .Case<top::MatMulOp>([](auto) { return BackendRole::MatMul; })
      .Case<top::LayerNormOp>([](auto) { return BackendRole::LayerNorm; })
      .Case<top::RMSNormOp>([](auto) { return BackendRole::RMSNorm; })
      .Case<top::SoftmaxOp>([](auto) { return BackendRole::Softmax; })
      .Case<top::AdaptiveAvgPoolOp, top::ReduceOp>([](auto) { return BackendRole::GlobalPool; })
      .Default([](Operation *) { return BackendRole::Other; });
}

std::optional<DType> dtypeOf(Type t) {
  if (auto q = dyn_cast<quant::QuantizedType>(t))
    t = q.getStorageType();
  if (t.isF32() || t.isF64())
    return DType::F32;
  if (t.isF16())
    return DType::F16;
  if (t.isBF16())
    return DType::BF16;
  if (auto i = dyn_cast<IntegerType>(t)) {
    switch (i.getWidth()) {
    case 1:
    case 8:
      return i.isUnsigned() ? DType::UINT8 : DType::INT8;
    case 16:
      return DType::INT16;
    default:
      return DType::INT32;
    }
  }
  return std::nullopt;
}

/// The op's tensor name, as every dump names it (TensorNames.h).
std::string nameOf(Location loc, const std::string &fallback) {
  std::string name = top::locationName(loc);
  return name.empty() ? fallback : name;
}

std::string locText(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

std::vector<int64_t> i64s(Operation *op, StringRef name) {
  if (auto a = op->getAttrOfType<DenseI64ArrayAttr>(name))
    return {a.asArrayRef().begin(), a.asArrayRef().end()};
  return {};
}

/// Widens the end pads so the window formula gives the result's extent
/// (ceil_mode pooling).
void matchExtent(int64_t in, int64_t out, int64_t k, int64_t s, int64_t d, int64_t p0, int64_t &p1) {
  while ((in + p0 + p1 - d * (k - 1) - 1) / s + 1 < out)
    p1 += 1;
}

/// What the planner and the cost model read about an op: from tpu::BackendInterface for Tpu ops, from
/// the attributes of the Top op for Top IR (planned by the rules of the op its lowering becomes).
struct OpFacts {
  BackendRole role = BackendRole::Other;
  bool localForm = false;
  bool slicesH = false; ///< H is among the sliceable axes.
  std::optional<tpu::Window2D> window;
  int64_t groups = 1;
  std::optional<int64_t> axis;
  bool relu = false;
};

std::optional<tpu::Window2D> topWindow(Operation *op) {
  auto k = i64s(op, "kernel_shape"), s = i64s(op, "strides"), p = i64s(op, "pads"), d = i64s(op, "dilations");
  if (k.size() != 2)
    return std::nullopt;
  tpu::Window2D w;
  w.kh = k[0];
  w.kw = k[1];
  if (s.size() == 2) {
    w.sh = s[0];
    w.sw = s[1];
  }
  if (p.size() == 4) {
    w.padTop = p[0];
    w.padLeft = p[1];
    w.padBottom = p[2];
    w.padRight = p[3];
  }
  if (d.size() == 2) {
    w.dh = d[0];
    w.dw = d[1];
  }
  return w;
}

OpFacts factsOf(Operation *op) {
  OpFacts f;
  if (auto backend = dyn_cast<tpu::BackendInterface>(op)) {
    f.role = backend.getBackendRole();
    f.localForm = backend.hasLocalForm();
    f.slicesH = llvm::is_contained(backend.getSliceableAxes(), 2);
    f.window = backend.getWindow();
    f.groups = backend.getGroups();
    f.axis = backend.getBackendAxis();
    f.relu = backend.fusesRelu();
    return f;
  }
  f.role = topRole(op);
  f.localForm = f.slicesH = tpu::hasLocalForm(f.role);
  f.window = topWindow(op);
  if (auto g = op->getAttrOfType<IntegerAttr>("group"))
    f.groups = g.getInt();
  if (auto a = op->getAttrOfType<IntegerAttr>("axis"))
    f.axis = a.getInt();
  auto relu = op->getAttrOfType<BoolAttr>("do_relu");
  f.relu = relu && relu.getValue();
  return f;
}

} // namespace

FailureOr<Graph> graphFromFunc(func::FuncOp func, const FromMlirOptions &options,
                               std::vector<Operation *> *opOf) {
  Graph g;
  std::vector<Operation *> opsOf;
  llvm::DenseMap<mlir::Value, int> ids;
  bool failed = false;
  int counter = 0;

  auto typeOf = [&](Operation *at, mlir::Value v, bool weight,
                    std::vector<int64_t> &shape) -> std::optional<DType> {
    auto rt = dyn_cast<RankedTensorType>(v.getType());
    if (!rt || !rt.hasStaticShape()) {
      at->emitError("backend graph: value needs a static ranked tensor type");
      return std::nullopt;
    }
    shape.assign(rt.getShape().begin(), rt.getShape().end());
    std::optional<DType> dt = dtypeOf(rt.getElementType());
    if (!dt) {
      at->emitError("backend graph: unsupported element type ") << rt.getElementType();
      return std::nullopt;
    }
    if (options.dtype) {
      bool int8 = *options.dtype == DType::INT8 || *options.dtype == DType::UINT8;
      dt = (weight && int8 && shape.size() == 1) ? DType::INT32 : *options.dtype;
    }
    return dt;
  };

  // Function arguments are inputs unless a top.input wraps them.
  for (BlockArgument arg : func.getArguments()) {
    std::vector<int64_t> shape;
    auto dt = typeOf(func, arg, false, shape);
    if (!dt)
      return failure();
    ids[arg] = g.addInput("arg" + std::to_string(arg.getArgNumber()), shape, *dt);
  }

  auto visit = [&](Operation *op) {
    if (failed || op->hasTrait<OpTrait::IsTerminator>())
      return;
    std::string name = nameOf(op->getLoc(), "op" + std::to_string(counter++));
    if (isa<top::NoneOp>(op))
      return;
    if (auto weight = dyn_cast<top::WeightOp>(op)) {
      std::vector<int64_t> shape;
      auto dt = typeOf(op, weight.getResult(), true, shape);
      if (!dt) {
        failed = true;
        return;
      }
      ids[weight.getResult()] = g.addWeight(weight.getName().str(), shape, *dt);
      return;
    }
    if (isa<top::InputOp>(op) && op->getNumOperands() == 1 && ids.count(op->getOperand(0))) {
      // The input op names the graph input; reuse the argument's value.
      int v = ids[op->getOperand(0)];
      g.values[v].name = name;
      ids[op->getResult(0)] = v;
      return;
    }
    Op bop;
    bop.name = name;
    bop.loc = locText(op->getLoc());
    for (mlir::Value operand : op->getOperands()) {
      if (isa<NoneType>(operand.getType()))
        continue;
      auto it = ids.find(operand);
      if (it == ids.end())
        continue; // e.g. none
      (g.values[it->second].isWeight ? bop.weights : bop.inputs).push_back(it->second);
    }
    std::vector<mlir::Value> results;
    std::vector<backend::Value> outs;
    for (auto [i, r] : llvm::enumerate(op->getResults())) {
      backend::Value v;
      auto dt = typeOf(op, r, false, v.shape);
      if (!dt) {
        failed = true;
        return;
      }
      v.dtype = *dt;
      v.name = top::resultName(r);
      if (v.name.empty())
        v.name = op->getNumResults() == 1 ? name : name + "_" + std::to_string(i);
      outs.push_back(v);
      results.push_back(r);
    }
    if (outs.empty())
      return;
    const auto &out0 = outs[0].shape;
    auto rank4 = [&](int v) { return g.values[v].shape.size() == 4; };
    bool all4 =
        out0.size() == 4 && !bop.inputs.empty() && std::all_of(bop.inputs.begin(), bop.inputs.end(), rank4);
    // Element-wise ops also compute row slices of rank-2 and rank-3 tensors (the last axis whole).
    auto sameRank = [&](int v) { return g.values[v].shape.size() == out0.size(); };
    bool rows = out0.size() >= 2 && out0.size() <= 4 && !bop.inputs.empty() &&
                std::all_of(bop.inputs.begin(), bop.inputs.end(), sameRank);
    bop.kind = OpKind::Other;
    OpFacts facts = factsOf(op);
    // A local form computes slice by slice along H (with the window's halo): without one, or without H
    // among its sliceable axes, the op is planned by itself from DDR.
    bool local = facts.localForm && facts.slicesH;
    switch (facts.role) {
    case BackendRole::Conv:
      if (local && all4 && bop.inputs.size() == 1 && facts.window) {
        bop.kind = OpKind::Conv;
        bop.window = *facts.window;
        bop.groups = facts.groups;
      }
      break;
    case BackendRole::Pool:
      if (local && all4 && bop.inputs.size() == 1 && facts.window) {
        bop.kind = OpKind::Pool;
        bop.window = *facts.window;
        const auto &in = g.values[bop.inputs[0]].shape;
        matchExtent(in[2], out0[2], bop.window.kh, bop.window.sh, 1, bop.window.padTop, bop.window.padBottom);
        matchExtent(in[3], out0[3], bop.window.kw, bop.window.sw, 1, bop.window.padLeft, bop.window.padRight);
      }
      break;
    case BackendRole::Eltwise:
      if (local && rows && bop.inputs.size() >= 1 && bop.inputs.size() + bop.weights.size() >= 2)
        bop.kind = bop.inputs.size() >= 2 ? OpKind::Eltwise : OpKind::Unary;
      break;
    case BackendRole::Unary:
      if (local && rows && bop.inputs.size() == 1 && g.values[bop.inputs[0]].shape == out0) {
        bop.kind = OpKind::Unary;
        bop.lookupTable = isa<tpu::ActiveOp>(op) && bop.weights.size() == 1;
      }
      break;
    case BackendRole::Reshape:
      if (bop.inputs.size() == 1 && !facts.relu)
        bop.kind = OpKind::Reshape;
      break;
    case BackendRole::Attention:
      bop.attention = bop.inputs.size() >= 3 && out0.size() == 4 &&
                      std::all_of(bop.inputs.begin(), bop.inputs.begin() + 3, rank4);
      break;
    case BackendRole::DeformConv: { // costed as deformable conv when the image is the first activation and
                                    // the filter the first weight
      auto filter = op->getNumOperands() > 1 ? ids.find(op->getOperand(1)) : ids.end();
      bop.deformConv = out0.size() == 4 && !bop.inputs.empty() && !bop.weights.empty() &&
                       filter != ids.end() && filter->second == bop.weights[0] &&
                       g.values[bop.inputs[0]].shape.size() == 4 &&
                       g.values[bop.weights[0]].shape.size() == 4;
      break;
    }
    case BackendRole::Gather:
      bop.gathers = true;
      if (facts.axis)
        bop.axis = *facts.axis;
      break;
    case BackendRole::Concat:
      // A concat with a fused Relu computes: it is never in place (the producers' bytes change).
      if (!facts.relu) {
        bop.kind = OpKind::Concat;
        if (facts.axis)
          bop.axis = *facts.axis < 0 ? *facts.axis + static_cast<int64_t>(out0.size()) : *facts.axis;
      }
      break;
    case BackendRole::MatMul:
      // Its local form is the row form (Graph::isGroupable): a transposed activation has none.
      if (bop.inputs.size() == 1) {
        bop.kind = OpKind::MatMul;
        auto lt = op->getAttrOfType<BoolAttr>("left_transpose");
        auto first = ids.find(op->getOperand(0));
        bool weightLeft = first == ids.end() || g.values[first->second].isWeight;
        bop.noRowForm = (lt && lt.getValue()) || weightLeft || isa<tpu::A16MatMulOp, top::A16MatMulOp>(op);
        auto rt = op->getAttrOfType<BoolAttr>("right_transpose");
        bop.weightColumnsFirst = rt && rt.getValue();
      }
      break;
    case BackendRole::GlobalPool:
      if (all4 && out0[2] == 1 && out0[3] == 1)
        bop.kind = OpKind::GlobalPool;
      break;
    case BackendRole::LayerNorm:
    case BackendRole::RMSNorm:
    case BackendRole::Softmax: {
      // Normalized along the last axis alone (a layernorm from the last axis on; an RMS norm always),
      // row by row: its cost and its row form (Graph::isGroupable) follow. Along other axes: Other.
      const auto rank = static_cast<int64_t>(out0.size());
      int64_t axis = facts.role == BackendRole::RMSNorm ? rank - 1 : facts.axis.value_or(-1);
      if (axis < 0)
        axis += rank;
      if (bop.inputs.size() == 1 && rank >= 1 && axis == rank - 1)
        bop.kind = facts.role == BackendRole::LayerNorm ? OpKind::LayerNorm
                   : facts.role == BackendRole::RMSNorm ? OpKind::RMSNorm
                                                        : OpKind::Softmax;
      break;
    }
    case BackendRole::Other:
      break;
    }
    int index = g.addOp(std::move(bop), outs);
    opsOf.push_back(op);
    for (auto [i, r] : llvm::enumerate(results))
      ids[r] = g.ops[index].outputs[i];
  };

  // Control flow: markers between the regions' ops (Graph.h). Block arguments are the values they stand
  // for; the markers' names are the op's, with the marker kind after a colon for the ones with no result
  // of the op.
  auto valueIds = [&](ValueRange values) {
    std::vector<int> out;
    for (mlir::Value v : values)
      if (auto it = ids.find(v); it != ids.end())
        out.push_back(it->second);
    return out;
  };
  auto marker = [&](Operation *op, Control control, std::vector<int> inputs, ValueRange results,
                    int holdsFor = -1) {
    Op bop;
    std::string name = nameOf(op->getLoc(), "op" + std::to_string(counter++));
    bop.name = results.empty() ? name + ":" + controlName(control) : name;
    bop.loc = locText(op->getLoc());
    bop.control = control;
    bop.sources = std::move(inputs);
    for (int v : bop.sources)
      (g.values[v].isWeight ? bop.weights : bop.inputs).push_back(v);
    std::vector<backend::Value> outs;
    if (results.empty()) { // nobody reads it: one byte
      backend::Value v;
      v.name = bop.name;
      v.shape = {1};
      v.dtype = DType::INT8;
      outs.push_back(v);
    }
    if (holdsFor >= 0) { // a LoopBack's hold buffers (Graph::loopHolds)
      std::vector<bool> holds = g.loopHolds(bop.sources, holdsFor);
      for (size_t k = 0; k < holds.size(); ++k)
        if (holds[k]) {
          backend::Value v = g.values[bop.inputs[k]];
          v.name = bop.name + ":hold_" + std::to_string(k);
          v.producer = -1;
          v.users.clear();
          v.isWeight = false;
          outs.push_back(v);
        }
    }
    for (auto [i, r] : llvm::enumerate(results)) {
      backend::Value v;
      auto dt = typeOf(op, r, false, v.shape);
      if (!dt) {
        failed = true;
        return -1;
      }
      v.dtype = *dt;
      v.name = top::resultName(r);
      if (v.name.empty())
        v.name = results.size() == 1 ? name : name + "_" + std::to_string(i);
      outs.push_back(v);
    }
    int index = g.addOp(std::move(bop), outs);
    opsOf.push_back(op);
    for (auto [i, r] : llvm::enumerate(results))
      ids[r] = g.ops[index].outputs[i];
    return index;
  };
  auto keep = [&](const std::vector<int> &values, int from, int to) {
    for (int v : values)
      if (!g.values[v].isWeight)
        g.keepAlive.push_back({v, from, to});
  };
  std::function<void(Block &)> visitBlock = [&](Block &block) {
    for (Operation &op : block) {
      if (failed)
        return;
      if (auto ifOp = dyn_cast<tpu::IfOp>(op)) {
        auto alias = [&](Block &region) {
          for (auto [arg, v] : llvm::zip(region.getArguments(), ifOp.getInputs()))
            if (auto it = ids.find(v); it != ids.end())
              ids[arg] = it->second;
        };
        int branch = marker(&op, Control::IfBranch, valueIds(ifOp.getCond()), {});
        alias(ifOp.getThenBranch().front());
        visitBlock(ifOp.getThenBranch().front());
        int otherwise = marker(&op, Control::IfElse, valueIds(ifOp.getThenBranch().front().getTerminator()->getOperands()), {});
        alias(ifOp.getElseBranch().front());
        visitBlock(ifOp.getElseBranch().front());
        int join = marker(&op, Control::IfJoin, valueIds(ifOp.getElseBranch().front().getTerminator()->getOperands()),
                          ifOp.getResults());
        if (failed)
          return;
        g.ops[branch].peer = otherwise;
        g.ops[otherwise].peer = join;
        keep(g.ops[join].outputs, branch, join);
        continue;
      }
      if (auto loop = dyn_cast<tpu::LoopOp>(op)) {
        Block &body = loop.getBody().front();
        int init = marker(&op, Control::LoopInit, valueIds(loop.getInits()), loop.getResults());
        if (failed)
          return;
        for (auto [arg, r] : llvm::zip(body.getArguments(), loop.getResults()))
          ids[arg] = ids[r];
        for (auto [arg, v] : llvm::zip(body.getArguments().drop_front(loop.getInits().size()), loop.getCaptures()))
          if (auto it = ids.find(v); it != ids.end())
            ids[arg] = it->second;
        visitBlock(body);
        int back = marker(&op, Control::LoopBack, valueIds(body.getTerminator()->getOperands()), {}, init);
        if (failed)
          return;
        g.ops[init].peer = back;
        g.ops[back].peer = init;
        keep(g.ops[init].outputs, init, back);
        keep(valueIds(loop.getCaptures()), init, back);
        continue;
      }
      if (isa<top::IfOp, top::LoopOp>(op)) {
        op.emitError("backend graph: control flow is planned once lowered to Tpu (tpuc deploy)");
        failed = true;
        return;
      }
      visit(&op);
    }
  };
  visitBlock(func.getBody().front());
  if (failed)
    return failure();
  func.walk([&](func::ReturnOp ret) {
    for (mlir::Value v : ret.getOperands())
      if (auto it = ids.find(v); it != ids.end())
        g.markOutput(it->second);
  });
  if (std::string err = g.verify(); !err.empty()) {
    func.emitError("backend graph: ") << err;
    return failure();
  }
  if (opOf)
    *opOf = std::move(opsOf);
  return g;
}

} // namespace tpuc::backend
