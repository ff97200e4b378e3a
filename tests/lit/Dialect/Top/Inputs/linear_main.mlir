// A sequence-first attention input projection as torch.onnx exports nn.MultiheadAttention at batch 1: the
// transpose to [L, B, E], one fused QKV MatMul and its bias Add, three column slices, and the output
// projection's transpose back. Spelled out, for linear-fusion.mlir's numeric check.
module @linear attributes {top.state = #top.state<TOP_F32>} {
  func.func @main(%arg0: tensor<1x4x8xf32>) -> (tensor<4x1x2xf32>, tensor<4x1x2xf32>, tensor<1x4x2xf32>) {
    %x = top.input %arg0 : tensor<1x4x8xf32> -> tensor<1x4x8xf32> loc("x")
    %w = top.weight "w" {value = dense<[[0.1, -0.2, 0.3, 0.05, -0.4, 0.25], [0.7, 0.1, -0.3, 0.2, 0.0, -0.6], [-0.5, 0.45, 0.15, -0.1, 0.3, 0.2], [0.2, -0.7, 0.6, 0.35, -0.15, 0.1], [0.05, 0.3, -0.25, 0.8, 0.4, -0.2], [-0.3, 0.2, 0.1, -0.45, 0.55, 0.3], [0.6, -0.1, -0.4, 0.15, 0.2, 0.7], [0.25, 0.35, 0.5, -0.3, -0.6, 0.05]]> : tensor<8x6xf32>} : tensor<8x6xf32> loc("w")
    %b = top.weight "b" {value = dense<[[[0.5, -0.25, 0.125, 1.0, -1.5, 0.75]]]> : tensor<1x1x6xf32>} : tensor<1x1x6xf32> loc("b")
    %n = top.none : none loc("none")
    %t = top.permute %x {order = array<i64: 1, 0, 2>} : tensor<1x4x8xf32> -> tensor<4x1x8xf32> loc("t"("/Transpose"))
    %p = top.matmul %t, %w, %n : (tensor<4x1x8xf32>, tensor<8x6xf32>, none) -> tensor<4x1x6xf32> loc("p"("/MatMul"))
    %a = top.add %p, %b : (tensor<4x1x6xf32>, tensor<1x1x6xf32>) -> tensor<4x1x6xf32> loc("a"("/Add"))
    %q = top.slice %a {offset = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>, ends = array<i64: 4, 1, 2>} : tensor<4x1x6xf32> -> tensor<4x1x2xf32> loc("q"("/Slice"))
    %k = top.slice %a {offset = array<i64: 0, 0, 2>, steps = array<i64: 1, 1, 1>, ends = array<i64: 4, 1, 4>} : tensor<4x1x6xf32> -> tensor<4x1x2xf32> loc("k"("/Slice_1"))
    %v = top.slice %a {offset = array<i64: 0, 0, 4>, steps = array<i64: 1, 1, 1>, ends = array<i64: 4, 1, 6>} : tensor<4x1x6xf32> -> tensor<4x1x2xf32> loc("v"("/Slice_2"))
    %o = top.permute %v {order = array<i64: 1, 0, 2>} : tensor<4x1x2xf32> -> tensor<1x4x2xf32> loc("o"("/Transpose_1"))
    return %q, %k, %o : tensor<4x1x2xf32>, tensor<4x1x2xf32>, tensor<1x4x2xf32>
  }
}
