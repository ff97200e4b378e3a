// TPU_ADDRESSED: a result kept in LMEM (lmem_only) needs no address; one stored to DDR does.
// RUN: tpuc-opt %s --split-input-file --verify-diagnostics --top-verify-state=state=TPU_ADDRESSED

module attributes {top.state = #top.state<TPU_ADDRESSED>, top.chip = "bm1684x"} {
  func.func @lmem_only(%a: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
    %0 = tpu.relu %a {precision = #top.precision<F32>, tpu.group = #tpu.group<id = 0, kind = group, slices = [1, 1, 1, 1], lmem_only = true>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    %1 = tpu.relu %0 {precision = #top.precision<F32>, address = 4096 : i64, tpu.group = #tpu.group<id = 0, kind = group, slices = [1, 1, 1, 1], unit = 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    return %1 : tensor<1x4x8x8xf32>
  }
}

// -----

module attributes {top.state = #top.state<TPU_ADDRESSED>, top.chip = "bm1684x"} {
  func.func @stored(%a: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
    // expected-error @+1 {{'tpu.relu' op has no 'address' in state TPU_ADDRESSED}}
    %0 = tpu.relu %a {precision = #top.precision<F32>, tpu.group = #tpu.group<id = 0, kind = group, slices = [1, 1, 1, 1]>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    return %0 : tensor<1x4x8x8xf32>
  }
}
