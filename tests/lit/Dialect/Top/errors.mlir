// Every verifier message of the Top dialect, one case each.
// RUN: tpuc-opt %s --split-input-file --verify-diagnostics

func.func @input_mean(%a: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{'mean' has 2 values; expected 1 or one per channel (3)}}
  %0 = top.input %a {mean = array<f64: 1.0, 2.0>} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  return
}
// -----
func.func @input_scale_not_4d(%a: tensor<3x4xf32>) {
  // expected-error @+1 {{'scale' has 3 values; expected 1 or one per channel (input is not 4-D)}}
  %0 = top.input %a {scale = array<f64: 1.0, 2.0, 3.0>} : tensor<3x4xf32> -> tensor<3x4xf32>
  return
}
// -----
func.func @input_nhwc(%a: tensor<1x4x4x3xf32>) {
  %0 = top.input %a {mean = array<f64: 1.0, 2.0, 3.0>, channel_format = #top.channel_format<nhwc>} : tensor<1x4x4x3xf32> -> tensor<1x4x4x3xf32>
  // expected-error @+1 {{'mean' has 3 values; expected 1 or one per channel (4)}}
  %1 = top.input %a {mean = array<f64: 1.0, 2.0, 3.0>} : tensor<1x4x4x3xf32> -> tensor<1x4x4x3xf32>
  return
}
// -----
func.func @input_resize(%a: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{'resize_dims' must be two positive sizes [h, w], got [0, 4]}}
  %0 = top.input %a {resize_dims = array<i64: 0, 4>} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  return
}
// -----
func.func @input_keep_ratio(%a: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{'keep_aspect_ratio' needs 'resize_dims'}}
  %0 = top.input %a {keep_aspect_ratio = true} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  return
}
// -----
func.func @input_shape(%a: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{result #0 has shape [1, 3, 4, 5] but the operands give [1, 3, 4, 4]}}
  %0 = top.input %a : tensor<1x3x4x4xf32> -> tensor<1x3x4x5xf32>
  return
}
// -----
func.func @weight_name() {
  // expected-error @+1 {{needs a non-empty weight name}}
  %0 = top.weight "" : tensor<2xf32>
  return
}
// -----
func.func @weight_value_type() {
  // expected-error @+1 {{inline value of type 'tensor<3xf32>' does not match the result type 'tensor<2xf32>'}}
  %0 = top.weight "w" {value = dense<1.0> : tensor<3xf32>} : tensor<2xf32>
  return
}
// -----
func.func @weight_inline_too_big() {
  // expected-error @+1 {{inline value has 257 elements; weights above 256 elements belong in the weight file}}
  %0 = top.weight "w" {value = dense<1.0> : tensor<257xf32>} : tensor<257xf32>
  return
}
// -----
func.func @dynamic_shape(%a: tensor<?x4xf32>) {
  // expected-error @+1 {{operand #0 must be static-shape tensor (or unranked before shape inference), but got 'tensor<?x4xf32>'}}
  %0 = top.relu %a : tensor<?x4xf32> -> tensor<?x4xf32>
  return
}
// -----
func.func @conv_rank(%x: tensor<1x3x4x4x4xf32>, %w: tensor<2x3x1x1x1xf32>, %n: none) {
  // expected-error @+1 {{expects a 3-D (NCW) or 4-D (NCHW) input, got [1, 3, 4, 4, 4]}}
  %0 = top.conv %x, %w, %n {kernel_shape = array<i64: 1, 1, 1>, strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>} : (tensor<1x3x4x4x4xf32>, tensor<2x3x1x1x1xf32>, none) -> tensor<1x2x4x4x4xf32>
  return
}
// -----
func.func @conv_filter_rank(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1xf32>, %n: none) {
  // expected-error @+1 {{filter [2, 3, 1] must have the input's rank 4}}
  %0 = top.conv %x, %w, %n {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<2x3x1xf32>, none) -> tensor<1x2x4x4xf32>
  return
}
// -----
func.func @conv_kernel_attr(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>, %n: none) {
  // expected-error @+1 {{'kernel_shape' has 1 values for 2 spatial axes}}
  %0 = top.conv %x, %w, %n {kernel_shape = array<i64: 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  return
}
// -----
func.func @conv_strides_attr(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>, %n: none) {
  // expected-error @+1 {{'strides' has 3 values for 2 spatial axes}}
  %0 = top.conv %x, %w, %n {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  return
}
// -----
func.func @conv_pads_attr(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>, %n: none) {
  // expected-error @+1 {{'pads' has 2 values; expected 4 (begin pads, then end pads)}}
  %0 = top.conv %x, %w, %n {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  return
}
// -----
func.func @conv_dilations_attr(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>, %n: none) {
  // expected-error @+1 {{'dilations' has 1 values for 2 spatial axes}}
  %0 = top.conv %x, %w, %n {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1>} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  return
}
// -----
func.func @conv_zero_stride(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>, %n: none) {
  // expected-error @+1 {{kernel sizes, strides and dilations must be positive}}
  %0 = top.conv %x, %w, %n {kernel_shape = array<i64: 1, 1>, strides = array<i64: 0, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  return
}
// -----
func.func @conv_negative_pad(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>, %n: none) {
  // expected-error @+1 {{pads must not be negative}}
  %0 = top.conv %x, %w, %n {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, -1, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  return
}
// -----
func.func @conv_group(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>, %n: none) {
  // expected-error @+1 {{'group' 2 must divide the input channels (3) and the output channels (2)}}
  %0 = top.conv %x, %w, %n {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  return
}
// -----
func.func @conv_in_channels(%x: tensor<1x3x4x4xf32>, %w: tensor<2x4x1x1xf32>, %n: none) {
  // expected-error @+1 {{filter [2, 4, 1, 1] expects 4 input channels, input has 3}}
  %0 = top.conv %x, %w, %n {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<2x4x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  return
}
// -----
func.func @conv_kernel_filter(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x3x3xf32>, %n: none) {
  // expected-error @+1 {{'kernel_shape' [1, 1] does not match the filter [2, 3, 3, 3]}}
  %0 = top.conv %x, %w, %n {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>, none) -> tensor<1x2x4x4xf32>
  return
}
// -----
func.func @conv_bias(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'bias' has 3 elements; expected 2}}
  %0 = top.conv %x, %w, %b {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>, tensor<3xf32>) -> tensor<1x2x4x4xf32>
  return
}
// -----
func.func @conv_kernel_too_big(%x: tensor<1x3x2x2xf32>, %w: tensor<2x3x3x3xf32>, %n: none) {
  // expected-error @+1 {{kernel does not fit spatial axis 0 (size 2 with pads)}}
  %0 = top.conv %x, %w, %n {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x2x2xf32>, tensor<2x3x3x3xf32>, none) -> tensor<1x2x1x1xf32>
  return
}
// -----
func.func @conv_result(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x3x3xf32>, %n: none) {
  // expected-error @+1 {{result #0 has shape [1, 2, 4, 4] but the operands give [1, 2, 2, 2]}}
  %0 = top.conv %x, %w, %n {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>, none) -> tensor<1x2x4x4xf32>
  return
}
// -----
func.func @deconv_output_padding(%x: tensor<1x4x2x2xf32>, %w: tensor<4x2x2x2xf32>, %n: none) {
  // expected-error @+1 {{'output_padding' has 1 values for 2 spatial axes}}
  %0 = top.deconv %x, %w, %n {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0>} : (tensor<1x4x2x2xf32>, tensor<4x2x2x2xf32>, none) -> tensor<1x2x4x4xf32>
  return
}
// -----
func.func @deconv_group(%x: tensor<1x3x2x2xf32>, %w: tensor<3x2x2x2xf32>, %n: none) {
  // expected-error @+1 {{'group' 2 must divide the input channels (3)}}
  %0 = top.deconv %x, %w, %n {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 2 : i64} : (tensor<1x3x2x2xf32>, tensor<3x2x2x2xf32>, none) -> tensor<1x4x4x4xf32>
  return
}
// -----
func.func @deconv_channels(%x: tensor<1x4x2x2xf32>, %w: tensor<3x2x2x2xf32>, %n: none) {
  // expected-error @+1 {{filter [3, 2, 2, 2] expects 3 input channels, input has 4}}
  %0 = top.deconv %x, %w, %n {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x4x2x2xf32>, tensor<3x2x2x2xf32>, none) -> tensor<1x2x4x4xf32>
  return
}
// -----
func.func @deconv_empty(%x: tensor<1x4x1x1xf32>, %w: tensor<4x2x1x1xf32>, %n: none) {
  // expected-error @+1 {{output spatial axis 0 would be empty}}
  %0 = top.deconv %x, %w, %n {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 1, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x4x1x1xf32>, tensor<4x2x1x1xf32>, none) -> tensor<1x2x1x1xf32>
  return
}
// -----
func.func @deconv_kernel(%x: tensor<1x4x2x2xf32>, %w: tensor<4x2x2x2xf32>, %n: none) {
  // expected-error @+1 {{'kernel_shape' [3, 3] does not match the filter [4, 2, 2, 2]}}
  %0 = top.deconv %x, %w, %n {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x4x2x2xf32>, tensor<4x2x2x2xf32>, none) -> tensor<1x2x5x5xf32>
  return
}
// -----
func.func @deconv_filter_rank(%x: tensor<1x4x2x2xf32>, %w: tensor<4x2x2xf32>, %n: none) {
  // expected-error @+1 {{filter [4, 2, 2] must have the input's rank 4}}
  %0 = top.deconv %x, %w, %n {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x4x2x2xf32>, tensor<4x2x2xf32>, none) -> tensor<1x2x4x4xf32>
  return
}
// -----
func.func @matmul_rank0(%a: tensor<f32>, %b: tensor<4x2xf32>, %n: none) {
  // expected-error @+1 {{operands must have rank 1 or more}}
  %0 = top.matmul %a, %b, %n : (tensor<f32>, tensor<4x2xf32>, none) -> tensor<2xf32>
  return
}
// -----
func.func @matmul_k(%a: tensor<3x4xf32>, %b: tensor<5x2xf32>, %n: none) {
  // expected-error @+1 {{contracting sizes differ: input [3, 4] gives K=4, right [5, 2] gives K=5}}
  %0 = top.matmul %a, %b, %n : (tensor<3x4xf32>, tensor<5x2xf32>, none) -> tensor<3x2xf32>
  return
}
// -----
func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x2xf32>, %n: none) {
  // expected-error @+1 {{batch axes of [2, 3, 4] and [3, 4, 2] do not broadcast}}
  %0 = top.matmul %a, %b, %n : (tensor<2x3x4xf32>, tensor<3x4x2xf32>, none) -> tensor<2x3x2xf32>
  return
}
// -----
func.func @matmul_bias(%a: tensor<3x4xf32>, %b: tensor<4x2xf32>, %c: tensor<3xf32>) {
  // expected-error @+1 {{'bias' [3] must hold 1 or N=2 elements}}
  %0 = top.matmul %a, %b, %c : (tensor<3x4xf32>, tensor<4x2xf32>, tensor<3xf32>) -> tensor<3x2xf32>
  return
}
// -----
func.func @matmul_vectors(%a: tensor<4xf32>, %b: tensor<2x4x3xf32>, %n: none) {
  // expected-error @+1 {{result #0 has shape [2, 1, 3] but the operands give [2, 3]}}
  %0 = top.matmul %a, %b, %n : (tensor<4xf32>, tensor<2x4x3xf32>, none) -> tensor<2x1x3xf32>
  return
}
// -----
func.func @a16_bits(%x: tensor<2x8xf32>, %w: tensor<4x8xi8>, %s: tensor<4x1xf32>, %n: none) {
  // expected-error @+1 {{'weight_bits' must be 4 or 8, got 2}}
  %0 = top.a16matmul %x, %w, %s, %n, %n {weight_bits = 2 : i64, q_group_size = 8 : i64} : (tensor<2x8xf32>, tensor<4x8xi8>, tensor<4x1xf32>, none, none) -> tensor<2x4xf32>
  return
}
// -----
func.func @a16_weight_rank(%x: tensor<2x8xf32>, %w: tensor<8xi8>, %s: tensor<4x1xf32>, %n: none) {
  // expected-error @+1 {{expects input [..., K] and a 2-D weight [N, K]}}
  %0 = top.a16matmul %x, %w, %s, %n, %n {weight_bits = 8 : i64, q_group_size = 8 : i64} : (tensor<2x8xf32>, tensor<8xi8>, tensor<4x1xf32>, none, none) -> tensor<2x4xf32>
  return
}
// -----
func.func @a16_packing(%x: tensor<2x8xf32>, %w: tensor<4x8xui8>, %s: tensor<4x1xf32>, %n: none) {
  // expected-error @+1 {{weight [4, 8] does not hold K=8 4-bit values per row (expected 4 columns)}}
  %0 = top.a16matmul %x, %w, %s, %n, %n {weight_bits = 4 : i64, q_group_size = 8 : i64} : (tensor<2x8xf32>, tensor<4x8xui8>, tensor<4x1xf32>, none, none) -> tensor<2x4xf32>
  return
}
// -----
func.func @a16_group(%x: tensor<2x8xf32>, %w: tensor<4x8xi8>, %s: tensor<4x1xf32>, %n: none) {
  // expected-error @+1 {{'q_group_size' 3 must be positive and divide K=8}}
  %0 = top.a16matmul %x, %w, %s, %n, %n {weight_bits = 8 : i64, q_group_size = 3 : i64} : (tensor<2x8xf32>, tensor<4x8xi8>, tensor<4x1xf32>, none, none) -> tensor<2x4xf32>
  return
}
// -----
func.func @a16_scale(%x: tensor<2x8xf32>, %w: tensor<4x8xi8>, %s: tensor<4x2xf32>, %n: none) {
  // expected-error @+1 {{'scale' [4, 2] must be [4, 1]}}
  %0 = top.a16matmul %x, %w, %s, %n, %n {weight_bits = 8 : i64, q_group_size = 8 : i64} : (tensor<2x8xf32>, tensor<4x8xi8>, tensor<4x2xf32>, none, none) -> tensor<2x4xf32>
  return
}
// -----
func.func @a16_zp_shape(%x: tensor<2x8xf32>, %w: tensor<4x8xi8>, %s: tensor<4x1xf32>, %z: tensor<4x2xf32>, %n: none) {
  // expected-error @+1 {{'zp' [4, 2] must be [4, 1]}}
  %0 = top.a16matmul %x, %w, %s, %z, %n {weight_bits = 8 : i64, q_group_size = 8 : i64, sym = false} : (tensor<2x8xf32>, tensor<4x8xi8>, tensor<4x1xf32>, tensor<4x2xf32>, none) -> tensor<2x4xf32>
  return
}
// -----
func.func @a16_bias(%x: tensor<2x8xf32>, %w: tensor<4x8xi8>, %s: tensor<4x1xf32>, %b: tensor<3xf32>, %n: none) {
  // expected-error @+1 {{'bias' has 3 elements; expected 4}}
  %0 = top.a16matmul %x, %w, %s, %n, %b {weight_bits = 8 : i64, q_group_size = 8 : i64} : (tensor<2x8xf32>, tensor<4x8xi8>, tensor<4x1xf32>, none, tensor<3xf32>) -> tensor<2x4xf32>
  return
}
// -----
func.func @a16_sym_zp(%x: tensor<2x8xf32>, %w: tensor<4x8xi8>, %s: tensor<4x1xf32>, %n: none) {
  // expected-error @+1 {{symmetric quantization takes no zero points ('zp' must be none)}}
  %0 = top.a16matmul %x, %w, %s, %s, %n {weight_bits = 8 : i64, q_group_size = 8 : i64} : (tensor<2x8xf32>, tensor<4x8xi8>, tensor<4x1xf32>, tensor<4x1xf32>, none) -> tensor<2x4xf32>
  return
}
// -----
func.func @a16_asym_zp(%x: tensor<2x8xf32>, %w: tensor<4x8xi8>, %s: tensor<4x1xf32>, %n: none) {
  // expected-error @+1 {{asymmetric quantization needs zero points ('zp')}}
  %0 = top.a16matmul %x, %w, %s, %n, %n {weight_bits = 8 : i64, q_group_size = 8 : i64, sym = false} : (tensor<2x8xf32>, tensor<4x8xi8>, tensor<4x1xf32>, none, none) -> tensor<2x4xf32>
  return
}
// -----
func.func @pool_window(%x: tensor<1x2x2x2xf32>) {
  // expected-error @+1 {{window 3 exceeds spatial axis 0 (size 2 with pads)}}
  %0 = top.maxpool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x2x2x2xf32> -> tensor<1x2x1x1xf32>
  return
}
// -----
func.func @pool_ceil(%x: tensor<1x2x5x5xf32>) {
  // ceil((5 - 2) / 2) + 1 = 3 windows
  %0 = top.avgpool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = true} : tensor<1x2x5x5xf32> -> tensor<1x2x3x3xf32>
  // expected-error @+1 {{result #0 has shape [1, 2, 3, 3] but the operands give [1, 2, 2, 2]}}
  %1 = top.avgpool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x2x5x5xf32> -> tensor<1x2x3x3xf32>
  return
}
// -----
func.func @adaptive_size(%x: tensor<1x2x5x5xf32>) {
  // expected-error @+1 {{'output_size' has 1 values for 2 spatial axes}}
  %0 = top.adaptive_avgpool %x {output_size = array<i64: 1>} : tensor<1x2x5x5xf32> -> tensor<1x2x1x1xf32>
  return
}
// -----
func.func @adaptive_positive(%x: tensor<1x2x5x5xf32>) {
  // expected-error @+1 {{'output_size' values must be positive}}
  %0 = top.adaptive_avgpool %x {output_size = array<i64: 0, 1>} : tensor<1x2x5x5xf32> -> tensor<1x2x0x1xf32>
  return
}
// -----
func.func @batchnorm_rank(%x: tensor<4xf32>, %m: tensor<4xf32>, %n: none) {
  // expected-error @+1 {{expects an input of rank 2 or more, got [4]}}
  %0 = top.batchnorm %x, %m, %m, %n, %n : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, none, none) -> tensor<4xf32>
  return
}
// -----
func.func @batchnorm_mean(%x: tensor<1x4x2x2xf32>, %m: tensor<3xf32>, %v: tensor<4xf32>, %n: none) {
  // expected-error @+1 {{'mean' has 3 elements; expected 4}}
  %0 = top.batchnorm %x, %m, %v, %n, %n : (tensor<1x4x2x2xf32>, tensor<3xf32>, tensor<4xf32>, none, none) -> tensor<1x4x2x2xf32>
  return
}
// -----
func.func @layernorm_axis(%x: tensor<2x4xf32>, %n: none) {
  // expected-error @+1 {{'axis' 2 is out of range for rank 2}}
  %0 = top.layernorm %x, %n, %n {axis = 2 : i64} : (tensor<2x4xf32>, none, none) -> tensor<2x4xf32>
  return
}
// -----
func.func @layernorm_weight(%x: tensor<2x4xf32>, %w: tensor<8xf32>, %n: none) {
  // expected-error @+1 {{'weight' has 8 elements; expected 4}}
  %0 = top.layernorm %x, %w, %n {axis = -1 : i64} : (tensor<2x4xf32>, tensor<8xf32>, none) -> tensor<2x4xf32>
  return
}
// -----
func.func @rmsnorm_rank(%x: tensor<f32>, %n: none) {
  // expected-error @+1 {{expects an input of rank 1 or more}}
  %0 = top.rmsnorm %x, %n : (tensor<f32>, none) -> tensor<f32>
  return
}
// -----
func.func @rmsnorm_gamma(%x: tensor<2x4xf32>, %g: tensor<2xf32>) {
  // expected-error @+1 {{'gamma' has 2 elements; expected 4}}
  %0 = top.rmsnorm %x, %g : (tensor<2x4xf32>, tensor<2xf32>) -> tensor<2x4xf32>
  return
}
// -----
func.func @groupnorm_rank(%x: tensor<4xf32>, %n: none) {
  // expected-error @+1 {{expects an input of rank 2 or more, got [4]}}
  %0 = top.groupnorm %x, %n, %n {num_groups = 2 : i64} : (tensor<4xf32>, none, none) -> tensor<4xf32>
  return
}
// -----
func.func @groupnorm_groups(%x: tensor<1x6x2x2xf32>, %n: none) {
  // expected-error @+1 {{'num_groups' 4 must divide the channels (6)}}
  %0 = top.groupnorm %x, %n, %n {num_groups = 4 : i64} : (tensor<1x6x2x2xf32>, none, none) -> tensor<1x6x2x2xf32>
  return
}
// -----
func.func @instancenorm_rank(%x: tensor<2x4xf32>, %n: none) {
  // expected-error @+1 {{expects an input of rank 3 or more, got [2, 4]}}
  %0 = top.instancenorm %x, %n, %n : (tensor<2x4xf32>, none, none) -> tensor<2x4xf32>
  return
}
// -----
func.func @softmax_axis(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'axis' -3 is out of range for rank 2}}
  %0 = top.softmax %x {axis = -3 : i64} : tensor<2x4xf32> -> tensor<2x4xf32>
  return
}
// -----
func.func @rope_rank(%x: tensor<16x8xf32>, %c: tensor<16x8xf32>) {
  // expected-error @+1 {{expects input [B, L, H, D], got [16, 8]}}
  %0 = top.rope %x, %c, %c : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  return
}
// -----
func.func @rope_odd(%x: tensor<1x16x2x7xf32>, %c: tensor<16x7xf32>) {
  // expected-error @+1 {{head size 7 must be even}}
  %0 = top.rope %x, %c, %c : (tensor<1x16x2x7xf32>, tensor<16x7xf32>, tensor<16x7xf32>) -> tensor<1x16x2x7xf32>
  return
}
// -----
func.func @rope_tables_differ(%x: tensor<1x16x2x8xf32>, %c: tensor<16x8xf32>, %s: tensor<1x16x8xf32>) {
  // expected-error @+1 {{'cos' [16, 8] and 'sin' [1, 16, 8] differ}}
  %0 = top.rope %x, %c, %s : (tensor<1x16x2x8xf32>, tensor<16x8xf32>, tensor<1x16x8xf32>) -> tensor<1x16x2x8xf32>
  return
}
// -----
func.func @rope_tables(%x: tensor<1x16x2x8xf32>, %c: tensor<8x8xf32>) {
  // expected-error @+1 {{'cos'/'sin' [8, 8] must be [L, D] or [B, L, D] = [16, 8]}}
  %0 = top.rope %x, %c, %c : (tensor<1x16x2x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<1x16x2x8xf32>
  return
}
// -----
func.func @attention_rank(%q: tensor<16x8xf32>, %n: none) {
  // expected-error @+1 {{expects 4-D query, key and value [B, L, H, D]}}
  %0 = top.attention %q, %q, %q, %n {scale = 1.0 : f64} : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, none) -> tensor<16x8xf32>
  return
}
// -----
func.func @attention_kv(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf32>, %v: tensor<1x5x2x8xf32>, %n: none) {
  // expected-error @+1 {{key [1, 4, 2, 8] and value [1, 5, 2, 8] differ}}
  %0 = top.attention %q, %k, %v, %n {scale = 1.0 : f64} : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x5x2x8xf32>, none) -> tensor<1x4x2x8xf32>
  return
}
// -----
func.func @attention_head_size(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x4xf32>, %n: none) {
  // expected-error @+1 {{query [1, 4, 2, 8] and key [1, 4, 2, 4] disagree on batch or head size}}
  %0 = top.attention %q, %k, %k, %n {scale = 1.0 : f64} : (tensor<1x4x2x8xf32>, tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>, none) -> tensor<1x4x2x8xf32>
  return
}
// -----
func.func @attention_gqa(%q: tensor<1x4x3x8xf32>, %k: tensor<1x4x2x8xf32>, %n: none) {
  // expected-error @+1 {{query heads (3) must be a multiple of key/value heads (2)}}
  %0 = top.attention %q, %k, %k, %n {scale = 1.0 : f64} : (tensor<1x4x3x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, none) -> tensor<1x4x3x8xf32>
  return
}
// -----
func.func @attention_mask(%q: tensor<1x4x2x8xf32>, %m: tensor<1x1x4x5xf32>) {
  // expected-error @+1 {{'mask' [1, 1, 4, 5] does not broadcast to the scores [1, 1, 4, 4]}}
  %0 = top.attention %q, %q, %q, %m {scale = 1.0 : f64} : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x1x4x5xf32>) -> tensor<1x4x2x8xf32>
  return
}
// -----
func.func @binary_broadcast(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{operand shapes [2, 3] and [2] do not broadcast}}
  %0 = top.add %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}
