// top.if, top.loop and top.yield in their custom form; printing, parsing and printing again must agree, in
// both the custom and the generic form.
// RUN: tpuc-opt %s | tpuc-opt | FileCheck %s
// RUN: tpuc-opt %s --mlir-print-op-generic | tpuc-opt | FileCheck %s

// CHECK-LABEL: func.func @branch
func.func @branch(%c: tensor<1xi1>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // CHECK: top.if %{{.*}} (%{{.*}}) : (tensor<1xi1>, tensor<1x4xf32>) -> tensor<1x4xf32> {
  // CHECK: ^bb0(%[[A:.*]]: tensor<1x4xf32>):
  // CHECK: top.relu %[[A]]
  // CHECK: top.yield
  // CHECK: }, {
  // CHECK: top.weight "w"
  // CHECK: top.add
  %y = top.if %c (%x) : (tensor<1xi1>, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x4xf32>):
    %t = top.relu %a : tensor<1x4xf32> -> tensor<1x4xf32>
    top.yield %t : tensor<1x4xf32>
  }, {
  ^bb0(%a: tensor<1x4xf32>):
    %w = top.weight "w" : tensor<1x4xf32>
    %s = top.add %a, %w : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    top.yield %s : tensor<1x4xf32>
  }
  return %y : tensor<1x4xf32>
}

// -----
// CHECK-LABEL: func.func @no_inputs
func.func @no_inputs(%c: tensor<i1>) -> tensor<2xi64> {
  // CHECK: top.if %{{.*}} () : (tensor<i1>) -> tensor<2xi64> {
  %y = top.if %c () : (tensor<i1>) -> tensor<2xi64> {
    %a = top.weight "a" {value = dense<[1, 2]> : tensor<2xi64>} : tensor<2xi64>
    top.yield %a : tensor<2xi64>
  }, {
    %b = top.weight "b" {value = dense<[3, 4]> : tensor<2xi64>} : tensor<2xi64>
    top.yield %b : tensor<2xi64>
  }
  return %y : tensor<2xi64>
}

// -----
// CHECK-LABEL: func.func @loop
func.func @loop(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<1x4xf32>, %k: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // CHECK: top.loop %{{.*}}, %{{.*}}, (%{{.*}}), (%{{.*}}) : (tensor<i64>, tensor<i1>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32> {
  // CHECK: ^bb0(%{{.*}}: tensor<i64>, %[[GO:.*]]: tensor<i1>, %[[V:.*]]: tensor<1x4xf32>, %[[K:.*]]: tensor<1x4xf32>):
  // CHECK: top.mul %[[V]], %[[K]]
  // CHECK: top.yield %[[GO]], %{{.*}} : tensor<i1>, tensor<1x4xf32>
  %r = top.loop %m, %c, (%x), (%k) : (tensor<i64>, tensor<i1>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%i: tensor<i64>, %go: tensor<i1>, %v: tensor<1x4xf32>, %kk: tensor<1x4xf32>):
    %n = top.mul %v, %kk : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    top.yield %go, %n : tensor<i1>, tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}

// -----
// CHECK-LABEL: func.func @loop_none
func.func @loop_none(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %none = top.none : none
  // CHECK: top.loop %{{.*}}, %{{.*}}, (%{{.*}}), () : (none, none, tensor<1x4xf32>) -> tensor<1x4xf32> {
  %r = top.loop %none, %none, (%x), () : (none, none, tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%i: tensor<i64>, %go: tensor<i1>, %v: tensor<1x4xf32>):
    %s = top.sigmoid %v : tensor<1x4xf32> -> tensor<1x4xf32>
    %stop = top.weight "stop" {value = dense<false> : tensor<i1>} : tensor<i1>
    top.yield %stop, %s : tensor<i1>, tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}
