//===- TpuOps.td - Tpu dialect operations ------------------*- tablegen -*-===//
// The Tpu op set. This is the skeleton the lowering starts from; the backend issues grow it.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TPU_OPS
#define TPUC_TPU_OPS

include "tpuc/Dialect/Tpu/TpuBase.td"

def Tpu_Conv2DOp : Tpu_Op<"conv2d"> {
  let summary = "2-D convolution in one precision (category: conv)";
  let description = [{
    Lowered `top.conv`. In INT8 the filter is int8 per output channel, the bias int32, and `multiplier` /
    `rshift` (one per output channel) bring the int32 accumulator back to int8.

    ```mlir
    %y = tpu.conv2d %x, %w, %b {precision = #top.precision<INT8>, kernel_shape = array<i64: 3, 3>,
                                strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
                                dilations = array<i64: 1, 1>, multiplier = array<i64: 19005, 17002>,
                                rshift = array<i64: 20, 20>}
        : (tensor<1x3x8x8x!quant.uniform<i8:f32, 0.02>>, tensor<2x3x3x3xi8>, tensor<2xi32>)
        -> tensor<1x2x8x8x!quant.uniform<i8:f32, 0.05>>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$filter, Tpu_TensorOrNone:$bias,
                            DenseI64ArrayAttr:$kernel_shape, DenseI64ArrayAttr:$strides,
                            DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                            DefaultValuedAttr<I64Attr, "1">:$group,
                            DefaultValuedAttr<BoolAttr, "false">:$do_relu,
                            DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit),
                       Tpu_RequantAttrs, Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_MatMulOp : Tpu_Op<"matmul"> {
  let summary = "Batched matrix multiplication in one precision (category: matmul)";
  let description = [{
    Lowered `top.matmul`, with per-tensor or per-channel requantization in INT8.

    ```mlir
    %y = tpu.matmul %x, %w, %none {precision = #top.precision<BF16>, right_transpose = true}
        : (tensor<1x16x64xbf16>, tensor<128x64xbf16>, none) -> tensor<1x16x128xbf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$right, Tpu_TensorOrNone:$bias,
                            DefaultValuedAttr<BoolAttr, "false">:$left_transpose,
                            DefaultValuedAttr<BoolAttr, "false">:$right_transpose,
                            DefaultValuedAttr<BoolAttr, "false">:$do_relu,
                            DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit),
                       Tpu_RequantAttrs, Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_A16MatMulOp : Tpu_Op<"a16matmul"> {
  let summary = "Weight-only int4/int8 matmul with f16/bf16 activations (category: matmul)";
  let description = [{
    Lowered `top.a16matmul`; precision is W4F16, W4BF16, W8F16 or W8BF16.

    ```mlir
    %y = tpu.a16matmul %x, %q, %s, %none, %none {precision = #top.precision<W4BF16>, weight_bits = 4 : i64,
                                                 q_group_size = 64 : i64}
        : (tensor<1x8x128xbf16>, tensor<256x64xui8>, tensor<256x2xbf16>, none, none) -> tensor<1x8x256xbf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$weight, Tpu_Tensor:$scale,
                            Tpu_TensorOrNone:$zp, Tpu_TensorOrNone:$bias, I64Attr:$weight_bits,
                            I64Attr:$q_group_size, DefaultValuedAttr<BoolAttr, "true">:$sym),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_AddOp : Tpu_Op<"add"> {
  let summary = "Element-wise sum with broadcasting (category: elementwise)";
  let description = [{
    Lowered `top.add`. In INT8 each input is rescaled to the output scale by its own `multiplier` /
    `rshift` before the sum.

    ```mlir
    %y = tpu.add %a, %b {precision = #top.precision<F16>} : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$lhs, Tpu_Tensor:$rhs,
                            DefaultValuedAttr<BoolAttr, "false">:$do_relu,
                            DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit),
                       Tpu_RequantAttrs, Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_ReluOp : Tpu_Op<"relu"> {
  let summary = "Rectified linear unit (category: activation)";
  let description = [{
    Lowered `top.relu` that could not be fused into its producer.

    ```mlir
    %y = tpu.relu %x {precision = #top.precision<F32>} : (tensor<1x4xf32>) -> tensor<1x4xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_Pool2DOp : Tpu_Op<"pool2d"> {
  let summary = "2-D max or average pooling (category: pool)";
  let description = [{
    Lowered `top.maxpool` / `top.avgpool`. INT8 average pooling divides through `multiplier` / `rshift`.

    ```mlir
    %y = tpu.pool2d %x {precision = #top.precision<F32>, pool_mode = #tpu.pool_mode<max>,
                        kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>}
        : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_PoolModeAttr:$pool_mode,
                            DenseI64ArrayAttr:$kernel_shape, DenseI64ArrayAttr:$strides,
                            DenseI64ArrayAttr:$pads, DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                            DefaultValuedAttr<BoolAttr, "false">:$count_include_pad,
                            DefaultValuedAttr<BoolAttr, "false">:$do_relu,
                            DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit),
                       Tpu_RequantAttrs, Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_CastOp : Tpu_Op<"cast"> {
  let summary = "Converts between precisions at a boundary (category: cast)";
  let description = [{
    Float to float rounds to nearest even; float to `!quant.uniform` quantizes with the result's scale and
    zero point (round half away from zero, saturate); `!quant.uniform` to float dequantizes. `precision` is
    the precision of the result.

    ```mlir
    %q = tpu.cast %x {precision = #top.precision<INT8>} : (tensor<1x4xf32>) -> tensor<1x4x!quant.uniform<i8:f32, 0.1>>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input), Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_RequantIntOp : Tpu_Op<"requant_int"> {
  let summary = "Integer rescale of a quantized tensor (category: cast)";
  let description = [{
    `y = saturate(round((x - zp_in) * multiplier >> rshift) + zp_out)`, per tensor or per channel (axis 1):
    moves an int8 tensor from one scale to another without going through float.

    ```mlir
    %y = tpu.requant_int %x {precision = #top.precision<INT8>, multiplier = array<i64: 1717986918>,
                             rshift = array<i64: 31>}
        : (tensor<1x4x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x!quant.uniform<i8:f32, 0.25>>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, DenseI64ArrayAttr:$multiplier, DenseI64ArrayAttr:$rshift,
                            DefaultValuedAttr<Tpu_RequantModeAttr, "RequantMode::multiplier_shift">:$requant_mode),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

#endif // TPUC_TPU_OPS
