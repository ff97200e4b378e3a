//===- TopShapes.cpp - Shape rules of the Top ops -------------------------===//
// ShapeInterface::computeOutputShapes for every Top op. These rules are also the ops' shape verifiers, so
// each failure names the operand or attribute at fault.
//===----------------------------------------------------------------------===//
#include "tpuc/Dialect/Top/TopOps.h"

#include <numeric>

using namespace mlir;
using namespace tpuc::top;

using Shapes = llvm::SmallVectorImpl<llvm::SmallVector<int64_t>>;

namespace {

SmallVector<int64_t> toVec(ArrayRef<int64_t> shape) { return SmallVector<int64_t>(shape); }

/// Normalizes a possibly negative axis into [0, rank); fails with a message naming `what`.
FailureOr<int64_t> normalizeAxis(Operation *op, int64_t axis, int64_t rank, StringRef what) {
  int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized >= rank) {
    op->emitOpError() << "'" << what << "' " << axis << " is out of range for rank " << rank;
    return failure();
  }
  return normalized;
}

/// Checks the spatial attributes of conv/pool-like ops against the number of spatial axes.
LogicalResult checkWindowAttrs(Operation *op, int64_t spatial, ArrayRef<int64_t> kernel,
                               ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                               std::optional<ArrayRef<int64_t>> dilations = std::nullopt) {
  if ((int64_t)kernel.size() != spatial)
    return op->emitOpError() << "'kernel_shape' has " << kernel.size() << " values for " << spatial
                             << " spatial axes";
  if ((int64_t)strides.size() != spatial)
    return op->emitOpError() << "'strides' has " << strides.size() << " values for " << spatial
                             << " spatial axes";
  if ((int64_t)pads.size() != 2 * spatial)
    return op->emitOpError() << "'pads' has " << pads.size() << " values; expected " << 2 * spatial
                             << " (begin pads, then end pads)";
  if (dilations && (int64_t)dilations->size() != spatial)
    return op->emitOpError() << "'dilations' has " << dilations->size() << " values for " << spatial
                             << " spatial axes";
  for (int64_t i = 0; i < spatial; ++i) {
    if (kernel[i] <= 0 || strides[i] <= 0 || (dilations && (*dilations)[i] <= 0))
      return op->emitOpError() << "kernel sizes, strides and dilations must be positive";
    if (pads[i] < 0 || pads[i + spatial] < 0)
      return op->emitOpError() << "pads must not be negative";
  }
  return success();
}

LogicalResult checkSpatialInput(Operation *op, ArrayRef<int64_t> in) {
  if (in.size() != 3 && in.size() != 4)
    return op->emitOpError() << "expects a 3-D (NCW) or 4-D (NCHW) input, got "
                             << formatShape(in);
  return success();
}

/// Operand `value` must be `none` or hold exactly `count` elements.
LogicalResult checkPerChannel(Operation *op, Value value, StringRef name, int64_t count) {
  if (isNone(value))
    return success();
  int64_t n = getNumElements(getShape(value));
  if (n != count)
    return op->emitOpError() << "'" << name << "' has " << n << " elements; expected " << count;
  return success();
}

LogicalResult sameShape(Operation *op, Value input, Shapes &shapes) {
  shapes.push_back(toVec(getShape(input)));
  (void)op;
  return success();
}

LogicalResult broadcastInto(Operation *op, ArrayRef<Value> operands, Shapes &shapes) {
  SmallVector<int64_t> out = toVec(getShape(operands[0]));
  for (Value v : operands.drop_front()) {
    auto b = broadcastShapes(out, getShape(v));
    if (failed(b))
      return op->emitOpError() << "operand shapes " << formatShape(out) << " and "
                               << formatShape(getShape(v)) << " do not broadcast";
    out = *b;
  }
  shapes.push_back(out);
  return success();
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace

//===--- io ---------------------------------------------------------------===//

LogicalResult InputOp::computeOutputShapes(Shapes &s) { return sameShape(*this, getInput(), s); }
LogicalResult WeightOp::computeOutputShapes(Shapes &s) { return sameShape(*this, getOutput(), s); }
LogicalResult NoneOp::computeOutputShapes(Shapes &s) {
  s.emplace_back();
  return success();
}

//===--- conv / matmul ----------------------------------------------------===//

LogicalResult ConvOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput()), w = getShape(getFilter());
  if (failed(checkSpatialInput(*this, in)))
    return failure();
  int64_t spatial = in.size() - 2;
  if (w.size() != in.size())
    return emitOpError() << "filter " << formatShape(w) << " must have the input's rank " << in.size();
  if (failed(checkWindowAttrs(*this, spatial, getKernelShape(), getStrides(), getPads(), getDilations())))
    return failure();
  int64_t group = getGroup();
  if (group <= 0 || in[1] % group != 0 || w[0] % group != 0)
    return emitOpError() << "'group' " << group << " must divide the input channels (" << in[1]
                         << ") and the output channels (" << w[0] << ")";
  if (w[1] * group != in[1])
    return emitOpError() << "filter " << formatShape(w) << " expects " << w[1] * group
                         << " input channels, input has " << in[1];
  for (int64_t i = 0; i < spatial; ++i)
    if (w[2 + i] != getKernelShape()[i])
      return emitOpError() << "'kernel_shape' " << formatShape(getKernelShape())
                           << " does not match the filter " << formatShape(w);
  if (failed(checkPerChannel(*this, getBias(), "bias", w[0])))
    return failure();
  SmallVector<int64_t> out{in[0], w[0]};
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t extent = in[2 + i] + getPads()[i] + getPads()[i + spatial] -
                     getDilations()[i] * (getKernelShape()[i] - 1) - 1;
    if (extent < 0)
      return emitOpError() << "kernel does not fit spatial axis " << i << " (size " << in[2 + i]
                           << " with pads)";
    out.push_back(extent / getStrides()[i] + 1);
  }
  shapes.push_back(out);
  return success();
}

