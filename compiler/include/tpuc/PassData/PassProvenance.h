//===- PassProvenance.h - Which ops of one stage became which of another -*- C++ -*-===//
// Derived from MLIR locations only: an op lowered or rewritten keeps its source's name in its location
// (NameLoc, or a FusedLoc of every op fused into it), so two stages relate through shared names.
// Plain data, no MLIR, no Qt.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TRANSFORMS_PASSPROVENANCE_H
#define TPUC_TRANSFORMS_PASSPROVENANCE_H

#include "tpuc/PassData/PassDiff.h"

#include <cstddef>
#include <vector>

namespace tpuc {

/// The relation between the ops of stage `from` and stage `to` (indices into each). Op a of `from` and op
/// b of `to` are related when their locations share a name: one-to-many (a Top op lowered into several
/// Tpu ops), many-to-one (conv + batchnorm + relu fused into one conv) and many-to-many all follow.
/// `from` is the earlier stage. An op of `to` whose names match nothing in `from` but whose first name
/// is a `from` op's name plus up to three `_suffix` parts (TPU-MLIR names casts, requantizations and
/// converted weights `<producer>_<suffix>`: "relu_f32", "conv_w_bn_f16") relates to that op. Ops without
/// names (returns, unknown locations) relate to nothing.
struct Provenance {
  std::vector<std::vector<std::size_t>> forward;  ///< per op of `from`, the related ops of `to`, ascending
  std::vector<std::vector<std::size_t>> backward; ///< per op of `to`, the related ops of `from`, ascending
};

/// Builds the relation in O(total names + relations).
Provenance mapProvenance(const OpRecords &from, const OpRecords &to);

} // namespace tpuc

#endif // TPUC_TRANSFORMS_PASSPROVENANCE_H
