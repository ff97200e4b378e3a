// Every verifier message of the Tpu dialect, one case each.
// RUN: tpuc-opt %s --split-input-file --verify-diagnostics

!q = !quant.uniform<i8:f32, 0.1>
func.func @conv_rank(%x: tensor<3x8x8xf32>, %w: tensor<2x3x3x3xf32>, %n: none) {
  // expected-error @+1 {{expects a 4-D NCHW input}}
  %0 = tpu.conv2d %x, %w, %n {precision = #top.precision<F32>, kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<3x8x8xf32>, tensor<2x3x3x3xf32>, none) -> tensor<2x8x8xf32>
  return
}
// -----
func.func @conv_attrs(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>, %n: none) {
  // expected-error @+1 {{expects 2 kernel sizes, strides and dilations and 4 pads}}
  %0 = tpu.conv2d %x, %w, %n {precision = #top.precision<F32>, kernel_shape = array<i64: 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>, none) -> tensor<1x2x8x8xf32>
  return
}
// -----
func.func @result_precision(%x: tensor<4xf32>) {
  // expected-error @+1 {{result #0 has element type 'f16' but precision F32 needs f32}}
  %0 = tpu.relu %x {precision = #top.precision<F32>} : (tensor<4xf32>) -> tensor<4xf16>
  return
}
// -----
func.func @input_precision(%x: tensor<4xf32>) {
  // expected-error @+1 {{input of element type 'f32' does not match precision BF16 (insert a tpu.cast)}}
  %0 = tpu.relu %x {precision = #top.precision<BF16>} : (tensor<4xf32>) -> tensor<4xbf16>
  return
}
// -----
func.func @int8_type(%x: tensor<4xi8>) {
  // expected-error @+1 {{result #0 has element type 'i8' but precision INT8 needs an 8-bit !quant.uniform type}}
  %0 = tpu.relu %x {precision = #top.precision<INT8>} : (tensor<4xi8>) -> tensor<4xi8>
  return
}
// -----
func.func @weight_only_elsewhere(%x: tensor<4xf16>) {
  // expected-error @+1 {{precision W4F16 is only for weight-only matmuls}}
  %0 = tpu.relu %x {precision = #top.precision<W4F16>} : (tensor<4xf16>) -> tensor<4xf16>
  return
}
// -----
!q = !quant.uniform<i8:f32, 0.1>
func.func @requant_missing(%x: tensor<1x3x4x4x!q>, %w: tensor<2x3x1x1xi8>, %n: none) {
  // expected-error @+1 {{INT8 needs 'multiplier' and 'rshift'}}
  %0 = tpu.conv2d %x, %w, %n {precision = #top.precision<INT8>, kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x4x4x!q>, tensor<2x3x1x1xi8>, none) -> tensor<1x2x4x4x!q>
  return
}
// -----
!q = !quant.uniform<i8:f32, 0.1>
func.func @requant_sizes(%x: tensor<1x3x4x4x!q>, %w: tensor<2x3x1x1xi8>, %n: none) {
  // expected-error @+1 {{'multiplier' has 2 values but 'rshift' has 1}}
  %0 = tpu.conv2d %x, %w, %n {precision = #top.precision<INT8>, kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, multiplier = array<i64: 1, 2>, rshift = array<i64: 1>} : (tensor<1x3x4x4x!q>, tensor<2x3x1x1xi8>, none) -> tensor<1x2x4x4x!q>
  return
}
// -----
!q = !quant.uniform<i8:f32, 0.1>
func.func @requant_channels(%x: tensor<1x3x4x4x!q>, %w: tensor<2x3x1x1xi8>, %n: none) {
  // expected-error @+1 {{'multiplier' needs 1 or 2 values (one per channel), got 3}}
  %0 = tpu.conv2d %x, %w, %n {precision = #top.precision<INT8>, kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, multiplier = array<i64: 1, 2, 3>, rshift = array<i64: 1, 1, 1>} : (tensor<1x3x4x4x!q>, tensor<2x3x1x1xi8>, none) -> tensor<1x2x4x4x!q>
  return
}
// -----
!q = !quant.uniform<i8:f32, 0.1>
func.func @requant_shift(%x: tensor<1x3x4x4x!q>, %w: tensor<2x3x1x1xi8>, %n: none) {
  // expected-error @+1 {{'rshift' values must lie in [0, 63], got 64}}
  %0 = tpu.conv2d %x, %w, %n {precision = #top.precision<INT8>, kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, multiplier = array<i64: 1>, rshift = array<i64: 64>} : (tensor<1x3x4x4x!q>, tensor<2x3x1x1xi8>, none) -> tensor<1x2x4x4x!q>
  return
}
// -----
func.func @requant_on_float(%x: tensor<2x4xf32>, %w: tensor<4x2xf32>, %n: none) {
  // expected-error @+1 {{'multiplier' and 'rshift' belong to INT8 ops only}}
  %0 = tpu.matmul %x, %w, %n {precision = #top.precision<F32>, multiplier = array<i64: 1>, rshift = array<i64: 0>} : (tensor<2x4xf32>, tensor<4x2xf32>, none) -> tensor<2x2xf32>
  return
}
// -----
func.func @a16_precision(%x: tensor<2x64xf16>, %q: tensor<4x64xi8>, %s: tensor<4x1xf16>, %n: none) {
  // expected-error @+1 {{precision must be W8F16, W8BF16, W4F16 or W4BF16, got F16}}
  %0 = tpu.a16matmul %x, %q, %s, %n, %n {precision = #top.precision<F16>, weight_bits = 8 : i64, q_group_size = 64 : i64} : (tensor<2x64xf16>, tensor<4x64xi8>, tensor<4x1xf16>, none, none) -> tensor<2x4xf16>
  return
}
// -----
func.func @a16_bits(%x: tensor<2x64xf16>, %q: tensor<4x64xi8>, %s: tensor<4x1xf16>, %n: none) {
  // expected-error @+1 {{'weight_bits' 8 contradicts precision W4F16}}
  %0 = tpu.a16matmul %x, %q, %s, %n, %n {precision = #top.precision<W4F16>, weight_bits = 8 : i64, q_group_size = 64 : i64} : (tensor<2x64xf16>, tensor<4x64xi8>, tensor<4x1xf16>, none, none) -> tensor<2x4xf16>
  return
}
// -----
!q = !quant.uniform<i8:f32, 0.1>
func.func @add_int8(%x: tensor<4x!q>) {
  // expected-error @+1 {{INT8 needs two multipliers (one per input) and one rshift}}
  %0 = tpu.add %x, %x {precision = #top.precision<INT8>, multiplier = array<i64: 1>, rshift = array<i64: 0>} : (tensor<4x!q>, tensor<4x!q>) -> tensor<4x!q>
  return
}
// -----
func.func @add_float_requant(%x: tensor<4xf32>) {
  // expected-error @+1 {{'multiplier' and 'rshift' belong to INT8 ops only}}
  %0 = tpu.add %x, %x {precision = #top.precision<F32>, multiplier = array<i64: 1, 1>, rshift = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}
// -----
func.func @pool_rank(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{expects a 4-D NCHW input}}
  %0 = tpu.pool2d %x {precision = #top.precision<F32>, pool_mode = #tpu.pool_mode<max>, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<4x4xf32>) -> tensor<2x2xf32>
  return
}
// -----
!q = !quant.uniform<i8:f32, 0.1>
func.func @maxpool_requant(%x: tensor<1x1x4x4x!q>) {
  // expected-error @+1 {{max pooling keeps the input scale and takes no 'multiplier'/'rshift'}}
  %0 = tpu.pool2d %x {precision = #top.precision<INT8>, pool_mode = #tpu.pool_mode<max>, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, multiplier = array<i64: 1>, rshift = array<i64: 0>} : (tensor<1x1x4x4x!q>) -> tensor<1x1x2x2x!q>
  return
}
// -----
func.func @cast_same(%x: tensor<4xf32>) {
  // expected-error @+1 {{casts to its own type 'tensor<4xf32>'}}
  %0 = tpu.cast %x {precision = #top.precision<F32>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}
// -----
func.func @requant_float_input(%x: tensor<4xf32>) {
  // expected-error @+1 {{input must be quantized, got 'f32'}}
  %0 = tpu.requant_int %x {precision = #top.precision<INT8>, multiplier = array<i64: 1>, rshift = array<i64: 0>} : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.1>>
  return
}
// -----
!q = !quant.uniform<i8:f32, 0.1>
func.func @sub_shift(%x: tensor<4x!q>) {
  // expected-error @+1 {{'rshift' values must lie in [0, 63], got 70}}
  %0 = tpu.sub %x, %x {precision = #top.precision<INT8>, multiplier = array<i64: 1, 1>, rshift = array<i64: 70>} : (tensor<4x!q>, tensor<4x!q>) -> tensor<4x!q>
  return
}
// -----
!q = !quant.uniform<i8:f32, 0.1>
func.func @float_only(%x: tensor<2x4x!q>) {
  // expected-error @+1 {{has no INT8 form; lower it in a float precision with casts around it}}
  %0 = tpu.softmax %x {precision = #top.precision<INT8>, axis = 1 : i64} : (tensor<2x4x!q>) -> tensor<2x4x!q>
  return
}
// -----
!q = !quant.uniform<i8:f32, 0.1>
func.func @div_int8(%x: tensor<4x!q>) {
  // expected-error @+1 {{has no INT8 form}}
  %0 = tpu.div %x, %x {precision = #top.precision<INT8>} : (tensor<4x!q>, tensor<4x!q>) -> tensor<4x!q>
  return
}
// -----
!q = !quant.uniform<i8:f32, 0.1>
!r = !quant.uniform<i8:f32, 0.2>
func.func @keeps_type(%x: tensor<1x4x!q>) {
  // expected-error @+1 {{in INT8 the result must keep the input's type '!quant.uniform<i8:f32, 1.000000e-01>', got '!quant.uniform<i8:f32, 2.000000e-01>'}}
  %0 = tpu.reshape %x {precision = #top.precision<INT8>} : (tensor<1x4x!q>) -> tensor<4x!r>
  return
}
// -----
func.func @table_float(%x: tensor<4xf32>, %t: tensor<256xi8>) {
  // expected-error @+1 {{takes a lookup table only in INT8 ('table' must be none)}}
  %0 = tpu.active %x, %t {precision = #top.precision<F32>, active_mode = #tpu.active_mode<exp>} : (tensor<4xf32>, tensor<256xi8>) -> tensor<4xf32>
  return
}
// -----
!q = !quant.uniform<i8:f32, 0.1>
func.func @table_int8(%x: tensor<4x!q>, %n: none) {
  // expected-error @+1 {{INT8 needs a 'table' of 256 i8 values, got 'none'}}
  %0 = tpu.mul_const %x, %n {precision = #top.precision<INT8>, const_val = 2.0 : f64} : (tensor<4x!q>, none) -> tensor<4x!q>
  return
}
// -----
func.func @deconv_output_padding(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x2x2xf32>, %n: none) {
  // expected-error @+1 {{expects 2 output paddings}}
  %0 = tpu.deconv2d %x, %w, %n {precision = #top.precision<F32>, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0>} : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>, none) -> tensor<1x4x8x8xf32>
  return
}
// -----
func.func @a16_sym_zp(%x: tensor<2x64xf16>, %q: tensor<4x64xi8>, %s: tensor<4x1xf32>, %z: tensor<4x1xui8>, %n: none) {
  // expected-error @+1 {{symmetric weights take no zero points ('zp' must be none)}}
  %0 = tpu.a16matmul %x, %q, %s, %z, %n {precision = #top.precision<W8F16>, weight_bits = 8 : i64, q_group_size = 64 : i64} : (tensor<2x64xf16>, tensor<4x64xi8>, tensor<4x1xf32>, tensor<4x1xui8>, none) -> tensor<2x4xf16>
  return
}
// -----
func.func @a16_asym_zp(%x: tensor<2x64xf16>, %q: tensor<4x64xui8>, %s: tensor<4x1xf32>, %n: none) {
  // expected-error @+1 {{asymmetric weights need zero points ('zp')}}
  %0 = tpu.a16matmul %x, %q, %s, %n, %n {precision = #top.precision<W8F16>, weight_bits = 8 : i64, q_group_size = 64 : i64, sym = false} : (tensor<2x64xf16>, tensor<4x64xui8>, tensor<4x1xf32>, none, none) -> tensor<2x4xf16>
  return
}
// -----
func.func @reshape_count(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{changes the number of elements}}
  %0 = tpu.reshape %x {precision = #top.precision<F32>} : (tensor<2x4xf32>) -> tensor<9xf32>
  return
}
// -----
func.func @permute_order(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'order' must be a permutation of the 2 input axes}}
  %0 = tpu.permute %x {precision = #top.precision<F32>, order = array<i64: 0, 0>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}
// -----
!q = !quant.uniform<i8:f32, 0.1>
func.func @interp_linear_int8(%x: tensor<1x1x2x2x!q>) {
  // expected-error @+1 {{INT8 resizes only with nearest interpolation}}
  %0 = tpu.interp %x {precision = #top.precision<INT8>, target_shape = array<i64: 4, 4>, mode = #top.interp_mode<linear>} : (tensor<1x1x2x2x!q>) -> tensor<1x1x4x4x!q>
  return
}
// -----
func.func @cast_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{changes the shape [4] to [2, 2]}}
  %0 = tpu.cast %x {precision = #top.precision<F16>} : (tensor<4xf32>) -> tensor<2x2xf16>
  return
}
// -----
func.func @clip_range(%x: tensor<4xf32>) {
  // expected-error @+1 {{'min' (2.000000e+00) exceeds 'max' (1.000000e+00)}}
  %0 = tpu.clip %x {precision = #top.precision<F32>, min = 2.0 : f64, max = 1.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}
// -----
func.func @topk_int8_precision(%x: tensor<1x8xf32>) {
  // expected-error @+1 {{is float only; lower it in F32, F16 or BF16}}
  %v, %i = tpu.topk %x {precision = #top.precision<INT8>, axis = 1 : i64, k = 2 : i64} : (tensor<1x8xf32>) -> (tensor<1x2xf32>, tensor<1x2xi32>)
  return
}
// -----
func.func @topk_values_type(%x: tensor<1x8xf32>) {
  // expected-error @+1 {{input and values must have the element type of precision BF16}}
  %v, %i = tpu.topk %x {precision = #top.precision<BF16>, axis = 1 : i64, k = 2 : i64} : (tensor<1x8xf32>) -> (tensor<1x2xf32>, tensor<1x2xi32>)
  return
}
// -----
func.func @topk_index_type(%x: tensor<1x8xf32>) {
  // expected-error @+1 {{indices must be i32, got 'i64'}}
  %v, %i = tpu.topk %x {precision = #top.precision<F32>, axis = 1 : i64, k = 2 : i64} : (tensor<1x8xf32>) -> (tensor<1x2xf32>, tensor<1x2xi64>)
  return
}
// -----
func.func @topk_k(%x: tensor<1x8xf32>) {
  // expected-error @+1 {{needs 0 < k <= the extent of axis 1, got k = 9}}
  %v, %i = tpu.topk %x {precision = #top.precision<F32>, axis = 1 : i64, k = 9 : i64} : (tensor<1x8xf32>) -> (tensor<1x9xf32>, tensor<1x9xi32>)
  return
}
// -----
func.func @penalty_ids(%x: tensor<1x8xf32>, %ids: tensor<1x4xf32>, %p: tensor<1xf32>) {
  // expected-error @+1 {{ids must be i32, got 'f32'}}
  %0 = tpu.repetition_penalty %x, %ids, %p {precision = #top.precision<F32>} : (tensor<1x8xf32>, tensor<1x4xf32>, tensor<1xf32>) -> tensor<1x8xf32>
  return
}
// -----
func.func @compare_type(%a: tensor<1x8xbf16>, %b: tensor<1xbf16>) {
  // expected-error @+1 {{result #0 has element type 'i1' but precision BF16 needs}}
  %0 = tpu.compare %a, %b {precision = #top.precision<BF16>, mode = #top.compare_mode<lt>} : (tensor<1x8xbf16>, tensor<1xbf16>) -> tensor<1x8xi1>
  return
}
// -----
func.func @integer_move(%x: tensor<2x3xi64>) {
  // expected-error @+1 {{moves integers of type 'i64' into 'f32'}}
  %0 = tpu.reshape %x {precision = #top.precision<F32>} : (tensor<2x3xi64>) -> tensor<6xf32>
  return
}
// -----
func.func @nonzero_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result must be i64, got 'f32'}}
  %0 = tpu.nonzero %x {precision = #top.precision<F32>} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return
}
// -----
func.func @nonzero_int8(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{is float only; lower it in F32, F16 or BF16}}
  %0 = tpu.nonzero %x {precision = #top.precision<INT8>} : (tensor<2x3xf32>) -> tensor<2x4xi64>
  return
}
// -----
func.func @unique_output_type(%x: tensor<6xf32>) {
  // expected-error @+1 {{input and output must have the element type of precision F16}}
  %y, %f, %i, %c = tpu.unique %x {precision = #top.precision<F16>} : (tensor<6xf32>) -> (tensor<4xf32>, tensor<4xi64>, tensor<6xi64>, tensor<4xi64>)
  return
}
// -----
func.func @unique_index_type(%x: tensor<6xf32>) {
  // expected-error @+1 {{index results must be i64, got 'i32'}}
  %y, %f, %i, %c = tpu.unique %x {precision = #top.precision<F32>} : (tensor<6xf32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<6xi64>, tensor<4xi64>)
  return
}
// -----
func.func @maxpool_with_mask_type(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{mask must be i64, got 'i32'}}
  %y, %m = tpu.maxpool_with_mask %x {precision = #top.precision<F32>, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi32>)
  return
}
// -----
func.func @max_unpool_indices_type(%x: tensor<1x1x2x2xf16>, %i: tensor<1x1x2x2xi32>) {
  // expected-error @+1 {{indices must be i64, got 'i32'}}
  %0 = tpu.max_unpool %x, %i {precision = #top.precision<F16>, output_shape = array<i64: 1, 1, 4, 4>} : (tensor<1x1x2x2xf16>, tensor<1x1x2x2xi32>) -> tensor<1x1x4x4xf16>
  return
}
// -----
func.func @deform_conv_offset_type(%x: tensor<1x2x4x4xf16>, %w: tensor<2x2x1x1xf16>, %off: tensor<1x2x4x4xf16>, %n: none) {
  // expected-error @+1 {{offset and mask must be f32, got 'f16'}}
  %0 = tpu.deform_conv2d %x, %w, %off, %n, %n {precision = #top.precision<F16>, kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf16>, tensor<2x2x1x1xf16>, tensor<1x2x4x4xf16>, none, none) -> tensor<1x2x4x4xf16>
  return
}
// -----
func.func @loop_guard_count_type(%c: tensor<1xf16>, %x: tensor<1x4xf16>) {
  // expected-error @+1 {{count must be f32, got 'f16'}}
  %0 = tpu.loop_guard %c, %x {precision = #top.precision<F16>, max_trips = 4 : i64} : (tensor<1xf16>, tensor<1x4xf16>) -> tensor<1x4xf16>
  return
}
// -----
func.func @loop_guard_integer(%c: tensor<1xf32>, %x: tensor<1xi64>) {
  // expected-error @+1 {{passes 'i64' on as 'i32'}}
  %0 = tpu.loop_guard %c, %x {precision = #top.precision<F32>, max_trips = 4 : i64} : (tensor<1xf32>, tensor<1xi64>) -> tensor<1xi32>
  return
}
