//===- TpuElementwiseOps.td - Element-wise Tpu ops ----------*- tablegen -*-===//
// Categories: elementwise (binary, with a scalar) and activation (unary, lookup tables in INT8).
//===----------------------------------------------------------------------===//
#ifndef TPUC_TPU_ELEMENTWISE_OPS
#define TPUC_TPU_ELEMENTWISE_OPS

//===--- Binary ------------------------------------------------------------------===//

def Tpu_AddOp : Tpu_BinaryOp<"add", "Element-wise sum", [{In INT8 each input is rescaled to the
    output scale by its own multiplier (`multiplier` holds two values) with one common `rshift`:
    `y = saturate(round_half_up(((x0 - zp0) * m0 + (x1 - zp1) * m1) / 2^rshift) + zp_out)`, then the
    fused Relu.}], [Tpu_Role<"Eltwise">]>;

def Tpu_SubOp : Tpu_BinaryOp<"sub", "Element-wise difference", [{In INT8 as `tpu.add` with the
    second product subtracted: `((x0 - zp0) * m0 - (x1 - zp1) * m1) / 2^rshift`.}],
    [Tpu_Role<"Eltwise">]>;

def Tpu_MulOp : Tpu_BinaryOp<"mul", "Element-wise product", [{In INT8
    `y = saturate(applyMultiplierShift((x0 - zp0) * (x1 - zp1)) + zp_out)` with one multiplier/rshift for
    `s0 * s1 / s_out`, then the fused Relu.}], [Tpu_Role<"Eltwise">]>;

def Tpu_DivOp : Tpu_BinaryOp<"div", "Element-wise quotient", [{Float only.}], [Tpu_Role<"Eltwise">]>;
def Tpu_MaxOp : Tpu_BinaryOp<"max", "Element-wise maximum", [{Float only.}], [Tpu_Role<"Eltwise">]>;
def Tpu_MinOp : Tpu_BinaryOp<"min", "Element-wise minimum", [{Float only.}], [Tpu_Role<"Eltwise">]>;
def Tpu_PowerOp : Tpu_BinaryOp<"power", "Element-wise power lhs ^ rhs", [{Float only.}]>;

//===--- With a scalar ---------------------------------------------------------------===//

def Tpu_AddConstOp : Tpu_ConstBinaryOp<"add_const", "x + const_val">;
def Tpu_SubConstOp : Tpu_ConstBinaryOp<"sub_const", "x - const_val">;
def Tpu_MulConstOp : Tpu_ConstBinaryOp<"mul_const", "x * const_val">;
def Tpu_DivConstOp : Tpu_ConstBinaryOp<"div_const", "x / const_val">;
def Tpu_MaxConstOp : Tpu_ConstBinaryOp<"max_const", "max(x, const_val)">;
def Tpu_MinConstOp : Tpu_ConstBinaryOp<"min_const", "min(x, const_val)">;

//===--- Unary -----------------------------------------------------------------------===//

def Tpu_ReluOp : Tpu_Op<"relu", [Tpu_Role<"Unary">]> {
  let summary = "Rectified linear unit (category: activation)";
  let description = [{
    Lowered `top.relu` that could not be fused into its producer: `max(x, 0)`, clamped to `relu_limit`
    when that is positive. In INT8 the result has the input's type: `max(q, zp)` (and
    `min(.., quantize(relu_limit))`).

    ```mlir
    %y = tpu.relu %x {precision = #top.precision<F32>} : (tensor<1x4xf32>) -> tensor<1x4xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_ClipOp : Tpu_Op<"clip", [Tpu_Role<"Unary">]> {
  let summary = "Clamps to [min, max] (category: activation)";
  let description = [{
    Lowered `top.clip`. In INT8 the result has the input's type and
    `y = clamp(q, quantize(min), quantize(max))` (round half away from zero, saturate).

    ```mlir
    %y = tpu.clip %x {precision = #top.precision<F32>, min = 0.0 : f64, max = 6.0 : f64}
        : (tensor<1x4xf32>) -> tensor<1x4xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, F64Attr:$min, F64Attr:$max), Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_ActiveOp : Tpu_Op<"active", [Tpu_Role<"Unary">]> {
  let summary = "Unary function by mode, a lookup table in INT8 (category: activation)";
  let description = [{
    Lowered from the unary Top ops (`top.sigmoid`, `top.silu`, `top.gelu`, `top.tanh`, `top.exp`,
    `top.log`, `top.sqrt`, `top.rsqrt`, `top.abs`, `top.erf`, `top.reciprocal`, `top.hard_sigmoid`,
    `top.hard_swish`, `top.leaky_relu`, `top.pow`, `top.floor`, ..., the trigonometric ops).
    `active_mode` names the function; `alpha` is the slope of leaky_relu, the exponent of pow and the
    slope of hardsigmoid, `beta` the offset of hardsigmoid. Float precisions compute `f` in f32 and round
    the result. INT8 needs `table` (256 i8 values): `y = table[q + 128]`, computed at lowering as
    `quantize_out(f(dequantize_in(q)))` for each of the 256 inputs (TPU-MLIR's lookup-table activation);
    float precisions take `none`.

    ```mlir
    %y = tpu.active %x, %none {precision = #top.precision<F16>, active_mode = #tpu.active_mode<silu>}
        : (tensor<1x4xf16>, none) -> tensor<1x4xf16>
    %z = tpu.active %q, %lut {precision = #top.precision<INT8>, active_mode = #tpu.active_mode<sigmoid>}
        : (tensor<1x4x!quant.uniform<i8:f32, 0.05>>, tensor<256xi8>) -> tensor<1x4x!quant.uniform<i8:f32, 0.0078125:-128>>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_TensorOrNone:$table, Tpu_ActiveModeAttr:$active_mode,
                            DefaultValuedAttr<F64Attr, "0.0">:$alpha,
                            DefaultValuedAttr<F64Attr, "0.0">:$beta),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

#endif // TPUC_TPU_ELEMENTWISE_OPS
