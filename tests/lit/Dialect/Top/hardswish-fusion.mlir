// RUN: tpuc-opt %s --canonicalize | FileCheck %s

// The spelled-out HardSwish of paddle2onnx and of exports before opset 14 becomes top.hard_swish: x * relu6(x + 3)
// divided by 6 or scaled by 1/6 (either operand order), and x * hard_sigmoid(x) with alpha 1/6, beta 1/2.
// CHECK-LABEL: func.func @hardswish_forms
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x4x8x8xf32>
// CHECK-NEXT: %[[A:.*]] = top.hard_swish %[[X]]
// CHECK-NEXT: %[[B:.*]] = top.hard_swish %[[X]]
// CHECK-NEXT: %[[C:.*]] = top.hard_swish %[[X]]
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]]
func.func @hardswish_forms(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %g = top.add_const %x {const_val = 3.0 : f64, do_relu = true, relu_limit = 6.0 : f64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %m = top.mul %x, %g : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %a = top.div_const %m {const_val = 6.0 : f64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %g2 = top.add_const %x {const_val = 3.0 : f64, do_relu = true, relu_limit = 6.0 : f64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %m2 = top.mul %g2, %x : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %b = top.mul_const %m2 {const_val = 0.16666666666666666 : f64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %h = top.hard_sigmoid %x {alpha = 0.16666666666666666 : f64, beta = 0.5 : f64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %c = top.mul %x, %h : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %a, %b, %c : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// Left alone: a relu limit other than 6, a divisor other than 6, and a gate read elsewhere too.
// CHECK-LABEL: func.func @not_hardswish
// CHECK-NOT: top.hard_swish
// CHECK: return
func.func @not_hardswish(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %g = top.add_const %x {const_val = 3.0 : f64, do_relu = true, relu_limit = 5.0 : f64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %m = top.mul %x, %g : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %a = top.div_const %m {const_val = 6.0 : f64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %g2 = top.add_const %x {const_val = 3.0 : f64, do_relu = true, relu_limit = 6.0 : f64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %m2 = top.mul %x, %g2 : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %b = top.div_const %m2 {const_val = 5.0 : f64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  return %a, %b : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}
