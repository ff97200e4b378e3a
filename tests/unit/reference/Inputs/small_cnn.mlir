// A small CNN for the interpreter tests: conv+relu, maxpool, depthwise conv, batchnorm, an unnamed relu,
// a residual add, global pooling, a classifier and softmax. Weights, input and the NumPy value of every
// tensor are in small_cnn.npz, written by small_cnn.py (the test points top.weight_file at it).
module attributes {top.weight_file = "small_cnn.npz"} {
  func.func @main(%arg0: tensor<1x3x16x16xf32>) -> (tensor<1x10xf32>, tensor<1x8x8x8xf32>) {
    %x = top.input %arg0 : tensor<1x3x16x16xf32> -> tensor<1x3x16x16xf32> loc("images")
    %none = top.none : none
    %w1 = top.weight "conv1_w" : tensor<8x3x3x3xf32>
    %b1 = top.weight "conv1_b" : tensor<8xf32>
    %c1 = top.conv %x, %w1, %b1 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64, do_relu = true} : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32> loc("conv1")
    %p1 = top.maxpool %c1 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x8x16x16xf32> -> tensor<1x8x8x8xf32> loc("pool1")
    %w2 = top.weight "dw_w" : tensor<8x1x3x3xf32>
    %c2 = top.conv %p1, %w2, %none {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 8 : i64} : (tensor<1x8x8x8xf32>, tensor<8x1x3x3xf32>, none) -> tensor<1x8x8x8xf32> loc(fused["dw_conv", "dw_conv_fused"])
    %mean = top.weight "bn_mean" : tensor<8xf32>
    %var = top.weight "bn_var" : tensor<8xf32>
    %gamma = top.weight "bn_gamma" : tensor<8xf32>
    %beta = top.weight "bn_beta" : tensor<8xf32>
    %bn = top.batchnorm %c2, %mean, %var, %gamma, %beta {epsilon = 1.0e-05 : f64} : (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32> loc("bn")
    %r = top.relu %bn : tensor<1x8x8x8xf32> -> tensor<1x8x8x8xf32>
    %add = top.add %r, %p1 : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> loc("add")
    %gap = top.adaptive_avgpool %add {output_size = array<i64: 1, 1>} : tensor<1x8x8x8xf32> -> tensor<1x8x1x1xf32> loc("gap")
    %flat = top.reshape %gap : tensor<1x8x1x1xf32> -> tensor<1x8xf32> loc("flatten")
    %fw = top.weight "fc_w" : tensor<10x8xf32>
    %fb = top.weight "fc_b" : tensor<10xf32>
    %fc = top.matmul %flat, %fw, %fb {right_transpose = true} : (tensor<1x8xf32>, tensor<10x8xf32>, tensor<10xf32>) -> tensor<1x10xf32> loc("fc")
    %prob = top.softmax %fc {axis = 1 : i64} : tensor<1x10xf32> -> tensor<1x10xf32> loc("prob")
    return %prob, %add : tensor<1x10xf32>, tensor<1x8x8x8xf32>
  }
}
