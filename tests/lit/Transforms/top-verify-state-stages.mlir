// The contracts of the later stages.
// RUN: tpuc-opt %s --split-input-file --verify-diagnostics --top-verify-state=state=TPU_ADDRESSED

module attributes {top.state = #top.state<TPU_ADDRESSED>, top.chip = "bm1684x"} {
  func.func @addressed(%a: tensor<4xf32>) -> tensor<4xf32> {
    %x = top.input %a : tensor<4xf32> -> tensor<4xf32>
    %0 = tpu.relu %x {precision = #top.precision<F32>, address = 4096 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

module attributes {top.state = #top.state<TPU_ADDRESSED>, top.chip = "bm1684x"} {
  func.func @no_address(%a: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'tpu.relu' op has no 'address' in state TPU_ADDRESSED}}
    %0 = tpu.relu %a {precision = #top.precision<F32>} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

module attributes {top.state = #top.state<TPU_ADDRESSED>, top.chip = "bm1684x"} {
  func.func @top_op_left(%a: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'top.relu' op is not legal in state TPU_ADDRESSED}}
    %0 = top.relu %a : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{state TPU_ADDRESSED needs the module attribute 'top.chip'}}
module attributes {top.state = #top.state<TPU_ADDRESSED>} {
}
