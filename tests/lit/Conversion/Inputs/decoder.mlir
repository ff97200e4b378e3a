// The float-only ops of an LLM decoder layer (rmsnorm, rope, attention) followed by silu, for
// top-to-tpu-decoder.test. Inline constants: gamma = 1, cos = 1, sin = 0.
module @decoder attributes {top.state = #top.state<TOP_F32>} {
  func.func @main(%arg0: tensor<1x4x2x8xf32>) -> tensor<1x4x2x8xf32> {
    %none = top.none : none
    %x = top.input %arg0 : tensor<1x4x2x8xf32> -> tensor<1x4x2x8xf32> loc("in")
    %g = top.weight "g" {value = dense<1.0> : tensor<8xf32>} : tensor<8xf32> loc("g")
    %c = top.weight "cos" {value = dense<1.0> : tensor<4x8xf32>} : tensor<4x8xf32> loc("cos")
    %s = top.weight "sin" {value = dense<0.0> : tensor<4x8xf32>} : tensor<4x8xf32> loc("sin")
    %n = top.rmsnorm %x, %g : (tensor<1x4x2x8xf32>, tensor<8xf32>) -> tensor<1x4x2x8xf32> loc("norm")
    %r = top.rope %n, %c, %s : (tensor<1x4x2x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<1x4x2x8xf32> loc("rope")
    %a = top.attention %r, %r, %r, %none {scale = 0.35 : f64} : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, none) -> tensor<1x4x2x8xf32> loc("attn")
    %y = top.silu %a : tensor<1x4x2x8xf32> -> tensor<1x4x2x8xf32> loc("act")
    return %y : tensor<1x4x2x8xf32>
  }
}
