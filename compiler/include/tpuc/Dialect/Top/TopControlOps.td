//===- TopControlOps.td - If and Loop with regions ----------*- tablegen -*-===//
// Category: control. An ONNX If whose condition, or a Loop whose trip count or exit condition, is only
// known at run time: the branch or the number of steps is chosen when the model runs, on the reference, on
// the Tpu simulator and on the chip (the model file's blocks, docs/MODEL_FORMAT.md).
//
// The regions are isolated from above: everything a region reads from outside comes in as an operand and
// is a block argument inside, so a region is planned and run like a function of its own.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TOP_CONTROL_OPS
#define TPUC_TOP_CONTROL_OPS

class Top_ControlOp<string mnemonic, list<Trait> traits = []>
    : Op<Top_Dialect, mnemonic, !listconcat([IsolatedFromAbove, RecursiveMemoryEffects,
          DeclareOpInterfaceMethods<Top_ShapeInterface, ["inferRegionArguments"]>,
          DeclareOpInterfaceMethods<Top_FlopsInterface>], traits)> {
  // verify() checks the operands; verifyRegions() the regions' signatures, once their ops are verified.
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Top_IfOp : Top_ControlOp<"if"> {
  let summary = "Runs one of two regions, chosen by a condition known at run time (category: control)";
  let description = [{
    `cond` holds one element: nonzero runs `then_branch`, zero `else_branch`. Both regions take `inputs`
    as their block arguments and yield values of the result types. An If whose condition is known at
    import is inlined instead (the branch taken); so is one whose branches yield different shapes.

    ```mlir
    %y = top.if %c (%x) : (tensor<1xi1>, tensor<1x4xf32>) -> tensor<1x4xf32> {
    ^bb0(%a: tensor<1x4xf32>):
      %t = top.relu %a : tensor<1x4xf32> -> tensor<1x4xf32>
      top.yield %t : tensor<1x4xf32>
    }, {
    ^bb0(%a: tensor<1x4xf32>):
      top.yield %a : tensor<1x4xf32>
    }
    ```
  }];
  let arguments = (ins Top_Tensor:$cond, Variadic<Top_Tensor>:$inputs);
  let results = (outs Variadic<Top_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$then_branch, SizedRegion<1>:$else_branch);
  let assemblyFormat = [{
    $cond ` ` `(` $inputs `)` attr-dict `:` functional-type(operands, results) $then_branch `,` $else_branch
  }];
}

def Top_LoopOp : Top_ControlOp<"loop", [AttrSizedOperandSegments]> {
  let summary = "Repeats a region while a trip count and a condition allow, both known at run time "
                "(category: control)";
  let description = [{
    ONNX Loop without scan outputs. The body's block arguments are the step number (one i64 element,
    counting from 0), the condition (one element), the carried values, then `captures` (values from
    outside the loop, the same every step). It yields the next condition and the next carried values. A
    step runs while step < `max_trips` (when given) and the condition is nonzero (when given: `cond`
    before the first step, the yielded one after). The results are the carried values after the last
    step (the initial ones when no step ran).

    ```mlir
    %r = top.loop %m, %c, (%x), (%w) : (tensor<1xi64>, tensor<1xi1>, tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32> {
    ^bb0(%i: tensor<1xi64>, %go: tensor<1xi1>, %v: tensor<1x4xf32>, %k: tensor<4x4xf32>):
      %n = top.matmul %v, %k ... : (tensor<1x4xf32>, tensor<4x4xf32>, none) -> tensor<1x4xf32>
      top.yield %go, %n : tensor<1xi1>, tensor<1x4xf32>
    }
    ```
  }];
  let arguments = (ins Top_TensorOrNone:$max_trips, Top_TensorOrNone:$cond, Variadic<Top_Tensor>:$inits,
                   Variadic<Top_Tensor>:$captures);
  let results = (outs Variadic<Top_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $max_trips `,` $cond `,` `(` $inits `)` `,` `(` $captures `)` attr-dict `:` functional-type(operands, results)
    $body
  }];
}

def Top_YieldOp : Op<Top_Dialect, "yield", [Pure, Terminator, ParentOneOf<["IfOp", "LoopOp"]>]> {
  let summary = "Ends a region of top.if or top.loop with its values (category: control)";
  let description = [{
    The values a branch of `top.if` gives as the op's results, or what a step of `top.loop` gives the
    next one: the condition, then the carried values.

    ```mlir
    top.yield %go, %n : tensor<1xi1>, tensor<1x4xf32>
    ```
  }];
  let arguments = (ins Variadic<Top_Tensor>:$operands);
  let assemblyFormat = "($operands^ `:` type($operands))? attr-dict";
}

#endif // TPUC_TOP_CONTROL_OPS
