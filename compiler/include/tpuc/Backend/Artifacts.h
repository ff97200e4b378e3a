//===- Artifacts.h - The backend plan as JSON for the studio --------------===//
//
// One JSON document (schema "tpuc-backend-plan", version 1, documented in
// docs/BACKEND.md) with the layer groups, their slices, pipeline stages and
// LMEM rectangles, the DDR lifetimes and addresses, and per-op estimated
// cycles. The studio's layer-group and memory-timeline views read it.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_BACKEND_ARTIFACTS_H
#define TPUC_BACKEND_ARTIFACTS_H

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Backend/GlobalMemory.h"
#include "tpuc/Backend/Graph.h"
#include "tpuc/Backend/LayerGroup.h"

#include <string>

namespace tpuc::backend {

/// The plan as a JSON document (pretty-printed with `indent` >= 0, compact
/// with -1).
std::string backendPlanJson(const ChipProfile &chip, const Graph &g, const LayerGroupPlan &groups,
                            const GmemPlan &gmem, int indent = 1);

/// Writes backendPlanJson to `path`; throws std::runtime_error naming the
/// file when it cannot.
void writeBackendPlan(const std::string &path, const ChipProfile &chip, const Graph &g,
                      const LayerGroupPlan &groups, const GmemPlan &gmem);

} // namespace tpuc::backend

#endif // TPUC_BACKEND_ARTIFACTS_H
