//===- StageBuilder.cpp - Building one LLM stage's Top module -------------===//

#include "StageBuilder.h"

#include "tpuc/Dialect/Top/ModuleState.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace tpuc::llm;
using tpuc::top::ShapeInterface;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

StageBuilder::StageBuilder(MLIRContext &context, StringRef stageName, NpzFile *weights, StringRef weightPath)
    : context(context), builder(&context), weights(weights), stage(stageName.str()) {
  module = ModuleOp::create(builder.getUnknownLoc(), stageName);
  top::setModuleState(*module, top::ModuleState::TOP_F32);
  if (weights)
    (*module)->setAttr(top::TopDialect::kWeightFileAttr, builder.getStringAttr(weightPath));
  builder.setInsertionPointToEnd(module->getBody());
  func = func::FuncOp::create(builder, builder.getUnknownLoc(), "main", builder.getFunctionType({}, {}));
  builder.setInsertionPointToEnd(func.addEntryBlock());
}

Location StageBuilder::loc(StringRef name) { return NameLoc::get(builder.getStringAttr(name)); }

void StageBuilder::fail(const std::string &message) {
  if (firstError.empty())
    firstError = message;
}

Value StageBuilder::input(StringRef name, ArrayRef<int64_t> shape, Type elementType) {
  auto type = RankedTensorType::get(shape, elementType);
  Value arg = func.getBody().front().addArgument(type, loc(name));
  argTypes.push_back(type);
  OperationState state(loc(name), top::InputOp::getOperationName());
  state.addOperands(arg);
  state.addTypes(type);
  return builder.create(state)->getResult(0);
}

Value StageBuilder::weight(StringRef name, ArrayRef<int64_t> shape, ArrayRef<float> data) {
  if (weights && weights->has(name)) // shared with a stage built before: no second copy
    return weight(name, Tensor(DType::F32, {}), f32(), shape);
  return weight(name,
                Tensor::fromValues<float>(std::vector<int64_t>(shape.begin(), shape.end()),
                                          std::span<const float>(data.data(), data.size())),
                f32());
}

Value StageBuilder::weight(StringRef name, Tensor tensor, Type elementType, ArrayRef<int64_t> sharedShape) {
  std::vector<int64_t> shape = tensor.shape();
  if (!weights) {
    fail("stage '" + stage + "' has no weight file for '" + name.str() + "'");
  } else if (!weights->has(name)) {
    weights->set(name.str(), std::move(tensor));
  } else {
    if (!sharedShape.empty())
      shape.assign(sharedShape.begin(), sharedShape.end());
    if (weights->get(name).shape() != shape)
      fail("weight '" + name.str() + "' is stored twice with different shapes");
  }
  auto type = RankedTensorType::get(shape, elementType);
  return top::WeightOp::create(builder, loc(name), type, builder.getStringAttr(name), ElementsAttr())
      .getOutput();
}

Value StageBuilder::constant(StringRef name, ArrayRef<int64_t> shape, ArrayRef<float> data) {
  auto type = RankedTensorType::get(shape, f32());
  auto value = DenseElementsAttr::get(type, data);
  return top::WeightOp::create(builder, loc(name), type, builder.getStringAttr(name), value).getOutput();
}

Value StageBuilder::none() {
  if (!noneValue)
    noneValue = top::NoneOp::create(builder, builder.getUnknownLoc(), builder.getNoneType()).getOutput();
  return noneValue;
}

SmallVector<Value> StageBuilder::create(StringRef opName, StringRef name, ValueRange operands,
                                        ArrayRef<NamedAttribute> attrs, ArrayRef<Type> resultElements) {
  OperationState state(loc(name), opName);
  state.addOperands(operands);
  state.addAttributes(attrs);
  if (resultElements.empty())
    state.addTypes(UnrankedTensorType::get(f32()));
  for (Type element : resultElements)
    state.addTypes(UnrankedTensorType::get(element));
  Operation *op = builder.create(state);
  auto shaped = dyn_cast<ShapeInterface>(op);
  std::string diagnostic;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error && diagnostic.empty())
      diagnostic = diag.str();
    return success();
  });
  if (!shaped)
    fail(opName.str() + " '" + name.str() + "' has no shape rule");
  else if (failed(shaped.inferShapes()))
    fail("stage '" + stage + "': " + opName.str() + " '" + name.str() + "': " + diagnostic);
  return SmallVector<Value>(op->getResults());
}

Value StageBuilder::op(StringRef opName, StringRef name, ValueRange operands,
                       ArrayRef<NamedAttribute> attrs) {
  return create(opName, name, operands, attrs).front();
}

Value StageBuilder::reshape(Value value, ArrayRef<int64_t> shape, StringRef name) {
  auto element = cast<ShapedType>(value.getType()).getElementType();
  return top::ReshapeOp::create(builder, loc(name), RankedTensorType::get(shape, element), value).getOutput();
}

Value StageBuilder::linear(Value x, const LinearWeights &w, const std::vector<float> *bias, StringRef name) {
  std::string base = name.str();
  Value biasValue = bias ? weight(base + ".bias", {w.outFeatures}, *bias) : none();
  if (!w.quantized) {
    Value right = weight(base + ".weight", {w.outFeatures, w.inFeatures}, w.weight);
    return op("top.matmul", base, {x, right, biasValue},
              {attr("right_transpose", builder.getBoolAttr(true))});
  }
  if (!w.inputPermutation.empty()) {
    // Act-order: bring the input channels into the stored (group-contiguous) order.
    std::vector<int32_t> perm(w.inputPermutation.begin(), w.inputPermutation.end());
    Value index = weight(base + ".perm", Tensor::fromValues<int32_t>({w.inFeatures}, perm), i32());
    int64_t rank = cast<ShapedType>(x.getType()).getRank();
    x = op("top.gather", base + ".act_order", {x, index},
           {attr("axis", builder.getI64IntegerAttr(rank - 1))});
  }
  int64_t groups = w.inFeatures / w.groupSize;
  int64_t cols = w.bits == 4 ? w.inFeatures / 2 : w.inFeatures;
  Type qType = w.symmetric && w.bits == 8 ? builder.getIntegerType(8, /*isSigned=*/true)
                                          : builder.getIntegerType(8, /*isSigned=*/false);
  DType qDType = w.symmetric && w.bits == 8 ? DType::I8 : DType::U8;
  Value q = weight(base + ".qweight", Tensor(qDType, {w.outFeatures, cols}, w.data), qType);
  Value scale = weight(base + ".scales", {w.outFeatures, groups}, w.scales);
  Value zp = w.symmetric ? none() : weight(base + ".zeros", {w.outFeatures, groups}, w.zeroPoints);
  return op("top.a16matmul", base, {x, q, scale, zp, biasValue},
            {attr("weight_bits", builder.getI64IntegerAttr(w.bits)),
             attr("q_group_size", builder.getI64IntegerAttr(w.groupSize)),
             attr("sym", builder.getBoolAttr(w.symmetric))});
}

llvm::Expected<OwningOpRef<ModuleOp>> StageBuilder::finish(ValueRange outputs) {
  func::ReturnOp::create(builder, builder.getUnknownLoc(), outputs);
  func.setFunctionType(builder.getFunctionType(argTypes, TypeRange(outputs)));
  if (!firstError.empty())
    return makeError(firstError);
  std::string diagnostic;
  {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error && diagnostic.empty())
        diagnostic = diag.str();
      return success();
    });
    if (failed(verify(*module)))
      return makeError("stage '" + stage + "' does not verify: " + diagnostic);
  }
  return std::move(module);
}
