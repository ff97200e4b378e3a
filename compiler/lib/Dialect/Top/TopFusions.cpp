//===- TopFusions.cpp - Spelled-out norms and activations fused into one Top op ===//
// Exports before opset 17 (LayerNormalization), 20 (Gelu), 18 (Mish) and 14 (HardSwish) spell LayerNorm,
// RMSNorm, GELU, Mish and HardSwish out as chains of reduce / sub / pow / sqrt / div, erf or tanh
// arithmetic, softplus under a tanh, and relu6 products. On the chip each link would be its own command
// with its own DDR traffic and, in INT8, its own requantization; these canonicalization patterns turn each
// chain into the one op the lowering and the layer-group planner treat as a unit. PyTorch's GroupNorm export
// (an InstanceNormalization between two reshapes, then the affine) becomes one groupnorm the same way, and
// scaled-dot-product attention (MatMul, scale, mask, Softmax, MatMul) one attention.
// The chains are matched exactly (constants within 1e-6), the dead links are erased by the driver.
//===----------------------------------------------------------------------===//
#include "TopFusions.h"

#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Top/WeightStore.h"

#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace tpuc::top;

namespace {

bool near(double a, double b) { return std::abs(a - b) <= 1e-6 * std::max(1.0, std::abs(b)); }

/// `v` is `d` squared: pow(d, 2) or d * d.
bool isSquareOf(Value v, Value d) {
  if (auto pow = v.getDefiningOp<PowOp>())
    return pow.getInput() == d && near(pow.getExponent().convertToDouble(), 2.0);
  if (auto mul = v.getDefiningOp<MulOp>())
    return !mul.getDoRelu() && mul.getLhs() == d && mul.getRhs() == d;
  return false;
}

/// A mean over `axes` that keeps the reduced dimensions, of `of` (when `of` is given).
std::optional<SmallVector<int64_t>> meanAxes(Value v, Value of = {}) {
  auto reduce = v.getDefiningOp<ReduceOp>();
  if (!reduce || reduce.getMode() != ReduceMode::mean || !reduce.getKeepdims() || (of && reduce.getInput() != of))
    return std::nullopt;
  int64_t rank = static_cast<int64_t>(getShape(reduce.getInput()).size());
  SmallVector<int64_t> axes;
  for (int64_t a : reduce.getAxes())
    axes.push_back(a < 0 ? a + rank : a);
  llvm::sort(axes);
  return axes;
}

/// `axes` are the trailing axes [k, rank): returns k.
std::optional<int64_t> trailingFrom(ArrayRef<int64_t> axes, int64_t rank) {
  if (axes.empty())
    return std::nullopt;
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != rank - static_cast<int64_t>(axes.size()) + static_cast<int64_t>(i))
      return std::nullopt;
  return axes.front();
}

/// sqrt(mean(d^2) + eps) (or its reciprocal when `reciprocal`: rsqrt(...), 1 / sqrt(...)): d, axes, eps.
struct RootMeanSquare {
  Value d;
  SmallVector<int64_t> axes;
  double eps;
};
std::optional<RootMeanSquare> matchRootMeanSquare(Value v, bool reciprocal) {
  Value inside;
  if (reciprocal) {
    if (auto rsqrt = v.getDefiningOp<RsqrtOp>())
      inside = rsqrt.getInput();
    else if (auto recip = v.getDefiningOp<ReciprocalOp>())
      if (auto sqrt = recip.getInput().getDefiningOp<SqrtOp>())
        inside = sqrt.getInput();
  } else if (auto sqrt = v.getDefiningOp<SqrtOp>()) {
    inside = sqrt.getInput();
  }
  auto addEps = inside ? inside.getDefiningOp<AddConstOp>() : AddConstOp();
  if (!addEps || addEps.getDoRelu() || addEps.getIsReverse() || addEps.getConstVal().convertToDouble() <= 0)
    return std::nullopt;
  auto reduce = addEps.getInput().getDefiningOp<ReduceOp>();
  auto axes = meanAxes(addEps.getInput());
  if (!reduce || !axes)
    return std::nullopt;
  // The squared value: pow(d, 2) or d * d; d is what the norm divides.
  Value sq = reduce.getInput(), d;
  if (auto pow = sq.getDefiningOp<PowOp>())
    d = pow.getInput();
  else if (auto mul = sq.getDefiningOp<MulOp>())
    d = mul.getLhs();
  if (!d || !isSquareOf(sq, d))
    return std::nullopt;
  return RootMeanSquare{d, *axes, addEps.getConstVal().convertToDouble()};
}

