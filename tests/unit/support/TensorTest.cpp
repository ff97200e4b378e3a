//===- TensorTest.cpp - Tensor value type and f16/bf16/int4 conversions ---===//

#include "tpuc/Support/FloatConvert.h"
#include "tpuc/Support/Tensor.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

using namespace tpuc;

TEST(Tensor, SizesNamesAndParsing) {
  EXPECT_EQ(dtypeSize(DType::F64), 8u);
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeSize(DType::Bool), 1u);
  for (DType type : kAllDTypes)
    EXPECT_EQ(parseDType(dtypeName(type)), type);
  EXPECT_EQ(parseDType("float32"), DType::F32);
  EXPECT_EQ(parseDType("BFloat16"), DType::BF16);
  EXPECT_EQ(parseDType("complex64"), std::nullopt);
  EXPECT_TRUE(isFloatDType(DType::BF16));
  EXPECT_FALSE(isFloatDType(DType::I32));
  EXPECT_TRUE(isSignedIntDType(DType::I8));
  EXPECT_FALSE(isSignedIntDType(DType::U8));
}

TEST(Tensor, ShapesZeroDAndEmpty) {
  Tensor scalar;
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.numElements(), 1);
  EXPECT_EQ(scalar.byteSize(), 4u);
  Tensor empty(DType::I16, {4, 0, 2});
  EXPECT_EQ(empty.numElements(), 0);
  EXPECT_EQ(empty.byteSize(), 0u);
  EXPECT_EQ(shapeToString({}), "()");
  EXPECT_EQ(shapeToString(std::vector<int64_t>{5}), "(5,)");
  EXPECT_EQ(shapeToString(std::vector<int64_t>{1, 3}), "(1, 3)");
  EXPECT_THROW(Tensor(DType::F32, {2, -1}), TensorError);
  EXPECT_THROW(Tensor(DType::F32, {1LL << 40, 1LL << 40}), TensorError);
  EXPECT_THROW(Tensor(DType::F32, {2}, std::vector<uint8_t>(7)), TensorError);
}

TEST(Tensor, TypedViewsValuesReinterpretReshape) {
  Tensor t = Tensor::fromValues<int16_t>({2, 2}, {-1, 2, -3, 4});
  EXPECT_EQ(t.dtype(), DType::I16);
  EXPECT_EQ(t.values<int16_t>()[2], -3);
  EXPECT_THROW(t.values<float>(), TensorError);
  EXPECT_THROW(t.values<uint16_t>(), TensorError);
  EXPECT_DOUBLE_EQ(t.valueAsDouble(3), 4.0);
  EXPECT_THROW(t.valueAsDouble(4), TensorError);
  EXPECT_EQ(t.toDoubles(), (std::vector<double>{-1, 2, -3, 4}));
  Tensor u = t.reinterpret(DType::U16);
  EXPECT_EQ(u.values<uint16_t>()[0], 0xffff);
  EXPECT_THROW(t.reinterpret(DType::F32), TensorError);
  t.reshape({4});
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{4}));
  EXPECT_THROW(t.reshape({3}), TensorError);
  EXPECT_THROW(Tensor::fromValues<float>({3}, {1.0f}), TensorError);
  Tensor bf = Tensor::fromValues<uint16_t>({1}, {0x3fc0}).reinterpret(
      DType::BF16);
  EXPECT_DOUBLE_EQ(bf.valueAsDouble(0), 1.5);
  Tensor half = Tensor::fromValues<uint16_t>({1}, {0x3c00}).reinterpret(
      DType::F16);
  EXPECT_DOUBLE_EQ(half.valueAsDouble(0), 1.0);
  EXPECT_EQ(half.values<uint16_t>()[0], 0x3c00);
}

