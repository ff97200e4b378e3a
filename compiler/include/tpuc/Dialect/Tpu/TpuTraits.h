//===- TpuTraits.h - Backend roles of Tpu ops -------------------*- C++ -*-===//
// The role trait behind `tpu::BackendInterface` (TpuInterfaces.td): what the backend planner may do with
// an op. Plain C++, no MLIR beyond the trait base.
//===----------------------------------------------------------------------===//
#ifndef TPUC_DIALECT_TPU_TPUTRAITS_H
#define TPUC_DIALECT_TPU_TPUTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace tpuc::tpu {

/// What the backend may do with an op. The first four have a local form (computed slice by slice from
/// local memory in a layer group); Reshape and Concat can be in place in DDR; the rest run from DDR.
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
};

/// Whether ops of this role have a local form (layer groups).
constexpr bool hasLocalForm(BackendRole role) {
  return role == BackendRole::Conv || role == BackendRole::Pool || role == BackendRole::Eltwise ||
         role == BackendRole::Unary;
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
