//===- Lowering.cpp - State shared by the Top->Tpu op lowerings -----------===//
// Types from precision and calibration, operand conversion through shared casts, new weights.
//===----------------------------------------------------------------------===//
#include "Lowering.h"

#include "tpuc/Dialect/Top/StoredWeight.h"
#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/Support/FloatConvert.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <cmath>

using namespace mlir;

namespace tpuc::lowering {

std::string tensorName(Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    // A region's block argument is named after the outer value it stands for; a loop's step and
    // condition after the loop.
    Operation *parent = arg.getOwner()->getParentOp();
    unsigned k = arg.getArgNumber();
    if (auto ifOp = dyn_cast_or_null<top::IfOp>(parent))
      return k < ifOp.getInputs().size() ? tensorName(ifOp.getInputs()[k]) : "";
    if (auto loop = dyn_cast_or_null<top::LoopOp>(parent)) {
      if (k < 2)
        return opName(loop) + (k == 0 ? "_step" : "_cond");
      unsigned i = k - 2;
      return i < loop.getInits().size() ? opName(loop) + "_carried_" + std::to_string(i)
                                        : tensorName(loop.getCaptures()[i - loop.getInits().size()]);
    }
    return "";
  }
  if (!result)
    return "";
  Operation *op = result.getOwner();
  if (auto weight = dyn_cast<top::WeightOp>(op))
    return weight.getName().str();
  std::string name = top::resultName(value);
  if (name.empty()) {
    name = op->getName().stripDialect().str();
    if (result.getResultNumber() > 0)
      name += "_" + std::to_string(result.getResultNumber());
  }
  return name;
}

std::string opName(Operation *op) {
  return op->getNumResults() ? tensorName(op->getResult(0)) : top::locationName(op->getLoc());
}

bool isWeightOnly(top::Precision p) {
  return p == top::Precision::W8F16 || p == top::Precision::W8BF16 || p == top::Precision::W4F16 ||
         p == top::Precision::W4BF16;
}

Lowering::Lowering(ModuleOp module, const LoweringOptions &options,
                   const quant::CalibrationTable *calibration, const quant::QuantizeTable *quantize)
    : options(options), context(module.getContext()), calibration(calibration), quantize(quantize) {
  // Names already in the module stay unique: inserted ops never reuse them.
  module.walk([&](Operation *op) {
    if (op->getNumResults())
      for (Value v : op->getResults())
        usedNames.insert(tensorName(v));
  });
}

LogicalResult Lowering::fail(const Twine &message) {
  if (error.empty())
    error = message.str();
  return failure();
}

LogicalResult Lowering::failOp(Operation *op, const Twine &message) {
  return fail("op '" + op->getName().getStringRef() + "' '" + opName(op) + "': " + message);
}

FailureOr<top::Precision> Lowering::requestedPrecision(Operation *op) {
  FailureOr<top::Precision> p = requestedPrecisionOf(op);
  // Inside a branch or loop body the calibration data never ran, a tensor has no statistics: the op
  // computes in F32 instead of failing the INT8 lowering (docs/quantization.md).
  if (succeeded(p) && *p == top::Precision::INT8 && calibration && op->getNumResults() &&
      isa<top::IfOp, top::LoopOp>(op->getParentOp()) && !calibration->find(opName(op)))
    return top::Precision::F32;
  // What a loop's exit condition is computed from stays in float: INT8 steps can stall a value above the
  // threshold it must fall below (halving code 1 rounds back to 1), and the loop would never end.
  if (succeeded(p) && *p == top::Precision::INT8 && loopConditionOps.contains(op))
    return top::Precision::F32;
  return p;
}

FailureOr<top::Precision> Lowering::requestedPrecisionOf(Operation *op) {
  // Preprocessing fused onto the chip (top-fuse-preprocess) runs in F32 unless the table says otherwise.
  if (op->hasAttr("top.preprocess") && !(quantize && quantize->find(opName(op))))
    return top::Precision::F32;
  if (quantize) {
    if (auto mode = quantize->find(opName(op))) {
      switch (*mode) {
      case quant::QuantMode::F32: return top::Precision::F32;
      case quant::QuantMode::F16: return top::Precision::F16;
      case quant::QuantMode::BF16: return top::Precision::BF16;
      case quant::QuantMode::INT8: return top::Precision::INT8;
      case quant::QuantMode::W8F16: return top::Precision::W8F16;
      case quant::QuantMode::W8BF16: return top::Precision::W8BF16;
      case quant::QuantMode::W4F16: return top::Precision::W4F16;
      case quant::QuantMode::W4BF16: return top::Precision::W4BF16;
      default:
        return fail("quantize table: op '" + opName(op) + "': mode " + std::string(quant::quantModeName(*mode)) +
                    " is not supported (use F32, F16, BF16, INT8, W8F16, W8BF16, W4F16 or W4BF16)");
      }
    }
  }
  return options.mode;
}

