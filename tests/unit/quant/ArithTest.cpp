//===- ArithTest.cpp - Hand-worked cases of every formula in Arith.h ------===//
//
// Each expected value is worked out by hand in the comment next to it and in
// docs/quantization.md.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Quant/Arith.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace tpuc::quant;

namespace {

using RM = RoundingMode;

struct RoundCase {
  double value;
  int64_t halfAway, halfEven, halfUp, towardZero, down, up;
};

// value: half_away half_even half_up toward_zero down up
const RoundCase kRoundCases[] = {
    {2.5, 3, 2, 3, 2, 2, 3},       {-2.5, -3, -2, -2, -2, -3, -2},
    {3.5, 4, 4, 4, 3, 3, 4},       {-3.5, -4, -4, -3, -3, -4, -3},
    {2.7, 3, 3, 3, 2, 2, 3},       {-2.7, -3, -3, -3, -2, -3, -2},
    {2.2, 2, 2, 2, 2, 2, 3},       {-2.2, -2, -2, -2, -2, -3, -2},
    {0.5, 1, 0, 1, 0, 0, 1},       {-0.5, -1, 0, 0, 0, -1, 0},
    {0.0, 0, 0, 0, 0, 0, 0},       {7.0, 7, 7, 7, 7, 7, 7},
    {-7.0, -7, -7, -7, -7, -7, -7}};

int64_t expected(const RoundCase &c, RM mode) {
  switch (mode) {
  case RM::HalfAwayFromZero:
    return c.halfAway;
  case RM::HalfToEven:
    return c.halfEven;
  case RM::HalfUp:
    return c.halfUp;
  case RM::TowardZero:
    return c.towardZero;
  case RM::Down:
    return c.down;
  case RM::Up:
    return c.up;
  }
  return 0;
}

TEST(RoundingTest, RoundToIntTable) {
  for (const RoundCase &c : kRoundCases)
    for (RM mode : kAllRoundingModes)
      EXPECT_EQ(roundToInt(c.value, mode), expected(c, mode))
          << c.value << " " << roundingModeName(mode);
}

TEST(RoundingTest, RightShiftMatchesTheSameTable) {
  // value / 2 for odd values gives the .5 cases, value / 4 the .25/.75 ones.
  for (const RoundCase &c : kRoundCases) {
    double twice = c.value * 2;
    if (twice != std::floor(twice))
      continue;
    for (RM mode : kAllRoundingModes)
      EXPECT_EQ(roundingRightShift(static_cast<int64_t>(twice), 1, mode),
                expected(c, mode))
          << c.value << " " << roundingModeName(mode);
  }
  // 7 / 4 = 1.75 and -7 / 4 = -1.75.
  EXPECT_EQ(roundingRightShift(7, 2, RM::HalfToEven), 2);
  EXPECT_EQ(roundingRightShift(7, 2, RM::TowardZero), 1);
  EXPECT_EQ(roundingRightShift(-7, 2, RM::TowardZero), -1);
  EXPECT_EQ(roundingRightShift(-7, 2, RM::Down), -2);
  EXPECT_EQ(roundingRightShift(-7, 2, RM::HalfUp), -2);
  EXPECT_EQ(roundingRightShift(-6, 2, RM::HalfUp), -1); // -1.5 -> -1
  EXPECT_EQ(roundingRightShift(-6, 2, RM::HalfAwayFromZero), -2);
  EXPECT_EQ(roundingRightShift(12345, 0, RM::Down), 12345);
  // The extremes do not overflow.
  int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(roundingRightShift(big, 63, RM::HalfUp), 1);
  EXPECT_EQ(roundingRightShift(std::numeric_limits<int64_t>::min(), 63,
                               RM::Down),
            -1);
}

TEST(RoundingTest, NamesRoundTrip) {
  for (RM mode : kAllRoundingModes)
    EXPECT_EQ(parseRoundingMode(roundingModeName(mode)), mode);
  EXPECT_FALSE(parseRoundingMode("nearest").has_value());
}

TEST(RoundingTest, RoundToIntSaturatesAndHandlesNaN) {
  EXPECT_EQ(roundToInt(1e30, RM::HalfUp), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(roundToInt(-1e30, RM::Down), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(roundToInt(std::nan(""), RM::HalfToEven), 0);
  EXPECT_EQ(roundToInt(std::numeric_limits<double>::infinity(), RM::Up),
            std::numeric_limits<int64_t>::max());
  // 2^53 + 2 is exact; nothing to round.
  EXPECT_EQ(roundToInt(9007199254740994.0, RM::HalfToEven), 9007199254740994);
}

TEST(SaturationTest, RangesAndClamping) {
  EXPECT_EQ(intMin(IntType::Int4), -8);
  EXPECT_EQ(intMax(IntType::UInt4), 15);
  EXPECT_EQ(intMax(IntType::Int16), 32767);
  EXPECT_EQ(intMax(IntType::UInt16), 65535);
  EXPECT_EQ(intMin(IntType::Int32), -2147483648LL);
  EXPECT_EQ(bitWidth(IntType::UInt8), 8);
  EXPECT_TRUE(isSigned(IntType::Int8));
  EXPECT_FALSE(isSigned(IntType::UInt16));
  EXPECT_EQ(saturate(300, IntType::Int8), 127);
  EXPECT_EQ(saturate(-300, IntType::Int8), -128);
  EXPECT_EQ(saturate(-5, IntType::UInt8), 0);
  EXPECT_EQ(saturate(9, IntType::Int4), 7);
  EXPECT_EQ(saturateToInt8(-129), -128);
  EXPECT_EQ(saturateToUInt8(256), 255);
  EXPECT_EQ(saturateToInt16(40000), 32767);
  EXPECT_EQ(saturateToInt32(int64_t(1) << 40), 2147483647);
}

TEST(QuantizeTest, HandWorked) {
  QuantParams quarter{0.25, 0};
  // 0.375 / 0.25 = 1.5 -> 2 (half away), 2 (half even).
  EXPECT_EQ(quantize(0.375, quarter, IntType::Int8), 2);
  EXPECT_EQ(quantize(0.375, quarter, IntType::Int8, RM::HalfToEven), 2);
  // 0.625 / 0.25 = 2.5 -> 3 (half away), 2 (half even).
  EXPECT_EQ(quantize(0.625, quarter, IntType::Int8), 3);
  EXPECT_EQ(quantize(0.625, quarter, IntType::Int8, RM::HalfToEven), 2);
  EXPECT_EQ(quantize(-0.625, quarter, IntType::Int8), -3);
  // With a zero point: -1 / 0.5 = -2, + 10 = 8.
  EXPECT_EQ(quantize(-1.0, {0.5, 10}, IntType::Int8), 8);
  // Saturation: 100 / 0.5 = 200 -> 127; into uint8 with zp 100: 300 -> 255.
  EXPECT_EQ(quantize(100.0, {0.5, 0}, IntType::Int8), 127);
  EXPECT_EQ(quantize(100.0, {0.5, 100}, IntType::UInt8), 255);
  EXPECT_EQ(quantize(-100.0, {0.5, 100}, IntType::UInt8), 0);
  // NaN -> the zero point; infinities saturate.
  EXPECT_EQ(quantize(std::nan(""), {0.5, 3}, IntType::Int8), 3);
  EXPECT_EQ(quantize(-INFINITY, {0.5, 3}, IntType::Int8), -128);
  EXPECT_DOUBLE_EQ(dequantize(8, {0.5, 10}), -1.0);
  EXPECT_DOUBLE_EQ(dequantize(-128, {0.25, 0}), -32.0);
}

TEST(QuantizeTest, SpanHelpers) {
  std::vector<float> x = {0.375f, -0.625f, 100.0f, 0.0f};
  std::vector<int8_t> q = quantizeToInt8(x, {0.25, 0});
  EXPECT_EQ(q, (std::vector<int8_t>{2, -3, 127, 0}));
  std::vector<float> back = dequantizeInt8(q, {0.25, 0});
  EXPECT_EQ(back, (std::vector<float>{0.5f, -0.75f, 31.75f, 0.0f}));
}

TEST(QuantParamsTest, Symmetric) {
  // threshold / 127 and threshold / 255.
  EXPECT_DOUBLE_EQ(symmetricParams(12.7, IntType::Int8).scale, 0.1);
  EXPECT_DOUBLE_EQ(symmetricParams(25.5, IntType::UInt8).scale, 0.1);
  EXPECT_DOUBLE_EQ(symmetricParams(7.0, IntType::Int4).scale, 1.0);
  EXPECT_EQ(symmetricParams(12.7, IntType::Int8).zeroPoint, 0);
  // A zero threshold falls back to 1e-5.
  EXPECT_DOUBLE_EQ(symmetricParams(0.0, IntType::Int8).scale, 1e-5 / 127);
}

TEST(QuantParamsTest, Asymmetric) {
  // [-1, 3] into int8: scale = 4/255, zp = round(-128 + 1/(4/255))
  //                                      = round(-128 + 63.75) = -64.
  QuantParams p = asymmetricParams(-1.0, 3.0, IntType::Int8);
  EXPECT_DOUBLE_EQ(p.scale, 4.0 / 255.0);
  EXPECT_EQ(p.zeroPoint, -64);
  // 0.0 is exactly representable: quantize(0) = zp, dequantize(zp) = 0.
  EXPECT_EQ(quantize(0.0, p, IntType::Int8), -64);
  EXPECT_DOUBLE_EQ(dequantize(-64, p), 0.0);
  // The ends map to the ends (within half a step).
  EXPECT_EQ(quantize(3.0, p, IntType::Int8), 127);
  EXPECT_EQ(quantize(-1.0, p, IntType::Int8), -128);
  // [2, 5] is widened to [0, 5]: uint8 scale 5/255, zp 0.
  QuantParams u = asymmetricParams(2.0, 5.0, IntType::UInt8);
  EXPECT_DOUBLE_EQ(u.scale, 5.0 / 255.0);
  EXPECT_EQ(u.zeroPoint, 0);
  // [-6, -2] widens to [-6, 0]: uint8 zp = round(0 + 6 / (6/255)) = 255.
  QuantParams n = asymmetricParams(-6.0, -2.0, IntType::UInt8);
  EXPECT_EQ(n.zeroPoint, 255);
  // All zeros: [0, 1e-5].
  QuantParams z = asymmetricParams(0.0, 0.0, IntType::Int8);
  EXPECT_DOUBLE_EQ(z.scale, 1e-5 / 255.0);
  EXPECT_EQ(z.zeroPoint, -128);
}

TEST(MultiplierShiftTest, HandWorked) {
  // 0.8 = 0.8 * 2^0 -> rshift = 31, multiplier = round(0.8 * 2^31)
  //     = round(1717986918.4) = 1717986918 (the tpu.requant_int example).
  EXPECT_EQ(chooseMultiplierShift(0.8), (MultiplierShift{1717986918, 31}));
  EXPECT_EQ(chooseMultiplierShift(-0.8), (MultiplierShift{-1717986918, 31}));
  EXPECT_EQ(chooseMultiplierShift(0.5), (MultiplierShift{1 << 30, 31}));
  EXPECT_EQ(chooseMultiplierShift(1.0), (MultiplierShift{1 << 30, 30}));
  EXPECT_EQ(chooseMultiplierShift(0.75), (MultiplierShift{1610612736, 31}));
  EXPECT_EQ(chooseMultiplierShift(0.0), (MultiplierShift{0, 0}));
  // 1 - 2^-33: round((1 - 2^-33) * 2^31) = 2^31 does not fit, so one bit less.
  EXPECT_EQ(chooseMultiplierShift(1.0 - std::ldexp(1.0, -33)),
            (MultiplierShift{1 << 30, 30}));
  // Large factors: 2^31 - 1 fits with rshift 0; 2^31 - 0.4 does not.
  EXPECT_EQ(chooseMultiplierShift(2147483647.0),
            (MultiplierShift{2147483647, 0}));
  EXPECT_FALSE(chooseMultiplierShift(2147483647.6).has_value());
  EXPECT_FALSE(chooseMultiplierShift(3e9).has_value());
  EXPECT_FALSE(chooseMultiplierShift(INFINITY).has_value());
  EXPECT_FALSE(chooseMultiplierShift(std::nan("")).has_value());
  // Tiny factors stop at rshift 63.
  EXPECT_EQ(chooseMultiplierShift(std::ldexp(1.0, -40)),
            (MultiplierShift{int64_t(1) << 23, 63}));
  // An 8-bit multiplier: round(0.8 * 2^8) = round(204.8) = 205.
  EXPECT_EQ(chooseMultiplierShift(0.8, 8), (MultiplierShift{205, 8}));
  EXPECT_FALSE(chooseMultiplierShift(0.8, 0).has_value());
  EXPECT_FALSE(chooseMultiplierShift(0.8, 32).has_value());
  EXPECT_DOUBLE_EQ((MultiplierShift{205, 8}).value(), 205.0 / 256.0);
}

TEST(MultiplierShiftTest, ApplyHandWorked) {
  // 100 * 1717986918 / 2^31 = 79.99999998...: nearest modes give 80, floor 79.
  EXPECT_EQ(applyMultiplierShift(100, 1717986918, 31), 80);
  EXPECT_EQ(applyMultiplierShift(100, 1717986918, 31, RM::Down), 79);
  EXPECT_EQ(applyMultiplierShift(100, 1717986918, 31, RM::TowardZero), 79);
  EXPECT_EQ(applyMultiplierShift(-100, 1717986918, 31, RM::TowardZero), -79);
  // 3 * 2^30 / 2^31 = 1.5 exactly: the tie rules decide.
  EXPECT_EQ(applyMultiplierShift(3, 1 << 30, 31, RM::HalfUp), 2);
  EXPECT_EQ(applyMultiplierShift(-3, 1 << 30, 31, RM::HalfUp), -1);
  EXPECT_EQ(applyMultiplierShift(-3, 1 << 30, 31, RM::HalfAwayFromZero), -2);
  EXPECT_EQ(applyMultiplierShift(5, 1 << 30, 31, RM::HalfToEven), 2);
  // The conv example of TpuOps.td: 1234 * 19005 / 2^20 = 22.3658 -> 22.
  EXPECT_EQ(applyMultiplierShift(1234, 19005, 20), 22);
  // A 64-bit accumulator times a 31-bit multiplier does not overflow.
  int64_t big = int64_t(1) << 62;
  EXPECT_EQ(applyMultiplierShift(big, 1 << 30, 31), int64_t(1) << 61);
  EXPECT_EQ(applyMultiplierShift(big, 2147483647, 0),
            std::numeric_limits<int64_t>::max());
}

TEST(MultiplierShiftTest, RequantizeHandWorked) {
  MultiplierShift ms{19005, 20};
  // 22 + (-5) = 17.
  EXPECT_EQ(requantize(1234, ms, -5, IntType::Int8), 17);
  // 100000 * 19005 / 2^20 = 1812.47 -> saturates to 127 / -128.
  EXPECT_EQ(requantize(100000, ms, 0, IntType::Int8), 127);
  EXPECT_EQ(requantize(-100000, ms, 0, IntType::Int8), -128);
  EXPECT_EQ(requantize(100000, ms, 0, IntType::Int16), 1812);
  // requant_int 0.1 -> 0.25: factor 0.4; (100 - (-28)) * 0.4 = 51.2 -> 51, +3.
  MultiplierShift factor = *chooseMultiplierShift(0.1 / 0.25);
  EXPECT_EQ(requantizeInt(100, -28, factor, 3, IntType::Int8), 54);
  EXPECT_EQ(requantizeInt(-128, 0, factor, 0, IntType::Int8), -51); // -51.2
  EXPECT_EQ(requantizeInt(-128, 0, factor, 0, IntType::Int8, RM::Down), -52);
}

TEST(HalfFloatTest, RoundToF16AndBF16) {
  // f16 keeps 10 fraction bits: 1 + 2^-11 is a tie -> even (1.0);
  // 1 + 3 * 2^-11 is a tie between 1 + 2^-10 and 1 + 2^-9 -> 1 + 2^-9.
  EXPECT_EQ(roundToF16(1.0f + std::ldexp(1.0f, -11)), 1.0f);
  EXPECT_EQ(roundToF16(1.0f + 3 * std::ldexp(1.0f, -11)),
            1.0f + std::ldexp(1.0f, -9));
  EXPECT_EQ(roundToF16(65504.0f), 65504.0f);
  EXPECT_TRUE(std::isinf(roundToF16(65520.0f))); // Tie above the max -> inf.
  EXPECT_EQ(roundToF16(0.1f), 0.0999755859375f);
  // bf16 keeps 7 fraction bits.
  EXPECT_EQ(roundToBF16(1.0f + std::ldexp(1.0f, -8)), 1.0f);
  EXPECT_EQ(roundToBF16(1.0f + 3 * std::ldexp(1.0f, -8)),
            1.0f + std::ldexp(1.0f, -6));
  EXPECT_EQ(roundToBF16(0.1f), 0.10009765625f);
  std::vector<float> v = {0.1f, 1.0f};
  roundToF16(v);
  EXPECT_EQ(v[0], 0.0999755859375f);
  roundToBF16(v);
  EXPECT_EQ(v[1], 1.0f);
}

} // namespace
