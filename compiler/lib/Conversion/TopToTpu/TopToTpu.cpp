//===- TopToTpu.cpp - The top-to-tpu pass and lowerToTpu ------------------===//
// Walks each function in program order, lowers every Top op through its pattern, casts the outputs back
// to f32, erases the Top ops and records the Tpu state on the module.
//===----------------------------------------------------------------------===//
#include "TopLowering.h"

#include "tpuc/Dialect/Top/ModuleState.h"
#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "llvm/ADT/StringExtras.h"

namespace tpuc {
#define GEN_PASS_DEF_TOPTOTPU
#include "tpuc/Transforms/Passes.h.inc"
} // namespace tpuc

using namespace mlir;

namespace tpuc {

std::optional<top::Precision> parseLoweringMode(llvm::StringRef name) {
  return top::symbolizePrecision(name.upper());
}

namespace lowering {

void populateTopToTpuPatterns(RewritePatternSet &patterns, Lowering &lowering) {
  populateNNPatterns(patterns, lowering);
  populateElementwisePatterns(patterns, lowering);
  populateShapePatterns(patterns, lowering);
}

PatternTable patternTable(const FrozenRewritePatternSet &patterns) {
  PatternTable table;
  for (const auto &[name, list] : patterns.getOpSpecificNativePatterns()) {
    assert(list.size() == 1 && "one lowering pattern per Top op");
    table[name] = list.front();
  }
  return table;
}

namespace {

/// Lowers one Top op through its pattern, which creates the Tpu ops before it and maps its results.
LogicalResult lowerOp(Lowering &L, const PatternTable &patterns, PatternRewriter &rewriter, Operation *op) {
  auto it = patterns.find(op->getName());
  if (it == patterns.end())
    return L.failOp(op, "has no Tpu lowering");
  rewriter.setInsertionPoint(op);
  return it->second->matchAndRewrite(op, rewriter);
}

/// --quant_input / --quant_output: drop the boundary casts, retyping the function's arguments and results
/// (lowerFunction then updates the signature).
void quantizeBoundary(Lowering &L, RewriterBase &rewriter, func::FuncOp func) {
  Block &entry = func.getBody().front();
  if (L.options.quantInput)
    // Collected first: the loop erases the casts that follow each input.
    for (top::InputOp input : llvm::to_vector(entry.getOps<top::InputOp>())) {
      if (input->getNumOperands() != 1 || input.getCustomizationFormat())
        continue;
      auto arg = dyn_cast<BlockArgument>(input->getOperand(0));
      Value v = input->getResult(0);
      // Every user casts the input to one type: that type becomes the input's.
      Type target;
      bool uniform = !v.use_empty();
      for (Operation *user : v.getUsers()) {
        auto toward = dyn_cast<tpu::CastOp>(user);
        if (!toward || (target && toward.getType() != target)) {
          uniform = false;
          break;
        }
        target = toward.getType();
      }
      if (!arg || !uniform || !target)
        continue;
      arg.setType(target);
      v.setType(target);
      for (Operation *user : llvm::make_early_inc_range(v.getUsers()))
        rewriter.replaceOp(user, v);
    }
  if (L.options.quantOutput) {
    auto ret = cast<func::ReturnOp>(entry.getTerminator());
    for (OpOperand &operand : ret->getOpOperands())
      if (auto back = operand.get().getDefiningOp<tpu::CastOp>()) {
        // Only the lowering's own casts back to float: from INT8, F16 or BF16 (an ONNX Cast from an
        // integer tensor stays).
        Type from = cast<ShapedType>(back.getInput().getType()).getElementType();
        if (!isa<mlir::quant::UniformQuantizedType>(from) && !from.isF16() && !from.isBF16())
          continue;
        rewriter.modifyOpInPlace(ret, [&] { operand.set(back.getInput()); });
        if (back->use_empty())
          rewriter.eraseOp(back);
      }
  }
}

LogicalResult lowerBlock(Lowering &L, const PatternTable &patterns, PatternRewriter &rewriter, Block &block,
                         SmallVectorImpl<Operation *> &topOps);

/// Erases lowered Top ops, users first (until then later patterns read the Top values: names, weights,
/// types).
void eraseTopOps(PatternRewriter &rewriter, ArrayRef<Operation *> topOps) {
  for (Operation *op : llvm::reverse(topOps)) {
    op->dropAllUses();
    rewriter.eraseOp(op);
  }
}

/// A Tpu op of `Op` with generic operands and attributes, verified with the module.
template <typename Op>
Value createTpu(Lowering &L, Location loc, Type type, ValueRange operands, ArrayRef<NamedAttribute> attrs) {
  return Op::create(L.rewriter(), loc, TypeRange{type}, operands, attrs)->getResult(0);
}

NamedAttribute precisionAttr(Lowering &L, top::Precision p) {
  return L.rewriter().getNamedAttr("precision", top::PrecisionAttr::get(L.getContext(), p));
}

/// `lhs mode rhs` as a 0 / 1 f32 mask (tpu.compare), reshaped to one element of shape [1].
Value compareF32(Lowering &L, StringRef base, StringRef suffix, Value lhs, Value rhs, top::CompareMode mode) {
  auto f32 = L.rewriter().getF32Type();
  auto shapeOf = [](Value v) { return cast<ShapedType>(v.getType()).getShape(); };
  SmallVector<int64_t> shape(std::max(shapeOf(lhs).size(), shapeOf(rhs).size()), 1);
  Value mask = createTpu<tpu::CompareOp>(
      L, L.uniqueLoc(base, suffix), RankedTensorType::get(shape, f32), {lhs, rhs},
      {L.rewriter().getNamedAttr("mode", top::CompareModeAttr::get(L.getContext(), mode)),
       precisionAttr(L, top::Precision::F32)});
  if (shape == SmallVector<int64_t>{1})
    return mask;
  return createTpu<tpu::ReshapeOp>(L, L.uniqueLoc(base, Twine(suffix + "_1").str()), RankedTensorType::get({1}, f32),
                                   {mask}, {precisionAttr(L, top::Precision::F32)});
}

/// A value as f32 for the loop logic: integers (a trip count, a boolean) through tpu.cast, floats as
/// operandAs converts them.
FailureOr<Value> asF32(Lowering &L, Value topValue) {
  auto f32 = L.rewriter().getF32Type();
  Value lowered = L.lookup(topValue);
  Type element = cast<ShapedType>(lowered.getType()).getElementType();
  if (isa<IntegerType>(element) && !element.isInteger(1))
    return createTpu<tpu::CastOp>(L, L.uniqueLoc(tensorName(topValue), "f32"),
                                  RankedTensorType::get(cast<ShapedType>(lowered.getType()).getShape(), f32),
                                  {lowered}, {precisionAttr(L, top::Precision::F32)});
  return L.operandAs(topValue, f32);
}

/// The element type a region op's float result takes: the op's float precision (F32 for INT8); integer
/// results keep their type.
Type carriedType(Lowering &L, Value topValue, top::Precision precision) {
  auto type = cast<RankedTensorType>(topValue.getType());
  Type element = type.getElementType();
  if (isa<IntegerType>(element) && !element.isInteger(1))
    return type;
  return RankedTensorType::get(type.getShape(), L.floatType(precision));
}

/// Moves the ops of the Top region's block into `into` (the Top block's arguments map to `arguments`),
/// lowers them with their own `none` and erases them; `yield` makes the Tpu yield from the Top one's
/// operands before it.
LogicalResult lowerRegion(Lowering &L, const PatternTable &patterns, PatternRewriter &rewriter, Region &topRegion,
                          Block *into, ArrayRef<Value> arguments, function_ref<LogicalResult(top::YieldOp)> yield) {
  Block &topBlock = topRegion.front();
  for (auto [from, to] : llvm::zip_equal(topBlock.getArguments(), arguments))
    L.map(from, to);
  into->getOperations().splice(into->end(), topBlock.getOperations());
  auto saved = L.noneScope();
  L.beginFunction(into);
  SmallVector<Operation *> topOps;
  LogicalResult lowered = lowerBlock(L, patterns, rewriter, *into, topOps);
  if (succeeded(lowered)) {
    auto topYield = cast<top::YieldOp>(into->getTerminator());
    rewriter.setInsertionPoint(topYield);
    lowered = yield(topYield);
    if (succeeded(lowered))
      topOps.push_back(topYield);
  }
  L.restoreNoneScope(saved);
  if (failed(lowered))
    return failure();
  eraseTopOps(rewriter, topOps);
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*into)))
    if (isa<top::WeightOp, top::NoneOp>(op) && op.use_empty())
      rewriter.eraseOp(&op);
  return success();
}

