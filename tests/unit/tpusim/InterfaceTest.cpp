//===- InterfaceTest.cpp - Every Tpu op implements the Tpu interfaces -----===//
// Iterates the registered Tpu ops: each has tpu::BackendInterface (from the dialect) and, once the
// simulator's models are registered, tpu::KernelInterface; spot checks of roles and float twins.
//===----------------------------------------------------------------------===//
#include "tpuc/Simulator/ReferenceKernels.h"
#include "tpuc/Simulator/TpuSim.h"

#include "tpuc/Dialect/Top/TopDialect.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Tpu/TpuOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace tpuc;

namespace {

class TpuInterfaceTest : public ::testing::Test {
protected:
  TpuInterfaceTest() {
    mlir::DialectRegistry registry;
    sim::registerTpuKernels(registry);
    sim::registerTopReferenceKernels(registry); // the twins' kernels
    context.appendDialectRegistry(registry);
    context
        .loadDialect<mlir::func::FuncDialect, mlir::quant::QuantDialect, top::TopDialect, tpu::TpuDialect>();
  }
  std::vector<mlir::RegisteredOperationName> tpuOps() {
    std::vector<mlir::RegisteredOperationName> ops;
    for (mlir::RegisteredOperationName name : context.getRegisteredOperations())
      if (name.getDialectNamespace() == tpu::TpuDialect::getDialectNamespace())
        ops.push_back(name);
    return ops;
  }
  /// tpu.if, tpu.loop and their terminator: control flow, not computation.
  static bool isControl(mlir::RegisteredOperationName name) {
    return llvm::is_contained({"tpu.if", "tpu.loop", "tpu.yield"}, name.getStringRef());
  }
  mlir::MLIRContext context;
};

TEST_F(TpuInterfaceTest, EveryTpuOpHasTheBackendInterface) {
  auto ops = tpuOps();
  ASSERT_GE(ops.size(), 50u);
  for (mlir::RegisteredOperationName name : ops)
    if (name.getStringRef() != "tpu.yield") // a region's terminator: its op's markers plan what it yields
      EXPECT_TRUE(name.hasInterface<tpu::BackendInterface>()) << name.getStringRef().str();
}

TEST_F(TpuInterfaceTest, EveryTpuOpHasASimulatorKernel) {
  auto ops = tpuOps();
  ASSERT_GE(ops.size(), 50u);
  for (mlir::RegisteredOperationName name : ops)
    if (!isControl(name)) // the simulator runs their regions itself
      EXPECT_TRUE(name.hasInterface<tpu::KernelInterface>()) << name.getStringRef().str();
}

TEST(TpuInterfaceRegistration, KernelsAreAbsentUntilRegistered) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::quant::QuantDialect, top::TopDialect, tpu::TpuDialect>();
  auto conv = mlir::RegisteredOperationName::lookup(tpu::Conv2DOp::getOperationName(), &context);
  ASSERT_TRUE(conv);
  EXPECT_TRUE(conv->hasInterface<tpu::BackendInterface>());
  EXPECT_FALSE(conv->hasInterface<tpu::KernelInterface>());
}