/// (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) over trailing axes becomes layernorm(x); without the
/// centring, over the last axis, d / sqrt(mean(d^2) + eps) becomes rmsnorm(d). Also d * rsqrt(...).
struct FuseDecomposedNorm : RewritePattern {
  explicit FuseDecomposedNorm(MLIRContext *context) : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    std::optional<RootMeanSquare> rms;
    if (auto div = dyn_cast<DivOp>(op)) {
      if (div.getDoRelu())
        return failure();
      rms = matchRootMeanSquare(div.getRhs(), /*reciprocal=*/false);
      if (rms && rms->d != div.getLhs())
        rms.reset();
    } else if (auto mul = dyn_cast<MulOp>(op)) {
      if (mul.getDoRelu())
        return failure();
      for (auto [d, inv] : {std::pair{mul.getLhs(), mul.getRhs()}, std::pair{mul.getRhs(), mul.getLhs()}})
        if (auto m = matchRootMeanSquare(inv, /*reciprocal=*/true); m && m->d == d) {
          rms = m;
          break;
        }
    }
    if (!rms)
      return failure();
    Type type = op->getResult(0).getType();
    int64_t rank = static_cast<int64_t>(getShape(rms->d).size());
    auto axis = trailingFrom(rms->axes, rank);
    if (!axis || rms->d.getType() != type)
      return failure();
    SmallVector<Location> locs{op->getLoc()};
    // Centred by its own mean over the same axes: LayerNorm of x.
    if (auto sub = rms->d.getDefiningOp<SubOp>(); sub && !sub.getDoRelu()) {
      auto mu = meanAxes(sub.getRhs(), sub.getLhs());
      if (mu && *mu == rms->axes && sub.getLhs().getType() == type) {
        Value none = NoneOp::create(rewriter, op->getLoc(), rewriter.getNoneType());
        auto ln = LayerNormOp::create(rewriter, rewriter.getFusedLoc({sub.getLoc(), op->getLoc()}), type, sub.getLhs(),
                                      none, none, rewriter.getI64IntegerAttr(*axis), rewriter.getF64FloatAttr(rms->eps));
        rewriter.replaceOp(op, ln.getOutput());
        return success();
      }
    }
    // RMSNorm normalizes the last axis only.
    if (*axis != rank - 1)
      return failure();
    Value none = NoneOp::create(rewriter, op->getLoc(), rewriter.getNoneType());
    auto norm = RMSNormOp::create(rewriter, op->getLoc(), type, rms->d, none, rewriter.getF64FloatAttr(rms->eps));
    rewriter.replaceOp(op, norm.getOutput());
    return success();
  }
};

/// `v` is absent or a weight whose every value is `value`.
bool isNoneOrFilledWith(Value v, float value) {
  if (isNone(v))
    return true;
  auto weight = v.getDefiningOp<WeightOp>();
  if (!weight)
    return false;
  auto data = readWeightF32(weight);
  return succeeded(data) && llvm::all_of(*data, [&](float x) { return x == value; });
}

