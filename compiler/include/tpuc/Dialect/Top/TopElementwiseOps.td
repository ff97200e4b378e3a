//===- TopElementwiseOps.td - Element-wise arithmetic and activations -*- tablegen -*-===//
// Categories: elementwise (binary and with a constant) and activation (unary).
//===----------------------------------------------------------------------===//
#ifndef TPUC_TOP_ELEMENTWISE_OPS
#define TPUC_TOP_ELEMENTWISE_OPS

//===--- Binary, with NumPy broadcasting -------------------------------------===//

class Top_BinaryDoc<string fn> {
  string doc = [{
    Element-wise }] # fn # [{ of two tensors that broadcast as in NumPy (category: elementwise).
    `do_relu` fuses a following Relu.

    ```mlir
    %y = top.OPNAME %a, %b : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
}

def Top_AddOp : Top_BinaryOp<"add", "Element-wise sum", [Commutative]> {
  let description = !subst("OPNAME", "add", Top_BinaryDoc<"sum">.doc);
  // layernorm(x) + b folds b into the layernorm (TopFusions.cpp).
  let hasCanonicalizer = 1;
}
def Top_SubOp : Top_BinaryOp<"sub", "Element-wise difference"> {
  let description = !subst("OPNAME", "sub", Top_BinaryDoc<"difference lhs - rhs">.doc);
}
def Top_MulOp : Top_BinaryOp<"mul", "Element-wise product", [Commutative]> {
  let description = !subst("OPNAME", "mul", Top_BinaryDoc<"product">.doc);
  // x * sigmoid(x) becomes top.silu, x * hard_sigmoid(x) (alpha 1/6, beta 1/2) top.hard_swish, spelled-out
  // norms and GELU their ops (TopFusions.cpp).
  let hasCanonicalizer = 1;
}
def Top_DivOp : Top_BinaryOp<"div", "Element-wise quotient"> {
  let description = !subst("OPNAME", "div", Top_BinaryDoc<"quotient lhs / rhs">.doc);
  // (x - mean) / sqrt(var + eps) becomes top.layernorm, x / sqrt(mean(x^2) + eps) top.rmsnorm.
  let hasCanonicalizer = 1;
}
def Top_PowerOp : Top_BinaryOp<"power", "Element-wise power"> {
  let description = !subst("OPNAME", "power", Top_BinaryDoc<"power lhs ^ rhs (ONNX Pow of two tensors)">.doc);
}
def Top_MaxOp : Top_BinaryOp<"max", "Element-wise maximum", [Commutative]> {
  let description = !subst("OPNAME", "max", Top_BinaryDoc<"maximum">.doc);
}
def Top_MinOp : Top_BinaryOp<"min", "Element-wise minimum", [Commutative]> {
  let description = !subst("OPNAME", "min", Top_BinaryDoc<"minimum">.doc);
}

//===--- With a scalar constant ------------------------------------------------===//

class Top_ConstDoc<string expr, string name> {
  string doc = [{
    Computes `}] # expr # [{` for every element x and the scalar `const_val` (category: elementwise);
    with `is_reverse` the operands swap sides.

    ```mlir
    %y = top.}] # name # [{ %x {const_val = 2.0 : f64} : tensor<1x4xf32> -> tensor<1x4xf32>
    ```
  }];
}

def Top_AddConstOp : Top_ConstBinaryOp<"add_const", "Adds a scalar"> {
  let description = Top_ConstDoc<"x + const_val", "add_const">.doc;
  let hasFolder = 1;
}
def Top_SubConstOp : Top_ConstBinaryOp<"sub_const", "Subtracts a scalar"> {
  let description = Top_ConstDoc<"x - const_val", "sub_const">.doc;
}
def Top_MulConstOp : Top_ConstBinaryOp<"mul_const", "Multiplies by a scalar"> {
  let description = Top_ConstDoc<"x * const_val", "mul_const">.doc;
  let hasFolder = 1;
  // x * relu6(x + 3) * (1/6) becomes top.hard_swish.
  let hasCanonicalizer = 1;
}
def Top_DivConstOp : Top_ConstBinaryOp<"div_const", "Divides by a scalar"> {
  let description = Top_ConstDoc<"x / const_val", "div_const">.doc;
  // x * relu6(x + 3) / 6 becomes top.hard_swish.
  let hasCanonicalizer = 1;
}
def Top_MaxConstOp : Top_ConstBinaryOp<"max_const", "Maximum with a scalar"> {
  let description = Top_ConstDoc<"max(x, const_val)", "max_const">.doc;
}
def Top_MinConstOp : Top_ConstBinaryOp<"min_const", "Minimum with a scalar"> {
  let description = Top_ConstDoc<"min(x, const_val)", "min_const">.doc;
}