top::Precision Lowering::floatPrecision(top::Precision p) const {
  switch (p) {
  case top::Precision::F16:
  case top::Precision::W8F16:
  case top::Precision::W4F16:
    return top::Precision::F16;
  case top::Precision::BF16:
  case top::Precision::W8BF16:
  case top::Precision::W4BF16:
    return top::Precision::BF16;
  default:
    return top::Precision::F32;
  }
}

Type Lowering::floatType(top::Precision p) {
  switch (floatPrecision(p)) {
  case top::Precision::F16:
    return rewriter().getF16Type();
  case top::Precision::BF16:
    return rewriter().getBF16Type();
  default:
    return rewriter().getF32Type();
  }
}

mlir::quant::UniformQuantizedType Lowering::int8Type(quant::QuantParams params) {
  return mlir::quant::UniformQuantizedType::get(mlir::quant::QuantizationFlags::Signed,
                                                rewriter().getIntegerType(8), rewriter().getF32Type(),
                                                params.scale, params.zeroPoint, -128, 127);
}

FailureOr<mlir::quant::UniformQuantizedType> Lowering::calibratedType(StringRef name) {
  if (!calibration)
    return fail("INT8 needs a calibration table (tensor '" + name + "')");
  const quant::CalibrationEntry *entry = calibration->find(name);
  if (!entry)
    return fail("tensor '" + name + "' is not in the calibration table");
  quant::QuantParams params = options.asymmetric
                                  ? quant::asymmetricParams(entry->min, entry->max, quant::IntType::Int8)
                                  : quant::symmetricParams(entry->threshold, quant::IntType::Int8);
  return int8Type(params);
}

RankedTensorType Lowering::resultType(Value topResult, Type element) {
  return RankedTensorType::get(top::getShape(topResult), element);
}

Value Lowering::lookup(Value topValue) const {
  auto it = mapped.find(topValue);
  return it == mapped.end() ? topValue : it->second;
}

bool Lowering::isWeight(Value topValue) { return topValue.getDefiningOp<top::WeightOp>() != nullptr; }

FailureOr<std::vector<float>> Lowering::weightData(Value topWeight) {
  auto weight = topWeight.getDefiningOp<top::WeightOp>();
  auto data = top::readWeightF32(weight);
  if (failed(data))
    return fail("cannot read weight '" + weight.getName() + "'");
  return data;
}

Location Lowering::uniqueLoc(StringRef base, StringRef suffix) {
  std::string name = (base + "_" + suffix).str();
  for (int k = 1; usedNames.contains(name); ++k)
    name = (base + "_" + suffix + "_" + Twine(k)).str();
  usedNames.insert(name);
  return NameLoc::get(rewriter().getStringAttr(name));
}

FailureOr<Value> Lowering::createWeight(StringRef base, StringRef suffix, RankedTensorType type, Tensor data) {
  auto weight = top::createWeight(rewriter(), NameLoc::get(rewriter().getStringAttr(base + "_" + suffix)),
                                  (base + "_" + suffix).str(), type, std::move(data));
  if (failed(weight))
    return fail("cannot create weight '" + base + "_" + suffix + "'");
  return weight->getOutput();
}

FailureOr<Value> Lowering::createFloatWeight(StringRef base, StringRef suffix, ArrayRef<int64_t> shape,
                                             ArrayRef<float> values, Type element) {
  std::vector<int64_t> dims(shape.begin(), shape.end());
  auto type = RankedTensorType::get(shape, element);
  if (element.isF32())
    return createWeight(base, suffix, type, Tensor::fromValues<float>(dims, std::span(values.data(), values.size())));
  // Straight into the tensor: an LLM's embedding table is GBs.
  Tensor tensor(element.isF16() ? DType::F16 : DType::BF16, dims);
  auto *bits = reinterpret_cast<uint16_t *>(tensor.data());
  bool f16 = element.isF16();
  for (size_t i = 0; i < values.size(); ++i)
    bits[i] = f16 ? f32ToF16(values[i]) : f32ToBF16(values[i]);
  return createWeight(base, suffix, type, std::move(tensor));
}