/// PyTorch's GroupNorm export: reshape [N, C, ...] to [N, G, ...], instance-normalize the G "channels"
/// (scale 1, bias 0), reshape back. Becomes groupnorm(x) with G groups; the affine that follows folds in
/// (FoldNormAffine).
struct FuseReshapedInstanceNorm : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp back, PatternRewriter &rewriter) const override {
    auto norm = back.getInput().getDefiningOp<InstanceNormOp>();
    auto split = norm ? norm.getInput().getDefiningOp<ReshapeOp>() : ReshapeOp();
    if (!split || !norm->hasOneUse() || !split->hasOneUse())
      return failure();
    Value x = split.getInput();
    auto in = getShape(x), grouped = getShape(split.getOutput());
    if (x.getType() != back.getType() || in.size() < 3 || grouped.size() < 3 || grouped[0] != in[0] ||
        grouped[1] < 1 || in[1] % grouped[1] != 0 || !isNoneOrFilledWith(norm.getWeight(), 1.0f) ||
        !isNoneOrFilledWith(norm.getBias(), 0.0f))
      return failure();
    Value none = NoneOp::create(rewriter, back.getLoc(), rewriter.getNoneType());
    auto fused = GroupNormOp::create(
        rewriter, rewriter.getFusedLoc({split.getLoc(), norm.getLoc(), back.getLoc()}), back.getType(), x,
        none, none, rewriter.getI64IntegerAttr(grouped[1]), norm.getEpsAttr());
    rewriter.replaceOp(back, fused.getOutput());
    return success();
  }
};

/// A per-channel weight of an [N, C, ...] tensor: C values broadcast along axis 1 ([C, 1, ..., 1] with
/// the spatial rank, leading 1s aside).
bool isPerChannelFor(Value w, ArrayRef<int64_t> input) {
  if (!w.getDefiningOp<WeightOp>() || input.size() < 2)
    return false;
  ArrayRef<int64_t> s = getShape(w);
  while (!s.empty() && s.front() == 1 && s.size() > input.size() - 1)
    s = s.drop_front();
  return s.size() == input.size() - 1 && s.front() == input[1] &&
         llvm::all_of(s.drop_front(), [](int64_t d) { return d == 1; });
}

/// A weight holding exactly the normalized dimensions (leading 1s aside).
bool isAffineFor(Value w, ArrayRef<int64_t> normalized) {
  if (!w.getDefiningOp<WeightOp>())
    return false;
  auto strip = [](ArrayRef<int64_t> s) {
    while (!s.empty() && s.front() == 1)
      s = s.drop_front();
    return s;
  };
  return strip(getShape(w)) == strip(normalized);
}

/// layernorm(x) * w + b (w, b weights of the normalized shape) becomes layernorm(x, w, b), groupnorm(x) * w + b
/// (per-channel weights) groupnorm(x, w, b); rmsnorm(x) * g becomes rmsnorm(x, g).
struct FoldNormAffine : RewritePattern {
  explicit FoldNormAffine(MLIRContext *context) : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    const bool isMul = isa<MulOp>(op), isAdd = isa<AddOp>(op);
    if ((!isMul && !isAdd) || op->getAttrOfType<BoolAttr>("do_relu").getValue())
      return failure();
    Type type = op->getResult(0).getType();
    for (auto [n, w] : {std::pair{op->getOperand(0), op->getOperand(1)}, std::pair{op->getOperand(1), op->getOperand(0)}}) {
      if (!n.hasOneUse() || n.getType() != type)
        continue;
      // layernorm and groupnorm take the weight as operand 1 and the bias as operand 2, rmsnorm its gamma as
      // operand 1: the fused op is the norm with `w` in that place.
      Operation *norm = n.getDefiningOp();
      bool fits = false;
      if (auto ln = dyn_cast_or_null<LayerNormOp>(norm)) {
        auto in = getShape(ln.getInput());
        int64_t axis = ln.getAxis() < 0 ? ln.getAxis() + static_cast<int64_t>(in.size()) : ln.getAxis();
        fits = isAffineFor(w, in.drop_front(axis)) && isNone(ln.getBias()) && (!isMul || isNone(ln.getWeight()));
      } else if (auto gn = dyn_cast_or_null<GroupNormOp>(norm)) {
        fits = isPerChannelFor(w, getShape(gn.getInput())) && isNone(gn.getBias()) &&
               (!isMul || isNone(gn.getWeight()));
      } else if (auto rms = dyn_cast_or_null<RMSNormOp>(norm)) {
        fits = isMul && isNone(rms.getGamma()) && isAffineFor(w, getShape(rms.getInput()).take_back(1));
      }
      if (!fits)
        continue;
      Operation *fused = rewriter.clone(*norm);
      fused->setOperand(isMul ? 1 : 2, w);
      fused->setLoc(rewriter.getFusedLoc({norm->getLoc(), op->getLoc()}));
      rewriter.replaceOp(op, fused->getResults());
      return success();
    }
    return failure();
  }
};

