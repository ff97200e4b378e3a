// RUN: tpuc-opt %s --canonicalize --split-input-file | FileCheck %s

// conv -> batchnorm -> relu becomes one conv with the BatchNorm folded into its filter and bias and the
// relu fused: s = gamma / sqrt(var + eps) = [2, 0.5], w' = w * s, b' = (b - mean) * s + beta.
// CHECK-LABEL: func.func @conv_bn_relu
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x3x3xf32>)
// CHECK-DAG: %[[W:.*]] = top.weight "w_bn" {value = dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}5.000000e-01]]]]> : tensor<2x1x1x1xf32>}
// CHECK-DAG: %[[B:.*]] = top.weight "w_bn_bias" {value = dense<[1.000000e+00, 2.500000e+00]> : tensor<2xf32>}
// CHECK: %[[Y:.*]] = top.conv %[[X]], %[[W]], %[[B]] {dilations = array<i64: 1, 1>, do_relu = true, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
// CHECK-NOT: top.batchnorm
// CHECK-NOT: top.relu
// CHECK: return %[[Y]]
func.func @conv_bn_relu(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = top.weight "w" {value = dense<[[[[1.0]]], [[[1.0]]]]> : tensor<2x1x1x1xf32>} : tensor<2x1x1x1xf32>
  %none = top.none : none
  %c = top.conv %x, %w, %none {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>, none) -> tensor<1x2x3x3xf32>
  %mean = top.weight "mean" {value = dense<[0.5, -1.0]> : tensor<2xf32>} : tensor<2xf32>
  %var = top.weight "var" {value = dense<[1.0, 16.0]> : tensor<2xf32>} : tensor<2xf32>
  %gamma = top.weight "gamma" {value = dense<[2.0, 2.0]> : tensor<2xf32>} : tensor<2xf32>
  %beta = top.weight "beta" {value = dense<[2.0, 2.0]> : tensor<2xf32>} : tensor<2xf32>
  %bn = top.batchnorm %c, %mean, %var, %gamma, %beta {epsilon = 0.0 : f64} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %r = top.relu %bn : tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  return %r : tensor<1x2x3x3xf32>
}

// -----

