//===- ModelCodegen.h - Tpu module -> .tpum model file; the backend entry --===//
//
// `runBackend` is what `tpuc deploy` calls after lowering: tpu-layer-group,
// tpu-address-assign and the TPU_ADDRESSED contract check, the studio's JSON
// plan, and (with `modelPath`) codegen into a .tpum file. `generateModel`
// alone turns an addressed module into a Model (one net, one stage).
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_CODEGEN_MODELCODEGEN_H
#define TPUC_CODEGEN_MODELCODEGEN_H

#include "tpuc/Codegen/ModelFile.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tpuc {

/// Knobs of runBackend.
struct BackendOptions {
  std::string chip;         ///< Chip profile name; "" = the module's top.chip.
  int opt = 2;              ///< 0 one op per group, 1 greedy, 2 dynamic programming.
  int numCore = 1;          ///< Cores to spread the work over (at most the chip's).
  std::string planJsonPath; ///< Write the backend plan JSON here ("" = no).
  std::string modelPath;    ///< Write the .tpum model file here ("" = no codegen).
  std::string netName;      ///< Net name in the model file ("" = the function's name).
};

/// Runs the backend on a TPU_LOWERED module, leaving it TPU_ADDRESSED. The
/// error carries the diagnostics, one per line (e.g. a model larger than the
/// chip's DDR).
llvm::Error runBackend(mlir::ModuleOp module, const BackendOptions &options);

/// Codegen of a TPU_ADDRESSED module: command streams, IO descriptors with
/// quantization, weights' bytes (from the weight file) in the coefficient
/// blob, debug info. The stage is named after the function.
/// With `weightNames`, appends the name of the top.weight behind each entry of the stage's weights.
llvm::Expected<codegen::Model> generateModel(mlir::ModuleOp module, llvm::StringRef netName = "",
                                             std::vector<std::string> *weightNames = nullptr);

/// Codegen of a TPU_LOWERED module without the backend, by reusing `compiled`: the model generateModel
/// made of a module of the same structure whose names differ by `from` -> `to` (an LLM's decoder layers:
/// "model.layers.0." -> "model.layers.5."). The plan, addresses and command streams are `compiled`'s;
/// the weights are this module's, placed where `compiled` placed its weights of the corresponding names,
/// and the debug names are renamed. An error when a weight is missing or differs in size, so the caller
/// compiles the module through the backend instead.
/// `weightNames` are generateModel's names of `compiled`'s weights.
llvm::Expected<codegen::Model> reuseCompiledStage(mlir::ModuleOp lowered, const codegen::Model &compiled,
                                                  llvm::ArrayRef<std::string> weightNames,
                                                  llvm::StringRef netName, llvm::StringRef from,
                                                  llvm::StringRef to);

} // namespace tpuc

#endif // TPUC_CODEGEN_MODELCODEGEN_H
