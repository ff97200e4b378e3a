// A transformer feed-forward block in F16, lowered by hand (TPU_LOWERED): matmul -> bias add -> GELU ->
// matmul -> bias add -> residual add on [1, 2048, 256] activations, then a layernorm.
module attributes {top.state = #top.state<TPU_LOWERED>, top.chip = "bm1684x", top.weight_file = "WEIGHTS"} {
  func.func @main(%arg0: tensor<1x2048x256xf16>) -> tensor<1x2048x256xf16> {
    %none = top.none : none
    %x = top.input %arg0 : tensor<1x2048x256xf16> -> tensor<1x2048x256xf16> loc("x")
    %w1 = top.weight "w1" : tensor<256x1024xf16>
    %b1 = top.weight "b1" : tensor<1024xf16>
    %w2 = top.weight "w2" : tensor<1024x256xf16>
    %b2 = top.weight "b2" : tensor<256xf16>
    %g = top.weight "g" : tensor<256xf16>
    %bt = top.weight "bt" : tensor<256xf16>
    %0 = tpu.matmul %x, %w1, %none {precision = #top.precision<F16>} : (tensor<1x2048x256xf16>, tensor<256x1024xf16>, none) -> tensor<1x2048x1024xf16> loc("fc1")
    %1 = tpu.add %0, %b1 {precision = #top.precision<F16>} : (tensor<1x2048x1024xf16>, tensor<1024xf16>) -> tensor<1x2048x1024xf16> loc("fc1_bias")
    %2 = tpu.active %1, %none {active_mode = #tpu.active_mode<gelu>, precision = #top.precision<F16>} : (tensor<1x2048x1024xf16>, none) -> tensor<1x2048x1024xf16> loc("gelu")
    %3 = tpu.matmul %2, %w2, %none {precision = #top.precision<F16>} : (tensor<1x2048x1024xf16>, tensor<1024x256xf16>, none) -> tensor<1x2048x256xf16> loc("fc2")
    %4 = tpu.add %3, %b2 {precision = #top.precision<F16>} : (tensor<1x2048x256xf16>, tensor<256xf16>) -> tensor<1x2048x256xf16> loc("fc2_bias")
    %5 = tpu.add %x, %4 {precision = #top.precision<F16>} : (tensor<1x2048x256xf16>, tensor<1x2048x256xf16>) -> tensor<1x2048x256xf16> loc("residual")
    %6 = tpu.layernorm %5, %g, %bt {axis = 2 : i64, eps = 1.0E-5 : f64, precision = #top.precision<F16>} : (tensor<1x2048x256xf16>, tensor<256xf16>, tensor<256xf16>) -> tensor<1x2048x256xf16> loc("norm")
    return %6 : tensor<1x2048x256xf16>
  }
}
