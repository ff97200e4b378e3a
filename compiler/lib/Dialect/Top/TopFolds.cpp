//===- TopFolds.cpp - Folds and canonicalization patterns of Top ----------===//
// Folds return existing values or attributes (identity reshapes and permutes, constant shape
// computations); rewrites that build new ops (BatchNorm into Conv, Relu into its producer) are patterns.
//===----------------------------------------------------------------------===//
#include "TopFusions.h"
#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Top/WeightStore.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tpuc::top;

namespace {

/// Elements of a constant operand as seen by a folder, or empty when it is not a dense constant.
SmallVector<Attribute> constantElements(Attribute attr) {
  auto dense = dyn_cast_if_present<DenseElementsAttr>(attr);
  if (!dense)
    return {};
  return SmallVector<Attribute>(dense.getValues<Attribute>());
}

/// Builds a constant of `type` from elements of the same element type; null if it would be too large to
/// inline.
Attribute makeConstant(Type type, ArrayRef<Attribute> values) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType || (int64_t)values.size() > WeightOp::kMaxInlineElements)
    return {};
  return DenseElementsAttr::get(tensorType, values);
}

/// Row-major strides of a shape.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = (int64_t)shape.size() - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Multi-index of flat position `flat` in `shape`.
SmallVector<int64_t> unflatten(int64_t flat, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> index(shape.size());
  for (int64_t i = (int64_t)shape.size() - 1; i >= 0; --i) {
    index[i] = shape[i] ? flat % shape[i] : 0;
    flat = shape[i] ? flat / shape[i] : 0;
  }
  return index;
}

int64_t flatten(ArrayRef<int64_t> index, ArrayRef<int64_t> strides) {
  int64_t flat = 0;
  for (auto [i, s] : llvm::zip(index, strides))
    flat += i * s;
  return flat;
}

/// Folds a pure re-view (reshape, squeeze, unsqueeze): identity, constant, or a chain of re-views.
OpFoldResult foldReshapeLike(Operation *op, Attribute input) {
  Value in = op->getOperand(0), out = op->getResult(0);
  if (in.getType() == out.getType())
    return in;
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(input))
    if (dense.getNumElements() <= WeightOp::kMaxInlineElements)
      return dense.reshape(cast<ShapedType>(out.getType()));
  // A re-view of a re-view reads the original tensor directly.
  if (Operation *producer = in.getDefiningOp();
      producer && isa<ReshapeOp, SqueezeOp, UnsqueezeOp>(producer) && isa<ReshapeOp>(op)) {
    op->setOperand(0, producer->getOperand(0));
    return out;
  }
  return {};
}

} // namespace

//===--- folders ------------------------------------------------------------===//

OpFoldResult WeightOp::fold(FoldAdaptor) {
  if (auto value = getValue())
    return *value;
  return WeightRefAttr::get(getContext(), getName(), getType());
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) { return foldReshapeLike(*this, adaptor.getInput()); }
OpFoldResult SqueezeOp::fold(FoldAdaptor adaptor) { return foldReshapeLike(*this, adaptor.getInput()); }
OpFoldResult UnsqueezeOp::fold(FoldAdaptor adaptor) {
  return foldReshapeLike(*this, adaptor.getInput());
}

