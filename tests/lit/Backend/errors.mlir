// Backend passes reject the wrong state, unknown chips and models larger than the chip's DDR.
// RUN: not tpuc-opt %S/Inputs/small.mlir --tpu-address-assign 2>&1 | FileCheck %s --check-prefix=STATE
// RUN: not tpuc-opt %S/Inputs/small.mlir --tpu-layer-group=chip=bm9999 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tpuc-opt %S/Inputs/small.mlir --tpu-layer-group=opt=3 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: env TPUC_CHIP_DIR=%S/Inputs not tpuc-opt %S/Inputs/small.mlir --tpu-layer-group=chip=tinyddr \
// RUN:   --tpu-address-assign=chip=tinyddr 2>&1 | FileCheck %s --check-prefix=DDR
// RUN: tpuc-opt %S/Inputs/small.mlir --tpu-layer-group | sed 's/id = 2, kind = global/id = 1, kind = global/' \
// RUN:   | not tpuc-opt --tpu-address-assign 2>&1 | FileCheck %s --check-prefix=EDITED

// STATE: error: tpu-address-assign: expects the module in state TPU_GROUPED, found TPU_LOWERED
// CHIP: error: unknown chip 'bm9999'
// OPT: error: tpu-layer-group: opt must be 0, 1 or 2, got 3
// DDR: error: backend: chip tinyddr: model needs {{[0-9]+}} bytes of DDR, the profile has 65536
// EDITED: error: 'tpu.matmul' op is in group 1 but a fresh plan puts it in group 2; re-run tpu-layer-group after editing the IR
