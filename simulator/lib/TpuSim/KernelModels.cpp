//===- KernelModels.cpp - tpu::KernelInterface for every Tpu op -----------===//
// Each Tpu op gets an external model naming its Top twin (for float precisions and INT8 data movement)
// and its INT8 form; casts, requantization, weight-only matmul and scale compute without a twin.
//===----------------------------------------------------------------------===//
#include "tpuc/Simulator/TpuSim.h"

#include "SimOps.h"

#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Tpu/TpuOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

using namespace mlir;
namespace tpud = ::tpuc::tpu;

namespace tpuc::sim {
namespace tpusim {
namespace {

bool hasQuantResult(Operation *op) {
  return llvm::any_of(op->getResultTypes(), [](Type t) { return encodingOf(t).isQuant(); });
}

/// An op whose float math is its Top twin `TopT` (same attributes) and whose INT8 form is `Form`.
template <typename OpT, typename TopT, Int8Form Form>
struct TwinKernel : tpud::KernelInterface::ExternalModel<TwinKernel<OpT, TopT, Form>, OpT> {
  llvm::Error execute(Operation *, OpContext &context) const { return executeWithTwin(context, Form); }
  /// Float precisions run the twin; so do INT8 data movement (on the codes) and INT8 deconv (its exact
  /// accumulation runs the float kernel on shifted codes).
  bool needsFloatTwin(Operation *op) const {
    return Form == Int8Form::DataMovement || Form == Int8Form::Deconv || !hasQuantResult(op);
  }
  llvm::Expected<Operation *> buildFloatTwin(Operation *op, Block &block, bool forInt8) const {
    // The INT8 lookup table of the scalar ops is not an operand of the Top op.
    unsigned operands = Form == Int8Form::Table ? 1 : op->getNumOperands();
    return buildTwin(op, block, forInt8, {TopT::getOperationName(), operands, {}});
  }
};

/// tpu.pool2d: top.maxpool or top.avgpool by mode; a global average (the lowering of
/// top.adaptive_avgpool to one 1x1 output cell) runs the reference's adaptive-pool kernel, whose
/// summation order is the one the Top reference used, so F32 stays bit-exact.
struct PoolKernel : tpud::KernelInterface::ExternalModel<PoolKernel, tpud::Pool2DOp> {
  llvm::Error execute(Operation *, OpContext &context) const {
    return executeWithTwin(context, Int8Form::Pool);
  }
  bool needsFloatTwin(Operation *op) const { return !hasQuantResult(op); }
  llvm::Expected<Operation *> buildFloatTwin(Operation *op, Block &block, bool forInt8) const {
    auto pool = cast<tpud::Pool2DOp>(op);
    TwinSpec spec{top::MaxPoolOp::getOperationName(), 1, {}};
    if (pool.getPoolMode() == tpud::PoolMode::avg) {
      spec.topName = top::AvgPoolOp::getOperationName();
      auto in = cast<ShapedType>(op->getOperand(0).getType()).getShape();
      auto out = cast<ShapedType>(op->getResult(0).getType()).getShape();
      auto kernel = op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape");
      auto pads = op->getAttrOfType<DenseI64ArrayAttr>("pads");
      auto relu = op->getAttrOfType<BoolAttr>("do_relu");
      if (in.size() == 4 && out[2] == 1 && out[3] == 1 && kernel &&
          kernel.asArrayRef() == ArrayRef<int64_t>{in[2], in[3]} && pads &&
          llvm::all_of(pads.asArrayRef(), [](int64_t p) { return p == 0; }) && !(relu && relu.getValue())) {
        spec.topName = top::AdaptiveAvgPoolOp::getOperationName();
        MLIRContext *ctx = op->getContext();
        spec.extra.push_back(Builder(ctx).getNamedAttr("output_size", DenseI64ArrayAttr::get(ctx, {1, 1})));
      }
    }
    return buildTwin(op, block, forInt8, spec);
  }
};

/// tpu.active: the Top op of its function, with the coefficients the Top op names differently.
struct ActiveKernel : tpud::KernelInterface::ExternalModel<ActiveKernel, tpud::ActiveOp> {
  llvm::Error execute(Operation *, OpContext &context) const {
    return executeWithTwin(context, Int8Form::Table);
  }
  bool needsFloatTwin(Operation *op) const { return !hasQuantResult(op); }
  llvm::Expected<Operation *> buildFloatTwin(Operation *op, Block &block, bool forInt8) const {
    auto active = cast<tpud::ActiveOp>(op);
    Builder b(op->getContext());
    double alpha = 0, beta = 0;
    if (auto a = op->getAttrOfType<FloatAttr>("alpha"))
      alpha = a.getValueAsDouble();
    if (auto a = op->getAttrOfType<FloatAttr>("beta"))
      beta = a.getValueAsDouble();
    TwinSpec spec{StringRef(), 1, {}};
    switch (active.getActiveMode()) {
    // clang-format off
    case tpud::ActiveMode::sigmoid:    spec.topName = top::SigmoidOp::getOperationName(); break;
    case tpud::ActiveMode::silu:       spec.topName = top::SiLUOp::getOperationName(); break;
    case tpud::ActiveMode::gelu:       spec.topName = top::GELUOp::getOperationName(); break;
    case tpud::ActiveMode::tanh:       spec.topName = top::TanhOp::getOperationName(); break;
    case tpud::ActiveMode::exp:        spec.topName = top::ExpOp::getOperationName(); break;
    case tpud::ActiveMode::log:        spec.topName = top::LogOp::getOperationName(); break;
    case tpud::ActiveMode::sqrt:       spec.topName = top::SqrtOp::getOperationName(); break;
    case tpud::ActiveMode::rsqrt:      spec.topName = top::RsqrtOp::getOperationName(); break;
    case tpud::ActiveMode::abs:        spec.topName = top::AbsOp::getOperationName(); break;
    case tpud::ActiveMode::erf:        spec.topName = top::ErfOp::getOperationName(); break;
    case tpud::ActiveMode::reciprocal: spec.topName = top::ReciprocalOp::getOperationName(); break;
    case tpud::ActiveMode::hardswish:  spec.topName = top::HardSwishOp::getOperationName(); break;
    case tpud::ActiveMode::floor:      spec.topName = top::FloorOp::getOperationName(); break;
    case tpud::ActiveMode::ceil:       spec.topName = top::CeilOp::getOperationName(); break;
    case tpud::ActiveMode::round:      spec.topName = top::RoundOp::getOperationName(); break;
    case tpud::ActiveMode::sign:       spec.topName = top::SignOp::getOperationName(); break;
    case tpud::ActiveMode::sin:        spec.topName = top::SinOp::getOperationName(); break;
    case tpud::ActiveMode::cos:        spec.topName = top::CosOp::getOperationName(); break;
    case tpud::ActiveMode::tan:        spec.topName = top::TanOp::getOperationName(); break;
    case tpud::ActiveMode::asin:       spec.topName = top::AsinOp::getOperationName(); break;
    case tpud::ActiveMode::acos:       spec.topName = top::AcosOp::getOperationName(); break;
    case tpud::ActiveMode::atan:       spec.topName = top::AtanOp::getOperationName(); break;
    case tpud::ActiveMode::sinh:       spec.topName = top::SinhOp::getOperationName(); break;
    case tpud::ActiveMode::cosh:       spec.topName = top::CoshOp::getOperationName(); break;
    case tpud::ActiveMode::asinh:      spec.topName = top::AsinhOp::getOperationName(); break;
    case tpud::ActiveMode::acosh:      spec.topName = top::AcoshOp::getOperationName(); break;
    case tpud::ActiveMode::atanh:      spec.topName = top::AtanhOp::getOperationName(); break;
    case tpud::ActiveMode::mish:       spec.topName = top::MishOp::getOperationName(); break;
    // clang-format on
    case tpud::ActiveMode::gelu_tanh:
      spec.topName = top::GELUOp::getOperationName();
      spec.extra.push_back(
          b.getNamedAttr("gelu_approx", top::GeluApproxAttr::get(b.getContext(), top::GeluApprox::tanh)));
      break;
    case tpud::ActiveMode::pow:
      spec.topName = top::PowOp::getOperationName();
      spec.extra.push_back(b.getNamedAttr("exponent", b.getF64FloatAttr(alpha)));
      break;
    case tpud::ActiveMode::leaky_relu:
      spec.topName = top::LeakyReluOp::getOperationName();
      spec.extra.push_back(b.getNamedAttr("alpha", b.getF64FloatAttr(alpha)));
      break;
    case tpud::ActiveMode::hardsigmoid:
      spec.topName = top::HardSigmoidOp::getOperationName();
      spec.extra.push_back(b.getNamedAttr("alpha", b.getF64FloatAttr(alpha)));
      spec.extra.push_back(b.getNamedAttr("beta", b.getF64FloatAttr(beta)));
      break;
    }
    if (spec.topName.empty())
      return makeError("active mode " + tpud::stringifyActiveMode(active.getActiveMode()) +
                       " has no float kernel");
    return buildTwin(op, block, forInt8, spec);
  }
};

/// An op computed directly from its operands, without a twin.
template <typename OpT, llvm::Error (*Run)(OpContext &)>
struct DirectKernel : tpud::KernelInterface::ExternalModel<DirectKernel<OpT, Run>, OpT> {
  llvm::Error execute(Operation *, OpContext &context) const { return Run(context); }
  bool needsFloatTwin(Operation *) const { return false; }
  llvm::Expected<Operation *> buildFloatTwin(Operation *op, Block &, bool) const {
    return makeError("computes without a float twin");
  }
};

// Tpu op, its Top twin, its INT8 form.
#define TPUC_TPU_TWIN_KERNELS(X)                                                                             \
  X(AddOp, AddOp, Add)                                                                                       \
  X(SubOp, SubOp, Sub)                                                                                       \
  X(MulOp, MulOp, Mul)                                                                                       \
  X(DivOp, DivOp, None)                                                                                      \
  X(MaxOp, MaxOp, None)                                                                                      \
  X(MinOp, MinOp, None)                                                                                      \
  X(PowerOp, PowerOp, None)                                                                                  \
  X(AddConstOp, AddConstOp, Table)                                                                           \
  X(SubConstOp, SubConstOp, Table)                                                                           \
  X(MulConstOp, MulConstOp, Table)                                                                           \
  X(DivConstOp, DivConstOp, Table)                                                                           \
  X(MaxConstOp, MaxConstOp, Table)                                                                           \
  X(MinConstOp, MinConstOp, Table)                                                                           \
  X(ReluOp, ReluOp, Relu)                                                                                    \
  X(ClipOp, ClipOp, Clip)                                                                                    \
  X(TopKOp, TopKOp, None)                                                                                    \
  X(CumSumOp, CumSumOp, None)                                                                                \
  X(CompareOp, CompareOp, None)                                                                              \
  X(WhereOp, WhereOp, None)                                                                                  \
  X(RepetitionPenaltyOp, RepetitionPenaltyOp, None)                                                          \
  X(Conv2DOp, ConvOp, Conv)                                                                                  \
  X(Deconv2DOp, DeconvOp, Deconv)                                                                            \
  X(MatMulOp, MatMulOp, MatMul)                                                                              \
  X(SoftmaxOp, SoftmaxOp, None)                                                                              \
  X(LayerNormOp, LayerNormOp, None)                                                                          \
  X(RMSNormOp, RMSNormOp, None)                                                                              \
  X(RopeOp, RopeOp, None)                                                                                    \
  X(AttentionOp, AttentionOp, None)                                                                          \
  X(GroupNormOp, GroupNormOp, None)                                                                          \
  X(InstanceNormOp, InstanceNormOp, None)                                                                    \
  X(GridSampleOp, GridSampleOp, None)                                                                        \
  X(NonMaxSuppressionOp, NonMaxSuppressionOp, None)                                                          \
  X(ReshapeOp, ReshapeOp, DataMovement)                                                                      \
  X(PermuteOp, PermuteOp, DataMovement)                                                                      \
  X(SliceOp, SliceOp, DataMovement)                                                                          \
  X(SplitOp, SplitOp, DataMovement)                                                                          \
  X(ConcatOp, ConcatOp, DataMovement)                                                                        \
  X(PadOp, PadOp, DataMovement)                                                                              \
  X(GatherOp, GatherOp, DataMovement)                                                                        \
  X(Depth2SpaceOp, Depth2SpaceOp, DataMovement)                                                              \
  X(InterpOp, InterpOp, DataMovement)                                                                        \
  X(ReduceOp, ReduceOp, None)                                                                                \
  X(GatherElementsOp, GatherElementsOp, DataMovement)                                                        \
  X(ScatterElementsOp, ScatterElementsOp, None)                                                              \
  X(ScatterNDOp, ScatterNDOp, None)                                                                          \
  X(NonZeroOp, NonZeroOp, None)                                                                              \
  X(UniqueOp, UniqueOp, None)                                                                                \
  X(MaxPoolWithMaskOp, MaxPoolWithMaskOp, None)                                                              \
  X(MaxUnpoolOp, MaxUnpoolOp, None)                                                                          \
  X(DeformConv2DOp, DeformConv2DOp, None)                                                                    \
  X(RoiAlignOp, RoiAlignOp, None)                                                                            \
  X(RoiPoolingOp, RoiPoolingOp, None)                                                                        \
  X(LoopGuardOp, LoopGuardOp, None)                                                                          \
  X(DynamicSliceOp, DynamicSliceOp, DataMovement)

void attachKernels(MLIRContext *context, tpud::TpuDialect *) {
#define TPUC_ATTACH(OP, TOP, FORM)                                                                           \
  tpud::OP::attachInterface<TwinKernel<tpud::OP, top::TOP, Int8Form::FORM>>(*context);
  TPUC_TPU_TWIN_KERNELS(TPUC_ATTACH)
#undef TPUC_ATTACH
  tpud::Pool2DOp::attachInterface<PoolKernel>(*context);
  tpud::ActiveOp::attachInterface<ActiveKernel>(*context);
  tpud::CastOp::attachInterface<DirectKernel<tpud::CastOp, runCast>>(*context);
  tpud::RequantIntOp::attachInterface<DirectKernel<tpud::RequantIntOp, runRequantInt>>(*context);
  tpud::A16MatMulOp::attachInterface<DirectKernel<tpud::A16MatMulOp, runA16>>(*context);
  tpud::ScaleOp::attachInterface<DirectKernel<tpud::ScaleOp, runScale>>(*context);
}

} // namespace
} // namespace tpusim

void registerTpuKernels(DialectRegistry &registry) { registry.addExtension(tpusim::attachKernels); }

void registerTpuKernels(MLIRContext &context) {
  DialectRegistry registry;
  registerTpuKernels(registry);
  context.appendDialectRegistry(registry);
}

} // namespace tpuc::sim
