//===- ShapeKernels.cpp - Data movement: reshape, permute, slice, pad, ... --===//
// Copies only: strided views (permute, slice) through Broadcast.h's collapsed walk, block copies for
// concat/split/gather, per-axis index tables for pad.
//===----------------------------------------------------------------------===//
#include "Broadcast.h"
#include "Kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

using namespace mlir;

namespace tpuc::sim::ref {
namespace {

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

LogicalResult copyAll(Value output, Inputs in, Outputs out) {
  parallelCopy(out[0], in[0], numel(output));
  return success();
}

/// Copies the strided window of `src` (shape `inShape`) starting at `offset` with `steps` per axis into
/// `dst` (shape `outShape`); an empty axis reads nothing.
void copyWindow(ArrayRef<int64_t> inShape, ArrayRef<int64_t> outShape, ArrayRef<int64_t> offset,
                ArrayRef<int64_t> steps, const float *src, float *dst) {
  SmallVector<int64_t> inStrides = rowMajorStrides(inShape), strides;
  int64_t base = 0;
  for (auto [i, stride] : llvm::enumerate(inStrides)) {
    if (outShape[i] > 0)
      base += offset[i] * stride;
    strides.push_back(steps[i] * stride);
  }
  forEachBroadcast(stridedPlan(outShape, strides), {src + base}, dst, [](float x) { return x; });
}

} // namespace

LogicalResult run(top::ReshapeOp op, Inputs in, Outputs out) { return copyAll(op.getOutput(), in, out); }
LogicalResult run(top::SqueezeOp op, Inputs in, Outputs out) { return copyAll(op.getOutput(), in, out); }
LogicalResult run(top::UnsqueezeOp op, Inputs in, Outputs out) { return copyAll(op.getOutput(), in, out); }

LogicalResult run(top::PermuteOp op, Inputs in, Outputs out) {
  SmallVector<int64_t> inStrides = rowMajorStrides(shapeOf(op.getInput())), strides;
  for (int64_t axis : op.getOrder())
    strides.push_back(inStrides[axis]);
  forEachBroadcast(stridedPlan(shapeOf(op.getOutput()), strides), {in[0]}, out[0], [](float x) { return x; });
  return success();
}

LogicalResult run(top::SliceOp op, Inputs in, Outputs out) {
  copyWindow(shapeOf(op.getInput()), shapeOf(op.getOutput()), op.getOffset(), op.getSteps(), in[0], out[0]);
  return success();
}

/// ONNX Slice with its bounds read at run time: every axis starts at 0 with step 1 and its whole extent
/// unless listed; listed starts / ends count from the end when negative and are clamped to the axis (to
/// [0, dim] going forward, [-1, dim - 1] going backward).
LogicalResult run(top::DynamicSliceOp op, Inputs in, Outputs out) {
  auto shape = shapeOf(op.getInput()), want = shapeOf(op.getOutput());
  int64_t rank = shape.size(), count = shapeOf(op.getStarts())[0];
  std::vector<int64_t> start(rank, 0), step(rank, 1), size(shape.begin(), shape.end());
  std::vector<bool> seen(rank, false);
  for (int64_t j = 0; j < count; ++j) {
    int64_t axis = static_cast<int64_t>(in[3][j]), s = static_cast<int64_t>(in[1][j]),
            e = static_cast<int64_t>(in[2][j]), st = static_cast<int64_t>(in[4][j]);
    if (axis < -rank || axis >= rank)
      return op.emitOpError() << "axis " << axis << " is out of range for rank " << rank;
    axis = axis < 0 ? axis + rank : axis;
    if (seen[axis])
      return op.emitOpError() << "axis " << axis << " is listed twice";
    seen[axis] = true;
    if (st == 0)
      return op.emitOpError() << "step 0 on axis " << axis;
    int64_t dim = shape[axis];
    s = s < 0 ? s + dim : s;
    e = e < 0 ? e + dim : e;
    if (st > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      size[axis] = std::max<int64_t>(0, (e - s + st - 1) / st);
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      size[axis] = std::max<int64_t>(0, (s - e - st - 1) / -st);
    }
    start[axis] = s;
    step[axis] = st;
  }
  if (llvm::ArrayRef<int64_t>(size) != llvm::ArrayRef<int64_t>(want))
    return op.emitOpError() << "the bounds select " << top::formatShape(size) << " but the result type is "
                            << top::formatShape(want);
  copyWindow(shape, want, start, step, in[0], out[0]);
  return success();
}

LogicalResult run(top::ConcatOp op, Inputs in, Outputs out) {
  auto shape = shapeOf(op.getOutput());
  int64_t axis = normAxis(op.getAxis(), shape.size());
  int64_t outer = product(shape, 0, axis), inner = product(shape, axis + 1, shape.size());
  int64_t row = shape[axis] * inner;
  SmallVector<int64_t> chunk;
  for (Value v : op.getInputs())
    chunk.push_back(shapeOf(v)[axis] * inner);
  float *y = out[0];
  parallelFor(outer, rowGrain(row), [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      float *dst = y + o * row;
      for (size_t k = 0; k < chunk.size(); ++k) {
        std::memcpy(dst, in[k] + o * chunk[k], chunk[k] * sizeof(float));
        dst += chunk[k];
      }
    }
  });
  maybeRelu(op.getDoRelu(), y, outer * row, op.getReluLimit().convertToDouble());
  return success();
}