// -----
func.func @clip_range(%a: tensor<2xf32>) {
  // expected-error @+1 {{'min' (2.000000e+00) exceeds 'max' (1.000000e+00)}}
  %0 = top.clip %a {min = 2.0 : f64, max = 1.0 : f64} : tensor<2xf32> -> tensor<2xf32>
  return
}
// -----
func.func @unary_shape(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has shape [3] but the operands give [2]}}
  %0 = top.sigmoid %a : tensor<2xf32> -> tensor<3xf32>
  return
}
// -----
func.func @reshape_count(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)}}
  %0 = top.reshape %a : tensor<2x3xf32> -> tensor<4x2xf32>
  return
}
// -----
func.func @squeeze_axis(%a: tensor<1x3xf32>) {
  // expected-error @+1 {{'axes' 2 is out of range for rank 2}}
  %0 = top.squeeze %a {axes = array<i64: 2>} : tensor<1x3xf32> -> tensor<1x3xf32>
  return
}
// -----
func.func @squeeze_size(%a: tensor<1x3xf32>) {
  // expected-error @+1 {{cannot squeeze axis 1 of size 3}}
  %0 = top.squeeze %a {axes = array<i64: 1>} : tensor<1x3xf32> -> tensor<1xf32>
  return
}
// -----
func.func @unsqueeze_twice(%a: tensor<3xf32>) {
  // expected-error @+1 {{'axes' lists axis -3 twice}}
  %0 = top.unsqueeze %a {axes = array<i64: 0, -3>} : tensor<3xf32> -> tensor<1x1x3xf32>
  return
}
// -----
func.func @permute_size(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'order' has 3 values for rank 2}}
  %0 = top.permute %a {order = array<i64: 0, 1, 2>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}
