// The Top cleanup pipeline on a conv + batchnorm + relu whose weights live in an .npz file: one conv
// remains, its folded weights are written to the new file and agree with numpy's computation.
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %python %S/Inputs/conv_bn_weights.py make weights.npz
// RUN: tpuc-opt %s --pass-pipeline='builtin.module(top-pipeline{weight-file=out.npz})' | FileCheck %s
// RUN: %python %S/Inputs/conv_bn_weights.py check weights.npz out.npz | FileCheck %s --check-prefix=NUMPY
// NUMPY: folded weights match numpy

// CHECK: module attributes {top.state = #top.state<TOP_F32>, top.weight_file = "out.npz"}
// CHECK-LABEL: func.func @main
// CHECK-SAME: -> tensor<1x8x16x16xf32>
// CHECK-DAG: %[[W:.*]] = top.weight "conv_w_bn" : tensor<8x3x3x3xf32>
// CHECK-DAG: %[[B:.*]] = top.weight "conv_w_bn_bias" : tensor<8xf32>
// CHECK: %[[C:.*]] = top.conv %{{.*}}, %[[W]], %[[B]] {{{.*}}do_relu = true
// CHECK-NEXT: return %[[C]]
module attributes {top.state = #top.state<TOP_F32>, top.weight_file = "weights.npz"} {
  func.func @main(%arg0: tensor<1x3x16x16xf32>) -> tensor<*xf32> {
    %x = top.input %arg0 : tensor<1x3x16x16xf32> -> tensor<*xf32>
    %w = top.weight "conv_w" : tensor<8x3x3x3xf32>
    %b = top.weight "conv_b" : tensor<8xf32>
    %c = top.conv %x, %w, %b {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<*xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<*xf32>
    %m = top.weight "bn_mean" : tensor<8xf32>
    %v = top.weight "bn_var" : tensor<8xf32>
    %g = top.weight "bn_gamma" : tensor<8xf32>
    %be = top.weight "bn_beta" : tensor<8xf32>
    %bn = top.batchnorm %c, %m, %v, %g, %be {epsilon = 1.0e-5 : f64} : (tensor<*xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<*xf32>
    %r = top.relu %bn : tensor<*xf32> -> tensor<*xf32>
    return %r : tensor<*xf32>
  }
}
