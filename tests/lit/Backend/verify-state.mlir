// top-verify-state for the backend states: TPU_GROUPED needs tpu.group on every Tpu op; TPU_ADDRESSED
// needs an address except on results that stay in a group's local memory (lmem_only).
// RUN: tpuc-opt %s --split-input-file --verify-diagnostics --top-verify-state=state=TPU_GROUPED

module attributes {top.state = #top.state<TPU_GROUPED>, top.chip = "bm1684x"} {
  func.func @grouped(%a: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
    %0 = tpu.relu %a {precision = #top.precision<F32>, tpu.group = #tpu.group<id = 0, kind = group, slices = [1, 1, 1, 1]>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    return %0 : tensor<1x4x8x8xf32>
  }
}

// -----

module attributes {top.state = #top.state<TPU_GROUPED>, top.chip = "bm1684x"} {
  func.func @ungrouped(%a: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
    // expected-error @+1 {{'tpu.relu' op has no 'tpu.group' in state TPU_GROUPED}}
    %0 = tpu.relu %a {precision = #top.precision<F32>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    return %0 : tensor<1x4x8x8xf32>
  }
}
