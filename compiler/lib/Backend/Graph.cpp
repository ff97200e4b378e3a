//===- Graph.cpp - Plain-data operator graph and its builder --------------===//

#include "tpuc/Backend/Graph.h"

#include <algorithm>
#include <map>

namespace tpuc::backend {

int64_t dtypeBytes(DType t) {
  switch (t) {
  case DType::INT8:
  case DType::UINT8:
    return 1;
  case DType::INT16:
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::INT32:
  case DType::F32:
    return 4;
  }
  return 4;
}

const char *dtypeName(DType t) {
  switch (t) {
  case DType::INT8:
    return "INT8";
  case DType::UINT8:
    return "UINT8";
  case DType::INT16:
    return "INT16";
  case DType::INT32:
    return "INT32";
  case DType::F16:
    return "F16";
  case DType::BF16:
    return "BF16";
  case DType::F32:
    return "F32";
  }
  return "?";
}

std::optional<DType> parseDType(std::string_view name) {
  for (DType t : {DType::INT8, DType::UINT8, DType::INT16, DType::INT32, DType::F16, DType::BF16, DType::F32})
    if (name == dtypeName(t))
      return t;
  return std::nullopt;
}

Precision computePrecision(DType t) {
  switch (t) {
  case DType::INT8:
  case DType::UINT8:
    return Precision::INT8;
  case DType::F16:
    return Precision::F16;
  case DType::BF16:
    return Precision::BF16;
  default:
    return Precision::F32;
  }
}

const char *opKindName(OpKind k) {
  switch (k) {
  case OpKind::Conv:
    return "conv";
  case OpKind::Pool:
    return "pool";
  case OpKind::Eltwise:
    return "eltwise";
  case OpKind::Unary:
    return "unary";
  case OpKind::Reshape:
    return "reshape";
  case OpKind::Concat:
    return "concat";
  case OpKind::MatMul:
    return "matmul";
  case OpKind::GlobalPool:
    return "global_pool";
  case OpKind::LayerNorm:
    return "layernorm";
  case OpKind::RMSNorm:
    return "rmsnorm";
  case OpKind::Softmax:
    return "softmax";
  case OpKind::Other:
    return "other";
  }
  return "?";
}

bool isRowNorm(OpKind k) { return k == OpKind::LayerNorm || k == OpKind::RMSNorm || k == OpKind::Softmax; }

int64_t Value::elements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t Value::dim(int i) const {
  if (i == 3 && shape.size() > 4) { // higher ranks fold into W, as the model file's NCHW view does
    int64_t w = 1;
    for (size_t d = 3; d < shape.size(); ++d)
      w *= shape[d];
    return w;
  }
  return i < static_cast<int>(shape.size()) ? shape[i] : 1;
}

int Graph::addInput(std::string name, std::vector<int64_t> shape, DType dtype) {
  Value v;
  v.name = std::move(name);
  v.shape = std::move(shape);
  v.dtype = dtype;
  values.push_back(std::move(v));
  inputs.push_back(static_cast<int>(values.size()) - 1);
  return inputs.back();
}

int Graph::addWeight(std::string name, std::vector<int64_t> shape, DType dtype) {
  Value v;
  v.name = std::move(name);
  v.shape = std::move(shape);
  v.dtype = dtype;
  v.isWeight = true;
  values.push_back(std::move(v));
  return static_cast<int>(values.size()) - 1;
}

int Graph::addOp(Op op, const std::vector<Value> &results) {
  int index = static_cast<int>(ops.size());
  for (int v : op.inputs)
    values.at(v).users.push_back(index);
  for (int v : op.weights)
    values.at(v).users.push_back(index);
  op.outputs.clear();
  for (const Value &r : results) {
    Value v = r;
    v.producer = index;
    v.users.clear();
    v.isWeight = false;
    values.push_back(std::move(v));
    op.outputs.push_back(static_cast<int>(values.size()) - 1);
  }
  ops.push_back(std::move(op));
  return index;
}

bool Graph::isOutput(int value) const {
  return std::find(outputs.begin(), outputs.end(), value) != outputs.end();
}

const char *controlName(Control c) {
  switch (c) {
  case Control::None:
    return "none";
  case Control::IfBranch:
    return "if_branch";
  case Control::IfElse:
    return "if_else";
  case Control::IfJoin:
    return "if_join";
  case Control::LoopInit:
    return "loop_init";
  case Control::LoopBack:
    return "loop_back";
  }
  return "?";
}

bool Graph::hasControl() const {
  return std::any_of(ops.begin(), ops.end(), [](const Op &op) { return op.control != Control::None; });
}

int Graph::reshapeRoot(int v) const {
  while (values[v].producer >= 0 && ops[values[v].producer].kind == OpKind::Reshape &&
         !ops[values[v].producer].inputs.empty())
    v = ops[values[v].producer].inputs[0];
  return v;
}

std::vector<bool> Graph::loopHolds(int loopBack) const {
  return loopHolds(ops[loopBack].sources, ops[loopBack].peer);
}

std::vector<bool> Graph::loopHolds(const std::vector<int> &sources, int loopInit) const {
  const std::vector<int> &slots = ops[loopInit].outputs;
  std::vector<bool> holds;
  for (size_t k = 0; k < sources.size(); ++k) {
    int root = reshapeRoot(sources[k]);
    bool isOwnSlot = k < slots.size() && sources[k] == slots[k];
    holds.push_back(!isOwnSlot && std::find(slots.begin(), slots.end(), root) != slots.end());
  }
  return holds;
}

bool Graph::isGroupable(int index) const {
  const Op &op = ops[index];
  if (op.outputs.size() != 1 || op.inputs.empty() || op.control != Control::None)
    return false;
  const Value &out = values[op.outputs[0]];
  const size_t rank = out.shape.size();
  for (int v : op.inputs)
    if (values[v].shape.size() != rank)
      return false;
  switch (op.kind) {
  case OpKind::Conv:
  case OpKind::Pool:
    return rank == 4;
  case OpKind::Eltwise:
  case OpKind::Unary:
    if (rank < 2 || rank > 4)
      return false;
    if (op.lookupTable)
      return true; // the table is read whole by every slice
    // Below rank 4 a group cuts rows: a weight may vary along the last axis only (a bias).
    if (rank < 4)
      for (int w : op.weights) {
        const Value &wv = values[w];
        int64_t last = wv.shape.empty() ? 1 : wv.shape.back();
        if (wv.elements() != last || (last != 1 && last != out.shape.back()))
          return false;
      }
    // At rank 4 a group may cut N, H and W, and a weight is resident whole: it may vary along C only (a
    // per-channel scale or bias), not along an axis a slice cuts (swin's [1, heads, 49, 49] position bias
    // added to [windows, heads, 49, 49] scores).
    if (rank == 4)
      for (int w : op.weights) {
        const Value &wv = values[w];
        if (wv.dim(0) != 1 || wv.dim(2) != 1 || wv.dim(3) != 1)
          return false;
      }
    return true;
  case OpKind::MatMul: {
    if (rank < 2 || rank > 4 || op.inputs.size() != 1 || op.noRowForm || op.weights.empty() ||
        values[op.weights[0]].shape.size() != 2)
      return false;
    const Value &in = values[op.inputs[0]];
    for (size_t d = 0; d + 1 < rank; ++d)
      if (in.shape[d] != out.shape[d])
        return false;
    return true;
  }
  case OpKind::LayerNorm:
  case OpKind::RMSNorm:
  case OpKind::Softmax: {
    // Whole rows per slice: the row axes are cut, the last (normalized) axis never; gamma and beta run
    // along it and stay resident whole.
    if (rank < 2 || rank > 4 || op.inputs.size() != 1 || values[op.inputs[0]].shape != out.shape)
      return false;
    for (int w : op.weights) {
      const Value &wv = values[w];
      int64_t last = wv.shape.empty() ? 1 : wv.shape.back();
      if (wv.elements() != last || (last != 1 && last != out.shape.back()))
        return false;
    }
    return true;
  }
  default:
    return false;
  }
}

bool Graph::cutsRowsOnly(int index) const {
  const Op &op = ops[index];
  return op.kind == OpKind::MatMul || isRowNorm(op.kind) ||
         (!op.outputs.empty() && values[op.outputs[0]].shape.size() < 4);
}

namespace {

/// Output extent of a window along one axis.
int64_t windowOut(int64_t in, int64_t k, int64_t s, int64_t p0, int64_t p1, int64_t d) {
  return (in + p0 + p1 - d * (k - 1) - 1) / s + 1;
}

} // namespace

std::string Graph::verify() const {
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op &op = ops[i];
    auto bad = [&](const std::string &msg) { return "op '" + op.name + "': " + msg; };
    for (int v : op.inputs) {
      if (v < 0 || v >= static_cast<int>(values.size()))
        return bad("operand index out of range");
      if (values[v].isWeight)
        return bad("activation operand '" + values[v].name + "' is a weight");
      if (values[v].producer >= static_cast<int>(i))
        return bad("operand '" + values[v].name + "' is produced later");
    }
    if (op.outputs.empty())
      return bad("no result");
    if (op.control != Control::None) {
      static const std::map<Control, Control> peerKind = {{Control::IfBranch, Control::IfElse},
                                                         {Control::IfElse, Control::IfJoin},
                                                         {Control::LoopInit, Control::LoopBack},
                                                         {Control::LoopBack, Control::LoopInit}};
      auto want = peerKind.find(op.control);
      bool forward = op.control != Control::LoopBack;
      if (want != peerKind.end() &&
          (op.peer < 0 || op.peer >= static_cast<int>(ops.size()) || ops[op.peer].control != want->second ||
           (forward ? op.peer <= static_cast<int>(i) : op.peer >= static_cast<int>(i))))
        return bad(std::string(controlName(op.control)) + " marker without its " + controlName(want->second));
    }
    if (op.kind == OpKind::Conv || op.kind == OpKind::Pool) {
      if (op.inputs.size() != 1)
        return bad("expected one activation operand");
      const Value &in = values[op.inputs[0]];
      const Value &out = values[op.outputs[0]];
      if (in.shape.size() != 4 || out.shape.size() != 4)
        return bad("expected 4-D NCHW operand and result");
      const Window &w = op.window;
      if (w.kh < 1 || w.kw < 1 || w.sh < 1 || w.sw < 1 || w.dh < 1 || w.dw < 1 || w.padTop < 0 ||
          w.padBottom < 0 || w.padLeft < 0 || w.padRight < 0)
        return bad("kernel, stride and dilation must be >= 1, pads >= 0");
      int64_t oh = windowOut(in.dim(2), w.kh, w.sh, w.padTop, w.padBottom, w.dh);
      int64_t ow = windowOut(in.dim(3), w.kw, w.sw, w.padLeft, w.padRight, w.dw);
      if (out.dim(0) != in.dim(0) || out.dim(2) != oh || out.dim(3) != ow)
        return bad("result shape does not match the window (expected H " + std::to_string(oh) + ", W " +
                   std::to_string(ow) + ")");
      if (op.kind == OpKind::Conv) {
        if (op.groups < 1 || in.dim(1) % op.groups || out.dim(1) % op.groups)
          return bad("groups must divide input and output channels");
      } else if (out.dim(1) != in.dim(1)) {
        return bad("pooling changes the channel count");
      }
    }
    if (op.kind == OpKind::Eltwise || op.kind == OpKind::Unary) {
      const Value &out = values[op.outputs[0]];
      for (int v : op.inputs) {
        const Value &in = values[v];
        if (in.shape.size() != out.shape.size())
          return bad("operand '" + in.name + "' has a different rank");
        for (size_t d = 0; d < in.shape.size(); ++d)
          if (in.shape[d] != out.shape[d] && in.shape[d] != 1)
            return bad("operand '" + in.name + "' does not broadcast");
      }
    }
  }
  for (int v : outputs)
    if (v < 0 || v >= static_cast<int>(values.size()) || values[v].isWeight)
      return "graph output index " + std::to_string(v) + " is not an activation";
  return "";
}