static StringRef suffixOf(Type element) {
  if (element.isF32())
    return "f32";
  if (element.isF16())
    return "f16";
  if (element.isBF16())
    return "bf16";
  return "i8";
}

FailureOr<Value> Lowering::convertWeight(Value topWeight, Type element) {
  auto key = std::make_pair(topWeight.getAsOpaquePointer(), element.getAsOpaquePointer());
  if (auto it = casts.find(key); it != casts.end())
    return it->second;
  auto weight = topWeight.getDefiningOp<top::WeightOp>();
  auto shape = top::getShape(topWeight);
  FailureOr<Value> result = failure();
  OpBuilder::InsertionGuard guard(rewriter());
  rewriter().setInsertionPoint(weight); // next to the original, so it dominates every user
  if (!isa<mlir::quant::UniformQuantizedType>(element))
    if (const Tensor *stored = top::storedWeightF32(weight)) {
      // Converted from the weight file's array in place: no f32 copy of a GB-sized table.
      std::span<const float> values = stored->values<float>();
      result = createFloatWeight(weight.getName(), suffixOf(element), shape,
                                 ArrayRef<float>(values.data(), values.size()), element);
      if (succeeded(result))
        casts[key] = *result;
      return result;
    }
  auto data = weightData(topWeight);
  if (failed(data))
    return failure();
  if (auto q = dyn_cast<mlir::quant::UniformQuantizedType>(element)) {
    std::vector<int8_t> values = quant::quantizeToInt8(*data, paramsOf(q));
    result = createWeight(weight.getName(), "i8", RankedTensorType::get(shape, element),
                          Tensor::fromValues<int8_t>(std::vector<int64_t>(shape.begin(), shape.end()), values));
  } else {
    result = createFloatWeight(weight.getName(), suffixOf(element), shape, *data, element);
  }
  if (succeeded(result))
    casts[key] = *result;
  return result;
}

FailureOr<Value> Lowering::castValue(Value lowered, StringRef base, Type element) {
  auto key = std::make_pair(lowered.getAsOpaquePointer(), element.getAsOpaquePointer());
  if (auto it = casts.find(key); it != casts.end())
    return it->second;
  Type from = cast<ShapedType>(lowered.getType()).getElementType();
  auto type = RankedTensorType::get(cast<ShapedType>(lowered.getType()).getShape(), element);
  auto fromQ = dyn_cast<mlir::quant::UniformQuantizedType>(from);
  auto toQ = dyn_cast<mlir::quant::UniformQuantizedType>(element);
  Value result;
  if (fromQ && toQ) {
    auto ms = quant::chooseMultiplierShift(fromQ.getScale() / toQ.getScale());
    if (!ms)
      return fail("tensor '" + base + "': no integer rescale from scale " + Twine(std::to_string(fromQ.getScale())) + " to " +
                  Twine(std::to_string(toQ.getScale())));
    result = tpu::RequantIntOp::create(
        rewriter(), uniqueLoc(base, "requant"), type, lowered,
        rewriter().getDenseI64ArrayAttr({ms->multiplier}), rewriter().getDenseI64ArrayAttr({ms->rshift}),
        tpu::RequantMode::multiplier_shift, top::Precision::INT8, IntegerAttr());
  } else {
    top::Precision precision = toQ               ? top::Precision::INT8
                               : element.isF16()  ? top::Precision::F16
                               : element.isBF16() ? top::Precision::BF16
                                                  : top::Precision::F32;
    result = tpu::CastOp::create(rewriter(), uniqueLoc(base, suffixOf(element)), type, lowered, precision,
                                 IntegerAttr());
  }
  casts[key] = result;
  return result;
}

FailureOr<Value> Lowering::operandAs(Value topValue, Type element) {
  if (isa<NoneType>(topValue.getType()))
    return topValue;
  Type current = cast<ShapedType>(lookup(topValue).getType()).getElementType();
  if (current == element)
    return lookup(topValue);
  // Indices and other integer tensors are not converted; booleans are data (a mask, a condition), which
  // the chip holds in the float precision as 0 and 1 (e.g. ONNX Not, imported as compare(x == false)).
  if (isa<IntegerType>(current) && !isa<mlir::quant::QuantizedType>(current) && !current.isInteger(1))
    return lookup(topValue);
  if (isWeight(topValue))
    return convertWeight(topValue, element);
  return castValue(lookup(topValue), tensorName(topValue), element);
}

