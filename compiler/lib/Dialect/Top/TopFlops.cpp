//===- TopFlops.cpp - FLOPs of the Top ops --------------------------------===//
// FlopsInterface for every Top op; a multiply-add counts two, as in TPU-MLIR's model-zoo GOPs.
//===----------------------------------------------------------------------===//
#include "tpuc/Dialect/Top/TopOps.h"

using namespace mlir;
using namespace tpuc::top;

namespace {
int64_t elems(Value v) { return getNumElements(getShape(v)); }
int64_t product(ArrayRef<int64_t> values) { return getNumElements(values); }
/// Extra element-wise work of a fused relu.
int64_t reluFlops(bool doRelu, Value out) { return doRelu ? elems(out) : 0; }
} // namespace

int64_t InputOp::getFLOPs() { return 0; }
int64_t WeightOp::getFLOPs() { return 0; }
int64_t NoneOp::getFLOPs() { return 0; }

int64_t ConvOp::getFLOPs() {
  int64_t perOutput = 2 * getShape(getFilter())[1] * product(getKernelShape());
  return elems(getOutput()) * (perOutput + (isNone(getBias()) ? 0 : 1)) +
         reluFlops(getDoRelu(), getOutput());
}

// A conv's multiply-adds, plus about 10 operations per bilinear sample (4 taps weighted, the mask).
int64_t DeformConv2DOp::getFLOPs() {
  auto w = getShape(getFilter()), y = getShape(getOutput());
  int64_t taps = w[2] * w[3], positions = y[0] * y[2] * y[3];
  return elems(getOutput()) * (2 * w[1] * taps + (isNone(getBias()) ? 0 : 1)) +
         positions * getShape(getInput())[1] * taps * 10;
}

int64_t DeconvOp::getFLOPs() {
  auto w = getShape(getFilter());
  return elems(getInput()) * 2 * w[1] * product(getKernelShape()) +
         (isNone(getBias()) ? 0 : elems(getOutput())) + reluFlops(getDoRelu(), getOutput());
}

int64_t MatMulOp::getFLOPs() {
  auto a = getShape(getInput());
  int64_t k = getLeftTranspose() && a.size() > 1 ? a[a.size() - 2] : a.back();
  return elems(getOutput()) * (2 * k + (isNone(getBias()) ? 0 : 1)) + reluFlops(getDoRelu(), getOutput());
}

int64_t A16MatMulOp::getFLOPs() {
  return elems(getOutput()) * (2 * getShape(getInput()).back() + (isNone(getBias()) ? 0 : 1));
}

int64_t MaxPoolOp::getFLOPs() { return elems(getOutput()) * product(getKernelShape()); }
int64_t AvgPoolOp::getFLOPs() { return elems(getOutput()) * (product(getKernelShape()) + 1); }
int64_t AdaptiveAvgPoolOp::getFLOPs() { return elems(getInput()) + elems(getOutput()); }

// Normalizations: mean, variance, normalize, scale and shift, about five operations per element.
int64_t BatchNormOp::getFLOPs() { return 2 * elems(getInput()) + reluFlops(getDoRelu(), getOutput()); }
int64_t LayerNormOp::getFLOPs() { return 5 * elems(getInput()); }
int64_t RMSNormOp::getFLOPs() { return 4 * elems(getInput()); }
int64_t GroupNormOp::getFLOPs() { return 5 * elems(getInput()); }
int64_t InstanceNormOp::getFLOPs() { return 5 * elems(getInput()); }
int64_t SoftmaxOp::getFLOPs() { return 4 * elems(getInput()); }
int64_t RopeOp::getFLOPs() { return 3 * elems(getInput()); }

int64_t AttentionOp::getFLOPs() {
  auto q = getShape(getQuery()), k = getShape(getKey());
  int64_t scores = q[0] * q[2] * q[1] * k[1];
  // QK^T and PV are 2*D each per score; scale, mask and softmax about 5 per score.
  return scores * (4 * q[3] + 5 + (isNone(getMask()) ? 0 : 1));
}

#define TOP_PER_OUTPUT_FLOPS(OP, N)                                                                \
  int64_t OP::getFLOPs() { return (N) * elems(getOperation()->getResult(0)); }
