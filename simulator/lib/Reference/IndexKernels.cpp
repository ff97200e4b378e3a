//===- IndexKernels.cpp - Scatters, NonZero, grid sampling and NMS -------------===//
// Ops whose indices or coordinates are data: ONNX ScatterElements / ScatterND with their reductions,
// NonZero, Unique and NonMaxSuppression (whose result extent the model declares and the run checks),
// GridSample.
// Written after the ONNX reference implementation (onnx/reference/ops) and ONNX Runtime's CPU kernels.
//===----------------------------------------------------------------------===//
#include "Kernels.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>

using namespace mlir;

namespace tpuc::sim::ref {
namespace {

float combine(top::ScatterReduce r, float target, float update) {
  switch (r) {
  case top::ScatterReduce::add:
    return target + update;
  case top::ScatterReduce::mul:
    return target * update;
  case top::ScatterReduce::max:
    return std::max(target, update);
  case top::ScatterReduce::min:
    return std::min(target, update);
  case top::ScatterReduce::none:
    break;
  }
  return update;
}

std::vector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  std::vector<int64_t> stride(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    stride[d] = stride[d + 1] * shape[d + 1];
  return stride;
}

} // namespace

LogicalResult run(top::ScatterElementsOp op, Inputs in, Outputs out) {
  auto inShape = shapeOf(op.getInput());
  std::memcpy(out[0], in[0], numel(op.getInput()) * sizeof(float));
  const top::ScatterReduce reduction = op.getReduction();
  return forEachAxisElement(op, inShape, shapeOf(op.getIndices()), normAxis(op.getAxis(), inShape.size()), in[1],
                            [&](int64_t i, int64_t dst) { out[0][dst] = combine(reduction, out[0][dst], in[2][i]); });
}

LogicalResult run(top::ScatterNDOp op, Inputs in, Outputs out) {
  auto inShape = shapeOf(op.getInput()), idxShape = shapeOf(op.getIndices());
  int64_t k = idxShape.back(), tuples = numel(op.getIndices()) / k;
  int64_t slice = product(inShape, k, inShape.size());
  std::vector<int64_t> stride = stridesOf(inShape);
  std::memcpy(out[0], in[0], numel(op.getInput()) * sizeof(float));
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = 0;
    for (int64_t d = 0; d < k; ++d) {
      int64_t v = toIndex(in[1][t * k + d]);
      if (v < -inShape[d] || v >= inShape[d])
        return op.emitOpError() << "index " << v << " is out of range for axis " << d << " of size " << inShape[d];
      offset += (v < 0 ? v + inShape[d] : v) * stride[d];
    }
    for (int64_t j = 0; j < slice; ++j)
      out[0][offset + j] = combine(op.getReduction(), out[0][offset + j], in[2][t * slice + j]);
  }
  return success();
}

LogicalResult run(top::NonZeroOp op, Inputs in, Outputs out) {
  auto shape = shapeOf(op.getInput());
  int64_t n = numel(op.getInput()), rank = shape.size(), want = shapeOf(op.getOutput())[1];
  int64_t found = std::count_if(in[0], in[0] + n, [](float v) { return v != 0.0f; });
  if (found != want)
    return op.emitOpError() << "the input has " << found << " non-zero elements but the result type holds " << want;
  std::vector<int64_t> stride = stridesOf(shape);
  int64_t col = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (in[0][i] == 0.0f)
      continue;
    for (int64_t d = 0, rest = i; d < rank; ++d) {
      out[0][d * want + col] = static_cast<float>(rest / stride[d]);
      rest %= stride[d];
    }
    ++col;
  }
  return success();
}

