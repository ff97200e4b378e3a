//===- WeightStoreTest.cpp - Weights created by passes reach the .npz -----===//
#include "TestIR.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/Support/Npz.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace tpuc;

namespace {

std::string tempPath(llvm::StringRef name) {
  llvm::SmallString<128> dir;
  llvm::sys::fs::createUniqueDirectory("weightstore", dir);
  return (dir + "/" + name).str();
}

TEST(WeightStore, CreatedWeightsAreSavedAndReadBack) {
  std::string in = tempPath("in.npz"), out = tempPath("out.npz");
  NpzFile original;
  original.set("w", Tensor::fromValues<float>({2, 2}, std::vector<float>{1, 2, 3, 4}));
  original.write(in);
  top::clearWeightCache();

  auto context = test::makeContext();
  auto module = test::parse(*context, "module attributes {top.weight_file = \"" + in + R"("} {
      func.func @f() -> tensor<2x2xf32> {
        %w = top.weight "w" : tensor<2x2xf32>
        return %w : tensor<2x2xf32>
      }
    })");
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();
  auto weight = *func.getOps<top::WeightOp>().begin();
  auto data = top::readWeightF32(weight);
  ASSERT_TRUE(succeeded(data));
  EXPECT_EQ(*data, std::vector<float>({1, 2, 3, 4}));

  // A pass creates a weight whose name is taken: it gets a unique one.
  OpBuilder builder(weight);
  auto created = top::createWeightF32(builder, weight.getLoc(), "w", {3}, {5, 6, 7});
  ASSERT_TRUE(succeeded(created));
  EXPECT_EQ(created->getName(), "w_1");
  EXPECT_FALSE(created->getValue()) << "file-backed modules keep new weights out of the IR";
  auto back = top::readWeightF32(*created);
  ASSERT_TRUE(succeeded(back));
  EXPECT_EQ(*back, std::vector<float>({5, 6, 7}));

  // Every weight still in the IR is saved, in IR order (the new one was inserted first); an array that
  // no op references is dropped.
  ASSERT_TRUE(succeeded(top::saveWeights(*module, out)));
  NpzFile saved = NpzFile::read(out);
  EXPECT_EQ(saved.names(), std::vector<std::string>({"w_1", "w"}));
  created->erase();
  ASSERT_TRUE(succeeded(top::saveWeights(*module, out)));
  EXPECT_EQ(NpzFile::read(out).names(), std::vector<std::string>({"w"}));
  EXPECT_EQ(saved.get("w_1").toDoubles(), std::vector<double>({5, 6, 7}));
  EXPECT_EQ(module->getOperation()->getAttrOfType<StringAttr>("top.weight_file").str(), out);
}

TEST(WeightStore, SmallWeightsAreInlinedWithoutAFile) {
  auto context = test::makeContext();
  auto module = test::parse(*context, R"(
      func.func @f() {
        return
      })");
  auto func = *module->getOps<func::FuncOp>().begin();
  OpBuilder builder = OpBuilder::atBlockBegin(&func.getBody().front());
  auto small = top::createWeightF32(builder, builder.getUnknownLoc(), "c", {2}, {1.5f, -2});
  ASSERT_TRUE(succeeded(small));
  ASSERT_TRUE(small->getValue());
  EXPECT_EQ(*top::readWeightF32(*small), std::vector<float>({1.5f, -2}));

  std::string message;
  ScopedDiagnosticHandler capture(context.get(), [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  std::vector<float> big(1000, 1.0f);
  EXPECT_TRUE(failed(top::createWeightF32(builder, builder.getUnknownLoc(), "big", {1000}, big)));
  EXPECT_NE(message.find("cannot create weight 'big' of 1000 elements"), std::string::npos) << message;
}

TEST(WeightStore, ShapeMismatchIsReported) {
  std::string in = tempPath("bad.npz");
  NpzFile file;
  file.set("w", Tensor::fromValues<float>({3}, std::vector<float>{1, 2, 3}));
  file.write(in);
  top::clearWeightCache();
  auto context = test::makeContext();
  auto module = test::parse(*context, "module attributes {top.weight_file = \"" + in + R"("} {
      func.func @f() -> tensor<2x2xf32> {
        %w = top.weight "w" : tensor<2x2xf32>
        return %w : tensor<2x2xf32>
      }
    })");
  std::string message;
  ScopedDiagnosticHandler capture(context.get(), [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  auto weight = *(*module->getOps<func::FuncOp>().begin()).getOps<top::WeightOp>().begin();
  EXPECT_TRUE(failed(top::readWeightF32(weight)));
  EXPECT_NE(message.find("weight 'w' holds 3 elements (3,) but the IR declares [2, 2]"), std::string::npos)
      << message;
}

} // namespace

TEST(WeightStore, ReleasingADiscardedCopyKeepsTheSourcesArrays) {
  std::string in = tempPath("in.npz");
  NpzFile original;
  original.set("w", Tensor::fromValues<float>({2}, std::vector<float>{1, 2}));
  original.write(in);
  top::clearWeightCache();
  auto context = test::makeContext();
  auto module = test::parse(*context, "module attributes {top.weight_file = \"" + in + R"("} {
      func.func @f() -> tensor<2xf32> {
        %w = top.weight "w" : tensor<2xf32>
        return %w : tensor<2xf32>
      }
    })");
  ASSERT_TRUE(module);
  auto weight = *(*module->getOps<func::FuncOp>().begin()).getOps<top::WeightOp>().begin();
  // The source has an array a pass created (as fused preprocessing does); a copy adds one of its own.
  OpBuilder builder(weight);
  auto shared =
      top::createWeightF32(builder, weight.getLoc(), "shared", {300}, std::vector<float>(300, 1.0f));
  ASSERT_TRUE(succeeded(shared));
  OwningOpRef<ModuleOp> copy(module->clone());
  auto copyWeight = *(*copy->getOps<func::FuncOp>().begin()).getOps<top::WeightOp>().begin();
  OpBuilder copyBuilder(copyWeight);
  auto own =
      top::createWeightF32(copyBuilder, copyWeight.getLoc(), "own", {300}, std::vector<float>(300, 2.0f));
  ASSERT_TRUE(succeeded(own));
  EXPECT_EQ(top::releasePendingWeights(*copy, *module),
            1u); // "own" only: "shared" the source names, "w" is on disk
  EXPECT_TRUE(succeeded(top::readWeightF32(*shared)));
  EXPECT_TRUE(succeeded(top::readWeightF32(weight)));
  std::string message;
  ScopedDiagnosticHandler capture(context.get(), [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  EXPECT_TRUE(failed(top::readWeightF32(*own)));
  EXPECT_NE(message.find("'own'"), std::string::npos) << message;
}
