//===- ConvertRecurrent.cpp - ONNX LSTM, GRU and RNN unrolled into Top ops -===//
// A static-shape compiler knows the sequence length, so a recurrent layer becomes its time steps spelled
// out: one matmul projects every step's input at once (X W^T + the biases), then each step adds the
// recurrent matmul (H R^T), splits the gates, applies the activations and updates the state, exactly as
// ONNX defines the op. Every piece is an ordinary Top op, so the layer quantizes, lowers and runs on every
// chip like the rest of the graph. `sequence_lens` (known at import time or fed at run time) masks the
// steps past a sequence's end: the state is kept and Y is zero there, which is also right for the reverse
// direction (its steps past the end come first and keep the initial state).
//===----------------------------------------------------------------------===//
#include "GraphImporter.h"
#include "OpParams.h"

using namespace mlir;
using namespace tpuc::top;

namespace tpuc::importer {
namespace {

/// One activation function of the op with its alpha/beta.
struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
};

/// Which activations take an alpha / a beta, and their defaults (ONNX's, as ONNX Runtime applies them).
bool takesAlpha(StringRef n) {
  return n == "Affine" || n == "LeakyRelu" || n == "ScaledTanh" || n == "HardSigmoid";
}
bool takesBeta(StringRef n) { return n == "Affine" || n == "ScaledTanh" || n == "HardSigmoid"; }
double defaultAlpha(StringRef n) { return n == "LeakyRelu" ? 0.01 : n == "HardSigmoid" ? 0.2 : 1.0; }
double defaultBeta(StringRef n) { return n == "HardSigmoid" ? 0.5 : n == "Affine" ? 0.0 : 1.0; }

class Recurrent {
public:
  Recurrent(GraphImporter &g, int64_t gates) : g_(g), gates_(gates) {}

  LogicalResult run();

private:
  LogicalResult readShapes();
  LogicalResult readActivations();
  /// Rows [r0, r1) of direction `d` of input `index` (shape [dirs, rows] or [dirs, rows, cols]) as a
  /// [r1 - r0(, cols)] value: a weight when the input is known at import time, else a slice.
  Value rows(size_t index, int64_t d, int64_t r0, int64_t r1, const std::string &tag);
  Value activate(Value x, const Activation &a, const std::string &suffix);
  Value clip(Value x, const std::string &suffix);
  Value add(Value a, Value b, const std::string &suffix) {
    return a && b ? g_.build<AddOp>(suffix, {a, b}, {}, g_.builder().getF32Type()) : Value();
  }
  Value mul(Value a, Value b, const std::string &suffix) {
    return a && b ? g_.build<MulOp>(suffix, {a, b}, {}, g_.builder().getF32Type()) : Value();
  }
  /// 1 - v (a sub_const with the operands swapped).
  Value oneMinus(Value v, const std::string &suffix) {
    return v ? g_.build<SubConstOp>(suffix, {v}, {g_.f64("const_val", 1.0), g_.boolean("is_reverse", true)},
                                    g_.builder().getF32Type())
             : Value();
  }
  /// The [batch, hidden] zeros a state starts from when none is given (one weight per node).
  Value zeroState() {
    if (!zeros_)
      zeros_ =
          g_.materialize(g_.nodeName() + "_zero_state",
                         HostTensor::floats({batch_, hidden_}, std::vector<float>(batch_ * hidden_, 0.0f)));
    return zeros_;
  }
  Value matmulT(Value x, Value w, Value bias, const std::string &suffix) {
    return x && w ? g_.build<MatMulOp>(suffix, {x, w, bias ? bias : g_.none()},
                                       {g_.boolean("right_transpose", true)}, g_.builder().getF32Type())
                  : Value();
  }
  /// The step-input projection X W^T + biases of direction `d`: [seq, batch, gates * hidden].
  Value project(int64_t d, const std::string &tag);
  /// The recurrent bias added to H R^T inside the step (GRU with linear_before_reset), else null.
  Value stepBias(int64_t d, const std::string &tag);
  /// The mask [batch, 1] of the sequences still running at step `t`, or null when every one is.
  Value maskAt(int64_t t);
  /// One direction; fills the per-step outputs (time order) and the final states.
  LogicalResult direction(int64_t d, std::vector<Value> &ys, Value &lastH, Value &lastC);
  Value initialState(size_t index, int64_t d, const std::string &tag);