/// tpu.yield of `values`, then the lowered `topValues` converted to the element types of `types`.
LogicalResult yieldConverted(Lowering &L, PatternRewriter &rewriter, Location loc, SmallVector<Value> values,
                             ValueRange topValues, TypeRange types) {
  for (auto [v, type] : llvm::zip(topValues, types)) {
    auto converted = L.operandAs(v, cast<ShapedType>(type).getElementType());
    if (failed(converted))
      return failure();
    values.push_back(*converted);
  }
  tpu::YieldOp::create(rewriter, loc, values);
  return success();
}

/// top.if -> tpu.if: the condition as the lowering holds it (a boolean as an f32 mask), the inputs as
/// lowered, float results in the op's float precision; each branch lowered into its region.
LogicalResult lowerIf(Lowering &L, const PatternTable &patterns, PatternRewriter &rewriter, top::IfOp op) {
  rewriter.setInsertionPoint(op);
  auto precision = L.requestedPrecision(op);
  if (failed(precision))
    return failure();
  auto cond = asF32(L, op.getCond());
  if (failed(cond))
    return failure();
  SmallVector<Value> inputs;
  for (Value v : op.getInputs())
    inputs.push_back(L.lookup(v));
  SmallVector<Type> results;
  for (Value r : op.getResults())
    results.push_back(carriedType(L, r, *precision));
  auto tpuIf = tpu::IfOp::create(rewriter, op.getLoc(), results, *cond, inputs);
  SmallVector<Type> argTypes(ValueRange(inputs).getTypes());
  SmallVector<Location> argLocs(inputs.size(), op.getLoc());
  Region *regions[2][2] = {{&op.getThenBranch(), &tpuIf.getThenBranch()},
                           {&op.getElseBranch(), &tpuIf.getElseBranch()}};
  for (auto &[topRegion, tpuRegion] : regions) {
    Block *block = rewriter.createBlock(tpuRegion, {}, argTypes, argLocs);
    auto yield = [&](top::YieldOp y) {
      return yieldConverted(L, rewriter, y.getLoc(), {}, y.getOperands(), results);
    };
    SmallVector<Value> arguments(block->getArguments());
    if (failed(lowerRegion(L, patterns, rewriter, *topRegion, block, arguments, yield)))
      return failure();
  }
  for (auto [from, to] : llvm::zip(op.getResults(), tpuIf.getResults()))
    L.map(from, to);
  return success();
}

