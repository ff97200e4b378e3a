//===- TpuShapeOps.td - Data movement, resize and reductions -*- tablegen -*-===//
// Categories: shape, resize, reduce. In INT8, data movement keeps the input's quantized type.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TPU_SHAPE_OPS
#define TPUC_TPU_SHAPE_OPS

def Tpu_ReshapeOp : Tpu_ShapeOp<"reshape", "Reinterprets the shape", [Tpu_Role<"Reshape">]> {
  let description = [{
    Lowered `top.reshape`, `top.squeeze`, `top.unsqueeze`: same elements in row-major order, the result
    type's shape.

    ```mlir
    %y = tpu.reshape %x {precision = #top.precision<F32>} : (tensor<1x512x1x1xf32>) -> tensor<1x512xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input), Tpu_CommonAttrs);
}

def Tpu_PermuteOp : Tpu_ShapeOp<"permute", "Transposes axes"> {
  let description = [{
    Lowered `top.permute`: output axis i is input axis `order[i]`.

    ```mlir
    %y = tpu.permute %x {precision = #top.precision<F16>, order = array<i64: 0, 2, 1, 3>}
        : (tensor<1x16x8x64xf16>) -> tensor<1x8x16x64xf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, DenseI64ArrayAttr:$order), Tpu_CommonAttrs);
}

def Tpu_SliceOp : Tpu_ShapeOp<"slice", "Strided window of a tensor"> {
  let description = [{
    Lowered `top.slice`: per axis, elements `offset, offset + step, ...` below `ends` (negative steps walk
    backwards).

    ```mlir
    %y = tpu.slice %x {precision = #top.precision<F32>, offset = array<i64: 0, 1>, steps = array<i64: 1, 2>,
                       ends = array<i64: 1, 7>} : (tensor<1x8xf32>) -> tensor<1x3xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, DenseI64ArrayAttr:$offset, DenseI64ArrayAttr:$steps,
                            DenseI64ArrayAttr:$ends), Tpu_CommonAttrs);
}

def Tpu_SplitOp : Tpu_Op<"split"> {
  let summary = "Splits a tensor into pieces along an axis (category: shape)";
  let description = [{
    Lowered `top.split`: result i takes `split_size[i]` consecutive elements along `axis`.

    ```mlir
    %a, %b = tpu.split %x {precision = #top.precision<F32>, axis = 2 : i64, split_size = array<i64: 64, 64>}
        : (tensor<1x16x128xf32>) -> (tensor<1x16x64xf32>, tensor<1x16x64xf32>)
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, I64Attr:$axis, DenseI64ArrayAttr:$split_size),
                       Tpu_CommonAttrs);
  let results = (outs Variadic<Tpu_Tensor>:$outputs);
}

def Tpu_ConcatOp : Tpu_ShapeOp<"concat", "Joins tensors along an axis", [Tpu_Role<"Concat">]> {
  let description = [{
    Lowered `top.concat`, with a fused Relu. In INT8 every input has the result's quantized type (the
    lowering rescales the others with `tpu.requant_int`).

    ```mlir
    %y = tpu.concat %a, %b {precision = #top.precision<F32>, axis = 1 : i64}
        : (tensor<1x2x8xf32>, tensor<1x3x8xf32>) -> tensor<1x5x8xf32>
    ```
  }];
  let arguments = !con((ins Variadic<Tpu_Tensor>:$inputs, I64Attr:$axis,
                            DefaultValuedAttr<BoolAttr, "false">:$do_relu,
                            DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit), Tpu_CommonAttrs);
}

def Tpu_PadOp : Tpu_ShapeOp<"pad", "Pads the borders of a tensor"> {
  let description = [{
    Lowered `top.pad`: `paddings` holds the begin pads of every axis, then the end pads; constant (`val`),
    reflect or edge filling. In INT8 constant padding fills `quantize(val)` with the result's parameters.

    ```mlir
    %y = tpu.pad %x {precision = #top.precision<F32>, paddings = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>}
        : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, DenseI64ArrayAttr:$paddings,
                            DefaultValuedAttr<F64Attr, "0.0">:$val,
                            DefaultValuedAttr<Top_PadModeAttr, "::tpuc::top::PadMode::constant">:$pad_mode),
                       Tpu_CommonAttrs);
}

def Tpu_GatherOp : Tpu_ShapeOp<"gather", "Gathers slices by index", [Tpu_Role<"Gather">]> {
  let description = [{
    Lowered `top.gather` (ONNX Gather; embeddings are gathers of a weight on axis 0). `indices` are
    integers; the precision applies to `input` and the result.

    ```mlir
    %y = tpu.gather %table, %ids {precision = #top.precision<F16>, axis = 0 : i64}
        : (tensor<1000x64xf16>, tensor<1x16xi64>) -> tensor<1x16x64xf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$indices, I64Attr:$axis), Tpu_CommonAttrs);
}

def Tpu_Depth2SpaceOp : Tpu_ShapeOp<"depth2space", "Moves channel blocks into space or back"> {
  let description = [{
    Lowered `top.depth2space` (DepthToSpace in `dcr` or `crd` order; SpaceToDepth with `is_inversed`).

    ```mlir
    %y = tpu.depth2space %x {precision = #top.precision<F32>, block_h = 2 : i64, block_w = 2 : i64}
        : (tensor<1x16x4x4xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, I64Attr:$block_h, I64Attr:$block_w,
                            DefaultValuedAttr<Top_Depth2SpaceModeAttr,
                                              "::tpuc::top::Depth2SpaceMode::dcr">:$d2s_mode,
                            DefaultValuedAttr<BoolAttr, "false">:$is_inversed), Tpu_CommonAttrs);
}

def Tpu_InterpOp : Tpu_Op<"interp"> {
  let summary = "Resizes the trailing spatial axes, nearest, linear or cubic (category: resize)";
  let description = [{
    Lowered `top.interp` with the same modes. INT8 exists for nearest only (the result has the input's
    type); linear and cubic resizes stay float. The optional `scales` (f32, one per axis, ONNX Resize's
    scales fed at run time or not giving whole sizes) maps output to input coordinates by the scale
    instead of by out / in.

    ```mlir
    %y = tpu.interp %x {precision = #top.precision<F32>, target_shape = array<i64: 16, 16>,
                        mode = #top.interp_mode<nearest>, coord_mode = #top.coord_mode<asymmetric>}
        : (tensor<1x8x8x8xf32>) -> tensor<1x8x16x16xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Optional<Tpu_Tensor>:$scales, DenseI64ArrayAttr:$target_shape,
                            Top_InterpModeAttr:$mode,
                            DefaultValuedAttr<Top_CoordModeAttr, "::tpuc::top::CoordMode::half_pixel">:$coord_mode,
                            OptionalAttr<Top_NearestModeAttr>:$nearest_mode,
                            DefaultValuedAttr<F64Attr, "-0.75">:$cubic_coeff_a,
                            DefaultValuedAttr<BoolAttr, "false">:$exclude_outside), Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_ReduceOp : Tpu_Op<"reduce", [Tpu_Role<"GlobalPool">]> {
  let summary = "Reduces over axes, float only (category: reduce)";
  let description = [{
    Lowered `top.reduce` (mean, sum, max, min, prod, l1, l2), accumulated in f32 and rounded to the
    precision. No INT8 form.

    ```mlir
    %y = tpu.reduce %x {precision = #top.precision<F32>, axes = array<i64: 2, 3>, keepdims = true,
                        mode = #top.reduce_mode<mean>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, DenseI64ArrayAttr:$axes,
                            DefaultValuedAttr<BoolAttr, "true">:$keepdims, Top_ReduceModeAttr:$mode),
                       Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_GatherElementsOp : Tpu_ShapeOp<"gather_elements", "Gathers single elements by index along an axis"> {
  let description = [{
    Lowered `top.gather_elements` (ONNX GatherElements, `torch.gather`): `indices` are integers with the
    rank of `input`; INT8 keeps the input's type.

    ```mlir
    %y = tpu.gather_elements %x, %ids {precision = #top.precision<F16>, axis = 1 : i64}
        : (tensor<3x5xf16>, tensor<3x2xi64>) -> tensor<3x2xf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$indices, I64Attr:$axis), Tpu_CommonAttrs);
}

def Tpu_ScatterElementsOp : Tpu_ShapeOp<"scatter_elements", "Writes single elements by index along an axis"> {
  let description = [{
    Lowered `top.scatter_elements` (ONNX ScatterElements, `Tensor.scatter`), float only: `updates` replace
    or, with `reduction`, combine into `input` at `indices` along `axis`, in order.

    ```mlir
    %y = tpu.scatter_elements %x, %ids, %u {precision = #top.precision<F32>, axis = 1 : i64}
        : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$indices, Tpu_Tensor:$updates, I64Attr:$axis,
                            DefaultValuedAttr<Top_ScatterReduceAttr, "::tpuc::top::ScatterReduce::none">:$reduction),
                       Tpu_CommonAttrs);
}

def Tpu_ScatterNDOp : Tpu_ShapeOp<"scatter_nd", "Writes slices at index tuples"> {
  let description = [{
    Lowered `top.scatter_nd` (ONNX ScatterND), float only: each index tuple of `indices` [..., K] addresses
    a slice of `input` that `updates` replaces or, with `reduction`, combines into, in order.

    ```mlir
    %y = tpu.scatter_nd %x, %ids, %u {precision = #top.precision<F32>}
        : (tensor<4x4x4xf32>, tensor<2x1xi64>, tensor<2x4x4xf32>) -> tensor<4x4x4xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$indices, Tpu_Tensor:$updates,
                            DefaultValuedAttr<Top_ScatterReduceAttr, "::tpuc::top::ScatterReduce::none">:$reduction),
                       Tpu_CommonAttrs);
}

def Tpu_NonZeroOp : Tpu_ShapeOp<"nonzero", "Coordinates of the non-zero elements"> {
  let description = [{
    Lowered `top.nonzero`: the i64 [rank, n] coordinates of the non-zero elements of `input` (a float mask,
    INT8 codes compared with the zero point, or an integer tensor) in row-major order, n declared by the
    model; a run with another number fails naming both.

    ```mlir
    %y = tpu.nonzero %m {precision = #top.precision<F32>} : (tensor<2x3xf32>) -> tensor<2x4xi64>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input), Tpu_CommonAttrs);
}

def Tpu_LoopGuardOp : Tpu_Op<"loop_guard"> {
  let summary = "Passes a loop's result on if the loop kept within its steps (category: logic)";
  let description = [{
    Lowered `top.loop_guard`: `count` in f32, `input` and the result in the precision's float type (integers
    unchanged); the run fails when the loop wanted more than `max_trips` steps (or, `exact`, another number).

    ```mlir
    %y = tpu.loop_guard %count, %x {precision = #top.precision<F16>, max_trips = 8 : i64}
        : (tensor<1xf32>, tensor<1x4xf16>) -> tensor<1x4xf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$count, Tpu_Tensor:$input, I64Attr:$max_trips,
                            DefaultValuedAttr<BoolAttr, "false">:$exact), Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_UniqueOp : Tpu_Op<"unique"> {
  let summary = "The distinct elements or slices of a tensor, float only (category: shape)";
  let description = [{
    Lowered `top.unique`: the distinct values in the op's float type (compared after rounding to it), the
    i64 first-occurrence indices, inverse indices and counts; their number n is declared by the model and a
    run with another fails naming both.

    ```mlir
    %y, %first, %inverse, %counts = tpu.unique %x {precision = #top.precision<F16>, sorted = true}
        : (tensor<6xf16>) -> (tensor<4xf16>, tensor<4xi64>, tensor<6xi64>, tensor<4xi64>)
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, OptionalAttr<I64Attr>:$axis,
                            DefaultValuedAttr<BoolAttr, "true">:$sorted), Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output, Tpu_Tensor:$indices, Tpu_Tensor:$inverse_indices,
                 Tpu_Tensor:$counts);
}

def Tpu_DynamicSliceOp : Tpu_ShapeOp<"dynamic_slice", "Window whose bounds are fed at run time"> {
  let description = [{
    Lowered `top.dynamic_slice` (ONNX Slice with `starts`, `ends`, `axes` or `steps` fed at run time, all
    integer tensors): the window's extent is the result type's and is checked at run time; INT8 keeps the
    input's type.

    ```mlir
    %y = tpu.dynamic_slice %x, %s, %e, %a, %st {precision = #top.precision<F16>}
        : (tensor<1x8xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x4xf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$starts, Tpu_Tensor:$ends, Tpu_Tensor:$axes,
                            Tpu_Tensor:$steps), Tpu_CommonAttrs);
}

#endif // TPUC_TPU_SHAPE_OPS
