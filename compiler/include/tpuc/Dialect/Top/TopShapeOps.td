//===- TopShapeOps.td - Data movement, reductions, selection -*- tablegen -*-===//
// Categories: shape (reshape, layout, slicing), reduce, resize, logic.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TOP_SHAPE_OPS
#define TPUC_TOP_SHAPE_OPS

def Top_ReshapeOp : Top_Op<"reshape"> {
  let summary = "Reinterprets the shape (category: shape)";
  let description = [{
    Same elements in the same row-major order, new shape: the result type's. A reshape of a reshape
    folds into one; a reshape to the operand's own shape folds away.

    ```mlir
    %y = top.reshape %x : tensor<1x512x1x1xf32> -> tensor<1x512xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def Top_SqueezeOp : Top_Op<"squeeze"> {
  let summary = "Removes size-1 axes (category: shape)";
  let description = [{
    Drops the listed axes, each of which must have size 1 (negative axes count from the end).

    ```mlir
    %y = top.squeeze %x {axes = array<i64: 2, 3>} : tensor<1x512x1x1xf32> -> tensor<1x512xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def Top_UnsqueezeOp : Top_Op<"unsqueeze"> {
  let summary = "Inserts size-1 axes (category: shape)";
  let description = [{
    Inserts an axis of size 1 at each listed position of the output (negative axes count from the end of
    the output).

    ```mlir
    %y = top.unsqueeze %x {axes = array<i64: 0>} : tensor<4xf32> -> tensor<1x4xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def Top_PermuteOp : Top_Op<"permute"> {
  let summary = "Transposes axes (category: shape)";
  let description = [{
    Output axis i is input axis `order[i]`. The identity order folds away; two permutes compose; a permute
    that moves only axes of extent 1 is a reshape (canonicalization).

    ```mlir
    %y = top.permute %x {order = array<i64: 0, 2, 1, 3>} : tensor<1x16x8x64xf32> -> tensor<1x8x16x64xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DenseI64ArrayAttr:$order);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Top_ConcatOp : Top_Op<"concat"> {
  let summary = "Joins tensors along an axis (category: shape)";
  let description = [{
    All inputs agree on every axis but `axis`.

    ```mlir
    %y = top.concat %a, %b {axis = 1 : i64} : (tensor<1x2x8xf32>, tensor<1x3x8xf32>) -> tensor<1x5x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Top_Tensor>:$inputs, I64Attr:$axis,
                   DefaultValuedAttr<BoolAttr, "false">:$do_relu,
                   DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit);
  let results = (outs Top_Tensor:$output);
  let hasFolder = 1;
}

def Top_SliceOp : Top_Op<"slice"> {
  let summary = "Strided window of a tensor (category: shape)";
  let description = [{
    For every axis, takes elements `offset, offset + step, ...` up to but excluding `ends` (ONNX Slice with
    all axes listed and the start/end values already clamped; a negative step walks backwards).

    ```mlir
    %y = top.slice %x {offset = array<i64: 0, 1>, steps = array<i64: 1, 2>, ends = array<i64: 1, 7>}
        : tensor<1x8xf32> -> tensor<1x3xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DenseI64ArrayAttr:$offset, DenseI64ArrayAttr:$steps,
                   DenseI64ArrayAttr:$ends);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def Top_DynamicSliceOp : Top_Op<"dynamic_slice"> {
  let summary = "Strided window whose bounds are data (category: shape)";
  let description = [{
    ONNX Slice with `starts`, `ends`, `axes` and `steps` fed at run time (1-D integer tensors of one length;
    negative values count from the end, bounds are clamped as ONNX does). The window's extent depends on the
    data, so it is the result type's (the model declares it; shapes are static): a run whose bounds give
    another shape fails naming both.

    ```mlir
    %y = top.dynamic_slice %x, %starts, %ends, %axes, %steps
        : (tensor<20x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x10xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_Tensor:$starts, Top_Tensor:$ends, Top_Tensor:$axes,
                   Top_Tensor:$steps);
  let results = (outs Top_Tensor:$output);
}

def Top_SplitOp : Top_Op<"split"> {
  let summary = "Splits a tensor into pieces along an axis (category: shape)";
  let description = [{
    Result i takes `split_size[i]` consecutive elements along `axis`; the sizes add up to the axis length.

    ```mlir
    %a, %b = top.split %x {axis = 2 : i64, split_size = array<i64: 64, 64>}
        : (tensor<1x16x128xf32>) -> (tensor<1x16x64xf32>, tensor<1x16x64xf32>)
    ```
  }];
  let arguments = (ins Top_Tensor:$input, I64Attr:$axis, DenseI64ArrayAttr:$split_size);
  let results = (outs Variadic<Top_Tensor>:$outputs);
}

def Top_GatherOp : Top_Op<"gather"> {
  let summary = "Gathers slices by index (category: shape)";
  let description = [{
    ONNX Gather: the output is `input` with axis `axis` replaced by the shape of `indices`; negative indices
    count from the end. Embedding lookups are gathers on axis 0.

    ```mlir
    %y = top.gather %table, %ids {axis = 0 : i64} : (tensor<1000x64xf32>, tensor<1x16xi64>) -> tensor<1x16x64xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_Tensor:$indices, I64Attr:$axis);
  let results = (outs Top_Tensor:$output);
  let hasFolder = 1;
}

def Top_GatherElementsOp : Top_Op<"gather_elements"> {
  let summary = "Gathers single elements by index along an axis (category: shape)";
  let description = [{
    ONNX GatherElements: `indices` has the rank of `input` and gives the output its shape; output element
    `[i0, .., ik, ..]` is `input[i0, .., indices[i0, .., ik, ..], ..]` with k = `axis`. Negative indices
    count from the end.

    ```mlir
    %y = top.gather_elements %x, %ids {axis = 1 : i64} : (tensor<3x5xf32>, tensor<3x1xi64>) -> tensor<3x1xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_Tensor:$indices, I64Attr:$axis);
  let results = (outs Top_Tensor:$output);
}

def Top_ScatterElementsOp : Top_Op<"scatter_elements"> {
  let summary = "Writes single elements by index along an axis (category: shape)";
  let description = [{
    ONNX ScatterElements: the output is `input` with `output[i0, .., indices[i0, .., ik, ..], ..]` set to
    (or, with `reduction`, combined with) `updates[i0, .., ik, ..]`, k = `axis`; `indices` and `updates`
    have one shape of `input`'s rank. Negative indices count from the end; updates apply in order.

    ```mlir
    %y = top.scatter_elements %x, %ids, %u {axis = 1 : i64} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_Tensor:$indices, Top_Tensor:$updates, I64Attr:$axis,
                   DefaultValuedAttr<Top_ScatterReduceAttr, "ScatterReduce::none">:$reduction);
  let results = (outs Top_Tensor:$output);
}

def Top_ScatterNDOp : Top_Op<"scatter_nd"> {
  let summary = "Writes slices at index tuples (category: shape)";
  let description = [{
    ONNX ScatterND: `indices` is [..., K]; each index tuple of K coordinates addresses a slice of `input`
    (its last rank - K axes), which `updates` (shape `indices.shape[:-1] + input.shape[K:]`) replaces or,
    with `reduction`, is combined into. Updates apply in order.

    ```mlir
    %y = top.scatter_nd %x, %ids, %u : (tensor<4x4x4xf32>, tensor<2x1xi64>, tensor<2x4x4xf32>) -> tensor<4x4x4xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Top_Tensor:$indices, Top_Tensor:$updates,
                   DefaultValuedAttr<Top_ScatterReduceAttr, "ScatterReduce::none">:$reduction);
  let results = (outs Top_Tensor:$output);
}

def Top_NonZeroOp : Top_Op<"nonzero"> {
  let summary = "Coordinates of the non-zero elements (category: shape)";
  let description = [{
    ONNX NonZero: a [rank, n] tensor of the coordinates of the n non-zero elements in row-major order. The
    extent n depends on the data, so it is the result type's (the model declares it; shapes are static):
    a run whose input has another number of non-zero elements fails naming both.

    ```mlir
    %y = top.nonzero %c : tensor<2x3xi1> -> tensor<2x4xi64>
    ```
  }];
  let arguments = (ins Top_Tensor:$input);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Top_UniqueOp : Top_Op<"unique"> {
  let summary = "The distinct elements or slices of a tensor (category: shape)";
  let description = [{
    ONNX Unique: the distinct elements of `input` (flattened) or, with `axis`, its distinct slices along
    that axis; `sorted` orders them ascending (slices lexicographically), else by first occurrence. Results:
    the distinct values, the index of each one's first occurrence, for every input element (slice) the index
    of its value among them, and how often each occurs. Their number n depends on the data, so it is the
    result types' (the model declares them; shapes are static): a run whose input has another number of
    distinct values fails naming both.

    ```mlir
    %y, %first, %inverse, %counts = top.unique %x {sorted = true} : (tensor<6xf32>)
        -> (tensor<4xf32>, tensor<4xi64>, tensor<6xi64>, tensor<4xi64>)
    ```
  }];
  let arguments = (ins Top_Tensor:$input, OptionalAttr<I64Attr>:$axis,
                   DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs Top_Tensor:$output, Top_Tensor:$indices, Top_Tensor:$inverse_indices,
                 Top_Tensor:$counts);
}

def Top_CumSumOp : Top_Op<"cumsum"> {
  let summary = "Cumulative sum along an axis (category: shape)";
  let description = [{
    ONNX CumSum: each output element is the sum of the input elements up to it along `axis`; `exclusive`
    leaves the element itself out and `reverse` sums from the end.

    ```mlir
    %y = top.cumsum %x {axis = 1 : i64, reverse = true} : tensor<2x5xf32> -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, I64Attr:$axis,
                   DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                   DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Top_PadOp : Top_Op<"pad"> {
  let summary = "Pads the borders of a tensor (category: shape)";
  let description = [{
    `paddings` holds the begin pads of every axis followed by the end pads (ONNX order); `pad_mode` chooses
    constant (`val`), reflect or edge filling.

    ```mlir
    %y = top.pad %x {paddings = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, val = 0.0 : f64}
        : tensor<1x3x8x8xf32> -> tensor<1x3x10x10xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DenseI64ArrayAttr:$paddings,
                   DefaultValuedAttr<F64Attr, "0.0">:$val,
                   DefaultValuedAttr<Top_PadModeAttr, "PadMode::constant">:$pad_mode);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Top_ReduceOp : Top_Op<"reduce"> {
  let summary = "Reduces over axes: mean, sum, max, min, prod, l1, l2 (category: reduce)";
  let description = [{
    Reduces the listed axes; with `keepdims` they stay as size 1.

    ```mlir
    %y = top.reduce %x {axes = array<i64: 2, 3>, keepdims = true, mode = #top.reduce_mode<mean>}
        : tensor<1x8x4x4xf32> -> tensor<1x8x1x1xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DenseI64ArrayAttr:$axes,
                   DefaultValuedAttr<BoolAttr, "true">:$keepdims, Top_ReduceModeAttr:$mode);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Top_InterpOp : Top_Op<"interp"> {
  let summary = "Resizes the trailing spatial axes, nearest, linear or cubic (category: resize)";
  let description = [{
    ONNX Resize / Upsample on NCHW (or NCW) input to the spatial size `target_shape`, with the given
    interpolation and coordinate transformation. Nearest rounds the source coordinate as `nearest_mode`
    says; without it, down for `asymmetric` (ONNX `floor`) and to nearest, halves down, otherwise
    (`round_prefer_floor`). `nearest_mode` is only valid with nearest interpolation. Cubic interpolation
    takes four taps per axis with ONNX's kernel (`cubic_coeff_a`, edge samples repeated; `exclude_outside`
    drops the taps outside the input and renormalizes). Coordinates map by out / in, or, when the optional
    `scales` operand is given (ONNX `scales` of every axis, possibly fed at run time), by those scales, as
    ONNX does when in * scale is fractional.

    ```mlir
    %y = top.interp %x {target_shape = array<i64: 16, 16>, mode = #top.interp_mode<linear>,
                        coord_mode = #top.coord_mode<half_pixel>} : tensor<1x8x8x8xf32> -> tensor<1x8x16x16xf32>
    %z = top.interp %x {target_shape = array<i64: 12, 12>, mode = #top.interp_mode<nearest>,
                        coord_mode = #top.coord_mode<align_corners>, nearest_mode = #top.nearest_mode<ceil>}
        : tensor<1x8x8x8xf32> -> tensor<1x8x12x12xf32>
    %c = top.interp %x scales %s {target_shape = array<i64: 4, 4>, mode = #top.interp_mode<cubic>}
        : tensor<1x8x8x8xf32>, tensor<4xf32> -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, Optional<Top_Tensor>:$scales, DenseI64ArrayAttr:$target_shape,
                   Top_InterpModeAttr:$mode,
                   DefaultValuedAttr<Top_CoordModeAttr, "CoordMode::half_pixel">:$coord_mode,
                   OptionalAttr<Top_NearestModeAttr>:$nearest_mode,
                   DefaultValuedAttr<F64Attr, "-0.75">:$cubic_coeff_a,
                   DefaultValuedAttr<BoolAttr, "false">:$exclude_outside);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = [{
    $input (`scales` $scales^)? attr-dict `:` type($input) (`,` type($scales)^)? `->` type($output)
  }];
}

def Top_Depth2SpaceOp : Top_Op<"depth2space"> {
  let summary = "Moves channel blocks into space or back (category: shape)";
  let description = [{
    ONNX DepthToSpace on NCHW: [N, C*bh*bw, H, W] -> [N, C, H*bh, W*bw] in `dcr` or `crd` channel order;
    with `is_inversed` it is SpaceToDepth.

    ```mlir
    %y = top.depth2space %x {block_h = 2 : i64, block_w = 2 : i64} : tensor<1x16x4x4xf32> -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, I64Attr:$block_h, I64Attr:$block_w,
                   DefaultValuedAttr<Top_Depth2SpaceModeAttr, "Depth2SpaceMode::dcr">:$d2s_mode,
                   DefaultValuedAttr<BoolAttr, "false">:$is_inversed);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Top_CastOp : Top_Op<"cast"> {
  let summary = "Converts the element type (category: shape)";
  let description = [{
    Converts every element to the result's element type (float to int truncates toward zero, int to bool is
    `x != 0`), as ONNX Cast.

    ```mlir
    %y = top.cast %x : tensor<1x4xf32> -> tensor<1x4xi32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def Top_CompareOp : Top_Op<"compare"> {
  let summary = "Element-wise comparison or logic with broadcasting (category: logic)";
  let description = [{
    1 where `lhs mode rhs` holds, else 0; `and`, `or`, `xor` treat non-zero as true.

    ```mlir
    %y = top.compare %a, %b {mode = #top.compare_mode<lt>} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xi1>
    ```
  }];
  let arguments = (ins Top_Tensor:$lhs, Top_Tensor:$rhs, Top_CompareModeAttr:$mode);
  let results = (outs Top_Tensor:$output);
}

def Top_WhereOp : Top_Op<"where"> {
  let summary = "Selects element-wise by a condition (category: logic)";
  let description = [{
    `cond != 0 ? x : y` with the three operands broadcast together.

    ```mlir
    %y = top.where %c, %a, %b : (tensor<1x4xi1>, tensor<1x4xf32>, tensor<1xf32>) -> tensor<1x4xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$cond, Top_Tensor:$x, Top_Tensor:$y);
  let results = (outs Top_Tensor:$output);
}

def Top_LoopGuardOp : Top_Op<"loop_guard"> {
  let summary = "Passes a loop's result on if the loop kept within its steps (category: logic)";
  let description = [{
    The run-time check of an ONNX Loop whose trip count or exit condition is data, imported as
    `max_trips` masked steps (ConvertLoop.cpp): `count` is how many steps the loop wanted, counting the
    one it would take after the last (a 0-d or 1-element tensor). The result is `input` unchanged; a run
    where `count` exceeds `max_trips` fails (the loop needs more steps than the model holds), and with
    `exact` (the loop has scan outputs, whose extent is `max_trips`) so does one where it differs.

    ```mlir
    %y = top.loop_guard %count, %x {max_trips = 8 : i64, exact = false} : (tensor<1xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$count, Top_Tensor:$input, I64Attr:$max_trips,
                   DefaultValuedAttr<BoolAttr, "false">:$exact);
  let results = (outs Top_Tensor:$output);
}

def Top_TopKOp : Top_Op<"topk"> {
  let summary = "The k largest or smallest values along an axis and their indices (category: logic)";
  let description = [{
    Values and indices of the top `k` elements along `axis`, sorted (ties keep the lower index first).

    ```mlir
    %v, %i = top.topk %x {axis = 1 : i64, k = 5 : i64} : (tensor<1x1000xf32>) -> (tensor<1x5xf32>, tensor<1x5xi64>)
    ```
  }];
  let arguments = (ins Top_Tensor:$input, I64Attr:$axis, I64Attr:$k,
                   DefaultValuedAttr<BoolAttr, "true">:$largest, DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs Top_Tensor:$values, Top_Tensor:$indices);
}

def Top_ArangeOp : Top_Op<"arange"> {
  let summary = "Evenly spaced values (category: shape)";
  let description = [{
    `start, start + delta, ...` below `limit` (ONNX Range with constant bounds); the length is
    `ceil((limit - start) / delta)`.

    ```mlir
    %y = top.arange {start = 0.0 : f64, limit = 16.0 : f64, delta = 1.0 : f64} : () -> tensor<16xf32>
    ```
  }];
  let arguments = (ins F64Attr:$start, F64Attr:$limit, F64Attr:$delta);
  let results = (outs Top_Tensor:$output);
  let hasFolder = 1;
}

#endif // TPUC_TOP_SHAPE_OPS
