// RUN: tpuc-opt %s --top-shape-infer --split-input-file --verify-diagnostics | FileCheck %s

// Importers leave unranked placeholders; the pass fills them in program order and fixes the signature.
// CHECK-LABEL: func.func @cnn(%{{.*}}: tensor<1x3x16x16xf32>) -> tensor<1x8x4x4xf32>
// CHECK: top.conv {{.*}} -> tensor<1x8x8x8xf32>
// CHECK: top.maxpool {{.*}} : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf32>
// CHECK: return {{.*}} : tensor<1x8x4x4xf32>
func.func @cnn(%arg0: tensor<1x3x16x16xf32>) -> tensor<*xf32> {
  %x = top.input %arg0 : tensor<1x3x16x16xf32> -> tensor<*xf32>
  %w = top.weight "w" : tensor<8x3x3x3xf32>
  %none = top.none : none
  %c = top.conv %x, %w, %none {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<*xf32>, tensor<8x3x3x3xf32>, none) -> tensor<*xf32>
  %p = top.maxpool %c {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : tensor<*xf32> -> tensor<*xf32>
  return %p : tensor<*xf32>
}

// -----

// Multi-result ops and broadcasting.
// CHECK-LABEL: func.func @multi
// CHECK: top.split {{.*}} -> (tensor<2x3xf32>, tensor<2x5xf32>)
// CHECK: top.add {{.*}} -> tensor<4x2x3xf32>
func.func @multi(%a: tensor<2x8xf32>, %b: tensor<4x1x3xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %s:2 = top.split %a {axis = 1 : i64, split_size = array<i64: 3, 5>} : (tensor<2x8xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  %0 = top.add %s#0, %b : (tensor<*xf32>, tensor<4x1x3xf32>) -> tensor<*xf32>
  return %0, %s#1 : tensor<*xf32>, tensor<*xf32>
}

// -----

// A shape rule that fails names the op and the reason.
func.func @bad(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<*xf32> {
  %none = top.none : none
  // expected-error @+1 {{contracting sizes differ: input [2, 3] gives K=3, right [4, 5] gives K=4}}
  %0 = top.matmul %a, %b, %none : (tensor<2x3xf32>, tensor<4x5xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// An unranked model input cannot be inferred.
func.func @unranked_input(%a: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{operand #0 has no static shape (give the model input a fixed shape)}}
  %0 = top.relu %a : tensor<*xf32> -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Region ops: the block arguments take their operands' shapes first, then the ops inside are inferred,
// then the op's results follow its yields (top.if) or its carried values (top.loop).
// CHECK-LABEL: func.func @regions(%{{.*}}: tensor<1xi1>, %{{.*}}: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: top.if %{{.*}} (%{{.*}}) : (tensor<1xi1>, tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<2x3xf32>):
// CHECK-NEXT: top.relu %{{.*}} : tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK: top.loop %{{.*}}, %{{.*}}, (%{{.*}}), () : (none, none, tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i1>, %{{.*}}: tensor<2x3xf32>):
// CHECK-NEXT: top.sigmoid %{{.*}} : tensor<2x3xf32> -> tensor<2x3xf32>
func.func @regions(%c: tensor<1xi1>, %a: tensor<2x3xf32>) -> tensor<*xf32> {
  %none = top.none : none
  %x = top.tanh %a : tensor<2x3xf32> -> tensor<*xf32>
  %y = top.if %c (%x) : (tensor<1xi1>, tensor<*xf32>) -> tensor<*xf32> {
  ^bb0(%b: tensor<*xf32>):
    %t = top.relu %b : tensor<*xf32> -> tensor<*xf32>
    top.yield %t : tensor<*xf32>
  }, {
  ^bb0(%b: tensor<*xf32>):
    top.yield %b : tensor<*xf32>
  }
  %r = top.loop %none, %none, (%y), () : (none, none, tensor<*xf32>) -> tensor<*xf32> {
  ^bb0(%i: tensor<i64>, %go: tensor<i1>, %v: tensor<*xf32>):
    %s = top.sigmoid %v : tensor<*xf32> -> tensor<*xf32>
    %stop = top.weight "stop" {value = dense<false> : tensor<i1>} : tensor<i1>
    top.yield %stop, %s : tensor<i1>, tensor<*xf32>
  }
  return %r : tensor<*xf32>
}
