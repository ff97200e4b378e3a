// Integer arithmetic on a bound fed at run time, which has no Tpu lowering, for top-to-tpu-errors.test.
module attributes {top.state = #top.state<TOP_F32>} {
  func.func @main(%arg0: tensor<1x10xf32>, %arg1: tensor<1xi64>) -> tensor<1x4xf32> {
    %x = top.input %arg0 : tensor<1x10xf32> -> tensor<1x10xf32> loc("in")
    %start = top.input %arg1 : tensor<1xi64> -> tensor<1xi64> loc("start")
    %end = top.add_const %start {const_val = 4.0 : f64} : tensor<1xi64> -> tensor<1xi64> loc("end")
    %axes = top.weight "axes" {value = dense<1> : tensor<1xi64>} : tensor<1xi64> loc("axes")
    %steps = top.weight "steps" {value = dense<1> : tensor<1xi64>} : tensor<1xi64> loc("steps")
    %y = top.dynamic_slice %x, %start, %end, %axes, %steps : (tensor<1x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x4xf32> loc("window")
    return %y : tensor<1x4xf32>
  }
}
