//===- Shadow.cpp - Float Top twins of Tpu ops, value encodings -----------===//
// A Tpu op in a float precision computes what its Top op computes, in f32, then rounds: the simulator
// builds that Top op once (same attributes, f32-typed arguments in a scratch module) and runs the
// reference kernel on it, so F32 results are bit-identical to the reference interpreter.
//===----------------------------------------------------------------------===//
#include "SimOps.h"

#include "tpuc/Dialect/Top/TopOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"

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

/// The Top op name for a unary tpu.active mode, with its coefficient attributes.
StringRef activeTopName(StringRef mode) {
  static const llvm::StringMap<StringRef> renamed = {{"gelu_tanh", "gelu"},
                                                     {"hardsigmoid", "hard_sigmoid"},
                                                     {"hardswish", "hard_swish"}};
  auto it = renamed.find(mode);
  return it == renamed.end() ? mode : it->second;
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

bool isDataMovement(StringRef name) {
  static const llvm::StringSet<> ops = {"tpu.reshape", "tpu.permute",     "tpu.slice",  "tpu.split",
                                        "tpu.gather",  "tpu.depth2space", "tpu.interp", "tpu.pad",
                                        "tpu.concat",  "tpu.squeeze",     "tpu.unsqueeze", "tpu.upsample",
                                        "tpu.dynamic_slice", "tpu.gather_elements"};
  return ops.contains(name);
}

bool needsShadow(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (name == "tpu.cast" || name == "tpu.requant_int" || name == "tpu.a16matmul" || name == "tpu.scale")
    return false;
  if (isDataMovement(name))
    return true;
  // INT8 deconv accumulates exactly through the float kernel on shifted codes.
  if (name == "tpu.deconv2d")
    return true;
  for (Value v : op->getResults())
    if (encodingOf(v.getType()).isQuant())
      return false;
  return true;
}

Operation *buildShadow(Operation *op, Block &block, bool forInt8, std::string &error) {
  MLIRContext *ctx = op->getContext();
  StringRef mnemonic = op->getName().stripDialect();
  std::string topName = ("top." + mnemonic).str();
  unsigned numOperands = op->getNumOperands();
  SmallVector<NamedAttribute> extra;
  if (mnemonic == "conv2d")
    topName = "top.conv";
  else if (mnemonic == "deconv2d")
    topName = "top.deconv";
  else if (mnemonic == "pool2d") {
    auto mode = op->getAttr("pool_mode");
    std::string text;
    llvm::raw_string_ostream os(text);
    if (mode)
      mode.print(os);
    topName = StringRef(text).contains("avg") ? "top.avgpool" : "top.maxpool";
    // A global average (the lowering of top.adaptive_avgpool to one 1x1 output cell) runs the reference's
    // adaptive-pool kernel, whose summation order is the one the Top reference used: F32 stays bit-exact.
    auto in = cast<ShapedType>(op->getOperand(0).getType()).getShape();
    auto out = cast<ShapedType>(op->getResult(0).getType()).getShape();
    auto kernel = op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape");
    auto pads = op->getAttrOfType<DenseI64ArrayAttr>("pads");
    auto relu = op->getAttrOfType<BoolAttr>("do_relu");
    if (topName == "top.avgpool" && in.size() == 4 && out[2] == 1 && out[3] == 1 && kernel &&
        kernel.asArrayRef() == ArrayRef<int64_t>{in[2], in[3]} && pads &&
        llvm::all_of(pads.asArrayRef(), [](int64_t p) { return p == 0; }) && !(relu && relu.getValue())) {
      topName = "top.adaptive_avgpool";
      extra.push_back(Builder(ctx).getNamedAttr("output_size", DenseI64ArrayAttr::get(ctx, {1, 1})));
    }
  } else if (mnemonic.ends_with("_const")) {
    numOperands = 1; // the INT8 table is not an operand of the Top op
  } else if (mnemonic == "active") {
    numOperands = 1;
    std::string text;
    llvm::raw_string_ostream os(text);
    if (auto mode = op->getAttr("active_mode"))
      mode.print(os);
    // #tpu.active_mode<sigmoid> -> sigmoid
    StringRef m = StringRef(text).rsplit('<').second.rtrim('>');
    topName = ("top." + activeTopName(m)).str();
    double alpha = 0, beta = 0;
    if (auto a = op->getAttrOfType<FloatAttr>("alpha"))
      alpha = a.getValueAsDouble();
    if (auto b = op->getAttrOfType<FloatAttr>("beta"))
      beta = b.getValueAsDouble();
    Builder b(ctx);
    if (m == "gelu_tanh")
      extra.push_back(b.getNamedAttr("gelu_approx", top::GeluApproxAttr::get(ctx, top::GeluApprox::tanh)));
    else if (m == "pow")
      extra.push_back(b.getNamedAttr("exponent", b.getF64FloatAttr(alpha)));
    else if (m == "leaky_relu")
      extra.push_back(b.getNamedAttr("alpha", b.getF64FloatAttr(alpha)));
    else if (m == "hardsigmoid") {
      extra.push_back(b.getNamedAttr("alpha", b.getF64FloatAttr(alpha)));
      extra.push_back(b.getNamedAttr("beta", b.getF64FloatAttr(beta)));
    }
  }
  auto registered = RegisteredOperationName::lookup(topName, ctx);
  if (!registered) {
    error = "no float kernel: '" + topName + "' does not exist";
    return nullptr;
  }
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
      OperationState none(loc, "top.none");
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
  for (NamedAttribute attr : extra)
    state.addAttribute(attr.getName(), attr.getValue());
  if (forInt8 && mnemonic == "pad") { // pad fills the quantized value
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
    if (failed(mlir::verify(shadow, /*verifyRecursively=*/false))) {
      error = "no float kernel: its twin '" + topName + "' is invalid: " + diagnostics;
      return nullptr;
    }
  }
  if (!isa<top::InferenceInterface>(shadow)) {
    error = "no float kernel: '" + topName + "' has no reference kernel";
    return nullptr;
  }
  return shadow;
}

} // namespace tpuc::sim::tpusim