OpFoldResult PermuteOp::fold(FoldAdaptor) {
  auto order = getOrder();
  if (llvm::equal(order, llvm::seq<int64_t>(0, order.size())))
    return getInput();
  // permute(permute(x, a), b) == permute(x, a[b[i]]).
  if (auto inner = getInput().getDefiningOp<PermuteOp>()) {
    SmallVector<int64_t> composed;
    for (int64_t axis : order)
      composed.push_back(inner.getOrder()[axis]);
    setOrder(composed);
    getInputMutable().assign(inner.getInput());
    if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())) &&
        getInput().getType() == getType())
      return getInput();
    return getResult();
  }
  return {};
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput());
  if (!dense || dense.getNumElements() > WeightOp::kMaxInlineElements)
    return {};
  Type to = cast<ShapedType>(getType()).getElementType();
  SmallVector<Attribute> values;
  // Unsigned (and i1) sources zero-extend: ui8 200 is 200, not -56.
  Type from = dense.getElementType();
  bool zext = from.isUnsignedInteger() || from.isInteger(1);
  for (Attribute v : dense.getValues<Attribute>()) {
    double x = isa<FloatAttr>(v)  ? cast<FloatAttr>(v).getValueAsDouble()
               : zext             ? (double)cast<IntegerAttr>(v).getValue().getZExtValue()
                                  : (double)cast<IntegerAttr>(v).getValue().getSExtValue();
    if (auto ft = dyn_cast<FloatType>(to))
      values.push_back(FloatAttr::get(ft, x));
    else if (to.isInteger(1))
      values.push_back(IntegerAttr::get(to, x != 0 ? 1 : 0));
    else if (auto it = dyn_cast<IntegerType>(to))
      values.push_back(IntegerAttr::get(it, (int64_t)x)); // truncation toward zero, as ONNX Cast
    else
      return {};
  }
  return makeConstant(getType(), values);
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1 && !getDoRelu())
    return getInputs()[0];
  auto outShape = getShape(getOutput());
  if (getNumElements(outShape) > WeightOp::kMaxInlineElements || getDoRelu())
    return {};
  int64_t axis = getAxis() < 0 ? getAxis() + outShape.size() : getAxis();
  SmallVector<SmallVector<Attribute>> parts;
  for (Attribute a : adaptor.getInputs()) {
    if (!isa_and_present<DenseElementsAttr>(a))
      return {};
    parts.push_back(constantElements(a));
  }
  // Each input contributes `outer` runs of (its axis size * inner) consecutive elements.
  int64_t outer = getNumElements(outShape.take_front(axis));
  int64_t inner = getNumElements(outShape.drop_front(axis + 1));
  SmallVector<Attribute> values;
  for (int64_t o = 0; o < outer; ++o)
    for (auto [part, input] : llvm::zip(parts, getInputs())) {
      int64_t run = getShape(input)[axis] * inner;
      values.append(part.begin() + o * run, part.begin() + (o + 1) * run);
    }
  return makeConstant(getType(), values);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() && llvm::all_of(getOffset(), [](int64_t v) { return v == 0; }) &&
      llvm::all_of(getSteps(), [](int64_t v) { return v == 1; }))
    return getInput();
  SmallVector<Attribute> in = constantElements(adaptor.getInput());
  if (in.empty())
    return {};
  auto inStrides = stridesOf(getShape(getInput()));
  auto outShape = getShape(getOutput());
  SmallVector<Attribute> values;
  for (int64_t flat = 0, n = getNumElements(outShape); flat < n; ++flat) {
    auto index = unflatten(flat, outShape);
    for (size_t i = 0; i < index.size(); ++i)
      index[i] = getOffset()[i] + index[i] * getSteps()[i];
    values.push_back(in[flatten(index, inStrides)]);
  }
  return makeConstant(getType(), values);
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  SmallVector<Attribute> in = constantElements(adaptor.getInput());
  SmallVector<Attribute> indices = constantElements(adaptor.getIndices());
  if (in.empty() || indices.empty())
    return {};
  auto inShape = getShape(getInput());
  int64_t axis = getAxis() < 0 ? getAxis() + inShape.size() : getAxis();
  int64_t outer = getNumElements(inShape.take_front(axis));
  int64_t inner = getNumElements(inShape.drop_front(axis + 1));
  int64_t dim = inShape[axis];
  SmallVector<Attribute> values;
  for (int64_t o = 0; o < outer; ++o)
    for (Attribute idxAttr : indices) {
      int64_t idx = isa<IntegerAttr>(idxAttr) ? cast<IntegerAttr>(idxAttr).getValue().getSExtValue()
                                              : (int64_t)cast<FloatAttr>(idxAttr).getValueAsDouble();
      if (idx < 0)
        idx += dim;
      if (idx < 0 || idx >= dim)
        return {}; // out of range: leave it to the interpreter to report
      values.append(in.begin() + (o * dim + idx) * inner, in.begin() + (o * dim + idx + 1) * inner);
    }
  return makeConstant(getType(), values);
}

