//===- FlopsTest.cpp - FlopsInterface on hand-counted ops -----------------===//
#include "TestIR.h"
#include "tpuc/Dialect/Top/TopOps.h"

#include <gtest/gtest.h>

using namespace tpuc;

namespace {

int64_t flopsOf(llvm::StringRef body) {
  auto context = test::makeContext();
  auto module = test::parse(*context, body);
  EXPECT_TRUE(module);
  int64_t total = 0;
  module->walk([&](top::FlopsInterface op) { total += op.getFLOPs(); });
  return total;
}

TEST(Flops, ConvCountsMultiplyAddsTwicePlusBias) {
  // resnet18's first conv: 64 outputs of 112x112, each 3*7*7 multiply-adds plus a bias add.
  int64_t flops = flopsOf(R"(
    func.func @f(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %b: tensor<64xf32>) -> tensor<1x64x112x112xf32> {
      %0 = top.conv %x, %w, %b {kernel_shape = array<i64: 7, 7>, strides = array<i64: 2, 2>,
          pads = array<i64: 3, 3, 3, 3>, dilations = array<i64: 1, 1>}
          : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
      return %0 : tensor<1x64x112x112xf32>
    })");
  EXPECT_EQ(flops, 64LL * 112 * 112 * (2 * 3 * 7 * 7 + 1));
}

TEST(Flops, GroupedConvCountsOnlyItsGroup) {
  int64_t flops = flopsOf(R"(
    func.func @f(%x: tensor<1x32x8x8xf32>, %w: tensor<32x1x3x3xf32>, %n: none) -> tensor<1x32x8x8xf32> {
      %0 = top.conv %x, %w, %n {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>,
          pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 32 : i64, do_relu = true}
          : (tensor<1x32x8x8xf32>, tensor<32x1x3x3xf32>, none) -> tensor<1x32x8x8xf32>
      return %0 : tensor<1x32x8x8xf32>
    })");
  EXPECT_EQ(flops, 32LL * 64 * (2 * 9) + 32 * 64);
}

TEST(Flops, BatchedMatMulAndAttention) {
  int64_t flops = flopsOf(R"(
    func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>, %n: none, %q: tensor<1x16x8x64xf32>,
                 %k: tensor<1x32x2x64xf32>) -> (tensor<2x3x5xf32>, tensor<1x16x8x64xf32>) {
      %0 = top.matmul %a, %b, %n : (tensor<2x3x4xf32>, tensor<4x5xf32>, none) -> tensor<2x3x5xf32>
      %1 = top.attention %q, %k, %k, %n {scale = 0.125 : f64}
          : (tensor<1x16x8x64xf32>, tensor<1x32x2x64xf32>, tensor<1x32x2x64xf32>, none) -> tensor<1x16x8x64xf32>
      return %0, %1 : tensor<2x3x5xf32>, tensor<1x16x8x64xf32>
    })");
  int64_t matmul = 2 * 3 * 5 * (2 * 4);
  int64_t attention = 1LL * 8 * 16 * 32 * (4 * 64 + 5);
  EXPECT_EQ(flops, matmul + attention);
}

TEST(Flops, DataMovementIsFree) {
  int64_t flops = flopsOf(R"(
    func.func @f(%a: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
      %0 = top.permute %a {order = array<i64: 2, 1, 0>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
      %1 = top.reshape %0 : tensor<4x3x2xf32> -> tensor<24xf32>
      %2 = top.reshape %1 : tensor<24xf32> -> tensor<4x3x2xf32>
      return %2 : tensor<4x3x2xf32>
    })");
  EXPECT_EQ(flops, 0);
}

} // namespace
