//===- LoweringPatternTest.cpp - The Top->Tpu lowering patterns ------------===//
//
// Every registered Top op the lowering handles has exactly one pattern (a new Top op without one fails
// here, not on the first model that uses it), and a pattern runs the method of the precision the context
// asks for: the mode, or the quantize table's row for the op.
//
//===----------------------------------------------------------------------===//

#include "TopLowering.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace tpuc;
using namespace tpuc::lowering;

namespace {

std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  registry.insert<top::TopDialect, tpu::TpuDialect, mlir::func::FuncDialect, mlir::quant::QuantDialect>();
  auto context = std::make_unique<mlir::MLIRContext>(registry);
  context->loadAllAvailableDialects();
  return context;
}

/// A 3x3 conv of a 1x2x4x4 input with inline weights, its output returned.
constexpr const char *kConv = R"mlir(
module attributes {top.state = #top.state<TOP_F32>} {
  func.func @main(%arg0: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
    %x = top.input %arg0 : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32> loc("in")
    %w = top.weight "w" {value = dense<0.5> : tensor<3x2x3x3xf32>} : tensor<3x2x3x3xf32> loc("w")
    %b = top.weight "b" {value = dense<[0.5, -0.25, 1.0]> : tensor<3xf32>} : tensor<3xf32> loc("b")
    %c = top.conv %x, %w, %b {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32> loc("conv")
    return %c : tensor<1x3x4x4xf32>
  }
}
)mlir";

/// The ops the driver handles itself: inputs are retyped, weights and none kept or erased.
bool handledByDriver(llvm::StringRef name) {
  // Control flow too: the driver lowers top.if / top.loop region by region, and top.yield with them.
  return name == "top.input" || name == "top.weight" || name == "top.none" || name == "top.if" ||
         name == "top.loop" || name == "top.yield";
}

TEST(TopToTpuPatterns, EveryTopOpHasOnePattern) {
  auto context = makeContext();
  auto module = mlir::ModuleOp::create(mlir::UnknownLoc::get(context.get()));
  LoweringOptions options;
  Lowering lowering(module, options, nullptr, nullptr);
  mlir::RewritePatternSet set(context.get());
  populateTopToTpuPatterns(set, lowering);
  mlir::FrozenRewritePatternSet frozen(std::move(set));
  for (const auto &[name, patterns] : frozen.getOpSpecificNativePatterns()) {
    EXPECT_EQ(name.getDialectNamespace(), "top") << name.getStringRef().str();
    EXPECT_EQ(patterns.size(), 1u) << name.getStringRef().str() << " has more than one lowering pattern";
  }
  PatternTable table = patternTable(frozen);
  int lowered = 0;
  for (mlir::RegisteredOperationName name : context->getRegisteredOperations()) {
    if (name.getDialectNamespace() != "top" || handledByDriver(name.getStringRef()))
      continue;
    ++lowered;
    EXPECT_TRUE(table.count(name)) << name.getStringRef().str() << " has no lowering pattern";
  }
  EXPECT_GT(lowered, 80); // the dialect has ~90 ops: the loop did look at them
  for (llvm::StringRef name : {"top.input", "top.weight", "top.none"})
    EXPECT_FALSE(table.count(mlir::OperationName(name, context.get()))) << name.str();
  module->erase();
}

/// Runs the conv's pattern on the parsed conv module with `options`; returns the op it built.
mlir::Operation *lowerConv(mlir::MLIRContext &context, mlir::ModuleOp module, const LoweringOptions &options,
                           const quant::CalibrationTable *calibration, const quant::QuantizeTable *quantize) {
  Lowering lowering(module, options, calibration, quantize);
  mlir::RewritePatternSet set(&context);
  populateTopToTpuPatterns(set, lowering);
  mlir::FrozenRewritePatternSet frozen(std::move(set));
  PatternTable table = patternTable(frozen);
  auto func = *module.getOps<mlir::func::FuncOp>().begin();
  auto conv = *func.getOps<top::ConvOp>().begin();
  mlir::PatternRewriter rewriter(&context);
  lowering.beginFunction(&func.getBody().front());
  rewriter.setInsertionPoint(conv);
  const mlir::RewritePattern *pattern = table.lookup(conv->getName());
  if (!pattern)
    return nullptr;
  EXPECT_TRUE(mlir::succeeded(pattern->matchAndRewrite(conv, rewriter))) << lowering.error;
  return lowering.lookup(conv.getOutput()).getDefiningOp();
}

