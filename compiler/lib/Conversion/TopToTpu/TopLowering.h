//===- TopLowering.h - The pattern base of the Top->Tpu lowerings -*- C++ -*-===//
// One rewrite pattern per Top op class, one virtual method per precision, the lowering context a member.
//
// Why OpRewritePattern and a program-order driver, not OpConversionPattern and applyPartialConversion:
// a lowering reads the *Top* value of each operand after its producer was lowered: its tensor name (the
// calibration table's row), whether it is a top.weight (weights are requantized into new weights, not
// cast), its f32 type (func.return casts back to it). The casts are shared: a tpu.cast made for one
// consumer is kept in the context and reused by every later one, which a rolled-back pattern would leave
// pointing at erased ops. And the lowering must stop at the first failing op with one line naming it.
// Tried: these patterns under applyPartialConversion (Top illegal but input/weight/none, each Top op
// replaced by the values its pattern mapped) on Conversion/Inputs/conv_relu_add_pool.mlir in INT8. With
// rollback the conversion fails, "failed to legalize unresolved materialization from
// tensor<...!quant.uniform<i8:f32, ...>> to tensor<...xf32> that remained live after conversion" at the
// result func.return uses (the cast back to f32 would need a type converter whose materialization knows
// the calibration); without rollback the uses are replaced at once, through
// builtin.unrealized_conversion_cast ops back to f32 that later patterns would see instead of the Top
// values, and it fails the same way.
// So, as TPU-MLIR's TopLowering<OpTy> does, the patterns are OpRewritePatterns; the driver (TopToTpu.cpp)
// walks each function in program order, runs the one pattern of each Top op with its rewriter installed
// as the context's builder, and erases the Top ops once the whole function is lowered (a pattern maps the
// Top results to their lowered values instead of replacing them, so the Top values stay readable).
//===----------------------------------------------------------------------===//
#ifndef TPUC_LIB_CONVERSION_TOPTOTPU_TOPLOWERING_H
#define TPUC_LIB_CONVERSION_TOPTOTPU_TOPLOWERING_H

#include "Lowering.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"

#include <utility>

namespace tpuc::lowering {

/// Lowers one Top op class. matchAndRewrite installs the rewriter as the context's builder and runs
/// `lower`, which by default asks the context for the op's precision (quantize table, else the mode) and
/// calls that precision's method. Every method creates its Tpu ops through the context (`L.build`,
/// `L.lowerFloat`), which verifies each one and maps the Top results to their lowered values.
///
/// The defaults: F32, F16 and BF16 call `lowerFloat` with that precision; INT8 runs the F32 lowering
/// (float-only ops); the weight-only modes run F16 (W8F16, W4F16) or BF16 (W8BF16, W4BF16), as every op
/// but the matmul does.
template <typename TopOp> class TopLowering : public mlir::OpRewritePattern<TopOp> {
public:
  explicit TopLowering(Lowering &lowering)
      : mlir::OpRewritePattern<TopOp>(lowering.getContext()), L(lowering) {}

  mlir::LogicalResult matchAndRewrite(TopOp op, mlir::PatternRewriter &rewriter) const final {
    Lowering::RewriterScope scope(L, rewriter);
    mlir::LogicalResult result = lower(op);
    // A built op that failed its verifier fails the op, whatever the method returned.
    return std::exchange(L.invalidBuild, false) ? mlir::failure() : result;
  }

protected:
  /// The whole lowering of `op`. Patterns override it to check the op before its precision is asked for,
  /// or when the lowering does not depend on the precision.
  virtual mlir::LogicalResult lower(TopOp op) const {
    auto precision = L.requestedPrecision(op);
    if (mlir::failed(precision))
      return mlir::failure();
    return lowerIn(op, *precision);
  }
  /// Runs the method of `precision`.
  mlir::LogicalResult lowerIn(TopOp op, top::Precision precision) const {
    switch (precision) {
    case top::Precision::INT8:
      return lowerInt8(op);
    case top::Precision::F16:
      return lowerF16(op);
    case top::Precision::BF16:
      return lowerBF16(op);
    case top::Precision::W8F16:
      return lowerW8F16(op);
    case top::Precision::W8BF16:
      return lowerW8BF16(op);
    case top::Precision::W4F16:
      return lowerW4F16(op);
    case top::Precision::W4BF16:
      return lowerW4BF16(op);
    default:
      return lowerF32(op);
    }
  }

  virtual mlir::LogicalResult lowerInt8(TopOp op) const { return lowerF32(op); }
  virtual mlir::LogicalResult lowerF32(TopOp op) const { return lowerFloat(op, top::Precision::F32); }
  virtual mlir::LogicalResult lowerF16(TopOp op) const { return lowerFloat(op, top::Precision::F16); }
  virtual mlir::LogicalResult lowerBF16(TopOp op) const { return lowerFloat(op, top::Precision::BF16); }
  virtual mlir::LogicalResult lowerW8F16(TopOp op) const { return lowerF16(op); }
  virtual mlir::LogicalResult lowerW8BF16(TopOp op) const { return lowerBF16(op); }
  virtual mlir::LogicalResult lowerW4F16(TopOp op) const { return lowerF16(op); }
  virtual mlir::LogicalResult lowerW4BF16(TopOp op) const { return lowerBF16(op); }
  /// The float lowering F32, F16 and BF16 share (`precision` is one of them). A pattern that overrides
  /// `lower` without reaching the precision methods needs none.
  virtual mlir::LogicalResult lowerFloat(TopOp op, top::Precision precision) const {
    (void)precision;
    return L.failOp(op, "has no Tpu lowering");
  }

  Lowering &L;
};

/// An op with a float form only: `TpuOp` with every operand in the float type (F32 in INT8).
template <typename TopOp, typename TpuOp> class FloatLowering : public TopLowering<TopOp> {
public:
  using TopLowering<TopOp>::TopLowering;

protected:
  mlir::LogicalResult lowerFloat(TopOp op, top::Precision precision) const override {
    return this->L.template lowerFloat<TpuOp>(op, precision);
  }
};

/// Adds the pattern of every Top op that lowers (LowerNN.cpp, LowerElementwise.cpp, LowerShape.cpp); each
/// holds `lowering`, which must outlive them.
void populateTopToTpuPatterns(mlir::RewritePatternSet &patterns, Lowering &lowering);
void populateNNPatterns(mlir::RewritePatternSet &patterns, Lowering &lowering);
void populateElementwisePatterns(mlir::RewritePatternSet &patterns, Lowering &lowering);
void populateShapePatterns(mlir::RewritePatternSet &patterns, Lowering &lowering);

/// The pattern of each Top op name, as the driver looks it up (one pattern per op).
using PatternTable = llvm::DenseMap<mlir::OperationName, const mlir::RewritePattern *>;
PatternTable patternTable(const mlir::FrozenRewritePatternSet &patterns);

} // namespace tpuc::lowering

#endif // TPUC_LIB_CONVERSION_TOPTOTPU_TOPLOWERING_H
