//===- AttentionKernels.cpp - Rotary embedding and scaled dot-product attention ---===//
// Attention runs two strided GEMMs per (batch, query head), heads spread over the pool, straight on the
// [B, L, H, D] layout: no transposes, KV heads shared among Hq/Hkv query heads (GQA).
//===----------------------------------------------------------------------===//
#include "Kernels.h"

#include <limits>

using namespace mlir;

namespace tpuc::sim::ref {

LogicalResult run(top::RopeOp op, Inputs in, Outputs out) {
  auto shape = shapeOf(op.getInput());
  int64_t batch = shape[0], len = shape[1], heads = shape[2], dim = shape[3], half = dim / 2;
  bool perBatch = numel(op.getCos()) == batch * len * dim && shapeOf(op.getCos()).size() == 3;
  bool interleaved = op.getRopeMode() == top::RopeMode::interleaved;
  const float *x = in[0], *cosT = in[1], *sinT = in[2];
  float *y = out[0];
  parallelFor(batch * len, rowGrain(heads * dim), [&](int64_t begin, int64_t end) {
    for (int64_t bl = begin; bl < end; ++bl) {
      int64_t table = (perBatch ? bl : bl % len) * dim;
      const float *c = cosT + table, *s = sinT + table;
      for (int64_t h = 0; h < heads; ++h) {
        const float *src = x + (bl * heads + h) * dim;
        float *dst = y + (bl * heads + h) * dim;
        if (interleaved) {
          for (int64_t i = 0; i < dim; i += 2) {
            dst[i] = src[i] * c[i] - src[i + 1] * s[i];
            dst[i + 1] = src[i + 1] * c[i + 1] + src[i] * s[i + 1];
          }
        } else {
          for (int64_t i = 0; i < half; ++i) {
            dst[i] = src[i] * c[i] - src[i + half] * s[i];
            dst[i + half] = src[i + half] * c[i + half] + src[i] * s[i + half];
          }
        }
      }
    }
  });
  return success();
}

LogicalResult run(top::AttentionOp op, Inputs in, Outputs out) {
  auto q = shapeOf(op.getQuery()), k = shapeOf(op.getKey());
  int64_t batch = q[0], lq = q[1], hq = q[2], dim = q[3], lk = k[1], hkv = k[2];
  int64_t share = hq / hkv;
  float scale = static_cast<float>(op.getScale().convertToDouble());
  const float *query = in[0], *key = in[1], *value = in[2], *mask = in[3];
  float *y = out[0];
  // Strides of the mask broadcast to [B, 1, Lq, Lk] (0 on broadcast axes).
  int64_t maskB = 0, maskQ = 0, maskK = 0;
  if (mask) {
    SmallVector<int64_t> m(shapeOf(op.getMask()));
    while (m.size() < 4)
      m.insert(m.begin(), 1);
    maskK = m[3] == 1 ? 0 : 1;
    maskQ = m[2] == 1 ? 0 : m[3];
    maskB = m[0] == 1 ? 0 : m[1] * m[2] * m[3];
  }
  // One (batch, query head) per task: two serial GEMMs and the masked softmax in between.
  parallelFor(batch * hq, 1, [&](int64_t begin, int64_t end) {
    float *s = scratch(lq * lk);
    for (int64_t task = begin; task < end; ++task) {
      int64_t b = task / hq, h = task % hq;
      const float *qh = query + (b * lq * hq + h) * dim;
      const float *kh = key + (b * lk * hkv + h / share) * dim;
      const float *vh = value + (b * lk * hkv + h / share) * dim;
      gemmSerial(false, true, lq, lk, dim, qh, hq * dim, kh, hkv * dim, s, lk);
      for (int64_t i = 0; i < lq; ++i) {
        float *row = s + i * lk;
        float maxv = -std::numeric_limits<float>::infinity();
        for (int64_t j = 0; j < lk; ++j) {
          row[j] = row[j] * scale + (mask ? mask[b * maskB + i * maskQ + j * maskK] : 0.0f);
          maxv = std::max(maxv, row[j]);
        }
        double sum = 0.0;
        for (int64_t j = 0; j < lk; ++j) {
          row[j] = std::exp(row[j] - maxv);
          sum += row[j];
        }
        float inv = static_cast<float>(1.0 / sum);
        for (int64_t j = 0; j < lk; ++j)
          row[j] *= inv;
      }
      gemmSerial(false, false, lq, dim, lk, s, lk, vh, hkv * dim, y + (b * lq * hq + h) * dim, hq * dim);
    }
  });
  return success();
}

} // namespace tpuc::sim::ref
