//===- ReferenceKernels.cpp - Attaching the reference kernels to the Top ops ---===//
// The external models of InferenceInterface, the io-op kernels and the helpers all kernels share.
//===----------------------------------------------------------------------===//
#include "tpuc/Simulator/ReferenceKernels.h"

#include "Kernels.h"
#include "tpuc/Dialect/Top/WeightStore.h"

#include "mlir/IR/MLIRContext.h"

#include <algorithm>
#include <cblas.h>
#include <cstring>
#include <vector>

using namespace mlir;

namespace tpuc::sim {
namespace {

/// Forwards the interface call to the `ref::run` overload of the op.
template <typename OpT>
struct KernelModel : public top::InferenceInterface::ExternalModel<KernelModel<OpT>, OpT> {
  LogicalResult inference(Operation *op, ArrayRef<const float *> inputs, ArrayRef<float *> outputs) const {
    return ref::run(cast<OpT>(op), inputs, outputs);
  }
};

void attachKernels(MLIRContext *context, top::TopDialect *) {
#define TPUC_ATTACH(OP) top::OP::attachInterface<KernelModel<top::OP>>(*context);
  TPUC_TOP_KERNEL_OPS(TPUC_ATTACH)
#undef TPUC_ATTACH
}

} // namespace

void registerTopReferenceKernels(DialectRegistry &registry) { registry.addExtension(attachKernels); }

void registerTopReferenceKernels(MLIRContext &context) {
  DialectRegistry registry;
  registerTopReferenceKernels(registry);
  context.appendDialectRegistry(registry);
}

namespace ref {

//===--- shared helpers -----------------------------------------------------===//

void applyRelu(float *data, int64_t n, double limit) {
  parallelFor(n, kElementGrain, [&](int64_t begin, int64_t end) {
    if (limit > 0) {
      float hi = static_cast<float>(limit);
      for (int64_t i = begin; i < end; ++i)
        data[i] = std::min(std::max(data[i], 0.0f), hi);
    } else {
      for (int64_t i = begin; i < end; ++i)
        data[i] = std::max(data[i], 0.0f);
    }
  });
}

namespace {
thread_local OpCache *currentCache = nullptr;
} // namespace

OpCache *currentOpCache() { return currentCache; }
ScopedOpCache::ScopedOpCache(OpCache *cache) : saved(currentCache) { currentCache = cache; }
ScopedOpCache::~ScopedOpCache() { currentCache = saved; }

void parallelCopy(float *dst, const float *src, int64_t n) {
  if (dst == src)
    return;
  parallelFor(n, 4 * kElementGrain, [&](int64_t begin, int64_t end) {
    std::memcpy(dst + begin, src + begin, (end - begin) * sizeof(float));
  });
}

float *scratch(int64_t n) {
  thread_local std::vector<float> buffer;
  if (static_cast<int64_t>(buffer.size()) < n)
    buffer.resize(n);
  return buffer.data();
}

void gemmSerial(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                const float *b, int64_t ldb, float *c, int64_t ldc, float beta) {
  if (m == 0 || n == 0)
    return;
  if (k == 0) { // an empty contraction: C = beta * C
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        c[i * ldc + j] = beta == 0.0f ? 0.0f : beta * c[i * ldc + j];
    return;
  }
  // A single row or column is a matrix-vector product: OpenBLAS's sgemm would still copy all of the
  // other operand into its packed buffers first (a whole classifier weight per call).
  if (m == 1) {
    if (transB)
      cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<blasint>(n), static_cast<blasint>(k), 1.0f, b,
                  static_cast<blasint>(ldb), a, static_cast<blasint>(transA ? lda : 1), beta, c, 1);
    else
      cblas_sgemv(CblasRowMajor, CblasTrans, static_cast<blasint>(k), static_cast<blasint>(n), 1.0f, b,
                  static_cast<blasint>(ldb), a, static_cast<blasint>(transA ? lda : 1), beta, c, 1);
    return;
  }
  if (n == 1) {
    cblas_sgemv(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, static_cast<blasint>(transA ? k : m),
                static_cast<blasint>(transA ? m : k), 1.0f, a, static_cast<blasint>(lda), b,
                static_cast<blasint>(transB ? 1 : ldb), beta, c, static_cast<blasint>(ldc));
    return;
  }
  cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
              static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), 1.0f, a,
              static_cast<blasint>(lda), b, static_cast<blasint>(ldb), beta, c, static_cast<blasint>(ldc));
}

