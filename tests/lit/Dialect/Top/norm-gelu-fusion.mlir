// RUN: tpuc-opt %s --canonicalize --mlir-print-local-scope | FileCheck %s

// LayerNorm as PyTorch exports it before opset 17: centre, square, mean, + eps, sqrt, divide, then * w + b.
// CHECK-LABEL: func.func @layernorm
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x16x64xf32>
// CHECK-DAG: %[[W:.*]] = top.weight "w"
// CHECK-DAG: %[[B:.*]] = top.weight "b"
// CHECK: %[[LN:.*]] = top.layernorm %[[X]], %[[W]], %[[B]] {axis = 2 : i64, eps = 9.9999997473787516E-6 : f64}
// CHECK-NEXT: return %[[LN]]
func.func @layernorm(%x: tensor<1x16x64xf32>) -> tensor<1x16x64xf32> {
  %w = top.weight "w" {value = dense<2.0> : tensor<64xf32>} : tensor<64xf32>
  %b = top.weight "b" {value = dense<0.5> : tensor<64xf32>} : tensor<64xf32>
  %m = top.reduce %x {axes = array<i64: 2>, mode = #top.reduce_mode<mean>} : tensor<1x16x64xf32> -> tensor<1x16x1xf32>
  %d = top.sub %x, %m : (tensor<1x16x64xf32>, tensor<1x16x1xf32>) -> tensor<1x16x64xf32>
  %sq = top.pow %d {exponent = 2.0 : f64} : tensor<1x16x64xf32> -> tensor<1x16x64xf32>
  %v = top.reduce %sq {axes = array<i64: 2>, mode = #top.reduce_mode<mean>} : tensor<1x16x64xf32> -> tensor<1x16x1xf32>
  %ve = top.add_const %v {const_val = 9.9999997473787516E-6 : f64} : tensor<1x16x1xf32> -> tensor<1x16x1xf32>
  %s = top.sqrt %ve : tensor<1x16x1xf32> -> tensor<1x16x1xf32>
  %n = top.div %d, %s : (tensor<1x16x64xf32>, tensor<1x16x1xf32>) -> tensor<1x16x64xf32>
  %y = top.mul %n, %w : (tensor<1x16x64xf32>, tensor<64xf32>) -> tensor<1x16x64xf32>
  %z = top.add %b, %y : (tensor<64xf32>, tensor<1x16x64xf32>) -> tensor<1x16x64xf32>
  return %z : tensor<1x16x64xf32>
}

// Over the last two axes, squared by a product, no affine part.
// CHECK-LABEL: func.func @layernorm_two_axes
// CHECK: top.layernorm %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, eps = 1.000000e-03 : f64} : (tensor<2x4x8xf32>, none, none)
func.func @layernorm_two_axes(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %m = top.reduce %x {axes = array<i64: -1, 1>, mode = #top.reduce_mode<mean>} : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
  %d = top.sub %x, %m : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  %sq = top.mul %d, %d : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %v = top.reduce %sq {axes = array<i64: 1, 2>, mode = #top.reduce_mode<mean>} : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
  %ve = top.add_const %v {const_val = 1.0e-3 : f64} : tensor<2x1x1xf32> -> tensor<2x1x1xf32>
  %s = top.sqrt %ve : tensor<2x1x1xf32> -> tensor<2x1x1xf32>
  %n = top.div %d, %s : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  return %n : tensor<2x4x8xf32>
}

// RMSNorm as Llama-style exports spell it: x * rsqrt(mean(x^2) + eps) * g.
// CHECK-LABEL: func.func @rmsnorm
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x8x32xf32>
// CHECK: %[[G:.*]] = top.weight "g"
// CHECK: %[[R:.*]] = top.rmsnorm %[[X]], %[[G]] {eps = 9.9999999747524271E-7 : f64}
// CHECK-NEXT: return %[[R]]
func.func @rmsnorm(%x: tensor<1x8x32xf32>) -> tensor<1x8x32xf32> {
  %g = top.weight "g" {value = dense<1.5> : tensor<32xf32>} : tensor<32xf32>
  %sq = top.pow %x {exponent = 2.0 : f64} : tensor<1x8x32xf32> -> tensor<1x8x32xf32>
  %v = top.reduce %sq {axes = array<i64: 2>, mode = #top.reduce_mode<mean>} : tensor<1x8x32xf32> -> tensor<1x8x1xf32>
  %ve = top.add_const %v {const_val = 9.9999999747524271E-7 : f64} : tensor<1x8x1xf32> -> tensor<1x8x1xf32>
  %r = top.rsqrt %ve : tensor<1x8x1xf32> -> tensor<1x8x1xf32>
  %n = top.mul %r, %x : (tensor<1x8x1xf32>, tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
  %y = top.mul %n, %g : (tensor<1x8x32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}

// Left alone: a mean over a leading axis (not a norm the ops define), a variance of another tensor, and a
// normalized value read twice (its weight cannot be folded in).
// CHECK-LABEL: func.func @not_norms
// CHECK-NOT: top.layernorm
// CHECK-NOT: top.rmsnorm
// CHECK: return
func.func @not_norms(%x: tensor<4x8xf32>, %z: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %m = top.reduce %x {axes = array<i64: 0>, mode = #top.reduce_mode<mean>} : tensor<4x8xf32> -> tensor<1x8xf32>
  %d = top.sub %x, %m : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %sq = top.pow %d {exponent = 2.0 : f64} : tensor<4x8xf32> -> tensor<4x8xf32>
  %v = top.reduce %sq {axes = array<i64: 0>, mode = #top.reduce_mode<mean>} : tensor<4x8xf32> -> tensor<1x8xf32>
  %ve = top.add_const %v {const_val = 1.0e-5 : f64} : tensor<1x8xf32> -> tensor<1x8xf32>
  %s = top.sqrt %ve : tensor<1x8xf32> -> tensor<1x8xf32>
  %n = top.div %d, %s : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %sq2 = top.pow %z {exponent = 2.0 : f64} : tensor<4x8xf32> -> tensor<4x8xf32>
  %v2 = top.reduce %sq2 {axes = array<i64: 1>, mode = #top.reduce_mode<mean>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %ve2 = top.add_const %v2 {const_val = 1.0e-5 : f64} : tensor<4x1xf32> -> tensor<4x1xf32>
  %s2 = top.sqrt %ve2 : tensor<4x1xf32> -> tensor<4x1xf32>
  %n2 = top.div %x, %s2 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %n, %n2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// GELU, erf form, as PyTorch exports it (x * (1 + erf(x / sqrt 2))) * 0.5, and (0.5 x) * (1 + erf(x * (1 / sqrt 2))).
// CHECK-LABEL: func.func @gelu_erf
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x16x256xf32>
// CHECK-NEXT: %[[A:.*]] = top.gelu %[[X]] : tensor<1x16x256xf32>
// CHECK-NEXT: %[[B:.*]] = top.gelu %[[X]] : tensor<1x16x256xf32>
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @gelu_erf(%x: tensor<1x16x256xf32>) -> (tensor<1x16x256xf32>, tensor<1x16x256xf32>) {
  %s = top.div_const %x {const_val = 1.4142135381698608 : f64} : tensor<1x16x256xf32> -> tensor<1x16x256xf32>
  %e = top.erf %s : tensor<1x16x256xf32> -> tensor<1x16x256xf32>
  %g = top.add_const %e {const_val = 1.0 : f64} : tensor<1x16x256xf32> -> tensor<1x16x256xf32>
  %m = top.mul %x, %g : (tensor<1x16x256xf32>, tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  %a = top.mul_const %m {const_val = 0.5 : f64} : tensor<1x16x256xf32> -> tensor<1x16x256xf32>
  %s2 = top.mul_const %x {const_val = 0.70710678118654757 : f64} : tensor<1x16x256xf32> -> tensor<1x16x256xf32>
  %e2 = top.erf %s2 : tensor<1x16x256xf32> -> tensor<1x16x256xf32>
  %g2 = top.add_const %e2 {const_val = 1.0 : f64} : tensor<1x16x256xf32> -> tensor<1x16x256xf32>
  %h = top.mul_const %x {const_val = 0.5 : f64} : tensor<1x16x256xf32> -> tensor<1x16x256xf32>
  %b = top.mul %h, %g2 : (tensor<1x16x256xf32>, tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
  return %a, %b : tensor<1x16x256xf32>, tensor<1x16x256xf32>
}

// GELU, tanh form (BERT / GPT-2): 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
// CHECK-LABEL: func.func @gelu_tanh
// CHECK-NEXT: %[[G:.*]] = top.gelu %{{.*}} {gelu_approx = #top.gelu_approx<tanh>}
// CHECK-NEXT: return %[[G]]
func.func @gelu_tanh(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %c = top.pow %x {exponent = 3.0 : f64} : tensor<2x8xf32> -> tensor<2x8xf32>
  %k = top.mul_const %c {const_val = 0.044715 : f64} : tensor<2x8xf32> -> tensor<2x8xf32>
  %i = top.add %x, %k : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %j = top.mul_const %i {const_val = 0.79788456080286541 : f64} : tensor<2x8xf32> -> tensor<2x8xf32>
  %t = top.tanh %j : tensor<2x8xf32> -> tensor<2x8xf32>
  %g = top.add_const %t {const_val = 1.0 : f64} : tensor<2x8xf32> -> tensor<2x8xf32>
  %h = top.mul_const %g {const_val = 0.5 : f64} : tensor<2x8xf32> -> tensor<2x8xf32>
  %y = top.mul %x, %h : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// Left alone: a gate of another tensor, and 1 + erf(x / 2) (not GELU's scale).
// CHECK-LABEL: func.func @not_gelu
// CHECK-NOT: top.gelu
// CHECK: return
func.func @not_gelu(%x: tensor<4xf32>, %z: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = top.div_const %z {const_val = 1.4142135381698608 : f64} : tensor<4xf32> -> tensor<4xf32>
  %e = top.erf %s : tensor<4xf32> -> tensor<4xf32>
  %g = top.add_const %e {const_val = 1.0 : f64} : tensor<4xf32> -> tensor<4xf32>
  %m = top.mul %x, %g : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %a = top.mul_const %m {const_val = 0.5 : f64} : tensor<4xf32> -> tensor<4xf32>
  %s2 = top.div_const %x {const_val = 2.0 : f64} : tensor<4xf32> -> tensor<4xf32>
  %e2 = top.erf %s2 : tensor<4xf32> -> tensor<4xf32>
  %g2 = top.add_const %e2 {const_val = 1.0 : f64} : tensor<4xf32> -> tensor<4xf32>
  %m2 = top.mul %x, %g2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = top.mul_const %m2 {const_val = 0.5 : f64} : tensor<4xf32> -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
