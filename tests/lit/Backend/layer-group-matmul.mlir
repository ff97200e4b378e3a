// tpu-layer-group gives matmul its local (row) form: a transformer feed-forward block on [1, 2048, 256]
// F16 activations (matmul -> bias add -> GELU -> matmul -> bias add -> residual add) is one LMEM group
// cut along its rows (C of the NCHW view [1, 2048, 256, 1]; the feature axis stays whole, the weights
// stay resident); fc1's, the bias add's and GELU's results never leave LMEM. The layernorm after the
// residual add joins the group (its row form: whole rows, gamma and beta resident), so the residual's
// result stays in LMEM too. opt=0 plans every op alone: a matmul or the layernorm alone runs global
// (cheaper than a one-op group).
// RUN: tpuc-opt %S/Inputs/ffn.mlir --tpu-layer-group | FileCheck %s
// RUN: tpuc-opt %S/Inputs/ffn.mlir --tpu-layer-group=opt=0 | FileCheck %s --check-prefix=OPT0
// RUN: rm -rf %t && mkdir -p %t
// RUN: tpuc-opt %S/Inputs/ffn.mlir --tpu-layer-group=plan=%t/plan.json -o /dev/null
// RUN: %python %S/Inputs/check_rows.py %t/plan.json | FileCheck %s --check-prefix=PLAN

// CHECK: tpu.groups = 1 : i64
// CHECK: tpu.matmul {{.*}}tpu.group = #tpu.group<id = 0, kind = group, slices = [1, [[C:[0-9]+]], 1, 1], lmem_only = true>
// CHECK: tpu.add {{.*}}tpu.group = #tpu.group<id = 0, kind = group, slices = [1, [[C]], 1, 1], unit = 1, lmem_only = true>
// CHECK: tpu.active {{.*}}tpu.group = #tpu.group<id = 0, kind = group, slices = [1, [[C]], 1, 1], unit = 2, lmem_only = true>
// CHECK: tpu.matmul {{.*}}tpu.group = #tpu.group<id = 0, kind = group, slices = [1, [[C]], 1, 1], unit = 3, lmem_only = true>
// CHECK: tpu.add {{.*}}tpu.group = #tpu.group<id = 0, kind = group, slices = [1, [[C]], 1, 1], unit = 4, lmem_only = true>
// CHECK: tpu.add {{.*}}tpu.group = #tpu.group<id = 0, kind = group, slices = [1, [[C]], 1, 1], unit = 5, lmem_only = true>
// CHECK: tpu.layernorm {{.*}}tpu.group = #tpu.group<id = 0, kind = group, slices = [1, [[C]], 1, 1], unit = 6>

// OPT0: tpu.groups = 7 : i64
// OPT0: tpu.matmul {{.*}}tpu.group = #tpu.group<id = 0, kind = global>
// OPT0: tpu.layernorm {{.*}}tpu.group = #tpu.group<id = 6, kind = global>

// Every slice of the group holds whole rows: each value's feature axis (h of the view) is whole, the
// rows (c) tile 0..2048, and the weights are loaded once (resident).
// PLAN: group 0 ops fc1,fc1_bias,gelu,fc2,fc2_bias,residual,norm
// PLAN: rows whole features: True
// PLAN: rows tile: True
// PLAN: resident weights: w1,b1,w2,b2,g,bt
