//===- ReduceKernels.cpp - Reductions and top-k -----------------------------===//
// Reductions collapse the shape to [outer, reduced, inner] when the reduced axes are adjacent (the usual
// case) and accumulate in double; other axis sets go through a table of reduced offsets.
//===----------------------------------------------------------------------===//
#include "Kernels.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

using namespace mlir;

namespace tpuc::sim::ref {
namespace {

/// How one reduction mode starts, accumulates and finishes.
struct Reducer {
  top::ReduceMode mode;
  double init() const {
    switch (mode) {
    case top::ReduceMode::prod:
      return 1.0;
    case top::ReduceMode::max:
      return -std::numeric_limits<double>::infinity();
    case top::ReduceMode::min:
      return std::numeric_limits<double>::infinity();
    default:
      return 0.0;
    }
  }
  double combine(double acc, double x) const {
    switch (mode) {
    case top::ReduceMode::mean:
    case top::ReduceMode::sum:
      return acc + x;
    case top::ReduceMode::max:
      return std::max(acc, x);
    case top::ReduceMode::min:
      return std::min(acc, x);
    case top::ReduceMode::prod:
      return acc * x;
    case top::ReduceMode::l2:
      return acc + x * x;
    case top::ReduceMode::l1:
      return acc + std::fabs(x);
    }
    return acc;
  }
  float finish(double acc, int64_t count) const {
    if (mode == top::ReduceMode::mean)
      return static_cast<float>(acc / count);
    if (mode == top::ReduceMode::l2)
      return static_cast<float>(std::sqrt(acc));
    return static_cast<float>(acc);
  }
};

} // namespace

LogicalResult run(top::ReduceOp op, Inputs in, Outputs out) {
  auto shape = shapeOf(op.getInput());
  SmallVector<bool> reduced(shape.size(), false);
  for (int64_t axis : op.getAxes())
    reduced[normAxis(axis, shape.size())] = true;
  // Collapse to runs of kept / reduced axes (size-1 axes do not matter).
  SmallVector<int64_t> sizes;
  SmallVector<bool> kinds;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1)
      continue;
    if (!kinds.empty() && kinds.back() == reduced[i])
      sizes.back() *= shape[i];
    else
      sizes.push_back(shape[i]), kinds.push_back(reduced[i]);
  }
  Reducer reducer{op.getMode()};
  const float *x = in[0];
  float *y = out[0];
  int64_t count = 1;
  for (auto [size, kind] : llvm::zip(sizes, kinds))
    if (kind)
      count *= size;
  // [outer, count, inner] when at most one run of reduced axes exists.
  int64_t reducedRuns = llvm::count(kinds, true);
  if (reducedRuns <= 1) {
    int64_t outer = 1, inner = 1;
    bool after = false;
    for (auto [size, kind] : llvm::zip(sizes, kinds)) {
      if (kind)
        after = true;
      else
        (after ? inner : outer) *= size;
    }
    constexpr int64_t kBlock = 256;
    int64_t blocks = (inner + kBlock - 1) / kBlock;
    parallelFor(outer * blocks, rowGrain(count * std::min(inner, kBlock)), [&](int64_t begin, int64_t end) {
      std::vector<double> acc(kBlock);
      for (int64_t task = begin; task < end; ++task) {
        int64_t o = task / blocks, j0 = (task % blocks) * kBlock, width = std::min(kBlock, inner - j0);
        std::fill(acc.begin(), acc.begin() + width, reducer.init());
        const float *src = x + o * count * inner + j0;
        for (int64_t r = 0; r < count; ++r, src += inner)
          for (int64_t j = 0; j < width; ++j)
            acc[j] = reducer.combine(acc[j], src[j]);
        for (int64_t j = 0; j < width; ++j)
          y[o * inner + j0 + j] = reducer.finish(acc[j], count);
      }
    });
    return success();
  }
  // General case: offsets of the reduced positions and of each output's first element.
  SmallVector<int64_t> strides(sizes.size(), 1);
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * sizes[i + 1];
  auto offsets = [&](bool kind) {
    std::vector<int64_t> result{0};
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (kinds[d] != kind)
        continue;
      std::vector<int64_t> next;
      next.reserve(result.size() * sizes[d]);
      for (int64_t base : result)
        for (int64_t i = 0; i < sizes[d]; ++i)
          next.push_back(base + i * strides[d]);
      result = std::move(next);
    }
    return result;
  };
  std::vector<int64_t> reducedOffsets = offsets(true), keptOffsets = offsets(false);
  parallelFor(keptOffsets.size(), rowGrain(count), [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      double acc = reducer.init();
      for (int64_t r : reducedOffsets)
        acc = reducer.combine(acc, x[keptOffsets[o] + r]);
      y[o] = reducer.finish(acc, count);
    }
  });
  return success();
}

LogicalResult run(top::TopKOp op, Inputs in, Outputs out) {
  auto shape = shapeOf(op.getInput());
  int64_t axis = normAxis(op.getAxis(), shape.size());
  int64_t outer = product(shape, 0, axis), size = shape[axis];
  int64_t inner = product(shape, axis + 1, shape.size()), k = op.getK();
  bool largest = op.getLargest();
  const float *x = in[0];
  float *values = out[0], *indices = out[1];
  parallelFor(outer * inner, rowGrain(size), [&](int64_t begin, int64_t end) {
    std::vector<int64_t> order(size);
    for (int64_t line = begin; line < end; ++line) {
      int64_t o = line / inner, i = line % inner;
      const float *src = x + o * size * inner + i;
      std::iota(order.begin(), order.end(), 0);
      // Ties keep the lower index first, as ONNX requires.
      auto before = [&](int64_t a, int64_t b) {
        float va = src[a * inner], vb = src[b * inner];
        if (va != vb)
          return largest ? va > vb : va < vb;
        return a < b;
      };
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        int64_t dst = (o * k + j) * inner + i;
        values[dst] = src[order[j] * inner];
        indices[dst] = static_cast<float>(order[j]);
      }
    }
  });
  return success();
}

} // namespace tpuc::sim::ref
