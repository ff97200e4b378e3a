//===- LocalMemory.cpp - LMEM layout, allocator and validator -------------===//

#include "tpuc/Backend/LocalMemory.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace tpuc::backend {

int64_t channelsPerLane(const ChipProfile &chip, int64_t c) { return ceilDiv(c, chip.lanes); }

int64_t activationBytesPerLane(const ChipProfile &chip, int64_t n, int64_t c, int64_t h, int64_t w,
                               DType dtype) {
  int64_t plane = alignUp(h * w * dtypeBytes(dtype), chip.euBytes);
  return alignUp(n * channelsPerLane(chip, c) * plane, chip.lmemAlignment);
}

int64_t weightBytesPerLane(const ChipProfile &chip, int64_t oc, int64_t perChannel, DType dtype) {
  return alignUp(channelsPerLane(chip, oc) * perChannel * dtypeBytes(dtype),
                 std::max(chip.euBytes, chip.lmemAlignment));
}

const char *bufferKindName(BufferKind k) {
  switch (k) {
  case BufferKind::Input:
    return "input";
  case BufferKind::Weight:
    return "weight";
  case BufferKind::Intermediate:
    return "intermediate";
  case BufferKind::Output:
    return "output";
  }
  return "?";
}

int64_t lmemLowerBound(const std::vector<LmemRect> &rects) {
  // Sweep over start (+size) and end (-size) events; ends sort first so
  // half-open ranges that touch do not count as overlapping.
  std::vector<std::tuple<int, int64_t, int64_t>> events;
  events.reserve(rects.size() * 2);
  for (const LmemRect &r : rects) {
    events.emplace_back(r.core, r.tStart, r.size);
    events.emplace_back(r.core, r.tEnd, -r.size);
  }
  std::sort(events.begin(), events.end());
  int64_t live = 0, best = 0;
  int core = events.empty() ? 0 : std::get<0>(events.front());
  for (auto &[c, t, delta] : events) {
    if (c != core) {
      core = c;
      live = 0;
    }
    live += delta;
    best = std::max(best, live);
  }
  return best;
}

namespace {

bool timeOverlap(const LmemRect &a, const LmemRect &b) { return a.tStart < b.tEnd && b.tStart < a.tEnd; }

bool addrOverlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1) { return a0 < b1 && b0 < a1; }

} // namespace

