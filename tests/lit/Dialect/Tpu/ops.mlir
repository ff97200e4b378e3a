// Every Tpu op in each precision it supports; print -> parse -> print agrees, custom and generic form.
// RUN: tpuc-opt %s | tpuc-opt | FileCheck %s
// RUN: tpuc-opt %s --mlir-print-op-generic | tpuc-opt | FileCheck %s

!qx = !quant.uniform<i8:f32, 0.02>
!qy = !quant.uniform<i8:f32, 0.05:-3>

// CHECK-LABEL: func.func @int8
func.func @int8(%x: tensor<1x3x8x8x!qx>, %w: tensor<2x3x3x3xi8>, %b: tensor<2xi32>) -> tensor<1x2x4x4x!qy> {
  // CHECK: tpu.conv2d {{.*}}multiplier = array<i64: 19005, 17002>{{.*}}precision = #top.precision<INT8>{{.*}}rshift = array<i64: 20, 20>
  %0 = tpu.conv2d %x, %w, %b {precision = #top.precision<INT8>, kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, multiplier = array<i64: 19005, 17002>, rshift = array<i64: 20, 20>} : (tensor<1x3x8x8x!qx>, tensor<2x3x3x3xi8>, tensor<2xi32>) -> tensor<1x2x8x8x!qy>
  // CHECK: tpu.pool2d {{.*}}pool_mode = #tpu.pool_mode<max>
  %1 = tpu.pool2d %0 {precision = #top.precision<INT8>, pool_mode = #tpu.pool_mode<max>, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x2x8x8x!qy>) -> tensor<1x2x4x4x!qy>
  // CHECK: tpu.pool2d {{.*}}pool_mode = #tpu.pool_mode<avg>
  %2 = tpu.pool2d %1 {precision = #top.precision<INT8>, pool_mode = #tpu.pool_mode<avg>, kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, multiplier = array<i64: 1>, rshift = array<i64: 0>} : (tensor<1x2x4x4x!qy>) -> tensor<1x2x4x4x!qy>
  // CHECK: tpu.add {{.*}}multiplier = array<i64: 1, 1>
  %3 = tpu.add %1, %2 {precision = #top.precision<INT8>, multiplier = array<i64: 1, 1>, rshift = array<i64: 0, 0>} : (tensor<1x2x4x4x!qy>, tensor<1x2x4x4x!qy>) -> tensor<1x2x4x4x!qy>
  // CHECK: tpu.requant_int {{.*}}requant_mode = #tpu.requant_mode<only_shift>
  %4 = tpu.requant_int %3 {precision = #top.precision<INT8>, multiplier = array<i64: 1>, rshift = array<i64: 1>, requant_mode = #tpu.requant_mode<only_shift>} : (tensor<1x2x4x4x!qy>) -> tensor<1x2x4x4x!qy>
  return %4 : tensor<1x2x4x4x!qy>
}

// CHECK-LABEL: func.func @floats
func.func @floats(%x: tensor<1x16x64xf32>, %w: tensor<128x64xbf16>, %q: tensor<32x32xui8>, %s: tensor<32x1xf16>) -> tensor<1x16x32xf16> {
  %none = top.none : none
  // CHECK: tpu.cast {{.*}} : (tensor<1x16x64xf32>) -> tensor<1x16x64xbf16>
  %0 = tpu.cast %x {precision = #top.precision<BF16>} : (tensor<1x16x64xf32>) -> tensor<1x16x64xbf16>
  // CHECK: tpu.matmul {{.*}}address = 4096 : i64{{.*}}right_transpose = true
  %1 = tpu.matmul %0, %w, %none {precision = #top.precision<BF16>, right_transpose = true, address = 4096 : i64} : (tensor<1x16x64xbf16>, tensor<128x64xbf16>, none) -> tensor<1x16x128xbf16>
  %2 = tpu.relu %1 {precision = #top.precision<BF16>} : (tensor<1x16x128xbf16>) -> tensor<1x16x128xbf16>
  %3 = tpu.cast %2 {precision = #top.precision<F16>} : (tensor<1x16x128xbf16>) -> tensor<1x16x128xf16>
  %4 = tpu.cast %3 {precision = #top.precision<F16>} : (tensor<1x16x128xf16>) -> tensor<1x16x64xf16>
  // CHECK: tpu.a16matmul {{.*}}precision = #top.precision<W4F16>
  %5 = tpu.a16matmul %4, %q, %s, %none, %none {precision = #top.precision<W4F16>, weight_bits = 4 : i64, q_group_size = 64 : i64} : (tensor<1x16x64xf16>, tensor<32x32xui8>, tensor<32x1xf16>, none, none) -> tensor<1x16x32xf16>
  return %5 : tensor<1x16x32xf16>
}
