// Every verifier message of tpu.if, tpu.loop and tpu.yield, one case each (an unregistered op stands for a
// terminator that is not tpu.yield).
// RUN: tpuc-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

func.func @if_cond(%c: tensor<2xf32>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'cond' must hold one element}}
  %y = tpu.if %c (%x) : (tensor<2xf32>, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x4xf32>):
    tpu.yield %a : tensor<1x4xf32>
  }, {
  ^bb0(%a: tensor<1x4xf32>):
    tpu.yield %a : tensor<1x4xf32>
  }
  return %y : tensor<1x4xf32>
}
// -----
func.func @if_arguments(%c: tensor<1xf32>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'else_branch' block arguments must have the operand types}}
  %y = tpu.if %c (%x) : (tensor<1xf32>, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x4xf32>):
    tpu.yield %a : tensor<1x4xf32>
  }, {
  ^bb0(%a: tensor<1x4xf16>):
    %z = "test.make"() : () -> tensor<1x4xf32>
    tpu.yield %z : tensor<1x4xf32>
  }
  return %y : tensor<1x4xf32>
}
// -----
func.func @if_terminator(%c: tensor<1xf32>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'then_branch' must end with tpu.yield}}
  %y = tpu.if %c (%x) : (tensor<1xf32>, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x4xf32>):
    "test.terminator"(%a) : (tensor<1x4xf32>) -> ()
  }, {
  ^bb0(%a: tensor<1x4xf32>):
    tpu.yield %a : tensor<1x4xf32>
  }
  return %y : tensor<1x4xf32>
}
// -----
func.func @if_yield(%c: tensor<1xf32>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'then_branch' must yield values of the result types}}
  %y = tpu.if %c (%x) : (tensor<1xf32>, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x4xf32>):
    tpu.yield %a, %a : tensor<1x4xf32>, tensor<1x4xf32>
  }, {
  ^bb0(%a: tensor<1x4xf32>):
    tpu.yield %a : tensor<1x4xf32>
  }
  return %y : tensor<1x4xf32>
}
// -----
func.func @loop_condition(%c: tensor<2xf32>, %x: tensor<1x4xf32>) -> (tensor<2xf32>, tensor<1x4xf32>) {
  // expected-error @+1 {{the first carried value (the condition) must hold one element}}
  %r:2 = tpu.loop (%c, %x), () : (tensor<2xf32>, tensor<1x4xf32>) -> (tensor<2xf32>, tensor<1x4xf32>) {
  ^bb0(%go: tensor<2xf32>, %v: tensor<1x4xf32>):
    tpu.yield %go, %v : tensor<2xf32>, tensor<1x4xf32>
  }
  return %r#0, %r#1 : tensor<2xf32>, tensor<1x4xf32>
}
// -----
func.func @loop_results(%c: tensor<1xf32>, %x: tensor<1x4xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{results must have the carried values' types}}
  %r = tpu.loop (%c, %x), () : (tensor<1xf32>, tensor<1x4xf32>) -> tensor<1xf32> {
  ^bb0(%go: tensor<1xf32>, %v: tensor<1x4xf32>):
    tpu.yield %go : tensor<1xf32>
  }
  return %r : tensor<1xf32>
}
