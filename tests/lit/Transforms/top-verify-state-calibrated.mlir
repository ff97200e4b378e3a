// RUN: tpuc-opt %s --split-input-file --verify-diagnostics --top-verify-state=state=TOP_CALIBRATED

module attributes {top.state = #top.state<TOP_CALIBRATED>} {
  func.func @calibrated(%a: tensor<4xf32>) -> tensor<4x!quant.calibrated<f32<-2.0:3.5>>> {
    %x = top.input %a : tensor<4xf32> -> tensor<4x!quant.calibrated<f32<-2.0:3.5>>>
    %0 = top.relu %x : tensor<4x!quant.calibrated<f32<-2.0:3.5>>> -> tensor<4x!quant.calibrated<f32<-2.0:3.5>>>
    return %0 : tensor<4x!quant.calibrated<f32<-2.0:3.5>>>
  }
}

// -----

module attributes {top.state = #top.state<TOP_CALIBRATED>} {
  func.func @uncalibrated(%a: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{result has no calibration range ('f32' instead of !quant.calibrated) in state TOP_CALIBRATED}}
    %x = top.input %a : tensor<4xf32> -> tensor<4xf32>
    return %x : tensor<4xf32>
  }
}