/// x scaled by `factor`: mul_const(x, factor) or div_const(x, 1 / factor).
Value scaledBy(Value v, double factor) {
  if (auto m = v.getDefiningOp<MulConstOp>(); m && !m.getDoRelu() && near(m.getConstVal().convertToDouble(), factor))
    return m.getInput();
  if (auto d = v.getDefiningOp<DivConstOp>();
      d && !d.getDoRelu() && !d.getIsReverse() && near(1.0 / d.getConstVal().convertToDouble(), factor))
    return d.getInput();
  return {};
}

/// `t` is 1 + erf(x / sqrt 2) or 1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3)): x and the approximation.
std::optional<std::pair<Value, GeluApprox>> geluGate(Value t) {
  auto one = t.getDefiningOp<AddConstOp>();
  if (!one || one.getDoRelu() || one.getIsReverse() || !near(one.getConstVal().convertToDouble(), 1.0))
    return std::nullopt;
  if (auto erf = one.getInput().getDefiningOp<ErfOp>())
    if (Value x = scaledBy(erf.getInput(), 1.0 / std::sqrt(2.0)))
      return std::pair{x, GeluApprox::none};
  if (auto tanh = one.getInput().getDefiningOp<TanhOp>()) {
    auto inner = scaledBy(tanh.getInput(), std::sqrt(2.0 / M_PI));
    auto sum = inner ? inner.getDefiningOp<AddOp>() : AddOp();
    if (!sum || sum.getDoRelu())
      return std::nullopt;
    for (auto [x, cube] : {std::pair{sum.getLhs(), sum.getRhs()}, std::pair{sum.getRhs(), sum.getLhs()}}) {
      Value c = scaledBy(cube, 0.044715);
      auto pow = c ? c.getDefiningOp<PowOp>() : PowOp();
      if (pow && pow.getInput() == x && near(pow.getExponent().convertToDouble(), 3.0))
        return std::pair{x, GeluApprox::tanh};
    }
  }
  return std::nullopt;
}

/// 0.5 * x * gate(x), in any of the orders exporters write it ((x * g) * 0.5, (0.5 x) * g, x * (0.5 g)),
/// becomes gelu(x) with the gate's approximation.
struct FuseGELU : RewritePattern {
  explicit FuseGELU(MLIRContext *context) : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    Type type = op->getResult(0).getType();
    auto fuse = [&](Value x, GeluApprox approx) {
      if (x.getType() != type)
        return failure();
      auto gelu = GELUOp::create(rewriter, op->getLoc(), type, x,
                                 GeluApproxAttr::get(rewriter.getContext(), approx));
      rewriter.replaceOp(op, gelu.getOutput());
      return success();
    };
    if (auto half = dyn_cast<MulConstOp>(op)) { // (x * g) * 0.5
      auto mul = half.getDoRelu() ? MulOp() : half.getInput().getDefiningOp<MulOp>();
      if (!mul || mul.getDoRelu() || !near(half.getConstVal().convertToDouble(), 0.5))
        return failure();
      for (auto [x, g] : {std::pair{mul.getLhs(), mul.getRhs()}, std::pair{mul.getRhs(), mul.getLhs()}})
        if (auto gate = geluGate(g); gate && gate->first == x)
          return fuse(x, gate->second);
      return failure();
    }
    auto mul = dyn_cast<MulOp>(op);
    if (!mul || mul.getDoRelu())
      return failure();
    for (auto [a, b] : {std::pair{mul.getLhs(), mul.getRhs()}, std::pair{mul.getRhs(), mul.getLhs()}}) {
      if (Value x = scaledBy(a, 0.5)) // (0.5 x) * g
        if (auto gate = geluGate(b); gate && gate->first == x)
          return fuse(x, gate->second);
      if (Value g = scaledBy(b, 0.5)) // x * (0.5 g)
        if (auto gate = geluGate(g); gate && gate->first == a)
          return fuse(a, gate->second);
    }
    return failure();
  }
};

