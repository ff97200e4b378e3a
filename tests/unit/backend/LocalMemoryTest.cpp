//===- LocalMemoryTest.cpp - LMEM layout sizes, allocator and validator ---===//

#include "tpuc/Backend/LocalMemory.h"

#include <gtest/gtest.h>

#include <random>

using namespace tpuc::backend;

namespace {

ChipProfile chip(const char *name) { return findChipProfile(name, {TPUC_CHIP_TEST_DIR}); }

TEST(LocalMemory, ActivationLayoutSpreadsChannelsAndAlignsPlanes) {
  ChipProfile a = chip("bm1684x"); // 64 lanes, 64-byte EU
  // 64 channels: one plane per lane; 56*56 int8 = 3136 = 49 * 64.
  EXPECT_EQ(activationBytesPerLane(a, 1, 64, 56, 56, DType::INT8), 3136);
  // 65 channels: lane 0 holds two planes.
  EXPECT_EQ(activationBytesPerLane(a, 1, 65, 56, 56, DType::INT8), 2 * 3136);
  // 7x7 int8 = 49 bytes, padded to 64; 512 channels = 8 per lane.
  EXPECT_EQ(activationBytesPerLane(a, 1, 512, 7, 7, DType::INT8), 8 * 64);
  // F32 7x7 = 196 bytes -> 256; batch 2 doubles.
  EXPECT_EQ(activationBytesPerLane(a, 2, 3, 7, 7, DType::F32), 2 * 256);
  ChipProfile b = chip("bm1688"); // 32 lanes, 16-byte EU
  EXPECT_EQ(activationBytesPerLane(b, 1, 512, 7, 7, DType::INT8), 16 * 64);
  EXPECT_EQ(activationBytesPerLane(b, 1, 32, 7, 7, DType::F32), 208);
  EXPECT_EQ(channelsPerLane(b, 33), 2);
  // Weights: 512 x (512*3*3) int8 over 64 lanes = 8 * 4608 bytes.
  EXPECT_EQ(weightBytesPerLane(a, 512, 512 * 9, DType::INT8), 8 * 4608);
  EXPECT_EQ(weightBytesPerLane(a, 1000, 1, DType::INT32), 64);
}

TEST(LocalMemory, LowerBoundCountsTouchingRangesOnce) {
  std::vector<LmemRect> rects(3);
  rects[0] = {0, 0, BufferKind::Input, 0, 2, 100, -1};
  rects[1] = {1, 0, BufferKind::Input, 2, 4, 100, -1}; // touches, no overlap
  rects[2] = {2, 0, BufferKind::Input, 1, 3, 50, -1};
  EXPECT_EQ(lmemLowerBound(rects), 150);
}

TEST(LocalMemory, AllocatorReusesFreedSpaceAndAligns) {
  ChipProfile a = chip("bm1684x");
  std::vector<LmemRect> rects = {
      {0, 0, BufferKind::Input, 0, 2, 100, -1},
      {1, 0, BufferKind::Intermediate, 1, 3, 64, -1},
      {2, 0, BufferKind::Output, 2, 4, 128, -1},
  };
  LmemAllocation al = allocateLmem(a, rects, {});
  ASSERT_TRUE(al.ok);
  EXPECT_EQ(rects[0].addr, 0);
  EXPECT_EQ(rects[1].addr, 128); // after rect 0, aligned up from 100
  EXPECT_EQ(rects[2].addr, 0);   // rect 0 is dead at t=2
  EXPECT_TRUE(validateLmem(a, rects).empty());
}

TEST(LocalMemory, AllocatorKeepsReaderAndWriterInDifferentBanks) {
  ChipProfile a = chip("bm1684x");
  std::vector<LmemRect> rects = {
      {0, 0, BufferKind::Input, 0, 2, 1024, -1},
      {1, 0, BufferKind::Output, 1, 3, 1024, -1},
  };
  LmemAllocation al = allocateLmem(a, rects, {{1, 0}});
  ASSERT_TRUE(al.ok);
  EXPECT_EQ(al.bankConflicts, 0);
  EXPECT_EQ(rects[1].addr, a.bankBytes()); // next bank, not 1024
  // Without the pair, first fit packs it right after.
  LmemAllocation packed = allocateLmem(a, rects, {});
  EXPECT_EQ(rects[1].addr, 1024);
  EXPECT_EQ(packed.peakBytes, 2048);
}

TEST(LocalMemory, AllocatorFailsWhenNothingFits) {
  ChipProfile b = chip("bm1688");
  std::vector<LmemRect> rects = {
      {0, 0, BufferKind::Input, 0, 2, b.lmemBytesPerLane / 2 + 16, -1},
      {1, 0, BufferKind::Input, 1, 3, b.lmemBytesPerLane / 2 + 16, -1},
  };
  EXPECT_FALSE(allocateLmem(b, rects, {}).ok);
}

TEST(LocalMemory, ValidatorReportsEveryKindOfProblem) {
  ChipProfile a = chip("bm1684x");
  std::vector<LmemRect> rects = {
      {0, 0, BufferKind::Input, 0, 2, 128, 0},
      {1, 0, BufferKind::Input, 1, 3, 128, 64},                      // overlaps rect 0
      {2, 0, BufferKind::Input, 0, 1, 128, 1000},                    // misaligned
      {3, 0, BufferKind::Input, 0, 1, 128, a.lmemBytesPerLane - 64}, // out
      {4, 0, BufferKind::Input, 2, 2, 128, 4096},                    // empty time
      {5, 0, BufferKind::Input, 0, 1, 128, -1},                      // not placed
  };
  auto errors = validateLmem(a, rects);
  auto has = [&](const std::string &s) {
    for (auto &e : errors)
      if (e.find(s) != std::string::npos)
        return true;
    return false;
  };
  EXPECT_TRUE(has("rect 0 (value 0, slice 0) and rect 1 (value 1, slice 0) overlap"));
  EXPECT_TRUE(has("rect 2 (value 2, slice 0): address 1000 not aligned to 64"));
  EXPECT_TRUE(has("rect 3 (value 3, slice 0): ends at"));
  EXPECT_TRUE(has("rect 4 (value 4, slice 0): empty time range"));
  EXPECT_TRUE(has("rect 5 (value 5, slice 0): not placed"));
  EXPECT_EQ(errors.size(), 5u);
}

// Property: on random rect sets the allocator either fails or produces a
// placement the validator accepts, at or above the lower bound; it is
// deterministic; when the lower bound is under half the lane it succeeds.
TEST(LocalMemory, RandomRectsPlacedWithoutOverlap) {
  for (const char *name : {"bm1684x", "bm1688"}) {
    ChipProfile c = chip(name);
    for (unsigned seed = 1; seed <= 200; ++seed) {
      std::mt19937 rng(seed);
      std::uniform_int_distribution<int> count(1, 60), t(0, 40), len(1, 12);
      std::uniform_int_distribution<int64_t> size(1, c.lmemBytesPerLane / 8);
      std::vector<LmemRect> rects(count(rng));
      for (size_t i = 0; i < rects.size(); ++i) {
        rects[i].value = static_cast<int>(i);
        rects[i].tStart = t(rng);
        rects[i].tEnd = rects[i].tStart + len(rng);
        rects[i].size = alignUp(size(rng), c.lmemAlignment);
      }
      std::vector<std::pair<int, int>> pairs;
      for (size_t i = 1; i < rects.size(); i += 3)
        pairs.emplace_back(static_cast<int>(i), static_cast<int>(i - 1));
      auto copy = rects;
      LmemAllocation al = allocateLmem(c, rects, pairs);
      LmemAllocation again = allocateLmem(c, copy, pairs);
      ASSERT_EQ(al.ok, again.ok);
      if (!al.ok) {
        EXPECT_GT(al.lowerBound * 2, c.lmemBytesPerLane) << name << seed;
        continue;
      }
      for (size_t i = 0; i < rects.size(); ++i)
        ASSERT_EQ(rects[i].addr, copy[i].addr);
      auto errors = validateLmem(c, rects);
      EXPECT_TRUE(errors.empty()) << name << " seed " << seed << ": " << errors.front();
      EXPECT_GE(al.peakBytes, al.lowerBound);
    }
  }
}

} // namespace