// A relu whose producer has another user stays; one whose producer is an add fuses.
// CHECK-LABEL: func.func @relu_fusion
// CHECK: %[[A:.*]] = top.add %{{.*}}, %{{.*}} {do_relu = true, relu_limit = 6.000000e+00 : f64}
// CHECK: %[[C:.*]] = top.conv
// CHECK-NOT: do_relu
// CHECK: %[[R:.*]] = top.relu %[[C]]
// CHECK: return %[[A]], %[[C]], %[[R]]
func.func @relu_fusion(%a: tensor<1x2x3x3xf32>, %b: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %0 = top.add %a, %b : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %1 = top.relu %0 {relu_limit = 6.0 : f64} : tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  %w = top.weight "w" : tensor<2x2x1x1xf32>
  %none = top.none : none
  %c = top.conv %a, %w, %none {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x3x3xf32>
  %r = top.relu %c : tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  return %1, %c, %r : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// A sigmoid cannot take a fused relu.
// CHECK-LABEL: func.func @relu_not_fusable
// CHECK: top.sigmoid
// CHECK: top.relu
func.func @relu_not_fusable(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = top.sigmoid %a : tensor<4xf32> -> tensor<4xf32>
  %1 = top.relu %0 : tensor<4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// reshape(reshape(x)) reads x once; squeeze then reshape too; a reshape to the same type disappears.
// CHECK-LABEL: func.func @reshapes
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x1x1xf32>)
// CHECK-NEXT: %[[R:.*]] = top.reshape %[[X]] : tensor<1x4x1x1xf32> -> tensor<2x2xf32>
// CHECK-NEXT: %[[S:.*]] = top.reshape %[[X]] : tensor<1x4x1x1xf32> -> tensor<4xf32>
// CHECK-NEXT: return %[[R]], %[[S]], %[[X]]
func.func @reshapes(%x: tensor<1x4x1x1xf32>) -> (tensor<2x2xf32>, tensor<4xf32>, tensor<1x4x1x1xf32>) {
  %0 = top.reshape %x : tensor<1x4x1x1xf32> -> tensor<1x4xf32>
  %1 = top.reshape %0 : tensor<1x4xf32> -> tensor<2x2xf32>
  %2 = top.squeeze %x {axes = array<i64: 2, 3>} : tensor<1x4x1x1xf32> -> tensor<1x4xf32>
  %3 = top.reshape %2 : tensor<1x4xf32> -> tensor<4xf32>
  %4 = top.reshape %x : tensor<1x4x1x1xf32> -> tensor<1x4x1x1xf32>
  return %1, %3, %4 : tensor<2x2xf32>, tensor<4xf32>, tensor<1x4x1x1xf32>
}

// -----

// The identity permute folds away; two permutes compose into one, or into nothing.
// CHECK-LABEL: func.func @permutes
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[P:.*]] = top.permute %[[X]] {order = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[X]], %[[P]], %[[X]]
func.func @permutes(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>) {
  %0 = top.permute %x {order = array<i64: 0, 1, 2>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %1 = top.permute %x {order = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %2 = top.permute %1 {order = array<i64: 2, 1, 0>} : tensor<3x2x4xf32> -> tensor<4x2x3xf32>
  %3 = top.permute %1 {order = array<i64: 1, 0, 2>} : tensor<3x2x4xf32> -> tensor<2x3x4xf32>
  return %0, %2, %3 : tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>
}

// -----

// A shape computation on constants (as ONNX exports write Shape -> Gather -> Unsqueeze -> Concat ->
// Cast) folds into one inline constant; so does a small arange, and adding 0 disappears.
// CHECK-LABEL: func.func @shape_subgraph
// CHECK-NEXT: %[[C:.*]] = top.weight "folded" {value = dense<[3, 8, -1]> : tensor<3xi64>} : tensor<3xi64>
// CHECK-NEXT: %[[R:.*]] = top.weight "folded" {value = dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<5xf32>}
// CHECK-NEXT: return %[[C]], %[[R]]
func.func @shape_subgraph() -> (tensor<3xi64>, tensor<5xf32>) {
  %shape = top.weight "shape" {value = dense<[2, 3, 8, 8]> : tensor<4xi64>} : tensor<4xi64>
  %idx = top.weight "idx" {value = dense<[1, 2]> : tensor<2xi64>} : tensor<2xi64>
  %g = top.gather %shape, %idx {axis = 0 : i64} : (tensor<4xi64>, tensor<2xi64>) -> tensor<2xi64>
  %m1 = top.weight "m1" {value = dense<-1.0> : tensor<f32>} : tensor<f32>
  %u = top.unsqueeze %m1 {axes = array<i64: 0>} : tensor<f32> -> tensor<1xf32>
  %ui = top.cast %u : tensor<1xf32> -> tensor<1xi64>
  %c = top.concat %g, %ui {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
  %s = top.slice %c {offset = array<i64: 0>, steps = array<i64: 1>, ends = array<i64: 3>} : tensor<3xi64> -> tensor<3xi64>
  %r = top.arange {start = 0.0 : f64, limit = 5.0 : f64, delta = 1.0 : f64} : () -> tensor<5xf32>
  %z = top.add_const %r {const_val = 0.0 : f64} : tensor<5xf32> -> tensor<5xf32>
  return %s, %z : tensor<3xi64>, tensor<5xf32>
}

// -----

// Constants above the inline limit stay ops: an arange of 300 values is not folded.
// CHECK-LABEL: func.func @big_constant
// CHECK: top.arange
func.func @big_constant() -> tensor<300xf32> {
  %big = top.arange {start = 0.0 : f64, limit = 300.0 : f64, delta = 1.0 : f64} : () -> tensor<300xf32>
  return %big : tensor<300xf32>
}

// -----

// File-backed weights fold to references by name: equal names merge, different names never do.
// CHECK-LABEL: func.func @weights_by_name
// CHECK-DAG: %[[A:.*]] = top.weight "a" : tensor<8xf32>
// CHECK-DAG: %[[B:.*]] = top.weight "b" : tensor<8xf32>
// CHECK: return %[[A]], %[[B]], %[[A]]
func.func @weights_by_name() -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %a = top.weight "a" : tensor<8xf32>
  %b = top.weight "b" : tensor<8xf32>
  %c = top.weight "a" : tensor<8xf32>
  return %a, %b, %c : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
