// Every verifier message of top.if, top.loop and top.yield, one case each (unregistered ops stand for a
// terminator that is not top.yield).
// RUN: tpuc-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

func.func @if_cond(%c: tensor<2xi1>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'cond' must hold one element, got 'tensor<2xi1>'}}
  %y = top.if %c (%x) : (tensor<2xi1>, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x4xf32>):
    top.yield %a : tensor<1x4xf32>
  }, {
  ^bb0(%a: tensor<1x4xf32>):
    top.yield %a : tensor<1x4xf32>
  }
  return %y : tensor<1x4xf32>
}
// -----
func.func @if_arguments(%c: tensor<1xi1>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'else_branch' has 0 block arguments for 1 inputs}}
  %y = top.if %c (%x) : (tensor<1xi1>, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x4xf32>):
    top.yield %a : tensor<1x4xf32>
  }, {
    %w = top.weight "w" : tensor<1x4xf32>
    top.yield %w : tensor<1x4xf32>
  }
  return %y : tensor<1x4xf32>
}
// -----
func.func @if_argument_type(%c: tensor<1xi1>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'then_branch' block argument #0 is 'tensor<4xf32>' but the operand is 'tensor<1x4xf32>'}}
  %y = top.if %c (%x) : (tensor<1xi1>, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %w = top.weight "w" : tensor<1x4xf32>
    top.yield %w : tensor<1x4xf32>
  }, {
  ^bb0(%a: tensor<1x4xf32>):
    top.yield %a : tensor<1x4xf32>
  }
  return %y : tensor<1x4xf32>
}
// -----
func.func @if_terminator(%c: tensor<1xi1>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'then_branch' must end with top.yield}}
  %y = top.if %c (%x) : (tensor<1xi1>, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x4xf32>):
    "test.terminator"(%a) : (tensor<1x4xf32>) -> ()
  }, {
  ^bb0(%a: tensor<1x4xf32>):
    top.yield %a : tensor<1x4xf32>
  }
  return %y : tensor<1x4xf32>
}
// -----
func.func @if_yield_count(%c: tensor<1xi1>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'else_branch' yields 2 values, expected 1}}
  %y = top.if %c (%x) : (tensor<1xi1>, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x4xf32>):
    top.yield %a : tensor<1x4xf32>
  }, {
  ^bb0(%a: tensor<1x4xf32>):
    top.yield %a, %a : tensor<1x4xf32>, tensor<1x4xf32>
  }
  return %y : tensor<1x4xf32>
}
// -----
func.func @if_yield_type(%c: tensor<1xi1>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'else_branch' yields 'tensor<4xf32>' as value #0 for result #0 of type 'tensor<1x4xf32>'}}
  %y = top.if %c (%x) : (tensor<1xi1>, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x4xf32>):
    top.yield %a : tensor<1x4xf32>
  }, {
  ^bb0(%a: tensor<1x4xf32>):
    %w = top.weight "w" : tensor<4xf32>
    top.yield %w : tensor<4xf32>
  }
  return %y : tensor<1x4xf32>
}
// -----
func.func @loop_max_trips(%m: tensor<2xi64>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %none = top.none : none
  // expected-error @+1 {{'max_trips' must hold one element, got 'tensor<2xi64>'}}
  %r = top.loop %m, %none, (%x), () : (tensor<2xi64>, none, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%i: tensor<i64>, %go: tensor<i1>, %v: tensor<1x4xf32>):
    top.yield %go, %v : tensor<i1>, tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}
// -----
func.func @loop_cond(%c: tensor<1x2xi1>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %none = top.none : none
  // expected-error @+1 {{'cond' must hold one element, got 'tensor<1x2xi1>'}}
  %r = top.loop %none, %c, (%x), () : (none, tensor<1x2xi1>, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%i: tensor<i64>, %go: tensor<i1>, %v: tensor<1x4xf32>):
    top.yield %go, %v : tensor<i1>, tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}
// -----
func.func @loop_results(%x: tensor<1x4xf32>) {
  %none = top.none : none
  // expected-error @+1 {{has 1 carried values but 0 results}}
  top.loop %none, %none, (%x), () : (none, none, tensor<1x4xf32>) -> () {
  ^bb0(%i: tensor<i64>, %go: tensor<i1>, %v: tensor<1x4xf32>):
    top.yield %go : tensor<i1>
  }
  return
}
// -----
func.func @loop_arguments(%x: tensor<1x4xf32>, %k: tensor<4xf32>) -> tensor<1x4xf32> {
  %none = top.none : none
  // expected-error @+1 {{'body' has 3 block arguments, expected the step, the condition, 1 carried and 1 captured values}}
  %r = top.loop %none, %none, (%x), (%k) : (none, none, tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32> {
  ^bb0(%i: tensor<i64>, %go: tensor<i1>, %v: tensor<1x4xf32>):
    top.yield %go, %v : tensor<i1>, tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}
// -----
func.func @loop_step(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %none = top.none : none
  // expected-error @+1 {{'body' block arguments #0 (the step) and #1 (the condition) must hold one element}}
  %r = top.loop %none, %none, (%x), () : (none, none, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%i: tensor<2xi64>, %go: tensor<i1>, %v: tensor<1x4xf32>):
    top.yield %go, %v : tensor<i1>, tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}
// -----
func.func @loop_carried_type(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %none = top.none : none
  // expected-error @+1 {{'body' block argument #2 is 'tensor<4xf32>' but the operand is 'tensor<1x4xf32>'}}
  %r = top.loop %none, %none, (%x), () : (none, none, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%i: tensor<i64>, %go: tensor<i1>, %v: tensor<4xf32>):
    %w = top.weight "w" : tensor<1x4xf32>
    top.yield %go, %w : tensor<i1>, tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}
// -----
func.func @loop_condition_out(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %none = top.none : none
  // expected-error @+1 {{'body' must yield a one-element condition first}}
  %r = top.loop %none, %none, (%x), () : (none, none, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%i: tensor<i64>, %go: tensor<i1>, %v: tensor<1x4xf32>):
    %w = top.weight "w" : tensor<2xi1>
    top.yield %w, %v : tensor<2xi1>, tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}