OpFoldResult ArangeOp::fold(FoldAdaptor) {
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!type)
    return {};
  int64_t n = getNumElements(type.getShape());
  if (n > WeightOp::kMaxInlineElements)
    return {};
  double start = getStart().convertToDouble(), delta = getDelta().convertToDouble();
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < n; ++i) {
    double v = start + i * delta;
    if (auto ft = dyn_cast<FloatType>(type.getElementType()))
      values.push_back(FloatAttr::get(ft, v));
    else
      values.push_back(IntegerAttr::get(type.getElementType(), (int64_t)v));
  }
  return makeConstant(type, values);
}

/// x + 0 and x * 1 are x; on a constant the arithmetic is done here.
template <typename Op>
static OpFoldResult foldConstArith(Op op, Attribute input, double identity,
                                   double (*fn)(double, double)) {
  double c = op.getConstVal().convertToDouble();
  if (op.getDoRelu())
    return {};
  if (c == identity && op.getInput().getType() == op.getType())
    return op.getInput();
  auto dense = dyn_cast_if_present<DenseElementsAttr>(input);
  auto ft = dyn_cast<FloatType>(cast<ShapedType>(op.getType()).getElementType());
  if (!dense || !ft)
    return {};
  SmallVector<Attribute> values;
  for (const APFloat &v : dense.getValues<APFloat>())
    values.push_back(FloatAttr::get(ft, fn(v.convertToDouble(), c)));
  return makeConstant(op.getType(), values);
}

OpFoldResult AddConstOp::fold(FoldAdaptor adaptor) {
  return foldConstArith(*this, adaptor.getInput(), 0.0, [](double x, double c) { return x + c; });
}
OpFoldResult MulConstOp::fold(FoldAdaptor adaptor) {
  return foldConstArith(*this, adaptor.getInput(), 1.0, [](double x, double c) { return x * c; });
}

//===--- canonicalization patterns ------------------------------------------===//

namespace {

/// conv -> batchnorm becomes one conv with scaled filter and shifted bias:
///   s = gamma / sqrt(var + eps), w' = w * s[o], b' = (b - mean) * s + beta.
struct FoldBatchNormIntoConv : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp bn, PatternRewriter &rewriter) const override {
    auto conv = bn.getInput().getDefiningOp<ConvOp>();
    if (!conv || !conv->hasOneUse() || conv.getDoRelu())
      return rewriter.notifyMatchFailure(bn, "input is not a conv used only here without relu");
    auto weightOf = [](Value v) { return v.getDefiningOp<WeightOp>(); };
    auto filterOp = weightOf(conv.getFilter());
    if (!filterOp || !weightOf(bn.getMean()) || !weightOf(bn.getVariance()) ||
        (!isNone(bn.getGamma()) && !weightOf(bn.getGamma())) ||
        (!isNone(bn.getBeta()) && !weightOf(bn.getBeta())) ||
        (!isNone(conv.getBias()) && !weightOf(conv.getBias())))
      return rewriter.notifyMatchFailure(bn, "parameters are not all weights");

    auto read = [&](Value v, int64_t n, float fill) -> FailureOr<std::vector<float>> {
      if (isNone(v))
        return std::vector<float>(n, fill);
      return readWeightF32(weightOf(v));
    };
    auto filter = readWeightF32(filterOp);
    int64_t channels = getShape(conv.getFilter())[0];
    auto mean = read(bn.getMean(), channels, 0), var = read(bn.getVariance(), channels, 1),
         gamma = read(bn.getGamma(), channels, 1), beta = read(bn.getBeta(), channels, 0),
         bias = read(conv.getBias(), channels, 0);
    if (failed(filter) || failed(mean) || failed(var) || failed(gamma) || failed(beta) || failed(bias))
      return failure();

    double eps = bn.getEpsilon().convertToDouble();
    int64_t perChannel = filter->size() / channels;
    std::vector<float> newBias(channels);
    for (int64_t c = 0; c < channels; ++c) {
      double s = (*gamma)[c] / std::sqrt((double)(*var)[c] + eps);
      for (int64_t i = 0; i < perChannel; ++i)
        (*filter)[c * perChannel + i] = static_cast<float>((*filter)[c * perChannel + i] * s);
      newBias[c] = static_cast<float>(((*bias)[c] - (*mean)[c]) * s + (*beta)[c]);
    }

