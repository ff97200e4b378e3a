//===- TpuShapeOps.td - Data movement, resize and reductions -*- tablegen -*-===//
// Categories: shape, resize, reduce. In INT8, data movement keeps the input's quantized type.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TPU_SHAPE_OPS
#define TPUC_TPU_SHAPE_OPS

def Tpu_ReshapeOp : Tpu_ShapeOp<"reshape", "Reinterprets the shape"> {
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

def Tpu_ConcatOp : Tpu_ShapeOp<"concat", "Joins tensors along an axis"> {
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

def Tpu_GatherOp : Tpu_ShapeOp<"gather", "Gathers slices by index"> {
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
  let summary = "Resizes the trailing spatial axes, nearest or linear (category: resize)";
  let description = [{
    Lowered `top.interp` with the same modes. INT8 exists for nearest only (the result has the input's
    type); linear resizes stay float.

    ```mlir
    %y = tpu.interp %x {precision = #top.precision<F32>, target_shape = array<i64: 16, 16>,
                        mode = #top.interp_mode<nearest>, coord_mode = #top.coord_mode<asymmetric>}
        : (tensor<1x8x8x8xf32>) -> tensor<1x8x16x16xf32>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, DenseI64ArrayAttr:$target_shape, Top_InterpModeAttr:$mode,
                            DefaultValuedAttr<Top_CoordModeAttr, "::tpuc::top::CoordMode::half_pixel">:$coord_mode,
                            OptionalAttr<Top_NearestModeAttr>:$nearest_mode), Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_ReduceOp : Tpu_Op<"reduce"> {
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

#endif // TPUC_TPU_SHAPE_OPS