//===--- Unary activations and math -------------------------------------------===//

class Top_UnaryDoc<string name, string formula> {
  string doc = [{
    Computes `}] # formula # [{` element-wise (category: activation).

    ```mlir
    %y = top.}] # name # [{ %x : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
    ```
  }];
}

def Top_ReluOp : Top_Op<"relu"> {
  let summary = "Rectified linear unit";
  let description = [{
    `max(x, 0)`, clamped to `relu_limit` when that is positive (Relu6 has limit 6) (category: activation).
    Canonicalization fuses it into a producing Conv, MatMul, Add, Sub, Mul or pool with no other user.

    ```mlir
    %y = top.relu %x {relu_limit = 6.0 : f64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DefaultValuedAttr<F64Attr, "-1.0">:$relu_limit);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasCanonicalizer = 1;
}

def Top_LeakyReluOp : Top_Op<"leaky_relu"> {
  let summary = "Leaky rectified linear unit";
  let description = [{
    `x >= 0 ? x : alpha * x` (category: activation).

    ```mlir
    %y = top.leaky_relu %x {alpha = 0.1 : f64} : tensor<1x4xf32> -> tensor<1x4xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, F64Attr:$alpha);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Top_ClipOp : Top_Op<"clip"> {
  let summary = "Clamps to [min, max]";
  let description = [{
    `min(max(x, min), max)` (category: activation).

    ```mlir
    %y = top.clip %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x4xf32> -> tensor<1x4xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, F64Attr:$min, F64Attr:$max);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Top_HardSigmoidOp : Top_Op<"hard_sigmoid"> {
  let summary = "Piecewise-linear sigmoid";
  let description = [{
    `max(0, min(1, alpha * x + beta))` (category: activation; ONNX defaults alpha 0.2, beta 0.5).

    ```mlir
    %y = top.hard_sigmoid %x {alpha = 0.2 : f64, beta = 0.5 : f64} : tensor<1x4xf32> -> tensor<1x4xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DefaultValuedAttr<F64Attr, "0.2">:$alpha,
                   DefaultValuedAttr<F64Attr, "0.5">:$beta);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Top_GELUOp : Top_Op<"gelu"> {
  let summary = "Gaussian error linear unit";
  let description = [{
    `0.5 x (1 + erf(x / sqrt(2)))`, or with `gelu_approx = tanh` the tanh approximation
    `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))` (category: activation).

    ```mlir
    %y = top.gelu %x : tensor<1x16x64xf32> -> tensor<1x16x64xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input,
                   DefaultValuedAttr<Top_GeluApproxAttr, "GeluApprox::none">:$gelu_approx);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Top_PowOp : Top_Op<"pow"> {
  let summary = "Raises to a constant power";
  let description = [{
    `x ^ exponent` for a scalar exponent (category: activation).

    ```mlir
    %y = top.pow %x {exponent = 2.0 : f64} : tensor<1x4xf32> -> tensor<1x4xf32>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, F64Attr:$exponent);
  let results = (outs Top_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Top_SigmoidOp : Top_UnaryOp<"sigmoid", "Logistic sigmoid"> {
  let description = Top_UnaryDoc<"sigmoid", "1 / (1 + exp(-x))">.doc;
}
def Top_TanhOp : Top_UnaryOp<"tanh", "Hyperbolic tangent"> {
  let description = Top_UnaryDoc<"tanh", "tanh(x)">.doc;
}
def Top_SiLUOp : Top_UnaryOp<"silu", "Sigmoid linear unit (swish)"> {
  let description = Top_UnaryDoc<"silu", "x * sigmoid(x)">.doc;
}
def Top_MishOp : Top_UnaryOp<"mish", "Self-regularized non-monotonic activation"> {
  let description = Top_UnaryDoc<"mish", "x * tanh(softplus(x)) = x * tanh(log(1 + exp(x)))">.doc;
}
def Top_HardSwishOp : Top_UnaryOp<"hard_swish", "Piecewise-linear swish"> {
  let description = Top_UnaryDoc<"hard_swish", "x * max(0, min(1, x / 6 + 0.5))">.doc;
}
def Top_ExpOp : Top_UnaryOp<"exp", "Natural exponential"> {
  let description = Top_UnaryDoc<"exp", "exp(x)">.doc;
}
def Top_LogOp : Top_UnaryOp<"log", "Natural logarithm"> {
  let description = Top_UnaryDoc<"log", "log(x)">.doc;
}
def Top_SqrtOp : Top_UnaryOp<"sqrt", "Square root"> {
  let description = Top_UnaryDoc<"sqrt", "sqrt(x)">.doc;
}
def Top_RsqrtOp : Top_UnaryOp<"rsqrt", "Reciprocal square root"> {
  let description = Top_UnaryDoc<"rsqrt", "1 / sqrt(x)">.doc;
}
def Top_AbsOp : Top_UnaryOp<"abs", "Absolute value"> {
  let description = Top_UnaryDoc<"abs", "|x|">.doc;
}
def Top_ErfOp : Top_UnaryOp<"erf", "Gauss error function"> {
  let description = Top_UnaryDoc<"erf", "erf(x)">.doc;
}
def Top_ReciprocalOp : Top_UnaryOp<"reciprocal", "Reciprocal"> {
  let description = Top_UnaryDoc<"reciprocal", "1 / x">.doc;
}

//===--- Rounding and trigonometry -------------------------------------------===//

def Top_FloorOp : Top_UnaryOp<"floor", "Rounds down"> {
  let description = Top_UnaryDoc<"floor", "floor(x)">.doc;
}
def Top_CeilOp : Top_UnaryOp<"ceil", "Rounds up"> {
  let description = Top_UnaryDoc<"ceil", "ceil(x)">.doc;
}
def Top_RoundOp : Top_UnaryOp<"round", "Rounds to the nearest integer, ties to even"> {
  let description = Top_UnaryDoc<"round", "round-half-to-even(x)">.doc;
}
def Top_SignOp : Top_UnaryOp<"sign", "Sign"> {
  let description = Top_UnaryDoc<"sign", "x > 0 ? 1 : (x < 0 ? -1 : 0)">.doc;
}
def Top_SinOp : Top_UnaryOp<"sin", "Sine"> {
  let description = Top_UnaryDoc<"sin", "sin(x)">.doc;
}
def Top_CosOp : Top_UnaryOp<"cos", "Cosine"> {
  let description = Top_UnaryDoc<"cos", "cos(x)">.doc;
}
def Top_TanOp : Top_UnaryOp<"tan", "Tangent"> {
  let description = Top_UnaryDoc<"tan", "tan(x)">.doc;
}
def Top_AsinOp : Top_UnaryOp<"asin", "Arcsine"> {
  let description = Top_UnaryDoc<"asin", "asin(x)">.doc;
}
def Top_AcosOp : Top_UnaryOp<"acos", "Arccosine"> {
  let description = Top_UnaryDoc<"acos", "acos(x)">.doc;
}
def Top_AtanOp : Top_UnaryOp<"atan", "Arctangent"> {
  let description = Top_UnaryDoc<"atan", "atan(x)">.doc;
}
def Top_SinhOp : Top_UnaryOp<"sinh", "Hyperbolic sine"> {
  let description = Top_UnaryDoc<"sinh", "sinh(x)">.doc;
}
def Top_CoshOp : Top_UnaryOp<"cosh", "Hyperbolic cosine"> {
  let description = Top_UnaryDoc<"cosh", "cosh(x)">.doc;
}
def Top_AsinhOp : Top_UnaryOp<"asinh", "Inverse hyperbolic sine"> {
  let description = Top_UnaryDoc<"asinh", "asinh(x)">.doc;
}
def Top_AcoshOp : Top_UnaryOp<"acosh", "Inverse hyperbolic cosine"> {
  let description = Top_UnaryDoc<"acosh", "acosh(x)">.doc;
}
def Top_AtanhOp : Top_UnaryOp<"atanh", "Inverse hyperbolic tangent"> {
  let description = Top_UnaryDoc<"atanh", "atanh(x)">.doc;
}

#endif // TPUC_TOP_ELEMENTWISE_OPS
