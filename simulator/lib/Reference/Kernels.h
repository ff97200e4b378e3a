//===- Kernels.h - Reference kernels of the Top ops (internal) -*- C++ -*-===//
// One `run` overload per Top op, defined in the *Kernels.cpp files, plus the helpers they share.
// ReferenceKernels.cpp attaches them to the ops as InferenceInterface external models.
//===----------------------------------------------------------------------===//
#ifndef TPUC_SIMULATOR_REFERENCE_KERNELS_H
#define TPUC_SIMULATOR_REFERENCE_KERNELS_H

#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Simulator/ThreadPool.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cmath>
#include <memory>

namespace tpuc::sim::ref {

using Inputs = llvm::ArrayRef<const float *>;
using Outputs = llvm::ArrayRef<float *>;

// X-macro list of every Top op with a reference kernel: the declarations below and the registration in
// ReferenceKernels.cpp expand it (InterpreterTest checks that every registered Top op got a kernel).
// clang-format off
#define TPUC_TOP_KERNEL_OPS(X)                                                                     \
  X(InputOp) X(WeightOp) X(NoneOp)                                                                 \
  X(ConvOp) X(DeconvOp) X(DeformConv2DOp) X(MatMulOp) X(A16MatMulOp)                                \
  X(MaxPoolOp) X(AvgPoolOp) X(AdaptiveAvgPoolOp) X(MaxPoolWithMaskOp) X(MaxUnpoolOp) X(RoiAlignOp) X(RoiPoolingOp) \
  X(BatchNormOp) X(LayerNormOp) X(RMSNormOp) X(GroupNormOp) X(InstanceNormOp) X(SoftmaxOp)         \
  X(RopeOp) X(AttentionOp)                                                                         \
  X(AddOp) X(SubOp) X(MulOp) X(DivOp) X(PowerOp) X(MaxOp) X(MinOp)                                \
  X(AddConstOp) X(SubConstOp) X(MulConstOp) X(DivConstOp) X(MaxConstOp) X(MinConstOp)             \
  X(ReluOp) X(LeakyReluOp) X(ClipOp) X(HardSigmoidOp) X(GELUOp) X(PowOp) X(SigmoidOp) X(TanhOp)    \
  X(SiLUOp) X(MishOp) X(HardSwishOp) X(ExpOp) X(LogOp) X(SqrtOp) X(RsqrtOp) X(AbsOp) X(ErfOp)               \
  X(ReciprocalOp) X(FloorOp) X(CeilOp) X(RoundOp) X(SignOp) X(SinOp) X(CosOp) X(TanOp) X(AsinOp)   \
  X(AcosOp) X(AtanOp) X(SinhOp) X(CoshOp) X(AsinhOp) X(AcoshOp) X(AtanhOp)                         \
  X(ReshapeOp) X(SqueezeOp) X(UnsqueezeOp) X(PermuteOp) X(ConcatOp) X(SliceOp) X(SplitOp)          \
  X(GatherOp) X(PadOp) X(ReduceOp) X(InterpOp) X(Depth2SpaceOp) X(CastOp) X(CompareOp) X(WhereOp)  \
  X(TopKOp) X(ArangeOp) X(GatherElementsOp) X(CumSumOp)                                            \
  X(ScatterElementsOp) X(ScatterNDOp) X(NonZeroOp) X(UniqueOp) X(GridSampleOp) X(NonMaxSuppressionOp)          \
  X(RepetitionPenaltyOp) X(DynamicSliceOp) X(LoopGuardOp)
// clang-format on

#define TPUC_DECLARE_KERNEL(OP) mlir::LogicalResult run(top::OP op, Inputs in, Outputs out);
TPUC_TOP_KERNEL_OPS(TPUC_DECLARE_KERNEL)
#undef TPUC_DECLARE_KERNEL

//===--- shared helpers -----------------------------------------------------===//

/// Static shape of an operand or result.
inline llvm::ArrayRef<int64_t> shapeOf(mlir::Value value) { return top::getShape(value); }
inline int64_t numel(mlir::Value value) { return top::getNumElements(top::getShape(value)); }

/// Product of `shape[begin, end)`.
inline int64_t product(llvm::ArrayRef<int64_t> shape, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end && i < shape.size(); ++i)
    n *= shape[i];
  return n;
}

/// Normalizes a possibly negative axis (the verifier has checked its range).
inline int64_t normAxis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

/// Grain for element-wise work: chunks below this size are not worth a thread hand-off.
constexpr int64_t kElementGrain = 1 << 15;