/// top.loop -> tpu.loop as a while loop carrying (go, step, values...): go = step < max_trips and cond,
/// computed in f32 before the loop and at the end of every step; max_trips enters the body as one more
/// capture. The Top step argument (an integer) is the f32 step cast back.
LogicalResult lowerLoop(Lowering &L, const PatternTable &patterns, PatternRewriter &rewriter, top::LoopOp op) {
  rewriter.setInsertionPoint(op);
  std::string name = opName(op);
  bool hasTrips = !isa<NoneType>(op.getMaxTrips().getType()), hasCond = !isa<NoneType>(op.getCond().getType());
  if (!hasTrips && !hasCond)
    return L.failOp(op, "has neither a trip count nor a condition: it would never end");
  auto precision = L.requestedPrecision(op);
  if (failed(precision))
    return failure();
  auto f32 = rewriter.getF32Type();
  Block &topBody = op.getBody().front();
  auto stepType = RankedTensorType::get({1}, f32);
  auto step0 = L.createFloatWeight(name, "step0", {1}, {0.0f}, f32);
  if (failed(step0))
    return failure();
  Value trips;
  if (hasTrips && Lowering::isWeight(op.getMaxTrips())) {
    // A constant count goes in as an f32 weight; exporters write INT64_MAX for "no count", which the
    // chip's 32-bit integers do not hold: the largest count an int32 holds stands in for it.
    auto data = L.weightData(op.getMaxTrips());
    if (failed(data) || data->size() != 1)
      return L.failOp(op, "'max_trips' must hold one value");
    constexpr float kIntMax = 2147483647.0f;
    auto weight = L.createFloatWeight(name, "max_trips", {1}, {std::min((*data)[0], kIntMax)}, f32);
    if (failed(weight))
      return failure();
    trips = *weight;
  } else if (hasTrips) {
    auto converted = asF32(L, op.getMaxTrips());
    if (failed(converted))
      return failure();
    trips = *converted;
  }
  Value go;
  if (hasTrips)
    go = compareF32(L, name, "go0", *step0, trips, top::CompareMode::lt);
  if (hasCond) {
    auto cond = asF32(L, op.getCond());
    if (failed(cond))
      return failure();
    go = go ? compareF32(L, name, "go0_and", go, *cond, top::CompareMode::And)
            : compareF32(L, name, "go0", *cond, *cond, top::CompareMode::And); // nonzero -> 1, shape [1]
  }
  SmallVector<Value> inits{go, *step0}, captures;
  SmallVector<Type> carried{stepType, stepType};
  for (Value v : op.getInits()) {
    Type type = carriedType(L, v, *precision);
    auto converted = L.operandAs(v, cast<ShapedType>(type).getElementType());
    if (failed(converted))
      return failure();
    inits.push_back(*converted);
    carried.push_back(type);
  }
  for (Value v : op.getCaptures())
    captures.push_back(L.lookup(v));
  if (hasTrips)
    captures.push_back(trips);
  // Named per result: the go flag and the step after the loop, then the Top loop's own results.
  std::vector<std::string> names{name + "_go", name + "_step"};
  for (Value r : op.getResults())
    names.push_back(top::resultName(r));
  Location provenance = op.getLoc();
  if (auto named = dyn_cast<NameLoc>(provenance))
    provenance = named.getChildLoc();
  auto loop = tpu::LoopOp::create(rewriter, top::resultsLoc(op.getContext(), names, provenance), carried,
                                  inits, captures);
  SmallVector<Type> argTypes(carried);
  llvm::append_range(argTypes, ValueRange(captures).getTypes());
  Block *body = rewriter.createBlock(&loop.getBody(), {}, argTypes, SmallVector<Location>(argTypes.size(), op.getLoc()));
  // The Top block's arguments: step (the f32 step cast to the Top type when that is an integer), cond (the
  // f32 go mask), the carried values, the captures.
  rewriter.setInsertionPointToStart(body);
  Value stepArg = body->getArgument(1);
  Value topStep = topBody.getArgument(0);
  Type topStepElement = cast<ShapedType>(topStep.getType()).getElementType();
  Value stepForTop = stepArg;
  if (!topStep.use_empty() && isa<IntegerType>(topStepElement))
    stepForTop = createTpu<tpu::CastOp>(
        L, L.uniqueLoc(name, "step_int"), RankedTensorType::get(top::getShape(topStep), topStepElement),
        {top::getShape(topStep) == ArrayRef<int64_t>{1}
             ? stepArg
             : createTpu<tpu::ReshapeOp>(L, L.uniqueLoc(name, "step_shape"),
                                         RankedTensorType::get(top::getShape(topStep), f32), {stepArg},
                                         {precisionAttr(L, top::Precision::F32)})},
        {precisionAttr(L, top::Precision::F32)});
  SmallVector<Value> forTop{stepForTop, body->getArgument(0)};
  for (size_t i = 0; i < op.getInits().size(); ++i)
    forTop.push_back(body->getArgument(2 + i));
  for (size_t i = 0; i < op.getCaptures().size(); ++i)
    forTop.push_back(body->getArgument(carried.size() + i));
  Value tripsArg = hasTrips ? body->getArguments().back() : Value();
  auto yield = [&](top::YieldOp y) -> LogicalResult {
    Value step1 =
        createTpu<tpu::AddConstOp>(L, L.uniqueLoc(name, "step_next"), stepType, {stepArg, L.none()},
                                   {rewriter.getNamedAttr("const_val", rewriter.getF64FloatAttr(1.0)),
                                    precisionAttr(L, top::Precision::F32)});
    Value next;
    if (hasTrips)
      next = compareF32(L, name, "go_next", step1, tripsArg, top::CompareMode::lt);
    if (hasCond) {
      auto cond = asF32(L, y.getOperand(0));
      if (failed(cond))
        return failure();
      next = next ? compareF32(L, name, "go_next_and", next, *cond, top::CompareMode::And)
                  : compareF32(L, name, "go_next", *cond, *cond, top::CompareMode::And);
    }
    return yieldConverted(L, rewriter, y.getLoc(), {next, step1}, y.getOperands().drop_front(),
                          ArrayRef<Type>(carried).drop_front(2));
  };
  Operation *topYield = topBody.getTerminator();
  // The ops the exit condition depends on inside the body, carried values' yields followed around the loop.
  if (hasCond) {
    SmallVector<Value> work{topYield->getOperand(0)};
    llvm::DenseSet<Value> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        unsigned k = arg.getArgNumber();
        if (arg.getOwner() == &topBody && k >= 2 && k < 2 + op.getInits().size())
          work.push_back(topYield->getOperand(1 + k - 2));
        continue;
      }
      Operation *def = v.getDefiningOp();
      if (!def || def->getBlock() != &topBody || isa<top::WeightOp, top::NoneOp>(def))
        continue;
      L.loopConditionOps.insert(def);
      llvm::append_range(work, def->getOperands());
    }
  }
  for (size_t k = 0; k < op.getInits().size(); ++k)
    L.setCarriedRange(topBody.getArgument(2 + k), op.getInits()[k], topYield->getOperand(1 + k));
  if (failed(lowerRegion(L, patterns, rewriter, op.getBody(), body, forTop, yield)))
    return failure();
  for (auto [k, r] : llvm::enumerate(op.getResults()))
    L.map(r, loop.getResult(2 + k));
  return success();
}

