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
  for (Operation &op : llvm::make_early_inc_range(entry)) {
    if (isa<top::InputOp, top::WeightOp, top::NoneOp>(op))
      continue;
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      // Outputs go back to f32 (integer outputs such as indices stay as they are).
      rewriter.setInsertionPoint(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value topValue = operand.get();
        Type expected = cast<ShapedType>(topValue.getType()).getElementType();
        auto lowered = L.operandAs(topValue, expected);
        if (failed(lowered))
          return failure();
        rewriter.modifyOpInPlace(ret, [&] { operand.set(*lowered); });
      }
      continue;
    }
    if (!isa<top::TopDialect>(op.getDialect()))
      return L.fail("op '" + op.getName().getStringRef() + "' '" + opName(&op) + "' is not a Top op");
    if (failed(lowerOp(L, patterns, rewriter, &op)))
      return failure();
    topOps.push_back(&op);
  }
  // Erased last, users first: until here later patterns read the Top values (names, weights, types).
  for (Operation *op : llvm::reverse(topOps)) {
    op->dropAllUses();
    rewriter.eraseOp(op);
  }
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
