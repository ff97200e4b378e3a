//===- Shadow.cpp - Float Top twins of Tpu ops, value encodings -----------===//
// A Tpu op in a float precision computes what its Top op computes, in f32, then rounds: the simulator
// builds that Top op once (same attributes, f32-typed arguments in a scratch module) and runs the
// reference kernel on it, so F32 results are bit-identical to the reference interpreter.
//===----------------------------------------------------------------------===//
#include "SimOps.h"

#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Tpu/TpuOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>

using namespace mlir;

namespace tpuc::sim::tpusim {
namespace {

quant::IntType storageOf(mlir::quant::QuantizedType q) {
  bool isSigned = q.isSigned();
  switch (q.getStorageTypeIntegralWidth()) {
  case 4:
    return isSigned ? quant::IntType::Int4 : quant::IntType::UInt4;
  case 16:
    return isSigned ? quant::IntType::Int16 : quant::IntType::UInt16;
  case 32:
    return quant::IntType::Int32;
  default:
    return isSigned ? quant::IntType::Int8 : quant::IntType::UInt8;
  }
}

/// The f32 twin of a type: quantized, f16 and bf16 elements become f32, integers stay.
Type shadowType(Type type) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  if (!shaped)
    return type;
  Type element = shaped.getElementType();
  if (isa<mlir::quant::QuantizedType>(element) || isa<FloatType>(element))
    return shaped.clone(Float32Type::get(type.getContext()));
  return type;
}

} // namespace

Encoding encodingOf(Type type) {
  Encoding e;
  if (isa<NoneType>(type)) {
    e.kind = Encoding::None;
    return e;
  }
  Type element = getElementTypeOrSelf(type);
  if (auto q = dyn_cast<mlir::quant::UniformQuantizedType>(element)) {
    e.kind = Encoding::Quant;
    e.q = {q.getScale(), q.getZeroPoint()};
    e.storage = storageOf(q);
  } else if (element.isF16()) {
    e.kind = Encoding::F16;
  } else if (element.isBF16()) {
    e.kind = Encoding::BF16;
  }
  return e;
}

llvm::Expected<Operation *> buildTwin(Operation *op, Block &block, bool forInt8, const TwinSpec &spec) {
  MLIRContext *ctx = op->getContext();
  StringRef topName = spec.topName;
  unsigned numOperands = std::min(spec.numOperands, op->getNumOperands());
  auto registered = RegisteredOperationName::lookup(topName, ctx);
  if (!registered)
    return makeError("no float kernel: '" + topName + "' is not registered");
  llvm::StringSet<> allowed;
  for (StringAttr attr : registered->getAttributeNames())
    allowed.insert(attr.getValue());

  OpBuilder builder(ctx);
  builder.setInsertionPointToEnd(&block);
  Location loc = op->getLoc();
  SmallVector<Type> argTypes;
  for (unsigned i = 0; i < numOperands; ++i)
    if (!isa<NoneType>(op->getOperand(i).getType()))
      argTypes.push_back(shadowType(op->getOperand(i).getType()));
  auto fn = func::FuncOp::create(builder, loc, "shadow_" + std::to_string(block.getOperations().size()),
                                 FunctionType::get(ctx, argTypes, {}));
  Block *entry = fn.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  SmallVector<Value> operands;
  unsigned arg = 0;
  for (unsigned i = 0; i < numOperands; ++i) {
    if (isa<NoneType>(op->getOperand(i).getType())) {
      OperationState none(loc, top::NoneOp::getOperationName());
      none.addTypes(NoneType::get(ctx));
      operands.push_back(builder.create(none)->getResult(0));
    } else {
      operands.push_back(entry->getArgument(arg++));
    }
  }
  OperationState state(loc, topName);
  state.addOperands(operands);
  for (Value r : op->getResults())
    state.addTypes(shadowType(r.getType()));
  for (NamedAttribute attr : op->getAttrs()) {
    StringRef attrName = attr.getName().getValue();
    // On INT8 codes the fused relu clamps at the zero point: the caller applies it, never the float twin.
    if (forInt8 && (attrName == "do_relu" || attrName == "relu_limit"))
      continue;
    if (allowed.contains(attrName))
      state.addAttribute(attr.getName(), attr.getValue());
  }
  for (NamedAttribute attr : spec.extra)
    state.addAttribute(attr.getName(), attr.getValue());
  if (forInt8 && isa<::tpuc::tpu::PadOp>(op)) { // pad fills the quantized value
    Encoding out = encodingOf(op->getResult(0).getType());
    double val = 0;
    if (auto v = op->getAttrOfType<FloatAttr>("val"))
      val = v.getValueAsDouble();
    state.addAttribute("val", builder.getF64FloatAttr(
                                  static_cast<double>(quant::quantize(val, out.q, out.storage))));
  }
  Operation *shadow = builder.create(state);
  std::string diagnostics;
  {
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
      if (diagnostics.empty())
        diagnostics = diag.str();
      return success();
    });
    if (failed(mlir::verify(shadow, /*verifyRecursively=*/false)))
      return makeError("no float kernel: its twin '" + topName + "' is invalid: " + diagnostics);
  }
  if (!isa<top::InferenceInterface>(shadow))
    return makeError("no float kernel: '" + topName + "' has no reference kernel");
  return shadow;
}

} // namespace tpuc::sim::tpusim
