//===- MatMulKernels.cpp - Batched matmul and weight-only quantized matmul ---===//
// A batch whose right side does not vary becomes one tall row-invariant product (gemmRows: a layer group's
// row slices reproduce it bit for bit); otherwise one OpenBLAS GEMM per broadcast batch index. A16MatMul
// dequantizes its int4/int8 weight first.
//===----------------------------------------------------------------------===//
#include "Kernels.h"

#include <memory>
#include <vector>

using namespace mlir;

namespace tpuc::sim::ref {
namespace {

/// Adds a bias of `biasSize` elements (N or 1) to every row of the [rows, n] matrix and applies the fused
/// Relu.
void finishRows(float *y, int64_t rows, int64_t n, const float *bias, int64_t biasSize, bool doRelu,
                double limit) {
  if (bias) {
    parallelFor(rows, rowGrain(n), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        float *row = y + r * n;
        if (biasSize == 1)
          for (int64_t j = 0; j < n; ++j)
            row[j] += bias[0];
        else
          for (int64_t j = 0; j < n; ++j)
            row[j] += bias[j];
      }
    });
  }
  maybeRelu(doRelu, y, rows * n, limit);
}

/// Row-major strides of the batch axes of `shape`, broadcast to `batch` (0 on broadcast axes).
SmallVector<int64_t> batchStrides(ArrayRef<int64_t> batchShape, ArrayRef<int64_t> batch, int64_t matrixSize) {
  SmallVector<int64_t> strides(batch.size(), 0);
  int64_t stride = matrixSize;
  int64_t offset = batch.size() - batchShape.size();
  for (int64_t i = batchShape.size() - 1; i >= 0; --i) {
    if (batchShape[i] != 1)
      strides[i + offset] = stride;
    stride *= batchShape[i];
  }
  return strides;
}

} // namespace

LogicalResult run(top::MatMulOp op, Inputs in, Outputs out) {
  SmallVector<int64_t> a(shapeOf(op.getInput())), b(shapeOf(op.getRight()));
  bool vecA = a.size() == 1, vecB = b.size() == 1;
  if (vecA)
    a.insert(a.begin(), 1);
  if (vecB)
    b.push_back(1);
  bool transA = op.getLeftTranspose() && !vecA, transB = op.getRightTranspose() && !vecB;
  int64_t ra = a.size(), rb = b.size();
  int64_t m = transA ? a[ra - 1] : a[ra - 2], k = transA ? a[ra - 2] : a[ra - 1];
  int64_t n = transB ? b[rb - 2] : b[rb - 1];
  int64_t lda = a[ra - 1], ldb = b[rb - 1];
  ArrayRef<int64_t> batchA = ArrayRef<int64_t>(a).drop_back(2), batchB = ArrayRef<int64_t>(b).drop_back(2);
  SmallVector<int64_t> batch = *top::broadcastShapes(batchA, batchB);
  int64_t numBatch = product(batch, 0, batch.size());
  const float *x = in[0], *w = in[1], *bias = in[2];
  float *y = out[0];
  int64_t biasSize = bias ? numel(op.getBias()) : 0;
  bool rightShared = product(batchB, 0, batchB.size()) == 1;
  if (rightShared && !transA && product(batchA, 0, batchA.size()) == numBatch) {
    // Every batch multiplies the same right matrix: one [batch*M, K] x [K, N] product, row-invariant (a
    // layer group's row slices of it give the same bits).
    gemmRows(transB, numBatch * m, n, k, x, lda, w, ldb, y, n);
  } else {
    SmallVector<int64_t> stridesA = batchStrides(batchA, batch, m * k);
    SmallVector<int64_t> stridesB = batchStrides(batchB, batch, k * n);
    auto multiply = [&](int64_t bi, bool serial) {
      int64_t offA = 0, offB = 0;
      for (int64_t d = batch.size() - 1, rest = bi; d >= 0; --d) {
        offA += (rest % batch[d]) * stridesA[d], offB += (rest % batch[d]) * stridesB[d];
        rest /= batch[d];
      }
      (serial ? gemmSerial : gemm)(transA, transB, m, n, k, x + offA, lda, w + offB, ldb, y + bi * m * n, n,
                                   0.0f);
    };
    if (numBatch == 1)
      multiply(0, false);
    else // one matrix product per task
      parallelFor(numBatch, 1, [&](int64_t begin, int64_t end) {
        for (int64_t bi = begin; bi < end; ++bi)
          multiply(bi, true);
      });
  }
  finishRows(y, numBatch * m, n, bias, biasSize, op.getDoRelu(), op.getReluLimit().convertToDouble());
  return success();
}

LogicalResult run(top::A16MatMulOp op, Inputs in, Outputs out) {
  auto inShape = shapeOf(op.getInput());
  int64_t k = inShape.back(), n = shapeOf(op.getWeight())[0];
  int64_t rows = numel(op.getInput()) / std::max<int64_t>(k, 1);
  int64_t bits = op.getWeightBits(), groupSize = op.getQGroupSize(), groups = k / groupSize;
  int64_t packedK = shapeOf(op.getWeight())[1];
  bool sym = op.getSym();
  const float *q = in[1], *scale = in[2], *zp = in[3], *bias = in[4];
  // Dequantize to a float [N, K] matrix: w = (q - zp) * scale per group of K.
  auto dequantize = [&] {
    std::vector<float> weight(n * k);
    parallelFor(n, rowGrain(k), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        float *dst = weight.data() + r * k;
        const float *src = q + r * packedK;
        for (int64_t j = 0; j < k; ++j) {
          float value;
          if (bits == 4) {
            auto byte = static_cast<uint8_t>(static_cast<int64_t>(src[j / 2]) & 0xff);
            int nibble = (j % 2 == 0) ? (byte & 0xf) : (byte >> 4);
            value = static_cast<float>(sym && nibble >= 8 ? nibble - 16 : nibble);
          } else {
            value = src[j];
          }
          int64_t grp = r * groups + j / groupSize;
          dst[j] = (value - (zp ? zp[grp] : 0.0f)) * scale[grp];
        }
      }
    });
    return weight;
  };
  // Constant weights: the interpreter's op cache keeps the dequantized matrix, so decode steps that run
  // the same stage again do not dequantize again.
  OpCache *cache = currentOpCache();
  bool constant = cache && cache->isConstant(1) && cache->isConstant(2) && (!zp || cache->isConstant(3));
  std::vector<float> local;
  const std::vector<float> &weight = constant ? cache->get<std::vector<float>>([&] {
    cache->bytes += n * k * static_cast<int64_t>(sizeof(float));
    return dequantize();
  })
                                              : (local = dequantize());
  gemmRows(true, rows, n, k, in[0], k, weight.data(), k, out[0], n);
  finishRows(out[0], rows, n, bias, n, false, -1.0);
  return success();
}

} // namespace tpuc::sim::ref
