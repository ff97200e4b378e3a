//===- WeightQuantTest.cpp - Per-channel and group-wise weight quantization ===//

#include "tpuc/Quant/Arith.h"
#include "tpuc/Support/FloatConvert.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <span>

using namespace tpuc::quant;

namespace {

TEST(PerChannelTest, HandWorked) {
  // Channel 0: absmax 31.75 -> scale 31.75 / 127 = 0.25 exactly;
  //   31.75 -> 127, -0.375 -> -1.5 -> -2 (half away), 0.125 -> 0.5 -> 1.
  // Channel 1: all zeros -> scale 1, q = 0.
  std::vector<float> w = {31.75f, -0.375f, 0.125f, 0.0f, 0.0f, 0.0f};
  ChannelQuantWeights q = quantizeWeightsPerChannel(w, 2);
  EXPECT_EQ(q.scales, (std::vector<float>{0.25f, 1.0f}));
  EXPECT_EQ(q.values, (std::vector<int8_t>{127, -2, 1, 0, 0, 0}));
  ChannelQuantWeights even =
      quantizeWeightsPerChannel(w, 2, RoundingMode::HalfToEven);
  EXPECT_EQ(even.values, (std::vector<int8_t>{127, -2, 0, 0, 0, 0}));
  EXPECT_THROW(quantizeWeightsPerChannel(w, 4), std::invalid_argument);
}

TEST(PerChannelTest, RoundTripWithinHalfAStep) {
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 0.05f);
  const int64_t channels = 16, perChannel = 3 * 3 * 8;
  std::vector<float> w(static_cast<size_t>(channels * perChannel));
  for (float &v : w)
    v = dist(rng);
  w[5] = -0.9f; // An outlier in channel 0 only affects channel 0's scale.
  ChannelQuantWeights q = quantizeWeightsPerChannel(w, channels);
  for (int64_t c = 0; c < channels; ++c) {
    float scale = q.scales[static_cast<size_t>(c)];
    int maxAbs = 0;
    for (int64_t i = 0; i < perChannel; ++i) {
      size_t k = static_cast<size_t>(c * perChannel + i);
      maxAbs = std::max(maxAbs, std::abs(int(q.values[k])));
      EXPECT_LE(std::fabs(q.values[k] * scale - w[k]), scale * 0.5001f);
    }
    EXPECT_EQ(maxAbs, 127) << "the largest weight of a channel maps to 127";
  }
  EXPECT_NEAR(q.scales[0], 0.9f / 127, 1e-7);
  EXPECT_LT(q.scales[1], 0.3f / 127);
}

TEST(GroupWiseTest, Int4SymmetricPackingHandWorked) {
  // One row, K = 8, groups of 4.
  // Group 0: absmax 7 -> scale 1: 7, -3.5 -> -4, 1.75 -> 2, 0.
  // Group 1: absmax 14 -> scale 2: -14 -> -7, 3 -> 1.5 -> 2, 5 -> 2.5 -> 3, -1 -> -0.5 -> -1.
  std::vector<float> w = {7, -3.5f, 1.75f, 0, -14, 3, 5, -1};
  GroupQuantWeights q = quantizeWeightsGroupWise(w, 1, 8, {4, 4, true});
  EXPECT_EQ(q.scales, (std::vector<float>{1.0f, 2.0f}));
  EXPECT_TRUE(q.zeroPoints.empty());
  // Low nibble first: (7, -4) -> 0xC7, (2, 0) -> 0x02, (-7, 2) -> 0x29,
  // (3, -1) -> 0xF3.
  EXPECT_EQ(q.data, (std::vector<uint8_t>{0xC7, 0x02, 0x29, 0xF3}));
  std::vector<int64_t> values;
  for (int64_t c = 0; c < 8; ++c)
    values.push_back(q.valueAt(0, c));
  EXPECT_EQ(values, (std::vector<int64_t>{7, -4, 2, 0, -7, 2, 3, -1}));
  // Support's unpacker reads the same layout.
  EXPECT_EQ(tpuc::unpackInt4(q.data, 8),
            (std::vector<int8_t>{7, -4, 2, 0, -7, 2, 3, -1}));
  EXPECT_EQ(q.dequantize(),
            (std::vector<float>{7, -4, 2, 0, -14, 4, 6, -2}));
}

TEST(GroupWiseTest, Int4AsymmetricHandWorked) {
  // Group [0, 1.5, 3, 4.5]: scale 4.5/15 = 0.3, zp 0 -> 0, 5, 10, 15.
  // Group [-1, 0, 2, 3.5]: scale 0.3, zp = round(1/0.3) = 3 ->
  //   -3.33 -> -3 + 3 = 0; 0 -> 3; 6.67 -> 7 + 3 = 10; 11.67 -> 12 + 3 = 15.
  std::vector<float> w = {0, 1.5f, 3, 4.5f, -1, 0, 2, 3.5f};
  GroupQuantWeights q = quantizeWeightsGroupWise(w, 1, 8, {4, 4, false});
  EXPECT_NEAR(q.scales[0], 0.3f, 1e-7);
  EXPECT_NEAR(q.scales[1], 0.3f, 1e-7);
  EXPECT_EQ(q.zeroPoints, (std::vector<int32_t>{0, 3}));
  std::vector<int64_t> values;
  for (int64_t c = 0; c < 8; ++c)
    values.push_back(q.valueAt(0, c));
  EXPECT_EQ(values, (std::vector<int64_t>{0, 5, 10, 15, 0, 3, 10, 15}));
  EXPECT_EQ(tpuc::unpackUInt4(q.data, 8),
            (std::vector<uint8_t>{0, 5, 10, 15, 0, 3, 10, 15}));
  // 0.0 is exact in the asymmetric grid.
  EXPECT_EQ(q.dequantize()[5], 0.0f);
}