//===----------------------------------------------------------------------===//
// GraphBuilder
//===----------------------------------------------------------------------===//

int GraphBuilder::input(const std::string &name, std::vector<int64_t> shape) {
  return graph.addInput(name, std::move(shape), dtype);
}

int GraphBuilder::single(Op op, std::vector<int64_t> shape) {
  Value r;
  r.name = op.name;
  r.shape = std::move(shape);
  r.dtype = dtype;
  int index = graph.addOp(std::move(op), {r});
  return graph.ops[index].outputs[0];
}

int GraphBuilder::conv(const std::string &name, int in, int64_t oc, int64_t k, int64_t stride, int64_t pad,
                       int64_t groups, int64_t dilation) {
  Window w;
  w.kh = w.kw = k;
  w.sh = w.sw = stride;
  w.padTop = w.padBottom = w.padLeft = w.padRight = pad;
  w.dh = w.dw = dilation;
  return conv(name, in, oc, w, groups);
}

int GraphBuilder::conv(const std::string &name, int in, int64_t oc, const Window &w, int64_t groups) {
  const Value &x = graph.values[in];
  int64_t ic = x.dim(1);
  Op op;
  op.name = name;
  op.kind = OpKind::Conv;
  op.inputs = {in};
  op.window = w;
  op.groups = groups;
  op.weights.push_back(graph.addWeight(name + ".weight", {oc, ic / groups, w.kh, w.kw}, dtype));
  bool int8 = dtype == DType::INT8 || dtype == DType::UINT8;
  op.weights.push_back(graph.addWeight(name + ".bias", {oc}, int8 ? DType::INT32 : dtype));
  const Value &x2 = graph.values[in];
  int64_t oh = windowOut(x2.dim(2), w.kh, w.sh, w.padTop, w.padBottom, w.dh);
  int64_t ow = windowOut(x2.dim(3), w.kw, w.sw, w.padLeft, w.padRight, w.dw);
  return single(std::move(op), {x2.dim(0), oc, oh, ow});
}

