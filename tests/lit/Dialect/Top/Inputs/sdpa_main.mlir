// Attention as an export spells it, with a causal mask of rank 2, for attention-fusion.mlir's numbers.
module attributes {top.state = #top.state<TOP_F32>} {
  func.func @main(%arg0: tensor<1x4x16x8xf32> loc("q"), %arg1: tensor<1x4x16x8xf32> loc("k"), %arg2: tensor<1x4x16x8xf32> loc("v"), %arg3: tensor<16x16xf32> loc("mask")) -> tensor<1x4x16x8xf32> {
    %q = top.input %arg0 : tensor<1x4x16x8xf32> -> tensor<1x4x16x8xf32> loc("q")
    %k = top.input %arg1 : tensor<1x4x16x8xf32> -> tensor<1x4x16x8xf32> loc("k")
    %v = top.input %arg2 : tensor<1x4x16x8xf32> -> tensor<1x4x16x8xf32> loc("v")
    %mask = top.input %arg3 : tensor<16x16xf32> -> tensor<16x16xf32> loc("mask")
    %none = top.none : none loc("none")
    %kt = top.permute %k {order = array<i64: 0, 1, 3, 2>} : tensor<1x4x16x8xf32> -> tensor<1x4x8x16xf32> loc("kt")
    %s = top.matmul %q, %kt, %none : (tensor<1x4x16x8xf32>, tensor<1x4x8x16xf32>, none) -> tensor<1x4x16x16xf32> loc("s")
    %scaled = top.div_const %s {const_val = 2.8284271247461903 : f64} : tensor<1x4x16x16xf32> -> tensor<1x4x16x16xf32> loc("scaled")
    %masked = top.add %scaled, %mask : (tensor<1x4x16x16xf32>, tensor<16x16xf32>) -> tensor<1x4x16x16xf32> loc("masked")
    %p = top.softmax %masked {axis = 3 : i64} : tensor<1x4x16x16xf32> -> tensor<1x4x16x16xf32> loc("p")
    %o = top.matmul %p, %v, %none : (tensor<1x4x16x16xf32>, tensor<1x4x16x8xf32>, none) -> tensor<1x4x16x8xf32> loc("o")
    return %o : tensor<1x4x16x8xf32>
  }
}
