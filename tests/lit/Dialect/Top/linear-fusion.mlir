// RUN: tpuc-opt %s --canonicalize --split-input-file | FileCheck %s
// The canonical graph computes what the spelled-out one does (a sequence-first QKV projection: transposes
// that move a unit axis, a fused QKV MatMul, its bias Add, three column slices):
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.savez('%t/in.npz', x=np.random.default_rng(0).standard_normal((1, 4, 8)).astype(np.float32))"
// RUN: tpuc run --model %S/Inputs/linear_main.mlir --input %t/in.npz --output %t/spelled.npz > /dev/null
// RUN: tpuc-opt %S/Inputs/linear_main.mlir --canonicalize --mlir-print-debuginfo -o %t/canonical.mlir
// RUN: FileCheck %s --check-prefix=MAIN < %t/canonical.mlir
// MAIN-NOT: top.permute
// MAIN-NOT: top.slice
// MAIN-NOT: top.add
// MAIN-COUNT-3: top.matmul
// RUN: tpuc run --model %t/canonical.mlir --input %t/in.npz --output %t/canonical.npz > /dev/null
// RUN: %python -c "import numpy as np; a = np.load('%t/spelled.npz'); b = np.load('%t/canonical.npz'); \
// RUN:   print(all(float(np.abs(a[n] - b[n]).max()) < 1e-6 for n in ('q', 'k', 'o')))" | FileCheck %s --check-prefix=NUM
// NUM: True

// A permute that moves only axes of extent 1 is a reshape; one that moves a longer axis past another stays.
// CHECK-LABEL: func.func @unit_permute
// CHECK: %[[R:.*]] = top.reshape %arg0 : tensor<1x4x8xf32> -> tensor<4x1x8xf32>
// CHECK: %[[P:.*]] = top.permute %arg1 {order = array<i64: 1, 0, 2>} : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
// CHECK: return %[[R]], %[[P]]
func.func @unit_permute(%x: tensor<1x4x8xf32>, %y: tensor<2x4x8xf32>) -> (tensor<4x1x8xf32>, tensor<4x2x8xf32>) {
  %a = top.permute %x {order = array<i64: 1, 0, 2>} : tensor<1x4x8xf32> -> tensor<4x1x8xf32>
  %b = top.permute %y {order = array<i64: 1, 0, 2>} : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
  return %a, %b : tensor<4x1x8xf32>, tensor<4x2x8xf32>
}

// -----