/// ONNX Unique (np.unique): slices along the axis (or single elements) compared as the row-major sequence of
/// their elements, ascending when sorted, else in the order they first occur.
LogicalResult run(top::UniqueOp op, Inputs in, Outputs out) {
  auto shape = shapeOf(op.getInput());
  int64_t total = numel(op.getInput());
  std::optional<int64_t> axis;
  if (auto a = op.getAxis())
    axis = *a < 0 ? *a + static_cast<int64_t>(shape.size()) : *a;
  int64_t along = axis ? shape[*axis] : total, inner = 1;
  if (axis)
    for (size_t d = *axis + 1; d < shape.size(); ++d)
      inner *= shape[d];
  int64_t outer = total / along / inner, width = outer * inner;
  auto slice = [&](int64_t a) {
    std::vector<float> v(width);
    for (int64_t o = 0; o < outer; ++o)
      std::copy_n(in[0] + (o * along + a) * inner, inner, v.begin() + o * inner);
    return v;
  };
  std::map<std::vector<float>, int64_t> seen; // slice -> its first position
  std::vector<int64_t> firstOrder;            // first positions in the order they occur
  std::vector<int64_t> firstOf(along);        // each position's first position, from the one lookup
  for (int64_t a = 0; a < along; ++a) {
    auto [it, inserted] = seen.emplace(slice(a), a);
    firstOf[a] = it->second;
    if (inserted)
      firstOrder.push_back(a);
  }
  int64_t n = static_cast<int64_t>(firstOrder.size()), want = numel(op.getCounts());
  if (n != want)
    return op.emitOpError() << "the input has " << n << " distinct " << (axis ? "slices" : "values")
                            << " but the result types hold " << want;
  if (op.getSorted()) {
    firstOrder.clear();
    for (const auto &entry : seen) // std::map orders the slices lexicographically
      firstOrder.push_back(entry.second);
  }
  std::vector<int64_t> rank(along); // first position -> index among the distinct slices
  for (int64_t u = 0; u < n; ++u)
    rank[firstOrder[u]] = u;
  std::fill_n(out[3], n, 0.0f);
  for (int64_t a = 0; a < along; ++a) {
    int64_t u = rank[firstOf[a]];
    out[2][a] = static_cast<float>(u);
    out[3][u] += 1.0f;
  }
  for (int64_t u = 0; u < n; ++u) {
    out[1][u] = static_cast<float>(firstOrder[u]);
    for (int64_t o = 0; o < outer; ++o)
      std::copy_n(in[0] + (o * along + firstOrder[u]) * inner, inner, out[0] + (o * n + u) * inner);
  }
  return success();
}