TEST(GroupWiseTest, Int8BothKindsHandWorked) {
  // Symmetric int8, whole row: absmax 31.75 -> scale 0.25;
  // 31.75 -> 127, -15.875 -> -63.5 -> -64, 0.1 -> 0.4 -> 0.
  std::vector<float> w = {31.75f, -15.875f, 0.1f, 0};
  GroupQuantWeights s = quantizeWeightsGroupWise(w, 1, 4, {8, 0, true});
  EXPECT_EQ(s.groupSize, 4);
  EXPECT_EQ(s.scales[0], 0.25f);
  EXPECT_EQ(s.valueAt(0, 0), 127);
  EXPECT_EQ(s.valueAt(0, 1), -64);
  EXPECT_EQ(s.valueAt(0, 2), 0);
  EXPECT_EQ(s.data[1], static_cast<uint8_t>(-64)); // int8 two's complement.
  // Asymmetric uint8: [0, 63.75] -> scale 0.25, zp 0;
  // 63.75 -> 255, 31.75 -> 127, 0.125 -> 0.5 -> 1.
  std::vector<float> u = {63.75f, 31.75f, 0, 0.125f};
  GroupQuantWeights a = quantizeWeightsGroupWise(u, 1, 4, {8, 0, false});
  EXPECT_EQ(a.scales[0], 0.25f);
  EXPECT_EQ(a.zeroPoints, (std::vector<int32_t>{0}));
  EXPECT_EQ(a.data, (std::vector<uint8_t>{255, 127, 0, 1}));
}

TEST(GroupWiseTest, RandomRoundTripWithinHalfAStep) {
  std::mt19937 rng(3);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  const int64_t rows = 8, cols = 256;
  std::vector<float> w(static_cast<size_t>(rows * cols));
  for (float &v : w)
    v = dist(rng) + 0.3f;
  for (int bits : {4, 8})
    for (bool symmetric : {true, false})
      for (int64_t group : {int64_t(0), int64_t(32), int64_t(128)}) {
        GroupQuantWeights q =
            quantizeWeightsGroupWise(w, rows, cols, {bits, group, symmetric});
        int64_t groupSize = group == 0 ? cols : group;
        ASSERT_EQ(q.scales.size(), static_cast<size_t>(rows * cols / groupSize));
        ASSERT_EQ(q.data.size(),
                  static_cast<size_t>(bits == 8 ? rows * cols : rows * cols / 2));
        std::vector<float> back = q.dequantize();
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c) {
            size_t k = static_cast<size_t>(r * cols + c);
            float scale =
                q.scales[static_cast<size_t>(r * (cols / groupSize) + c / groupSize)];
            ASSERT_LE(std::fabs(back[k] - w[k]), scale * 0.5001f)
                << bits << " " << symmetric << " " << group;
            int64_t v = q.valueAt(r, c);
            if (symmetric)
              ASSERT_LE(std::llabs(v), (int64_t(1) << (bits - 1)) - 1);
            else
              ASSERT_TRUE(v >= 0 && v < (int64_t(1) << bits));
          }
      }
}

TEST(GroupWiseTest, BadShapesAreRejected) {
  std::vector<float> w(12, 1.0f);
  EXPECT_THROW(quantizeWeightsGroupWise(w, 2, 6, {4, 4, true}),
               std::invalid_argument); // 4 does not divide 6.
  EXPECT_THROW(quantizeWeightsGroupWise(w, 4, 3, {4, 0, true}),
               std::invalid_argument); // Odd K with 4 bits.
  EXPECT_THROW(quantizeWeightsGroupWise(w, 3, 3, {8, 0, true}),
               std::invalid_argument); // Shape vs size.
  EXPECT_THROW(quantizeWeightsGroupWise(w, 2, 6, {2, 0, true}),
               std::invalid_argument); // Bit width.
  EXPECT_NO_THROW(quantizeWeightsGroupWise(w, 2, 6, {8, 3, false}));
}

// A matrix large enough to be split over threads by rows gives the bytes of quantizing each row alone
// (one thread), in both modes and widths.
TEST(GroupWiseTest, ThreadedRowsEqualRowByRow) {
  const int64_t rows = 515, cols = 2048; // > 2^20 weights; an odd row count splits unevenly
  std::mt19937 rng(11);
  std::normal_distribution<float> dist(0.0f, 0.05f);
  std::vector<float> w(rows * cols);
  for (float &v : w)
    v = dist(rng);
  for (GroupQuantOptions options : {GroupQuantOptions{4, 64, false}, GroupQuantOptions{8, 128, true}}) {
    GroupQuantWeights all = quantizeWeightsGroupWise(w, rows, cols, options);
    size_t rowBytes = all.data.size() / rows, rowGroups = all.scales.size() / rows;
    for (int64_t r = 0; r < rows; ++r) {
      GroupQuantWeights one =
          quantizeWeightsGroupWise(std::span<const float>(w).subspan(r * cols, cols), 1, cols, options);
      ASSERT_TRUE(std::equal(one.data.begin(), one.data.end(), all.data.begin() + r * rowBytes))
          << "row " << r;
      ASSERT_TRUE(std::equal(one.scales.begin(), one.scales.end(), all.scales.begin() + r * rowGroups));
      ASSERT_TRUE(std::equal(one.zeroPoints.begin(), one.zeroPoints.end(),
                             all.zeroPoints.begin() + (options.symmetric ? 0 : r * rowGroups)));
    }
  }
}

} // namespace
