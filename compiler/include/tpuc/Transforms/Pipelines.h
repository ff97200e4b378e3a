//===- Pipelines.h - Named pass pipelines -----------------------*- C++ -*-===//
// Each named pipeline is built by one function, shared by tpuc, tpuc-opt and the studio.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TRANSFORMS_PIPELINES_H
#define TPUC_TRANSFORMS_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace tpuc {

/// Options of the Top cleanup pipeline that runs after import.
struct TopPipelineOptions : public mlir::PassPipelineOptions<TopPipelineOptions> {
  Option<std::string> weightFile{*this, "weight-file",
                                 llvm::cl::desc("Write the resulting weights to this .npz (none: keep in memory)"),
                                 llvm::cl::init("")};
};

/// Shape inference, canonicalization (BatchNorm and Relu fusion, constant folding of shape
/// computations), CSE, and the TOP_F32 contract check; optionally saves the weights.
void buildTopPipeline(mlir::OpPassManager &pm, const TopPipelineOptions &options);

/// Registers the named pipelines with the MLIR pass registry (for tpuc-opt --pass-pipeline).
void registerPipelines();

/// Registers the dialects every tpuc tool understands: top, tpu, func, quant.
void registerDialects(mlir::DialectRegistry &registry);

} // namespace tpuc

#endif // TPUC_TRANSFORMS_PIPELINES_H