const char *kOps = R"mlir(
func.func @main(%x: tensor<1x4x8x8xf32>, %m: tensor<1x32xf32>) -> () {
  %w = "top.weight"() {name = "w"} : () -> tensor<4x4x3x3xf32>
  %n = "top.none"() : () -> none
  %c = tpu.conv2d %x, %w, %n {precision = #top.precision<F32>, kernel_shape = array<i64: 3, 3>,
      strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
      : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  %g = tpu.pool2d %c {precision = #top.precision<F32>, pool_mode = #tpu.pool_mode<avg>,
      kernel_shape = array<i64: 8, 8>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>}
      : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %a = tpu.active %c, %n {precision = #top.precision<F32>, active_mode = #tpu.active_mode<gelu_tanh>}
      : (tensor<1x4x8x8xf32>, none) -> tensor<1x4x8x8xf32>
  %s = tpu.softmax %m {precision = #top.precision<F32>, axis = 1 : i64} : (tensor<1x32xf32>) -> tensor<1x32xf32>
  %h = tpu.cast %m {precision = #top.precision<F16>} : (tensor<1x32xf32>) -> tensor<1x32xf16>
  return
}
)mlir";

TEST_F(TpuInterfaceTest, RolesAndFloatTwins) {
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kOps, &context);
  ASSERT_TRUE(module);
  auto scratch = mlir::ModuleOp::create(mlir::UnknownLoc::get(&context));
  std::map<std::string, std::string> twins;
  std::map<std::string, tpu::BackendRole> roles;
  module->walk([&](mlir::Operation *op) {
    auto backend = mlir::dyn_cast<tpu::BackendInterface>(op);
    if (!backend)
      return;
    std::string name = op->getName().getStringRef().str();
    roles[name] = backend.getBackendRole();
    auto kernel = mlir::cast<tpu::KernelInterface>(op);
    if (!kernel.needsFloatTwin()) {
      twins[name] = "";
      return;
    }
    auto twin = kernel.buildFloatTwin(*scratch.getBody(), /*forInt8=*/false);
    ASSERT_TRUE(bool(twin)) << name << ": " << llvm::toString(twin.takeError());
    twins[name] = (*twin)->getName().getStringRef().str();
  });
  EXPECT_EQ(roles["tpu.conv2d"], tpu::BackendRole::Conv);
  EXPECT_EQ(roles["tpu.pool2d"], tpu::BackendRole::Pool);
  EXPECT_EQ(roles["tpu.active"], tpu::BackendRole::Unary);
  EXPECT_EQ(roles["tpu.softmax"], tpu::BackendRole::Softmax);
  EXPECT_EQ(roles["tpu.cast"], tpu::BackendRole::Unary);
  EXPECT_EQ(twins["tpu.conv2d"], top::ConvOp::getOperationName());
  // A global average pool runs the adaptive-pool kernel (the Top reference's summation order).
  EXPECT_EQ(twins["tpu.pool2d"], top::AdaptiveAvgPoolOp::getOperationName());
  EXPECT_EQ(twins["tpu.active"], top::GELUOp::getOperationName());
  EXPECT_EQ(twins["tpu.softmax"], top::SoftmaxOp::getOperationName());
  EXPECT_EQ(twins["tpu.cast"], ""); // computed without a twin
  scratch->erase();
}

TEST_F(TpuInterfaceTest, BackendFactsComeFromTypedAttributes) {
  auto module = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
func.func @main(%x: tensor<1x4x8x8xf32>, %m: tensor<1x32xf32>) -> () {
  %w = "top.weight"() {name = "w"} : () -> tensor<4x2x3x3xf32>
  %n = "top.none"() : () -> none
  %c = tpu.conv2d %x, %w, %n {precision = #top.precision<F32>, kernel_shape = array<i64: 3, 3>,
      strides = array<i64: 2, 1>, pads = array<i64: 1, 0, 2, 0>, dilations = array<i64: 1, 2>, group = 2,
      do_relu = true} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>, none) -> tensor<1x4x5x4xf32>
  %s = tpu.softmax %m {precision = #top.precision<F32>, axis = -1 : i64} : (tensor<1x32xf32>) -> tensor<1x32xf32>
  return
}
)mlir",
                                                        &context);
  ASSERT_TRUE(module);
  auto func = *module->getOps<mlir::func::FuncOp>().begin();
  auto conv = *func.getOps<tpu::Conv2DOp>().begin();
  auto backend = mlir::cast<tpu::BackendInterface>(conv.getOperation());
  std::optional<tpu::Window2D> w = backend.getWindow();
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(std::vector<int64_t>(
                {w->kh, w->kw, w->sh, w->sw, w->padTop, w->padLeft, w->padBottom, w->padRight, w->dh, w->dw}),
            std::vector<int64_t>({3, 3, 2, 1, 1, 0, 2, 0, 1, 2}));
  EXPECT_EQ(backend.getGroups(), 2);
  EXPECT_TRUE(backend.fusesRelu());
  EXPECT_FALSE(backend.getBackendAxis().has_value());
  EXPECT_EQ(backend.getSliceableAxes(), (llvm::SmallVector<int64_t, 2>{0, 2}));

  auto softmax = mlir::cast<tpu::BackendInterface>((*func.getOps<tpu::SoftmaxOp>().begin()).getOperation());
  EXPECT_FALSE(softmax.getWindow().has_value());
  EXPECT_EQ(softmax.getGroups(), 1);
  EXPECT_EQ(softmax.getBackendAxis(), std::optional<int64_t>(-1));
  EXPECT_FALSE(softmax.fusesRelu());
  EXPECT_TRUE(softmax.getSliceableAxes().empty());
}

TEST(TpuBackendRole, LocalFormsAreTheLayerGroupKinds) {
  using tpu::BackendRole;
  for (BackendRole role : {BackendRole::Conv, BackendRole::Pool, BackendRole::Eltwise, BackendRole::Unary})
    EXPECT_TRUE(tpu::hasLocalForm(role));
  // MatMul and the normalizations have a row form instead, which the backend graph grants from shapes.
  for (BackendRole role : {BackendRole::Other, BackendRole::Reshape, BackendRole::Concat, BackendRole::MatMul,
                           BackendRole::GlobalPool, BackendRole::Attention, BackendRole::Gather,
                           BackendRole::LayerNorm, BackendRole::RMSNorm, BackendRole::Softmax})
    EXPECT_FALSE(tpu::hasLocalForm(role));
}

} // namespace
