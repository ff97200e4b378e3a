//===- Explain.h - Why the layer-group planner cut where it did -----------===//
//
// One reason record per boundary after an LMEM group (the last group
// excepted) and one per global op: the next op has no LMEM form, the group
// with it does not fit LMEM even at its finest slicing (worst time unit,
// bytes short, what is live), its weights alone do not fit, slices cannot be
// cut fine enough for the halos, the cost model preferred the split (cycles
// both ways), or the group reached its longest length. The JSON plan carries
// them ("cuts", docs/BACKEND.md) and `tpuc deploy --explain_groups` prints
// them. A few planGroup calls per boundary; deterministic.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_BACKEND_EXPLAIN_H
#define TPUC_BACKEND_EXPLAIN_H

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Backend/Graph.h"
#include "tpuc/Backend/LayerGroup.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tpuc::backend {

/// Why a group ends where it does, or why an op runs global.
enum class CutReason {
  NoLocalForm, ///< The op has no LMEM form (matmul, reshape, ...).
  Lmem,        ///< Does not fit LMEM even at the finest slicing.
  Weights,     ///< The resident weights alone exceed LMEM.
  Halo,        ///< Only a finer H cut than the tensors allow (or smaller halos) would fit.
  Cost,        ///< The merged group fits, the cost model preferred the split.
  MaxOps,      ///< The group reached GroupOptions::maxGroupOps (1 under --opt 0).
};
/// "no_local_form", "lmem", "weights", "halo", "cost", "max_ops".
const char *cutReasonName(CutReason r);

/// One reason record.
struct GroupCut {
  int group = -1;      ///< Group the record is about.
  bool global = false; ///< true: why `group` is a global op; false: why it ends before group + 1.
  int op = -1;         ///< The first op of group + 1, or the global op.
  CutReason reason = CutReason::Cost;
  std::string message; ///< One line naming ops, bytes and the time step.
  /// Lmem, Weights, Halo: the diagnosis of the extended group (the ops of
  /// `group` and `op`) or of the lone op.
  GroupDiagnosis memory;
  /// Cost: cycles of groups `group` and `group + 1` as planned, and merged:
  /// the two as one group when that fits, else `group` with `op` plus the
  /// rest of `group + 1` planned alone.
  int64_t cyclesSplit = 0, cyclesMerged = 0;
  int maxOps = 0; ///< MaxOps: the limit.
};

/// The reasons of every cut of `plan`, which planLayerGroups made with
/// `options`, in group order.
std::vector<GroupCut> explainCuts(const ChipProfile &chip, const Graph &g, const LayerGroupPlan &plan,
                                  const GroupOptions &options);

} // namespace tpuc::backend

#endif // TPUC_BACKEND_EXPLAIN_H