LogicalResult run(top::SplitOp op, Inputs in, Outputs out) {
  auto shape = shapeOf(op.getInput());
  int64_t axis = normAxis(op.getAxis(), shape.size());
  int64_t outer = product(shape, 0, axis), inner = product(shape, axis + 1, shape.size());
  int64_t row = shape[axis] * inner;
  SmallVector<int64_t> chunk;
  for (int64_t size : op.getSplitSize())
    chunk.push_back(size * inner);
  parallelFor(outer, rowGrain(row), [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      const float *src = in[0] + o * row;
      for (size_t k = 0; k < chunk.size(); ++k) {
        std::memcpy(out[k] + o * chunk[k], src, chunk[k] * sizeof(float));
        src += chunk[k];
      }
    }
  });
  return success();
}

LogicalResult run(top::GatherOp op, Inputs in, Outputs out) {
  auto shape = shapeOf(op.getInput());
  int64_t axis = normAxis(op.getAxis(), shape.size());
  int64_t outer = product(shape, 0, axis), size = shape[axis];
  int64_t inner = product(shape, axis + 1, shape.size());
  int64_t count = numel(op.getIndices());
  std::vector<int64_t> index(count);
  for (int64_t i = 0; i < count; ++i) {
    int64_t v = toIndex(in[1][i]);
    if (v < -size || v >= size)
      return op.emitOpError() << "index " << v << " is out of range for axis " << axis << " of size " << size;
    index[i] = v < 0 ? v + size : v;
  }
  const float *x = in[0];
  float *y = out[0];
  parallelFor(outer * count, rowGrain(inner), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t o = r / count, i = r % count;
      std::memcpy(y + r * inner, x + (o * size + index[i]) * inner, inner * sizeof(float));
    }
  });
  return success();
}

LogicalResult forEachAxisElement(Operation *op, ArrayRef<int64_t> dataShape, ArrayRef<int64_t> idxShape, int64_t axis,
                                 const float *indices, llvm::function_ref<void(int64_t, int64_t)> fn) {
  const int64_t rank = static_cast<int64_t>(dataShape.size()), size = dataShape[axis];
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && idxShape[d] > dataShape[d])
      return op->emitOpError() << "indices axis " << d << " (" << idxShape[d] << ") exceeds the input's ("
                               << dataShape[d] << ")";
  // Data strides, so each index position maps to its data position by replacing the coordinate on `axis`.
  std::vector<int64_t> stride(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    stride[d] = stride[d + 1] * dataShape[d + 1];
  int64_t count = 1;
  for (int64_t d : idxShape)
    count *= d;
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i, position = 0;
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t c = rest % idxShape[d];
      rest /= idxShape[d];
      if (d == axis) {
        int64_t v = toIndex(indices[i]);
        if (v < -size || v >= size)
          return op->emitOpError() << "index " << v << " is out of range for axis " << axis << " of size "
                                   << size;
        c = v < 0 ? v + size : v;
      }
      position += c * stride[d];
    }
    fn(i, position);
  }
  return success();
}

LogicalResult run(top::GatherElementsOp op, Inputs in, Outputs out) {
  auto inShape = shapeOf(op.getInput());
  const float *x = in[0];
  float *y = out[0];
  return forEachAxisElement(op, inShape, shapeOf(op.getIndices()), normAxis(op.getAxis(), inShape.size()), in[1],
                            [&](int64_t i, int64_t src) { y[i] = x[src]; });
}

LogicalResult run(top::CumSumOp op, Inputs in, Outputs out) {
  auto shape = shapeOf(op.getInput());
  int64_t axis = normAxis(op.getAxis(), shape.size());
  int64_t outer = product(shape, 0, axis), size = shape[axis];
  int64_t inner = product(shape, axis + 1, shape.size());
  bool exclusive = op.getExclusive(), reverse = op.getReverse();
  const float *x = in[0];
  float *y = out[0];
  parallelFor(outer * inner, rowGrain(size), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t base = (r / inner) * size * inner + r % inner;
      double acc = 0.0;
      for (int64_t k = 0; k < size; ++k) {
        int64_t at = base + (reverse ? size - 1 - k : k) * inner;
        float v = x[at];
        if (!exclusive)
          acc += v;
        y[at] = static_cast<float>(acc);
        if (exclusive)
          acc += v;
      }
    }
  });
  return success();
}

