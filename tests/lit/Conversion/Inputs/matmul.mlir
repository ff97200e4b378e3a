// A linear layer [1, 4, 8] x [8, 4] + bias for the weight-only and matmul lowering tests; weights are
// file-free inline constants (w[k][n] = (k - 3.5) * (n + 1) / 8).
module @linear attributes {top.state = #top.state<TOP_F32>} {
  func.func @main(%arg0: tensor<1x4x8xf32>) -> tensor<1x4x4xf32> {
    %x = top.input %arg0 : tensor<1x4x8xf32> -> tensor<1x4x8xf32> loc("in")
    %w = top.weight "w" {value = dense<[[-0.4375, -0.875, -1.3125, -1.75], [-0.3125, -0.625, -0.9375, -1.25], [-0.1875, -0.375, -0.5625, -0.75], [-0.0625, -0.125, -0.1875, -0.25], [0.0625, 0.125, 0.1875, 0.25], [0.1875, 0.375, 0.5625, 0.75], [0.3125, 0.625, 0.9375, 1.25], [0.4375, 0.875, 1.3125, 1.75]]> : tensor<8x4xf32>} : tensor<8x4xf32> loc("w")
    %b = top.weight "b" {value = dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>} : tensor<4xf32> loc("b")
    %y = top.matmul %x, %w, %b : (tensor<1x4x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<1x4x4xf32> loc("fc")
    return %y : tensor<1x4x4xf32>
  }
}
