//===- Codegen.h - Command streams of a grouped, addressed graph ----------===//
//
// Turns a layer-group plan and a DDR plan (tpuc/Backend) into the two
// command streams of a model-file stage: per group and pipeline stage, GDMA
// loads of the slice's inputs (and weights), one TIU command per op of the
// computed slice with its LMEM operands and per-slice padding, GDMA stores
// of the stored boxes; global ops become one DDR-to-DDR TIU command each.
// Dependencies follow the pipeline: a stage's commands wait for every
// command of the other engine issued in earlier stages, and a resident
// weight loaded in stage 1 is waited for by its op (docs/MODEL_FORMAT.md).
// With a plan for several cores every core gets its own two streams: each
// runs its slices' pipeline (or its part of a global op), and all streams
// meet in a barrier (Sync commands) between groups unless both run on the
// same single core. MLIR-free: the MLIR side (ModelCodegen.h) adds weights'
// bytes and IO quantization.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_CODEGEN_CODEGEN_H
#define TPUC_CODEGEN_CODEGEN_H

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Backend/GlobalMemory.h"
#include "tpuc/Backend/Graph.h"
#include "tpuc/Backend/LayerGroup.h"
#include "tpuc/Codegen/ModelFile.h"

#include <map>
#include <string>
#include <vector>

namespace tpuc::codegen {

/// A generated stage. `stage.weights[i].blob` is a placeholder: the weight is
/// graph value `weightValues[i]`; the caller adds its bytes to a Model with
/// addBlob and sets the blob index.
struct StageCode {
  Stage stage;
  std::vector<int> weightValues;
  /// Per control-flow marker op: which of its copies it issued, as Copy commands in stream order. Copy k of
  /// IfElse, IfJoin and LoopInit is its source k; LoopBack's are its hold buffers in order, then (after the
  /// H holds) H + k for source k into slot k. A copy whose source already sits where it goes is not issued.
  std::map<int, std::vector<int>> markerCopies;
};

/// Generates the stage `name` of `g`. `opTypes` (per op, e.g. "tpu.conv2d")
/// may be empty: the backend op kind is used then. Throws ModelFileError
/// naming the value when the plans are inconsistent (a value without DDR or
/// LMEM storage where a command needs it).
StageCode generateStage(const backend::ChipProfile &chip, const backend::Graph &g,
                        const backend::LayerGroupPlan &plan, const backend::GmemPlan &gmem,
                        const std::string &name, const std::vector<std::string> &opTypes = {});

} // namespace tpuc::codegen

#endif // TPUC_CODEGEN_CODEGEN_H