LogicalResult DeconvOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput()), w = getShape(getFilter());
  if (failed(checkSpatialInput(*this, in)))
    return failure();
  int64_t spatial = in.size() - 2;
  if (w.size() != in.size())
    return emitOpError() << "filter " << formatShape(w) << " must have the input's rank " << in.size();
  if (failed(checkWindowAttrs(*this, spatial, getKernelShape(), getStrides(), getPads(), getDilations())))
    return failure();
  if ((int64_t)getOutputPadding().size() != spatial)
    return emitOpError() << "'output_padding' has " << getOutputPadding().size() << " values for "
                         << spatial << " spatial axes";
  int64_t group = getGroup();
  if (group <= 0 || in[1] % group != 0)
    return emitOpError() << "'group' " << group << " must divide the input channels (" << in[1] << ")";
  if (w[0] != in[1])
    return emitOpError() << "filter " << formatShape(w) << " expects " << w[0]
                         << " input channels, input has " << in[1];
  for (int64_t i = 0; i < spatial; ++i)
    if (w[2 + i] != getKernelShape()[i])
      return emitOpError() << "'kernel_shape' " << formatShape(getKernelShape())
                           << " does not match the filter " << formatShape(w);
  int64_t outChannels = w[1] * group;
  if (failed(checkPerChannel(*this, getBias(), "bias", outChannels)))
    return failure();
  SmallVector<int64_t> out{in[0], outChannels};
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t size = (in[2 + i] - 1) * getStrides()[i] - getPads()[i] - getPads()[i + spatial] +
                   getDilations()[i] * (getKernelShape()[i] - 1) + getOutputPadding()[i] + 1;
    if (size <= 0)
      return emitOpError() << "output spatial axis " << i << " would be empty";
    out.push_back(size);
  }
  shapes.push_back(out);
  return success();
}

LogicalResult MatMulOp::computeOutputShapes(Shapes &shapes) {
  SmallVector<int64_t> a = toVec(getShape(getInput())), b = toVec(getShape(getRight()));
  if (a.empty() || b.empty())
    return emitOpError() << "operands must have rank 1 or more";
  bool vecA = a.size() == 1, vecB = b.size() == 1;
  if (vecA)
    a.insert(a.begin(), 1);
  if (vecB)
    b.push_back(1);
  if (getLeftTranspose() && !vecA)
    std::swap(a[a.size() - 1], a[a.size() - 2]);
  if (getRightTranspose() && !vecB)
    std::swap(b[b.size() - 1], b[b.size() - 2]);
  int64_t m = a[a.size() - 2], k = a.back(), kb = b[b.size() - 2], n = b.back();
  if (k != kb)
    return emitOpError() << "contracting sizes differ: input " << formatShape(getShape(getInput()))
                         << " gives K=" << k << ", right " << formatShape(getShape(getRight()))
                         << " gives K=" << kb;
  auto batch = broadcastShapes(ArrayRef<int64_t>(a).drop_back(2), ArrayRef<int64_t>(b).drop_back(2));
  if (failed(batch))
    return emitOpError() << "batch axes of " << formatShape(getShape(getInput())) << " and "
                         << formatShape(getShape(getRight())) << " do not broadcast";
  SmallVector<int64_t> out = *batch;
  if (!vecA)
    out.push_back(m);
  if (!vecB)
    out.push_back(n);
  if (!isNone(getBias())) {
    auto bias = getShape(getBias());
    if (getNumElements(bias) != n && getNumElements(bias) != 1)
      return emitOpError() << "'bias' " << formatShape(bias) << " must hold 1 or N=" << n
                           << " elements";
  }
  shapes.push_back(out);
  return success();
}

LogicalResult A16MatMulOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput()), w = getShape(getWeight()), scale = getShape(getScale());
  int64_t bits = getWeightBits(), group = getQGroupSize();
  if (bits != 4 && bits != 8)
    return emitOpError() << "'weight_bits' must be 4 or 8, got " << bits;
  if (in.empty() || w.size() != 2)
    return emitOpError() << "expects input [..., K] and a 2-D weight [N, K"
                         << (bits == 4 ? "/2" : "") << "]";
  int64_t k = in.back(), n = w[0];
  int64_t packedK = bits == 4 ? ceilDiv(k, 2) : k;
  if (w[1] != packedK)
    return emitOpError() << "weight " << formatShape(w) << " does not hold K=" << k << " "
                         << bits << "-bit values per row (expected " << packedK << " columns)";
  if (group <= 0 || k % group != 0)
    return emitOpError() << "'q_group_size' " << group << " must be positive and divide K=" << k;
  SmallVector<int64_t> expected{n, k / group};
  if (scale != ArrayRef<int64_t>(expected))
    return emitOpError() << "'scale' " << formatShape(scale) << " must be " << formatShape(expected);
  if (!isNone(getZp()) && getShape(getZp()) != ArrayRef<int64_t>(expected))
    return emitOpError() << "'zp' " << formatShape(getShape(getZp())) << " must be "
                         << formatShape(expected);
  if (failed(checkPerChannel(*this, getBias(), "bias", n)))
    return failure();
  SmallVector<int64_t> out = toVec(in);
  out.back() = n;
  shapes.push_back(out);
  return success();
}

