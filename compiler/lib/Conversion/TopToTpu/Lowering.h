//===- Lowering.h - State shared by the Top->Tpu op lowerings ---*- C++ -*-===//
// Precision choice, activation types, operand conversion with casts, and weight creation.
//===----------------------------------------------------------------------===//
#ifndef TPUC_LIB_CONVERSION_TOPTOTPU_LOWERING_H
#define TPUC_LIB_CONVERSION_TOPTOTPU_LOWERING_H

#include "tpuc/Conversion/TopToTpu.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Tpu/TpuOps.h"
#include "tpuc/Quant/Arith.h"
#include "tpuc/Support/Tensor.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

#include <cassert>
#include <map>
#include <string>
#include <utility>

namespace tpuc::lowering {

/// The tensor name of a value: top::resultName (the reference interpreter's dump names), a weight's
/// array name, else the op's mnemonic (with "_<i>" for result i > 0).
std::string tensorName(mlir::Value value);
/// The op's own name (its first result's tensor name).
std::string opName(mlir::Operation *op);

/// Whether a precision is one of the weight-only modes.
bool isWeightOnly(top::Precision precision);

/// One lowering run over a module: the context every lowering pattern (TopLowering.h) holds. Patterns use
/// it to choose types, fetch converted operands and create weights; the first failure is kept as one
/// line in `error`.
class Lowering {
public:
  Lowering(mlir::ModuleOp module, const LoweringOptions &options, const quant::CalibrationTable *calibration,
           const quant::QuantizeTable *quantize);

  const LoweringOptions &options;
  std::string error;

  /// The rewriter every IR change goes through: the running pattern's, else the driver's. Nothing is
  /// created while none is installed.
  mlir::RewriterBase &rewriter() const {
    assert(active && "no rewriter installed in the lowering context");
    return *active;
  }
  /// Installs a rewriter for the scope's lifetime (the driver for the run, a pattern while it runs).
  class RewriterScope {
  public:
    RewriterScope(Lowering &lowering, mlir::RewriterBase &rewriter)
        : lowering(lowering), previous(std::exchange(lowering.active, &rewriter)) {}
    ~RewriterScope() { lowering.active = previous; }
    RewriterScope(const RewriterScope &) = delete;
    RewriterScope &operator=(const RewriterScope &) = delete;

  private:
    Lowering &lowering;
    mlir::RewriterBase *previous;
  };
  mlir::MLIRContext *getContext() const { return context; }

  /// Records the first error (one line) and returns failure.
  mlir::LogicalResult fail(const llvm::Twine &message);
  /// fail() with "op '<kind>' '<name>': " in front.
  mlir::LogicalResult failOp(mlir::Operation *op, const llvm::Twine &message);

  /// The precision the quantize table or the mode asks for `op` (W modes stay as they are).
  mlir::FailureOr<top::Precision> requestedPrecision(mlir::Operation *op);
  /// The float precision that stands in for `p`: F32 for INT8 and F32, F16 for F16/W8F16/W4F16, BF16 else.
  top::Precision floatPrecision(top::Precision p) const;
  /// f32, f16 or bf16 for a float precision.
  mlir::Type floatType(top::Precision p);

  /// The INT8 type of the tensor `name` from the calibration table (symmetric: threshold / 127;
  /// asymmetric: asymmetricParams(min, max)).
  mlir::FailureOr<mlir::quant::UniformQuantizedType> calibratedType(llvm::StringRef name);
  /// The INT8 type of a Top value: its tensor's, or for a loop's carried block argument the range of its
  /// initial value and of the value the body yields.
  mlir::FailureOr<mlir::quant::UniformQuantizedType> calibratedType(mlir::Value topValue);
  /// A loop's carried block argument takes the calibration of its initial value and yielded value.
  void setCarriedRange(mlir::Value topArgument, mlir::Value init, mlir::Value yielded) {
    carriedRanges[topArgument] = {tensorName(init), tensorName(yielded)};
  }
  /// A result type of `topResult`'s shape with element type `element`.
  mlir::RankedTensorType resultType(mlir::Value topResult, mlir::Type element);

  /// The lowered value of a Top value, converted to `element` (a float type, or an INT8 quantized type):
  /// casts (float <-> float, float <-> INT8) and requant_int (INT8 -> INT8 of another scale) are inserted
  /// before the current insertion point and shared by every consumer. Weights are converted into new
  /// weights instead. Integer tensors (indices) come back unchanged.
  mlir::FailureOr<mlir::Value> operandAs(mlir::Value topValue, mlir::Type element);
  /// The lowered value as INT8 in whatever quantized type it has; a float activation is cast to its
  /// calibrated type; a weight is quantized per tensor on its own range.
  mlir::FailureOr<mlir::Value> operandInt8(mlir::Value topValue);
  /// Whether a Top value is a weight (top.weight).
  static bool isWeight(mlir::Value topValue);
  /// The float data of a Top weight.
  mlir::FailureOr<std::vector<float>> weightData(mlir::Value topWeight);

