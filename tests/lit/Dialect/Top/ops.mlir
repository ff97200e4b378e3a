// Every Top op in its custom form; printing, parsing and printing again must agree, in both the custom
// and the generic form.
// RUN: tpuc-opt %s | tpuc-opt | FileCheck %s
// RUN: tpuc-opt %s --mlir-print-op-generic | tpuc-opt | FileCheck %s

// CHECK-LABEL: func.func @cnn
func.func @cnn(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x2xf32> {
  // CHECK: top.input %{{.*}} {channel_format = #top.channel_format<nchw>, keep_aspect_ratio = true, mean = array<f64: 1.000000e+00, 2.000000e+00, 3.000000e+00>, pad_type = #top.pad_type<center>, pad_value = 1.000000e+00 : f64, pixel_format = #top.pixel_format<bgr>, resize_dims = array<i64: 10, 12>, scale = array<f64: 5.000000e-01>}
  %x = top.input %arg0 {mean = array<f64: 1.0, 2.0, 3.0>, scale = array<f64: 0.5>, pixel_format = #top.pixel_format<bgr>, channel_format = #top.channel_format<nchw>, resize_dims = array<i64: 10, 12>, keep_aspect_ratio = true, pad_value = 1.0 : f64, pad_type = #top.pad_type<center>} : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xf32>
  // CHECK: top.weight "w" : tensor<4x3x3x3xf32>
  %w = top.weight "w" : tensor<4x3x3x3xf32>
  // CHECK: top.none : none
  %none = top.none : none
  // CHECK: top.conv {{.*}} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  %c = top.conv %x, %w, %none {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  %m = top.weight "m" : tensor<4xf32>
  // CHECK: top.batchnorm
  %bn = top.batchnorm %c, %m, %m, %m, %m {epsilon = 1.0e-5 : f64} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  // CHECK: top.maxpool {{.*}} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  %p = top.maxpool %bn {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  // CHECK: top.avgpool {{.*}}ceil_mode = true{{.*}} : tensor<1x4x4x4xf32> -> tensor<1x4x2x2xf32>
  %ap = top.avgpool %p {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = true, count_include_pad = true} : tensor<1x4x4x4xf32> -> tensor<1x4x2x2xf32>
  %dw = top.weight "dw" : tensor<4x2x2x2xf32>
  // CHECK: top.deconv {{.*}} -> tensor<1x4x4x4xf32>
  %d = top.deconv %ap, %dw, %none {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 2 : i64} : (tensor<1x4x2x2xf32>, tensor<4x2x2x2xf32>, none) -> tensor<1x4x4x4xf32>
  // CHECK: top.adaptive_avgpool
  %g = top.adaptive_avgpool %d {output_size = array<i64: 1, 1>} : tensor<1x4x4x4xf32> -> tensor<1x4x1x1xf32>
  // CHECK: top.reshape
  %r = top.reshape %g : tensor<1x4x1x1xf32> -> tensor<1x4xf32>
  %fw = top.weight "fc" : tensor<2x4xf32>
  %fb = top.weight "fcb" : tensor<2xf32>
  // CHECK: top.matmul {{.*}}right_transpose = true
  %fc = top.matmul %r, %fw, %fb {right_transpose = true} : (tensor<1x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  // CHECK: top.softmax {{.*}}log = true
  %s = top.softmax %fc {axis = 1 : i64, log = true} : tensor<1x2xf32> -> tensor<1x2xf32>
  return %s : tensor<1x2xf32>
}

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: top.add %{{.*}}, %{{.*}} {do_relu = true} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = top.add %a, %b {do_relu = true} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = top.sub %0, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = top.mul %1, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = top.div %2, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = top.max %3, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = top.min %4, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: top.add_const {{.*}}const_val = 1.500000e+00
  %6 = top.add_const %5 {const_val = 1.5 : f64} : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.sub_const {{.*}}is_reverse = true
  %7 = top.sub_const %6 {const_val = 1.0 : f64, is_reverse = true} : tensor<2x3xf32> -> tensor<2x3xf32>
  %8 = top.mul_const %7 {const_val = 2.0 : f64} : tensor<2x3xf32> -> tensor<2x3xf32>
  %9 = top.div_const %8 {const_val = 2.0 : f64} : tensor<2x3xf32> -> tensor<2x3xf32>
  %10 = top.max_const %9 {const_val = 0.0 : f64} : tensor<2x3xf32> -> tensor<2x3xf32>
  %11 = top.min_const %10 {const_val = 6.0 : f64} : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.relu {{.*}}relu_limit = 6.000000e+00
  %12 = top.relu %11 {relu_limit = 6.0 : f64} : tensor<2x3xf32> -> tensor<2x3xf32>
  %13 = top.leaky_relu %12 {alpha = 0.1 : f64} : tensor<2x3xf32> -> tensor<2x3xf32>
  %14 = top.clip %13 {min = -1.0 : f64, max = 1.0 : f64} : tensor<2x3xf32> -> tensor<2x3xf32>
  %15 = top.sigmoid %14 : tensor<2x3xf32> -> tensor<2x3xf32>
  %16 = top.tanh %15 : tensor<2x3xf32> -> tensor<2x3xf32>
  %17 = top.silu %16 : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.gelu {{.*}}gelu_approx = #top.gelu_approx<tanh>
  %18 = top.gelu %17 {gelu_approx = #top.gelu_approx<tanh>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %19 = top.hard_sigmoid %18 {alpha = 0.2 : f64, beta = 0.5 : f64} : tensor<2x3xf32> -> tensor<2x3xf32>
  %20 = top.hard_swish %19 : tensor<2x3xf32> -> tensor<2x3xf32>
  %21 = top.exp %20 : tensor<2x3xf32> -> tensor<2x3xf32>
  %22 = top.log %21 : tensor<2x3xf32> -> tensor<2x3xf32>
  %23 = top.sqrt %22 : tensor<2x3xf32> -> tensor<2x3xf32>
  %24 = top.rsqrt %23 : tensor<2x3xf32> -> tensor<2x3xf32>
  %25 = top.pow %24 {exponent = 2.0 : f64} : tensor<2x3xf32> -> tensor<2x3xf32>
  %26 = top.abs %25 : tensor<2x3xf32> -> tensor<2x3xf32>
  %27 = top.erf %26 : tensor<2x3xf32> -> tensor<2x3xf32>
  %28 = top.reciprocal %27 : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.compare {{.*}}mode = #top.compare_mode<ge>
  %29 = top.compare %28, %b {mode = #top.compare_mode<ge>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %30 = top.compare %29, %29 {mode = #top.compare_mode<and>} : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK: top.where
  %31 = top.where %30, %28, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %31 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: tensor<1x4x6x8xf32>, %ids: tensor<2x3xi64>) -> (tensor<2x3x6x8xf32>, tensor<1x4x8x6xf32>) {
  // CHECK: top.permute {{.*}}order = array<i64: 0, 1, 3, 2>
  %0 = top.permute %x {order = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x8xf32> -> tensor<1x4x8x6xf32>
  // CHECK: top.squeeze
  %1 = top.squeeze %x {axes = array<i64: 0>} : tensor<1x4x6x8xf32> -> tensor<4x6x8xf32>
  // CHECK: top.unsqueeze
  %2 = top.unsqueeze %1 {axes = array<i64: -1>} : tensor<4x6x8xf32> -> tensor<4x6x8x1xf32>
  // CHECK: top.concat {{.*}}axis = 3
  %3 = top.concat %2, %2 {axis = 3 : i64} : (tensor<4x6x8x1xf32>, tensor<4x6x8x1xf32>) -> tensor<4x6x8x2xf32>
  // CHECK: top.slice
  %4 = top.slice %3 {offset = array<i64: 0, 0, 7, 1>, steps = array<i64: 1, 2, -1, 1>, ends = array<i64: 4, 6, -1, 2>} : tensor<4x6x8x2xf32> -> tensor<4x3x8x1xf32>
  // CHECK: top.split
  %5:2 = top.split %4 {axis = 2 : i64, split_size = array<i64: 3, 5>} : (tensor<4x3x8x1xf32>) -> (tensor<4x3x3x1xf32>, tensor<4x3x5x1xf32>)
  // CHECK: top.gather {{.*}} -> tensor<2x3x6x8xf32>
  %6 = top.gather %1, %ids {axis = 0 : i64} : (tensor<4x6x8xf32>, tensor<2x3xi64>) -> tensor<2x3x6x8xf32>
  // CHECK: top.pad {{.*}}pad_mode = #top.pad_mode<reflect>
  %7 = top.pad %x {paddings = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, pad_mode = #top.pad_mode<reflect>} : tensor<1x4x6x8xf32> -> tensor<1x4x8x10xf32>
  // CHECK: top.reduce {{.*}}mode = #top.reduce_mode<l2>
  %8 = top.reduce %7 {axes = array<i64: 1>, keepdims = false, mode = #top.reduce_mode<l2>} : tensor<1x4x8x10xf32> -> tensor<1x8x10xf32>
  // CHECK: top.interp {{.*}}coord_mode = #top.coord_mode<align_corners>
  %9 = top.interp %x {target_shape = array<i64: 12, 16>, mode = #top.interp_mode<linear>, coord_mode = #top.coord_mode<align_corners>} : tensor<1x4x6x8xf32> -> tensor<1x4x12x16xf32>
  // CHECK: top.depth2space {{.*}}d2s_mode = #top.d2s_mode<crd>
  %10 = top.depth2space %x {block_h = 2 : i64, block_w = 2 : i64, d2s_mode = #top.d2s_mode<crd>} : tensor<1x4x6x8xf32> -> tensor<1x1x12x16xf32>
  %11 = top.depth2space %x {block_h = 2 : i64, block_w = 2 : i64, is_inversed = true} : tensor<1x4x6x8xf32> -> tensor<1x16x3x4xf32>
  // CHECK: top.cast
  %12 = top.cast %x : tensor<1x4x6x8xf32> -> tensor<1x4x6x8xf16>
  // CHECK: top.topk
  %13:2 = top.topk %x {axis = -1 : i64, k = 3 : i64, largest = false} : (tensor<1x4x6x8xf32>) -> (tensor<1x4x6x3xf32>, tensor<1x4x6x3xi64>)
  // CHECK: top.arange
  %14 = top.arange {start = 0.0 : f64, limit = 10.0 : f64, delta = 3.0 : f64} : () -> tensor<4xf32>
  return %6, %0 : tensor<2x3x6x8xf32>, tensor<1x4x8x6xf32>
}

// CHECK-LABEL: func.func @llm
func.func @llm(%h: tensor<1x16x64xf32>, %mask: tensor<1x1x16x16xf32>) -> tensor<1x16x8x8xf32> {
  %g = top.weight "g" : tensor<64xf32>
  %b = top.weight "b" : tensor<64xf32>
  // CHECK: top.rmsnorm
  %0 = top.rmsnorm %h, %g {eps = 1.0e-6 : f64} : (tensor<1x16x64xf32>, tensor<64xf32>) -> tensor<1x16x64xf32>
  // CHECK: top.layernorm
  %1 = top.layernorm %0, %g, %b {axis = -1 : i64} : (tensor<1x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x16x64xf32>
  %q4 = top.weight "q4" : tensor<64x32xui8>
  %s = top.weight "s" : tensor<64x2xf32>
  %none = top.none : none
  // CHECK: top.a16matmul {{.*}}q_group_size = 32 : i64, weight_bits = 4 : i64
  %2 = top.a16matmul %1, %q4, %s, %none, %none {weight_bits = 4 : i64, q_group_size = 32 : i64} : (tensor<1x16x64xf32>, tensor<64x32xui8>, tensor<64x2xf32>, none, none) -> tensor<1x16x64xf32>
  %q = top.reshape %2 : tensor<1x16x64xf32> -> tensor<1x16x8x8xf32>
  %kv = top.slice %q {offset = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>, ends = array<i64: 1, 16, 2, 8>} : tensor<1x16x8x8xf32> -> tensor<1x16x2x8xf32>
  %cos = top.weight "cos" : tensor<16x8xf32>
  // CHECK: top.rope
  %3 = top.rope %q, %cos, %cos : (tensor<1x16x8x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<1x16x8x8xf32>
  // CHECK: top.attention {{.*}}scale = 0.3535
  %4 = top.attention %3, %kv, %kv, %mask {scale = 0.35355339 : f64} : (tensor<1x16x8x8xf32>, tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>, tensor<1x1x16x16xf32>) -> tensor<1x16x8x8xf32>
  %5 = top.weight "gn" : tensor<16xf32>
  // CHECK: top.groupnorm
  %6 = top.groupnorm %4, %5, %5 {num_groups = 4 : i64} : (tensor<1x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  // CHECK: top.instancenorm
  %7 = top.instancenorm %6, %5, %none {eps = 1.0e-5 : f64} : (tensor<1x16x8x8xf32>, tensor<16xf32>, none) -> tensor<1x16x8x8xf32>
  return %7 : tensor<1x16x8x8xf32>
}

// CHECK-LABEL: func.func @rounding_trig
func.func @rounding_trig(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: top.floor
  %0 = top.floor %a : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.ceil
  %1 = top.ceil %0 : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.round
  %2 = top.round %1 : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.sign
  %3 = top.sign %2 : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.sin
  %4 = top.sin %3 : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.cos
  %5 = top.cos %4 : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.tan
  %6 = top.tan %5 : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.asin
  %7 = top.asin %6 : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.acos
  %8 = top.acos %7 : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.atan
  %9 = top.atan %8 : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.sinh
  %10 = top.sinh %9 : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.cosh
  %11 = top.cosh %10 : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.asinh
  %12 = top.asinh %11 : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.acosh
  %13 = top.acosh %12 : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: top.atanh
  %14 = top.atanh %13 : tensor<2x3xf32> -> tensor<2x3xf32>
  return %14 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @gather_elements_cumsum
func.func @gather_elements_cumsum(%x: tensor<3x5xf32>, %ids: tensor<3x2xi64>) -> tensor<3x2xf32> {
  // CHECK: top.gather_elements {{.*}} -> tensor<3x2xf32>
  %0 = top.gather_elements %x, %ids {axis = 1 : i64} : (tensor<3x5xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  // CHECK: top.cumsum {{.*}}exclusive = true, reverse = true
  %1 = top.cumsum %0 {axis = -1 : i64, exclusive = true, reverse = true} : tensor<3x2xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @interp_nearest_mode
func.func @interp_nearest_mode(%x: tensor<1x4x6x8xf32>) -> tensor<1x4x12x16xf32> {
  // CHECK: top.interp {{.*}}coord_mode = #top.coord_mode<tf_half_pixel_for_nn>{{.*}}nearest_mode = #top.nearest_mode<round_prefer_ceil>
  %0 = top.interp %x {target_shape = array<i64: 12, 16>, mode = #top.interp_mode<nearest>, coord_mode = #top.coord_mode<tf_half_pixel_for_nn>, nearest_mode = #top.nearest_mode<round_prefer_ceil>} : tensor<1x4x6x8xf32> -> tensor<1x4x12x16xf32>
  return %0 : tensor<1x4x12x16xf32>
}

// CHECK-LABEL: func.func @interp_cubic_scales
func.func @interp_cubic_scales(%x: tensor<1x4x6x8xf32>, %s: tensor<4xf32>) -> tensor<1x4x3x4xf32> {
  // CHECK: top.interp %{{.*}} scales %{{.*}} {cubic_coeff_a = -5.000000e-01 : f64, exclude_outside = true, mode = #top.interp_mode<cubic>, target_shape = array<i64: 3, 4>} : tensor<1x4x6x8xf32>, tensor<4xf32> -> tensor<1x4x3x4xf32>
  %0 = top.interp %x scales %s {target_shape = array<i64: 3, 4>, mode = #top.interp_mode<cubic>, cubic_coeff_a = -0.5 : f64, exclude_outside = true} : tensor<1x4x6x8xf32>, tensor<4xf32> -> tensor<1x4x3x4xf32>
  return %0 : tensor<1x4x3x4xf32>
}

// CHECK-LABEL: func.func @dynamic_slice
func.func @dynamic_slice(%x: tensor<20x10xf32>, %s: tensor<1xi64>, %e: tensor<1xi64>, %a: tensor<1xi64>, %st: tensor<1xi64>) -> tensor<3x10xf32> {
  // CHECK: top.dynamic_slice %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<20x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x10xf32>
  %0 = top.dynamic_slice %x, %s, %e, %a, %st : (tensor<20x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x10xf32>
  return %0 : tensor<3x10xf32>
}

// CHECK-LABEL: func.func @scatters_nonzero_power
func.func @scatters_nonzero_power(%x: tensor<3x5xf32>, %ids: tensor<3x2xi64>, %u: tensor<3x2xf32>, %t: tensor<4x4x4xf32>, %nd: tensor<2x1xi64>, %s: tensor<2x4x4xf32>, %c: tensor<2x3xi1>) -> (tensor<3x5xf32>, tensor<4x4x4xf32>, tensor<2x4xi64>, tensor<3x5xf32>) {
  // CHECK: top.scatter_elements {{.*}}reduction = #top.scatter_reduce<max>
  %0 = top.scatter_elements %x, %ids, %u {axis = 1 : i64, reduction = #top.scatter_reduce<max>} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
  // CHECK: top.scatter_nd
  %1 = top.scatter_nd %t, %nd, %s : (tensor<4x4x4xf32>, tensor<2x1xi64>, tensor<2x4x4xf32>) -> tensor<4x4x4xf32>
  // CHECK: top.nonzero {{.*}} -> tensor<2x4xi64>
  %2 = top.nonzero %c : tensor<2x3xi1> -> tensor<2x4xi64>
  // CHECK: top.power
  %3 = top.power %0, %x : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0, %1, %2, %3 : tensor<3x5xf32>, tensor<4x4x4xf32>, tensor<2x4xi64>, tensor<3x5xf32>
}

// CHECK-LABEL: func.func @grid_sample_nms
func.func @grid_sample_nms(%x: tensor<1x1x4x4xf32>, %g: tensor<1x6x6x2xf32>, %b: tensor<1x6x4xf32>, %sc: tensor<1x1x6xf32>, %m: tensor<1xi64>, %iou: tensor<1xf32>) -> (tensor<1x1x6x6xf32>, tensor<3x3xi64>) {
  // CHECK: top.grid_sample {{.*}}align_corners = true, mode = #top.grid_mode<cubic>, padding = #top.grid_padding<reflection>
  %0 = top.grid_sample %x, %g {mode = #top.grid_mode<cubic>, padding = #top.grid_padding<reflection>, align_corners = true} : (tensor<1x1x4x4xf32>, tensor<1x6x6x2xf32>) -> tensor<1x1x6x6xf32>
  %n = top.none : none
  // CHECK: top.non_max_suppression {{.*}}center_point_box = true
  %1 = top.non_max_suppression %b, %sc, %m, %iou, %n {center_point_box = true} : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>, none) -> tensor<3x3xi64>
  return %0, %1 : tensor<1x1x6x6xf32>, tensor<3x3xi64>
}

// CHECK-LABEL: func.func @deform_unpool
func.func @deform_unpool(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %off: tensor<1x36x4x4xf32>, %m: tensor<1x18x4x4xf32>, %b: tensor<6xf32>, %s: tensor<1x4x4x4xf32>, %i: tensor<1x4x4x4xi64>) -> (tensor<1x6x4x4xf32>, tensor<1x4x9x9xf32>) {
  // CHECK: top.deform_conv2d {{.*}}group = 2 : i64{{.*}}offset_group = 2 : i64
  %0 = top.deform_conv2d %x, %w, %off, %m, %b {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 2 : i64, offset_group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<1x36x4x4xf32>, tensor<1x18x4x4xf32>, tensor<6xf32>) -> tensor<1x6x4x4xf32>
  // CHECK: top.max_unpool {{.*}}output_shape = array<i64: 1, 4, 9, 9>
  %1 = top.max_unpool %s, %i {output_shape = array<i64: 1, 4, 9, 9>} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>) -> tensor<1x4x9x9xf32>
  return %0, %1 : tensor<1x6x4x4xf32>, tensor<1x4x9x9xf32>
}

// CHECK-LABEL: func.func @roi_pools_guard
func.func @roi_pools_guard(%x: tensor<1x2x8x8xf32>, %r: tensor<3x4xf32>, %i: tensor<3xi64>, %b: tensor<3x5xf32>, %c: tensor<f32>) -> (tensor<3x2x2x2xf32>, tensor<3x2x2x3xf32>, tensor<1x2x4x4xi64>, tensor<1x2x8x8xf32>) {
  // CHECK: top.roi_align {{.*}}mode = #top.roi_mode<max>
  %0 = top.roi_align %x, %r, %i {mode = #top.roi_mode<max>, output_height = 2 : i64, output_width = 2 : i64, sampling_ratio = 2 : i64, half_pixel = false} : (tensor<1x2x8x8xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x2x2x2xf32>
  // CHECK: top.roi_pooling {{.*}}pooled_shape = array<i64: 2, 3>
  %1 = top.roi_pooling %x, %b {pooled_shape = array<i64: 2, 3>, spatial_scale = 0.5 : f64} : (tensor<1x2x8x8xf32>, tensor<3x5xf32>) -> tensor<3x2x2x3xf32>
  // CHECK: top.maxpool_with_mask {{.*}}storage_order = true
  %y, %m = top.maxpool_with_mask %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, storage_order = true} : (tensor<1x2x8x8xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>)
  // CHECK: top.loop_guard {{.*}}exact = true, max_trips = 5
  %g = top.loop_guard %c, %x {max_trips = 5 : i64, exact = true} : (tensor<f32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %0, %1, %m, %g : tensor<3x2x2x2xf32>, tensor<3x2x2x3xf32>, tensor<1x2x4x4xi64>, tensor<1x2x8x8xf32>
}