/// x * relu6(x + 3) / 6, the spelled-out HardSwish of paddle2onnx and of ONNX exports before opset 14 (also
/// as a product with 1/6, or x * hard_sigmoid(x) with alpha 1/6 and beta 0.5), becomes top.hard_swish: one
/// lookup table in INT8 instead of a product of two quantized tensors and a rescale.
struct FuseHardSwish : RewritePattern {
  explicit FuseHardSwish(MLIRContext *context) : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  /// `gate` is relu6(x + 3) (an add_const of 3 with a relu limited to 6).
  static bool isRelu6Plus3(Value gate, Value x) {
    auto add = gate.getDefiningOp<AddConstOp>();
    return add && add.getInput() == x && near(add.getConstVal().convertToDouble(), 3.0) && add.getDoRelu() &&
           near(add.getReluLimit().convertToDouble(), 6.0);
  }

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    // The outer op: x*g / 6, x*g * (1/6), or the product with hard_sigmoid(x) itself.
    MulOp mul;
    SmallVector<Location> locs;
    if (auto div = dyn_cast<DivConstOp>(op)) {
      if (div.getDoRelu() || div.getIsReverse() || !near(div.getConstVal().convertToDouble(), 6.0))
        return failure();
      mul = div.getInput().getDefiningOp<MulOp>();
    } else if (auto scale = dyn_cast<MulConstOp>(op)) {
      if (scale.getDoRelu() || !near(scale.getConstVal().convertToDouble(), 1.0 / 6.0))
        return failure();
      mul = scale.getInput().getDefiningOp<MulOp>();
    } else if (auto product = dyn_cast<MulOp>(op); product && !product.getDoRelu()) {
      for (auto [x, gate] : {std::pair{product.getLhs(), product.getRhs()}, std::pair{product.getRhs(), product.getLhs()}})
        if (auto hs = gate.getDefiningOp<HardSigmoidOp>();
            hs && hs.getInput() == x && near(hs.getAlpha().convertToDouble(), 1.0 / 6.0) &&
            near(hs.getBeta().convertToDouble(), 0.5) && x.getType() == product.getType()) {
          auto fused = HardSwishOp::create(rewriter, rewriter.getFusedLoc({hs.getLoc(), product.getLoc()}),
                                           product.getType(), x);
          rewriter.replaceOp(product, fused.getOutput());
          if (hs->use_empty())
            rewriter.eraseOp(hs);
          return success();
        }
      return failure();
    } else {
      return failure();
    }
    if (!mul || mul.getDoRelu() || !mul->hasOneUse())
      return failure();
    for (auto [x, gate] : {std::pair{mul.getLhs(), mul.getRhs()}, std::pair{mul.getRhs(), mul.getLhs()}}) {
      if (!isRelu6Plus3(gate, x) || x.getType() != op->getResult(0).getType())
        continue;
      Operation *add = gate.getDefiningOp();
      auto fused = HardSwishOp::create(rewriter, rewriter.getFusedLoc({add->getLoc(), mul.getLoc(), op->getLoc()}),
                                       op->getResult(0).getType(), x);
      rewriter.replaceOp(op, fused.getOutput());
      rewriter.eraseOp(mul);
      if (add->use_empty())
        rewriter.eraseOp(add);
      return success();
    }
    return failure();
  }
};

