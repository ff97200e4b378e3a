// A conv+relu+add+pool+sigmoid graph with inline weights, lowered by the top-to-tpu tests. The weights
// follow formulas that Inputs/expect_int8.py recomputes: w[i] = ((7i mod 11) - 5) / 4 * (1 + c / 2) for
// output channel c = i / 18, w2[i] = ((5i mod 7) - 3) / 2.
module @small attributes {top.state = #top.state<TOP_F32>} {
  func.func @main(%arg0: tensor<1x2x4x4xf32>) -> tensor<1x3x2x2xf32> {
    %none = top.none : none
    %x = top.input %arg0 : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32> loc("in")
    %w = top.weight "w" {value = dense<[[[[-1.25, 0.5, -0.5], [1.25, 0.25, -0.75], [1.0, 0.0, -1.0]], [[0.75, -0.25, -1.25], [0.5, -0.5, 1.25], [0.25, -0.75, 1.0]]], [[[0.0, -1.5, 1.125], [-0.375, -1.875, 0.75], [-0.75, 1.875, 0.375]], [[-1.125, 1.5, 0.0], [-1.5, 1.125, -0.375], [-1.875, 0.75, -0.75]]], [[[2.5, 0.5, -1.5], [2.0, 0.0, -2.0], [1.5, -0.5, -2.5]], [[1.0, -1.0, 2.5], [0.5, -1.5, 2.0], [0.0, -2.0, 1.5]]]]> : tensor<3x2x3x3xf32>} : tensor<3x2x3x3xf32> loc("w")
    %b = top.weight "b" {value = dense<[0.5, -0.25, 1.0]> : tensor<3xf32>} : tensor<3xf32> loc("b")
    %c = top.conv %x, %w, %b {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, do_relu = true} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32> loc("conv")
    %w2 = top.weight "w2" {value = dense<[[[[-1.5]], [[1.0]], [[0.0]]], [[[-1.0]], [[1.5]], [[0.5]]], [[[-0.5]], [[-1.5]], [[1.0]]]]> : tensor<3x3x1x1xf32>} : tensor<3x3x1x1xf32> loc("w2")
    %c2 = top.conv %c, %w2, %none {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<3x3x1x1xf32>, none) -> tensor<1x3x4x4xf32> loc("conv2")
    %a = top.add %c, %c2 : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> loc("add")
    %p = top.maxpool %a {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x3x4x4xf32> -> tensor<1x3x2x2xf32> loc("pool")
    %s = top.sigmoid %p : tensor<1x3x2x2xf32> -> tensor<1x3x2x2xf32> loc("sig")
    return %s : tensor<1x3x2x2xf32>
  }
}
