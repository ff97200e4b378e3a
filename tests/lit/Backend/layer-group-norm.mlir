// tpu-layer-group gives layernorm and softmax along the last axis their local (row) form: the scaled
// attention scores [1, 4, 256, 256] -> softmax -> cast form one LMEM group cut along the rows (H of the
// NCHW view; the normalized W stays whole), and bias add -> residual add -> layernorm on [1, 256, 256]
// another (rows are C of the view [1, 256, 256, 1]; gamma and beta resident). Only the cast's and the
// layernorm's results leave LMEM.
// RUN: tpuc-opt %S/Inputs/encoder_tails.mlir --tpu-layer-group | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: tpuc-opt %S/Inputs/encoder_tails.mlir --tpu-layer-group=plan=%t/plan.json -o /dev/null
// RUN: %python %S/Inputs/check_rows.py %t/plan.json 0 | FileCheck %s --check-prefix=SOFTMAX
// RUN: %python %S/Inputs/check_rows.py %t/plan.json 1 | FileCheck %s --check-prefix=NORM

// CHECK: tpu.groups = 2 : i64
// CHECK: tpu.mul_const {{.*}}tpu.group = #tpu.group<id = 0, kind = group, slices = [1, 1, [[H:[0-9]+]], 1], lmem_only = true>
// CHECK: tpu.softmax {{.*}}tpu.group = #tpu.group<id = 0, kind = group, slices = [1, 1, [[H]], 1], unit = 1, lmem_only = true>
// CHECK: tpu.cast {{.*}}tpu.group = #tpu.group<id = 0, kind = group, slices = [1, 1, [[H]], 1], unit = 2>
// CHECK: tpu.add {{.*}}tpu.group = #tpu.group<id = 1, kind = group, slices = [1, [[C:[0-9]+]], 1, 1], lmem_only = true>
// CHECK: tpu.add {{.*}}tpu.group = #tpu.group<id = 1, kind = group, slices = [1, [[C]], 1, 1], unit = 1, lmem_only = true>
// CHECK: tpu.layernorm {{.*}}tpu.group = #tpu.group<id = 1, kind = group, slices = [1, [[C]], 1, 1], unit = 2>

// SOFTMAX: group 0 ops scaled,probs,probs_f32
// SOFTMAX: rows whole features: True
// SOFTMAX: rows tile: True
// SOFTMAX: resident weights:{{ *$}}

// NORM: group 1 ops attn_bias,residual,norm
// NORM: rows whole features: True
// NORM: rows tile: True
// NORM: resident weights: b,g,bt
