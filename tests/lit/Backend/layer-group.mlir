// tpu-layer-group records groups on the IR: conv -> relu -> conv -> maxpool form one LMEM group (c1, r1,
// c2 stay in local memory), reshape and matmul run as global ops; opt=0 puts every op alone.
// RUN: tpuc-opt %S/Inputs/small.mlir --tpu-layer-group | FileCheck %s
// RUN: tpuc-opt %S/Inputs/small.mlir --tpu-layer-group --top-verify-state=state=TPU_GROUPED -o /dev/null
// RUN: tpuc-opt %S/Inputs/small.mlir --tpu-layer-group=opt=0 | FileCheck %s --check-prefix=OPT0
// RUN: tpuc-opt %S/Inputs/small.mlir --tpu-layer-group=opt=1 | FileCheck %s --check-prefix=GREEDY

// CHECK: module attributes {{{.*}}top.state = #top.state<TPU_GROUPED>, top.weight_file = "WEIGHTS", tpu.cycles = {{[0-9]+}} : i64, tpu.groups = 3 : i64, tpu.num_core = 1 : i64, tpu.opt = 2 : i64}
// CHECK: tpu.conv2d {{.*}}tpu.group = #tpu.group<id = 0, kind = group, slices = [1, 1, 1, 1], lmem_only = true>
// CHECK: tpu.relu {{.*}}tpu.group = #tpu.group<id = 0, kind = group, slices = [1, 1, 1, 1], unit = 1, lmem_only = true>
// CHECK: tpu.conv2d {{.*}}tpu.group = #tpu.group<id = 0, kind = group, slices = [1, 1, 1, 1], unit = 2, lmem_only = true>
// CHECK: tpu.pool2d {{.*}}tpu.group = #tpu.group<id = 0, kind = group, slices = [1, 1, 1, 1], unit = 3>
// CHECK: tpu.reshape {{.*}}tpu.group = #tpu.group<id = 1, kind = global>
// CHECK: tpu.matmul {{.*}}tpu.group = #tpu.group<id = 2, kind = global>

// OPT0: tpu.groups = 6 : i64, tpu.num_core = 1 : i64, tpu.opt = 0 : i64
// OPT0: tpu.conv2d {{.*}}tpu.group = #tpu.group<id = 0, kind = group, slices = [{{[0-9, ]+}}]>}
// OPT0: tpu.relu {{.*}}tpu.group = #tpu.group<id = 1, kind = group, slices = [{{[0-9, ]+}}]>}

// GREEDY: tpu.groups = 3 : i64, tpu.num_core = 1 : i64, tpu.opt = 1 : i64
