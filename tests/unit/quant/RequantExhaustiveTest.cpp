//===- RequantExhaustiveTest.cpp - Requantization vs exact arithmetic -----===//
//
// For every int8 value and a sweep of scales, the multiplier/shift result is
// compared (1) with the exact rational x * multiplier / 2^rshift, rounded by an
// independent reference below, and (2) with the ideal round(x * scale): the two
// may differ only where x * scale lies within the documented bound
// |x * scale| * 2^-31 of a rounding boundary, and then by exactly 1.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Quant/Arith.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace tpuc::quant;

namespace {

/// An independent rounding of a long double (64-bit significand: products of
/// an int32 and a 31-bit multiplier, scaled by 2^-s, are exact in it).
int64_t referenceRound(long double v, RoundingMode mode) {
  long double f = std::floor(v);
  long double frac = v - f;
  long double c = std::ceil(v);
  switch (mode) {
  case RoundingMode::Down:
    return static_cast<int64_t>(f);
  case RoundingMode::Up:
    return static_cast<int64_t>(c);
  case RoundingMode::TowardZero:
    return static_cast<int64_t>(v < 0 ? c : f);
  case RoundingMode::HalfUp:
    return static_cast<int64_t>(frac < 0.5L ? f : f + 1);
  case RoundingMode::HalfAwayFromZero:
    return static_cast<int64_t>(std::round(v)); // roundl: ties away.
  case RoundingMode::HalfToEven:
    if (frac != 0.5L)
      return static_cast<int64_t>(frac < 0.5L ? f : f + 1);
    return static_cast<int64_t>(std::fmod(f, 2.0L) == 0 ? f : f + 1);
  }
  return 0;
}

bool isDirected(RoundingMode mode) {
  return mode == RoundingMode::Down || mode == RoundingMode::Up ||
         mode == RoundingMode::TowardZero;
}

/// Distance from `v` to the nearest rounding boundary of `mode` (integers for
/// directed modes, half-integers for nearest modes).
long double distanceToBoundary(long double v, RoundingMode mode) {
  long double shifted = isDirected(mode) ? v : v - 0.5L;
  return std::fabs(shifted - std::round(shifted));
}

/// Scales: a logarithmic sweep from 2^-24 to 2^7, the usual requant factors,
/// and random ones.
std::vector<double> scaleSweep() {
  std::vector<double> scales;
  for (int i = 0; i <= 620; ++i)
    scales.push_back(std::ldexp(1.0, -24) * std::pow(2.0, i * 31.0 / 620.0));
  for (double s : {1.0, 0.5, 0.25, 1.0 / 3.0, 0.1, 0.8, 127.0 / 128.0,
                   1.0 / 127.0, 0.4, 0.0078125, 1.5, 3.0})
    scales.push_back(s);
  std::mt19937_64 rng(1234);
  std::uniform_real_distribution<double> exponent(-20.0, 6.0);
  for (int i = 0; i < 300; ++i)
    scales.push_back(std::pow(2.0, exponent(rng)));
  size_t n = scales.size();
  for (size_t i = 0; i < n; i += 7)
    scales.push_back(-scales[i]); // Negative factors too.
  return scales;
}

TEST(RequantExhaustiveTest, MultiplierPrecisionGuarantee) {
  for (double scale : scaleSweep()) {
    std::optional<MultiplierShift> ms = chooseMultiplierShift(scale);
    ASSERT_TRUE(ms.has_value()) << scale;
    EXPECT_GE(std::llabs(ms->multiplier), int64_t(1) << 30) << scale;
    EXPECT_LT(std::llabs(ms->multiplier), int64_t(1) << 31) << scale;
    EXPECT_GE(ms->rshift, 0);
    EXPECT_LE(ms->rshift, 63);
    EXPECT_LE(std::fabs(ms->value() - scale),
              std::fabs(scale) * std::ldexp(1.0, -31))
        << scale;
    // The precision holds for narrower multipliers too (2^-bits).
    for (int bits : {8, 16, 24}) {
      std::optional<MultiplierShift> narrow =
          chooseMultiplierShift(scale, bits);
      ASSERT_TRUE(narrow.has_value());
      EXPECT_LT(std::llabs(narrow->multiplier), int64_t(1) << bits);
      EXPECT_LE(std::fabs(narrow->value() - scale),
                std::fabs(scale) * std::ldexp(1.0, -bits))
          << scale << " bits " << bits;
    }
  }
}

TEST(RequantExhaustiveTest, EveryInt8ValueEveryScaleEveryMode) {
  int64_t checked = 0, offByOne = 0;
  for (double scale : scaleSweep()) {
    MultiplierShift ms = *chooseMultiplierShift(scale);
    for (RoundingMode mode : kAllRoundingModes)
      for (int x = -128; x <= 127; ++x) {
        int64_t got = applyMultiplierShift(x, ms, mode);
        // (1) Exact: x * m / 2^s rounded independently.
        long double exact = std::ldexp(static_cast<long double>(x) *
                                           static_cast<long double>(ms.multiplier),
                                       -static_cast<int>(ms.rshift));
        ASSERT_EQ(got, referenceRound(exact, mode))
            << "x=" << x << " scale=" << scale << " "
            << roundingModeName(mode);
        // (2) Against the ideal real product, within the documented bound.
        long double ideal = static_cast<long double>(x) * scale;
        int64_t idealRounded = referenceRound(ideal, mode);
        ++checked;
        if (got != idealRounded) {
          ++offByOne;
          ASSERT_EQ(std::llabs(got - idealRounded), 1)
              << "x=" << x << " scale=" << scale;
          long double bound = std::fabs(ideal) * std::ldexp(1.0L, -31);
          ASSERT_LE(distanceToBoundary(ideal, mode), bound)
              << "x=" << x << " scale=" << scale << " "
              << roundingModeName(mode);
        }
      }
  }
  // Disagreements with the ideal are confined to near-boundary products.
  EXPECT_LT(offByOne, checked / 100) << offByOne << " of " << checked;
}

TEST(RequantExhaustiveTest, Int8ToInt8RequantWithZeroPoints) {
  for (double scale : scaleSweep()) {
    if (scale <= 0 || scale > 8)
      continue;
    MultiplierShift ms = *chooseMultiplierShift(scale);
    for (int zpIn : {-128, -3, 0, 17})
      for (int zpOut : {-128, 0, 5, 127})
        for (RoundingMode mode :
             {RoundingMode::HalfUp, RoundingMode::HalfToEven,
              RoundingMode::HalfAwayFromZero}) {
          int64_t previous = -1000;
          for (int x = -128; x <= 127; ++x) {
            int64_t got = requantizeInt(x, zpIn, ms, zpOut, IntType::Int8, mode);
            long double exact = std::ldexp(
                static_cast<long double>(x - zpIn) *
                    static_cast<long double>(ms.multiplier),
                -static_cast<int>(ms.rshift));
            int64_t expected =
                std::clamp<int64_t>(referenceRound(exact, mode) + zpOut, -128,
                                    127);
            ASSERT_EQ(got, expected) << "x=" << x << " zpIn=" << zpIn
                                     << " zpOut=" << zpOut << " s=" << scale;
            // A positive factor keeps the order of values.
            ASSERT_GE(got, previous);
            previous = got;
          }
        }
  }
}

TEST(RequantExhaustiveTest, Int32AccumulatorsAgainstExactArithmetic) {
  std::mt19937_64 rng(99);
  std::uniform_int_distribution<int64_t> acc(-(int64_t(1) << 31),
                                             (int64_t(1) << 31) - 1);
  std::vector<double> scales = scaleSweep();
  for (int i = 0; i < 200000; ++i) {
    int64_t a = acc(rng);
    double scale = scales[static_cast<size_t>(i) % scales.size()];
    MultiplierShift ms = *chooseMultiplierShift(scale);
    RoundingMode mode = kAllRoundingModes[static_cast<size_t>(i) % 6];
    long double exact = std::ldexp(static_cast<long double>(a) *
                                       static_cast<long double>(ms.multiplier),
                                   -static_cast<int>(ms.rshift));
    ASSERT_EQ(applyMultiplierShift(a, ms, mode), referenceRound(exact, mode))
        << a << " " << scale;
  }
}

TEST(RequantExhaustiveTest, QuantizeDequantizeRoundTrip) {
  for (double scale : {1e-4, 0.0123, 0.1, 0.5, 1.0, 3.7})
    for (int zp : {-128, -20, 0, 64, 127})
      for (RoundingMode mode : {RoundingMode::HalfAwayFromZero,
                                RoundingMode::HalfToEven, RoundingMode::HalfUp}) {
        QuantParams p{scale, zp};
        // Every int8 code survives dequantize -> quantize.
        for (int q = -128; q <= 127; ++q)
          ASSERT_EQ(quantize(dequantize(q, p), p, IntType::Int8, mode), q)
              << q << " " << scale << " " << zp;
        // Every float in range comes back within half a step.
        double lo = dequantize(-128, p), hi = dequantize(127, p);
        for (int i = 0; i <= 1000; ++i) {
          double x = lo + (hi - lo) * i / 1000.0;
          double back = dequantize(quantize(x, p, IntType::Int8, mode), p);
          ASSERT_LE(std::fabs(back - x), scale * (0.5 + 1e-9)) << x;
        }
      }
}

} // namespace