//===--- pool -------------------------------------------------------------===//

static LogicalResult poolShapes(Operation *op, ArrayRef<int64_t> in, ArrayRef<int64_t> kernel,
                                ArrayRef<int64_t> strides, ArrayRef<int64_t> pads, bool ceilMode,
                                Shapes &shapes) {
  if (failed(checkSpatialInput(op, in)))
    return failure();
  int64_t spatial = in.size() - 2;
  if (failed(checkWindowAttrs(op, spatial, kernel, strides, pads)))
    return failure();
  SmallVector<int64_t> out{in[0], in[1]};
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t extent = in[2 + i] + pads[i] + pads[i + spatial] - kernel[i];
    if (extent < 0)
      return op->emitOpError() << "window " << kernel[i] << " exceeds spatial axis " << i
                               << " (size " << in[2 + i] << " with pads)";
    int64_t size = (ceilMode ? ceilDiv(extent, strides[i]) : extent / strides[i]) + 1;
    // ONNX: with ceil_mode, a last window that would start inside the end padding is dropped.
    if (ceilMode && (size - 1) * strides[i] >= in[2 + i] + pads[i])
      --size;
    out.push_back(size);
  }
  shapes.push_back(out);
  return success();
}

LogicalResult MaxPoolOp::computeOutputShapes(Shapes &s) {
  return poolShapes(*this, getShape(getInput()), getKernelShape(), getStrides(), getPads(),
                    getCeilMode(), s);
}
LogicalResult AvgPoolOp::computeOutputShapes(Shapes &s) {
  return poolShapes(*this, getShape(getInput()), getKernelShape(), getStrides(), getPads(),
                    getCeilMode(), s);
}

/// The maxima like top.maxpool (2-D only: the flat indices count over N x C x H x W), the mask the same
/// shape.
LogicalResult MaxPoolWithMaskOp::computeOutputShapes(Shapes &s) {
  auto in = getShape(getInput());
  if (in.size() != 4)
    return emitOpError() << "expects an NCHW input, got " << formatShape(in);
  if (failed(poolShapes(*this, in, getKernelShape(), getStrides(), getPads(), getCeilMode(), s)))
    return failure();
  s.push_back(s.back());
  return success();
}

LogicalResult AdaptiveAvgPoolOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  if (failed(checkSpatialInput(*this, in)))
    return failure();
  if (getOutputSize().size() != in.size() - 2)
    return emitOpError() << "'output_size' has " << getOutputSize().size() << " values for "
                         << in.size() - 2 << " spatial axes";
  SmallVector<int64_t> out{in[0], in[1]};
  for (int64_t size : getOutputSize()) {
    if (size <= 0)
      return emitOpError() << "'output_size' values must be positive";
    out.push_back(size);
  }
  shapes.push_back(out);
  return success();
}

//===--- norm -------------------------------------------------------------===//

LogicalResult BatchNormOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  if (in.size() < 2)
    return emitOpError() << "expects an input of rank 2 or more, got " << formatShape(in);
  for (auto [value, name] : {std::pair<Value, StringRef>{getMean(), "mean"}, {getVariance(), "variance"},
                             {getGamma(), "gamma"}, {getBeta(), "beta"}})
    if (failed(checkPerChannel(*this, value, name, in[1])))
      return failure();
  return sameShape(*this, getInput(), shapes);
}

LogicalResult LayerNormOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  auto axis = normalizeAxis(*this, getAxis(), in.size(), "axis");
  if (failed(axis))
    return failure();
  int64_t normalized = getNumElements(in.drop_front(*axis));
  if (failed(checkPerChannel(*this, getWeight(), "weight", normalized)) ||
      failed(checkPerChannel(*this, getBias(), "bias", normalized)))
    return failure();
  return sameShape(*this, getInput(), shapes);
}

LogicalResult RMSNormOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  if (in.empty())
    return emitOpError() << "expects an input of rank 1 or more";
  if (failed(checkPerChannel(*this, getGamma(), "gamma", in.back())))
    return failure();
  return sameShape(*this, getInput(), shapes);
}

LogicalResult GroupNormOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  if (in.size() < 2)
    return emitOpError() << "expects an input of rank 2 or more, got " << formatShape(in);
  if (getNumGroups() <= 0 || in[1] % getNumGroups() != 0)
    return emitOpError() << "'num_groups' " << getNumGroups() << " must divide the channels ("
                         << in[1] << ")";
  if (failed(checkPerChannel(*this, getWeight(), "weight", in[1])) ||
      failed(checkPerChannel(*this, getBias(), "bias", in[1])))
    return failure();
  return sameShape(*this, getInput(), shapes);
}

LogicalResult InstanceNormOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  if (in.size() < 3)
    return emitOpError() << "expects an input of rank 3 or more, got " << formatShape(in);
  if (failed(checkPerChannel(*this, getWeight(), "weight", in[1])) ||
      failed(checkPerChannel(*this, getBias(), "bias", in[1])))
    return failure();
  return sameShape(*this, getInput(), shapes);
}

