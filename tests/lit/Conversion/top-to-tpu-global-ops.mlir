// Ops with no import path of their own (TPU-MLIR Top IR brings them) lower to the chip too: top.groupnorm
// as a float-only tpu.groupnorm, top.arange (a range too long to fold) as a weight of its values. F32 runs
// bit-exact against the reference interpreter; F16 and BF16 within their rounding (|diff| < 0.02 and 0.15
// here, where the outputs reach 30).
// RUN: rm -rf %t && mkdir -p %t
// RUN: tpuc-opt %s --top-to-tpu=mode=F16 --mlir-print-local-scope | FileCheck %s
// RUN: %python -c "import numpy as np; rng = np.random.default_rng(0); \
// RUN:   np.savez('%t/in.npz', x=rng.standard_normal((1, 4, 6, 6)).astype(np.float32), \
// RUN:            v=rng.standard_normal((1, 200)).astype(np.float32))"
// RUN: tpuc run --model %s --input %t/in.npz --output %t/top.npz
// RUN: tpuc-opt %s --top-to-tpu=mode=F32 --mlir-print-debuginfo -o %t/f32.mlir
// RUN: tpuc-opt %s --top-to-tpu=mode=F16 --mlir-print-debuginfo -o %t/f16.mlir
// RUN: tpuc-opt %s --top-to-tpu=mode=BF16 --mlir-print-debuginfo -o %t/bf16.mlir
// RUN: tpuc run --model %t/f32.mlir --input %t/in.npz --output %t/f32.npz
// RUN: tpuc run --model %t/f16.mlir --input %t/in.npz --output %t/f16.npz
// RUN: tpuc run --model %t/bf16.mlir --input %t/in.npz --output %t/bf16.npz
// RUN: %python -c "import numpy as np; a = np.load('%t/top.npz'); \
// RUN:   out = lambda b, n: b[n] if n in b.files else b[n + '_f32']; \
// RUN:   d = {m: max(float(np.abs(a[n] - out(np.load('%t/' + m + '.npz'), n)).max()) for n in a.files) \
// RUN:        for m in ('f32', 'f16', 'bf16')}; \
// RUN:   print(sorted(a.files), d['f32'], d['f16'] < 0.02, d['bf16'] < 0.15)" | FileCheck %s --check-prefix=RUNS
// RUNS: ['normed', 'shifted'] 0.0 True True

// CHECK: tpu.groupnorm %{{.*}}, %{{.*}}, %{{.*}} {num_groups = 2 : i64, precision = #top.precision<F16>} : (tensor<1x4x6x6xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<1x4x6x6xf16>
// CHECK: %[[R:.*]] = top.weight "positions_values" {{.*}} : tensor<200xf32>
// CHECK-NOT: top.arange
// CHECK: tpu.cast %[[R]] {precision = #top.precision<F16>} : (tensor<200xf32>) -> tensor<200xf16>
module attributes {top.state = #top.state<TOP_F32>} {
  func.func @main(%arg0: tensor<1x4x6x6xf32> loc("x"), %arg1: tensor<1x200xf32> loc("v"))
      -> (tensor<1x4x6x6xf32>, tensor<1x200xf32>) {
    %x = top.input %arg0 : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32> loc("x")
    %v = top.input %arg1 : tensor<1x200xf32> -> tensor<1x200xf32> loc("v")
    %g = top.weight "gamma" {value = dense<[0.5, 1.0, 1.5, 2.0]> : tensor<4xf32>} : tensor<4xf32> loc("gamma")
    %b = top.weight "beta" {value = dense<[0.25, -0.25, 0.5, -0.5]> : tensor<4xf32>} : tensor<4xf32> loc("beta")
    %n = top.groupnorm %x, %g, %b {num_groups = 2 : i64, eps = 1.0e-05 : f64}
        : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32> loc("normed")
    %r = top.arange {start = 0.0 : f64, limit = 30.0 : f64, delta = 0.15 : f64} : () -> tensor<200xf32> loc("positions")
    %s = top.add %v, %r : (tensor<1x200xf32>, tensor<200xf32>) -> tensor<1x200xf32> loc("shifted")
    return %n, %s : tensor<1x4x6x6xf32>, tensor<1x200xf32>
  }
}
