//===- TopInterfaces.td - Op interfaces of the Top dialect -*- tablegen -*-===//
// Shape inference, reference inference and FLOPs: one interface each, so generic passes and the
// interpreter never switch over op types.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TOP_INTERFACES
#define TPUC_TOP_INTERFACES

include "mlir/IR/OpBase.td"

def Top_ShapeInterface : OpInterface<"ShapeInterface"> {
  let cppNamespace = "::tpuc::top";
  let description = [{
    Computes the static output shapes of an op from its operand shapes and attributes. The generic
    `top-shape-infer` pass uses it to fill in result types after import; the verifier of every Top op uses it
    to check declared result shapes.
  }];
  let methods = [
    InterfaceMethod<[{Computes the shape of every result. Emits an error naming the problem and fails if
      the operands are inconsistent.}],
      "::mlir::LogicalResult", "computeOutputShapes",
      (ins "::llvm::SmallVectorImpl<::llvm::SmallVector<int64_t>> &":$shapes)>,
    InterfaceMethod<[{For an op with regions (top.if, top.loop): gives the entry blocks' arguments the
      types of the operands they stand for, so the ops inside can be inferred. Returns whether a type
      changed. Ops without regions have nothing to do.}],
      "bool", "inferRegionArguments", (ins), [{}], [{ return false; }]>,
  ];
  let extraClassDeclaration = [{
    /// Recomputes the result shapes and rewrites the result types (keeping element types).
    /// Returns true if any type changed.
    ::mlir::FailureOr<bool> inferShapes();
  }];
  let verify = [{ return ::tpuc::top::verifyShapeInterface($_op); }];
}

def Top_FlopsInterface : OpInterface<"FlopsInterface"> {
  let cppNamespace = "::tpuc::top";
  let description = [{
    Floating-point operations one execution of the op performs (a multiply-add counts two), as TPU-MLIR
    counts them for its model-zoo GOPs figures.
  }];
  let methods = [
    InterfaceMethod<"Returns the op's floating-point operation count.", "int64_t", "getFLOPs">,
  ];
}

def Top_InferenceInterface : OpInterface<"InferenceInterface"> {
  let cppNamespace = "::tpuc::top";
  let description = [{
    Reference float32 inference. The dialect only declares it: the kernels live in simulator/, which
    attaches this interface to each Top op as an external model (`tpuc::sim::registerTopReferenceKernels`).
    The compiler itself never runs a kernel.
  }];
  let methods = [
    InterfaceMethod<[{Computes the outputs from the inputs. `inputs[i]` and `outputs[j]` point at dense
      row-major float32 buffers of the operand and result shapes (nullptr for a `none` operand).}],
      "::mlir::LogicalResult", "inference",
      (ins "::llvm::ArrayRef<const float *>":$inputs, "::llvm::ArrayRef<float *>":$outputs)>,
  ];
}

#endif // TPUC_TOP_INTERFACES