// matmul + a weight along the last axis is one matmul with that bias (a [1, 1, N] weight becomes [N]); the
// fused op is named after the add's tensor. A bias that varies along another axis, or a matmul read twice,
// stays an add.
// CHECK-LABEL: func.func @bias_add
// CHECK: %[[V:.*]] = top.weight "b_vector{{.*}}" {{.*}} : tensor<3xf32>
// CHECK: %[[M:.*]] = top.matmul %arg0, %{{.*}}, %[[V]] : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: %[[N:.*]] = top.matmul %arg0, %{{.*}}, %{{.*}} : (tensor<2x4xf32>, tensor<4x3xf32>, none) -> tensor<2x3xf32>
// CHECK: %[[A:.*]] = top.add %[[N]], %{{.*}} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK: return %[[M]], %[[A]]
func.func @bias_add(%x: tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %w = top.weight "w" {value = dense<0.5> : tensor<4x3xf32>} : tensor<4x3xf32>
  %b = top.weight "b" {value = dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>} : tensor<1x3xf32>
  %c = top.weight "c" {value = dense<[[1.0], [2.0]]> : tensor<2x1xf32>} : tensor<2x1xf32>
  %n = top.none : none
  %p = top.matmul %x, %w, %n : (tensor<2x4xf32>, tensor<4x3xf32>, none) -> tensor<2x3xf32>
  %s = top.add %p, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %q = top.matmul %x, %w, %n : (tensor<2x4xf32>, tensor<4x3xf32>, none) -> tensor<2x3xf32>
  %t = top.add %c, %q : (tensor<2x1xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %s, %t : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A matmul read only in column slices is a matmul per slice with those columns of the weight (W [K, N], or
// [N, K] rows with right_transpose) and of the bias; one read whole keeps the matmul.
// CHECK-LABEL: func.func @split
// CHECK-DAG: top.matmul %arg0, %{{.*}}, %{{.*}} {right_transpose = true} : (tensor<2x4xf32>, tensor<1x4xf32>, tensor<1xf32>) -> tensor<2x1xf32>
// CHECK-DAG: top.matmul %arg0, %{{.*}}, %{{.*}} {right_transpose = true} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<2x2xf32>
// CHECK-NOT: top.slice
// CHECK: return
func.func @split(%x: tensor<2x4xf32>) -> (tensor<2x1xf32>, tensor<2x2xf32>) {
  %w = top.weight "w" {value = dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>} : tensor<3x4xf32>
  %b = top.weight "b" {value = dense<[0.5, 1.5, 2.5]> : tensor<3xf32>} : tensor<3xf32>
  %p = top.matmul %x, %w, %b {right_transpose = true} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %h = top.slice %p {offset = array<i64: 0, 0>, steps = array<i64: 1, 1>, ends = array<i64: 2, 1>} : tensor<2x3xf32> -> tensor<2x1xf32>
  %t = top.slice %p {offset = array<i64: 0, 1>, steps = array<i64: 1, 1>, ends = array<i64: 2, 3>} : tensor<2x3xf32> -> tensor<2x2xf32>
  return %h, %t : tensor<2x1xf32>, tensor<2x2xf32>
}

// CHECK-LABEL: func.func @read_whole
// CHECK: top.matmul
// CHECK: top.slice
func.func @read_whole(%x: tensor<2x4xf32>) -> (tensor<2x1xf32>, tensor<2x3xf32>) {
  %w = top.weight "w" {value = dense<1.0> : tensor<4x3xf32>} : tensor<4x3xf32>
  %n = top.none : none
  %p = top.matmul %x, %w, %n : (tensor<2x4xf32>, tensor<4x3xf32>, none) -> tensor<2x3xf32>
  %h = top.slice %p {offset = array<i64: 0, 0>, steps = array<i64: 1, 1>, ends = array<i64: 2, 1>} : tensor<2x3xf32> -> tensor<2x1xf32>
  return %h, %p : tensor<2x1xf32>, tensor<2x3xf32>
}

// -----

// A sequence-first projection: the [1, 4, 8] activation reshaped to [4, 1, 8] (one row per lane of the
// chips' NCHW view) is projected, then reshaped into heads. The matmul reads [1, 4, 8] instead (its rows
// on the lanes) under its own name, the reshape moves below it as q_view and folds into the heads'
// reshape. A graph output keeps its shape and name: that matmul is not moved.
// CHECK-LABEL: func.func @rows_sunk
// CHECK: %[[T:.*]] = top.reshape %arg0 : tensor<1x4x8xf32> -> tensor<4x1x8xf32>
// CHECK: %[[Q:.*]] = top.matmul %arg0, %{{.*}}, %{{.*}} : (tensor<1x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
// CHECK: %[[H:.*]] = top.reshape %[[Q]] : tensor<1x4x8xf32> -> tensor<1x4x2x4xf32>
// CHECK: %[[O:.*]] = top.matmul %[[T]], %{{.*}}, %{{.*}} : (tensor<4x1x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x1x8xf32>
// CHECK: return %[[H]], %[[O]]
func.func @rows_sunk(%x: tensor<1x4x8xf32>) -> (tensor<1x4x2x4xf32>, tensor<4x1x8xf32>) {
  %w = top.weight "w" {value = dense<0.25> : tensor<8x8xf32>} : tensor<8x8xf32>
  %b = top.weight "b" {value = dense<0.5> : tensor<8xf32>} : tensor<8xf32>
  %t = top.reshape %x : tensor<1x4x8xf32> -> tensor<4x1x8xf32>
  %q = top.matmul %t, %w, %b : (tensor<4x1x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x1x8xf32>
  %h = top.reshape %q : tensor<4x1x8xf32> -> tensor<1x4x2x4xf32>
  %o = top.matmul %t, %w, %b : (tensor<4x1x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x1x8xf32>
  return %h, %o : tensor<1x4x2x4xf32>, tensor<4x1x8xf32>
}

// -----

// The attention's heads flattened to [4, 8] rows ([M, K]: K on the lanes) for the output projection, whose
// result is reshaped to [1, 4, 8]: the projection reads the heads as [1, 4, 8] and writes that shape (the
// reshape moves above it and folds into the heads' one). A reshape that changes the last axis stays after.
// CHECK-LABEL: func.func @rows_hoisted
// CHECK: %[[I:.*]] = top.reshape %arg0 : tensor<1x4x2x4xf32> -> tensor<1x4x8xf32>
// CHECK: %[[P:.*]] = top.matmul %[[I]], %{{.*}}, %{{.*}} : (tensor<1x4x8xf32>, tensor<8x8xf32>, none) -> tensor<1x4x8xf32>
// CHECK: %[[F:.*]] = top.reshape %arg0 : tensor<1x4x2x4xf32> -> tensor<4x8xf32>
// CHECK: %[[N:.*]] = top.matmul %[[F]], %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8x8xf32>, none) -> tensor<4x8xf32>
// CHECK: %[[R:.*]] = top.reshape %[[N]] : tensor<4x8xf32> -> tensor<1x4x2x4xf32>
// CHECK: return %[[P]], %[[R]]
func.func @rows_hoisted(%h: tensor<1x4x2x4xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x2x4xf32>) {
  %w = top.weight "w" {value = dense<0.25> : tensor<8x8xf32>} : tensor<8x8xf32>
  %n = top.none : none
  %f = top.reshape %h : tensor<1x4x2x4xf32> -> tensor<4x8xf32>
  %p = top.matmul %f, %w, %n : (tensor<4x8xf32>, tensor<8x8xf32>, none) -> tensor<4x8xf32>
  %r = top.reshape %p : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %f2 = top.reshape %h : tensor<1x4x2x4xf32> -> tensor<4x8xf32>
  %p2 = top.matmul %f2, %w, %n : (tensor<4x8xf32>, tensor<8x8xf32>, none) -> tensor<4x8xf32>
  %r2 = top.reshape %p2 : tensor<4x8xf32> -> tensor<1x4x2x4xf32>
  return %r, %r2 : tensor<1x4x8xf32>, tensor<1x4x2x4xf32>
}
