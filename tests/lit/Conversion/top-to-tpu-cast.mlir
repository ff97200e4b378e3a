// top.cast from integers to float (RoPE's position ids) lowers to a tpu.cast to f32 in every mode, so the
// cast itself is exact; consumers then cast to their own precision (a BF16 consumer holds integers exactly
// up to 256 only: keep such ops in F32 with a quantize table for longer contexts). A top.none that stands after the first op
// needing one moves to the top of the function (it dominates every use the lowering creates). Float to
// integer casts (truncation) have no Tpu form: one line naming the op. The numbers are checked by running
// the lowered IR on the Tpu simulator against the reference interpreter.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import sys; parts = open(sys.argv[1]).read().split(chr(10) + '// ' + '-----' + chr(10)); \
// RUN:   [open(f'%t/part{i}.mlir', 'w').write(p) for i, p in enumerate(parts)]" %s
// RUN: tpuc-opt %t/part0.mlir --top-to-tpu=mode=BF16 --top-verify-state=state=TPU_LOWERED --mlir-print-local-scope \
// RUN:   | FileCheck %s --check-prefix=CAST
// RUN: tpuc-opt %t/part1.mlir --top-to-tpu=mode=BF16 --top-verify-state=state=TPU_LOWERED --mlir-print-local-scope \
// RUN:   | FileCheck %s --check-prefix=NONE
// RUN: not tpuc-opt %t/part2.mlir --mlir-print-op-on-diagnostic=false --top-to-tpu=mode=BF16 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TRUNC
// TRUNC: error: top-to-tpu: op 'top.cast' 'ints': has no Tpu lowering from f32 to this element type (only integer to float)
// RUN: %python -c "import numpy as np; \
// RUN:   np.savez('%t/in.npz', pos=np.array([[0, 1, 200, 256]], np.int32))"
// RUN: tpuc-opt %t/part0.mlir --top-to-tpu=mode=BF16 --mlir-print-debuginfo -o %t/part0_bf16.mlir
// RUN: tpuc run --model %t/part0.mlir --input %t/in.npz --output %t/top.npz
// RUN: tpuc run --model %t/part0_bf16.mlir --input %t/in.npz --output %t/tpu.npz --dump_all_tensors
// RUN: %python -c "import numpy as np; a = np.load('%t/top.npz'); b = np.load('%t/tpu.npz'); \
// RUN:   print([ (k, np.array_equal(a[k], b[k])) for k in a.files ])" | FileCheck %s --check-prefix=RUNS
// RUNS: [('positions', True)]

// CAST-LABEL: func.func @positions
// CAST: %[[P:.*]] = tpu.cast %{{.*}} {precision = #top.precision<F32>} : (tensor<1x4xi32>) -> tensor<1x4xf32>
// CAST: %[[B:.*]] = tpu.cast %[[P]] {precision = #top.precision<BF16>}
// CAST: tpu.reshape %[[B]] {precision = #top.precision<BF16>}
func.func @positions(%arg0: tensor<1x4xi32> loc("pos")) -> tensor<4x1xf32> {
  %0 = "top.input"(%arg0) : (tensor<1x4xi32>) -> tensor<1x4xi32> loc("pos")
  %1 = "top.cast"(%0) : (tensor<1x4xi32>) -> tensor<1x4xf32> loc("positions_f")
  %2 = "top.reshape"(%1) : (tensor<1x4xf32>) -> tensor<4x1xf32> loc("positions")
  return %2 : tensor<4x1xf32>
}

// -----

// NONE-LABEL: func.func @late_none
// NONE-NEXT: %[[NONE:.*]] = top.none
// NONE: tpu.active %{{.*}}, %[[NONE]] {active_mode = #tpu.active_mode<sigmoid>
func.func @late_none(%arg0: tensor<1x4xf32> loc("x")) -> tensor<1x4xf32> {
  %0 = "top.input"(%arg0) : (tensor<1x4xf32>) -> tensor<1x4xf32> loc("x")
  %1 = "top.sigmoid"(%0) : (tensor<1x4xf32>) -> tensor<1x4xf32> loc("sig")
  %2 = "top.none"() : () -> none loc("none")
  %3 = "top.weight"() {name = "w", value = dense<1.0> : tensor<4x4xf32>} : () -> tensor<4x4xf32> loc("w")
  %4 = "top.matmul"(%1, %3, %2) : (tensor<1x4xf32>, tensor<4x4xf32>, none) -> tensor<1x4xf32> loc("mm")
  return %4 : tensor<1x4xf32>
}

// -----

func.func @truncate(%arg0: tensor<1x4xf32> loc("x")) -> tensor<1x4xi32> {
  %0 = "top.input"(%arg0) : (tensor<1x4xf32>) -> tensor<1x4xf32> loc("x")
  %1 = "top.cast"(%0) : (tensor<1x4xf32>) -> tensor<1x4xi32> loc("ints")
  return %1 : tensor<1x4xi32>
}