    rewriter.setInsertionPoint(conv);
    std::string base = filterOp.getName().str();
    Location loc = rewriter.getFusedLoc({conv.getLoc(), bn.getLoc()});
    auto newFilter =
        createWeightF32(rewriter, filterOp.getLoc(), base + "_bn", getShape(conv.getFilter()), *filter);
    auto newBiasOp = createWeightF32(rewriter, filterOp.getLoc(), base + "_bn_bias", {channels}, newBias);
    if (failed(newFilter) || failed(newBiasOp))
      return failure();
    auto fused = ConvOp::create(rewriter, loc, bn.getType(), conv.getInput(), newFilter->getOutput(),
                                newBiasOp->getOutput(), conv.getKernelShapeAttr(), conv.getStridesAttr(),
                                conv.getPadsAttr(), conv.getDilationsAttr(), conv.getGroupAttr(),
                                bn.getDoReluAttr(), bn.getReluLimitAttr());
    rewriter.replaceOp(bn, fused.getOutput());
    rewriter.eraseOp(conv);
    return success();
  }
};

/// relu(x) becomes x's producer with `do_relu` set, when the producer supports a fused relu and has no
/// other user.
struct FuseReluIntoProducer : OpRewritePattern<ReluOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReluOp relu, PatternRewriter &rewriter) const override {
    Operation *producer = relu.getInput().getDefiningOp();
    if (!producer || !producer->hasOneUse() || producer->getNumResults() != 1 ||
        !isa<TopDialect>(producer->getDialect()))
      return rewriter.notifyMatchFailure(relu, "producer is shared or not a Top op");
    auto names = producer->getRegisteredInfo()->getAttributeNames();
    if (!llvm::is_contained(names, "do_relu") || !llvm::is_contained(names, "relu_limit"))
      return rewriter.notifyMatchFailure(relu, "producer cannot fuse a relu");
    if (auto flag = dyn_cast_if_present<BoolAttr>(producer->getInherentAttr("do_relu").value_or(nullptr));
        flag && flag.getValue())
      return rewriter.notifyMatchFailure(relu, "producer already applies a relu");
    rewriter.modifyOpInPlace(producer, [&] {
      producer->setInherentAttr(rewriter.getStringAttr("do_relu"), rewriter.getBoolAttr(true));
      producer->setInherentAttr(rewriter.getStringAttr("relu_limit"), relu.getReluLimitAttr());
      producer->setLoc(rewriter.getFusedLoc({producer->getLoc(), relu.getLoc()}));
    });
    rewriter.replaceOp(relu, producer->getResults());
    return success();
  }
};

/// x * sigmoid(x) (PyTorch exports nn.SiLU so, before opset 24 had Swish) becomes silu(x): one op and, in
/// INT8, one lookup table instead of a product of two quantized tensors whose error grows with x's range.
/// The sigmoid stays if something else reads it.
struct FuseSigmoidMulIntoSiLU : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MulOp mul, PatternRewriter &rewriter) const override {
    if (mul.getDoRelu())
      return rewriter.notifyMatchFailure(mul, "the product applies a relu");
    for (auto [x, gate] : {std::pair{mul.getLhs(), mul.getRhs()}, std::pair{mul.getRhs(), mul.getLhs()}}) {
      auto sigmoid = gate.getDefiningOp<SigmoidOp>();
      if (!sigmoid || sigmoid.getInput() != x || x.getType() != mul.getType())
        continue;
      auto silu = SiLUOp::create(rewriter, rewriter.getFusedLoc({sigmoid.getLoc(), mul.getLoc()}), mul.getType(), x);
      rewriter.replaceOp(mul, silu.getOutput());
      if (sigmoid->use_empty())
        rewriter.eraseOp(sigmoid);
      return success();
    }
    return rewriter.notifyMatchFailure(mul, "not x * sigmoid(x)");
  }
};

