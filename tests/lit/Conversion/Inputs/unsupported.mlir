// A Top op without a Tpu lowering (top.gather_elements), for top-to-tpu-errors.test.
module attributes {top.state = #top.state<TOP_F32>} {
  func.func @main(%arg0: tensor<1x10xf32>, %arg1: tensor<1x3xi64>) -> tensor<1x3xf32> {
    %x = top.input %arg0 : tensor<1x10xf32> -> tensor<1x10xf32> loc("in")
    %ids = top.input %arg1 : tensor<1x3xi64> -> tensor<1x3xi64> loc("ids")
    %y = top.gather_elements %x, %ids {axis = 1 : i64} : (tensor<1x10xf32>, tensor<1x3xi64>) -> tensor<1x3xf32> loc("picked")
    return %y : tensor<1x3xf32>
  }
}
