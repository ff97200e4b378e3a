//===- LocalMemory.h - LMEM layout and (time x address) allocation --------===//
//
// The local memory model: a tensor in LMEM spreads its channels over the NPU
// lanes (channel c in lane c % lanes, every lane at the same offset); each
// channel's H x W plane is padded to the execution-unit width. Buffers are
// rectangles on the (time step x address) plane of one layer group, placed
// by a deterministic first-fit that keeps addresses aligned, inside the lane
// and, where it can, avoids an op reading and writing the same bank. A
// validator checks any set of rectangles independently of the allocator.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_BACKEND_LOCALMEMORY_H
#define TPUC_BACKEND_LOCALMEMORY_H

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Backend/Graph.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tpuc::backend {

/// Rounds `x` up to a multiple of `a` (a > 0).
inline int64_t alignUp(int64_t x, int64_t a) { return (x + a - 1) / a * a; }
/// Ceiling division of non-negative numbers.
inline int64_t ceilDiv(int64_t x, int64_t y) { return (x + y - 1) / y; }

/// Channels lane 0 holds when `c` channels start at lane 0: ceil(c / lanes).
int64_t channelsPerLane(const ChipProfile &chip, int64_t c);

/// Bytes per lane of an n x c x h x w activation in the compact layout: n *
/// ceil(c / lanes) planes of h*w elements, each padded to the EU width.
int64_t activationBytesPerLane(const ChipProfile &chip, int64_t n, int64_t c, int64_t h, int64_t w,
                               DType dtype);

/// Bytes per lane of a weight with `oc` output channels spread over lanes
/// and `perChannel` elements each, padded to the EU width.
int64_t weightBytesPerLane(const ChipProfile &chip, int64_t oc, int64_t perChannel, DType dtype);

/// What a rectangle holds.
enum class BufferKind { Input, Weight, Intermediate, Output };
const char *bufferKindName(BufferKind k);

/// One buffer on the (time x address) plane: bytes [addr, addr + size) of
/// every lane during time units [tStart, tEnd).
struct LmemRect {
  int value = -1; ///< Graph value held.
  int slice = -1; ///< Slice index; -1 for whole-group buffers (weights).
  BufferKind kind = BufferKind::Intermediate;
  int64_t tStart = 0, tEnd = 0;
  int64_t size = 0; ///< Bytes per lane (already EU-aligned).
  int64_t addr = -1;
  int core = 0; ///< Core whose LMEM holds it (each core has its own; times are that core's units).
};

/// Result of placing rectangles.
struct LmemAllocation {
  bool ok = false;
  int64_t peakBytes = 0;  ///< Highest end address used.
  int64_t lowerBound = 0; ///< Most bytes live at one time unit.
  int bankConflicts = 0;  ///< Reader/writer pairs left sharing a bank.
};

/// Most bytes live at any one time unit (of one core: rects of other cores are
/// in other memories): no placement can use less.
int64_t lmemLowerBound(const std::vector<LmemRect> &rects);

/// Places every rectangle (sets addr). `avoidBanks` lists pairs of rect
/// indices (an op's result and one of its operands) that should not share a
/// bank; that is honoured when possible, else counted in bankConflicts.
/// Deterministic: rects go in order of start time, then decreasing size,
/// then index, each at the lowest aligned address that fits.
LmemAllocation allocateLmem(const ChipProfile &chip, std::vector<LmemRect> &rects,
                            const std::vector<std::pair<int, int>> &avoidBanks);

/// Independent check of a placement: every rect placed, aligned, inside the
/// lane, with a non-empty time range, and no two rects of one core overlapping
/// in both time and address. Returns one line per problem (empty when valid).
std::vector<std::string> validateLmem(const ChipProfile &chip, const std::vector<LmemRect> &rects);

} // namespace tpuc::backend

#endif // TPUC_BACKEND_LOCALMEMORY_H
