//===- DeployInternal.h - The parts of deploy split over files (internal) ==//
//
// Deploy.cpp lowers, builds the model file and compares one test sample; DeploySamples.cpp compares a
// folder or data list of them and finds the first divergent layers. They share the deploy's state through
// DeployContext.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_ENGINE_LIB_DEPLOYINTERNAL_H
#define TPUC_DRIVER_ENGINE_LIB_DEPLOYINTERNAL_H

#include "tpuc/Driver/Accuracy.h"
#include "tpuc/Driver/DeployStages.h"
#include "tpuc/Driver/Driver.h"

#include "tpuc/Conversion/TopToTpu.h"
#include "tpuc/Simulator/Runner.h"
#include "tpuc/Transforms/FusePreprocess.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tpuc::cli {

/// deploy()'s code for "the sink cancelled"; never an exit code.
inline constexpr int kCancelled = -1;

/// What a deploy has made by the time it compares.
struct DeployContext {
  const driver::DeployOptions &options;
  const driver::Sink &progress;
  driver::DeployReport &report;
  /// Set to the stage the sink cancelled before (with kCancelled), or a whole phrase ("after 3/50 samples").
  std::string &cancelled;
  mlir::ModuleOp top;      ///< the reference (unfused)
  mlir::ModuleOp fusedTop; ///< with --fuse_preprocess: the module whose inputs take raw pixels; else null
  mlir::ModuleOp lowered;  ///< what was lowered (fusedTop or top)
  mlir::ModuleOp tpu;      ///< the lowered module
  const std::vector<FusedInput> &fused;
  const LoweringOptions &lowering;

  /// Records a one-line failure and returns `code`.
  int fail(int code, const std::string &line) const;
};

/// Writes each (path, text) in order, stopping at the first that cannot be written; the error names it.
llvm::Error writeText(std::initializer_list<std::pair<std::string, std::string>> files);

/// The model file of --model on the command-level simulator against `tpu` (which has run `inputs` with every
/// tensor dumped), its outputs, trace and inputs written beside it (added to `artifacts`). nullopt when it
/// passed; else the code to return.
std::optional<int> checkModelStage(DeployContext &context, const NpzFile &inputs, sim::Runner &tpu,
                                   std::vector<std::string> &artifacts);

/// Whether --test_input names many samples: a folder, a data list (.txt), or with --test_subset.
bool manyTestSamples(const driver::DeployOptions &options);

/// deploy --compare_all over the samples of a folder or data list: the statistics, the worst sample's layers,
/// the model-file check on the first sample and, with --find_divergent, the first divergent layers.
int compareSamples(DeployContext &context);

/// --find_divergent: the first divergent layers of `layers` (over `numSamples` samples), re-run on
/// `gainSamples`; writes <stem>_first_divergent.json (added to `artifacts` and the record's) and prints the
/// report. nullopt when done; else the code to return.
std::optional<int> writeFirstDivergent(DeployContext &context, const std::vector<driver::LayerStats> &layers,
                                       int64_t numSamples,
                                       const std::vector<driver::CalibrationSample> &gainSamples,
                                       const driver::SampleLoader &loader,
                                       std::vector<std::string> &artifacts);

} // namespace tpuc::cli

#endif // TPUC_DRIVER_ENGINE_LIB_DEPLOYINTERNAL_H
