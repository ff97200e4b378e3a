//===- TopNNOps.td - Compute-heavy neural-network ops -------*- tablegen -*-===//
// Categories: conv, matmul, pool, norm, attention.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TOP_NN_OPS
#define TPUC_TOP_NN_OPS

def Top_ConvOp : Top_Op<"conv"> {
  let summary = "1-D or 2-D convolution (category: conv)";
  let description = [{
    Grouped, dilated convolution over NCW or NCHW input with an OIW / OIHW filter and an optional bias.
    `pads` holds the begin pads of every spatial axis followed by the end pads (ONNX order). `do_relu`
    fuses a following Relu (clamped to `relu_limit` when that is positive).

    ```mlir
    %y = top.conv %x, %w, %b {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>,
                              pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_Tensor:$filter, Top_TensorOrNone:$bias,
                   DenseI64ArrayAttr:$kernel_shape, DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations, DefaultValuedAttr<I64Attr, "1">:$group,
                   DefaultValuedAttr<BoolAttr, "false">:$do_relu,
                   DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit);
  let results = (outs Top_Tensor:$output);
  let hasCanonicalizer = 1;
}

def Top_DeconvOp : Top_Op<"deconv"> {
  let summary = "1-D or 2-D transposed convolution (category: conv)";
  let description = [{
    ConvTranspose with ONNX semantics; the filter is laid out IOHW (input channels first, output channels
    per group second). Output size per axis: `(in - 1) * stride - pad_begin - pad_end + dilation * (k - 1) +
    output_padding + 1`.

    ```mlir
    %y = top.deconv %x, %w, %none {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                                   pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>,
                                   output_padding = array<i64: 0, 0>}
        : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>, none) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_Tensor:$filter, Top_TensorOrNone:$bias,
                   DenseI64ArrayAttr:$kernel_shape, DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations, DenseI64ArrayAttr:$output_padding,
                   DefaultValuedAttr<I64Attr, "1">:$group,
                   DefaultValuedAttr<BoolAttr, "false">:$do_relu,
                   DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit);
  let results = (outs Top_Tensor:$output);
}