/// Lowers the ops of `block` in program order, recording the lowered Top ops in `topOps` (the terminator,
/// func.return or top.yield, is left to the caller).
LogicalResult lowerBlock(Lowering &L, const PatternTable &patterns, PatternRewriter &rewriter, Block &block,
                         SmallVectorImpl<Operation *> &topOps) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (isa<top::InputOp, top::WeightOp, top::NoneOp>(op) || op.hasTrait<OpTrait::IsTerminator>())
      continue;
    if (isa<tpu::TpuDialect>(op.getDialect()))
      continue; // made by the lowering (a loop's step cast)
    if (!isa<top::TopDialect>(op.getDialect()))
      return L.fail("op '" + op.getName().getStringRef() + "' '" + opName(&op) + "' is not a Top op");
    LogicalResult lowered = success();
    if (auto ifOp = dyn_cast<top::IfOp>(op))
      lowered = lowerIf(L, patterns, rewriter, ifOp);
    else if (auto loop = dyn_cast<top::LoopOp>(op))
      lowered = lowerLoop(L, patterns, rewriter, loop);
    else
      lowered = lowerOp(L, patterns, rewriter, &op);
    if (failed(lowered))
      return failure();
    topOps.push_back(&op);
  }
  return success();
}

/// Lowers the body of one function in program order; the Top ops are erased afterwards.
LogicalResult lowerFunction(Lowering &L, const PatternTable &patterns, PatternRewriter &rewriter,
                            func::FuncOp func) {
  if (func.isExternal())
    return success();
  Block &entry = func.getBody().front();
  L.beginFunction(&entry);
  // An input taking raw pixels (top-fuse-preprocess) is UINT8 (real value = code); its consumers cast it.
  for (top::InputOp input : entry.getOps<top::InputOp>())
    if (auto arg = input->getNumOperands() == 1 ? dyn_cast<BlockArgument>(input.getInput()) : BlockArgument();
        arg && input.getCustomizationFormat()) {
      auto u8 = mlir::quant::UniformQuantizedType::get(0, rewriter.getIntegerType(8, /*isSigned=*/false),
                                                       rewriter.getF32Type(), 1.0, 0, 0, 255);
      auto type = RankedTensorType::get(cast<ShapedType>(arg.getType()).getShape(), u8);
      arg.setType(type);
      input.getOutput().setType(type);
    }
  SmallVector<Operation *> topOps;
  if (failed(lowerBlock(L, patterns, rewriter, entry, topOps)))
    return failure();
  // Outputs go back to f32 (integer outputs such as indices stay as they are).
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  rewriter.setInsertionPoint(ret);
  for (OpOperand &operand : ret->getOpOperands()) {
    Value topValue = operand.get();
    Type expected = cast<ShapedType>(topValue.getType()).getElementType();
    auto lowered = L.operandAs(topValue, expected);
    if (failed(lowered))
      return failure();
    rewriter.modifyOpInPlace(ret, [&] { operand.set(*lowered); });
  }
  eraseTopOps(rewriter, topOps);
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(entry)))
    if (isa<top::WeightOp, top::NoneOp>(op) && op.use_empty())
      rewriter.eraseOp(&op);
  if (L.options.quantInput || L.options.quantOutput)
    quantizeBoundary(L, rewriter, func);
  // The signature follows the arguments and results as lowering left them (UINT8 raw pixels, boundaries).
  SmallVector<Type> inputs(entry.getArgumentTypes());
  func.setType(FunctionType::get(func.getContext(), inputs, entry.getTerminator()->getOperandTypes()));
  return success();
}