FailureOr<Value> Lowering::operandInt8(Value topValue) {
  Value lowered = lookup(topValue);
  Type current = cast<ShapedType>(lowered.getType()).getElementType();
  if (isa<mlir::quant::UniformQuantizedType>(current))
    return lowered;
  if (isWeight(topValue)) {
    auto data = weightData(topValue);
    if (failed(data))
      return failure();
    float lo = 0, hi = 0;
    for (float v : *data)
      lo = std::min(lo, v), hi = std::max(hi, v);
    quant::QuantParams params =
        options.asymmetric ? quant::asymmetricParams(lo, hi, quant::IntType::Int8)
                           : quant::symmetricParams(std::max(std::fabs(lo), std::fabs(hi)), quant::IntType::Int8);
    return convertWeight(topValue, int8Type(params));
  }
  auto type = calibratedType(topValue);
  if (failed(type))
    return failure();
  return operandAs(topValue, *type);
}

FailureOr<mlir::quant::UniformQuantizedType> Lowering::calibratedType(Value topValue) {
  // A loop's carried value is the initial value at step 0 and the value the body yielded after: the
  // range of both (neither is the block argument's own tensor in the table).
  if (auto it = carriedRanges.find(topValue); it != carriedRanges.end() && calibration) {
    const quant::CalibrationEntry *a = calibration->find(it->second.first);
    const quant::CalibrationEntry *b = calibration->find(it->second.second);
    if (a || b) {
      quant::CalibrationEntry both = a ? *a : *b;
      if (a && b) {
        both.threshold = std::max(a->threshold, b->threshold);
        both.min = std::min(a->min, b->min);
        both.max = std::max(a->max, b->max);
      }
      quant::QuantParams params = options.asymmetric
                                      ? quant::asymmetricParams(both.min, both.max, quant::IntType::Int8)
                                      : quant::symmetricParams(both.threshold, quant::IntType::Int8);
      return int8Type(params);
    }
  }
  return calibratedType(tensorName(topValue));
}

SmallVector<NamedAttribute> Lowering::attrsOf(Operation *op, top::Precision precision, ArrayRef<StringRef> drop) {
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute attr : op->getAttrs())
    if (!llvm::is_contained(drop, attr.getName().getValue()))
      attrs.push_back(attr);
  attrs.push_back(rewriter().getNamedAttr("precision", top::PrecisionAttr::get(context, precision)));
  return attrs;
}

NamedAttribute Lowering::namedI64Array(StringRef name, ArrayRef<int64_t> values) {
  return rewriter().getNamedAttr(name, rewriter().getDenseI64ArrayAttr(values));
}

void Lowering::finishBuild(Operation *op, Operation *created) {
  for (auto [from, to] : llvm::zip(op->getResults(), created->getResults()))
    map(from, to);
  // The op's own verifier (precision against element types, attribute sizes) at the op that made it.
  std::string diagnostic;
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    if (diagnostic.empty())
      diagnostic = diag.str();
    return success();
  });
  if (failed(mlir::verify(created, /*verifyRecursively=*/false))) {
    invalidBuild = true;
    (void)failOp(op, "lowers to an invalid '" + created->getName().getStringRef() + "': " + diagnostic);
  }
}

LogicalResult Lowering::floatForm(Operation *op, top::Precision precision, ArrayRef<StringRef> drop,
                                  ArrayRef<NamedAttribute> extra, FloatForm &form) {
  top::Precision p = floatPrecision(precision);
  Type element = floatType(p);
  for (Value v : op->getOperands()) {
    auto converted = operandAs(v, element);
    if (failed(converted))
      return failure();
    form.operands.push_back(*converted);
  }
  for (Value r : op->getResults())
    form.results.push_back(resultType(r, element));
  form.attrs = attrsOf(op, p, drop);
  form.attrs.append(extra.begin(), extra.end());
  return success();
}

void Lowering::beginFunction(Block *entry) {
  entryBlock = entry;
  noneValue = nullptr;
  for (auto none : entry->getOps<top::NoneOp>()) {
    // Shared by every op the lowering creates, some before the first Top op using it: it goes first
    // (it has no operands), so it dominates them all.
    none->moveBefore(&entry->front());
    noneValue = none.getOutput();
    break;
  }
}

Value Lowering::none() {
  if (!noneValue) {
    OpBuilder::InsertionGuard guard(rewriter());
    rewriter().setInsertionPointToStart(entryBlock);
    noneValue =
        top::NoneOp::create(rewriter(), rewriter().getUnknownLoc(), rewriter().getNoneType()).getOutput();
  }
  return noneValue;
}

} // namespace tpuc::lowering