int GraphBuilder::maxPool(const std::string &name, int in, int64_t k, int64_t stride, int64_t pad) {
  Op op;
  op.name = name;
  op.kind = OpKind::Pool;
  op.inputs = {in};
  op.window.kh = op.window.kw = k;
  op.window.sh = op.window.sw = stride;
  op.window.padTop = op.window.padBottom = op.window.padLeft = op.window.padRight = pad;
  const Value &x = graph.values[in];
  std::vector<int64_t> shape = {x.dim(0), x.dim(1), windowOut(x.dim(2), k, stride, pad, pad, 1),
                                windowOut(x.dim(3), k, stride, pad, pad, 1)};
  return single(std::move(op), shape);
}

int GraphBuilder::avgPool(const std::string &name, int in, int64_t k, int64_t stride, int64_t pad) {
  int v = maxPool(name, in, k, stride, pad);
  return v; // Same planning behaviour; the mode lives in the Tpu op.
}

int GraphBuilder::add(const std::string &name, int a, int b) {
  Op op;
  op.name = name;
  op.kind = OpKind::Eltwise;
  op.inputs = {a, b};
  return single(std::move(op), graph.values[a].shape);
}

int GraphBuilder::unary(const std::string &name, int in) {
  Op op;
  op.name = name;
  op.kind = OpKind::Unary;
  op.inputs = {in};
  return single(std::move(op), graph.values[in].shape);
}