llvm::Error makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace
} // namespace lowering

llvm::Error lowerToTpu(ModuleOp module, const LoweringOptions &options) {
  using namespace lowering;
  if (!llvm::is_contained({"bm1684x", "bm1688", "cv186ah"}, options.chip))
    return makeError("unknown chip '" + options.chip + "' (expected bm1684x, bm1688 or cv186ah)");
  if (options.qGroupSize < 0)
    return makeError("q_group_size must not be negative, got " + Twine(options.qGroupSize));
  auto state = top::getModuleState(module);
  if (state && *state != top::ModuleState::TOP_F32)
    return makeError("module is in state " + top::stringifyModuleState(*state) +
                     "; lowering expects TOP_F32");
  // Callers other than the pass (tpuc deploy, the studio) may not have loaded the target dialects.
  module.getContext()->loadDialect<top::TopDialect, tpu::TpuDialect, mlir::quant::QuantDialect>();
  std::optional<quant::CalibrationTable> calibration = options.calibrationTable;
  std::optional<quant::QuantizeTable> quantize = options.quantizeTable;
  try {
    if (!calibration && !options.calibrationTableFile.empty())
      calibration = quant::readCalibrationTable(options.calibrationTableFile);
    if (!quantize && !options.quantizeTableFile.empty())
      quantize = quant::readQuantizeTable(options.quantizeTableFile);
  } catch (const quant::TableError &e) {
    return makeError(e.what());
  }
  // Tables written when ops were named after ONNX nodes (or naming an alias) still apply: their rows
  // are translated to the tensor names through the locations (TensorNames.h).
  if (calibration || quantize) {
    llvm::StringMap<std::string> names = top::nameTranslations(module);
    quant::NameTranslation translate = [&](std::string_view name) -> const std::string * {
      auto it = names.find(llvm::StringRef(name.data(), name.size()));
      return it == names.end() ? nullptr : &it->second;
    };
    if (calibration)
      quant::translateNames(*calibration, translate);
    if (quantize)
      quant::translateNames(*quantize, translate);
  }
  // Fused preprocessing: the tensor that now holds an input's preprocessed values takes the input's
  // calibration (the table was made on the unfused module).
  if (calibration)
    module.walk([&](Operation *op) {
      auto of = op->getAttrOfType<StringAttr>("top.preprocess_of");
      if (!of || op->getNumResults() != 1)
        return;
      std::string name = opName(op);
      if (const quant::CalibrationEntry *entry = calibration->find(of.getValue()); entry && !calibration->find(name)) {
        quant::CalibrationEntry copy = *entry;
        copy.name = name;
        calibration->set(copy);
      }
    });
  Lowering L(module, options, calibration ? &*calibration : nullptr, quantize ? &*quantize : nullptr);
  // Diagnostics of the helpers (weight files) become the error line; the first one wins.
  std::string firstDiagnostic;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error && firstDiagnostic.empty())
      firstDiagnostic = diag.str();
    return success();
  });
  RewritePatternSet set(module.getContext());
  populateTopToTpuPatterns(set, L);
  FrozenRewritePatternSet frozen(std::move(set));
  PatternTable patterns = patternTable(frozen);
  // The driver's own changes (input types, output casts, erasing) go through the same rewriter.
  PatternRewriter rewriter(module.getContext());
  Lowering::RewriterScope scope(L, rewriter);
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (failed(lowerFunction(L, patterns, rewriter, func)))
      return makeError(firstDiagnostic.empty() ? L.error : L.error + ": " + firstDiagnostic);
  MLIRContext *context = module.getContext();
  module->setAttr(top::TopDialect::kChipAttr, StringAttr::get(context, options.chip));
  module->setAttr(top::TopDialect::kModeAttr, top::PrecisionAttr::get(context, options.mode));
  top::setModuleState(module, top::ModuleState::TPU_LOWERED);
  if (failed(verify(module)))
    return makeError("lowered module does not verify: " + firstDiagnostic);
  return llvm::Error::success();
}

namespace {
struct TopToTpuPass : impl::TopToTpuBase<TopToTpuPass> {
  using TopToTpuBase::TopToTpuBase;

  void runOnOperation() override {
    LoweringOptions options;
    options.chip = chip;
    auto parsed = parseLoweringMode(mode);
    if (!parsed) {
      getOperation().emitError() << "top-to-tpu: unknown mode '" << mode
                                 << "' (expected F32, F16, BF16, INT8, W8F16, W8BF16, W4F16 or W4BF16)";
      return signalPassFailure();
    }
    options.mode = *parsed;
    options.asymmetric = asymmetric;
    options.calibrationTableFile = calibrationTable;
    options.quantizeTableFile = quantizeTable;
    options.qGroupSize = qGroupSize;
    options.quantInput = quantInput;
    options.quantOutput = quantOutput;
    if (llvm::Error err = lowerToTpu(getOperation(), options)) {
      getOperation().emitError() << "top-to-tpu: " << llvm::toString(std::move(err));
      return signalPassFailure();
    }
  }
};
} // namespace

} // namespace tpuc
