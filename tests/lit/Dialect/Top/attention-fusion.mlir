// RUN: tpuc-opt %s --canonicalize | FileCheck %s
// The fused graph computes what the spelled-out one does (a causal mask of rank 2, a div_const scale):
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(0); x = lambda: r.standard_normal((1, 4, 16, 8)).astype(np.float32); \
// RUN:   np.savez('%t/in.npz', q=x(), k=x(), v=x(), mask=np.triu(np.full((16, 16), -1e4, np.float32), 1))"
// RUN: tpuc run --model %S/Inputs/sdpa_main.mlir --input %t/in.npz --output %t/spelled.npz
// RUN: tpuc-opt %S/Inputs/sdpa_main.mlir --canonicalize --mlir-print-debuginfo -o %t/fused.mlir
// RUN: FileCheck %s --check-prefix=FUSED < %t/fused.mlir
// FUSED: top.attention {{.*}} {scale = 0.3535533905932737{{[0-9]}} : f64} {{.*}} tensor<16x16xf32>) -> tensor<1x16x4x8xf32>
// RUN: tpuc run --model %t/fused.mlir --input %t/in.npz --output %t/fused.npz
// RUN: %python -c "import numpy as np; a = np.load('%t/spelled.npz')['o']; b = np.load('%t/fused.npz')['o']; \
// RUN:   print(float(np.abs(a - b).max()) < 1e-6)" | FileCheck %s --check-prefix=NUM
// NUM: True

// Scaled-dot-product attention as exports spell it on [B, H, L, D]: matmul(softmax(q k^T * scale + mask), v)
// becomes top.attention on [B, L, H, D] with permutes in and out; the permute back composes with the
// export's own [0, 2, 1, 3] and both disappear. (Numbers: tests/models/sequence_models_equal.py, Top vs
// PyTorch, and the model file EQUAL to the Tpu simulation.)
// CHECK-LABEL: func.func @sdpa
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<1x4x16x8xf32>, %[[K:[a-z0-9]+]]: tensor<1x4x16x8xf32>, %[[V:[a-z0-9]+]]: tensor<1x4x16x8xf32>, %[[M:[a-z0-9]+]]: tensor<1x1x16x16xf32>)
// CHECK-DAG: %[[QT:.*]] = top.permute %[[Q]] {order = array<i64: 0, 2, 1, 3>}
// CHECK-DAG: %[[KT:.*]] = top.permute %[[K]] {order = array<i64: 0, 2, 1, 3>}
// CHECK-DAG: %[[VT:.*]] = top.permute %[[V]] {order = array<i64: 0, 2, 1, 3>}
// CHECK: %[[A:.*]] = top.attention %[[QT]], %[[KT]], %[[VT]], %[[M]] {scale = 0.35355339059327379 : f64}
// CHECK-NOT: top.softmax
// CHECK: return %[[A]]
func.func @sdpa(%q: tensor<1x4x16x8xf32>, %k: tensor<1x4x16x8xf32>, %v: tensor<1x4x16x8xf32>,
                %mask: tensor<1x1x16x16xf32>) -> tensor<1x16x4x8xf32> {
  %none = top.none : none
  %kt = top.permute %k {order = array<i64: 0, 1, 3, 2>} : tensor<1x4x16x8xf32> -> tensor<1x4x8x16xf32>
  %s = top.matmul %q, %kt, %none : (tensor<1x4x16x8xf32>, tensor<1x4x8x16xf32>, none) -> tensor<1x4x16x16xf32>
  %scaled = top.mul_const %s {const_val = 0.35355339059327379 : f64} : tensor<1x4x16x16xf32> -> tensor<1x4x16x16xf32>
  %masked = top.add %scaled, %mask : (tensor<1x4x16x16xf32>, tensor<1x1x16x16xf32>) -> tensor<1x4x16x16xf32>
  %p = top.softmax %masked {axis = 3 : i64} : tensor<1x4x16x16xf32> -> tensor<1x4x16x16xf32>
  %o = top.matmul %p, %v, %none : (tensor<1x4x16x16xf32>, tensor<1x4x16x8xf32>, none) -> tensor<1x4x16x8xf32>
  %t = top.permute %o {order = array<i64: 0, 2, 1, 3>} : tensor<1x4x16x8xf32> -> tensor<1x16x4x8xf32>
  return %t : tensor<1x16x4x8xf32>
}

// Left alone: a mask that differs per head, and scores read elsewhere (the attention map is an output).
// CHECK-LABEL: func.func @not_sdpa
// CHECK-NOT: top.attention
// CHECK: return
func.func @not_sdpa(%q: tensor<1x4x16x8xf32>, %k: tensor<1x4x16x8xf32>, %v: tensor<1x4x16x8xf32>,
                    %mask: tensor<1x4x16x16xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x16xf32>) {
  %none = top.none : none
  %kt = top.permute %k {order = array<i64: 0, 1, 3, 2>} : tensor<1x4x16x8xf32> -> tensor<1x4x8x16xf32>
  %s = top.matmul %q, %kt, %none : (tensor<1x4x16x8xf32>, tensor<1x4x8x16xf32>, none) -> tensor<1x4x16x16xf32>
  %masked = top.add %s, %mask : (tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32>
  %p = top.softmax %masked {axis = 3 : i64} : tensor<1x4x16x16xf32> -> tensor<1x4x16x16xf32>
  %o = top.matmul %p, %v, %none : (tensor<1x4x16x16xf32>, tensor<1x4x16x8xf32>, none) -> tensor<1x4x16x8xf32>
  %s2 = top.matmul %q, %kt, %none : (tensor<1x4x16x8xf32>, tensor<1x4x8x16xf32>, none) -> tensor<1x4x16x16xf32>
  %p2 = top.softmax %s2 {axis = 3 : i64} : tensor<1x4x16x16xf32> -> tensor<1x4x16x16xf32>
  %o2 = top.matmul %p2, %v, %none : (tensor<1x4x16x16xf32>, tensor<1x4x16x8xf32>, none) -> tensor<1x4x16x8xf32>
  return %o, %o2, %p2 : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x16xf32>
}
