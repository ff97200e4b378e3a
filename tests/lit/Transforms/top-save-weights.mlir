// Saving keeps only the arrays the IR references, in IR order, and errors name the missing array.
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %python -c "import numpy as np; np.savez('in.npz', b=np.arange(3, dtype=np.float32), a=np.ones((2,2), np.float16), unused=np.zeros(5))"
// RUN: tpuc-opt %s --split-input-file --top-save-weights=file=out.npz --verify-diagnostics | FileCheck %s
// RUN: %python -c "import numpy as np; d = np.load('out.npz'); print(d.files, d['a'].dtype, d['b'].tolist())" | FileCheck %s --check-prefix=NPZ
// NPZ: ['a', 'b'] float16 [0.0, 1.0, 2.0]

// CHECK: top.weight_file = "out.npz"
module attributes {top.weight_file = "in.npz"} {
  func.func @f() -> (tensor<2x2xf16>, tensor<3xf32>) {
    %a = top.weight "a" : tensor<2x2xf16>
    %b = top.weight "b" : tensor<3xf32>
    return %a, %b : tensor<2x2xf16>, tensor<3xf32>
  }
}

// -----

module attributes {top.weight_file = "in.npz"} {
  func.func @missing() -> tensor<3xf32> {
    // expected-error @+1 {{weight 'nope' is not in the weight file 'in.npz'}}
    %a = top.weight "nope" : tensor<3xf32>
    return %a : tensor<3xf32>
  }
}

// -----

module attributes {top.weight_file = "does_not_exist.npz"} {
  func.func @no_file() -> tensor<3xf32> {
    // expected-error @+1 {{cannot read weight file: }}
    %a = top.weight "a" : tensor<3xf32>
    return %a : tensor<3xf32>
  }
}