int GraphBuilder::globalPool(const std::string &name, int in) {
  Op op;
  op.name = name;
  op.kind = OpKind::GlobalPool;
  op.inputs = {in};
  const Value &x = graph.values[in];
  return single(std::move(op), {x.dim(0), x.dim(1), 1, 1});
}

int GraphBuilder::reshape(const std::string &name, int in, std::vector<int64_t> shape) {
  Op op;
  op.name = name;
  op.kind = OpKind::Reshape;
  op.inputs = {in};
  return single(std::move(op), std::move(shape));
}

int GraphBuilder::concat(const std::string &name, const std::vector<int> &ins, int64_t axis) {
  Op op;
  op.name = name;
  op.kind = OpKind::Concat;
  op.inputs = ins;
  op.axis = axis;
  std::vector<int64_t> shape = graph.values[ins.at(0)].shape;
  shape[axis] = 0;
  for (int v : ins)
    shape[axis] += graph.values[v].shape[axis];
  return single(std::move(op), shape);
}

int GraphBuilder::matmul(const std::string &name, int in, int64_t outFeatures) {
  const Value &x = graph.values[in];
  int64_t k = x.shape.back();
  int64_t n = x.elements() / k;
  Op op;
  op.name = name;
  op.kind = OpKind::MatMul;
  op.inputs = {in};
  op.weights.push_back(graph.addWeight(name + ".weight", {k, outFeatures}, dtype));
  bool int8 = dtype == DType::INT8 || dtype == DType::UINT8;
  op.weights.push_back(graph.addWeight(name + ".bias", {outFeatures}, int8 ? DType::INT32 : dtype));
  return single(std::move(op), {n, outFeatures});
}

int GraphBuilder::linear(const std::string &name, int in, int64_t outFeatures) {
  std::vector<int64_t> shape = graph.values[in].shape;
  Op op;
  op.name = name;
  op.kind = OpKind::MatMul;
  op.inputs = {in};
  op.weights.push_back(graph.addWeight(name + ".weight", {shape.back(), outFeatures}, dtype));
  shape.back() = outFeatures;
  return single(std::move(op), std::move(shape));
}

int GraphBuilder::bias(const std::string &name, int in) {
  std::vector<int64_t> shape = graph.values[in].shape;
  Op op;
  op.name = name;
  op.kind = OpKind::Unary;
  op.inputs = {in};
  op.weights.push_back(graph.addWeight(name + ".bias", {shape.back()}, dtype));
  return single(std::move(op), std::move(shape));
}

} // namespace tpuc::backend
