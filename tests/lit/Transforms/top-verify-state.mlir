// RUN: tpuc-opt %s --split-input-file --verify-diagnostics --top-verify-state=state=TOP_F32
// RUN: not tpuc-opt %s --split-input-file --top-verify-state=state=TOP_F64 2>&1 | FileCheck %s --check-prefix=BADSTATE
// BADSTATE: top-verify-state: unknown state 'TOP_F64' (expected TOP_F32, TOP_CALIBRATED, TPU_LOWERED, TPU_GROUPED or TPU_ADDRESSED)

module attributes {top.state = #top.state<TOP_F32>} {
  func.func @legal(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = top.relu %a : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{module is in state TOP_CALIBRATED; this stage expects TOP_F32}}
module attributes {top.state = #top.state<TOP_CALIBRATED>} {
}

// -----

// expected-error @+1 {{module has no 'top.state' attribute; this stage expects TOP_F32}}
module {
}

// -----

module attributes {top.state = #top.state<TOP_F32>} {
  func.func @tpu_in_top(%a: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'tpu.relu' op is not legal in state TOP_F32}}
    %0 = tpu.relu %a {precision = #top.precision<F32>} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

module attributes {top.state = #top.state<TOP_F32>} {
  func.func @unranked(%a: tensor<4xf32>) -> tensor<*xf32> {
    // expected-error @+1 {{result has no static shape ('tensor<*xf32>'); run top-shape-infer first}}
    %0 = top.relu %a : tensor<4xf32> -> tensor<*xf32>
    return %0 : tensor<*xf32>
  }
}