TEST(FloatConvert, HalfKnownValues) {
  EXPECT_EQ(f32ToF16(1.0f), 0x3c00);
  EXPECT_EQ(f32ToF16(-2.0f), 0xc000);
  EXPECT_EQ(f32ToF16(65504.0f), 0x7bff);
  EXPECT_EQ(f32ToF16(65519.99f), 0x7bff);
  EXPECT_EQ(f32ToF16(65520.0f), 0x7c00); // ties to even -> overflow
  EXPECT_EQ(f32ToF16(1e9f), 0x7c00);
  EXPECT_EQ(f32ToF16(-INFINITY), 0xfc00);
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -24)), 0x0001); // smallest subnormal
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -25)), 0x0000); // tie -> even (0)
  EXPECT_EQ(f32ToF16(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(f32ToF16(std::ldexp(3.0f, -25)), 0x0002); // 1.5 ulp tie -> 2
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -14)), 0x0400); // smallest normal
  EXPECT_EQ(f32ToF16(-0.0f), 0x8000);
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1).
  EXPECT_EQ(f32ToF16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(f32ToF16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(f32ToF16(NAN) & 0x7e00, 0x7e00);
  EXPECT_TRUE(std::isnan(f16ToF32(0x7e00)));
  EXPECT_EQ(f16ToF32(0x7c00), INFINITY);
  EXPECT_EQ(f16ToF32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16ToF32(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(f16ToF32(0xc000), -2.0f);
}

TEST(FloatConvert, EveryHalfRoundTripsExactly) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    auto h = static_cast<uint16_t>(bits);
    float f = f16ToF32(h);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(f16ToF32(f32ToF16(f))));
      continue;
    }
    ASSERT_EQ(f32ToF16(f), h) << std::hex << bits;
  }
}

TEST(FloatConvert, HalfRoundingMatchesDoubleReference) {
  // For floats between two adjacent halves, the result must be the nearer
  // one (ties to the even one), checked against exact double arithmetic.
  for (uint32_t h = 0x0000; h < 0x7bff; h += 7) {
    double lo = f16ToF32(static_cast<uint16_t>(h));
    double hi = f16ToF32(static_cast<uint16_t>(h + 1));
    for (double t : {0.25, 0.5, 0.75, 0.4999, 0.5001}) {
      auto f = static_cast<float>(lo + (hi - lo) * t);
      uint16_t got = f32ToF16(f);
      double dlo = std::abs(f - lo), dhi = std::abs(hi - f);
      uint16_t want = dlo < dhi   ? h
                      : dhi < dlo ? h + 1
                                  : ((h & 1) ? h + 1 : h);
      ASSERT_EQ(got, want) << std::hex << h << " t=" << t;
    }
  }
}

TEST(FloatConvert, BFloat16) {
  EXPECT_EQ(f32ToBF16(1.0f), 0x3f80);
  EXPECT_EQ(bf16ToF32(0x3f80), 1.0f);
  EXPECT_EQ(bf16ToF32(0xc0490000 >> 16), -3.140625f);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even.
  EXPECT_EQ(f32ToBF16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(f32ToBF16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(f32ToBF16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)),
            0x3f81);
  EXPECT_EQ(f32ToBF16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(f32ToBF16(-INFINITY), 0xff80);
  uint16_t nan = f32ToBF16(std::bit_cast<float>(0x7f800001u));
  EXPECT_TRUE(std::isnan(bf16ToF32(nan))); // payload in low bits kept NaN
  EXPECT_EQ(f32ToBF16(-NAN) & 0x8000, 0x8000);
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    float f = bf16ToF32(static_cast<uint16_t>(bits));
    if (!std::isnan(f))
      ASSERT_EQ(f32ToBF16(f), bits);
  }
}

TEST(FloatConvert, TensorConversions) {
  Tensor f = Tensor::fromValues<float>({3}, {1.0f, -0.5f, 3.0f});
  Tensor h = f32TensorToHalf(f, DType::F16);
  EXPECT_EQ(h.dtype(), DType::F16);
  EXPECT_EQ(h.values<uint16_t>()[0], 0x3c00);
  Tensor b = f32TensorToHalf(f, DType::BF16);
  EXPECT_TRUE(toF32Tensor(b) == f);
  EXPECT_TRUE(toF32Tensor(h) == f);
  EXPECT_TRUE(toF32Tensor(Tensor::fromValues<int8_t>({3}, {1, 0, 3})) ==
              Tensor::fromValues<float>({3}, {1, 0, 3}));
  EXPECT_THROW(f32TensorToHalf(h, DType::F16), TensorError);
  EXPECT_THROW(f32TensorToHalf(f, DType::I8), TensorError);
}

TEST(FloatConvert, Int4Packing) {
  std::vector<int8_t> values = {-8, 7, -1, 0, 5};
  std::vector<uint8_t> packed = packInt4(values);
  ASSERT_EQ(packed.size(), 3u);
  EXPECT_EQ(packed[0], 0x78); // low nibble -8 (0x8), high nibble 7
  EXPECT_EQ(packed[1], 0x0f);
  EXPECT_EQ(packed[2], 0x05);
  EXPECT_EQ(unpackInt4(packed, 5), values);
  EXPECT_EQ(unpackUInt4(packed, 5), (std::vector<uint8_t>{8, 7, 15, 0, 5}));
  EXPECT_THROW(unpackInt4(packed, 7), TensorError);
}