void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
          const float *b, int64_t ldb, float *c, int64_t ldc, float beta) {
  int64_t threads = ThreadPool::global().numThreads();
  if (threads == 1 || 2.0 * m * n * k < 4e6 || std::max(m, n) < 2 * threads) {
    gemmSerial(transA, transB, m, n, k, a, lda, b, ldb, c, ldc, beta);
    return;
  }
  // One block of the larger output axis per thread; each block is an independent OpenBLAS call.
  if (n >= m) {
    parallelFor(n, n / threads, [&](int64_t begin, int64_t end) {
      gemmSerial(transA, transB, m, end - begin, k, a, lda, transB ? b + begin * ldb : b + begin, ldb,
                 c + begin, ldc, beta);
    });
  } else {
    parallelFor(m, m / threads, [&](int64_t begin, int64_t end) {
      gemmSerial(transA, transB, end - begin, n, k, transA ? a + begin : a + begin * lda, lda, b, ldb,
                 c + begin * ldc, ldc, beta);
    });
  }
}

void gemmRows(bool transB, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *b,
              int64_t ldb, float *c, int64_t ldc) {
  std::vector<float> transposed;
  if (transB) { // as [k, n] rows, so the inner loop runs along n
    transposed.resize(static_cast<size_t>(k * n));
    parallelFor(n, rowGrain(k), [&](int64_t begin, int64_t end) {
      for (int64_t j = begin; j < end; ++j)
        for (int64_t kk = 0; kk < k; ++kk)
          transposed[kk * n + j] = b[j * ldb + kk];
    });
    b = transposed.data();
    ldb = n;
  }
  // Tasks of R rows x J columns: each element's sum runs over k in order in its own accumulator.
  constexpr int64_t R = 4, J = 256;
  const int64_t rowBlocks = (m + R - 1) / R, colBlocks = (n + J - 1) / J;
  parallelFor(rowBlocks * colBlocks, 1, [&](int64_t begin, int64_t end) {
    float acc[R][J];
    for (int64_t t = begin; t < end; ++t) {
      const int64_t i0 = (t / colBlocks) * R, j0 = (t % colBlocks) * J;
      const int64_t rows = std::min(R, m - i0), cols = std::min(J, n - j0);
      for (int64_t r = 0; r < rows; ++r)
        std::fill(acc[r], acc[r] + cols, 0.0f);
      for (int64_t kk = 0; kk < k; ++kk) {
        const float *brow = b + kk * ldb + j0;
        for (int64_t r = 0; r < rows; ++r) {
          const float av = a[(i0 + r) * lda + kk];
          float *row = acc[r];
          for (int64_t j = 0; j < cols; ++j)
            row[j] += av * brow[j];
        }
      }
      for (int64_t r = 0; r < rows; ++r)
        std::copy(acc[r], acc[r] + cols, c + (i0 + r) * ldc + j0);
    }
  });
}

//===--- io -----------------------------------------------------------------===//

LogicalResult run(top::InputOp op, Inputs in, Outputs out) {
  parallelCopy(out[0], in[0], numel(op.getOutput()));
  return success();
}

LogicalResult run(top::WeightOp op, Inputs, Outputs out) {
  auto data = top::readWeightF32(op);
  if (failed(data))
    return failure();
  std::memcpy(out[0], data->data(), data->size() * sizeof(float));
  return success();
}

LogicalResult run(top::NoneOp, Inputs, Outputs) { return success(); }

} // namespace ref
} // namespace tpuc::sim
