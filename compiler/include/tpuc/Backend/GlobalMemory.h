//===- GlobalMemory.h - DDR addresses: coefficients and activations -------===//
//
// Global memory planning after layer grouping. Weights go to a coefficient
// region, each once, aligned. Activations that live in DDR (graph IO, group
// inputs and outputs, operands of global ops; group-internal tensors never
// leave LMEM) get addresses by lifetime, measured in group steps, so tensors
// that are never live together share bytes. Several placement orders are
// tried and the smallest peak kept; the peak is reported next to the lower
// bound (most bytes live at one step). Reshapes, and concats whose operands
// can be written straight into the result, share their operands' buffers.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_BACKEND_GLOBALMEMORY_H
#define TPUC_BACKEND_GLOBALMEMORY_H

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Backend/Graph.h"
#include "tpuc/Backend/LayerGroup.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tpuc::backend {

/// A buffer that must hold `size` bytes from step `start` to step `end`
/// (inclusive: written at start, last read at end).
struct Interval {
  int64_t size = 0;
  int64_t start = 0, end = 0;
  int64_t address = -1; ///< Set by assignIntervals.
};

/// Placement orders of assignIntervals.
enum class GmemStrategy {
  BySize,     ///< Largest first, lowest fitting address.
  ByFirstUse, ///< Earliest start first.
  ByDuration, ///< Longest lifetime first.
  ByArea,     ///< Largest size x lifetime first.
  BestFit,    ///< Largest first, into the tightest gap that fits.
};
const char *gmemStrategyName(GmemStrategy s);
/// Every strategy, in the order tried.
std::vector<GmemStrategy> allGmemStrategies();

/// Places the intervals (addresses multiples of `align`, no two with
/// intersecting lifetimes overlapping in address) and returns the peak.
int64_t assignIntervals(std::vector<Interval> &intervals, int64_t align, GmemStrategy strategy);

/// Most bytes (each size aligned up to `align`) live at one step.
int64_t intervalLowerBound(const std::vector<Interval> &intervals, int64_t align);

/// One activation's place in DDR.
struct GmemBuffer {
  int value = -1;
  int root = -1;      ///< Value owning the storage (itself when not shared).
  int64_t offset = 0; ///< Byte offset inside the root's storage.
  int64_t size = 0;
  int64_t start = 0, end = 0; ///< Group steps, inclusive.
  int64_t address = -1;       ///< Absolute DDR address.
  bool io = false;            ///< Graph input or output.
};

/// A weight in the coefficient region.
struct GmemWeight {
  int value = -1;
  int64_t address = 0, size = 0;
};

/// The DDR plan.
struct GmemPlan {
  std::vector<GmemWeight> weights;
  int64_t coeffBytes = 0;                             ///< Coefficient region [0, coeffBytes).
  int64_t activationBase = 0;                         ///< Activation region start.
  std::vector<GmemBuffer> buffers;                    ///< Per DDR-resident activation.
  int64_t activationPeak = 0;                         ///< Bytes of the activation region.
  int64_t lowerBound = 0;                             ///< Most activation bytes live at once.
  std::string strategy;                               ///< The strategy kept.
  std::vector<std::pair<std::string, int64_t>> tried; ///< Peak per strategy.
  int sharedBuffers = 0;                              ///< Values stored inside another's buffer.
  int64_t totalBytes() const { return activationBase + activationPeak; }
};

/// Plans DDR for `g` grouped by `plan`. Throws std::runtime_error naming the
/// chip when the result exceeds the DDR size.
GmemPlan planGlobalMemory(const ChipProfile &chip, const Graph &g, const LayerGroupPlan &plan);

/// Independent check: buffers of values live at the same step either share
/// storage legitimately (same root) or do not overlap; weights disjoint and
/// inside the coefficient region; addresses aligned. One line per problem.
std::vector<std::string> validateGmem(const ChipProfile &chip, const Graph &g, const GmemPlan &plan);

} // namespace tpuc::backend

#endif // TPUC_BACKEND_GLOBALMEMORY_H
