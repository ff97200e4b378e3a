// tpu-address-assign: weights in the coefficient region from 0, activations after it; results that stay
// in a group's LMEM get no address; the reshape shares its operand's buffer; the plan JSON is written.
// RUN: tpuc-opt %S/Inputs/small.mlir --tpu-layer-group --tpu-address-assign=plan=%t.json \
// RUN:   --top-verify-state=state=TPU_ADDRESSED | FileCheck %s
// RUN: %python -c "import json,sys; p=json.load(open('%t.json')); print(p['schema'], p['chip']['name'], len(p['groups']), p['gmem']['coeff_bytes'])" \
// RUN:   | FileCheck %s --check-prefix=PLAN

// CHECK: module attributes {{{.*}}top.state = #top.state<TPU_ADDRESSED>, top.weight_file = "WEIGHTS", tpu.activation_base = [[BASE:[0-9]+]] : i64, tpu.activation_bytes = {{[0-9]+}} : i64, tpu.activation_lower_bound = {{[0-9]+}} : i64, tpu.coeff_bytes = [[BASE]] : i64
// CHECK: top.input {{.*}}tpu.address = [[X:[0-9]+]] : i64
// CHECK: top.weight "w1" {tpu.address = 0 : i64}
// CHECK: top.weight "w2" {tpu.address = 9216 : i64}
// CHECK: top.weight "w3" {tpu.address = 18432 : i64}
// CHECK-NOT: address =
// CHECK: tpu.pool2d {{.*}}address = [[P:[0-9]+]] : i64
// CHECK: tpu.reshape {{.*}}address = [[P]] : i64
// CHECK: tpu.matmul {{.*}}address = {{[0-9]+}} : i64

// PLAN: tpuc-backend-plan bm1684x 3 59392