// -----
func.func @permute_not_permutation(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'order' [1, 1] is not a permutation of 0..1}}
  %0 = top.permute %a {order = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<3x3xf32>
  return
}
// -----
func.func @concat_empty() {
  // expected-error @+1 {{needs at least one input}}
  %0 = top.concat {axis = 0 : i64} : () -> tensor<2xf32>
  return
}
// -----
func.func @concat_mismatch(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+1 {{input #1 [3, 3] does not match input #0 [2, 3] outside axis 1}}
  %0 = top.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return
}
// -----
func.func @slice_attrs(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{'offset', 'steps' and 'ends' need one value per axis (2)}}
  %0 = top.slice %a {offset = array<i64: 0>, steps = array<i64: 1, 1>, ends = array<i64: 4, 4>} : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}
// -----
func.func @slice_step(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{'steps' must not be 0 (axis 1)}}
  %0 = top.slice %a {offset = array<i64: 0, 0>, steps = array<i64: 1, 0>, ends = array<i64: 4, 4>} : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}
// -----
func.func @slice_range(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{slice [0:5:1] is out of range on axis 0 of size 4}}
  %0 = top.slice %a {offset = array<i64: 0, 0>, steps = array<i64: 1, 1>, ends = array<i64: 5, 4>} : tensor<4x4xf32> -> tensor<5x4xf32>
  return
}
// -----
func.func @split_count(%a: tensor<4xf32>) {
  // expected-error @+1 {{'split_size' has 1 values for 2 results}}
  %0:2 = top.split %a {axis = 0 : i64, split_size = array<i64: 4>} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<0xf32>)
  return
}
// -----
func.func @split_negative(%a: tensor<4xf32>) {
  // expected-error @+1 {{'split_size' values must not be negative}}
  %0:2 = top.split %a {axis = 0 : i64, split_size = array<i64: 5, -1>} : (tensor<4xf32>) -> (tensor<5xf32>, tensor<1xf32>)
  return
}
// -----
func.func @split_sum(%a: tensor<4xf32>) {
  // expected-error @+1 {{'split_size' adds up to 3 but axis 0 has size 4}}
  %0:2 = top.split %a {axis = 0 : i64, split_size = array<i64: 1, 2>} : (tensor<4xf32>) -> (tensor<1xf32>, tensor<2xf32>)
  return
}
// -----
func.func @gather_axis(%a: tensor<4xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'axis' 1 is out of range for rank 1}}
  %0 = top.gather %a, %i {axis = 1 : i64} : (tensor<4xf32>, tensor<2xi64>) -> tensor<2xf32>
  return
}
// -----
func.func @pad_count(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{'paddings' has 2 values; expected 4 (begin pads, then end pads)}}
  %0 = top.pad %a {paddings = array<i64: 1, 1>} : tensor<4x4xf32> -> tensor<6x4xf32>
  return
}
// -----
func.func @pad_negative(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{negative pads remove more than axis 0 holds}}
  %0 = top.pad %a {paddings = array<i64: -3, 0, -3, 0>} : tensor<4x4xf32> -> tensor<0x4xf32>
  return
}
// -----
func.func @pad_reflect(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{reflect pads on axis 1 must be smaller than its size 4}}
  %0 = top.pad %a {paddings = array<i64: 0, 4, 0, 0>, pad_mode = #top.pad_mode<reflect>} : tensor<4x4xf32> -> tensor<4x8xf32>
  return
}
// -----
func.func @reduce_axes(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{'axes' lists axis -1 twice}}
  %0 = top.reduce %a {axes = array<i64: 1, -1>, mode = #top.reduce_mode<sum>} : tensor<4x4xf32> -> tensor<4x1xf32>
  return
}
// -----
func.func @reduce_range(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{'axes' 2 is out of range for rank 2}}
  %0 = top.reduce %a {axes = array<i64: 2>, mode = #top.reduce_mode<max>} : tensor<4x4xf32> -> tensor<4x1xf32>
  return
}
// -----
func.func @interp_rank(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{expects a 3-D (NCW) or 4-D (NCHW) input, got [4, 4]}}
  %0 = top.interp %a {target_shape = array<i64: 8>, mode = #top.interp_mode<nearest>} : tensor<4x4xf32> -> tensor<4x8xf32>
  return
}
// -----
func.func @interp_target(%a: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'target_shape' has 1 values for 2 spatial axes}}
  %0 = top.interp %a {target_shape = array<i64: 8>, mode = #top.interp_mode<nearest>} : tensor<1x1x4x4xf32> -> tensor<1x1x8x8xf32>
  return
}
// -----
func.func @interp_positive(%a: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'target_shape' values must be positive}}
  %0 = top.interp %a {target_shape = array<i64: 8, 0>, mode = #top.interp_mode<nearest>} : tensor<1x1x4x4xf32> -> tensor<1x1x8x0xf32>
  return
}
// -----
func.func @d2s_rank(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{expects a 4-D NCHW input, got [4, 4]}}
  %0 = top.depth2space %a {block_h = 2 : i64, block_w = 2 : i64} : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}
