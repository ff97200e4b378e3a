//===- TensorNames.h - The npz name of every value of a Top / Tpu function -*- C++ -*-===//
// Location names first, stable generated names otherwise. One rule for every tensor dump (reference
// interpreter, Tpu simulator, model-file runs), every table (calibration, quantize) and every view, so
// their names line up name for name.
//===----------------------------------------------------------------------===//
#ifndef TPUC_DIALECT_TOP_TENSORNAMES_H
#define TPUC_DIALECT_TOP_TENSORNAMES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <utility>
#include <vector>

namespace tpuc::top {

//===--- Tensor names in locations (docs/ARCHITECTURE.md, "Names") --------===//
//
// An op is named after the tensor it produces, as TPU-MLIR names it after the ONNX tensor:
//
//   loc("y"("/fc/Gemm"))                        one result: tensor `y`, produced by ONNX node `/fc/Gemm`
//   loc(fused["values"("/TopK"), "indices"("/TopK")])   one NameLoc per result of a multi-result op
//   loc("y_reshape"("/fc/Gemm_reshape"("/fc/Gemm")))    a helper op of a node that is no ONNX tensor
//   loc("c"(fused["/conv/Conv", fused<"aliases">["d"("/drop/Dropout")]]))   `d` is another name of `c`
//
// The tensor's NameLoc is the top-level NameLoc (the last one of a FusedLoc, as fusions put the
// consumer last). Its child is the op's provenance: the name the op had when ops were named after ONNX
// nodes (`/fc/Gemm`, or `/fc/Gemm_reshape` for a helper, whose own child is the node), so a reader can
// translate a table written then; and, in a FusedLoc with metadata "aliases", the names of tensors that
// ONNX ops forwarding this one (Identity, Dropout in inference) produced, each with the forwarding node.

/// Metadata of the FusedLoc that holds a tensor's aliases.
inline constexpr llvm::StringLiteral kAliasesMetadata = "aliases";
/// Function result attribute: the name the graph output has (ONNX's output name), when it is not the
/// name of the value returned.
inline constexpr llvm::StringLiteral kResultNameAttr = "top.name";

/// `loc("<tensor>"(<provenance>))`; an empty provenance is none.
mlir::Location tensorLoc(mlir::MLIRContext *context, llvm::StringRef tensor, mlir::Location provenance);
/// `loc("<tensor>"("<node>"))`, or `loc("<tensor>")` without a node.
mlir::Location tensorLoc(mlir::MLIRContext *context, llvm::StringRef tensor, llvm::StringRef node);
/// The location of an op whose results are named `tensors` (one NameLoc for one result, a FusedLoc of
/// one per result otherwise), each with `provenance`.
mlir::Location resultsLoc(mlir::MLIRContext *context, llvm::ArrayRef<std::string> tensors,
                          mlir::Location provenance);
/// `loc` with `alias` (produced by node `via`) among the aliases of its result `result` (of `numResults`).
/// Unchanged when the location names no tensor.
mlir::Location addAlias(mlir::Location loc, unsigned result, unsigned numResults, llvm::StringRef alias,
                        llvm::StringRef via);

/// The tensor name a location gives: a NameLoc's name; for a FusedLoc the name of its last NameLoc;
/// "" when there is none.
std::string locationName(mlir::Location loc);
/// The NameLoc that names result `result` of an op at `loc` with `numResults` results: one per result
/// when a FusedLoc holds exactly that many, else the last (result 0 only); null when there is none.
mlir::NameLoc resultNameLoc(mlir::Location loc, unsigned result, unsigned numResults);
/// The name of one op result, as nameValues gives it before making names unique: its NameLoc's name
/// (result i > 0 of an op without one NameLoc per result: "<name>_<i>"), a weight's array name, "" else.
std::string resultName(mlir::Value value);
/// The ONNX node that produced result `result` (the innermost name of its provenance), "" when none.
std::string sourceNode(mlir::Location loc, unsigned result = 0, unsigned numResults = 1);
/// The name result `result` had when ops were named after ONNX nodes (its provenance's name; result
/// i > 0 of a multi-result op "<node>_<i>"), "" when the location records none.
std::string legacyName(mlir::Location loc, unsigned result = 0, unsigned numResults = 1);
/// The aliases of result `result`, in the order they were added.
std::vector<std::string> aliasNames(mlir::Location loc, unsigned result = 0, unsigned numResults = 1);

/// Names `values` (the function's arguments, then op results in program order, the ops inside a region op's
/// regions right after it): resultName(), then
/// "<mnemonic>_<k>" for an op with no name, made unique with "_<n>"; an argument takes the name of the
/// top.input op that consumes it.
std::vector<std::string> nameValues(mlir::func::FuncOp func, llvm::ArrayRef<mlir::Value> values);

/// Every name an npz dump gives the values of a function.
struct TensorNaming {
  /// One name per value, as nameValues gives them.
  std::vector<std::string> names;
  /// Further names: (index into the values, name) for each alias in the locations and each function
  /// result whose graph-output name (kResultNameAttr) differs from its value's; never one of `names`.
  std::vector<std::pair<size_t, std::string>> aliases;
  /// The name of each function result: its kResultNameAttr, else its value's name.
  std::vector<std::string> results;
};
/// Names `values` (as nameValues; every returned value must be among them).
TensorNaming nameTensors(mlir::func::FuncOp func, llvm::ArrayRef<mlir::Value> values);
/// nameTensors over the function's arguments and the results of the ops of its body (not those inside
/// regions), in program order.
TensorNaming nameTensors(mlir::func::FuncOp func);

/// The tensor name each name of an older or other spelling stands for in `module`: the legacy (ONNX node)
/// name of every result whose name changed, every alias and every graph-output name, mapped to the value's
/// name. A table (calibration, quantize, layer metrics) read against the module translates its rows
/// through it; names that are tensor names stay as they are and are not in the map.
llvm::StringMap<std::string> nameTranslations(mlir::ModuleOp module);

} // namespace tpuc::top

#endif // TPUC_DIALECT_TOP_TENSORNAMES_H
