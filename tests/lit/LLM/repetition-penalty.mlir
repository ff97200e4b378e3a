// top.repetition_penalty: a valid op round-trips, each verifier message once.
// RUN: tpuc-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @ok
// CHECK: top.repetition_penalty %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x16xf32>, tensor<1x8xi32>, tensor<1xf32>) -> tensor<1x16xf32>
func.func @ok(%l: tensor<1x16xf32>, %i: tensor<1x8xi32>, %p: tensor<1xf32>) -> tensor<1x16xf32> {
  %0 = top.repetition_penalty %l, %i, %p : (tensor<1x16xf32>, tensor<1x8xi32>, tensor<1xf32>) -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}
// -----
func.func @logits_rank(%l: tensor<16xf32>, %i: tensor<1x8xi32>, %p: tensor<1xf32>) {
  // expected-error @+1 {{expects logits [B, V], got [16]}}
  %0 = top.repetition_penalty %l, %i, %p : (tensor<16xf32>, tensor<1x8xi32>, tensor<1xf32>) -> tensor<16xf32>
  return
}
// -----
func.func @ids_batch(%l: tensor<1x16xf32>, %i: tensor<2x8xi32>, %p: tensor<1xf32>) {
  // expected-error @+1 {{'ids' [2, 8] must be [B, S] with B = 1}}
  %0 = top.repetition_penalty %l, %i, %p : (tensor<1x16xf32>, tensor<2x8xi32>, tensor<1xf32>) -> tensor<1x16xf32>
  return
}
// -----
func.func @penalty_size(%l: tensor<1x16xf32>, %i: tensor<1x8xi32>, %p: tensor<2xf32>) {
  // expected-error @+1 {{'penalty' [2] must hold exactly one value}}
  %0 = top.repetition_penalty %l, %i, %p : (tensor<1x16xf32>, tensor<1x8xi32>, tensor<2xf32>) -> tensor<1x16xf32>
  return
}