  /// Creates a weight `<base>_<suffix>` of `type` holding `data` before the current insertion point.
  mlir::FailureOr<mlir::Value> createWeight(llvm::StringRef base, llvm::StringRef suffix, mlir::RankedTensorType type,
                                            Tensor data);
  /// Stores float values in a new weight of float type `element` (f32, f16, bf16; rounded to nearest even).
  mlir::FailureOr<mlir::Value> createFloatWeight(llvm::StringRef base, llvm::StringRef suffix,
                                                 llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<float> values,
                                                 mlir::Type element);

  /// Maps a Top result to its lowered value.
  void map(mlir::Value topValue, mlir::Value lowered) { mapped[topValue] = lowered; }
  /// The lowered value of a Top value (the value itself for inputs, weights and none).
  mlir::Value lookup(mlir::Value topValue) const;

  /// Attributes of the Top op, minus the names in `drop`, plus `precision`.
  llvm::SmallVector<mlir::NamedAttribute> attrsOf(mlir::Operation *op, top::Precision precision,
                                                  llvm::ArrayRef<llvm::StringRef> drop = {});
  mlir::NamedAttribute namedI64Array(llvm::StringRef name, llvm::ArrayRef<int64_t> values);

  /// Creates the Tpu op `TpuOp` at the insertion point with `op`'s location, verifies it at once (a
  /// failure names the Top op and becomes `error`) and maps `op`'s results to its results.
  template <typename TpuOp>
  TpuOp build(mlir::Operation *op, mlir::ValueRange operands, mlir::TypeRange results,
              llvm::ArrayRef<mlir::NamedAttribute> attrs) {
    auto created = TpuOp::create(rewriter(), op->getLoc(), results, operands, attrs);
    finishBuild(op, created);
    return created;
  }
  /// Lowers `op` to `TpuOp` in float precision `precision` (F32 for INT8): every tensor operand,
  /// weights included, converted to the float type; Top attributes kept except `drop`, plus `extra`.
  template <typename TpuOp>
  mlir::LogicalResult lowerFloat(mlir::Operation *op, top::Precision precision,
                                 llvm::ArrayRef<llvm::StringRef> drop = {},
                                 llvm::ArrayRef<mlir::NamedAttribute> extra = {}) {
    FloatForm form;
    if (mlir::failed(floatForm(op, precision, drop, extra, form)))
      return mlir::failure();
    build<TpuOp>(op, form.operands, form.results, form.attrs);
    return mlir::success();
  }
  /// A `none` value for absent operands (one top.none per function).
  mlir::Value none();
  /// Starts a new function: its none value is the first top.none of `entry`, if any.
  void beginFunction(mlir::Block *entry);
  /// The block `none()` creates its value in and that value: saved while a region (isolated from above)
  /// is lowered with its own, restored after.
  std::pair<mlir::Block *, mlir::Value> noneScope() const { return {entryBlock, noneValue}; }
  void restoreNoneScope(std::pair<mlir::Block *, mlir::Value> scope) { std::tie(entryBlock, noneValue) = scope; }

  /// A deterministic, unique name `<base>_<suffix>` for an inserted op.
  mlir::Location uniqueLoc(llvm::StringRef base, llvm::StringRef suffix);

  /// The storage of a quantized type (i8).
  static quant::QuantParams paramsOf(mlir::quant::UniformQuantizedType type) {
    return {type.getScale(), type.getZeroPoint()};
  }
  /// The Tpu INT8 type with `params`.
  mlir::quant::UniformQuantizedType int8Type(quant::QuantParams params);

private:
  mlir::FailureOr<top::Precision> requestedPrecisionOf(mlir::Operation *op);
  /// What lowerFloat builds: converted operands, float result types, attributes.
  struct FloatForm {
    llvm::SmallVector<mlir::Value> operands;
    llvm::SmallVector<mlir::Type> results;
    llvm::SmallVector<mlir::NamedAttribute> attrs;
  };
  mlir::LogicalResult floatForm(mlir::Operation *op, top::Precision precision,
                                llvm::ArrayRef<llvm::StringRef> drop,
                                llvm::ArrayRef<mlir::NamedAttribute> extra, FloatForm &form);
  void finishBuild(mlir::Operation *op, mlir::Operation *created);

public:
  /// Set when a built op failed its verifier (the lowering of that op then fails).
  bool invalidBuild = false;

private:
  mlir::FailureOr<mlir::Value> castValue(mlir::Value lowered, llvm::StringRef base, mlir::Type element);
  mlir::FailureOr<mlir::Value> convertWeight(mlir::Value topWeight, mlir::Type element);

  mlir::MLIRContext *context;
  mlir::RewriterBase *active = nullptr;
  const quant::CalibrationTable *calibration;
  const quant::QuantizeTable *quantize;
  llvm::DenseMap<mlir::Value, mlir::Value> mapped;
  llvm::DenseMap<mlir::Value, std::pair<std::string, std::string>> carriedRanges;

public:
  /// Ops of loop bodies that a loop's exit condition is computed from (lowered in F32 under INT8).
  llvm::DenseSet<mlir::Operation *> loopConditionOps;

private:
  /// (lowered value, target element type) -> inserted cast.
  std::map<std::pair<const void *, const void *>, mlir::Value> casts;
  llvm::StringSet<> usedNames;
  mlir::Block *entryBlock = nullptr;
  mlir::Value noneValue;
};

} // namespace tpuc::lowering

#endif // TPUC_LIB_CONVERSION_TOPTOTPU_LOWERING_H