/// x * tanh(log(1 + exp(x))), Mish as exports before opset 18 spell it (x * tanh(softplus(x)); the importer
/// writes Softplus as exp, + 1, log), becomes top.mish: one lookup table in INT8 instead of four.
struct FuseMish : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MulOp mul, PatternRewriter &rewriter) const override {
    if (mul.getDoRelu())
      return failure();
    for (auto [x, gate] : {std::pair{mul.getLhs(), mul.getRhs()}, std::pair{mul.getRhs(), mul.getLhs()}}) {
      auto tanh = gate.getDefiningOp<TanhOp>();
      auto log = tanh ? tanh.getInput().getDefiningOp<LogOp>() : LogOp();
      auto plusOne = log ? log.getInput().getDefiningOp<AddConstOp>() : AddConstOp();
      auto exp = plusOne ? plusOne.getInput().getDefiningOp<ExpOp>() : ExpOp();
      if (!exp || exp.getInput() != x || plusOne.getDoRelu() ||
          !near(plusOne.getConstVal().convertToDouble(), 1.0) || x.getType() != mul.getType())
        continue;
      SmallVector<Operation *> chain{tanh, log, plusOne, exp};
      auto fused = MishOp::create(
          rewriter,
          rewriter.getFusedLoc({exp.getLoc(), plusOne.getLoc(), log.getLoc(), tanh.getLoc(), mul.getLoc()}),
          mul.getType(), x);
      rewriter.replaceOp(mul, fused.getOutput());
      for (Operation *link : chain)
        if (link->use_empty())
          rewriter.eraseOp(link);
      return success();
    }
    return failure();
  }
};

/// A scalar factor folded out of `v`: mul_const(x, c) gives (x, c), div_const(x, c) gives (x, 1 / c); `v`
/// itself with 1 otherwise. Only a factor read once is taken (`taken` gets the op).
std::pair<Value, double> splitScale(Value v, SmallVectorImpl<Operation *> &taken) {
  if (auto mul = v.getDefiningOp<MulConstOp>(); mul && !mul.getDoRelu() && mul->hasOneUse()) {
    taken.push_back(mul);
    return {mul.getInput(), mul.getConstVal().convertToDouble()};
  }
  if (auto div = v.getDefiningOp<DivConstOp>(); div && !div.getDoRelu() && !div.getIsReverse() && div->hasOneUse()) {
    taken.push_back(div);
    return {div.getInput(), 1.0 / div.getConstVal().convertToDouble()};
  }
  return {v, 1.0};
}

