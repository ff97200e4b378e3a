//===- tpuc-opt.cpp - The tpuc optimizer driver ---------------------------===//
// A thin MlirOptMain: the Top and Tpu dialects, every tpuc pass and pipeline, and MLIR's generic passes
// (canonicalize, cse, ...). Accepts the standard flags (--mlir-print-ir-after-all, --mlir-timing,
// --split-input-file, --verify-diagnostics).
//===----------------------------------------------------------------------===//
#include "tpuc/Transforms/Passes.h"
#include "tpuc/Transforms/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  tpuc::registerTpucPasses();
  tpuc::registerPipelines();
  mlir::DialectRegistry registry;
  tpuc::registerDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tpuc optimizer driver (Top and Tpu dialects)\n", registry));
}