/// A permute that moves only axes of extent 1 (the other axes keep their order) moves no element: it is a
/// reshape, which the chip does in place. A sequence-first export's transposes at batch 1 are such:
/// [1, 128, 768] -> [128, 1, 768].
struct UnitPermuteIsReshape : OpRewritePattern<PermuteOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PermuteOp op, PatternRewriter &rewriter) const override {
    auto shape = getShape(op.getInput());
    int64_t previous = -1;
    for (int64_t axis : op.getOrder()) {
      if (shape[axis] == 1)
        continue;
      if (axis < previous)
        return rewriter.notifyMatchFailure(op, "moves an axis longer than 1 past another");
      previous = axis;
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput());
    return success();
  }
};

/// The element count of a weight of shape [N] or [1, ..., 1, N]; 0 for anything else.
int64_t lastAxisVector(Value v) {
  auto shape = getShape(v);
  if (shape.empty() || !v.getDefiningOp<WeightOp>())
    return 0;
  for (int64_t d : shape.drop_back())
    if (d != 1)
      return 0;
  return shape.back();
}

/// matmul(x, W) + b, with b a weight along the result's last axis (a Linear exported as MatMul then Add),
/// is one matmul with bias b: the add never runs as an op of its own.
struct FoldBiasAddIntoMatMul : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AddOp add, PatternRewriter &rewriter) const override {
    for (auto [product, bias] :
         {std::pair{add.getLhs(), add.getRhs()}, std::pair{add.getRhs(), add.getLhs()}}) {
      auto matmul = product.getDefiningOp<MatMulOp>();
      if (!matmul || !matmul->hasOneUse() || !isNone(matmul.getBias()) || matmul.getDoRelu() ||
          matmul.getType() != add.getType())
        continue;
      int64_t n = getShape(add.getOutput()).back();
      if (lastAxisVector(bias) != n || !cast<ShapedType>(bias.getType()).getElementType().isF32())
        continue;
      Value vector = bias;
      if (getShape(bias).size() != 1) {
        auto data = readWeightF32(bias.getDefiningOp<WeightOp>());
        if (failed(data))
          return failure();
        rewriter.setInsertionPoint(matmul);
        auto flat = createWeightF32(rewriter, bias.getLoc(),
                                    bias.getDefiningOp<WeightOp>().getName().str() + "_vector", {n}, *data);
        if (failed(flat))
          return failure();
        vector = flat->getOutput();
      }
      rewriter.setInsertionPoint(add);
      SmallVector<NamedAttribute> attrs(matmul->getAttrs());
      auto fused = MatMulOp::create(rewriter, rewriter.getFusedLoc({matmul.getLoc(), add.getLoc()}),
                                    TypeRange{add.getType()},
                                    ValueRange{matmul.getInput(), matmul.getRight(), vector}, attrs);
      fused.setDoRelu(add.getDoRelu());
      fused.setReluLimit(add.getReluLimit());
      rewriter.replaceOp(add, fused.getOutput());
      rewriter.eraseOp(matmul);
      return success();
    }
    return rewriter.notifyMatchFailure(add, "not a matmul plus a weight along its last axis");
  }
};

