//===- TopLLMOps.td - Ops of the LLM decoding heads -----------*- tablegen -*-===//
// Category: llm. Ops the HuggingFace LLM path needs beyond the attention building blocks (rmsnorm, rope,
// attention, a16matmul) that the other files already hold.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TOP_LLM_OPS
#define TPUC_TOP_LLM_OPS

def Top_RepetitionPenaltyOp : Top_Op<"repetition_penalty"> {
  let summary = "Penalizes the logits of tokens already seen (category: llm)";
  let description = [{
    HuggingFace's RepetitionPenaltyLogitsProcessor as LLM-TPU's sample head computes it (gather, rescale,
    scatter): for every token id `t` in `ids[b]`, `logits[b, t]` becomes `logits[b, t] * penalty` if it is
    negative and `logits[b, t] / penalty` otherwise. A token listed twice is penalized once; negative ids
    are padding and ignored. `logits` is [B, V], `ids` [B, S], `penalty` holds one value.

    ```mlir
    %y = top.repetition_penalty %logits, %ids, %p
        : (tensor<1x32000xf32>, tensor<1x512xi32>, tensor<1xf32>) -> tensor<1x32000xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$logits, Top_Tensor:$ids, Top_Tensor:$penalty);
  let results = (outs Top_Tensor:$output);
}

#endif // TPUC_TOP_LLM_OPS
