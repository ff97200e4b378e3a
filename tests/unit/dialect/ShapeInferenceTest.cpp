//===- ShapeInferenceTest.cpp - ShapeInterface through the C++ API --------===//
#include "TestIR.h"
#include "tpuc/Dialect/Top/ModuleState.h"
#include "tpuc/Dialect/Top/TopOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace tpuc;

namespace {

TEST(ShapeInference, BuilderCreatedOpsGetShapes) {
  auto context = test::makeContext();
  OpBuilder builder(context.get());
  auto module = ModuleOp::create(builder.getUnknownLoc());
  builder.setInsertionPointToEnd(module.getBody());
  auto f32 = builder.getF32Type();
  auto inType = RankedTensorType::get({1, 8, 10, 10}, f32);
  auto unranked = UnrankedTensorType::get(f32);
  auto func = func::FuncOp::create(builder, builder.getUnknownLoc(), "main",
                                   builder.getFunctionType({inType}, {unranked}));
  builder.setInsertionPointToEnd(func.addEntryBlock());
  Location loc = NameLoc::get(builder.getStringAttr("pool"));
  auto pool = top::MaxPoolOp::create(builder, loc, unranked, func.getArgument(0),
                                     builder.getDenseI64ArrayAttr({3, 3}), builder.getDenseI64ArrayAttr({2, 2}),
                                     builder.getDenseI64ArrayAttr({1, 1, 1, 1}), builder.getBoolAttr(true),
                                     nullptr, nullptr, nullptr);
  auto reshape = top::ReshapeOp::create(builder, loc, RankedTensorType::get({1, 200}, f32), pool.getOutput());
  func::ReturnOp::create(builder, loc, ValueRange{reshape.getOutput()});

  auto iface = cast<top::ShapeInterface>(pool.getOperation());
  FailureOr<bool> changed = iface.inferShapes();
  ASSERT_TRUE(succeeded(changed));
  EXPECT_TRUE(*changed);
  // ceil((10 + 2 - 3) / 2) + 1 = 6 (the last window starts inside the input, so it stays)
  EXPECT_EQ(top::getShape(pool.getOutput()), ArrayRef<int64_t>({1, 8, 6, 6}));
  // A second run changes nothing.
  EXPECT_FALSE(*iface.inferShapes());
  // The reshape is now checked: 1*8*6*6 = 288 elements cannot become [1, 200].
  ScopedDiagnosticHandler silence(context.get(), [](Diagnostic &) { return success(); });
  EXPECT_TRUE(failed(verify(module)));
  module.erase();
}

TEST(ShapeInference, BroadcastRules) {
  EXPECT_EQ(*top::broadcastShapes({4, 1, 3}, {2, 1}), SmallVector<int64_t>({4, 2, 3}));
  EXPECT_EQ(*top::broadcastShapes({}, {5}), SmallVector<int64_t>({5}));
  EXPECT_TRUE(failed(top::broadcastShapes({3}, {4})));
  EXPECT_EQ(top::formatShape({1, 3, 224, 224}), "[1, 3, 224, 224]");
}

TEST(ModuleState, EveryStateRoundTripsThroughTheModuleAttribute) {
  auto context = test::makeContext();
  auto module = ModuleOp::create(UnknownLoc::get(context.get()));
  EXPECT_FALSE(top::getModuleState(module));
  for (auto state : {top::ModuleState::TOP_F32, top::ModuleState::TOP_CALIBRATED, top::ModuleState::TPU_LOWERED,
                     top::ModuleState::TPU_GROUPED, top::ModuleState::TPU_ADDRESSED}) {
    top::setModuleState(module, state);
    EXPECT_EQ(top::getModuleState(module), state);
    EXPECT_EQ(top::symbolizeModuleState(top::stringifyModuleState(state)), state);
  }
  module.erase();
}

} // namespace