/// A matmul with a weight whose result is only read in column slices (a fused QKV projection cut into q, k
/// and v) is one matmul per slice with those columns of the weight and bias: the slices (strided DDR copies
/// on the chip) go away, and each product is named after the slice it produces.
struct SplitMatMulBySlices : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatMulOp op, PatternRewriter &rewriter) const override {
    auto weightOp = op.getRight().getDefiningOp<WeightOp>();
    auto rShape = getShape(op.getRight());
    auto out = getShape(op.getOutput());
    if (!weightOp || op.getLeftTranspose() || rShape.size() != 2 || out.size() < 2 || op->use_empty() ||
        !cast<ShapedType>(op.getRight().getType()).getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "not a matmul with a 2-D float weight");
    if (!isNone(op.getBias()) && lastAxisVector(op.getBias()) != out.back())
      return rewriter.notifyMatchFailure(op, "bias is not a weight along the last axis");
    const size_t last = out.size() - 1;
    SmallVector<SliceOp> slices;
    for (Operation *user : op->getUsers()) {
      auto slice = dyn_cast<SliceOp>(user);
      if (!slice)
        return rewriter.notifyMatchFailure(op, "a user is not a slice");
      auto offset = slice.getOffset(), ends = slice.getEnds(), steps = slice.getSteps();
      if (offset.size() != out.size() || llvm::any_of(steps, [](int64_t s) { return s != 1; }))
        return rewriter.notifyMatchFailure(op, "a slice steps");
      for (size_t d = 0; d < last; ++d)
        if (offset[d] != 0 || ends[d] != out[d])
          return rewriter.notifyMatchFailure(op, "a slice cuts an axis before the last");
      if (offset[last] < 0 || ends[last] > out[last] || offset[last] >= ends[last])
        return rewriter.notifyMatchFailure(op, "a slice's columns are out of range");
      slices.push_back(slice);
    }
    auto weight = readWeightF32(weightOp);
    if (failed(weight))
      return failure();
    std::optional<std::vector<float>> bias;
    if (!isNone(op.getBias())) {
      auto read = readWeightF32(op.getBias().getDefiningOp<WeightOp>());
      if (failed(read))
        return failure();
      bias = std::move(*read);
    }
    const bool transposed = op.getRightTranspose(); // weight [N, K] instead of [K, N]
    const int64_t rows = rShape[0], cols = rShape[1];
    for (SliceOp slice : slices) {
      const int64_t begin = slice.getOffset()[last], end = slice.getEnds()[last], width = end - begin;
      std::vector<float> part;
      SmallVector<int64_t> partShape;
      if (transposed) {
        part.assign(weight->begin() + begin * cols, weight->begin() + end * cols);
        partShape = {width, cols};
      } else {
        for (int64_t r = 0; r < rows; ++r)
          part.insert(part.end(), weight->begin() + r * cols + begin, weight->begin() + r * cols + end);
        partShape = {rows, width};
      }
      rewriter.setInsertionPoint(slice);
      const std::string suffix = "_cols" + std::to_string(begin) + "_" + std::to_string(end);
      auto w =
          createWeightF32(rewriter, weightOp.getLoc(), weightOp.getName().str() + suffix, partShape, part);
      if (failed(w))
        return failure();
      Value b = op.getBias();
      if (bias) {
        std::vector<float> cut(bias->begin() + begin, bias->begin() + end);
        auto bw =
            createWeightF32(rewriter, op.getBias().getLoc(),
                            op.getBias().getDefiningOp<WeightOp>().getName().str() + suffix, {width}, cut);
        if (failed(bw))
          return failure();
        b = bw->getOutput();
      }
      SmallVector<NamedAttribute> attrs(op->getAttrs());
      auto product =
          MatMulOp::create(rewriter, rewriter.getFusedLoc({op.getLoc(), slice.getLoc()}),
                           TypeRange{slice.getType()}, ValueRange{op.getInput(), w->getOutput(), b}, attrs);
      rewriter.replaceOp(slice, product.getOutput());
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// How many rows of a matmul's [..., rows, K] activation the chips' NCHW view puts on the lanes: dim 1
/// when the rank is 3 or more (C of the view), none otherwise ([M, K] puts K there).
int64_t rowsOnLanes(ArrayRef<int64_t> shape) { return shape.size() >= 3 ? shape[1] : 1; }

/// A matmul with a 2-D weight maps rows to rows: which axes hold them changes no number. A
/// sequence-first export reshapes [1, M, K] to [M, 1, K] (or [M, K]) around its projections, which puts
/// every row on one lane of the chips' NCHW view (docs/BACKEND.md, "Row groups"); the matmul then reads
/// the reshape's input instead (the reshape moves below it as `<name>_view`: the matmul keeps its name
/// and computes the same values in the other shape), or writes the shape its result is reshaped to (that
/// reshape moves above it as `<name>_input`: the matmul produces the reshape's tensor and takes its
/// name), whichever puts more rows on the lanes (the latter first). Reshapes of reshapes fold, so a
/// projection between two such reshapes reads and writes the row layout and joins the row groups next to
/// it; a graph output's tensor keeps its name and shape.
struct MatMulRowsOnLanes : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatMulOp op, PatternRewriter &rewriter) const override {
    auto out = getShape(op.getOutput());
    if (op.getLeftTranspose() || getShape(op.getRight()).size() != 2 || out.size() < 2 ||
        !op.getRight().getDefiningOp<WeightOp>() ||
        (!isNone(op.getBias()) && getShape(op.getBias()).size() != 1))
      return rewriter.notifyMatchFailure(op, "not a matmul of rows by a 2-D weight");
    const int64_t k = getShape(op.getInput()).back(), n = out.back();
    auto retyped = [](Value like, ArrayRef<int64_t> rows, int64_t last) {
      SmallVector<int64_t> shape(rows.begin(), rows.end());
      shape.back() = last;
      return RankedTensorType::get(shape, cast<ShapedType>(like.getType()).getElementType());
    };
    if (op->hasOneUse())
      if (auto reshape = dyn_cast<ReshapeOp>(*op->getUsers().begin())) {
        auto target = getShape(reshape.getOutput());
        if (target.size() >= 2 && target.back() == n && rowsOnLanes(target) > rowsOnLanes(out)) {
          rewriter.setInsertionPoint(reshape);
          Location loc =
              NameLoc::get(rewriter.getStringAttr(resultName(reshape.getOutput()) + "_input"), op.getLoc());
          auto input = ReshapeOp::create(rewriter, loc, retyped(op.getInput(), target, k), op.getInput());
          auto product = MatMulOp::create(
              rewriter, rewriter.getFusedLoc({op.getLoc(), reshape.getLoc()}), TypeRange{reshape.getType()},
              ValueRange{input.getOutput(), op.getRight(), op.getBias()}, op->getAttrs());
          rewriter.replaceOp(reshape, product.getOutput());
          rewriter.eraseOp(op);
          return success();
        }
      }
    // Moved behind a reshape only when every user re-views it (the heads' reshape of a projection): a
    // graph output keeps its name on the tensor of its shape, and a user reshape to the moved matmul's
    // own shape would fold away and lose its tensor's name.
    if (auto reshape = op.getInput().getDefiningOp<ReshapeOp>()) {
      auto source = getShape(reshape.getInput());
      auto type = retyped(op.getOutput(), source, n);
      const bool views = llvm::all_of(op->getUsers(), [&](Operation *u) {
        return isa<ReshapeOp>(u) && u->getResult(0).getType() != type;
      });
      if (views && !op->use_empty() && source.size() >= 2 && source.back() == k &&
          rowsOnLanes(source) > rowsOnLanes(getShape(op.getInput()))) {
        rewriter.setInsertionPoint(op);
        auto product =
            MatMulOp::create(rewriter, op.getLoc(), TypeRange{type},
                             ValueRange{reshape.getInput(), op.getRight(), op.getBias()}, op->getAttrs());
        Location loc =
            NameLoc::get(rewriter.getStringAttr(resultName(op.getOutput()) + "_view"), op.getLoc());
        auto view = ReshapeOp::create(rewriter, loc, op.getType(), product.getOutput());
        rewriter.replaceOp(op, view.getOutput());
        return success();
      }
    }
    return rewriter.notifyMatchFailure(op, "no reshape puts more rows on the lanes");
  }
};

} // namespace

void PermuteOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<UnitPermuteIsReshape>(context);
}

void DivConstOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *) {
  populateHardSwishFusionPatterns(patterns);
}

void MulConstOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *) {
  populateHardSwishFusionPatterns(patterns);
  populateGeluFusionPatterns(patterns);
}

void MulOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<FuseSigmoidMulIntoSiLU>(context);
  populateMishFusionPatterns(patterns);
  populateHardSwishFusionPatterns(patterns);
  populateNormFusionPatterns(patterns);
  populateGeluFusionPatterns(patterns);
}

void DivOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *) {
  populateNormFusionPatterns(patterns);
}

void AddOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  populateNormFusionPatterns(patterns);
  patterns.add<FoldBiasAddIntoMatMul>(context);
}

void MatMulOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  populateAttentionFusionPatterns(patterns);
  patterns.add<SplitMatMulBySlices, MatMulRowsOnLanes>(context);
}

void ConvOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<FoldBatchNormIntoConv>(context);
}

void ReluOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<FuseReluIntoProducer>(context);
}