// -----
func.func @d2s_block(%a: tensor<1x4x2x2xf32>) {
  // expected-error @+1 {{block sizes must be positive}}
  %0 = top.depth2space %a {block_h = 0 : i64, block_w = 2 : i64} : tensor<1x4x2x2xf32> -> tensor<1x4x2x2xf32>
  return
}
// -----
func.func @d2s_channels(%a: tensor<1x6x2x2xf32>) {
  // expected-error @+1 {{channels (6) must be a multiple of block_h * block_w (4)}}
  %0 = top.depth2space %a {block_h = 2 : i64, block_w = 2 : i64} : tensor<1x6x2x2xf32> -> tensor<1x1x4x4xf32>
  return
}
// -----
func.func @s2d_spatial(%a: tensor<1x1x3x4xf32>) {
  // expected-error @+1 {{spatial size 3x4 must be a multiple of the block 2x2}}
  %0 = top.depth2space %a {block_h = 2 : i64, block_w = 2 : i64, is_inversed = true} : tensor<1x1x3x4xf32> -> tensor<1x4x1x2xf32>
  return
}
// -----
func.func @topk_k(%a: tensor<2x4xf32>) {
  // expected-error @+1 {{'k' 5 must lie in [1, 4]}}
  %0:2 = top.topk %a {axis = 1 : i64, k = 5 : i64} : (tensor<2x4xf32>) -> (tensor<2x5xf32>, tensor<2x5xi64>)
  return
}
// -----
func.func @arange_delta() {
  // expected-error @+1 {{'delta' must not be 0}}
  %0 = top.arange {start = 0.0 : f64, limit = 4.0 : f64, delta = 0.0 : f64} : () -> tensor<4xf32>
  return
}
// -----
func.func @where_broadcast(%c: tensor<2xi1>, %a: tensor<3xf32>) {
  // expected-error @+1 {{operand shapes [2] and [3] do not broadcast}}
  %0 = top.where %c, %a, %a : (tensor<2xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}
// -----
func.func @gather_elements_rank(%a: tensor<4x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'indices' has rank 1 but 'input' has rank 2}}
  %0 = top.gather_elements %a, %i {axis = 0 : i64} : (tensor<4x3xf32>, tensor<2xi64>) -> tensor<2xf32>
  return
}
// -----
func.func @gather_elements_axis(%a: tensor<4x3xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+1 {{'axis' 2 is out of range for rank 2}}
  %0 = top.gather_elements %a, %i {axis = 2 : i64} : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return
}
// -----
func.func @cumsum_axis(%a: tensor<4x3xf32>) {
  // expected-error @+1 {{'axis' -3 is out of range for rank 2}}
  %0 = top.cumsum %a {axis = -3 : i64} : tensor<4x3xf32> -> tensor<4x3xf32>
  return
}
// -----
func.func @interp_scales(%a: tensor<1x2x4x4xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'scales' must hold one value per input axis (4)}}
  %0 = top.interp %a scales %s {target_shape = array<i64: 8, 8>, mode = #top.interp_mode<linear>} : tensor<1x2x4x4xf32>, tensor<2xf32> -> tensor<1x2x8x8xf32>
  return
}
// -----
func.func @interp_scales_float(%a: tensor<1x2x4x4xf32>, %s: tensor<4xi64>) {
  // expected-error @+1 {{'scales' must be floating-point}}
  %0 = top.interp %a scales %s {target_shape = array<i64: 8, 8>, mode = #top.interp_mode<linear>} : tensor<1x2x4x4xf32>, tensor<4xi64> -> tensor<1x2x8x8xf32>
  return
}
// -----
func.func @dynamic_slice_bounds(%x: tensor<20x10xf32>, %s: tensor<1xf32>, %i: tensor<1xi64>) {
  // expected-error @+1 {{'starts' must be a 1-D integer tensor}}
  %0 = top.dynamic_slice %x, %s, %i, %i, %i : (tensor<20x10xf32>, tensor<1xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x10xf32>
  return
}
// -----
func.func @dynamic_slice_lengths(%x: tensor<20x10xf32>, %i: tensor<1xi64>, %j: tensor<2xi64>) {
  // expected-error @+1 {{'starts', 'ends', 'axes' and 'steps' must have one length}}
  %0 = top.dynamic_slice %x, %i, %j, %i, %i : (tensor<20x10xf32>, tensor<1xi64>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x10xf32>
  return
}
// -----
func.func @dynamic_slice_axes(%x: tensor<20xf32>, %j: tensor<2xi64>) {
  // expected-error @+1 {{slices 2 axes of a rank-1 input}}
  %0 = top.dynamic_slice %x, %j, %j, %j, %j : (tensor<20xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<3xf32>
  return
}
// -----
func.func @interp_nearest_mode(%a: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{'nearest_mode' is only valid with nearest interpolation}}
  %0 = top.interp %a {target_shape = array<i64: 8, 8>, mode = #top.interp_mode<linear>, nearest_mode = #top.nearest_mode<ceil>} : tensor<1x2x4x4xf32> -> tensor<1x2x8x8xf32>
  return
}
// -----
func.func @scatter_elements_rank(%a: tensor<4x3xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{'indices' has rank 1 but 'input' has rank 2}}
  %0 = top.scatter_elements %a, %i, %u {axis = 0 : i64} : (tensor<4x3xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}
// -----
func.func @scatter_elements_updates(%a: tensor<4x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2x2xf32>) {
  // expected-error @+1 {{'updates' [2, 2] must have the shape of 'indices' [2, 3]}}
  %0 = top.scatter_elements %a, %i, %u {axis = 0 : i64} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2x2xf32>) -> tensor<4x3xf32>
  return
}
// -----
func.func @scatter_nd_tuple(%a: tensor<4x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{'indices' [2, 3] must end in a tuple size from 1 to the input's rank 2}}
  %0 = top.scatter_nd %a, %i, %u : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}
// -----
func.func @scatter_nd_updates(%a: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x2xf32>) {
  // expected-error @+1 {{'updates' [2, 2] must be [2, 3]}}
  %0 = top.scatter_nd %a, %i, %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x2xf32>) -> tensor<4x3xf32>
  return
}
// -----
func.func @nonzero_rank(%a: tensor<4x3xf32>) {
  // expected-error @+1 {{needs a static result type of rank 2 (its extent depends on the data)}}
  %0 = top.nonzero %a : tensor<4x3xf32> -> tensor<5xi64>
  return
}
// -----
func.func @nonzero_rows(%a: tensor<4x3xf32>) {
  // expected-error @+1 {{result [3, 5] does not match the operands}}
  %0 = top.nonzero %a : tensor<4x3xf32> -> tensor<3x5xi64>
  return
}
// -----
func.func @grid_sample_grid(%a: tensor<1x2x4x4xf32>, %g: tensor<1x3x3x3xf32>) {
  // expected-error @+1 {{expects an NCHW input and an N x H x W x 2 grid, got [1, 2, 4, 4] and [1, 3, 3, 3]}}
  %0 = top.grid_sample %a, %g : (tensor<1x2x4x4xf32>, tensor<1x3x3x3xf32>) -> tensor<1x2x3x3xf32>
  return
}
// -----
func.func @nms_shapes(%b: tensor<1x6x4xf32>, %s: tensor<1x1x5xf32>) {
  %n = top.none : none
  // expected-error @+1 {{expects boxes [B, N, 4] and scores [B, C, N], got [1, 6, 4] and [1, 1, 5]}}
  %0 = top.non_max_suppression %b, %s, %n, %n, %n : (tensor<1x6x4xf32>, tensor<1x1x5xf32>, none, none, none) -> tensor<3x3xi64>
  return
}
// -----
func.func @unique_count(%a: tensor<4x3xf32>) {
  // expected-error @+1 {{declares 5 distinct values of 4}}
  %y, %f, %i, %c = top.unique %a {axis = 0 : i64} : (tensor<4x3xf32>) -> (tensor<5x3xf32>, tensor<5xi64>, tensor<4xi64>, tensor<5xi64>)
  return
}
// -----
func.func @unique_inverse(%a: tensor<6xf32>) {
  // expected-error @+1 {{index results must be 1-D: [4], [6], [4]}}
  %y, %f, %i, %c = top.unique %a : (tensor<6xf32>) -> (tensor<4xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>)
  return
}
// -----
func.func @maxpool_with_mask_rank(%a: tensor<1x2x8xf32>) {
  // expected-error @+1 {{expects an NCHW input, got [1, 2, 8]}}
  %y, %m = top.maxpool_with_mask %a {kernel_shape = array<i64: 2>, strides = array<i64: 2>, pads = array<i64: 0, 0>} : (tensor<1x2x8xf32>) -> (tensor<1x2x4xf32>, tensor<1x2x4xi64>)
  return
}
// -----
func.func @roi_align_rois(%x: tensor<1x2x8x8xf32>, %r: tensor<3x5xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{expects an NCHW input, rois [R, 4] and batch_indices [R], got [1, 2, 8, 8], [3, 5] and [3]}}
  %0 = top.roi_align %x, %r, %i {output_height = 2 : i64, output_width = 2 : i64} : (tensor<1x2x8x8xf32>, tensor<3x5xf32>, tensor<3xi64>) -> tensor<3x2x2x2xf32>
  return
}
// -----
func.func @roi_align_size(%x: tensor<1x2x8x8xf32>, %r: tensor<3x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{needs a positive output size and a sampling ratio of at least 0}}
  %0 = top.roi_align %x, %r, %i {output_height = 0 : i64, output_width = 2 : i64} : (tensor<1x2x8x8xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x2x0x2xf32>
  return
}
// -----
func.func @roi_pooling_rois(%x: tensor<1x2x8x8xf32>, %r: tensor<3x4xf32>) {
  // expected-error @+1 {{expects an NCHW input and rois [R, 5], got [1, 2, 8, 8] and [3, 4]}}
  %0 = top.roi_pooling %x, %r {pooled_shape = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>, tensor<3x4xf32>) -> tensor<3x2x2x2xf32>
  return
}
// -----
func.func @roi_pooling_shape(%x: tensor<1x2x8x8xf32>, %r: tensor<3x5xf32>) {
  // expected-error @+1 {{'pooled_shape' must be two positive sizes}}
  %0 = top.roi_pooling %x, %r {pooled_shape = array<i64: 2>} : (tensor<1x2x8x8xf32>, tensor<3x5xf32>) -> tensor<3x2x2x2xf32>
  return
}
// -----
func.func @max_unpool_indices(%x: tensor<1x2x4x4xf32>, %i: tensor<1x2x4x3xi64>) {
  // expected-error @+1 {{expects an NCHW input and indices of its shape, got [1, 2, 4, 4] and [1, 2, 4, 3]}}
  %0 = top.max_unpool %x, %i {output_shape = array<i64: 1, 2, 8, 8>} : (tensor<1x2x4x4xf32>, tensor<1x2x4x3xi64>) -> tensor<1x2x8x8xf32>
  return
}
// -----
func.func @max_unpool_shape(%x: tensor<1x2x4x4xf32>, %i: tensor<1x2x4x4xi64>) {
  // expected-error @+1 {{'output_shape' [1, 3, 8, 8] must keep the input's N and C ([1, 2, 4, 4]) with positive H and W}}
  %0 = top.max_unpool %x, %i {output_shape = array<i64: 1, 3, 8, 8>} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>) -> tensor<1x3x8x8xf32>
  return
}
// -----
func.func @max_unpool_indexed(%x: tensor<1x2x4x4xf32>, %i: tensor<1x2x4x4xi64>) {
  // expected-error @+1 {{'indexed_shape' [1, 2, 9, 8] must keep N and C and fit in 'output_shape' [1, 2, 8, 8]}}
  %0 = top.max_unpool %x, %i {output_shape = array<i64: 1, 2, 8, 8>, indexed_shape = array<i64: 1, 2, 9, 8>} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>) -> tensor<1x2x8x8xf32>
  return
}
// -----
func.func @deform_conv_rank(%x: tensor<4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %off: tensor<1x18x8x8xf32>, %n: none) {
  // expected-error @+1 {{expects an NCHW input and an OIHW filter, got [4, 8, 8] and [6, 4, 3, 3]}}
  %0 = top.deform_conv2d %x, %w, %off, %n, %n {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<1x18x8x8xf32>, none, none) -> tensor<1x6x8x8xf32>
  return
}
// -----
func.func @deform_conv_group(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %off: tensor<1x18x8x8xf32>, %n: none) {
  // expected-error @+1 {{'group' 3 with filter [6, 4, 3, 3] does not divide the input channels (4) and output channels}}
  %0 = top.deform_conv2d %x, %w, %off, %n, %n {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 3 : i64} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<1x18x8x8xf32>, none, none) -> tensor<1x6x8x8xf32>
  return
}
// -----
func.func @deform_conv_offset(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %off: tensor<1x9x8x8xf32>, %n: none) {
  // expected-error @+1 {{'offset' must be [1, 18, 8, 8], got [1, 9, 8, 8]}}
  %0 = top.deform_conv2d %x, %w, %off, %n, %n {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<1x9x8x8xf32>, none, none) -> tensor<1x6x8x8xf32>
  return
}
// -----
func.func @deform_conv_offset_group(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %off: tensor<1x54x8x8xf32>, %n: none) {
  // expected-error @+1 {{'offset_group' 3 must divide the input channels (4)}}
  %0 = top.deform_conv2d %x, %w, %off, %n, %n {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, offset_group = 3 : i64} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<1x54x8x8xf32>, none, none) -> tensor<1x6x8x8xf32>
  return
}
// -----
func.func @deform_conv_mask(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %off: tensor<1x18x8x8xf32>, %m: tensor<1x18x8x8xf32>, %n: none) {
  // expected-error @+1 {{'mask' must be [1, 9, 8, 8], got [1, 18, 8, 8]}}
  %0 = top.deform_conv2d %x, %w, %off, %m, %n {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<1x18x8x8xf32>, tensor<1x18x8x8xf32>, none) -> tensor<1x6x8x8xf32>
  return
}
// -----
func.func @loop_guard_count(%c: tensor<2xf32>, %x: tensor<1x4xf32>) {
  // expected-error @+1 {{'count' must hold one value, got [2]}}
  %0 = top.loop_guard %c, %x {max_trips = 4 : i64} : (tensor<2xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return
}
// -----
func.func @loop_guard_trips(%c: tensor<1xf32>, %x: tensor<1x4xf32>) {
  // expected-error @+1 {{'max_trips' must be positive}}
  %0 = top.loop_guard %c, %x {max_trips = 0 : i64} : (tensor<1xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return
}