LogicalResult SoftmaxOp::computeOutputShapes(Shapes &shapes) {
  if (failed(normalizeAxis(*this, getAxis(), getShape(getInput()).size(), "axis")))
    return failure();
  return sameShape(*this, getInput(), shapes);
}

//===--- attention ----------------------------------------------------------===//

LogicalResult RopeOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  if (in.size() != 4)
    return emitOpError() << "expects input [B, L, H, D], got " << formatShape(in);
  if (in[3] % 2 != 0)
    return emitOpError() << "head size " << in[3] << " must be even";
  auto cos = getShape(getCos()), sin = getShape(getSin());
  if (cos != sin)
    return emitOpError() << "'cos' " << formatShape(cos) << " and 'sin' " << formatShape(sin)
                         << " differ";
  int64_t n = getNumElements(cos);
  if (cos.empty() || cos.back() != in[3] || (n != in[1] * in[3] && n != in[0] * in[1] * in[3]))
    return emitOpError() << "'cos'/'sin' " << formatShape(cos) << " must be [L, D] or [B, L, D] = ["
                         << in[1] << ", " << in[3] << "]";
  return sameShape(*this, getInput(), shapes);
}

LogicalResult AttentionOp::computeOutputShapes(Shapes &shapes) {
  auto q = getShape(getQuery()), k = getShape(getKey()), v = getShape(getValue());
  if (q.size() != 4 || k.size() != 4 || v.size() != 4)
    return emitOpError() << "expects 4-D query, key and value [B, L, H, D]";
  if (k != v)
    return emitOpError() << "key " << formatShape(k) << " and value " << formatShape(v) << " differ";
  if (q[0] != k[0] || q[3] != k[3])
    return emitOpError() << "query " << formatShape(q) << " and key " << formatShape(k)
                         << " disagree on batch or head size";
  if (k[2] <= 0 || q[2] % k[2] != 0)
    return emitOpError() << "query heads (" << q[2] << ") must be a multiple of key/value heads ("
                         << k[2] << ")";
  if (!isNone(getMask())) {
    SmallVector<int64_t> scores{q[0], 1, q[1], k[1]};
    auto b = broadcastShapes(scores, getShape(getMask()));
    if (failed(b) || ArrayRef<int64_t>(*b) != ArrayRef<int64_t>(scores))
      return emitOpError() << "'mask' " << formatShape(getShape(getMask()))
                           << " does not broadcast to the scores " << formatShape(scores);
  }
  return sameShape(*this, getQuery(), shapes);
}

//===--- element-wise -------------------------------------------------------===//

#define TOP_BINARY_SHAPES(OP)                                                                      \
  LogicalResult OP::computeOutputShapes(Shapes &s) {                                               \
    return broadcastInto(*this, {getLhs(), getRhs()}, s);                                          \
  }
TOP_BINARY_SHAPES(AddOp)
TOP_BINARY_SHAPES(SubOp)
TOP_BINARY_SHAPES(MulOp)
TOP_BINARY_SHAPES(DivOp)
TOP_BINARY_SHAPES(PowerOp)
TOP_BINARY_SHAPES(MaxOp)
TOP_BINARY_SHAPES(MinOp)
TOP_BINARY_SHAPES(CompareOp)
#undef TOP_BINARY_SHAPES

LogicalResult WhereOp::computeOutputShapes(Shapes &s) {
  return broadcastInto(*this, {getCond(), getX(), getY()}, s);
}

#define TOP_SAME_SHAPE(OP)                                                                         \
  LogicalResult OP::computeOutputShapes(Shapes &s) { return sameShape(*this, getInput(), s); }
TOP_SAME_SHAPE(AddConstOp)
TOP_SAME_SHAPE(SubConstOp)
TOP_SAME_SHAPE(MulConstOp)
TOP_SAME_SHAPE(DivConstOp)
TOP_SAME_SHAPE(MaxConstOp)
TOP_SAME_SHAPE(MinConstOp)
TOP_SAME_SHAPE(ReluOp)
TOP_SAME_SHAPE(LeakyReluOp)
TOP_SAME_SHAPE(ClipOp)
TOP_SAME_SHAPE(HardSigmoidOp)
TOP_SAME_SHAPE(GELUOp)
TOP_SAME_SHAPE(PowOp)
TOP_SAME_SHAPE(SigmoidOp)
TOP_SAME_SHAPE(TanhOp)
TOP_SAME_SHAPE(SiLUOp)
TOP_SAME_SHAPE(MishOp)
TOP_SAME_SHAPE(HardSwishOp)
TOP_SAME_SHAPE(ExpOp)
TOP_SAME_SHAPE(LogOp)
TOP_SAME_SHAPE(SqrtOp)
TOP_SAME_SHAPE(RsqrtOp)
TOP_SAME_SHAPE(AbsOp)
TOP_SAME_SHAPE(ErfOp)
TOP_SAME_SHAPE(ReciprocalOp)
TOP_SAME_SHAPE(CastOp)
TOP_SAME_SHAPE(FloorOp)
TOP_SAME_SHAPE(CeilOp)
TOP_SAME_SHAPE(RoundOp)
TOP_SAME_SHAPE(SignOp)
TOP_SAME_SHAPE(SinOp)
TOP_SAME_SHAPE(CosOp)
TOP_SAME_SHAPE(TanOp)
TOP_SAME_SHAPE(AsinOp)
TOP_SAME_SHAPE(AcosOp)
TOP_SAME_SHAPE(AtanOp)
TOP_SAME_SHAPE(SinhOp)
TOP_SAME_SHAPE(CoshOp)
TOP_SAME_SHAPE(AsinhOp)
TOP_SAME_SHAPE(AcoshOp)
TOP_SAME_SHAPE(AtanhOp)
#undef TOP_SAME_SHAPE

