//===- RequantSpanTest.cpp - requantizeSpan against the scalar requantize ----===//
//
// The batched epilogue must equal clamp(requantize(acc + bias), lo, hi) element for element: on its
// 64-bit fast path (every rounding mode, every shift, ties and negative multipliers included) and on
// the 128-bit fallback (spans whose products exceed 2^62).
//
//===----------------------------------------------------------------------===//

#include "tpuc/Quant/Arith.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

using namespace tpuc::quant;

namespace {

/// Checks both output forms of requantizeSpan against the scalar definition; returns the mismatches.
int64_t countMismatches(const std::vector<int32_t> &acc, int64_t bias, MultiplierShift ms, int64_t zp,
                        IntType type, RoundingMode mode, int64_t lo, int64_t hi) {
  std::vector<float> outF(acc.size());
  std::vector<int8_t> outI(acc.size());
  requantizeSpan(acc, bias, ms, zp, type, mode, outF, lo, hi);
  requantizeSpan(acc, bias, ms, zp, type, mode, outI, lo, hi);
  int64_t bad = 0;
  for (size_t i = 0; i < acc.size(); ++i) {
    int64_t want = std::clamp(requantize(int64_t{acc[i]} + bias, ms, zp, type, mode), lo, hi);
    bool ok = outF[i] == static_cast<float>(want) && outI[i] == saturateToInt8(want);
    if (!ok && bad++ < 5)
      ADD_FAILURE() << "acc " << acc[i] << " bias " << bias << " m " << ms.multiplier << " s " << ms.rshift
                    << " zp " << zp << " mode " << roundingModeName(mode) << ": got " << outF[i] << "/"
                    << int(outI[i]) << ", want " << want;
  }
  return bad;
}

TEST(RequantSpan, ExhaustiveSmallAccumulatorsEveryModeAndShift) {
  // Every accumulator in [-2^12, 2^12] (ties at every shift <= 13 occur), every shift, every mode.
  std::vector<int32_t> acc;
  for (int32_t v = -4096; v <= 4096; ++v)
    acc.push_back(v);
  for (RoundingMode mode : kAllRoundingModes)
    for (int64_t shift = 0; shift <= 63; ++shift)
      for (int64_t m : {int64_t{1}, int64_t{3}, int64_t{-5}, int64_t{1} << 30, (int64_t{1} << 31) - 1,
                        -(int64_t{1} << 30) - 7})
        EXPECT_EQ(countMismatches(acc, 0, {m, shift}, 3, IntType::Int8, mode, INT64_MIN, INT64_MAX), 0);
}

TEST(RequantSpan, RandomParametersBiasClampAndTypes) {
  std::mt19937_64 rng(20261202);
  std::uniform_int_distribution<int32_t> any32(std::numeric_limits<int32_t>::min(),
                                               std::numeric_limits<int32_t>::max());
  const IntType types[] = {IntType::Int8, IntType::UInt8, IntType::Int16, IntType::Int32};
  for (int trial = 0; trial < 3000; ++trial) {
    // Accumulator magnitudes from 2^4 to 2^31 so both the fast path and the fallback are taken.
    int bits = 4 + static_cast<int>(rng() % 28);
    std::uniform_int_distribution<int32_t> dist(-(int32_t{1} << (bits - 1)), (int32_t{1} << (bits - 1)) - 1);
    std::vector<int32_t> acc(1 + rng() % 97);
    for (int32_t &a : acc)
      a = trial % 10 == 0 ? any32(rng) : dist(rng);
    int64_t bias = static_cast<int64_t>(rng() % 2001) - 1000;
    if (trial % 7 == 0)
      bias = static_cast<int64_t>(any32(rng)) * 4;
    int64_t m = static_cast<int64_t>(rng() % (uint64_t{1} << 31));
    if (rng() % 2)
      m = -m;
    MultiplierShift ms{m, static_cast<int64_t>(rng() % 64)};
    IntType type = types[rng() % 4];
    RoundingMode mode = kAllRoundingModes[rng() % 6];
    int64_t zp = static_cast<int64_t>(rng() % 256) - 128;
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    if (rng() % 2) { // a fused relu-like clamp, sometimes disjoint from the type's range
      lo = static_cast<int64_t>(rng() % 512) - 256;
      hi = lo + static_cast<int64_t>(rng() % 300);
    }
    EXPECT_EQ(countMismatches(acc, bias, ms, zp, type, mode, lo, hi), 0) << "trial " << trial;
  }
}

TEST(RequantSpan, FallbackAtTheOverflowBoundary) {
  // |acc * m| straddles 2^62: the span mixes elements either side and must still be exact.
  std::vector<int32_t> acc = {std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(), 0, 1,
                              -1, 1 << 30, -(1 << 30)};
  for (RoundingMode mode : kAllRoundingModes)
    for (int64_t shift : {0, 1, 31, 32, 62, 63})
      for (int64_t m : {(int64_t{1} << 31) - 1, -(int64_t{1} << 31) + 1, int64_t{1} << 31, int64_t{2}})
        EXPECT_EQ(countMismatches(acc, 0, {m, shift}, -7, IntType::Int32, mode, INT64_MIN, INT64_MAX), 0);
}

TEST(RequantSpan, EmptySpanWritesNothing) {
  std::vector<int32_t> acc;
  std::vector<float> out;
  requantizeSpan(acc, 0, {1, 0}, 0, IntType::Int8, RoundingMode::HalfUp, out);
  EXPECT_TRUE(out.empty());
}

} // namespace