mlir::Type elementOf(mlir::Value value) {
  return mlir::cast<mlir::ShapedType>(value.getType()).getElementType();
}

quant::CalibrationTable convCalibration() {
  quant::CalibrationTable table;
  table.set({"in", 2.0, -1.9, 2.0});
  table.set({"conv", 8.0, -8.0, 8.0});
  return table;
}

TEST(TopToTpuPatterns, ConvRunsTheInt8Method) {
  auto context = makeContext();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kConv, context.get());
  ASSERT_TRUE(module);
  LoweringOptions options;
  options.mode = top::Precision::INT8;
  quant::CalibrationTable calibration = convCalibration();
  auto conv =
      mlir::dyn_cast_or_null<tpu::Conv2DOp>(lowerConv(*context, *module, options, &calibration, nullptr));
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv.getPrecision(), top::Precision::INT8);
  EXPECT_TRUE(elementOf(conv.getFilter()).isSignlessInteger(8));
  EXPECT_TRUE(elementOf(conv.getBias()).isSignlessInteger(32));
  EXPECT_TRUE(mlir::isa<mlir::quant::UniformQuantizedType>(elementOf(conv.getOutput())));
  EXPECT_TRUE(mlir::isa<mlir::quant::UniformQuantizedType>(elementOf(conv.getInput()))); // a cast before it
  EXPECT_EQ(conv->getAttrOfType<mlir::DenseI64ArrayAttr>("multiplier").size(), 3);
}

TEST(TopToTpuPatterns, ConvRunsTheF16Method) {
  auto context = makeContext();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kConv, context.get());
  ASSERT_TRUE(module);
  LoweringOptions options;
  options.mode = top::Precision::F16;
  auto conv = mlir::dyn_cast_or_null<tpu::Conv2DOp>(lowerConv(*context, *module, options, nullptr, nullptr));
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv.getPrecision(), top::Precision::F16);
  EXPECT_TRUE(elementOf(conv.getFilter()).isF16());
  EXPECT_TRUE(elementOf(conv.getBias()).isF16());
  EXPECT_TRUE(elementOf(conv.getOutput()).isF16());
  EXPECT_FALSE(conv->hasAttr("multiplier"));
}

TEST(TopToTpuPatterns, QuantizeTableRowChoosesTheMethod) {
  // INT8 mode, but the table keeps the conv in BF16: the BF16 method runs (no calibration needed).
  auto context = makeContext();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kConv, context.get());
  ASSERT_TRUE(module);
  LoweringOptions options;
  options.mode = top::Precision::INT8;
  quant::QuantizeTable quantize;
  quantize.set("conv", quant::QuantMode::BF16);
  auto conv =
      mlir::dyn_cast_or_null<tpu::Conv2DOp>(lowerConv(*context, *module, options, nullptr, &quantize));
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv.getPrecision(), top::Precision::BF16);
  EXPECT_TRUE(elementOf(conv.getFilter()).isBF16());
}

TEST(TopToTpuPatterns, FirstFailureIsTheError) {
  // INT8 without a calibration table: the conv's pattern fails, the run returns its first error line.
  auto context = makeContext();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kConv, context.get());
  ASSERT_TRUE(module);
  LoweringOptions options;
  options.mode = top::Precision::INT8;
  llvm::Error err = lowerToTpu(*module, options);
  ASSERT_TRUE(bool(err));
  EXPECT_EQ(llvm::toString(std::move(err)), "INT8 needs a calibration table (tensor 'in')");
}

} // namespace
