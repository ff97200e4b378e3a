// RUN: tpuc-opt %s --canonicalize --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s

// x * sigmoid(x), as PyTorch exports nn.SiLU, becomes top.silu in either operand order, named after the
// product; a sigmoid with another reader stays, and a product with a relu, of another tensor or of a
// broadcast shape is left alone.
// CHECK-LABEL: func.func @silu_fusion
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x4x8x8xf32>{{.*}}, %[[Z:[a-z0-9]+]]: tensor<1x4x8x8xf32>
// CHECK: %[[A:.*]] = top.silu %[[X]] : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32> loc(fused["sa", "a"])
// CHECK: %[[S:.*]] = top.sigmoid %[[Z]]
// CHECK: %[[B:.*]] = top.silu %[[Z]] : {{.*}} loc(fused["sb", "b"])
// CHECK: %[[C:.*]] = top.mul %[[S]], %[[X]]
// CHECK: %[[D:.*]] = top.mul %[[Z]], %[[S]] {do_relu = true
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[S]]
func.func @silu_fusion(%x: tensor<1x4x8x8xf32>, %z: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %sa = top.sigmoid %x : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32> loc("sa")
  %a = top.mul %x, %sa : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("a")
  %sb = top.sigmoid %z : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32> loc("sb")
  %b = top.mul %sb, %z : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("b")
  %c = top.mul %sb, %x : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("c")
  %d = top.mul %z, %sb {do_relu = true} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("d")
  return %a, %b, %c, %d, %sb : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}
