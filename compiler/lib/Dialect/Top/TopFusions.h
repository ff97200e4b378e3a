//===- TopFusions.h - Pattern sets of TopFusions.cpp -----------------------===//
// Registered by the ops they are rooted at (Div, Mul, Add, MulConst, DivConst, MatMul): spelled-out LayerNorm /
// RMSNorm (with their affine weights), GroupNorm, GELU (erf and tanh forms), Mish, HardSwish and
// scaled-dot-product attention become one Top op.
//===----------------------------------------------------------------------===//
#ifndef TPUC_LIB_DIALECT_TOP_TOPFUSIONS_H
#define TPUC_LIB_DIALECT_TOP_TOPFUSIONS_H

#include "mlir/IR/PatternMatch.h"

namespace tpuc::top {

/// (x - mean) / sqrt(var + eps) -> layernorm, x / sqrt(mean(x^2) + eps) -> rmsnorm, then * w + b folded in.
void populateNormFusionPatterns(mlir::RewritePatternSet &patterns);
/// 0.5 * x * (1 + erf(x / sqrt 2)) and the tanh form -> gelu.
void populateGeluFusionPatterns(mlir::RewritePatternSet &patterns);
/// x * tanh(log(1 + exp(x))) -> mish.
void populateMishFusionPatterns(mlir::RewritePatternSet &patterns);
/// x * relu6(x + 3) / 6 (or * 1/6), x * hard_sigmoid(x) (alpha 1/6, beta 1/2) -> hard_swish.
void populateHardSwishFusionPatterns(mlir::RewritePatternSet &patterns);
/// softmax(q k^T * scale + mask) v on [B, H, L, D] tensors (rooted at the second MatMul) -> attention.
void populateAttentionFusionPatterns(mlir::RewritePatternSet &patterns);

} // namespace tpuc::top

#endif