LogicalResult run(top::PadOp op, Inputs in, Outputs out) {
  auto inShape = shapeOf(op.getInput()), outShape = shapeOf(op.getOutput());
  int64_t rank = inShape.size();
  auto pads = op.getPaddings();
  top::PadMode mode = op.getPadMode();
  float value = static_cast<float>(op.getVal().convertToDouble());
  // Per axis: the input index each output index reads, or -1 for the constant.
  std::vector<std::vector<int64_t>> source(rank);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = inShape[d];
    for (int64_t o = 0; o < outShape[d]; ++o) {
      int64_t i = o - pads[d];
      if (i < 0 || i >= size) {
        if (mode == top::PadMode::edge)
          i = std::clamp<int64_t>(i, 0, size - 1);
        else if (mode == top::PadMode::reflect && size > 1) {
          int64_t period = 2 * (size - 1);
          i = ((i % period) + period) % period;
          i = i >= size ? period - i : i;
        } else if (mode == top::PadMode::reflect)
          i = 0;
        else
          i = -1;
      }
      source[d].push_back(i);
    }
  }
  SmallVector<int64_t> inStrides = rowMajorStrides(inShape);
  int64_t inner = rank ? outShape.back() : 1, rows = numel(op.getOutput()) / std::max<int64_t>(inner, 1);
  const std::vector<int64_t> &last = rank ? source.back() : std::vector<int64_t>{0};
  const float *x = in[0];
  float *y = out[0];
  parallelFor(rows, rowGrain(inner), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      float *dst = y + r * inner;
      int64_t offset = 0, rest = r;
      bool constant = false;
      for (int64_t d = rank - 2; d >= 0; --d) {
        int64_t i = source[d][rest % outShape[d]];
        rest /= outShape[d];
        constant |= i < 0;
        offset += i * inStrides[d];
      }
      if (constant) {
        std::fill(dst, dst + inner, value);
        continue;
      }
      for (int64_t j = 0; j < inner; ++j)
        dst[j] = last[j] < 0 ? value : x[offset + last[j]];
    }
  });
  return success();
}

LogicalResult run(top::Depth2SpaceOp op, Inputs in, Outputs out) {
  auto inShape = shapeOf(op.getInput()), outShape = shapeOf(op.getOutput());
  int64_t bh = op.getBlockH(), bw = op.getBlockW();
  bool crd = op.getD2sMode() == top::Depth2SpaceMode::crd, inverse = op.getIsInversed();
  // The space side [N, C, H*bh, W*bw] and the depth side [N, C*bh*bw, H, W].
  auto space = inverse ? inShape : outShape, depth = inverse ? outShape : inShape;
  int64_t n = space[0], c = space[1], h = depth[2], w = depth[3];
  const float *x = in[0];
  float *y = out[0];
  parallelFor(n * c * h, rowGrain(bh * bw * w), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t b = r / (c * h), ch = (r / h) % c, row = r % h;
      for (int64_t i = 0; i < bh; ++i) {
        for (int64_t j = 0; j < bw; ++j) {
          int64_t depthChannel = crd ? (ch * bh + i) * bw + j : (i * bw + j) * c + ch;
          int64_t depthBase = ((b * c * bh * bw + depthChannel) * h + row) * w;
          int64_t spaceBase = ((b * c + ch) * h * bh + row * bh + i) * w * bw + j;
          for (int64_t col = 0; col < w; ++col) {
            if (inverse)
              y[depthBase + col] = x[spaceBase + col * bw];
            else
              y[spaceBase + col * bw] = x[depthBase + col];
          }
        }
      }
    }
  });
  return success();
}

LogicalResult run(top::ArangeOp op, Inputs, Outputs out) {
  double start = op.getStart().convertToDouble(), delta = op.getDelta().convertToDouble();
  int64_t n = numel(op.getOutput());
  for (int64_t i = 0; i < n; ++i)
    out[0][i] = static_cast<float>(start + i * delta);
  return success();
}

/// The check of a loop imported as masked steps: the value passes unchanged when the loop kept within them.
LogicalResult run(top::LoopGuardOp op, Inputs in, Outputs out) {
  auto wanted = static_cast<int64_t>(std::lround(in[0][0]));
  auto bound = static_cast<int64_t>(op.getMaxTrips());
  if (wanted > bound)
    return op.emitOpError() << "the loop needs more than its " << bound
                            << " steps at run time; raise the bound with --loop_max_trips";
  if (op.getExact() && wanted != bound)
    return op.emitOpError() << "the loop ran " << wanted << " steps but its scan outputs hold " << bound;
  std::copy_n(in[1], numel(op.getInput()), out[0]);
  return success();
}

} // namespace tpuc::sim::ref
