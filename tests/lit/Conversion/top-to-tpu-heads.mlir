// The ops of the LLM heads (greedy_head, sample_head) lower to float-only Tpu ops in every mode: topk keeps
// i32 indices, compare yields a 0 / 1 mask in the op's float type (its i1 -> f32 cast disappears), where,
// cumsum and repetition_penalty compute in the precision. The numbers are checked by running the lowered
// IR on the Tpu simulator against the reference interpreter: the BF16 candidates and their order equal the
// float ones here (the logits are bf16-exact and far apart).
// RUN: rm -rf %t && mkdir -p %t
// RUN: tpuc-opt %s --top-to-tpu=mode=BF16 --top-verify-state=state=TPU_LOWERED --mlir-print-local-scope | FileCheck %s
// RUN: tpuc-opt %s --top-to-tpu=mode=INT8 --top-verify-state=state=TPU_LOWERED --mlir-print-local-scope \
// RUN:   | FileCheck %s --check-prefix=INT8
// RUN: %python -c "import numpy as np; \
// RUN:   np.savez('%t/in.npz', logits=np.array([[0.5, -2.0, 3.0, 1.0, -0.25, 2.0, 0.0, 4.0]], np.float32), \
// RUN:            ids=np.array([[7, 1, 7, -1]], np.int32), penalty=np.array([2.0], np.float32), \
// RUN:            top_p=np.array([0.75], np.float32))"
// RUN: tpuc-opt %s --top-to-tpu=mode=BF16 --mlir-print-debuginfo -o %t/bf16.mlir
// RUN: tpuc run --model %s --input %t/in.npz --output %t/top.npz
// RUN: tpuc run --model %t/bf16.mlir --input %t/in.npz --output %t/tpu.npz
// RUN: %python -c "import numpy as np; a = np.load('%t/top.npz'); b = np.load('%t/tpu.npz'); \
// RUN:   print(sorted(b.files), b['tokens_1'].astype(int).tolist(), a['tokens_1'].astype(int).tolist(), b['masked_f32'].tolist())" \
// RUN:   | FileCheck %s --check-prefix=RUNS
// RUNS: ['masked_f32', 'tokens_1'] {{\[\[2, 5, 7, 3\]\] \[\[2, 5, 7, 3\]\] \[\[3.0, 2.0, -1000.0, -1000.0\]\]}}

// CHECK-LABEL: func.func @sample
// CHECK: tpu.repetition_penalty %{{.*}}, %{{.*}}, %{{.*}} {precision = #top.precision<BF16>} : (tensor<1x8xbf16>, tensor<1x4xi32>, tensor<1xbf16>) -> tensor<1x8xbf16>
// CHECK: tpu.topk %{{.*}} {axis = 1 : i64, k = 4 : i64, precision = #top.precision<BF16>} : (tensor<1x8xbf16>) -> (tensor<1x4xbf16>, tensor<1x4xi32>)
// CHECK: tpu.cumsum %{{.*}} {axis = 1 : i64, precision = #top.precision<BF16>}
// CHECK: %[[M:.*]] = tpu.compare %{{.*}}, %{{.*}} {mode = #top.compare_mode<lt>, precision = #top.precision<BF16>} : (tensor<1x4xbf16>, tensor<1xbf16>) -> tensor<1x4xbf16>
// CHECK-NOT: tpu.cast %[[M]]
// CHECK: tpu.where %[[M]], %{{.*}}, %{{.*}} {precision = #top.precision<BF16>} : (tensor<1x4xbf16>, tensor<1x4xbf16>, tensor<1xbf16>) -> tensor<1x4xbf16>
// INT8-LABEL: func.func @sample
// INT8: tpu.topk %{{.*}} {axis = 1 : i64, k = 4 : i64, precision = #top.precision<F32>} : (tensor<1x8xf32>) -> (tensor<1x4xf32>, tensor<1x4xi32>)
// INT8: tpu.where %{{.*}} {precision = #top.precision<F32>}
func.func @sample(%arg0: tensor<1x8xf32> loc("logits"), %arg1: tensor<1x4xi32> loc("ids"),
                  %arg2: tensor<1xf32> loc("penalty"), %arg3: tensor<1xf32> loc("top_p"))
    -> (tensor<1x4xf32>, tensor<1x4xi32>) {
  %0 = "top.input"(%arg0) : (tensor<1x8xf32>) -> tensor<1x8xf32> loc("logits")
  %1 = "top.input"(%arg1) : (tensor<1x4xi32>) -> tensor<1x4xi32> loc("ids")
  %2 = "top.input"(%arg2) : (tensor<1xf32>) -> tensor<1xf32> loc("penalty")
  %3 = "top.input"(%arg3) : (tensor<1xf32>) -> tensor<1xf32> loc("top_p")
  %4 = "top.repetition_penalty"(%0, %1, %2) : (tensor<1x8xf32>, tensor<1x4xi32>, tensor<1xf32>) -> tensor<1x8xf32> loc("penalized")
  %5:2 = "top.topk"(%4) {axis = 1 : i64, k = 4 : i64} : (tensor<1x8xf32>) -> (tensor<1x4xf32>, tensor<1x4xi32>) loc("tokens")
  %6 = "top.softmax"(%5#0) {axis = 1 : i64} : (tensor<1x4xf32>) -> tensor<1x4xf32> loc("probs")
  %7 = "top.cumsum"(%6) {axis = 1 : i64} : (tensor<1x4xf32>) -> tensor<1x4xf32> loc("cumulative")
  %8 = "top.compare"(%7, %3) {mode = #top.compare_mode<lt>} : (tensor<1x4xf32>, tensor<1xf32>) -> tensor<1x4xi1> loc("below")
  %9 = "top.cast"(%8) : (tensor<1x4xi1>) -> tensor<1x4xf32> loc("below_f32")
  %10 = "top.weight"() {name = "dropped", value = dense<-1000.0> : tensor<1xf32>} : () -> tensor<1xf32> loc("dropped")
  %11 = "top.where"(%9, %5#0, %10) : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1xf32>) -> tensor<1x4xf32> loc("masked")
  return %11, %5#1 : tensor<1x4xf32>, tensor<1x4xi32>
}
