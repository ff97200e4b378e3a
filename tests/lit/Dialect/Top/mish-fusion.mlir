// RUN: tpuc-opt %s --canonicalize | FileCheck %s

// Mish as exports before opset 18 spell it, x * tanh(softplus(x)) with the importer's softplus
// (exp, + 1, log), becomes top.mish in either operand order; a softplus read elsewhere stays for that reader.
// CHECK-LABEL: func.func @mish_forms
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x4x8x8xf32>
// CHECK-DAG: %[[A:.*]] = top.mish %[[X]]
// CHECK-DAG: %[[B:.*]] = top.mish %[[X]]
// CHECK-DAG: %[[SP:.*]] = top.log
// CHECK: return %[[A]], %[[B]], %[[SP]]
func.func @mish_forms(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %e = top.exp %x : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %p = top.add_const %e {const_val = 1.0 : f64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %l = top.log %p : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %t = top.tanh %l : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %a = top.mul %x, %t : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %e2 = top.exp %x : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %p2 = top.add_const %e2 {const_val = 1.0 : f64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %l2 = top.log %p2 : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %t2 = top.tanh %l2 : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %b = top.mul %t2, %x : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %a, %b, %l2 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// Left alone: + 2 instead of + 1, and the tanh of another tensor's softplus.
// CHECK-LABEL: func.func @not_mish
// CHECK-NOT: top.mish
// CHECK: return
func.func @not_mish(%x: tensor<1x4x8x8xf32>, %y: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %e = top.exp %x : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %p = top.add_const %e {const_val = 2.0 : f64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %l = top.log %p : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %t = top.tanh %l : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %a = top.mul %x, %t : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %e2 = top.exp %y : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %p2 = top.add_const %e2 {const_val = 1.0 : f64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %l2 = top.log %p2 : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %t2 = top.tanh %l2 : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %b = top.mul %x, %t2 : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %a, %b : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}
