// Two element-wise tails of an encoder layer in F16, lowered by hand (TPU_LOWERED): attention scores
// [1, 4, 256, 256] scaled, softmax along the last axis, cast to f32; and an attention output's bias add,
// residual add and layernorm on [1, 4096, 512] (what sits between the matmuls of two activations, and
// after the output projection).
module attributes {top.state = #top.state<TPU_LOWERED>, top.chip = "bm1684x", top.weight_file = "WEIGHTS"} {
  func.func @main(%arg0: tensor<1x4x256x256xf16>, %arg1: tensor<1x4096x512xf16>, %arg2: tensor<1x4096x512xf16>)
      -> (tensor<1x4x256x256xf32>, tensor<1x4096x512xf16>) {
    %none = top.none : none
    %s = top.input %arg0 : tensor<1x4x256x256xf16> -> tensor<1x4x256x256xf16> loc("scores")
    %a = top.input %arg1 : tensor<1x4096x512xf16> -> tensor<1x4096x512xf16> loc("attn")
    %x = top.input %arg2 : tensor<1x4096x512xf16> -> tensor<1x4096x512xf16> loc("x")
    %b = top.weight "b" : tensor<512xf16>
    %g = top.weight "g" : tensor<512xf16>
    %bt = top.weight "bt" : tensor<512xf16>
    %0 = tpu.mul_const %s, %none {precision = #top.precision<F16>, const_val = 0.125 : f64} : (tensor<1x4x256x256xf16>, none) -> tensor<1x4x256x256xf16> loc("scaled")
    %1 = tpu.softmax %0 {precision = #top.precision<F16>, axis = 3 : i64} : (tensor<1x4x256x256xf16>) -> tensor<1x4x256x256xf16> loc("probs")
    %2 = tpu.cast %1 {precision = #top.precision<F32>} : (tensor<1x4x256x256xf16>) -> tensor<1x4x256x256xf32> loc("probs_f32")
    %3 = tpu.add %a, %b {precision = #top.precision<F16>} : (tensor<1x4096x512xf16>, tensor<512xf16>) -> tensor<1x4096x512xf16> loc("attn_bias")
    %4 = tpu.add %x, %3 {precision = #top.precision<F16>} : (tensor<1x4096x512xf16>, tensor<1x4096x512xf16>) -> tensor<1x4096x512xf16> loc("residual")
    %5 = tpu.layernorm %4, %g, %bt {axis = 2 : i64, eps = 1.0E-5 : f64, precision = #top.precision<F16>} : (tensor<1x4096x512xf16>, tensor<512xf16>, tensor<512xf16>) -> tensor<1x4096x512xf16> loc("norm")
    return %2, %5 : tensor<1x4x256x256xf32>, tensor<1x4096x512xf16>
  }
}