TOP_PER_OUTPUT_FLOPS(AddOp, 1 + getDoRelu())
TOP_PER_OUTPUT_FLOPS(SubOp, 1 + getDoRelu())
TOP_PER_OUTPUT_FLOPS(MulOp, 1 + getDoRelu())
TOP_PER_OUTPUT_FLOPS(DivOp, 1 + getDoRelu())
TOP_PER_OUTPUT_FLOPS(PowerOp, 1 + getDoRelu())
TOP_PER_OUTPUT_FLOPS(MaxOp, 1 + getDoRelu())
TOP_PER_OUTPUT_FLOPS(MinOp, 1 + getDoRelu())
TOP_PER_OUTPUT_FLOPS(AddConstOp, 1 + getDoRelu())
TOP_PER_OUTPUT_FLOPS(SubConstOp, 1 + getDoRelu())
TOP_PER_OUTPUT_FLOPS(MulConstOp, 1 + getDoRelu())
TOP_PER_OUTPUT_FLOPS(DivConstOp, 1 + getDoRelu())
TOP_PER_OUTPUT_FLOPS(MaxConstOp, 1 + getDoRelu())
TOP_PER_OUTPUT_FLOPS(MinConstOp, 1 + getDoRelu())
TOP_PER_OUTPUT_FLOPS(CompareOp, 1)
TOP_PER_OUTPUT_FLOPS(WhereOp, 1)
TOP_PER_OUTPUT_FLOPS(ReluOp, 1)
TOP_PER_OUTPUT_FLOPS(LeakyReluOp, 2)
TOP_PER_OUTPUT_FLOPS(ClipOp, 2)
TOP_PER_OUTPUT_FLOPS(HardSigmoidOp, 4)
TOP_PER_OUTPUT_FLOPS(HardSwishOp, 5)
TOP_PER_OUTPUT_FLOPS(SigmoidOp, 4)
TOP_PER_OUTPUT_FLOPS(SiLUOp, 5)
TOP_PER_OUTPUT_FLOPS(MishOp, 6)
TOP_PER_OUTPUT_FLOPS(GELUOp, 8)
TOP_PER_OUTPUT_FLOPS(TanhOp, 4)
TOP_PER_OUTPUT_FLOPS(ExpOp, 1)
TOP_PER_OUTPUT_FLOPS(LogOp, 1)
TOP_PER_OUTPUT_FLOPS(SqrtOp, 1)
TOP_PER_OUTPUT_FLOPS(RsqrtOp, 2)
TOP_PER_OUTPUT_FLOPS(AbsOp, 1)
TOP_PER_OUTPUT_FLOPS(ErfOp, 1)
TOP_PER_OUTPUT_FLOPS(ReciprocalOp, 1)
TOP_PER_OUTPUT_FLOPS(PowOp, 1)
TOP_PER_OUTPUT_FLOPS(FloorOp, 1)
TOP_PER_OUTPUT_FLOPS(CeilOp, 1)
TOP_PER_OUTPUT_FLOPS(RoundOp, 1)
TOP_PER_OUTPUT_FLOPS(SignOp, 1)
TOP_PER_OUTPUT_FLOPS(SinOp, 1)
TOP_PER_OUTPUT_FLOPS(CosOp, 1)
TOP_PER_OUTPUT_FLOPS(TanOp, 1)
TOP_PER_OUTPUT_FLOPS(AsinOp, 1)
TOP_PER_OUTPUT_FLOPS(AcosOp, 1)
TOP_PER_OUTPUT_FLOPS(AtanOp, 1)
TOP_PER_OUTPUT_FLOPS(SinhOp, 1)
TOP_PER_OUTPUT_FLOPS(CoshOp, 1)
TOP_PER_OUTPUT_FLOPS(AsinhOp, 1)
TOP_PER_OUTPUT_FLOPS(AcoshOp, 1)
TOP_PER_OUTPUT_FLOPS(AtanhOp, 1)
TOP_PER_OUTPUT_FLOPS(CumSumOp, 1)
TOP_PER_OUTPUT_FLOPS(InterpOp, getMode() == InterpMode::linear ? 4 : getMode() == InterpMode::cubic ? 32 : 0)
#undef TOP_PER_OUTPUT_FLOPS

int64_t ReduceOp::getFLOPs() { return elems(getInput()); }
int64_t TopKOp::getFLOPs() { return elems(getInput()); }
int64_t ConcatOp::getFLOPs() { return reluFlops(getDoRelu(), getOutput()); }

// Pure data movement.
int64_t ReshapeOp::getFLOPs() { return 0; }
int64_t SqueezeOp::getFLOPs() { return 0; }
int64_t UnsqueezeOp::getFLOPs() { return 0; }
int64_t PermuteOp::getFLOPs() { return 0; }
int64_t SliceOp::getFLOPs() { return 0; }
int64_t SplitOp::getFLOPs() { return 0; }
int64_t GatherOp::getFLOPs() { return 0; }
int64_t GatherElementsOp::getFLOPs() { return 0; }
int64_t ScatterElementsOp::getFLOPs() { return getReduction() == ScatterReduce::none ? 0 : elems(getUpdates()); }
int64_t ScatterNDOp::getFLOPs() { return getReduction() == ScatterReduce::none ? 0 : elems(getUpdates()); }
int64_t MaxPoolWithMaskOp::getFLOPs() {
  return elems(getOutput()) * getKernelShape()[0] * getKernelShape()[1];
}
// RoI pools: about 8 operations per bilinear sample (4 taps) or one compare per pixel of a bin.
int64_t RoiAlignOp::getFLOPs() {
  auto ratio = static_cast<int64_t>(getSamplingRatio());
  ratio = ratio > 0 ? ratio : 2;
  return elems(getOutput()) * ratio * ratio * 8;
}
int64_t LoopGuardOp::getFLOPs() { return 0; }
int64_t MaxUnpoolOp::getFLOPs() { return 0; }
int64_t RoiPoolingOp::getFLOPs() { return elems(getOutput()); }
int64_t NonZeroOp::getFLOPs() { return elems(getInput()); }
int64_t UniqueOp::getFLOPs() { return elems(getInput()); }
int64_t DynamicSliceOp::getFLOPs() { return 0; }
// Interpolation: about 8 operations per output element and tap (4 taps linear, 16 cubic, 1 nearest).
int64_t GridSampleOp::getFLOPs() {
  int64_t taps = getMode() == GridMode::cubic ? 16 : getMode() == GridMode::linear ? 4 : 1;
  return elems(getOutput()) * 8 * taps;
}
// Pairwise IoU within each batch and class.
int64_t NonMaxSuppressionOp::getFLOPs() {
  auto s = getShape(getScores());
  return s[0] * s[1] * s[2] * s[2] * 10;
}
int64_t PadOp::getFLOPs() { return 0; }
int64_t Depth2SpaceOp::getFLOPs() { return 0; }
int64_t CastOp::getFLOPs() { return 0; }
int64_t ArangeOp::getFLOPs() { return 0; }