  GraphImporter &g_;
  int64_t gates_;
  bool lstm() const { return gates_ == 4; }
  bool gru() const { return gates_ == 3; }
  int64_t seq_ = 0, batch_ = 0, inputSize_ = 0, hidden_ = 0, dirs_ = 1;
  bool layout1_ = false, reverseOnly_ = false, linearBeforeReset_ = false, inputForget_ = false;
  std::optional<double> clip_;
  std::vector<Activation> acts_; // per direction: f, g(, h)
  Value x_;                      // [seq, batch, input]
  Value lens_;                   // [batch, 1] sequence lengths fed at run time
  std::vector<int64_t> constLens_;
  Value zeros_; // [batch, hidden]
};

LogicalResult Recurrent::readShapes() {
  std::vector<int64_t> x = g_.inputShape(0);
  if (x.size() != 3)
    return g_.fail("'X' must be 3-D, got " + listText(x));
  layout1_ = g_.attrInt("layout", 0) != 0;
  seq_ = layout1_ ? x[1] : x[0];
  batch_ = layout1_ ? x[0] : x[1];
  inputSize_ = x[2];
  std::string dir = g_.attrString("direction", "forward");
  if (dir == "bidirectional")
    dirs_ = 2;
  else if (dir == "reverse")
    reverseOnly_ = true;
  else if (dir != "forward")
    return g_.fail("direction '" + dir + "' is not one of forward, reverse, bidirectional");
  std::vector<int64_t> w = g_.inputShape(1), r = g_.inputShape(2);
  if (w.size() != 3 || w[0] != dirs_ || w[2] != inputSize_ || w[1] % gates_ != 0)
    return g_.fail("'W' " + listText(w) + " must be [" + std::to_string(dirs_) + ", " +
                   std::to_string(gates_) + " * hidden_size, " + std::to_string(inputSize_) + "]");
  hidden_ = g_.attrInt("hidden_size", w[1] / gates_);
  if (hidden_ < 1 || w[1] != gates_ * hidden_)
    return g_.fail("'W' " + listText(w) + " does not hold " + std::to_string(gates_) +
                   " gates of hidden_size " + std::to_string(hidden_));
  if (r != std::vector<int64_t>{dirs_, gates_ * hidden_, hidden_})
    return g_.fail("'R' " + listText(r) + " must be " + listText({dirs_, gates_ * hidden_, hidden_}));
  if (g_.hasInput(3) && g_.inputShape(3) != std::vector<int64_t>{dirs_, 2 * gates_ * hidden_})
    return g_.fail("'B' " + listText(g_.inputShape(3)) + " must be " +
                   listText({dirs_, 2 * gates_ * hidden_}));
  std::vector<int64_t> state{dirs_, batch_, hidden_};
  if (layout1_)
    state = {batch_, dirs_, hidden_};
  for (size_t i : {size_t(5), size_t(6)})
    if (g_.hasInput(i) && (i == 5 || lstm()) && g_.inputShape(i) != state)
      return g_.fail(std::string(i == 5 ? "'initial_h' " : "'initial_c' ") + listText(g_.inputShape(i)) +
                     " must be " + listText(state));
  if (lstm() && g_.hasInput(7) && g_.inputShape(7) != std::vector<int64_t>{dirs_, 3 * hidden_})
    return g_.fail("'P' " + listText(g_.inputShape(7)) + " must be " + listText({dirs_, 3 * hidden_}));
  if (g_.hasInput(4)) {
    std::vector<int64_t> l = g_.inputShape(4);
    if (l != std::vector<int64_t>{batch_})
      return g_.fail("'sequence_lens' " + listText(l) + " must be [" + std::to_string(batch_) + "]");
    if (const HostTensor *c = g_.constInput(4)) {
      std::vector<int64_t> lens = c->toInts();
      for (int64_t v : lens)
        if (v < 0 || v > seq_)
          return g_.fail("'sequence_lens' value " + std::to_string(v) + " is outside [0, " +
                         std::to_string(seq_) + "]");
      if (std::any_of(lens.begin(), lens.end(), [&](int64_t v) { return v != seq_; }))
        constLens_ = lens;
    } else {
      lens_ = g_.reshape(g_.input(4), {batch_, 1}, "lens");
      if (!lens_)
        return failure();
    }
  }
  if (g_.hasAttr("clip")) {
    clip_ = g_.attrFloat("clip", 0);
    if (!(*clip_ > 0))
      return g_.fail("'clip' must be positive");
  }
  linearBeforeReset_ = gru() && g_.attrInt("linear_before_reset", 0) != 0;
  inputForget_ = lstm() && g_.attrInt("input_forget", 0) != 0;
  return success();
}

LogicalResult Recurrent::readActivations() {
  size_t perDir = lstm() ? 3 : gru() ? 2 : 1;
  std::vector<std::string> names;
  if (const onnx::AttributeProto *a = g_.attr("activations"))
    names.assign(a->strings().begin(), a->strings().end());
  if (names.empty()) {
    std::vector<std::string> defaults = lstm()  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                        : gru() ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                : std::vector<std::string>{"Tanh"};
    for (int64_t d = 0; d < dirs_; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  }
  if (names.size() != perDir * dirs_)
    return g_.fail("'activations' lists " + std::to_string(names.size()) + " functions; expected " +
                   std::to_string(perDir * dirs_));
  std::vector<float> alphas = g_.attrFloats("activation_alpha"), betas = g_.attrFloats("activation_beta");
  size_t ia = 0, ib = 0;
  for (const std::string &n : names) {
    static const char *known[] = {"Sigmoid",   "Tanh",   "Relu",      "HardSigmoid",
                                  "LeakyRelu", "Affine", "ScaledTanh"};
    if (std::find(std::begin(known), std::end(known), n) == std::end(known))
      return g_.fail(
          "activation '" + n +
          "' is not supported (Sigmoid, Tanh, Relu, HardSigmoid, LeakyRelu, Affine, ScaledTanh are)");
    Activation a{n, defaultAlpha(n), defaultBeta(n)};
    if (takesAlpha(n) && ia < alphas.size())
      a.alpha = alphas[ia++];
    if (takesBeta(n) && ib < betas.size())
      a.beta = betas[ib++];
    acts_.push_back(a);
  }
  return success();
}

Value Recurrent::rows(size_t index, int64_t d, int64_t r0, int64_t r1, const std::string &tag) {
  std::vector<int64_t> shape = g_.inputShape(index);
  int64_t cols = shape.size() == 3 ? shape[2] : 1;
  std::vector<int64_t> outShape{r1 - r0};
  if (shape.size() == 3)
    outShape.push_back(cols);
  if (const HostTensor *c = g_.constInput(index)) {
    std::vector<float> data;
    data.reserve((r1 - r0) * cols);
    int64_t base = (d * shape[1] + r0) * cols;
    for (int64_t k = 0; k < (r1 - r0) * cols; ++k)
      data.push_back((float)c->at(base + k));
    return g_.materialize(g_.nodeName() + "_" + tag, HostTensor::floats(outShape, data));
  }
  Value v = g_.sliceAxis(g_.input(index), 0, d, d + 1, tag + "_direction");
  v = g_.sliceAxis(v, 1, r0, r1, tag + "_rows");
  return v ? g_.reshape(v, outShape, tag) : Value();
}

Value Recurrent::clip(Value x, const std::string &suffix) {
  if (!x || !clip_)
    return x;
  return g_.build<ClipOp>(suffix, {x}, {g_.f64("min", -*clip_), g_.f64("max", *clip_)},
                          g_.builder().getF32Type());
}

Value Recurrent::activate(Value x, const Activation &a, const std::string &suffix) {
  if (!x)
    return {};
  Type f32 = g_.builder().getF32Type();
  const std::string &n = a.name;
  if (n == "Sigmoid")
    return g_.build<SigmoidOp>(suffix, {x}, {}, f32);
  if (n == "Tanh")
    return g_.build<TanhOp>(suffix, {x}, {}, f32);
  if (n == "Relu")
    return g_.build<ReluOp>(suffix, {x}, {}, f32);
  if (n == "HardSigmoid")
    return g_.build<HardSigmoidOp>(suffix, {x}, {g_.f64("alpha", a.alpha), g_.f64("beta", a.beta)}, f32);
  if (n == "LeakyRelu")
    return g_.build<LeakyReluOp>(suffix, {x}, {g_.f64("alpha", a.alpha)}, f32);
  if (n == "Affine") {
    Value s = g_.build<MulConstOp>(suffix + "_scaled", {x}, {g_.f64("const_val", a.alpha)}, f32);
    return s ? g_.build<AddConstOp>(suffix, {s}, {g_.f64("const_val", a.beta)}, f32) : Value();
  }
  // ScaledTanh: alpha * tanh(beta * x).
  Value s = g_.build<MulConstOp>(suffix + "_in", {x}, {g_.f64("const_val", a.beta)}, f32);
  Value t = s ? g_.build<TanhOp>(suffix + "_tanh", {s}, {}, f32) : Value();
  return t ? g_.build<MulConstOp>(suffix, {t}, {g_.f64("const_val", a.alpha)}, f32) : Value();
}

Value Recurrent::project(int64_t d, const std::string &tag) {
  int64_t gh = gates_ * hidden_;
  Value w = rows(1, d, 0, gh, tag + "_W");
  Value bias;
  if (const HostTensor *b = g_.constInput(3)) {
    // Wb + Rb, except GRU's recurrent h-gate bias with linear_before_reset (added inside the step).
    std::vector<float> sum(gh);
    for (int64_t k = 0; k < gh; ++k) {
      bool inside = linearBeforeReset_ && k >= 2 * hidden_;
      sum[k] = (float)b->at(d * 2 * gh + k) + (inside ? 0.0f : (float)b->at(d * 2 * gh + gh + k));
    }
    bias = g_.materialize(g_.nodeName() + "_" + tag + "_bias", HostTensor::floats({gh}, sum));
    return matmulT(x_, w, bias, tag + "_input_projection");
  }
  Value xw = matmulT(x_, w, {}, tag + "_input_projection");
  if (!g_.hasInput(3))
    return xw;
  Value wb = rows(3, d, 0, gh, tag + "_Wb");
  Value rb = rows(3, d, gh, linearBeforeReset_ ? gh + 2 * hidden_ : 2 * gh, tag + "_Rb");
  if (linearBeforeReset_) {
    Value zero = g_.materialize(g_.nodeName() + "_" + tag + "_no_h_bias",
                                HostTensor::floats({hidden_}, std::vector<float>(hidden_, 0.0f)));
    rb = rb && zero
             ? g_.build<ConcatOp>(tag + "_Rb_zr", {rb, zero}, {g_.i64("axis", 0)}, g_.builder().getF32Type())
             : Value();
  }
  return add(xw, add(wb, rb, tag + "_bias"), tag + "_input_projection_biased");
}

Value Recurrent::stepBias(int64_t d, const std::string &tag) {
  if (!linearBeforeReset_ || !g_.hasInput(3))
    return {};
  int64_t gh = gates_ * hidden_;
  if (const HostTensor *b = g_.constInput(3)) {
    std::vector<float> v(gh, 0.0f);
    for (int64_t k = 2 * hidden_; k < gh; ++k)
      v[k] = (float)b->at(d * 2 * gh + gh + k);
    return g_.materialize(g_.nodeName() + "_" + tag + "_Rb_h", HostTensor::floats({gh}, v));
  }
  Value rbh = rows(3, d, gh + 2 * hidden_, 2 * gh, tag + "_Rb_h");
  Value zero = g_.materialize(g_.nodeName() + "_" + tag + "_no_zr_bias",
                              HostTensor::floats({2 * hidden_}, std::vector<float>(2 * hidden_, 0.0f)));
  return rbh && zero ? g_.build<ConcatOp>(tag + "_Rb_h_full", {zero, rbh}, {g_.i64("axis", 0)},
                                          g_.builder().getF32Type())
                     : Value();
}

Value Recurrent::maskAt(int64_t t) {
  std::string name = "running_t" + std::to_string(t);
  if (!constLens_.empty()) {
    std::vector<int64_t> keep(batch_);
    for (int64_t b = 0; b < batch_; ++b)
      keep[b] = t < constLens_[b];
    return g_.materialize(g_.nodeName() + "_" + name,
                          HostTensor::ints({batch_, 1}, keep, onnx::TensorProto::BOOL));
  }
  if (!lens_)
    return {};
  Type elem = GraphImporter::elementTypeOf(lens_);
  int32_t dtype = elem.isInteger(32) ? onnx::TensorProto::INT32 : onnx::TensorProto::INT64;
  Value step =
      g_.materialize(g_.nodeName() + "_step_" + std::to_string(t), HostTensor::ints({1}, {t}, dtype));
  auto mode = CompareModeAttr::get(g_.builder().getContext(), CompareMode::gt);
  return step ? g_.build<CompareOp>(name, {lens_, step}, {g_.named("mode", mode)}, g_.builder().getI1Type())
              : Value();
}

Value Recurrent::initialState(size_t index, int64_t d, const std::string &tag) {
  if (!g_.hasInput(index))
    return {};
  Value v = g_.sliceAxis(g_.input(index), layout1_ ? 1 : 0, d, d + 1, tag);
  return v ? g_.reshape(v, {batch_, hidden_}, tag + "_2d") : Value();
}

LogicalResult Recurrent::direction(int64_t d, std::vector<Value> &ys, Value &lastH, Value &lastC) {
  bool reverse = reverseOnly_ || d == 1;
  std::string tag = dirs_ == 1 ? std::string(reverse ? "reverse" : "forward")
                    : d == 0   ? "forward"
                               : "reverse";
  const Activation *act = &acts_[d * (lstm() ? 3 : gru() ? 2 : 1)];
  int64_t gh = gates_ * hidden_;
  Value xw = project(d, tag);
  Value r = rows(2, d, 0, gh, tag + "_R");
  Value rzr, rh;
  if (gru() && !linearBeforeReset_) {
    rzr = rows(2, d, 0, 2 * hidden_, tag + "_R_zr");
    rh = rows(2, d, 2 * hidden_, gh, tag + "_R_h");
  }
  Value hBias = stepBias(d, tag);
  Value h = initialState(5, d, tag + "_initial_h");
  Value c = lstm() ? initialState(6, d, tag + "_initial_c") : Value();
  Value peep[3];
  if (lstm() && g_.hasInput(7))
    for (int k = 0; k < 3; ++k)
      peep[k] = rows(7, d, k * hidden_, (k + 1) * hidden_, tag + "_P" + "iof"[k]);
  if (!xw || !r || (gru() && !linearBeforeReset_ && (!rzr || !rh)))
    return failure();
  Type f32 = g_.builder().getF32Type();
  ys.assign(seq_, Value());
  for (int64_t s = 0; s < seq_; ++s) {
    int64_t t = reverse ? seq_ - 1 - s : s;
    std::string p = tag + "_t" + std::to_string(t) + "_";
    Value xt = g_.reshape(g_.sliceAxis(xw, 0, t, t + 1, p + "input"), {batch_, gh}, p + "input_2d");
    Value mask = maskAt(t);
    Value newH, newC;
    auto gate = [&](Value v, int64_t k, const std::string &name) {
      return g_.sliceAxis(v, 1, k * hidden_, (k + 1) * hidden_, p + name);
    };
    if (lstm()) {
      Value pre = h ? add(xt, matmulT(h, r, {}, p + "recurrent"), p + "gates") : xt;
      Value i = clip(gate(pre, 0, "i"), p + "i_clipped");
      Value o = clip(gate(pre, 1, "o"), p + "o_clipped");
      Value f = clip(gate(pre, 2, "f"), p + "f_clipped");
      Value cc = clip(gate(pre, 3, "c"), p + "c_clipped");
      if (peep[0] && c) {
        i = add(i, mul(c, peep[0], p + "i_peephole"), p + "i_with_peephole");
        f = add(f, mul(c, peep[2], p + "f_peephole"), p + "f_with_peephole");
      }
      Value it = activate(i, act[0], p + "input_gate");
      Value ft = inputForget_ ? oneMinus(it, p + "forget_gate") : activate(f, act[0], p + "forget_gate");
      Value candidate = activate(cc, act[1], p + "candidate");
      Value written = mul(it, candidate, p + "written");
      newC = c ? add(mul(ft, c, p + "kept"), written, p + "cell") : written;
      if (peep[1])
        o = add(o, mul(newC, peep[1], p + "o_peephole"), p + "o_with_peephole");
      Value ot = activate(o, act[0], p + "output_gate");
      newH = mul(ot, activate(newC, act[2], p + "cell_activation"), p + "hidden");
    } else if (gru()) {
      Value hr, zrPre, hPre;
      if (linearBeforeReset_) {
        // H R^T + Rb_h, or Rb_h alone ([1, gh]) before the first state.
        hr = h       ? matmulT(h, r, hBias, p + "recurrent")
             : hBias ? g_.reshape(hBias, {1, gh}, p + "recurrent")
                     : Value();
        zrPre = g_.sliceAxis(xt, 1, 0, 2 * hidden_, p + "zr_input");
        if (hr)
          zrPre = add(zrPre, g_.sliceAxis(hr, 1, 0, 2 * hidden_, p + "zr_recurrent"), p + "zr_gates");
      } else {
        zrPre = g_.sliceAxis(xt, 1, 0, 2 * hidden_, p + "zr_input");
        if (h)
          zrPre = add(zrPre, matmulT(h, rzr, {}, p + "zr_recurrent"), p + "zr_gates");
      }
      Value z = activate(clip(gate(zrPre, 0, "z"), p + "z_clipped"), act[0], p + "update_gate");
      Value rg = activate(clip(gate(zrPre, 1, "r"), p + "r_clipped"), act[0], p + "reset_gate");
      hPre = gate(xt, 2, "h_input");
      if (linearBeforeReset_ && hr)
        hPre = add(hPre, mul(rg, gate(hr, 2, "h_recurrent"), p + "h_reset"), p + "h_gate");
      else if (!linearBeforeReset_ && h)
        hPre = add(hPre, matmulT(mul(rg, h, p + "h_reset"), rh, {}, p + "h_recurrent"), p + "h_gate");
      Value candidate = activate(clip(hPre, p + "h_clipped"), act[1], p + "candidate");
      // H = (1 - z) * candidate + z * H_prev = candidate + z * (H_prev - candidate).
      if (h) {
        Value diff = candidate ? g_.build<SubOp>(p + "change", {h, candidate}, {}, f32) : Value();
        newH = add(candidate, mul(z, diff, p + "kept"), p + "hidden");
      } else {
        newH = mul(oneMinus(z, p + "one_minus_z"), candidate, p + "hidden");
      }
    } else {
      Value pre = h ? add(xt, matmulT(h, r, {}, p + "recurrent"), p + "gate") : xt;
      newH = activate(clip(pre, p + "clipped"), act[0], p + "hidden");
    }
    if (!newH || (lstm() && !newC))
      return failure();
    if (mask) {
      Value zeros = zeroState();
      if (!zeros)
        return failure();
      Value prevH = h ? h : zeros, prevC = c ? c : zeros;
      ys[t] = g_.build<WhereOp>(p + "output", {mask, newH, zeros}, {}, f32);
      newH = g_.build<WhereOp>(p + "hidden_kept", {mask, newH, prevH}, {}, f32);
      if (lstm())
        newC = g_.build<WhereOp>(p + "cell_kept", {mask, newC, prevC}, {}, f32);
      if (!ys[t] || !newH || (lstm() && !newC))
        return failure();
    } else {
      ys[t] = newH;
    }
    h = newH;
    c = newC;
  }
  lastH = h;
  lastC = c;
  return success();
}

LogicalResult Recurrent::run() {
  if (failed(readShapes()) || failed(readActivations()))
    return failure();
  if (seq_ < 1 || batch_ < 1)
    return g_.fail("the sequence and batch must not be empty");
  x_ = g_.input(0);
  if (x_ && layout1_)
    x_ = g_.build<PermuteOp>("time_major", {x_}, {g_.i64s("order", {1, 0, 2})}, g_.builder().getF32Type());
  if (!x_)
    return failure();
  Type f32 = g_.builder().getF32Type();
  std::vector<std::vector<Value>> ys(dirs_);
  std::vector<Value> hs(dirs_), cs(dirs_);
  for (int64_t d = 0; d < dirs_; ++d)
    if (failed(direction(d, ys[d], hs[d], cs[d])))
      return failure();
  // Y: [seq, dirs, batch, hidden] (layout 1: [batch, seq, dirs, hidden]).
  if (g_.outputUsed(0)) {
    std::vector<Value> steps;
    for (int64_t t = 0; t < seq_; ++t) {
      std::vector<Value> perDir;
      for (int64_t d = 0; d < dirs_; ++d)
        perDir.push_back(g_.reshape(ys[d][t], {1, 1, batch_, hidden_},
                                    "y_t" + std::to_string(t) + "_d" + std::to_string(d)));
      steps.push_back(dirs_ == 1
                          ? perDir[0]
                          : g_.build<ConcatOp>("y_t" + std::to_string(t), perDir, {g_.i64("axis", 1)}, f32));
      if (!steps.back())
        return failure();
    }
    Value y = steps.size() == 1
                  ? steps[0]
                  : g_.build<ConcatOp>(layout1_ ? "y_time_major" : "", steps, {g_.i64("axis", 0)}, f32);
    if (y && layout1_)
      y = g_.build<PermuteOp>("", {y}, {g_.i64s("order", {2, 0, 1, 3})}, f32);
    if (!y)
      return failure();
    g_.setOutput(0, y);
  }
  // Y_h / Y_c: [dirs, batch, hidden] (layout 1: [batch, dirs, hidden]).
  auto finalState = [&](std::vector<Value> &states, size_t out, const std::string &tag) -> LogicalResult {
    if (!g_.outputUsed(out))
      return success();
    std::vector<Value> parts;
    for (int64_t d = 0; d < dirs_; ++d) {
      Value s = states[d] ? states[d] : zeroState();
      parts.push_back(g_.reshape(
          s, layout1_ ? std::vector<int64_t>{batch_, 1, hidden_} : std::vector<int64_t>{1, batch_, hidden_},
          tag + "_d" + std::to_string(d)));
      if (!parts.back())
        return failure();
    }
    Value v = parts.size() == 1 ? parts[0]
                                : g_.build<ConcatOp>(tag, parts, {g_.i64("axis", layout1_ ? 1 : 0)}, f32);
    if (!v)
      return failure();
    g_.setOutput(out, v);
    return success();
  };
  if (failed(finalState(hs, 1, "y_h")))
    return failure();
  if (lstm() && failed(finalState(cs, 2, "y_c")))
    return failure();
  return success();
}

LogicalResult convertLSTM(GraphImporter &g) { return Recurrent(g, 4).run(); }
LogicalResult convertGRU(GraphImporter &g) { return Recurrent(g, 3).run(); }
LogicalResult convertRNN(GraphImporter &g) { return Recurrent(g, 1).run(); }

} // namespace

void addRecurrentConverters(OpTable &table) {
  table["LSTM"].convert = convertLSTM;
  table["GRU"].convert = convertGRU;
  table["RNN"].convert = convertRNN;
}

} // namespace tpuc::importer
