//===- Pipelines.cpp - Named pass pipelines -------------------------------===//
//===----------------------------------------------------------------------===//
#include "tpuc/Transforms/Pipelines.h"

#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Tpu/TpuOps.h"
#include "tpuc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace tpuc {

void buildTopPipeline(OpPassManager &pm, const TopPipelineOptions &options) {
  // Shapes first: importers leave placeholder result types, and the folds below read shapes.
  pm.addPass(createTopShapeInfer());
  // Canonicalization folds BatchNorm into Conv, fuses Relu into its producer and folds constant shape
  // computations; CSE then merges the duplicated constants and views the folds leave behind.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // The contract of the calibration and lowering stages that follow.
  pm.addPass(createTopVerifyState(TopVerifyStateOptions{"TOP_F32"}));
  if (!options.weightFile.empty())
    pm.addPass(createTopSaveWeights(TopSaveWeightsOptions{options.weightFile}));
}

void registerPipelines() {
  PassPipelineRegistration<TopPipelineOptions>(
      "top-pipeline", "Clean up imported Top IR: shape inference, canonicalization, CSE, contract check",
      buildTopPipeline);
}

void registerDialects(DialectRegistry &registry) {
  registry.insert<top::TopDialect, tpu::TpuDialect, func::FuncDialect, quant::QuantDialect>();
}

} // namespace tpuc
