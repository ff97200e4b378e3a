// conv -> relu -> conv -> reshape -> matmul in F32, lowered by hand (TPU_LOWERED).
module attributes {top.state = #top.state<TPU_LOWERED>, top.chip = "bm1684x", top.weight_file = "WEIGHTS"} {
  func.func @main(%arg0: tensor<1x16x32x32xf32>) -> tensor<1x10xf32> {
    %none = top.none : none
    %x = top.input %arg0 : tensor<1x16x32x32xf32> -> tensor<1x16x32x32xf32> loc("x")
    %w1 = top.weight "w1" : tensor<16x16x3x3xf32>
    %w2 = top.weight "w2" : tensor<16x16x3x3xf32>
    %w3 = top.weight "w3" : tensor<10x1024xf32>
    %0 = tpu.conv2d %x, %w1, %none {precision = #top.precision<F32>, kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x16x32x32xf32>, tensor<16x16x3x3xf32>, none) -> tensor<1x16x32x32xf32> loc("c1")
    %1 = tpu.relu %0 {precision = #top.precision<F32>} : (tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32> loc("r1")
    %2 = tpu.conv2d %1, %w2, %none {precision = #top.precision<F32>, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x16x32x32xf32>, tensor<16x16x3x3xf32>, none) -> tensor<1x16x16x16xf32> loc("c2")
    %3 = tpu.pool2d %2 {precision = #top.precision<F32>, pool_mode = #tpu.pool_mode<max>, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x16x16x16xf32>) -> tensor<1x16x8x8xf32> loc("p1")
    %4 = tpu.reshape %3 {precision = #top.precision<F32>} : (tensor<1x16x8x8xf32>) -> tensor<1x1024xf32> loc("flat")
    %5 = tpu.matmul %4, %w3, %none {precision = #top.precision<F32>, right_transpose = true} : (tensor<1x1024xf32>, tensor<10x1024xf32>, none) -> tensor<1x10xf32> loc("fc")
    return %5 : tensor<1x10xf32>
  }
}