/// Scaled-dot-product attention as exports spell it, heads split before the scores: on [B, H, L, D] (a
/// written-out block) or [B*H, L, D] (nn.MultiheadAttention) tensors,
/// matmul(softmax(matmul(q, kT) * scale [+ mask], axis -1), v), the scale a mul_const or div_const on the
/// scores or on q (or absent), the mask additive and the same for every head. Becomes top.attention, which
/// works on [B, L, H, D]: q, k (kT transposed back) and v are reshaped or permuted in and the result out;
/// the permutes compose with the export's own and fold away. On the chip one attention command instead of
/// five, and no INT8 scores.
struct FuseAttention : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  static bool plain(MatMulOp m) {
    return isNone(m.getBias()) && !m.getLeftTranspose() && !m.getRightTranspose() && !m.getDoRelu();
  }

  LogicalResult matchAndRewrite(MatMulOp pv, PatternRewriter &rewriter) const override {
    auto softmax = pv.getInput().getDefiningOp<SoftmaxOp>();
    Value v = pv.getRight();
    if (!plain(pv) || !softmax || softmax.getLog() || !softmax->hasOneUse())
      return failure();
    const int64_t rank = static_cast<int64_t>(getShape(v).size());
    if ((rank != 3 && rank != 4) || static_cast<int64_t>(getShape(softmax.getOutput()).size()) != rank ||
        (softmax.getAxis() != rank - 1 && softmax.getAxis() != -1))
      return failure();
    SmallVector<Operation *> chain{softmax};
    Value s = softmax.getInput(), mask;
    if (auto add = s.getDefiningOp<AddOp>(); add && !add.getDoRelu() && add->hasOneUse()) {
      // The mask is the operand that is not the (scaled) scores; it must not vary across heads.
      for (auto [scores, m] : {std::pair{add.getLhs(), add.getRhs()}, std::pair{add.getRhs(), add.getLhs()}}) {
        // Right-aligned with the scores, the heads axis (batch x heads at rank 3) is the third from the end.
        auto shape = getShape(m);
        if (scores.getType() != s.getType() || static_cast<int64_t>(shape.size()) > rank ||
            (shape.size() >= 3 && shape[shape.size() - 3] != 1))
          continue;
        if (!scores.getDefiningOp<MatMulOp>() && !scores.getDefiningOp<MulConstOp>() &&
            !scores.getDefiningOp<DivConstOp>())
          continue;
        s = scores;
        mask = m;
        chain.push_back(add);
        break;
      }
    }
    auto [scores, scoreScale] = splitScale(s, chain);
    auto qk = scores.getDefiningOp<MatMulOp>();
    if (!qk || !plain(qk) || !qk->hasOneUse())
      return failure();
    chain.push_back(qk);
    auto [q, queryScale] = splitScale(qk.getInput(), chain);
    double scale = scoreScale * queryScale;
    Value kT = qk.getRight();
    auto qs = getShape(q), kts = getShape(kT), vs = getShape(v);
    // The same heads for q, k and v as the scores see them (grouped KV arrives repeated; undone below), keys
    // and values of one length.
    if (static_cast<int64_t>(qs.size()) != rank || static_cast<int64_t>(kts.size()) != rank ||
        qs.drop_back(2) != kts.drop_back(2) || qs.drop_back(2) != vs.drop_back(2) || qs.back() != kts[rank - 2] ||
        kts.back() != vs[rank - 2] || !std::isfinite(scale))
      return failure();
    Location loc = pv.getLoc();
    Type element = mlir::getElementTypeOrSelf(pv.getType());
    // Helper tensors are named after the result: <output>_q, <output>_attention, ...
    const std::string base = resultName(pv.getOutput());
    auto named = [&](StringRef part, Location child) {
      return NameLoc::get(rewriter.getStringAttr(base + "_" + part.str()), child);
    };
    // A permute of `x`, composed with the permute that made `x` (none at all when they cancel).
    auto permute = [&](Value x, ArrayRef<int64_t> order, StringRef part) -> Value {
      SmallVector<int64_t> composed(order);
      if (auto inner = x.getDefiningOp<PermuteOp>()) {
        for (int64_t &a : composed)
          a = inner.getOrder()[a];
        x = inner.getInput();
      }
      if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())))
        return x;
      auto shape = getShape(x);
      SmallVector<int64_t> out;
      for (int64_t a : composed)
        out.push_back(shape[a]);
      return PermuteOp::create(rewriter, named(part, loc), RankedTensorType::get(out, element), x,
                               rewriter.getDenseI64ArrayAttr(composed))
          .getOutput();
    };
    auto reshape = [&](Value x, ArrayRef<int64_t> shape, StringRef part) -> Value {
      return ReshapeOp::create(rewriter, named(part, loc), RankedTensorType::get(shape, element), x).getOutput();
    };
    // [B, H, L, D] -> [B, L, H, D]; at rank 3, [B*H, L, D] -> [1, L, B*H, D], which is a reshape when the
    // export made it by permuting a sequence-first [L, B*H, D] (nn.MultiheadAttention).
    auto toTokens = [&](Value x, StringRef part) -> Value {
      if (rank == 4)
        return permute(x, {0, 2, 1, 3}, part);
      auto shape = getShape(x);
      if (auto seqFirst = x.getDefiningOp<PermuteOp>(); seqFirst && seqFirst.getOrder() == ArrayRef<int64_t>{1, 0, 2})
        return reshape(seqFirst.getInput(), {1, shape[1], shape[0], shape[2]}, part);
      return permute(reshape(x, {1, shape[0], shape[1], shape[2]}, (part + "_heads").str()), {0, 2, 1, 3}, part);
    };
    Value k = permute(kT, rank == 4 ? ArrayRef<int64_t>{0, 1, 3, 2} : ArrayRef<int64_t>{0, 2, 1}, "kT");
    // Grouped KV heads as exports spell them (HuggingFace's repeat_kv: x[:, :, None].expand(B, Hkv, n, L,
    // D).reshape(B, Hkv * n, L, D), imported as n copies concatenated on the new axis): top.attention shares
    // each KV head among n query heads itself, so it takes the Hkv heads and the copies go.
    auto repeated = [&](Value x) -> std::pair<Value, int64_t> {
      auto merge = x.getDefiningOp<ReshapeOp>();
      auto copies = merge ? merge.getInput().getDefiningOp<ConcatOp>() : ConcatOp();
      if (rank != 4 || !copies || copies.getAxis() != 2 || copies.getDoRelu() ||
          copies.getInputs().size() < 2 || !llvm::all_equal(copies.getInputs()))
        return {Value(), 0};
      Value one = copies.getInputs().front();
      auto os = getShape(one);
      int64_t n = static_cast<int64_t>(copies.getInputs().size());
      auto xs = getShape(x); // the reshape must merge the KV heads with their copies, nothing else
      if (os.size() != 5 || os[2] != 1 || xs[0] != os[0] || xs[1] != os[1] * n || xs[2] != os[3] ||
          xs[3] != os[4])
        return {Value(), 0};
      return {one, n};
    };
    if (auto [kOne, kN] = repeated(k); kOne)
      if (auto [vOne, vN] = repeated(v); vOne && vN == kN && getShape(kOne) == getShape(vOne)) {
        auto os = getShape(kOne);
        k = reshape(kOne, {os[0], os[1], os[3], os[4]}, "k_heads");
        v = reshape(vOne, {os[0], os[1], os[3], os[4]}, "v_heads");
      }
    Value qt = toTokens(q, "q"), kt = toTokens(k, "k"), vt = toTokens(v, "v");
    if (!mask)
      mask = NoneOp::create(rewriter, loc, rewriter.getNoneType());
    auto qts = getShape(qt);
    auto out = RankedTensorType::get({qts[0], qts[1], qts[2], vs.back()}, element);
    SmallVector<Location> locs;
    for (Operation *link : llvm::reverse(chain))
      locs.push_back(link->getLoc());
    auto attention = AttentionOp::create(rewriter, named("attention", rewriter.getFusedLoc(locs)), out, qt, kt, vt,
                                         mask, rewriter.getF64FloatAttr(scale));
    // Back to [B, H, L, D]; at rank 3 through the sequence-first [L, B*H, D], so that an export's permute to
    // sequence-first after it cancels.
    Value back;
    if (rank == 4) {
      back = PermuteOp::create(rewriter, loc, pv.getType(), attention.getOutput(),
                               rewriter.getDenseI64ArrayAttr({0, 2, 1, 3}))
                 .getOutput();
    } else {
      Value seqFirst = reshape(attention.getOutput(), {qts[1], qts[2], vs.back()}, "tokens");
      back = PermuteOp::create(rewriter, loc, pv.getType(), seqFirst, rewriter.getDenseI64ArrayAttr({1, 0, 2}))
                 .getOutput();
    }
    rewriter.replaceOp(pv, back);
    for (Operation *link : chain)
      if (link->use_empty())
        rewriter.eraseOp(link);
    return success();
  }
};

} // namespace

namespace tpuc::top {

void populateAttentionFusionPatterns(RewritePatternSet &patterns) {
  patterns.add<FuseAttention>(patterns.getContext());
}

void populateNormFusionPatterns(RewritePatternSet &patterns) {
  patterns.add<FuseDecomposedNorm, FoldNormAffine, FuseReshapedInstanceNorm>(patterns.getContext());
}

void populateGeluFusionPatterns(RewritePatternSet &patterns) { patterns.add<FuseGELU>(patterns.getContext()); }

void populateMishFusionPatterns(RewritePatternSet &patterns) { patterns.add<FuseMish>(patterns.getContext()); }

void populateHardSwishFusionPatterns(RewritePatternSet &patterns) {
  patterns.add<FuseHardSwish>(patterns.getContext());
}

} // namespace tpuc::top
