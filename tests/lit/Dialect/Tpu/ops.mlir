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
  %3 = tpu.add %1, %2 {precision = #top.precision<INT8>, multiplier = array<i64: 1, 1>, rshift = array<i64: 0>} : (tensor<1x2x4x4x!qy>, tensor<1x2x4x4x!qy>) -> tensor<1x2x4x4x!qy>
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
  %4 = tpu.slice %3 {precision = #top.precision<F16>, offset = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>, ends = array<i64: 1, 16, 64>} : (tensor<1x16x128xf16>) -> tensor<1x16x64xf16>
  // CHECK: tpu.a16matmul {{.*}}precision = #top.precision<W4F16>
  %5 = tpu.a16matmul %4, %q, %s, %none, %none {precision = #top.precision<W4F16>, weight_bits = 4 : i64, q_group_size = 64 : i64} : (tensor<1x16x64xf16>, tensor<32x32xui8>, tensor<32x1xf16>, none, none) -> tensor<1x16x32xf16>
  return %5 : tensor<1x16x32xf16>
}

// CHECK-LABEL: func.func @int8_elementwise
func.func @int8_elementwise(%a: tensor<1x4x8x8x!qx>, %b: tensor<1x4x1x1x!qy>, %t: tensor<256xi8>) -> tensor<1x8x8x8x!qy> {
  // CHECK: tpu.sub {{.*}}multiplier = array<i64: 1073741824, 1073741824>
  %0 = tpu.sub %a, %b {precision = #top.precision<INT8>, multiplier = array<i64: 1073741824, 1073741824>, rshift = array<i64: 30>} : (tensor<1x4x8x8x!qx>, tensor<1x4x1x1x!qy>) -> tensor<1x4x8x8x!qy>
  // CHECK: tpu.mul {{.*}}do_relu = true
  %1 = tpu.mul %a, %b {precision = #top.precision<INT8>, do_relu = true, multiplier = array<i64: 1>, rshift = array<i64: 3>} : (tensor<1x4x8x8x!qx>, tensor<1x4x1x1x!qy>) -> tensor<1x4x8x8x!qy>
  // CHECK: tpu.active {{.*}}active_mode = #tpu.active_mode<sigmoid>
  %2 = tpu.active %1, %t {precision = #top.precision<INT8>, active_mode = #tpu.active_mode<sigmoid>} : (tensor<1x4x8x8x!qy>, tensor<256xi8>) -> tensor<1x4x8x8x!qx>
  // CHECK: tpu.add_const {{.*}}const_val = 3.000000e+00
  %3 = tpu.add_const %2, %t {precision = #top.precision<INT8>, const_val = 3.0 : f64} : (tensor<1x4x8x8x!qx>, tensor<256xi8>) -> tensor<1x4x8x8x!qy>
  %4 = tpu.relu %3 {precision = #top.precision<INT8>} : (tensor<1x4x8x8x!qy>) -> tensor<1x4x8x8x!qy>
  %5 = tpu.clip %4 {precision = #top.precision<INT8>, min = 0.0 : f64, max = 6.0 : f64} : (tensor<1x4x8x8x!qy>) -> tensor<1x4x8x8x!qy>
  %6 = tpu.requant_int %0 {precision = #top.precision<INT8>, multiplier = array<i64: 1>, rshift = array<i64: 0>} : (tensor<1x4x8x8x!qy>) -> tensor<1x4x8x8x!qx>
  %7 = tpu.requant_int %6 {precision = #top.precision<INT8>, multiplier = array<i64: 1>, rshift = array<i64: 0>} : (tensor<1x4x8x8x!qx>) -> tensor<1x4x8x8x!qy>
  // CHECK: tpu.concat {{.*}}axis = 1
  %8 = tpu.concat %5, %7 {precision = #top.precision<INT8>, axis = 1 : i64} : (tensor<1x4x8x8x!qy>, tensor<1x4x8x8x!qy>) -> tensor<1x8x8x8x!qy>
  // CHECK: tpu.interp {{.*}}mode = #top.interp_mode<nearest>
  %9 = tpu.interp %8 {precision = #top.precision<INT8>, target_shape = array<i64: 8, 8>, mode = #top.interp_mode<nearest>, coord_mode = #top.coord_mode<asymmetric>} : (tensor<1x8x8x8x!qy>) -> tensor<1x8x8x8x!qy>
  return %9 : tensor<1x8x8x8x!qy>
}

// CHECK-LABEL: func.func @float_ops
func.func @float_ops(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x2x2xf32>, %s: tensor<4xf32>, %ids: tensor<2xi64>) -> tensor<2x4x8xf32> {
  %none = top.none : none
  // CHECK: tpu.deconv2d {{.*}}output_padding = array<i64: 0, 0>
  %0 = tpu.deconv2d %x, %w, %none {precision = #top.precision<F32>, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>, none) -> tensor<1x4x8x8xf32>
  // CHECK: tpu.scale
  %1 = tpu.scale %0, %s, %s {precision = #top.precision<F32>, do_relu = true} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %2 = tpu.div %1, %0 {precision = #top.precision<F32>} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %3 = tpu.max %2, %0 {precision = #top.precision<F32>} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %4 = tpu.min %3, %0 {precision = #top.precision<F32>} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %5 = tpu.sub_const %4, %none {precision = #top.precision<F32>, const_val = 1.0 : f64, is_reverse = true} : (tensor<1x4x8x8xf32>, none) -> tensor<1x4x8x8xf32>
  %6 = tpu.mul_const %5, %none {precision = #top.precision<F32>, const_val = 2.0 : f64} : (tensor<1x4x8x8xf32>, none) -> tensor<1x4x8x8xf32>
  %7 = tpu.div_const %6, %none {precision = #top.precision<F32>, const_val = 2.0 : f64} : (tensor<1x4x8x8xf32>, none) -> tensor<1x4x8x8xf32>
  %8 = tpu.max_const %7, %none {precision = #top.precision<F32>, const_val = 0.0 : f64} : (tensor<1x4x8x8xf32>, none) -> tensor<1x4x8x8xf32>
  %9 = tpu.min_const %8, %none {precision = #top.precision<F32>, const_val = 6.0 : f64} : (tensor<1x4x8x8xf32>, none) -> tensor<1x4x8x8xf32>
  // CHECK: tpu.active {{.*}}active_mode = #tpu.active_mode<leaky_relu>
  %10 = tpu.active %9, %none {precision = #top.precision<F32>, active_mode = #tpu.active_mode<leaky_relu>, alpha = 0.1 : f64} : (tensor<1x4x8x8xf32>, none) -> tensor<1x4x8x8xf32>
  // CHECK: tpu.pad {{.*}}pad_mode = #top.pad_mode<edge>
  %11 = tpu.pad %10 {precision = #top.precision<F32>, paddings = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>, pad_mode = #top.pad_mode<edge>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %12 = tpu.depth2space %11 {precision = #top.precision<F32>, block_h = 2 : i64, block_w = 2 : i64, is_inversed = true} : (tensor<1x4x8x8xf32>) -> tensor<1x16x4x4xf32>
  // CHECK: tpu.reduce {{.*}}mode = #top.reduce_mode<max>
  %13 = tpu.reduce %12 {precision = #top.precision<F32>, axes = array<i64: 1>, keepdims = false, mode = #top.reduce_mode<max>} : (tensor<1x16x4x4xf32>) -> tensor<1x4x4xf32>
  %14 = tpu.permute %13 {precision = #top.precision<F32>, order = array<i64: 0, 2, 1>} : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %15 = tpu.softmax %14 {precision = #top.precision<F32>, axis = 2 : i64} : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %16 = tpu.layernorm %15, %s, %none {precision = #top.precision<F32>, axis = 2 : i64} : (tensor<1x4x4xf32>, tensor<4xf32>, none) -> tensor<1x4x4xf32>
  // CHECK: tpu.split
  %17:2 = tpu.split %16 {precision = #top.precision<F32>, axis = 1 : i64, split_size = array<i64: 2, 2>} : (tensor<1x4x4xf32>) -> (tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  %18 = tpu.reshape %17#0 {precision = #top.precision<F32>} : (tensor<1x2x4xf32>) -> tensor<2x4xf32>
  // CHECK: tpu.gather
  %19 = tpu.gather %18, %ids {precision = #top.precision<F32>, axis = 0 : i64} : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %20 = tpu.reshape %17#1 {precision = #top.precision<F32>} : (tensor<1x2x4xf32>) -> tensor<2x4xf32>
  %21 = tpu.concat %19, %20 {precision = #top.precision<F32>, axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  %22 = tpu.reshape %21 {precision = #top.precision<F32>} : (tensor<2x8xf32>) -> tensor<2x1x8xf32>
  %23 = tpu.concat %22, %22, %22, %22 {precision = #top.precision<F32>, axis = 1 : i64} : (tensor<2x1x8xf32>, tensor<2x1x8xf32>, tensor<2x1x8xf32>, tensor<2x1x8xf32>) -> tensor<2x4x8xf32>
  return %23 : tensor<2x4x8xf32>
}

// CHECK-LABEL: func.func @decoder
func.func @decoder(%x: tensor<1x16x4x32xf16>, %g: tensor<32xf16>, %cos: tensor<16x32xf16>, %sin: tensor<16x32xf16>) -> tensor<1x16x4x32xf16> {
  %none = top.none : none
  // CHECK: tpu.rmsnorm {{.*}}eps = 1.000000e-05
  %0 = tpu.rmsnorm %x, %g {precision = #top.precision<F16>, eps = 1.0e-05 : f64} : (tensor<1x16x4x32xf16>, tensor<32xf16>) -> tensor<1x16x4x32xf16>
  // CHECK: tpu.rope {{.*}}rope_mode = #top.rope_mode<interleaved>
  %1 = tpu.rope %0, %cos, %sin {precision = #top.precision<F16>, rope_mode = #top.rope_mode<interleaved>} : (tensor<1x16x4x32xf16>, tensor<16x32xf16>, tensor<16x32xf16>) -> tensor<1x16x4x32xf16>
  // CHECK: tpu.attention {{.*}}scale = 1.250000e-01
  %2 = tpu.attention %1, %1, %1, %none {precision = #top.precision<F16>, scale = 0.125 : f64} : (tensor<1x16x4x32xf16>, tensor<1x16x4x32xf16>, tensor<1x16x4x32xf16>, none) -> tensor<1x16x4x32xf16>
  return %2 : tensor<1x16x4x32xf16>
}
