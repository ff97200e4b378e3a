//===- TpuNNOps.td - Compute-heavy Tpu ops ------------------*- tablegen -*-===//
// Categories: conv, matmul, pool, norm, activation (softmax).
//===----------------------------------------------------------------------===//
#ifndef TPUC_TPU_NN_OPS
#define TPUC_TPU_NN_OPS

def Tpu_Conv2DOp : Tpu_Op<"conv2d", [Tpu_Role<"Conv">]> {
  let summary = "2-D convolution in one precision (category: conv)";
  let description = [{
    Lowered 2-D `top.conv` (grouped and depthwise included). In INT8 the
    filter is int8 per output channel, the bias int32 (`round(b / (s_in * s_w))`), padded cells hold the
    input zero point (real 0), and `multiplier` / `rshift` (one per output channel) bring the int32
    accumulator `sum((x - zp_in) * w) + bias` back to int8: `y = saturate(applyMultiplierShift(acc) +
    zp_out)`, then the fused Relu clamps it.

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

def Tpu_Deconv2DOp : Tpu_Op<"deconv2d"> {
  let summary = "2-D transposed convolution in one precision (category: conv)";
  let description = [{
    Lowered `top.deconv` (ONNX ConvTranspose; filter IOHW). INT8 as `tpu.conv2d`: int8 filter (one scale
    for the tensor, or per output channel), int32 bias, `multiplier` / `rshift` one or one per output
    channel.

    ```mlir
    %y = tpu.deconv2d %x, %w, %none {precision = #top.precision<F32>, kernel_shape = array<i64: 2, 2>,
                                     strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
                                     dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>}
        : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>, none) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$filter, Tpu_TensorOrNone:$bias,
                            DenseI64ArrayAttr:$kernel_shape, DenseI64ArrayAttr:$strides,
                            DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                            DenseI64ArrayAttr:$output_padding,
                            DefaultValuedAttr<I64Attr, "1">:$group,
                            DefaultValuedAttr<BoolAttr, "false">:$do_relu,
                            DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit),
                       Tpu_RequantAttrs, Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_MatMulOp : Tpu_Op<"matmul", [Tpu_Role<"MatMul">]> {
  let summary = "Batched matrix multiplication in one precision (category: matmul)";
  let description = [{
    Lowered `top.matmul` (same broadcasting and transposes). In INT8 a weight `right` is int8 per output
    column (the lowering stores it [N, K] with `right_transpose`), the bias int32; a quantized activation
    `right` has its zero point subtracted like the input's. `acc = sum_k((x - zp_x) * (w - zp_w)) + bias`,
    `y = saturate(applyMultiplierShift(acc) + zp_out)` with one multiplier/rshift or one per column.

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

def Tpu_A16MatMulOp : Tpu_Op<"a16matmul", [Tpu_Role<"MatMul">]> {
  let summary = "Weight-only int4/int8 matmul with f16/bf16 activations (category: matmul)";
  let description = [{
    Lowered `top.a16matmul`, or a `top.matmul` with a weight in W8F16, W8BF16, W4F16 or W4BF16.
    `weight` is [N, K] i8 (8 bits, symmetric), [N, K] ui8 (8 bits, asymmetric) or [N, K/2] ui8 holding two
    4-bit values per byte, element 2k in the low nibble (signed when `sym`). `scale` (f32) and `zp` (ui8,
    `none` when `sym`) are [N, K / q_group_size]; `w = (q - zp) * scale` is rounded to the activation type,
    then `y = x * w^T + bias` accumulates in f32 and is rounded to f16/bf16.

    ```mlir
    %y = tpu.a16matmul %x, %q, %s, %none, %none {precision = #top.precision<W4BF16>, weight_bits = 4 : i64,
                                                 q_group_size = 64 : i64}
        : (tensor<1x8x128xbf16>, tensor<256x64xui8>, tensor<256x2xf32>, none, none) -> tensor<1x8x256xbf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$weight, Tpu_Tensor:$scale,
                            Tpu_TensorOrNone:$zp, Tpu_TensorOrNone:$bias, I64Attr:$weight_bits,
                            I64Attr:$q_group_size, DefaultValuedAttr<BoolAttr, "true">:$sym),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_Pool2DOp : Tpu_Op<"pool2d", [Tpu_Role<"Pool">]> {
  let summary = "2-D max or average pooling (category: pool)";
  let description = [{
    Lowered `top.maxpool`, `top.avgpool` and `top.adaptive_avgpool` (global, or evenly dividing). INT8 max
    pooling keeps the input's type (padded cells never win). INT8 average pooling sums the window of
    `x - zp_in` (padded cells contribute 0) and requantizes with one multiplier/rshift for
    `s_in / (s_out * kh * kw)`: the divisor is always the kernel area, so the lowering keeps average pools
    with padding and without `count_include_pad` in float.

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

def Tpu_SoftmaxOp : Tpu_Op<"softmax", [Tpu_Role<"Softmax">]> {
  let summary = "Softmax or log-softmax along one axis, float only (category: activation)";
  let description = [{
    Lowered `top.softmax`; computed in f32 and rounded to the precision. No INT8 form: in INT8 it stays
    float with casts around it.
    Along the last axis it has a row form: a layer group computes it on row slices (docs/BACKEND.md).

    ```mlir
    %y = tpu.softmax %x {precision = #top.precision<F16>, axis = 1 : i64} : (tensor<1x1000xf16>) -> tensor<1x1000xf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, I64Attr:$axis, DefaultValuedAttr<BoolAttr, "false">:$log),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_LayerNormOp : Tpu_Op<"layernorm", [Tpu_Role<"LayerNorm">]> {
  let summary = "Layer normalization over the axes from `axis`, float only (category: norm)";
  let description = [{
    Lowered `top.layernorm`: statistics in f32, result rounded to the precision; `weight` and `bias` have
    the precision's float type (or are `none`).
    With `axis` the last it has a row form: a layer group computes it on row slices (docs/BACKEND.md).

    ```mlir
    %y = tpu.layernorm %x, %g, %b {precision = #top.precision<F32>, axis = 2 : i64, eps = 1.0e-05 : f64}
        : (tensor<1x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x16x64xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_TensorOrNone:$weight, Tpu_TensorOrNone:$bias,
                            I64Attr:$axis, DefaultValuedAttr<F64Attr, "1e-05">:$eps),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_ScaleOp : Tpu_Op<"scale", [Tpu_Role<"Unary">]> {
  let summary = "Per-channel affine transform, float only (category: norm)";
  let description = [{
    `y = x * scale[c] + bias[c]` over axis 1 (c = channel), with a fused Relu. A `top.batchnorm` that
    canonicalization could not fold into a conv lowers to it, with `scale = gamma / sqrt(var + eps)` and
    `bias = beta - mean * scale` computed at lowering (in f32, then stored in the precision's type).

    ```mlir
    %y = tpu.scale %x, %s, %b {precision = #top.precision<F32>}
        : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$scale, Tpu_Tensor:$bias,
                            DefaultValuedAttr<BoolAttr, "false">:$do_relu,
                            DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_RMSNormOp : Tpu_Op<"rmsnorm", [Tpu_Role<"RMSNorm">]> {
  let summary = "Root-mean-square normalization over the last axis, float only (category: norm)";
  let description = [{
    Lowered `top.rmsnorm` (LLM decoder layers): `y = x / sqrt(mean(x^2) + eps) * gamma`, statistics in f32,
    result rounded to the precision; `gamma` has the precision's float type (or is `none`).
    It has a row form: a layer group computes it on row slices (docs/BACKEND.md).

    ```mlir
    %y = tpu.rmsnorm %x, %g {precision = #top.precision<F16>, eps = 1.0e-06 : f64}
        : (tensor<1x16x64xf16>, tensor<64xf16>) -> tensor<1x16x64xf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_TensorOrNone:$gamma,
                            DefaultValuedAttr<F64Attr, "1e-06">:$eps), Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_RopeOp : Tpu_Op<"rope"> {
  let summary = "Rotary position embedding, float only (category: attention)";
  let description = [{
    Lowered `top.rope`: `y = x * cos + rotate(x) * sin` with the same pairing modes; the cos/sin tables
    have the precision's float type.

    ```mlir
    %y = tpu.rope %q, %cos, %sin {precision = #top.precision<BF16>, rope_mode = #top.rope_mode<half>}
        : (tensor<1x16x4x32xbf16>, tensor<16x32xbf16>, tensor<16x32xbf16>) -> tensor<1x16x4x32xbf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$cos, Tpu_Tensor:$sin,
                            DefaultValuedAttr<Top_RopeModeAttr, "::tpuc::top::RopeMode::half">:$rope_mode),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_AttentionOp : Tpu_Op<"attention", [Tpu_Role<"Attention">]> {
  let summary = "Scaled dot-product attention with grouped KV heads, float only (category: attention)";
  let description = [{
    Lowered `top.attention`: `softmax(q k^T * scale + mask) v` per head, scores and softmax in f32, result
    rounded to the precision. Shapes as `top.attention` (query [B, Lq, Hq, D], key/value [B, Lk, Hkv, D]).

    ```mlir
    %y = tpu.attention %q, %k, %v, %none {precision = #top.precision<F16>, scale = 0.125 : f64}
        : (tensor<1x16x8x64xf16>, tensor<1x16x2x64xf16>, tensor<1x16x2x64xf16>, none) -> tensor<1x16x8x64xf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$query, Tpu_Tensor:$key, Tpu_Tensor:$value, Tpu_TensorOrNone:$mask,
                            F64Attr:$scale), Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_GroupNormOp : Tpu_Op<"groupnorm"> {
  let summary = "Group normalization, float only (category: norm)";
  let description = [{
    Lowered `top.groupnorm`: per group of `num_groups`, statistics over its channels and spatial axes in
    f32, result rounded to the precision; per-channel `weight` and `bias` in the precision (or `none`).

    ```mlir
    %y = tpu.groupnorm %x, %g, %b {precision = #top.precision<F16>, num_groups = 2 : i64, eps = 1.0e-05 : f64}
        : (tensor<1x4x8x8xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<1x4x8x8xf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_TensorOrNone:$weight, Tpu_TensorOrNone:$bias,
                            I64Attr:$num_groups, DefaultValuedAttr<F64Attr, "1e-05">:$eps),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_InstanceNormOp : Tpu_Op<"instancenorm"> {
  let summary = "Instance normalization, float only (category: norm)";
  let description = [{
    Lowered `top.instancenorm`: per sample and channel, statistics over the spatial axes in f32, result
    rounded to the precision; per-channel `weight` and `bias` in the precision (or `none`).

    ```mlir
    %y = tpu.instancenorm %x, %g, %b {precision = #top.precision<F32>, eps = 1.0e-05 : f64}
        : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_TensorOrNone:$weight, Tpu_TensorOrNone:$bias,
                            DefaultValuedAttr<F64Attr, "1e-05">:$eps),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_GridSampleOp : Tpu_Op<"grid_sample"> {
  let summary = "Samples an input at grid coordinates, float only (category: resize)";
  let description = [{
    Lowered `top.grid_sample` (ONNX GridSample, `torch.nn.functional.grid_sample`): `input` [N, C, H, W],
    `grid` [N, Ho, Wo, 2] of (x, y) in [-1, 1]; weights computed in f32, result rounded to the precision.

    ```mlir
    %y = tpu.grid_sample %x, %g {precision = #top.precision<F16>, mode = #top.grid_mode<linear>,
                                 padding = #top.grid_padding<zeros>, align_corners = false}
        : (tensor<1x3x8x8xf16>, tensor<1x4x4x2xf16>) -> tensor<1x3x4x4xf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$grid,
                            DefaultValuedAttr<Top_GridModeAttr, "::tpuc::top::GridMode::linear">:$mode,
                            DefaultValuedAttr<Top_GridPaddingAttr, "::tpuc::top::GridPadding::zeros">:$padding,
                            DefaultValuedAttr<BoolAttr, "false">:$align_corners),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_MaxPoolWithMaskOp : Tpu_Op<"maxpool_with_mask"> {
  let summary = "2-D max pooling with the flat index of each maximum, float only (category: pool)";
  let description = [{
    Lowered `top.maxpool_with_mask`: the window maxima in the precision's float type (compared after
    rounding to it) and their i64 flat input indices.

    ```mlir
    %y, %mask = tpu.maxpool_with_mask %x {precision = #top.precision<F16>, kernel_shape = array<i64: 2, 2>,
                                          strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>}
        : (tensor<1x1x4x4xf16>) -> (tensor<1x1x2x2xf16>, tensor<1x1x2x2xi64>)
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, DenseI64ArrayAttr:$kernel_shape, DenseI64ArrayAttr:$strides,
                            DenseI64ArrayAttr:$pads, DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                            DefaultValuedAttr<BoolAttr, "false">:$storage_order),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output, Tpu_Tensor:$mask);
}

def Tpu_MaxUnpoolOp : Tpu_Op<"max_unpool"> {
  let summary = "Scatter of pooled maxima back to their positions, float only (category: pool)";
  let description = [{
    Lowered `top.max_unpool`: the values in the precision's float type, the i64 flat output positions.

    ```mlir
    %y = tpu.max_unpool %x, %i {precision = #top.precision<F16>, output_shape = array<i64: 1, 1, 4, 4>}
        : (tensor<1x1x2x2xf16>, tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$indices, DenseI64ArrayAttr:$output_shape,
                            OptionalAttr<DenseI64ArrayAttr>:$indexed_shape),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_DeformConv2DOp : Tpu_Op<"deform_conv2d", [Tpu_Role<"DeformConv">]> {
  let summary = "2-D deformable convolution, float only (category: conv)";
  let description = [{
    Lowered `top.deform_conv2d`: input, filter and bias in the precision's float type; `offset` and `mask`
    in f32 (they place and weight every sample: in F16 an offset of 100 pixels would keep a step of
    1/16). The bilinear samples are formed in f32 and the products accumulate in f32; the result is
    rounded to the precision. INT8 runs it in F32.

    ```mlir
    %y = tpu.deform_conv2d %x, %w, %off, %none, %none {precision = #top.precision<F16>,
                                                       kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>,
                                                       pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
        : (tensor<1x4x8x8xf16>, tensor<6x4x3x3xf16>, tensor<1x18x8x8xf32>, none, none) -> tensor<1x6x8x8xf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$filter, Tpu_Tensor:$offset,
                            Tpu_TensorOrNone:$mask, Tpu_TensorOrNone:$bias, DenseI64ArrayAttr:$kernel_shape,
                            DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                            DefaultValuedAttr<I64Attr, "1">:$group, DefaultValuedAttr<I64Attr, "1">:$offset_group),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_RoiAlignOp : Tpu_Op<"roi_align"> {
  let summary = "Bilinear pooling of regions of interest, float only (category: pool)";
  let description = [{
    Lowered `top.roi_align`: `input` in the precision's float type, the boxes in f32 (they place every
    sample), `batch_indices` i64; samples weighted in f32, the result rounded to the precision.

    ```mlir
    %y = tpu.roi_align %x, %rois, %idx {precision = #top.precision<F16>, output_height = 5 : i64,
                                        output_width = 5 : i64, sampling_ratio = 2 : i64}
        : (tensor<1x1x10x10xf16>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x1x5x5xf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$rois, Tpu_Tensor:$batch_indices,
                            DefaultValuedAttr<Top_RoiModeAttr, "::tpuc::top::RoiMode::avg">:$mode,
                            I64Attr:$output_height, I64Attr:$output_width,
                            DefaultValuedAttr<I64Attr, "0">:$sampling_ratio,
                            DefaultValuedAttr<F64Attr, "1.0">:$spatial_scale,
                            DefaultValuedAttr<BoolAttr, "true">:$half_pixel),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_RoiPoolingOp : Tpu_Op<"roi_pooling"> {
  let summary = "Max pooling of regions of interest, float only (category: pool)";
  let description = [{
    Lowered `top.roi_pooling` (ONNX MaxRoiPool): `input` in the precision's float type, the [R, 5] boxes in
    f32 (they are rounded to pixels), the bin maxima in the precision.

    ```mlir
    %y = tpu.roi_pooling %x, %rois {precision = #top.precision<F32>, pooled_shape = array<i64: 2, 2>}
        : (tensor<1x3x8x8xf32>, tensor<2x5xf32>) -> tensor<2x3x2x2xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$rois, DenseI64ArrayAttr:$pooled_shape,
                            DefaultValuedAttr<F64Attr, "1.0">:$spatial_scale),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_NonMaxSuppressionOp : Tpu_Op<"non_max_suppression"> {
  let summary = "Boxes kept by non-maximum suppression (category: logic)";
  let description = [{
    Lowered `top.non_max_suppression`: `boxes` [B, N, 4] and `scores` [B, C, N] in the precision's float
    type, the three scalars (`max_output_boxes_per_class` integer, `iou_threshold`, `score_threshold` f32)
    or `none`; the result is the i64 [n, 3] list of (batch, class, box), n declared by the model. IoU is
    computed in f32 on the rounded boxes.

    ```mlir
    %y = tpu.non_max_suppression %b, %s, %m, %iou, %th {precision = #top.precision<F32>, center_point_box = false}
        : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<3x3xi64>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$boxes, Tpu_Tensor:$scores, Tpu_TensorOrNone:$max_output_boxes_per_class,
                            Tpu_TensorOrNone:$iou_threshold, Tpu_TensorOrNone:$score_threshold,
                            DefaultValuedAttr<BoolAttr, "false">:$center_point_box),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

#endif // TPUC_TPU_NN_OPS
