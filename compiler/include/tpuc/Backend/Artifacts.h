//===- Artifacts.h - The backend plan as JSON for the studio --------------===//
//
// One JSON document (schema "tpuc-backend-plan", version 2, documented in
// docs/BACKEND.md) with the graph's values, the layer groups, their slices,
// pipeline stages and LMEM rectangles, the planner's reason for every cut,
// the DDR lifetimes and addresses, and per-op estimated cycles. The studio's
// layer-group and memory-timeline views read it.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_BACKEND_ARTIFACTS_H
#define TPUC_BACKEND_ARTIFACTS_H

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Backend/Explain.h"
#include "tpuc/Backend/GlobalMemory.h"
#include "tpuc/Backend/Graph.h"
#include "tpuc/Backend/LayerGroup.h"

#include <string>
#include <utility>
#include <vector>

namespace tpuc::backend {

/// The plan as a JSON document (pretty-printed with `indent` >= 0, compact
/// with -1); `cuts` are explainCuts of `groups`.
std::string backendPlanJson(const ChipProfile &chip, const Graph &g, const LayerGroupPlan &groups,
                            const GmemPlan &gmem, const std::vector<GroupCut> &cuts, int indent = 1);

/// Writes backendPlanJson to `path`; throws std::runtime_error naming the
/// file when it cannot.
void writeBackendPlan(const std::string &path, const ChipProfile &chip, const Graph &g,
                      const LayerGroupPlan &groups, const GmemPlan &gmem, const std::vector<GroupCut> &cuts);

/// The "cuts" of the plan file at `path`: (group, message) of each, in
/// order (none in a version 1 plan). Throws std::runtime_error naming the
/// file when it cannot be read or is no plan.
std::vector<std::pair<int, std::string>> readPlanCuts(const std::string &path);

} // namespace tpuc::backend

#endif // TPUC_BACKEND_ARTIFACTS_H
