//===- TpuControlOps.td - If and while-loop with regions ----*- tablegen -*-===//
// Category: control. Lowered top.if and top.loop. The backend lays each region out as blocks of the model
// file's command streams: a Branch on the condition in DDR, the region's commands, DDR copies of the yielded
// values into the op's results (docs/MODEL_FORMAT.md, docs/BACKEND.md). Regions are isolated from above.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TPU_CONTROL_OPS
#define TPUC_TPU_CONTROL_OPS

class Tpu_ControlOp<string mnemonic, list<Trait> traits = []>
    : Op<Tpu_Dialect, mnemonic, !listconcat([IsolatedFromAbove, RecursiveMemoryEffects,
          Tpu_BackendInterface], traits)> {
  let hasVerifier = 1;
}

def Tpu_IfOp : Tpu_ControlOp<"if"> {
  let summary = "Runs one of two regions, chosen by a condition in DDR at run time (category: control)";
  let description = [{
    Lowered `top.if`: `cond` (one element, any storage type) nonzero runs `then_branch`, zero
    `else_branch`; both take `inputs` as block arguments and yield values of the result types.

    ```mlir
    %y = tpu.if %c (%x) : (tensor<1xf32>, tensor<1x4xf16>) -> tensor<1x4xf16> {
    ^bb0(%a: tensor<1x4xf16>):
      ...
      tpu.yield %t : tensor<1x4xf16>
    }, {
    ^bb0(%a: tensor<1x4xf16>):
      tpu.yield %a : tensor<1x4xf16>
    }
    ```
  }];
  let arguments = (ins Tpu_Tensor:$cond, Variadic<Tpu_Tensor>:$inputs);
  let results = (outs Variadic<Tpu_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$then_branch, SizedRegion<1>:$else_branch);
  let assemblyFormat = [{
    $cond ` ` `(` $inputs `)` attr-dict `:` functional-type(operands, results) $then_branch `,` $else_branch
  }];
}

def Tpu_LoopOp : Tpu_ControlOp<"loop", [AttrSizedOperandSegments]> {
  let summary = "Repeats a region while its first carried value is nonzero (category: control)";
  let description = [{
    Lowered `top.loop` as a while loop: the carried values start as `inits`; while element 0 of the first
    one is nonzero the body runs on (carried..., captures...) and yields the next carried values. The
    results are the carried values after the last step. The lowering carries the step count as the second
    value and computes the condition (step < max_trips and the body's own condition) inside the body, in
    F32 whatever the precision, so the chip needs no run-time loop logic beyond the branch.
  }];
  let arguments = (ins Variadic<Tpu_Tensor>:$inits, Variadic<Tpu_Tensor>:$captures);
  let results = (outs Variadic<Tpu_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inits `)` `,` `(` $captures `)` attr-dict `:` functional-type(operands, results) $body
  }];
}

def Tpu_YieldOp : Op<Tpu_Dialect, "yield", [Pure, Terminator, ParentOneOf<["IfOp", "LoopOp"]>]> {
  let summary = "Ends a region of tpu.if or tpu.loop with its values (category: control)";
  let arguments = (ins Variadic<Tpu_Tensor>:$operands);
  let assemblyFormat = "($operands^ `:` type($operands))? attr-dict";
}

#endif // TPUC_TPU_CONTROL_OPS
