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

namespace {

/// tpu.add's scalar definition (TpuOps.td), then the relu clamp.
int64_t addScalar(int64_t a, int64_t zpA, int64_t ma, int64_t b, int64_t zpB, int64_t mb, bool subtract, int rshift,
                  int64_t zpOut, IntType type, RoundingMode mode, int64_t lo, int64_t hi) {
  int64_t va = (a - zpA) * ma, vb = (b - zpB) * mb;
  int64_t v = saturate(roundingRightShift(subtract ? va - vb : va + vb, rshift, mode) + zpOut, type);
  return std::min(std::max(v, lo), hi);
}

} // namespace

// addRescaledSpan (the residual adds of the Tpu simulator) against the scalar formula: every pair of int8
// codes, every mode, shifts with ties, subtraction, a relu clamp; uint8 and int16 codes with random
// parameters; multipliers so large that the 64-bit path is not taken.
TEST(AddRescaledSpan, ExhaustiveInt8PairsEveryModeAndRandomParameters) {
  std::vector<float> a, b;
  for (int x = -128; x <= 127; ++x)
    for (int y = -128; y <= 127; ++y)
      a.push_back(static_cast<float>(x)), b.push_back(static_cast<float>(y));
  std::vector<float> out(a.size());
  auto check = [&](int64_t zpA, int64_t ma, int64_t zpB, int64_t mb, bool sub, int shift, int64_t zpOut, IntType type,
                   RoundingMode mode, int64_t lo, int64_t hi) {
    addRescaledSpan(a, zpA, ma, b, zpB, mb, sub, shift, zpOut, type, mode, out, lo, hi);
    int64_t bad = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      int64_t want = addScalar(int64_t(a[i]), zpA, ma, int64_t(b[i]), zpB, mb, sub, shift, zpOut, type, mode, lo, hi);
      if (out[i] != static_cast<float>(want) && bad++ < 5)
        ADD_FAILURE() << a[i] << " " << b[i] << " ma " << ma << " mb " << mb << " shift " << shift << " mode "
                      << roundingModeName(mode) << ": got " << out[i] << ", want " << want;
    }
    return bad;
  };
  for (RoundingMode mode : kAllRoundingModes)
    for (int shift : {0, 1, 2, 7, 14, 30})
      for (bool sub : {false, true}) {
        EXPECT_EQ(check(0, 3 << 10, 0, -(5 << 9), sub, shift, 0, IntType::Int8, mode, INT64_MIN, INT64_MAX), 0);
        EXPECT_EQ(check(-3, 16385, 7, 9001, sub, shift, -4, IntType::Int8, mode, -4, 100), 0); // relu clamp
      }
  std::mt19937_64 rng(20261203);
  const IntType types[] = {IntType::Int8, IntType::UInt8, IntType::Int16};
  for (int trial = 0; trial < 200; ++trial) {
    IntType type = types[rng() % 3];
    int64_t zpA = int64_t(rng() % 256) - 128, zpB = int64_t(rng() % 256) - 128, zpOut = int64_t(rng() % 64) - 32;
    int64_t ma = int64_t(rng() % (int64_t{1} << 31)) - (int64_t{1} << 30), mb = int64_t(rng() % (int64_t{1} << 20));
    EXPECT_EQ(check(zpA, ma, zpB, mb, rng() & 1, int(rng() % 40), zpOut, type, kAllRoundingModes[rng() % 6],
                    INT64_MIN, INT64_MAX), 0);
  }
  // Beyond 64 bits on the fast path's bound: the scalar fallback.
  EXPECT_EQ(check(0, int64_t{1} << 55, 0, int64_t{1} << 54, false, 50, 0, IntType::Int8, RoundingMode::HalfUp,
                  INT64_MIN, INT64_MAX), 0);
}

// quantizeSpan (the Tpu simulator's float -> code casts) against the scalar quantize(): ties at every
// scale, NaN, infinities, values far beyond every type, every mode and type.
TEST(QuantizeSpan, MatchesScalarQuantize) {
  std::vector<float> x;
  for (int k = -700; k <= 700; ++k)
    x.push_back(0.5f * static_cast<float>(k)); // ties: (k / 2) * scale / scale
  std::mt19937_64 rng(7);
  std::normal_distribution<float> normal(0.0f, 200.0f);
  for (int i = 0; i < 20000; ++i)
    x.push_back(normal(rng));
  for (float special : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                        -std::numeric_limits<float>::infinity(), 3e38f, -3e38f, 1e13f, -1e13f, 0.0f, -0.0f})
    x.push_back(special);
  std::vector<float> out(x.size());
  const IntType types[] = {IntType::Int8, IntType::UInt8, IntType::Int16, IntType::Int32};
  for (RoundingMode mode : kAllRoundingModes)
    for (IntType type : types)
      for (QuantParams params : {QuantParams{1.0, 0}, QuantParams{0.5, 3}, QuantParams{0.0371, -7},
                                 QuantParams{3.25, 128}}) {
        std::vector<float> scaled(x.size());
        for (size_t i = 0; i < x.size(); ++i)
          scaled[i] = i < 1401 ? static_cast<float>(x[i] * params.scale) : x[i];
        quantizeSpan(scaled, params, type, mode, out);
        int bad = 0;
        for (size_t i = 0; i < x.size(); ++i) {
          float want = static_cast<float>(quantize(scaled[i], params, type, mode));
          if (out[i] != want && bad++ < 5)
            ADD_FAILURE() << scaled[i] << " scale " << params.scale << " zp " << params.zeroPoint << " mode "
                          << roundingModeName(mode) << ": got " << out[i] << ", want " << want;
        }
      }
}