//===--- shape ------------------------------------------------------------===//

LogicalResult ReshapeOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput()), out = getShape(getOutput());
  if (getNumElements(in) != getNumElements(out))
    return emitOpError() << "cannot reshape " << formatShape(in) << " (" << getNumElements(in)
                         << " elements) to " << formatShape(out) << " (" << getNumElements(out)
                         << " elements)";
  shapes.push_back(toVec(out));
  return success();
}

LogicalResult SqueezeOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  SmallVector<bool> drop(in.size(), false);
  for (int64_t axis : getAxes()) {
    auto a = normalizeAxis(*this, axis, in.size(), "axes");
    if (failed(a))
      return failure();
    if (in[*a] != 1)
      return emitOpError() << "cannot squeeze axis " << axis << " of size " << in[*a];
    drop[*a] = true;
  }
  SmallVector<int64_t> out;
  for (auto [i, d] : llvm::enumerate(in))
    if (!drop[i])
      out.push_back(d);
  shapes.push_back(out);
  return success();
}

LogicalResult UnsqueezeOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  int64_t rank = in.size() + getAxes().size();
  SmallVector<bool> inserted(rank, false);
  for (int64_t axis : getAxes()) {
    auto a = normalizeAxis(*this, axis, rank, "axes");
    if (failed(a))
      return failure();
    if (inserted[*a])
      return emitOpError() << "'axes' lists axis " << axis << " twice";
    inserted[*a] = true;
  }
  SmallVector<int64_t> out;
  auto it = in.begin();
  for (int64_t i = 0; i < rank; ++i)
    out.push_back(inserted[i] ? 1 : *it++);
  shapes.push_back(out);
  return success();
}

LogicalResult PermuteOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  auto order = getOrder();
  if (order.size() != in.size())
    return emitOpError() << "'order' has " << order.size() << " values for rank " << in.size();
  SmallVector<bool> seen(in.size(), false);
  SmallVector<int64_t> out;
  for (int64_t axis : order) {
    if (axis < 0 || axis >= (int64_t)in.size() || seen[axis])
      return emitOpError() << "'order' " << formatShape(order) << " is not a permutation of 0.."
                           << (int64_t)in.size() - 1;
    seen[axis] = true;
    out.push_back(in[axis]);
  }
  shapes.push_back(out);
  return success();
}

LogicalResult ConcatOp::computeOutputShapes(Shapes &shapes) {
  if (getInputs().empty())
    return emitOpError() << "needs at least one input";
  SmallVector<int64_t> out = toVec(getShape(getInputs()[0]));
  auto axis = normalizeAxis(*this, getAxis(), out.size(), "axis");
  if (failed(axis))
    return failure();
  for (auto [index, value] : llvm::enumerate(getInputs().drop_front())) {
    auto shape = getShape(value);
    bool compatible = shape.size() == out.size();
    for (size_t i = 0; compatible && i < shape.size(); ++i)
      compatible = (int64_t)i == *axis || shape[i] == out[i];
    if (!compatible)
      return emitOpError() << "input #" << index + 1 << " " << formatShape(shape)
                           << " does not match input #0 " << formatShape(getShape(getInputs()[0]))
                           << " outside axis " << *axis;
    out[*axis] += shape[*axis];
  }
  shapes.push_back(out);
  return success();
}

LogicalResult SliceOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  auto offset = getOffset(), steps = getSteps(), ends = getEnds();
  if (offset.size() != in.size() || steps.size() != in.size() || ends.size() != in.size())
    return emitOpError() << "'offset', 'steps' and 'ends' need one value per axis (" << in.size()
                         << ")";
  SmallVector<int64_t> out;
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t start = offset[i], end = ends[i], step = steps[i];
    if (step == 0)
      return emitOpError() << "'steps' must not be 0 (axis " << i << ")";
    bool ok = step > 0 ? (start >= 0 && start <= in[i] && end >= 0 && end <= in[i])
                       : (start >= -1 && start < in[i] && end >= -1 && end < in[i]);
    if (!ok)
      return emitOpError() << "slice [" << start << ":" << end << ":" << step << "] is out of range on axis "
                           << i << " of size " << in[i];
    int64_t count = step > 0 ? ceilDiv(end - start, step) : ceilDiv(start - end, -step);
    out.push_back(std::max<int64_t>(count, 0));
  }
  shapes.push_back(out);
  return success();
}

LogicalResult SplitOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  auto axis = normalizeAxis(*this, getAxis(), in.size(), "axis");
  if (failed(axis))
    return failure();
  auto sizes = getSplitSize();
  if (sizes.size() != getNumResults())
    return emitOpError() << "'split_size' has " << sizes.size() << " values for " << getNumResults()
                         << " results";
  int64_t total = 0;
  for (int64_t size : sizes) {
    if (size < 0)
      return emitOpError() << "'split_size' values must not be negative";
    total += size;
    SmallVector<int64_t> out = toVec(in);
    out[*axis] = size;
    shapes.push_back(out);
  }
  if (total != in[*axis])
    return emitOpError() << "'split_size' adds up to " << total << " but axis " << *axis << " has size "
                         << in[*axis];
  return success();
}

