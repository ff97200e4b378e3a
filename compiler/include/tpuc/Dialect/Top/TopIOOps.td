//===- TopIOOps.td - Inputs, weights and absent operands ----*- tablegen -*-===//
// Category: io. Where data enters a Top function.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TOP_IO_OPS
#define TPUC_TOP_IO_OPS

def Top_InputOp : Top_Op<"input"> {
  let summary = "Network input with its preprocessing";
  let description = [{
    Marks a function argument as a network input. The attributes record how raw data (an image) becomes
    this tensor: resize to `resize_dims` (keeping the aspect ratio and padding with `pad_value` if asked),
    reorder to `pixel_format` and `channel_format`, then `(x - mean) * scale` per channel. Calibration and
    the studio apply the same preprocessing. The op itself forwards its operand.

    `customization_format` (model_deploy's --fuse_preprocess, set by top-fuse-preprocess): the input takes
    raw 8-bit pixels in that layout (RGB_PLANAR, BGR_PACKED, GRAYSCALE, ...) at `resize_dims`; the host only
    resizes, the ops that follow crop, reorder and normalize on the chip, and lowering gives the argument the
    type UINT8.

    ```mlir
    %0 = top.input %arg0 {pixel_format = #top.pixel_format<rgb>, mean = array<f64: 123.675, 116.28, 103.53>,
                          scale = array<f64: 0.0171, 0.0175, 0.0174>} : tensor<1x3x224x224xf32> -> tensor<1x3x224x224xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input,
                   OptionalAttr<DenseF64ArrayAttr>:$mean,
                   OptionalAttr<DenseF64ArrayAttr>:$scale,
                   OptionalAttr<Top_PixelFormatAttr>:$pixel_format,
                   OptionalAttr<Top_ChannelFormatAttr>:$channel_format,
                   OptionalAttr<DenseI64ArrayAttr>:$resize_dims,
                   DefaultValuedAttr<BoolAttr, "false">:$keep_aspect_ratio,
                   DefaultValuedAttr<F64Attr, "0.0">:$pad_value,
                   OptionalAttr<Top_PadTypeAttr>:$pad_type,
                   OptionalAttr<StrAttr>:$customization_format);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Top_WeightOp : Top_Op<"weight", [ConstantLike]> {
  let summary = "Constant tensor, stored in the module's .npz weight file";
  let description = [{
    A constant. Weights are not inlined in the IR: `name` is the array's key in the NumPy .npz file named by
    the module attribute `top.weight_file`. Small constants (shape computations, at most 256 elements) may
    instead carry their `value` inline, which lets folds compute with them.

    ```mlir
    %w = top.weight "conv1.weight" : tensor<64x3x7x7xf32>
    %s = top.weight "shape" {value = dense<[1, 512]> : tensor<2xi64>} : tensor<2xi64>
    ```
  }];
  let arguments = (ins StrAttr:$name, OptionalAttr<ElementsAttr>:$value);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$name attr-dict `:` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// Largest constant that may be stored inline.
    static constexpr int64_t kMaxInlineElements = 256;
  }];
}

def Top_NoneOp : Top_Op<"none"> {
  let summary = "Placeholder for an absent optional operand";
  let description = [{
    Fills an optional operand slot (a conv without bias, attention without mask) so every op has a fixed
    operand list.

    ```mlir
    %none = top.none : none
    %y = top.conv %x, %w, %none {...} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
    ```
  }];
  let results = (outs NoneType:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
}

#endif // TPUC_TOP_IO_OPS
