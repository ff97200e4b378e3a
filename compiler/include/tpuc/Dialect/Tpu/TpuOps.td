//===- TpuOps.td - Tpu dialect operations ------------------*- tablegen -*-===//
// The Tpu op set, split by category; casts and requantization live here.
//
// Every op has `precision` (F32, F16, BF16, INT8; W8F16/W8BF16/W4F16/W4BF16 on a16matmul only) and its
// activations have the matching element type: f32, f16, bf16, or `!quant.uniform<i8:f32, s[:zp]>`
// (real = (q - zp) * s). Float precisions compute in f32 and round each result to f16/bf16. INT8 integer
// arithmetic is TpucQuant's (docs/quantization.md): `requant(acc) = saturate(applyMultiplierShift(acc,
// multiplier, rshift) + zp_out)`, half-up rounding; float -> int rounds half away from zero.
// `relu(y)` in INT8 (do_relu) clamps the requantized y to [zp_out, quantize_out(relu_limit)] (no upper
// bound when relu_limit <= 0).
//
//   op               INT8 semantics (every INT8 x below already has its zero point subtracted: x - zp_in)
//   conv2d           acc = sum(x * w) + bias_i32 (padding contributes 0); filter i8 per output channel,
//                    bias i32; y = relu?(requant(acc)), multiplier/rshift per channel (or one)
//   deconv2d         as conv2d, transposed (filter IOHW); multiplier/rshift one or per output channel
//   matmul           acc = sum_k(x * w) + bias_i32; w is an i8 weight (zp 0) or a quantized activation
//                    (its zp subtracted); per output column (last axis) or one multiplier/rshift
//   a16matmul        weight-only (W8/W4 precisions): w = (q - zp) * scale per group, computed in the
//                    activation's float type; no INT8 form
//   add / sub        acc = x0 * m0 +/- x1 * m1 (multiplier: one per input), y = relu?(saturate(
//                    round_half_up(acc >> rshift) + zp_out)) (rshift: one value)
//   mul              acc = x0 * x1, y = relu?(requant(acc)) (one multiplier, one rshift)
//   div, max, min    float only
//   *_const          y = table[q_in + 128] (256 i8 entries, precomputed at lowering)
//   active           y = table[q_in + 128]; float: f(x) by `active_mode` (sigmoid, silu, gelu, ...)
//   relu, clip       result type = input type; relu: max(q, zp); clip: clamp(q, quantize(min), quantize(max))
//   pool2d           max: result type = input type, padded cells never win; avg: acc = sum of the
//                    kernel window (padded cells contribute 0), y = relu?(requant(acc)) with one
//                    multiplier/rshift for s_in / (s_out * kh * kw) (count_include_pad semantics)
//   concat           every input has the result's type (the lowering inserts requant_int); relu? applies
//   reshape, permute, slice, split, gather, depth2space, interp (nearest only), pad
//                    data movement: result type = input type; pad fills quantize(val)
//   softmax, layernorm, rmsnorm, scale, reduce, rope, attention
//                    float only
//   cast             float -> float rounds to nearest even; float -> INT8: saturate(round_half_away(x / s)
//                    + zp); INT8 -> float: (q - zp) * s rounded to the result type
//   requant_int      y = saturate(applyMultiplierShift(q - zp_in, multiplier, rshift) + zp_out)
//===----------------------------------------------------------------------===//
#ifndef TPUC_TPU_OPS
#define TPUC_TPU_OPS

include "tpuc/Dialect/Tpu/TpuBase.td"
include "tpuc/Dialect/Tpu/TpuNNOps.td"
include "tpuc/Dialect/Tpu/TpuElementwiseOps.td"
include "tpuc/Dialect/Tpu/TpuShapeOps.td"
include "tpuc/Dialect/Tpu/TpuLogicOps.td"
include "tpuc/Dialect/Tpu/TpuControlOps.td"

def Tpu_CastOp : Tpu_Op<"cast", [Tpu_Role<"Unary">]> {
  let summary = "Converts between precisions at a boundary (category: cast)";
  let description = [{
    Float to float rounds to nearest even; float to `!quant.uniform` quantizes with the result's scale and
    zero point (round half away from zero, saturate); `!quant.uniform` to float dequantizes. `precision` is
    the precision of the result. The shape never changes. The lowering names a cast `<producer>_<suffix>`
    (`_f32`, `_f16`, `_bf16`, `_i8`).

    ```mlir
    %q = tpu.cast %x {precision = #top.precision<INT8>} : (tensor<1x4xf32>) -> tensor<1x4x!quant.uniform<i8:f32, 0.1>>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input), Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_RequantIntOp : Tpu_Op<"requant_int", [Tpu_Role<"Unary">]> {
  let summary = "Integer rescale of a quantized tensor (category: cast)";
  let description = [{
    `y = saturate(applyMultiplierShift(x - zp_in, multiplier, rshift) + zp_out)` (half-up rounding), per
    tensor or per channel (axis 1): moves an int8 tensor from one scale to another without going through
    float. `only_shift` is the case multiplier = 1. The lowering inserts it where an INT8 consumer (concat)
    needs its inputs at the output's scale, named `<producer>_requant`.

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