LogicalResult GatherOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput()), idx = getShape(getIndices());
  auto axis = normalizeAxis(*this, getAxis(), in.size(), "axis");
  if (failed(axis))
    return failure();
  SmallVector<int64_t> out(in.begin(), in.begin() + *axis);
  out.append(idx.begin(), idx.end());
  out.append(in.begin() + *axis + 1, in.end());
  shapes.push_back(out);
  return success();
}

LogicalResult GatherElementsOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput()), idx = getShape(getIndices());
  if (in.size() != idx.size())
    return emitOpError() << "'indices' has rank " << idx.size() << " but 'input' has rank " << in.size();
  if (failed(normalizeAxis(*this, getAxis(), in.size(), "axis")))
    return failure();
  shapes.push_back(toVec(idx));
  return success();
}

LogicalResult ScatterElementsOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput()), idx = getShape(getIndices()), upd = getShape(getUpdates());
  if (in.size() != idx.size())
    return emitOpError() << "'indices' has rank " << idx.size() << " but 'input' has rank " << in.size();
  if (idx != upd)
    return emitOpError() << "'updates' " << formatShape(upd) << " must have the shape of 'indices' "
                         << formatShape(idx);
  if (failed(normalizeAxis(*this, getAxis(), in.size(), "axis")))
    return failure();
  shapes.push_back(toVec(in));
  return success();
}

LogicalResult ScatterNDOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput()), idx = getShape(getIndices()), upd = getShape(getUpdates());
  if (idx.empty() || idx.back() < 1 || idx.back() > (int64_t)in.size())
    return emitOpError() << "'indices' " << formatShape(idx) << " must end in a tuple size from 1 to the input's rank "
                         << in.size();
  SmallVector<int64_t> want(idx.begin(), idx.end() - 1);
  want.append(in.begin() + idx.back(), in.end());
  if (ArrayRef<int64_t>(want) != upd)
    return emitOpError() << "'updates' " << formatShape(upd) << " must be " << formatShape(want);
  shapes.push_back(toVec(in));
  return success();
}

/// Ops whose result extent depends on the data take it from their result type.
static LogicalResult declaredResult(Operation *op, Shapes &shapes, ArrayRef<std::optional<int64_t>> want) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() || type.getRank() != (int64_t)want.size())
    return op->emitOpError() << "needs a static result type of rank " << want.size()
                             << " (its extent depends on the data)";
  for (auto [d, w] : llvm::zip(type.getShape(), want))
    if (w && d != *w)
      return op->emitOpError() << "result " << formatShape(type.getShape()) << " does not match the operands";
  shapes.push_back(toVec(type.getShape()));
  return success();
}

LogicalResult DynamicSliceOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  std::optional<int64_t> count;
  for (auto [name, v] : {std::pair<StringRef, Value>{"starts", getStarts()},
                         {"ends", getEnds()},
                         {"axes", getAxes()},
                         {"steps", getSteps()}}) {
    auto shape = getShape(v);
    if (shape.size() != 1 || !isa<IntegerType>(cast<ShapedType>(v.getType()).getElementType()))
      return emitOpError() << "'" << name << "' must be a 1-D integer tensor";
    if (count && *count != shape[0])
      return emitOpError() << "'starts', 'ends', 'axes' and 'steps' must have one length";
    count = shape[0];
  }
  if (*count > static_cast<int64_t>(in.size()))
    return emitOpError() << "slices " << *count << " axes of a rank-" << in.size() << " input";
  return declaredResult(*this, shapes, SmallVector<std::optional<int64_t>>(in.size(), std::nullopt));
}

LogicalResult NonZeroOp::computeOutputShapes(Shapes &shapes) {
  return declaredResult(*this, shapes, {(int64_t)getShape(getInput()).size(), std::nullopt});
}

/// The distinct values keep the input's shape but along the axis (1-D without one), n declared by the model;
/// first indices and counts are [n], inverse indices one per input element (slice).
LogicalResult UniqueOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  std::optional<int64_t> axis;
  if (getAxis()) {
    auto normalized = normalizeAxis(*this, *getAxis(), in.size(), "axis");
    if (failed(normalized))
      return failure();
    axis = *normalized;
  }
  int64_t total = 1;
  for (int64_t d : in)
    total *= d;
  SmallVector<std::optional<int64_t>> want;
  if (axis)
    for (size_t d = 0; d < in.size(); ++d)
      want.push_back(static_cast<int64_t>(d) == *axis ? std::nullopt : std::optional<int64_t>(in[d]));
  else
    want.push_back(std::nullopt);
  if (failed(declaredResult(*this, shapes, want)))
    return failure();
  int64_t n = shapes.back()[axis.value_or(0)];
  int64_t all = axis ? in[*axis] : total;
  if (n < 1 || n > all)
    return emitOpError() << "declares " << n << " distinct values of " << all;
  for (auto [result, extent] :
       {std::pair<Value, int64_t>{getIndices(), n}, {getInverseIndices(), all}, {getCounts(), n}}) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type || type.getRank() != 1 || type.getDimSize(0) != extent)
      return emitOpError() << "index results must be 1-D: [" << n << "], [" << all << "], [" << n << "]";
    shapes.push_back({extent});
  }
  return success();
}

LogicalResult CumSumOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  if (failed(normalizeAxis(*this, getAxis(), in.size(), "axis")))
    return failure();
  shapes.push_back(toVec(in));
  return success();
}

