//===- TpuTraits.h - Backend roles of Tpu ops -------------------*- C++ -*-===//
// The role trait behind `tpu::BackendInterface` (TpuInterfaces.td): what the backend planner may do with
// an op. Plain C++, no MLIR beyond the trait base.
//===----------------------------------------------------------------------===//
#ifndef TPUC_DIALECT_TPU_TPUTRAITS_H
#define TPUC_DIALECT_TPU_TPUTRAITS_H

#include "tpuc/Support/Window2D.h"

#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace tpuc::tpu {

/// What the backend may do with an op. The first four have a local form (computed slice by slice from
/// local memory in a layer group, N and H cut); Reshape and Concat can be in place in DDR. MatMul and the
/// normalizations (LayerNorm, RMSNorm, Softmax) have a row form instead, which the backend graph grants
/// from their shapes (a matmul's weight on the right, a normalization along the last axis); the rest
/// run from DDR.
enum class BackendRole {
  Other,      ///< Computed by itself from DDR.
  Conv,       ///< 2-D convolution with a window (groups, dilation).
  Pool,       ///< Max / average pooling with a window.
  Eltwise,    ///< Binary element-wise with broadcasting.
  Unary,      ///< Element-wise on one activation.
  Reshape,    ///< Same bytes, new shape: in place in DDR.
  Concat,     ///< Concatenation: in place in DDR when possible.
  MatMul,     ///< Matrix multiply (weights as the right operand).
  GlobalPool, ///< Reduction over H and W.
  Attention,  ///< Fused attention: two matmuls and a softmax.
  Gather,     ///< Reads only the selected slices of its data operand.
  DeformConv, ///< Deformable conv: bilinear samples gathered on the EU, then a matmul on the cube.
  LayerNorm,  ///< Layer normalization from `axis` on (mean, variance, affine) on the EU.
  RMSNorm,    ///< Root-mean-square normalization over the last axis on the EU.
  Softmax,    ///< Softmax or log-softmax along `axis` on the EU.
};

/// Whether ops of this role have a local form (layer groups).
constexpr bool hasLocalForm(BackendRole role) {
  return role == BackendRole::Conv || role == BackendRole::Pool || role == BackendRole::Eltwise ||
         role == BackendRole::Unary;
}

/// A 2-D window as the backend plans it (kernel, strides, pads, dilations): the backend graph's own type.
using Window2D = ::tpuc::Window2D;

namespace detail {
inline llvm::ArrayRef<int64_t> arrayOf(llvm::ArrayRef<int64_t> a) { return a; }
inline llvm::ArrayRef<int64_t> arrayOf(std::optional<llvm::ArrayRef<int64_t>> a) {
  return a ? *a : llvm::ArrayRef<int64_t>();
}
inline std::optional<int64_t> optionalI64(uint64_t v) { return static_cast<int64_t>(v); }
inline std::optional<int64_t> optionalI64(std::optional<uint64_t> v) {
  return v ? std::optional<int64_t>(static_cast<int64_t>(*v)) : std::nullopt;
}
} // namespace detail

/// The window of a typed op from its ODS accessors (kernel_shape, strides, pads, dilations); nullopt for
/// ops without a 2-D kernel_shape. BackendInterface::getWindow's default.
template <typename OpT> std::optional<Window2D> windowOf(OpT op) {
  if constexpr (requires { op.getKernelShape(); }) {
    llvm::ArrayRef<int64_t> k = detail::arrayOf(op.getKernelShape());
    if (k.size() != 2)
      return std::nullopt;
    Window2D w;
    w.kh = k[0];
    w.kw = k[1];
    if constexpr (requires { op.getStrides(); })
      if (llvm::ArrayRef<int64_t> s = detail::arrayOf(op.getStrides()); s.size() == 2) {
        w.sh = s[0];
        w.sw = s[1];
      }
    if constexpr (requires { op.getPads(); })
      if (llvm::ArrayRef<int64_t> p = detail::arrayOf(op.getPads()); p.size() == 4) {
        w.padTop = p[0];
        w.padLeft = p[1];
        w.padBottom = p[2];
        w.padRight = p[3];
      }
    if constexpr (requires { op.getDilations(); })
      if (llvm::ArrayRef<int64_t> d = detail::arrayOf(op.getDilations()); d.size() == 2) {
        w.dh = d[0];
        w.dw = d[1];
      }
    return w;
  } else {
    return std::nullopt;
  }
}

/// `Tpu_Role<"Conv">` in ODS: gives the op `kBackendRole`, which BackendInterface returns.
template <BackendRole Role> struct BackendRoleTrait {
  template <typename ConcreteOp> class Impl : public mlir::OpTrait::TraitBase<ConcreteOp, Impl> {
  public:
    static constexpr BackendRole kBackendRole = Role;
  };
};

} // namespace tpuc::tpu

namespace tpuc::sim::tpusim {
struct OpContext; // simulator/lib/TpuSim/SimOps.h: what KernelInterface::execute sees
} // namespace tpuc::sim::tpusim

#endif // TPUC_DIALECT_TPU_TPUTRAITS_H
