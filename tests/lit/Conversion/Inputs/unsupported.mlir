// A Top op without a Tpu lowering (top.topk), for top-to-tpu-errors.test.
module attributes {top.state = #top.state<TOP_F32>} {
  func.func @main(%arg0: tensor<1x10xf32>) -> tensor<1x3xf32> {
    %x = top.input %arg0 : tensor<1x10xf32> -> tensor<1x10xf32> loc("in")
    %v, %i = top.topk %x {axis = 1 : i64, k = 3 : i64} : (tensor<1x10xf32>) -> (tensor<1x3xf32>, tensor<1x3xi64>) loc("best")
    return %v : tensor<1x3xf32>
  }
}