LogicalResult PadOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  auto pads = getPaddings();
  if (pads.size() != 2 * in.size())
    return emitOpError() << "'paddings' has " << pads.size() << " values; expected " << 2 * in.size()
                         << " (begin pads, then end pads)";
  SmallVector<int64_t> out;
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t size = in[i] + pads[i] + pads[i + in.size()];
    if (size < 0)
      return emitOpError() << "negative pads remove more than axis " << i << " holds";
    if (getPadMode() == PadMode::reflect && (pads[i] >= in[i] || pads[i + in.size()] >= in[i]))
      return emitOpError() << "reflect pads on axis " << i << " must be smaller than its size " << in[i];
    out.push_back(size);
  }
  shapes.push_back(out);
  return success();
}

LogicalResult ReduceOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  SmallVector<bool> reduced(in.size(), false);
  for (int64_t axis : getAxes()) {
    auto a = normalizeAxis(*this, axis, in.size(), "axes");
    if (failed(a))
      return failure();
    if (reduced[*a])
      return emitOpError() << "'axes' lists axis " << axis << " twice";
    reduced[*a] = true;
  }
  SmallVector<int64_t> out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!reduced[i])
      out.push_back(in[i]);
    else if (getKeepdims())
      out.push_back(1);
  }
  shapes.push_back(out);
  return success();
}

LogicalResult InterpOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  if (failed(checkSpatialInput(*this, in)))
    return failure();
  if (getTargetShape().size() != in.size() - 2)
    return emitOpError() << "'target_shape' has " << getTargetShape().size() << " values for "
                         << in.size() - 2 << " spatial axes";
  if (getNearestMode() && getMode() != InterpMode::nearest)
    return emitOpError() << "'nearest_mode' is only valid with nearest interpolation";
  if (getScales()) {
    auto scales = getShape(getScales());
    if (scales.size() != 1 || scales[0] != static_cast<int64_t>(in.size()))
      return emitOpError() << "'scales' must hold one value per input axis (" << in.size() << ")";
    if (!isa<FloatType>(cast<ShapedType>(getScales().getType()).getElementType()))
      return emitOpError() << "'scales' must be floating-point";
  }
  SmallVector<int64_t> out{in[0], in[1]};
  for (int64_t size : getTargetShape()) {
    if (size <= 0)
      return emitOpError() << "'target_shape' values must be positive";
    out.push_back(size);
  }
  shapes.push_back(out);
  return success();
}

LogicalResult Depth2SpaceOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  int64_t bh = getBlockH(), bw = getBlockW();
  if (in.size() != 4)
    return emitOpError() << "expects a 4-D NCHW input, got " << formatShape(in);
  if (bh <= 0 || bw <= 0)
    return emitOpError() << "block sizes must be positive";
  if (!getIsInversed()) {
    if (in[1] % (bh * bw) != 0)
      return emitOpError() << "channels (" << in[1] << ") must be a multiple of block_h * block_w ("
                           << bh * bw << ")";
    shapes.push_back({in[0], in[1] / (bh * bw), in[2] * bh, in[3] * bw});
  } else {
    if (in[2] % bh != 0 || in[3] % bw != 0)
      return emitOpError() << "spatial size " << in[2] << "x" << in[3] << " must be a multiple of the block "
                           << bh << "x" << bw;
    shapes.push_back({in[0], in[1] * bh * bw, in[2] / bh, in[3] / bw});
  }
  return success();
}

LogicalResult TopKOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput());
  auto axis = normalizeAxis(*this, getAxis(), in.size(), "axis");
  if (failed(axis))
    return failure();
  if (getK() < 1 || getK() > in[*axis])
    return emitOpError() << "'k' " << getK() << " must lie in [1, " << in[*axis] << "]";
  SmallVector<int64_t> out = toVec(in);
  out[*axis] = getK();
  shapes.push_back(out);
  shapes.push_back(out);
  return success();
}

LogicalResult ArangeOp::computeOutputShapes(Shapes &shapes) {
  double start = getStart().convertToDouble(), limit = getLimit().convertToDouble(),
         delta = getDelta().convertToDouble();
  if (delta == 0)
    return emitOpError() << "'delta' must not be 0";
  double n = std::ceil((limit - start) / delta);
  shapes.push_back({std::max<int64_t>(0, (int64_t)n)});
  return success();
}

LogicalResult GridSampleOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput()), grid = getShape(getGrid());
  if (in.size() != 4 || grid.size() != 4 || grid[0] != in[0] || grid[3] != 2)
    return emitOpError() << "expects an NCHW input and an N x H x W x 2 grid, got " << formatShape(in) << " and "
                         << formatShape(grid);
  shapes.push_back({in[0], in[1], grid[1], grid[2]});
  return success();
}

LogicalResult LoopGuardOp::computeOutputShapes(Shapes &shapes) {
  if (getNumElements(getShape(getCount())) != 1)
    return emitOpError() << "'count' must hold one value, got " << formatShape(getShape(getCount()));
  if (static_cast<int64_t>(getMaxTrips()) < 1)
    return emitOpError() << "'max_trips' must be positive";
  auto in = getShape(getInput());
  shapes.push_back(SmallVector<int64_t>(in.begin(), in.end()));
  return success();
}