def Top_MatMulOp : Top_Op<"matmul"> {
  let summary = "Batched matrix multiplication with broadcasting (category: matmul)";
  let description = [{
    `output = op(input) x op(right) + bias` where `op` transposes the last two axes when the matching flag
    is set. Batch axes broadcast as in NumPy; a rank-1 operand is treated as a row (left) or column (right)
    vector, which is then dropped from the output. `bias` broadcasts over the last axis.

    ```mlir
    %y = top.matmul %x, %w, %b {right_transpose = true}
        : (tensor<1x16x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<1x16x128xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_Tensor:$right, Top_TensorOrNone:$bias,
                   DefaultValuedAttr<BoolAttr, "false">:$left_transpose,
                   DefaultValuedAttr<BoolAttr, "false">:$right_transpose,
                   DefaultValuedAttr<BoolAttr, "false">:$do_relu,
                   DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit);
  let results = (outs Top_Tensor:$output);
  let hasCanonicalizer = 1;
}

def Top_A16MatMulOp : Top_Op<"a16matmul"> {
  let summary = "Matmul with int4/int8 weights and 16-bit activations (category: matmul)";
  let description = [{
    Weight-only quantized linear layer, as used for LLMs. `weight` is [N, K] (right_transpose) of int8 or,
    for `weight_bits = 4`, uint8 holding two 4-bit values per byte along K (low nibble first), shaped
    [N, K/2]. `scale` and `zp` are [N, K / q_group_size]: `w = (q - zp) * scale`. With `sym`, zp is absent
    (`none`) and 4-bit values are signed.

    ```mlir
    %y = top.a16matmul %x, %q, %s, %none, %none {weight_bits = 4 : i64, q_group_size = 64 : i64, sym = true}
        : (tensor<1x8x128xf32>, tensor<256x64xui8>, tensor<256x2xf32>, none, none) -> tensor<1x8x256xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_Tensor:$weight, Top_Tensor:$scale, Top_TensorOrNone:$zp,
                   Top_TensorOrNone:$bias, I64Attr:$weight_bits, I64Attr:$q_group_size,
                   DefaultValuedAttr<BoolAttr, "true">:$sym);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

class Top_PoolOp<string mnemonic, string opSummary> : Top_Op<mnemonic> {
  let summary = opSummary;
  let arguments = (ins Top_Tensor:$input, DenseI64ArrayAttr:$kernel_shape, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$pads, DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                   DefaultValuedAttr<BoolAttr, "false">:$count_include_pad,
                   DefaultValuedAttr<BoolAttr, "false">:$do_relu,
                   DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Top_MaxPoolOp : Top_PoolOp<"maxpool", "1-D or 2-D max pooling (category: pool)"> {
  let description = [{
    Sliding-window maximum over the spatial axes of NCW / NCHW input; padded cells never win.

    ```mlir
    %y = top.maxpool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}
        : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
    ```
  }];
}

def Top_AvgPoolOp : Top_PoolOp<"avgpool", "1-D or 2-D average pooling (category: pool)"> {
  let description = [{
    Sliding-window mean; padded cells count in the divisor only with `count_include_pad`.

    ```mlir
    %y = top.avgpool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>}
        : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf32>
    ```
  }];
}

def Top_MaxPoolWithMaskOp : Top_Op<"maxpool_with_mask"> {
  let summary = "2-D max pooling with the position of each maximum (category: pool)";
  let description = [{
    ONNX MaxPool with its `Indices` output (TPU-MLIR's MaxPoolWithMask): besides the window maxima, `mask`
    holds for each one the i64 flat index of the input element that won, counted over the whole unpadded
    N x C x H x W input (row-major, or column-major over H and W with `storage_order = 1`); the first
    maximum in row-major window order wins a tie, padded cells never win.

    ```mlir
    %y, %mask = top.maxpool_with_mask %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                                          pads = array<i64: 0, 0, 0, 0>}
        : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DenseI64ArrayAttr:$kernel_shape, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$pads, DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                   DefaultValuedAttr<BoolAttr, "false">:$storage_order);
  let results = (outs Top_Tensor:$output, Top_Tensor:$mask);
}

def Top_AdaptiveAvgPoolOp : Top_Op<"adaptive_avgpool"> {
  let summary = "Average pooling to a fixed output size (category: pool)";
  let description = [{
    PyTorch's AdaptiveAvgPool: output cell `i` averages input cells `[floor(i*in/out), ceil((i+1)*in/out))`.
    `output_size = [1, 1]` is ONNX GlobalAveragePool.

    ```mlir
    %y = top.adaptive_avgpool %x {output_size = array<i64: 1, 1>} : tensor<1x512x7x7xf32> -> tensor<1x512x1x1xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DenseI64ArrayAttr:$output_size);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Top_BatchNormOp : Top_Op<"batchnorm"> {
  let summary = "Inference-mode batch normalization over axis 1 (category: norm)";
  let description = [{
    `y = (x - mean) / sqrt(variance + epsilon) * gamma + beta` per channel. Canonicalization folds it into a
    preceding Conv whose output has no other user.

    ```mlir
    %y = top.batchnorm %x, %mean, %var, %gamma, %beta {epsilon = 1.0e-05 : f64}
        : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_Tensor:$mean, Top_Tensor:$variance,
                   Top_TensorOrNone:$gamma, Top_TensorOrNone:$beta,
                   DefaultValuedAttr<F64Attr, "1e-05">:$epsilon,
                   DefaultValuedAttr<BoolAttr, "false">:$do_relu,
                   DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit);
  let results = (outs Top_Tensor:$output);
}

def Top_LayerNormOp : Top_Op<"layernorm"> {
  let summary = "Layer normalization over the trailing axes from `axis` (category: norm)";
  let description = [{
    Normalizes over axes `[axis, rank)`, then scales by `weight` and shifts by `bias` (both shaped like the
    normalized axes, or `none`).

    ```mlir
    %y = top.layernorm %x, %g, %b {axis = 2 : i64, eps = 1.0e-05 : f64}
        : (tensor<1x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x16x64xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_TensorOrNone:$weight, Top_TensorOrNone:$bias,
                   I64Attr:$axis, DefaultValuedAttr<F64Attr, "1e-05">:$eps);
  let results = (outs Top_Tensor:$output);
}

def Top_RMSNormOp : Top_Op<"rmsnorm"> {
  let summary = "Root-mean-square normalization over the last axis (category: norm)";
  let description = [{
    `y = x / sqrt(mean(x^2) + eps) * gamma`, as in Llama and Qwen decoder layers.

    ```mlir
    %y = top.rmsnorm %x, %g {eps = 1.0e-06 : f64} : (tensor<1x16x64xf32>, tensor<64xf32>) -> tensor<1x16x64xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_TensorOrNone:$gamma,
                   DefaultValuedAttr<F64Attr, "1e-06">:$eps);
  let results = (outs Top_Tensor:$output);
}

def Top_GroupNormOp : Top_Op<"groupnorm"> {
  let summary = "Group normalization of NC... input (category: norm)";
  let description = [{
    Splits the channels into `num_groups` groups, normalizes each group over its channels and spatial
    axes, then applies per-channel `weight` and `bias`.

    ```mlir
    %y = top.groupnorm %x, %g, %b {num_groups = 2 : i64, eps = 1.0e-05 : f64}
        : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_TensorOrNone:$weight, Top_TensorOrNone:$bias,
                   I64Attr:$num_groups, DefaultValuedAttr<F64Attr, "1e-05">:$eps);
  let results = (outs Top_Tensor:$output);
}

def Top_InstanceNormOp : Top_Op<"instancenorm"> {
  let summary = "Instance normalization of NC... input (category: norm)";
  let description = [{
    Normalizes each (n, c) plane over its spatial axes, then applies per-channel `weight` and `bias`.

    ```mlir
    %y = top.instancenorm %x, %g, %b {eps = 1.0e-05 : f64}
        : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_TensorOrNone:$weight, Top_TensorOrNone:$bias,
                   DefaultValuedAttr<F64Attr, "1e-05">:$eps);
  let results = (outs Top_Tensor:$output);
}

def Top_SoftmaxOp : Top_Op<"softmax"> {
  let summary = "Softmax or log-softmax along one axis (category: activation)";
  let description = [{
    Numerically stable `exp(x - max) / sum(exp(x - max))` along `axis`; with `log`, its logarithm.

    ```mlir
    %y = top.softmax %x {axis = 1 : i64} : tensor<1x1000xf32> -> tensor<1x1000xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, I64Attr:$axis, DefaultValuedAttr<BoolAttr, "false">:$log);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Top_RopeOp : Top_Op<"rope"> {
  let summary = "Rotary position embedding (category: attention)";
  let description = [{
    Rotates pairs of elements of `input` [B, L, H, D] by the angles whose cosines and sines are given as
    [L, D] (or [B, L, D]) tables: `y = x * cos + rotate(x) * sin`. `half` pairs element i with i + D/2
    (Llama/Qwen, "rotate_half"); `interleaved` pairs 2i with 2i + 1.

    ```mlir
    %y = top.rope %q, %cos, %sin {rope_mode = #top.rope_mode<half>}
        : (tensor<1x16x4x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<1x16x4x32xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_Tensor:$cos, Top_Tensor:$sin,
                   DefaultValuedAttr<Top_RopeModeAttr, "RopeMode::half">:$rope_mode);
  let results = (outs Top_Tensor:$output);
}

def Top_AttentionOp : Top_Op<"attention"> {
  let summary = "Scaled dot-product attention with grouped KV heads (category: attention)";
  let description = [{
    `softmax(q k^T * scale + mask) v` per head. `query` is [B, Lq, Hq, D], `key` and `value` are [B, Lk, Hkv, D]
    with Hq a multiple of Hkv (grouped-query attention shares each KV head among Hq/Hkv query heads).
    `mask` is additive, broadcastable to [B, 1, Lq, Lk], or `none`. The output is [B, Lq, Hq, D].

    ```mlir
    %y = top.attention %q, %k, %v, %mask {scale = 0.125 : f64}
        : (tensor<1x16x8x64xf32>, tensor<1x16x2x64xf32>, tensor<1x16x2x64xf32>, tensor<1x1x16x16xf32>)
        -> tensor<1x16x8x64xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$query, Top_Tensor:$key, Top_Tensor:$value, Top_TensorOrNone:$mask,
                   F64Attr:$scale);
  let results = (outs Top_Tensor:$output);
}

def Top_GridSampleOp : Top_Op<"grid_sample"> {
  let summary = "Samples an image at grid coordinates (category: resize)";
  let description = [{
    ONNX GridSample (2-D): `input` is NCHW, `grid` N x Ho x Wo x 2 of (x, y) in [-1, 1] (the corners'
    centres with `align_corners`, else the corners' outer edges); the output N x C x Ho x Wo interpolates
    `mode` (linear, nearest: round half to even, cubic with a = -0.75), and coordinates outside take
    `padding` (zeros, the border's value, or reflection).

    ```mlir
    %y = top.grid_sample %x, %g {mode = #top.grid_mode<linear>} : (tensor<1x1x4x4xf32>, tensor<1x6x6x2xf32>) -> tensor<1x1x6x6xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_Tensor:$grid,
                   DefaultValuedAttr<Top_GridModeAttr, "GridMode::linear">:$mode,
                   DefaultValuedAttr<Top_GridPaddingAttr, "GridPadding::zeros">:$padding,
                   DefaultValuedAttr<BoolAttr, "false">:$align_corners);
  let results = (outs Top_Tensor:$output);
}

def Top_MaxUnpoolOp : Top_Op<"max_unpool"> {
  let summary = "Scatter of pooled maxima back to their positions (category: pool)";
  let description = [{
    ONNX MaxUnpool (TPU-MLIR's MaxUnpool): every value of `input` written at its i64 flat position in
    `indices` (same shape as `input`) of a zero tensor of `indexed_shape` [N, C, H, W], counted over that
    whole tensor as `maxpool_with_mask` counts them; then zeros appended at the end of H and W up to
    `output_shape` (ONNX: the indices count over the shape the window gives, `(in - 1) * stride -
    pad_begin - pad_end + kernel` per spatial axis, and the node's `output_shape` input pads that; both are
    set at import). Without `indexed_shape` the indices count over `output_shape`. A later index wins a
    duplicated position.

    ```mlir
    %y = top.max_unpool %x, %i {indexed_shape = array<i64: 1, 1, 4, 4>, output_shape = array<i64: 1, 1, 5, 5>}
        : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x5x5xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_Tensor:$indices, DenseI64ArrayAttr:$output_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$indexed_shape);
  let results = (outs Top_Tensor:$output);
}

def Top_DeformConv2DOp : Top_Op<"deform_conv2d"> {
  let summary = "2-D deformable convolution (category: conv)";
  let description = [{
    ONNX DeformConv (TPU-MLIR's DeformConv2D; deformable convolution v1 without `mask`, v2 with it): a
    grouped, dilated 2-D convolution whose every tap is read at its regular position plus a learned
    fractional displacement. `offset` [N, offset_group * 2 * kh * kw, oh, ow] holds per offset group and
    tap (row-major over the kernel) the (dy, dx) pair; the input is sampled bilinearly there (a sample
    at or beyond -1 / size on either axis reads 0; neighbours outside the input read 0), multiplied by
    `mask` [N, offset_group * kh * kw, oh, ow] when given, and the samples of channel block g (C /
    offset_group channels each) use offset group g. The filter is OIHW as in `conv`, the bias optional.

    ```mlir
    %y = top.deform_conv2d %x, %w, %off, %mask, %b {kernel_shape = array<i64: 3, 3>,
                                                    strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
                                                    dilations = array<i64: 1, 1>}
        : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<1x18x8x8xf32>, tensor<1x9x8x8xf32>,
           tensor<6xf32>) -> tensor<1x6x8x8xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_Tensor:$filter, Top_Tensor:$offset, Top_TensorOrNone:$mask,
                   Top_TensorOrNone:$bias, DenseI64ArrayAttr:$kernel_shape, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                   DefaultValuedAttr<I64Attr, "1">:$group, DefaultValuedAttr<I64Attr, "1">:$offset_group);
  let results = (outs Top_Tensor:$output);
}

def Top_RoiAlignOp : Top_Op<"roi_align"> {
  let summary = "Bilinear pooling of regions of interest to a fixed size (category: pool)";
  let description = [{
    ONNX RoiAlign: for each of the R boxes `rois` [R, 4] (x1, y1, x2, y2 in input pixels before
    `spatial_scale`) on image `batch_indices` [R] of `input` [N, C, H, W], an `output_height` x
    `output_width` grid of bins, each the average (`mode = avg`) or maximum of `sampling_ratio`^2 bilinear
    samples (adaptive, ceil(roi size / bins), when 0). With `half_pixel` the box is shifted by half a pixel
    (opset 16's default), else (`output_half_pixel`, opset 10) it is at least 1 x 1. Output [R, C, oh, ow].

    ```mlir
    %y = top.roi_align %x, %rois, %idx {output_height = 5 : i64, output_width = 5 : i64, sampling_ratio = 2 : i64,
                                        spatial_scale = 1.0 : f64, half_pixel = false}
        : (tensor<1x1x10x10xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x1x5x5xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_Tensor:$rois, Top_Tensor:$batch_indices,
                   DefaultValuedAttr<Top_RoiModeAttr, "RoiMode::avg">:$mode, I64Attr:$output_height,
                   I64Attr:$output_width, DefaultValuedAttr<I64Attr, "0">:$sampling_ratio,
                   DefaultValuedAttr<F64Attr, "1.0">:$spatial_scale,
                   DefaultValuedAttr<BoolAttr, "true">:$half_pixel);
  let results = (outs Top_Tensor:$output);
}

def Top_RoiPoolingOp : Top_Op<"roi_pooling"> {
  let summary = "Max pooling of regions of interest to a fixed size (category: pool)";
  let description = [{
    ONNX MaxRoiPool (TPU-MLIR's ROIPooling, Caffe's ROIPooling): `rois` [R, 5] holds (batch index, x1, y1,
    x2, y2) per box; the box scaled by `spatial_scale` and rounded to whole pixels (ends included) is cut
    into `pooled_shape` bins of floor/ceil bounds, each the maximum of its pixels (0 when empty). Output
    [R, C, ph, pw].

    ```mlir
    %y = top.roi_pooling %x, %rois {pooled_shape = array<i64: 2, 2>, spatial_scale = 1.0 : f64}
        : (tensor<1x3x8x8xf32>, tensor<2x5xf32>) -> tensor<2x3x2x2xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_Tensor:$rois, DenseI64ArrayAttr:$pooled_shape,
                   DefaultValuedAttr<F64Attr, "1.0">:$spatial_scale);
  let results = (outs Top_Tensor:$output);
}

def Top_NonMaxSuppressionOp : Top_Op<"non_max_suppression"> {
  let summary = "Boxes kept by non-maximum suppression (category: logic)";
  let description = [{
    ONNX NonMaxSuppression: `boxes` [B, N, 4] (y1, x1, y2, x2 corners, or x, y, w, h centres with
    `center_point_box`), `scores` [B, C, N]; per batch and class, boxes by descending score above
    `score_threshold`, each dropped when its IoU with a kept one exceeds `iou_threshold`, at most
    `max_output_boxes_per_class`. The three scalars are operands (`none`: no box, IoU 0, no score
    threshold). The result is
    [n, 3] of (batch, class, box); n depends on the data, so it is the result type's (the model declares it):
    a run that keeps another number of boxes fails naming both.

    ```mlir
    %y = top.non_max_suppression %b, %s, %m, %iou, %th : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<3x3xi64>
    ```
  }];
  let arguments = (ins Top_Tensor:$boxes, Top_Tensor:$scores, Top_TensorOrNone:$max_output_boxes_per_class,
                   Top_TensorOrNone:$iou_threshold, Top_TensorOrNone:$score_threshold,
                   DefaultValuedAttr<BoolAttr, "false">:$center_point_box);
  let results = (outs Top_Tensor:$output);
}

#endif // TPUC_TOP_NN_OPS
