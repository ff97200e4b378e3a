//===- NormKernels.cpp - Normalizations and softmax -------------------------===//
// Batch, layer, RMS, group and instance norm, softmax and log-softmax. Statistics are accumulated in
// double (two passes: mean, then variance) so the reference stays close to a float64 computation.
//===----------------------------------------------------------------------===//
#include "Kernels.h"

#include <limits>
#include <vector>

using namespace mlir;

namespace tpuc::sim::ref {
namespace {

/// Normalizes `rows` rows of `size` elements: y = (x - mean) / sqrt(var + eps) * w + b, where
/// `affine(row, j)` returns the {w, b} of element j of a row.
template <typename Affine>
void normalizeRows(const float *x, float *y, int64_t rows, int64_t size, double eps, Affine affine) {
  parallelFor(rows, rowGrain(size), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float *src = x + r * size;
      float *dst = y + r * size;
      double sum = 0.0;
      for (int64_t j = 0; j < size; ++j)
        sum += src[j];
      double mean = sum / size, sq = 0.0;
      for (int64_t j = 0; j < size; ++j)
        sq += (src[j] - mean) * (src[j] - mean);
      double inv = 1.0 / std::sqrt(sq / size + eps);
      for (int64_t j = 0; j < size; ++j) {
        auto [w, b] = affine(r, j);
        dst[j] = static_cast<float>((src[j] - mean) * inv * w + b);
      }
    }
  });
}

inline float at(const float *data, int64_t i, float fallback) { return data ? data[i] : fallback; }

} // namespace

LogicalResult run(top::BatchNormOp op, Inputs in, Outputs out) {
  auto shape = shapeOf(op.getInput());
  int64_t channels = shape[1], planes = shape[0] * channels, size = product(shape, 2, shape.size());
  const float *x = in[0], *mean = in[1], *var = in[2], *gamma = in[3], *beta = in[4];
  float *y = out[0];
  double eps = op.getEpsilon().convertToDouble();
  std::vector<float> scale(channels), shift(channels);
  for (int64_t c = 0; c < channels; ++c) {
    double s = at(gamma, c, 1.0f) / std::sqrt(static_cast<double>(var[c]) + eps);
    scale[c] = static_cast<float>(s);
    shift[c] = static_cast<float>(at(beta, c, 0.0f) - mean[c] * s);
  }
  parallelFor(planes, rowGrain(size), [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      float s = scale[p % channels], t = shift[p % channels];
      const float *src = x + p * size;
      float *dst = y + p * size;
      for (int64_t i = 0; i < size; ++i)
        dst[i] = src[i] * s + t;
    }
  });
  maybeRelu(op.getDoRelu(), y, planes * size, op.getReluLimit().convertToDouble());
  return success();
}

LogicalResult run(top::LayerNormOp op, Inputs in, Outputs out) {
  auto shape = shapeOf(op.getInput());
  int64_t axis = normAxis(op.getAxis(), shape.size());
  int64_t size = product(shape, axis, shape.size()), rows = product(shape, 0, axis);
  const float *w = in[1], *b = in[2];
  normalizeRows(in[0], out[0], rows, size, op.getEps().convertToDouble(), [&](int64_t, int64_t j) {
    return std::pair<double, double>{at(w, j, 1.0f), at(b, j, 0.0f)};
  });
  return success();
}

LogicalResult run(top::RMSNormOp op, Inputs in, Outputs out) {
  auto shape = shapeOf(op.getInput());
  int64_t size = shape.back(), rows = numel(op.getInput()) / std::max<int64_t>(size, 1);
  const float *x = in[0], *gamma = in[1];
  float *y = out[0];
  double eps = op.getEps().convertToDouble();
  parallelFor(rows, rowGrain(size), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float *src = x + r * size;
      float *dst = y + r * size;
      double sq = 0.0;
      for (int64_t j = 0; j < size; ++j)
        sq += static_cast<double>(src[j]) * src[j];
      double inv = 1.0 / std::sqrt(sq / size + eps);
      for (int64_t j = 0; j < size; ++j)
        dst[j] = static_cast<float>(src[j] * inv * at(gamma, j, 1.0f));
    }
  });
  return success();
}

LogicalResult run(top::GroupNormOp op, Inputs in, Outputs out) {
  auto shape = shapeOf(op.getInput());
  int64_t channels = shape[1], groups = op.getNumGroups(), spatial = product(shape, 2, shape.size());
  int64_t perGroup = channels / groups;
  const float *w = in[1], *b = in[2];
  normalizeRows(in[0], out[0], shape[0] * groups, perGroup * spatial, op.getEps().convertToDouble(),
                [&](int64_t row, int64_t j) {
                  int64_t c = (row % groups) * perGroup + j / spatial;
                  return std::pair<double, double>{at(w, c, 1.0f), at(b, c, 0.0f)};
                });
  return success();
}

LogicalResult run(top::InstanceNormOp op, Inputs in, Outputs out) {
  auto shape = shapeOf(op.getInput());
  int64_t channels = shape[1], spatial = product(shape, 2, shape.size());
  const float *w = in[1], *b = in[2];
  normalizeRows(in[0], out[0], shape[0] * channels, spatial, op.getEps().convertToDouble(),
                [&](int64_t row, int64_t) {
                  int64_t c = row % channels;
                  return std::pair<double, double>{at(w, c, 1.0f), at(b, c, 0.0f)};
                });
  return success();
}

LogicalResult run(top::SoftmaxOp op, Inputs in, Outputs out) {
  auto shape = shapeOf(op.getInput());
  int64_t axis = normAxis(op.getAxis(), shape.size());
  int64_t outer = product(shape, 0, axis), size = shape[axis];
  int64_t inner = product(shape, axis + 1, shape.size());
  bool log = op.getLog();
  const float *x = in[0];
  float *y = out[0];
  // Each task handles whole [size, inner] blocks; statistics per inner position.
  parallelFor(outer, rowGrain(size * inner), [&](int64_t begin, int64_t end) {
    std::vector<float> maxv(inner);
    std::vector<double> sum(inner);
    for (int64_t o = begin; o < end; ++o) {
      const float *src = x + o * size * inner;
      float *dst = y + o * size * inner;
      std::fill(maxv.begin(), maxv.end(), -std::numeric_limits<float>::infinity());
      std::fill(sum.begin(), sum.end(), 0.0);
      for (int64_t a = 0; a < size; ++a)
        for (int64_t i = 0; i < inner; ++i)
          maxv[i] = std::max(maxv[i], src[a * inner + i]);
      for (int64_t a = 0; a < size; ++a)
        for (int64_t i = 0; i < inner; ++i) {
          float e = std::exp(src[a * inner + i] - maxv[i]);
          dst[a * inner + i] = e;
          sum[i] += e;
        }
      for (int64_t a = 0; a < size; ++a)
        for (int64_t i = 0; i < inner; ++i) {
          float &v = dst[a * inner + i];
          v = log ? static_cast<float>(src[a * inner + i] - maxv[i] - std::log(sum[i]))
                  : static_cast<float>(v / sum[i]);
        }
    }
  });
  return success();
}

} // namespace tpuc::sim::ref