namespace {

/// GridSample's helpers, as ONNX's reference defines them.
float denormalize(float v, int64_t length, bool alignCorners) {
  return alignCorners ? (v + 1) / 2.0f * (length - 1) : ((v + 1) * length - 1) / 2.0f;
}

float reflect(float x, float lo, float hi) {
  float range = hi - lo;
  if (range <= 0)
    return lo;
  if (x < lo) {
    float dx = lo - x;
    int64_t n = static_cast<int64_t>(dx / range);
    float r = dx - n * range;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    float dx = x - hi;
    int64_t n = static_cast<int64_t>(dx / range);
    float r = dx - n * range;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return x;
}

void cubicCoefficients(float x, float c[4]) {
  const float a = -0.75f;
  x = std::abs(x);
  c[0] = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a;
  c[1] = ((a + 2) * x - (a + 3)) * x * x + 1;
  c[2] = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1;
  c[3] = ((a * (2 - x) - 5 * a) * (2 - x) + 8 * a) * (2 - x) - 4 * a;
}

} // namespace

LogicalResult run(top::GridSampleOp op, Inputs in, Outputs out) {
  auto inShape = shapeOf(op.getInput()), gridShape = shapeOf(op.getGrid());
  int64_t batch = inShape[0], channels = inShape[1], h = inShape[2], w = inShape[3];
  int64_t ho = gridShape[1], wo = gridShape[2];
  bool align = op.getAlignCorners();
  top::GridPadding padding = op.getPadding();
  top::GridMode mode = op.getMode();
  float xMin = align ? 0.0f : -0.5f, xMax = align ? w - 1.0f : w - 0.5f;
  float yMin = align ? 0.0f : -0.5f, yMax = align ? h - 1.0f : h - 0.5f;
  parallelFor(batch * channels, 1, [&](int64_t begin, int64_t end) {
    for (int64_t nc = begin; nc < end; ++nc) {
      int64_t n = nc / channels;
      const float *image = in[0] + nc * h * w;
      auto pixel = [&](int64_t x, int64_t y) -> float {
        if (padding == top::GridPadding::zeros)
          return x >= 0 && x < w && y >= 0 && y < h ? image[y * w + x] : 0.0f;
        if (padding == top::GridPadding::reflection) {
          x = static_cast<int64_t>(reflect((float)x, xMin, xMax));
          y = static_cast<int64_t>(reflect((float)y, yMin, yMax));
        }
        x = std::clamp<int64_t>(x, 0, w - 1);
        y = std::clamp<int64_t>(y, 0, h - 1);
        return image[y * w + x];
      };
      for (int64_t oy = 0; oy < ho; ++oy)
        for (int64_t ox = 0; ox < wo; ++ox) {
          const float *g = in[1] + ((n * ho + oy) * wo + ox) * 2;
          float x = denormalize(g[0], w, align), y = denormalize(g[1], h, align);
          if (mode == top::GridMode::nearest) {
            x = std::nearbyint(x);
            y = std::nearbyint(y);
          }
          if (mode != top::GridMode::cubic && (x < xMin || x > xMax || y < yMin || y > yMax)) {
            if (padding == top::GridPadding::border) {
              x = std::clamp(x, 0.0f, w - 1.0f);
              y = std::clamp(y, 0.0f, h - 1.0f);
            } else if (padding == top::GridPadding::reflection) {
              x = reflect(x, xMin, xMax);
              y = reflect(y, yMin, yMax);
            }
          }
          float v = 0;
          if (mode == top::GridMode::nearest) {
            v = pixel(static_cast<int64_t>(x), static_cast<int64_t>(y));
          } else if (mode == top::GridMode::linear) {
            int64_t x1 = static_cast<int64_t>(std::floor(x)), y1 = static_cast<int64_t>(std::floor(y));
            float dx = x - x1, dy = y - y1;
            v = (1 - dy) * ((1 - dx) * pixel(x1, y1) + dx * pixel(x1 + 1, y1)) +
                dy * ((1 - dx) * pixel(x1, y1 + 1) + dx * pixel(x1 + 1, y1 + 1));
          } else {
            int64_t x0 = static_cast<int64_t>(std::floor(x)) - 1, y0 = static_cast<int64_t>(std::floor(y)) - 1;
            float cx[4], cy[4];
            cubicCoefficients(x - x0 - 1, cx);
            cubicCoefficients(y - y0 - 1, cy);
            for (int i = 0; i < 4; ++i) {
              float row = 0;
              for (int j = 0; j < 4; ++j)
                row += cx[j] * pixel(x0 + j, y0 + i);
              v += cy[i] * row;
            }
          }
          out[0][(nc * ho + oy) * wo + ox] = v;
        }
    }
  });
  return success();
}

LogicalResult run(top::NonMaxSuppressionOp op, Inputs in, Outputs out) {
  auto boxShape = shapeOf(op.getBoxes()), scoreShape = shapeOf(op.getScores());
  int64_t batches = boxShape[0], boxes = boxShape[1], classes = scoreShape[1];
  auto scalar = [&](Value v, size_t index, float fallback) {
    return top::isNone(v) || numel(v) == 0 ? fallback : in[index][0];
  };
  int64_t maxPerClass = static_cast<int64_t>(scalar(op.getMaxOutputBoxesPerClass(), 2, 0.0f));
  float iouThreshold = scalar(op.getIouThreshold(), 3, 0.0f);
  float scoreThreshold = scalar(op.getScoreThreshold(), 4, -std::numeric_limits<float>::infinity());
  bool center = op.getCenterPointBox();
  // (y1, x1, y2, x2) with y1 <= y2, x1 <= x2.
  auto corners = [&](int64_t b, int64_t i, float c[4]) {
    const float *p = in[0] + (b * boxes + i) * 4;
    if (center) {
      c[0] = p[1] - p[3] / 2, c[1] = p[0] - p[2] / 2, c[2] = p[1] + p[3] / 2, c[3] = p[0] + p[2] / 2;
    } else {
      c[0] = std::min(p[0], p[2]), c[1] = std::min(p[1], p[3]), c[2] = std::max(p[0], p[2]),
      c[3] = std::max(p[1], p[3]);
    }
  };
  auto iou = [&](int64_t b, int64_t i, int64_t j) {
    float a[4], c[4];
    corners(b, i, a);
    corners(b, j, c);
    float ih = std::min(a[2], c[2]) - std::max(a[0], c[0]), iw = std::min(a[3], c[3]) - std::max(a[1], c[1]);
    if (ih <= 0 || iw <= 0)
      return 0.0f;
    float inter = ih * iw, uni = (a[2] - a[0]) * (a[3] - a[1]) + (c[2] - c[0]) * (c[3] - c[1]) - inter;
    return uni > 0 ? inter / uni : 0.0f;
  };
  std::vector<std::array<int64_t, 3>> selected;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      const float *score = in[1] + (b * classes + c) * boxes;
      std::vector<int64_t> order;
      for (int64_t i = 0; i < boxes; ++i)
        if (score[i] > scoreThreshold)
          order.push_back(i);
      std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return score[x] > score[y]; });
      std::vector<int64_t> kept;
      for (int64_t i : order) {
        if ((int64_t)kept.size() >= maxPerClass)
          break;
        if (std::all_of(kept.begin(), kept.end(), [&](int64_t k) { return iou(b, i, k) <= iouThreshold; }))
          kept.push_back(i);
      }
      for (int64_t i : kept)
        selected.push_back({b, c, i});
    }
  int64_t want = shapeOf(op.getOutput())[0];
  if ((int64_t)selected.size() != want)
    return op.emitOpError() << "kept " << selected.size() << " boxes but the result type holds " << want;
  for (size_t r = 0; r < selected.size(); ++r)
    for (int k = 0; k < 3; ++k)
      out[0][r * 3 + k] = static_cast<float>(selected[r][k]);
  return success();
}

} // namespace tpuc::sim::ref