LmemAllocation allocateLmem(const ChipProfile &chip, std::vector<LmemRect> &rects,
                            const std::vector<std::pair<int, int>> &avoidBanks) {
  LmemAllocation result;
  result.lowerBound = lmemLowerBound(rects);
  const int64_t capacity = chip.lmemBytesPerLane;
  const int64_t align = chip.lmemAlignment;
  const int64_t bank = chip.bankBytes();
  if (result.lowerBound > capacity)
    return result;

  std::vector<std::vector<int>> partners(rects.size());
  for (auto [a, b] : avoidBanks) {
    partners[a].push_back(b);
    partners[b].push_back(a);
  }
  std::vector<int> order(rects.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (rects[a].tStart != rects[b].tStart)
      return rects[a].tStart < rects[b].tStart;
    if (rects[a].size != rects[b].size)
      return rects[a].size > rects[b].size;
    return a < b;
  });
  for (LmemRect &r : rects)
    r.addr = -1;

  // Placed rects still alive at the current start time.
  std::vector<int> active;
  for (int idx : order) {
    LmemRect &r = rects[idx];
    std::erase_if(active, [&](int o) { return rects[o].tEnd <= r.tStart; });
    // Address ranges of the placed rects alive at the same time, sorted;
    // the free gaps between them are where r can go.
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (int o : active)
      if (timeOverlap(r, rects[o]))
        busy.emplace_back(rects[o].addr, rects[o].addr + rects[o].size);
    std::sort(busy.begin(), busy.end());
    std::vector<std::pair<int64_t, int64_t>> gaps; // [begin, end)
    int64_t at = 0;
    for (auto [b0, b1] : busy) {
      if (b0 > at)
        gaps.emplace_back(at, b0);
      at = std::max(at, alignUp(b1, align));
    }
    if (at < capacity)
      gaps.emplace_back(at, capacity);

    auto bankClean = [&](int64_t a) {
      for (int p : partners[idx]) {
        const LmemRect &q = rects[p];
        if (q.addr < 0)
          continue;
        int64_t b0 = a / bank, b1 = (a + r.size - 1) / bank;
        int64_t c0 = q.addr / bank, c1 = (q.addr + q.size - 1) / bank;
        if (b0 <= c1 && c0 <= b1)
          return false;
      }
      return true;
    };
    // Lowest address that fits; within a gap, bank starts are the other
    // candidates (they let a result move to a bank of its own).
    int64_t chosen = -1, fallback = -1;
    for (auto [g0, g1] : gaps) {
      if (g0 + r.size > g1)
        continue;
      if (fallback < 0)
        fallback = g0;
      if (bankClean(g0)) {
        chosen = g0;
        break;
      }
      bool found = false;
      for (int64_t a = alignUp(g0 + 1, bank); a + r.size <= g1; a += bank)
        if (bankClean(a)) {
          chosen = a;
          found = true;
          break;
        }
      if (found)
        break;
    }
    if (chosen < 0 && fallback < 0)
      return result; // Does not fit.
    if (chosen < 0) {
      chosen = fallback;
      for (int p : partners[idx])
        if (rects[p].addr >= 0)
          ++result.bankConflicts;
    }
    r.addr = chosen;
    result.peakBytes = std::max(result.peakBytes, chosen + r.size);
    active.push_back(idx);
  }
  result.ok = true;
  return result;
}

std::vector<std::string> validateLmem(const ChipProfile &chip, const std::vector<LmemRect> &rects) {
  std::vector<std::string> errors;
  auto name = [&](size_t i) {
    return "rect " + std::to_string(i) + " (value " + std::to_string(rects[i].value) + ", slice " +
           std::to_string(rects[i].slice) + (rects[i].core ? ", core " + std::to_string(rects[i].core) : "") + ")";
  };
  for (size_t i = 0; i < rects.size(); ++i) {
    const LmemRect &r = rects[i];
    if (r.addr < 0)
      errors.push_back(name(i) + ": not placed");
    else if (r.addr % chip.lmemAlignment)
      errors.push_back(name(i) + ": address " + std::to_string(r.addr) + " not aligned to " +
                       std::to_string(chip.lmemAlignment));
    if (r.size <= 0)
      errors.push_back(name(i) + ": empty size");
    if (r.addr >= 0 && r.addr + r.size > chip.lmemBytesPerLane)
      errors.push_back(name(i) + ": ends at " + std::to_string(r.addr + r.size) + " beyond the lane's " +
                       std::to_string(chip.lmemBytesPerLane) + " bytes");
    if (r.tEnd <= r.tStart)
      errors.push_back(name(i) + ": empty time range");
  }
  // Sweep in start order; compare against rects still alive.
  std::vector<size_t> order(rects.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return rects[a].tStart != rects[b].tStart ? rects[a].tStart < rects[b].tStart : a < b;
  });
  std::vector<size_t> alive;
  for (size_t i : order) {
    std::erase_if(alive, [&](size_t o) { return rects[o].tEnd <= rects[i].tStart; });
    for (size_t o : alive)
      if (rects[i].core == rects[o].core && rects[i].addr >= 0 && rects[o].addr >= 0 &&
          timeOverlap(rects[i], rects[o]) &&
          addrOverlap(rects[i].addr, rects[i].addr + rects[i].size, rects[o].addr,
                      rects[o].addr + rects[o].size))
        errors.push_back(name(o) + " and " + name(i) + " overlap");
    alive.push_back(i);
  }
  return errors;
}

} // namespace tpuc::backend