LogicalResult MaxUnpoolOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput()), index = getShape(getIndices());
  if (in.size() != 4 || index != in)
    return emitOpError() << "expects an NCHW input and indices of its shape, got " << formatShape(in)
                         << " and " << formatShape(index);
  auto out = getOutputShape();
  if (out.size() != 4 || out[0] != in[0] || out[1] != in[1] || out[2] < 1 || out[3] < 1)
    return emitOpError() << "'output_shape' " << formatShape(out) << " must keep the input's N and C ("
                         << formatShape(in) << ") with positive H and W";
  if (auto indexed = getIndexedShape())
    if (indexed->size() != 4 || (*indexed)[0] != out[0] || (*indexed)[1] != out[1] || (*indexed)[2] < 1 ||
        (*indexed)[3] < 1 || (*indexed)[2] > out[2] || (*indexed)[3] > out[3])
      return emitOpError() << "'indexed_shape' " << formatShape(*indexed)
                           << " must keep N and C and fit in 'output_shape' " << formatShape(out);
  shapes.push_back(SmallVector<int64_t>(out.begin(), out.end()));
  return success();
}

LogicalResult DeformConv2DOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput()), w = getShape(getFilter());
  if (in.size() != 4 || w.size() != 4)
    return emitOpError() << "expects an NCHW input and an OIHW filter, got " << formatShape(in) << " and "
                         << formatShape(w);
  if (failed(checkWindowAttrs(*this, 2, getKernelShape(), getStrides(), getPads(), getDilations())))
    return failure();
  int64_t group = getGroup(), offsetGroup = getOffsetGroup();
  if (group <= 0 || in[1] % group != 0 || w[0] % group != 0 || w[1] * group != in[1])
    return emitOpError() << "'group' " << group << " with filter " << formatShape(w)
                         << " does not divide the input channels (" << in[1] << ") and output channels";
  if (offsetGroup <= 0 || in[1] % offsetGroup != 0)
    return emitOpError() << "'offset_group' " << offsetGroup << " must divide the input channels (" << in[1]
                         << ")";
  if (w[2] != getKernelShape()[0] || w[3] != getKernelShape()[1])
    return emitOpError() << "'kernel_shape' " << formatShape(getKernelShape())
                         << " does not match the filter " << formatShape(w);
  if (failed(checkPerChannel(*this, getBias(), "bias", w[0])))
    return failure();
  SmallVector<int64_t> out{in[0], w[0]};
  for (int64_t i = 0; i < 2; ++i) {
    int64_t extent = in[2 + i] + getPads()[i] + getPads()[i + 2] - getDilations()[i] * (w[2 + i] - 1) - 1;
    if (extent < 0)
      return emitOpError() << "kernel does not fit spatial axis " << i << " (size " << in[2 + i]
                           << " with pads)";
    out.push_back(extent / getStrides()[i] + 1);
  }
  int64_t taps = w[2] * w[3];
  SmallVector<int64_t> offset{in[0], offsetGroup * 2 * taps, out[2], out[3]};
  if (getShape(getOffset()) != ArrayRef<int64_t>(offset))
    return emitOpError() << "'offset' must be " << formatShape(offset) << ", got "
                         << formatShape(getShape(getOffset()));
  SmallVector<int64_t> mask{in[0], offsetGroup * taps, out[2], out[3]};
  if (!isNone(getMask()) && getShape(getMask()) != ArrayRef<int64_t>(mask))
    return emitOpError() << "'mask' must be " << formatShape(mask) << ", got "
                         << formatShape(getShape(getMask()));
  shapes.push_back(out);
  return success();
}

LogicalResult RoiAlignOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput()), rois = getShape(getRois()), index = getShape(getBatchIndices());
  if (in.size() != 4 || rois.size() != 2 || rois[1] != 4 || index.size() != 1 || index[0] != rois[0])
    return emitOpError() << "expects an NCHW input, rois [R, 4] and batch_indices [R], got "
                         << formatShape(in) << ", " << formatShape(rois) << " and " << formatShape(index);
  auto oh = static_cast<int64_t>(getOutputHeight()), ow = static_cast<int64_t>(getOutputWidth());
  if (oh < 1 || ow < 1 || static_cast<int64_t>(getSamplingRatio()) < 0)
    return emitOpError() << "needs a positive output size and a sampling ratio of at least 0";
  shapes.push_back({rois[0], in[1], oh, ow});
  return success();
}

LogicalResult RoiPoolingOp::computeOutputShapes(Shapes &shapes) {
  auto in = getShape(getInput()), rois = getShape(getRois());
  if (in.size() != 4 || rois.size() != 2 || rois[1] != 5)
    return emitOpError() << "expects an NCHW input and rois [R, 5], got " << formatShape(in) << " and "
                         << formatShape(rois);
  auto pooled = getPooledShape();
  if (pooled.size() != 2 || pooled[0] < 1 || pooled[1] < 1)
    return emitOpError() << "'pooled_shape' must be two positive sizes";
  shapes.push_back({rois[0], in[1], pooled[0], pooled[1]});
  return success();
}

LogicalResult NonMaxSuppressionOp::computeOutputShapes(Shapes &shapes) {
  auto boxes = getShape(getBoxes()), scores = getShape(getScores());
  if (boxes.size() != 3 || boxes[2] != 4 || scores.size() != 3 || scores[0] != boxes[0] || scores[2] != boxes[1])
    return emitOpError() << "expects boxes [B, N, 4] and scores [B, C, N], got " << formatShape(boxes) << " and "
                         << formatShape(scores);
  return declaredResult(*this, shapes, {std::nullopt, 3});
}