/// Grain, in rows, for row-wise work where each row has `rowSize` elements.
inline int64_t rowGrain(int64_t rowSize) {
  return std::max<int64_t>(1, kElementGrain / std::max<int64_t>(rowSize, 1));
}

/// Applies a fused Relu: max(x, 0), clamped to `limit` when that is positive.
void applyRelu(float *data, int64_t n, double limit);
/// Applies the fused Relu of ops with `do_relu`/`relu_limit` attributes if it is on.
inline void maybeRelu(bool doRelu, float *data, int64_t n, double limit) {
  if (doRelu)
    applyRelu(data, n, limit);
}

/// Copies `n` floats in parallel chunks.
void parallelCopy(float *dst, const float *src, int64_t n);

/// C = op(A) * op(B) + beta * C for row-major matrices: one single-threaded OpenBLAS call per block of
/// the larger output axis, the blocks spread over the pool (serial when called from a pool worker).
/// OpenBLAS's own threads stay off (ThreadPool sets it to one thread) so the two never oversubscribe.
void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
          const float *b, int64_t ldb, float *c, int64_t ldc, float beta = 0.0f);
/// The same GEMM as one OpenBLAS call on the calling thread.
void gemmSerial(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                const float *b, int64_t ldb, float *c, int64_t ldc, float beta = 0.0f);

/// C = A * B for row-major A [m, k] and B [k, n] (B given as [n, k] with `transB`), row-invariant: each
/// element of C accumulates its k products in order, one multiply-add each, whatever m and however the
/// work is blocked and threaded. A layer group computes a matmul's rows slice by slice; with this kernel
/// each slice gives exactly the rows of the whole product (OpenBLAS picks its paths by the matrix sizes).
void gemmRows(bool transB, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *b,
              int64_t ldb, float *c, int64_t ldc);

/// A scratch buffer of at least `n` floats, reused across kernel calls on the calling thread (im2col
/// columns and the like), so large temporaries are not mapped and faulted in again for every op.
float *scratch(int64_t n);

/// Data a kernel derives from operands that do not change between runs (packed convolution filters),
/// kept by the interpreter per op for as long as it keeps the op's weights: the cache belongs to one op
/// of one interpreter, and Interpreter::releaseMemory drops it together with the weights it was built
/// from, so it is never looked up by a buffer address that could have been reused.
class OpCache {
public:
  /// `constant[i]`: operand i is a top.weight, whose buffer stays the same while the cache lives.
  explicit OpCache(llvm::SmallVector<bool> constant) : constant(std::move(constant)) {}
  bool isConstant(unsigned operand) const { return operand < constant.size() && constant[operand]; }
  /// The derived data of type T, built by `make()` on first use.
  template <typename T, typename Make> T &get(Make make) {
    if (!data)
      data = std::make_shared<T>(make());
    return *static_cast<T *>(data.get());
  }
  void clear() {
    data.reset();
    bytes = 0;
  }
  /// Bytes held, as reported by the builder (for RunStats::weightBytes).
  int64_t bytes = 0;

private:
  llvm::SmallVector<bool> constant;
  std::shared_ptr<void> data;
};

/// The cache of the op this thread is running, or null (kernels called outside the interpreter derive
/// their data afresh on every call).
OpCache *currentOpCache();
/// Makes `cache` the current op cache of this thread for the scope of the object.
class ScopedOpCache {
public:
  explicit ScopedOpCache(OpCache *cache);
  ~ScopedOpCache();
  ScopedOpCache(const ScopedOpCache &) = delete;
  ScopedOpCache &operator=(const ScopedOpCache &) = delete;

private:
  OpCache *saved;
};

/// The float value of an index tensor element, as an integer (indices are carried as float32).
inline int64_t toIndex(float value) { return static_cast<int64_t>(std::llround(value)); }

/// GatherElements / ScatterElements: for each element i of `indices` (shape `idxShape`, the rank of
/// `dataShape`), the flat position in the data of i's coordinates with the one on `axis` replaced by
/// indices[i] (negative from the end): fn(i, position), in order. Fails on `op`, naming the axis or the
/// index, when the indices reach beyond the data.
mlir::LogicalResult forEachAxisElement(mlir::Operation *op, llvm::ArrayRef<int64_t> dataShape,
                                       llvm::ArrayRef<int64_t> idxShape, int64_t axis, const float *indices,
                                       llvm::function_ref<void(int64_t, int64_t)> fn);

} // namespace tpuc::sim::ref

#endif // TPUC_SIMULATOR_REFERENCE_KERNELS_H
