//===- TpuLogicOps.td - Selection, comparison and sampling ops -*- tablegen -*-===//
//
// Float-only ops of the LLM heads (greedy_head, sample_head): the chip compares, selects and sorts on
// floats, so a comparison yields 0 / 1 in the op's float type instead of Top's i1, and indices are i32.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_TPU_LOGIC_OPS
#define TPUC_TPU_LOGIC_OPS

def Tpu_TopKOp : Tpu_Op<"topk"> {
  let summary = "The k largest or smallest values along an axis and their indices, float only (category: logic)";
  let description = [{
    Lowered `top.topk`: values sorted (ties keep the lower index first) in the op's float type, indices
    as i32. Comparisons run on the rounded input, so the result is exact in every float precision.

    ```mlir
    %v, %i = tpu.topk %x {precision = #top.precision<BF16>, axis = 1 : i64, k = 1 : i64}
        : (tensor<1x1000xbf16>) -> (tensor<1x1xbf16>, tensor<1x1xi32>)
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, I64Attr:$axis, I64Attr:$k,
                            DefaultValuedAttr<BoolAttr, "true">:$largest,
                            DefaultValuedAttr<BoolAttr, "true">:$sorted), Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$values, Tpu_Tensor:$indices);
}

def Tpu_CumSumOp : Tpu_Op<"cumsum"> {
  let summary = "Cumulative sum along an axis, float only (category: shape)";
  let description = [{
    Lowered `top.cumsum`, accumulated in f32 and rounded to the precision once per element.

    ```mlir
    %y = tpu.cumsum %x {precision = #top.precision<BF16>, axis = 1 : i64} : (tensor<1x50xbf16>) -> tensor<1x50xbf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, I64Attr:$axis,
                            DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                            DefaultValuedAttr<BoolAttr, "false">:$reverse), Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_CompareOp : Tpu_Op<"compare"> {
  let summary = "Element-wise comparison or logic with broadcasting, float only (category: logic)";
  let description = [{
    Lowered `top.compare`: 1 where `lhs mode rhs` holds, else 0, in the op's float type (the mask the
    chip's compare produces; Top's i1 result has no storage on the chip).

    ```mlir
    %m = tpu.compare %a, %b {precision = #top.precision<BF16>, mode = #top.compare_mode<lt>}
        : (tensor<1x50xbf16>, tensor<1xbf16>) -> tensor<1x50xbf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$lhs, Tpu_Tensor:$rhs, Top_CompareModeAttr:$mode), Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_WhereOp : Tpu_Op<"where"> {
  let summary = "Selects element-wise by a condition, float only (category: logic)";
  let description = [{
    Lowered `top.where`: `cond != 0 ? x : y` broadcast together; `cond` is a float mask.

    ```mlir
    %y = tpu.where %m, %a, %b {precision = #top.precision<BF16>}
        : (tensor<1x50xbf16>, tensor<1x50xbf16>, tensor<1xbf16>) -> tensor<1x50xbf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$cond, Tpu_Tensor:$x, Tpu_Tensor:$y), Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_RepetitionPenaltyOp : Tpu_Op<"repetition_penalty"> {
  let summary = "Penalizes the logits of tokens already seen, float only (category: llm)";
  let description = [{
    Lowered `top.repetition_penalty`: for every id `t >= 0` in `ids[b]` (i32), `logits[b, t]` is
    multiplied by `penalty` if negative and divided by it otherwise, once per distinct id; the result
    is rounded to the precision.

    ```mlir
    %y = tpu.repetition_penalty %logits, %ids, %p {precision = #top.precision<BF16>}
        : (tensor<1x32000xbf16>, tensor<1x512xi32>, tensor<1xbf16>) -> tensor<1x32000xbf16>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$logits, Tpu_Tensor:$ids, Tpu_Tensor:$penalty), Tpu_CommonAttrs);
  let results = (outs Tpu_Tensor:$output);
}

#endif // TPUC_TPU_LOGIC_OPS
