//===- OnnxImporter.h - ONNX models to Top IR -------------------*- C++ -*-===//
// The ONNX front end of `tpuc transform` and the studio: reads an .onnx file with the onnx library, fixes
// its input shapes, maps every node to Top ops and runs the Top cleanup pipeline.
//===----------------------------------------------------------------------===//
#ifndef TPUC_IMPORT_ONNXIMPORTER_H
#define TPUC_IMPORT_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/LLVM.h"
#include "tpuc/Preprocess/Flags.h"
#include "tpuc/Support/Tensor.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tpuc {

/// Options of an ONNX import, named after TPU-MLIR's model_transform flags. Empty fields mean "not given".
struct TransformOptions {
  /// --model_name: the module's name; also names the default weight file.
  std::string modelName;
  /// --model_def: path of the .onnx file (external data files are looked up next to it).
  std::string modelDef;
  /// --input_shapes: one shape per graph input that is not an initializer, in graph order. Replaces the
  /// model's (possibly dynamic) shapes; the rank must match the model's. Empty: the model's shapes, which
  /// must then be static.
  std::vector<std::vector<int64_t>> inputShapes;
  /// --shape_influencing_input_names with their values: graph inputs fixed at import time. They become
  /// constants (so the shape computations they feed fold, e.g. a Reshape's shape or Resize's sizes)
  /// instead of function arguments, and take no entry in `inputShapes` / `inputTypes`.
  std::map<std::string, Tensor> constantInputs;
  /// --loop_max_trips: the most steps an ONNX Loop whose trip count or exit condition is only known at run
  /// time may take (it is imported as that many masked steps, and a run needing more fails). 0: not given;
  /// such a loop then takes its bound from its trip count when that is a constant, else from the extent
  /// its scan outputs declare.
  int64_t loopMaxTrips = 0;
  /// --input_types: element type per input (float32, float16, int32, int64, int8, uint8, bool). Float
  /// types become f32 in Top. Empty: the model's types.
  std::vector<std::string> inputTypes;
  /// --output_names: tensors (graph outputs or internal tensors) that become the function's results, in
  /// this order. Empty: the graph outputs. Only the nodes these depend on are imported.
  std::vector<std::string> outputNames;
  /// Preprocessing recorded on every 4-D float top.input (image inputs), as preprocess::inputConfig
  /// resolves the flags for it: `(x - mean) * scale` per channel (one value, or one per channel),
  /// pixel_format (rgb, bgr, gray, rgba), channel_format (nchw, nhwc; "none" or empty: not recorded),
  /// resize_dims [h, w], keep_aspect_ratio with pad_value and pad_type (center, normal). A flag not given
  /// is not recorded (the reader takes the same default). Other inputs carry no preprocessing.
  preprocess::PreprocessFlags preprocess;
  /// --mlir: where to write the Top IR (with locations); empty: not written.
  std::string mlirOut;
  /// Weight file to write. Empty: `<modelName>_top_f32_all_weight.npz` (TPU-MLIR's name) in the directory
  /// of `mlirOut` (or the current directory). The module's `top.weight_file` names it.
  std::string weightOut;
  /// Called with the Top pipeline's pass manager before it runs, e.g. to attach a PassRecorder
  /// (`tpuc transform --snapshots`). Empty: nothing.
  std::function<void(mlir::PassManager &)> instrumentPipeline;
};

/// Imports the ONNX model `options.modelDef` into a new module in state TOP_F32:
///  - the model is parsed (corrupt or truncated files are rejected), checked with onnx::checker and
///    shape-inferred with onnx::shape_inference after the input shapes are fixed; opsets 7 to 17;
///  - initializers and Constant nodes become `top.weight`s named after their tensor (small integer
///    constants inline, everything else in the weight file); external data is read from the files next
///    to the model;
///  - shape computations (Shape, Gather, Concat, Unsqueeze, ... on known values) are folded at import;
///  - every op carries the location `loc("<node name>")` (the first output's name for unnamed nodes);
///    ops a node expands into besides its result are `loc("<node>_<what>"("<node>"))`; top.input ops and
///    weights are located at their tensor's name;
///  - the Top pipeline (tpuc::buildTopPipeline) then infers shapes, canonicalizes, checks the TOP_F32
///    contract and writes the weights to `weightOut` (or its default).
/// On failure the error is one line, e.g.
///   "model.onnx: node 'conv1' (Conv): 3-D convolution is not supported".
/// Writes `options.mlirOut` when it is set.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> importOnnx(mlir::MLIRContext &context,
                                                             const TransformOptions &options);

/// Like importOnnx, but the model's bytes are given (a buffer from the studio, or the fuzzer's input);
/// `options.modelDef` only names the model in messages and locates external data files.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importOnnxBuffer(mlir::MLIRContext &context, llvm::StringRef bytes, const TransformOptions &options);

/// The weight file importOnnx writes for `options` (its default when `weightOut` is empty).
std::string defaultWeightPath(const TransformOptions &options);

/// Writes `module` as MLIR text with locations (the names the interpreter and the studio rely on) to
/// `path`; the error is one line naming the file.
llvm::Error writeMlirFile(mlir::ModuleOp module, const std::string &path);

/// Registers the dialects an imported module uses (top, func) with `context`.
void registerImportDialects(mlir::MLIRContext &context);

} // namespace tpuc

#endif // TPUC_IMPORT_ONNXIMPORTER_H
