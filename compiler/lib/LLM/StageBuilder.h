//===- StageBuilder.h - Building one LLM stage's Top module (internal) ----===//
//
// A thin layer over OpBuilder for the stage builders: named inputs, weights
// that go into the stage's (possibly shared) .npz, ops created generically
// with their result shapes from the Top shape rules, and the first error.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_LIB_LLM_STAGEBUILDER_H
#define TPUC_LIB_LLM_STAGEBUILDER_H

#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/LLM/QuantizedLinear.h"
#include "tpuc/Support/Npz.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tpuc::llm {

/// Builds the `main` function of one stage module.
class StageBuilder {
public:
  /// `weights` (may be null for weight-free stages) collects the arrays of
  /// `weightPath`, which the module's top.weight_file names.
  StageBuilder(mlir::MLIRContext &context, llvm::StringRef stageName, NpzFile *weights,
               llvm::StringRef weightPath);

  /// A function argument behind a top.input named `name`.
  mlir::Value input(llvm::StringRef name, llvm::ArrayRef<int64_t> shape, mlir::Type elementType);
  /// A float32 weight stored in the weight file as `name` (added once; a
  /// later stage sharing the file refers to the same array).
  mlir::Value weight(llvm::StringRef name, llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<float> data);
  /// A weight of any dtype stored in the weight file; `elementType` is its IR element type.
  /// An array the file already holds is referred to, not stored again;
  /// `sharedShape` then gives its shape (else the tensor's).
  mlir::Value weight(llvm::StringRef name, Tensor tensor, mlir::Type elementType,
                     llvm::ArrayRef<int64_t> sharedShape = {});
  /// A small float32 constant stored inline in the IR.
  mlir::Value constant(llvm::StringRef name, llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<float> data);
  mlir::Value none();

  /// Creates `opName` with the given operands and attributes; results get
  /// `resultElements` element types and the shapes the op's shape rule gives.
  llvm::SmallVector<mlir::Value> create(llvm::StringRef opName, llvm::StringRef name,
                                        mlir::ValueRange operands,
                                        llvm::ArrayRef<mlir::NamedAttribute> attrs = {},
                                        llvm::ArrayRef<mlir::Type> resultElements = {});
  /// Single-result create with a float32 result.
  mlir::Value op(llvm::StringRef opName, llvm::StringRef name, mlir::ValueRange operands,
                 llvm::ArrayRef<mlir::NamedAttribute> attrs = {});
  /// top.reshape to `shape`.
  mlir::Value reshape(mlir::Value value, llvm::ArrayRef<int64_t> shape, llvm::StringRef name);
  /// y = x W^T (+ bias): top.matmul for float weights, top.a16matmul (behind
  /// a gather of the input channels for act-order checkpoints) for quantized ones.
  mlir::Value linear(mlir::Value x, const LinearWeights &w, const std::vector<float> *bias,
                     llvm::StringRef name);

  mlir::NamedAttribute attr(llvm::StringRef name, mlir::Attribute value) {
    return builder.getNamedAttr(name, value);
  }
  mlir::OpBuilder &b() { return builder; }
  mlir::Type f32() { return builder.getF32Type(); }
  mlir::Type i32() { return builder.getIntegerType(32); }

  /// Returns the module with `outputs` as the function's results, after
  /// verifying it; an error if any step failed.
  llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> finish(mlir::ValueRange outputs);

private:
  mlir::Location loc(llvm::StringRef name);
  void fail(const std::string &message);

  mlir::MLIRContext &context;
  mlir::OpBuilder builder;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp func;
  NpzFile *weights;
  std::string stage;
  std::string firstError;
  llvm::SmallVector<mlir::Type> argTypes;
  mlir::Value noneValue;
};

} // namespace tpuc::llm

#endif // TPUC_LIB_LLM_STAGEBUILDER_H
