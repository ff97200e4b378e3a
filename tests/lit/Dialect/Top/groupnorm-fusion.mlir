// RUN: tpuc-opt %s --canonicalize | FileCheck %s

// PyTorch's GroupNorm export: reshape [N, C, H, W] to [N, G, H*W*C/G], InstanceNormalization with scale 1 and
// bias 0, reshape back, then the per-channel affine: one top.groupnorm with G groups and the affine folded
// in. (Numbers: tests/models/op_models_equal.py, Top vs PyTorch.)
// CHECK-LABEL: func.func @groupnorm_export
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x8x4x4xf32>
// CHECK-DAG: %[[B:.*]] = top.weight "beta"
// CHECK-DAG: %[[G:.*]] = top.weight "gamma"
// CHECK: %[[N:.*]] = top.groupnorm %[[X]], %[[G]], %[[B]] {num_groups = 2 : i64}
// CHECK-NOT: top.instancenorm
// CHECK: return %[[N]]
func.func @groupnorm_export(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %one = top.weight "ones" {value = dense<1.0> : tensor<2xf32>} : tensor<2xf32>
  %zero = top.weight "zeros" {value = dense<0.0> : tensor<2xf32>} : tensor<2xf32>
  %gamma = top.weight "gamma" {value = dense<[[[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]], [[6.0]], [[7.0]], [[8.0]]]> : tensor<8x1x1xf32>} : tensor<8x1x1xf32>
  %beta = top.weight "beta" {value = dense<0.5> : tensor<8x1x1xf32>} : tensor<8x1x1xf32>
  %r = top.reshape %x : tensor<1x8x4x4xf32> -> tensor<1x2x64xf32>
  %n = top.instancenorm %r, %one, %zero {eps = 1.0e-05 : f64} : (tensor<1x2x64xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x64xf32>
  %b = top.reshape %n : tensor<1x2x64xf32> -> tensor<1x8x4x4xf32>
  %m = top.mul %b, %gamma : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %a = top.add %m, %beta : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
  return %a : tensor<1x8x4x4xf32>
}

// Left alone: an instance norm with a real scale, and an affine that is not per channel.
// CHECK-LABEL: func.func @not_groupnorm
// CHECK: top.instancenorm
// CHECK: %[[N:.*]] = top.groupnorm
// CHECK: top.mul %[[N]]
// CHECK: return
func.func @not_groupnorm(%x: tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %s = top.weight "s" {value = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2xf32>
  %r = top.reshape %x : tensor<1x8x4x4xf32> -> tensor<1x2x64xf32>
  %n = top.instancenorm %r, %s, %s {eps = 1.0e-05 : f64} : (tensor<1x2x64xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x64xf32>
  %b = top.reshape %n : tensor<1x2x64xf32> -> tensor<1x8x4x4xf32>
  %w = top.weight "w" {value = dense<2.0> : tensor<4x4xf32>} : tensor<4x4xf32>
  %r2 = top.reshape %x : tensor<1x8x4x4xf32> -> tensor<1x2x64xf32>
  %none = top.none : none
  %n2 = top.instancenorm %r2, %none, %none {eps = 1.0e-05 : f64} : (tensor<1x2x64xf32>, none, none) -> tensor<1x2x64xf32>
  %b2 = top.reshape %n2 : tensor<1x2x64xf32> -> tensor<1x8x4x4xf32>
  %m = top.mul %b2, %w : (tensor<1x8x4x4xf32>, tensor<4x4xf32>) -> tensor<1x8x4x4xf32>
  return %b, %m : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}
