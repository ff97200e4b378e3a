//===- KernelTest.cpp - The exact Tpu kernels against independent integer formulas ---===//
// Every expectation here is computed in the test by plain int64 loops and its own 128-bit
// multiplier/shift (never through the kernels' GEMM path), so a wrong chunking, zero point, padding,
// rounding or saturation shows up as a mismatch. The requantization is also checked against TpucQuant.
//===----------------------------------------------------------------------===//
#include "tpuc/Simulator/TpuKernels.h"
#include "tpuc/Simulator/ThreadPool.h"

#include <gtest/gtest.h>

#include <random>

using namespace tpuc;
using namespace tpuc::sim::tpu;

namespace {

/// Independent half-up requantization: floor((acc * m + 2^(s-1)) / 2^s) + zp, saturated.
int64_t refRequant(int64_t acc, int64_t m, int64_t s, int64_t zp, int64_t lo, int64_t hi) {
  __int128 p = static_cast<__int128>(acc) * m;
  if (s > 0)
    p += static_cast<__int128>(1) << (s - 1);
  __int128 q = p >> s; // arithmetic shift = floor division
  int64_t y = static_cast<int64_t>(q) + zp;
  return std::min(std::max(y, lo), hi);
}

std::vector<float> randomCodes(std::mt19937 &rng, int64_t n, int lo, int hi) {
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = static_cast<float>(dist(rng));
  return v;
}

Requant perChannel(std::mt19937 &rng, int64_t channels, int64_t zpOut) {
  Requant rq;
  std::uniform_real_distribution<double> f(1e-4, 2e-2);
  for (int64_t c = 0; c < channels; ++c) {
    auto ms = *quant::chooseMultiplierShift(f(rng));
    rq.multiplier.push_back(ms.multiplier);
    rq.rshift.push_back(ms.rshift);
  }
  rq.zpOut = zpOut;
  return rq;
}

struct ConvCase {
  const char *name;
  ConvShape s;
  int64_t zpX;
  bool relu;
};

class ConvInt8Test : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvInt8Test, MatchesIntegerLoops) {
  const ConvCase &tc = GetParam();
  const ConvShape &s = tc.s;
  std::mt19937 rng(7);
  auto x = randomCodes(rng, s.n * s.ic * s.ih * s.iw, -128, 127);
  int64_t icg = s.ic / s.group, ocg = s.oc / s.group;
  auto w = randomCodes(rng, s.oc * icg * s.kh * s.kw, -127, 127);
  std::vector<int64_t> bias(s.oc);
  std::uniform_int_distribution<int64_t> b(-50000, 50000);
  for (auto &v : bias)
    v = b(rng);
  Requant rq = perChannel(rng, s.oc, -3);
  rq.relu = tc.relu;
  int64_t maxX = std::max(std::abs(-128 - tc.zpX), std::abs(127 - tc.zpX));
  std::vector<float> y(s.n * s.oc * s.oh * s.ow);
  convInt8(s, x.data(), tc.zpX, maxX, w.data(), bias, rq, y.data());

  int64_t mismatches = 0;
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t oc = 0; oc < s.oc; ++oc)
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          int64_t g = oc / ocg, acc = bias[oc];
          for (int64_t c = 0; c < icg; ++c)
            for (int64_t ky = 0; ky < s.kh; ++ky)
              for (int64_t kx = 0; kx < s.kw; ++kx) {
                int64_t iy = oy * s.sh - s.padTop + ky * s.dh, ix = ox * s.sw - s.padLeft + kx * s.dw;
                if (iy < 0 || iy >= s.ih || ix < 0 || ix >= s.iw)
                  continue; // padding holds zpX: contributes 0
                int64_t xv = static_cast<int64_t>(x[((n * s.ic + g * icg + c) * s.ih + iy) * s.iw + ix]);
                int64_t wv = static_cast<int64_t>(w[((oc * icg + c) * s.kh + ky) * s.kw + kx]);
                acc += (xv - tc.zpX) * wv;
              }
          int64_t expect = refRequant(acc, rq.multiplier[oc], rq.rshift[oc], -3, -128, 127);
          ASSERT_EQ(expect, quant::requantize(acc, rq.at(oc), -3, quant::IntType::Int8)); // TpucQuant agrees
          if (tc.relu)
            expect = std::max<int64_t>(expect, -3);
          float got = y[((n * s.oc + oc) * s.oh + oy) * s.ow + ox];
          if (got != static_cast<float>(expect) && ++mismatches < 5)
            ADD_FAILURE() << "n" << n << " oc" << oc << " (" << oy << "," << ox << "): " << got << " vs " << expect;
        }
  EXPECT_EQ(mismatches, 0);
}

ConvShape shape(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t k, int64_t stride, int64_t pad,
                int64_t dil, int64_t group) {
  ConvShape s;
  s.n = n, s.ic = ic, s.ih = ih, s.iw = iw, s.oc = oc, s.kh = s.kw = k, s.sh = s.sw = stride;
  s.padTop = s.padLeft = s.padBottom = s.padRight = pad, s.dh = s.dw = dil, s.group = group;
  s.oh = (ih + 2 * pad - dil * (k - 1) - 1) / stride + 1;
  s.ow = (iw + 2 * pad - dil * (k - 1) - 1) / stride + 1;
  return s;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvInt8Test,
    ::testing::Values(ConvCase{"k3pad1", shape(1, 8, 9, 7, 6, 3, 1, 1, 1, 1), 0, false},
                      ConvCase{"stride2asym", shape(2, 5, 11, 10, 4, 3, 2, 1, 1, 1), 17, true},
                      // K = 160 * 9 = 1440 > 1024: two exact chunks (symmetric), three with a zero point.
                      ConvCase{"longK", shape(1, 160, 6, 6, 8, 3, 1, 1, 1, 1), 0, false},
                      ConvCase{"longKasym", shape(1, 160, 6, 6, 8, 3, 1, 1, 1, 1), -100, false},
                      ConvCase{"dilated", shape(1, 3, 12, 12, 5, 3, 1, 2, 2, 1), 5, false},
                      ConvCase{"grouped", shape(1, 8, 7, 7, 12, 3, 1, 1, 1, 4), 0, true},
                      ConvCase{"depthwise", shape(1, 6, 10, 9, 6, 3, 2, 1, 1, 6), -20, false},
                      ConvCase{"pointwise", shape(1, 16, 5, 5, 10, 1, 1, 0, 1, 1), 3, false},
                      // Small planes with many output channels split the channels over threads (uneven
                      // last share, batch 2, a zero point), also for 1x1 and per group.
                      ConvCase{"smallPlaneChannelSplit", shape(2, 40, 7, 7, 100, 3, 1, 1, 1, 1), 9, true},
                      ConvCase{"smallPlanePointwise", shape(1, 24, 6, 6, 70, 1, 1, 0, 1, 1), 0, false},
                      ConvCase{"smallPlaneGrouped", shape(1, 8, 5, 5, 128, 3, 1, 1, 1, 2), -7, false}),
    [](const auto &info) { return std::string(info.param.name); });

TEST(IntGemm, ExactBeyondFloatPrecision) {
  // All products at the extreme (-128 * -128) over K = 5000: the sum 81,920,000 is far beyond 2^24, where
  // a plain float32 GEMM would round; the chunked kernel must return it exactly.
  int64_t m = 3, n = 5, k = 5000;
  std::vector<float> a(m * k, -128.0f), b(k * n, -128.0f), scratch(m * n);
  a[1] = 127.0f; // break the symmetry a little
  std::vector<int32_t> c(m * n);
  intGemm(false, m, n, k, a.data(), k, b.data(), n, c.data(), n, 128, 128, scratch.data());
  EXPECT_EQ(c[0], (k - 1) * 16384 + 127 * -128);
  EXPECT_EQ(c[n], k * 16384);
  EXPECT_EQ(exactChunk(128 * 128), 1024);
  EXPECT_EQ(exactChunk(255 * 128), 514);
}

TEST(MatmulInt8, ZeroPointsTransposeAndBatches) {
  std::mt19937 rng(3);
  int64_t batch = 2, m = 3, k = 1500, n = 4, zpA = 9, zpB = -5;
  auto a = randomCodes(rng, batch * m * k, -128, 127);
  auto bT = randomCodes(rng, batch * n * k, -128, 127); // [batch, n, k]
  std::vector<int64_t> bias = {100, -200, 300, 7};
  Requant rq = perChannel(rng, n, 2);
  std::vector<float> y(batch * m * n);
  matmulInt8(batch, m, k, n, a.data(), zpA, 137, bT.data(), zpB, 133, /*transB=*/true, /*batchB=*/true, bias,
             rq, y.data());
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t acc = bias[j];
        for (int64_t t = 0; t < k; ++t)
          acc += (static_cast<int64_t>(a[(bi * m + i) * k + t]) - zpA) *
                 (static_cast<int64_t>(bT[(bi * n + j) * k + t]) - zpB);
        EXPECT_EQ(y[(bi * m + i) * n + j], refRequant(acc, rq.multiplier[j], rq.rshift[j], 2, -128, 127));
      }
}

TEST(PoolInt8, MaxAndAverage) {
  ConvShape s = shape(1, 2, 5, 5, 2, 3, 2, 1, 1, 1);
  std::mt19937 rng(5);
  auto x = randomCodes(rng, 2 * 25, -128, 127);
  std::vector<float> ymax(2 * s.oh * s.ow), yavg(ymax.size());
  maxPoolInt8(s, x.data(), ymax.data());
  auto ms = *quant::chooseMultiplierShift(1.0 / 9 * 0.7);
  Requant rq;
  rq.multiplier = {ms.multiplier}, rq.rshift = {ms.rshift}, rq.zpOut = 4;
  avgPoolInt8(s, x.data(), -6, rq, yavg.data());
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t oy = 0; oy < s.oh; ++oy)
      for (int64_t ox = 0; ox < s.ow; ++ox) {
        float best = -1000;
        int64_t sum = 0;
        for (int64_t ky = 0; ky < 3; ++ky)
          for (int64_t kx = 0; kx < 3; ++kx) {
            int64_t iy = oy * 2 - 1 + ky, ix = ox * 2 - 1 + kx;
            if (iy < 0 || iy >= 5 || ix < 0 || ix >= 5)
              continue;
            float v = x[(c * 5 + iy) * 5 + ix];
            best = std::max(best, v);
            sum += static_cast<int64_t>(v) + 6;
          }
        int64_t at = (c * s.oh + oy) * s.ow + ox;
        EXPECT_EQ(ymax[at], best);
        EXPECT_EQ(yavg[at], refRequant(sum, ms.multiplier, ms.rshift, 4, -128, 127));
      }
}

TEST(BinaryInt8, AddSubMulWithBroadcast) {
  std::mt19937 rng(11);
  std::vector<int64_t> outShape = {2, 3, 4};
  auto xa = randomCodes(rng, 24, -128, 127), xb = randomCodes(rng, 3, -128, 127); // b is [3, 1]
  BroadcastInput a{xa.data(), {2, 3, 4}, 7}, b{xb.data(), {3, 1}, -9};
  auto shared = *quant::chooseSharedShift(std::vector<double>{0.6, 0.35});
  int64_t m0 = shared.multipliers[0], m1 = shared.multipliers[1], rs = shared.rshift;
  auto mulMs = *quant::chooseMultiplierShift(0.004);
  for (int mode = 0; mode < 3; ++mode) {
    std::vector<float> y(24);
    if (mode < 2)
      addInt8(a, b, m0, m1, rs, mode == 1, outShape, -2, quant::IntType::Int8, quant::RoundingMode::HalfUp,
              /*relu=*/mode == 1, 100, y.data());
    else
      mulInt8(a, b, mulMs, outShape, -2, quant::IntType::Int8, quant::RoundingMode::HalfUp, false, 127, y.data());
    for (int64_t i = 0; i < 24; ++i) {
      int64_t va = static_cast<int64_t>(xa[i]) - 7, vb = static_cast<int64_t>(xb[(i / 4) % 3]) + 9;
      int64_t expect;
      if (mode < 2) {
        expect = refRequant(mode == 1 ? va * m0 - vb * m1 : va * m0 + vb * m1, 1, rs, -2, -128, 127);
        if (mode == 1)
          expect = std::min<int64_t>(std::max<int64_t>(expect, -2), 100);
      } else {
        expect = refRequant(va * vb, mulMs.multiplier, mulMs.rshift, -2, -128, 127);
      }
      EXPECT_EQ(y[i], expect) << "mode " << mode << " at " << i;
    }
  }
}

TEST(Conversions, LutRequantCastsAndHalfRounding) {
  // LUT of sigmoid from scale 0.05 to 1/255 uint8-like signed range: y = quantize(f(dequantize(x))).
  quant::QuantParams in{0.05, 0}, out{1.0 / 127, 0};
  Lut lut = buildLut([](double v, const void *) { return 1.0 / (1.0 + std::exp(-v)); }, nullptr, in,
                     quant::IntType::Int8, out, quant::IntType::Int8);
  std::vector<float> codes = {-128, -1, 0, 1, 127}, y(5);
  applyLut(lut, quant::IntType::Int8, codes.data(), 5, y.data());
  for (int i = 0; i < 5; ++i) {
    double real = 1.0 / (1.0 + std::exp(-codes[i] * 0.05));
    double q = std::round(real * 127); // half away from zero, inside the range
    EXPECT_EQ(y[i], std::min(q, 127.0)) << codes[i];
  }
  // requant_int of docs/quantization.md: scale 0.1 / zp -28 to 0.25 / zp 3: x = 100 -> 54.
  std::vector<float> x = {100, -128}, r(2);
  quant::MultiplierShift ms{1717986918, 32};
  requantInt(x.data(), 1, 1, 2, -28, {&ms, 1}, 3, quant::IntType::Int8, quant::RoundingMode::HalfUp, r.data());
  EXPECT_EQ(r[0], 54);
  EXPECT_EQ(r[1], refRequant(-128 + 28, ms.multiplier, ms.rshift, 3, -128, 127));
  // Casts: quantize half away from zero and saturate; dequantize (q - zp) * s.
  std::vector<float> f = {0.625f, -0.625f, 100.0f, 0.375f}, q(4), back(4);
  quantizeFloats(f.data(), 4, {0.25, 0}, quant::IntType::Int8, q.data());
  EXPECT_EQ(q, (std::vector<float>{3, -3, 127, 2}));
  dequantizeCodes(q.data(), 4, {0.25, 0}, back.data());
  EXPECT_EQ(back, (std::vector<float>{0.75f, -0.75f, 31.75f, 0.5f}));
  // f16 / bf16 round to nearest even (worked examples of docs/quantization.md).
  std::vector<float> h = {0.1f, 1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 65520.0f};
  roundHalf(h.data(), 4, Half::F16);
  EXPECT_EQ(h[0], 0.0999755859375f);
  EXPECT_EQ(h[1], 1.0f);
  EXPECT_EQ(h[2], 1.0f + 0x1p-9f);
  EXPECT_TRUE(std::isinf(h[3]));
  std::vector<float> bh = {0.1f, 1.0f + 3 * 0x1p-8f};
  roundHalf(bh.data(), 2, Half::BF16);
  EXPECT_EQ(bh[0], 0.10009765625f);
  EXPECT_EQ(bh[1], 1.0f + 0x1p-6f);
}

TEST(A16Matmul, GroupWiseDequantizationRoundedToHalf) {
  // The worked 4-bit example of docs/quantization.md: row [7,-3.5,1.75,0,-14,3,5,-1], group 4.
  std::vector<float> w = {7, -3.5f, 1.75f, 0, -14, 3, 5, -1};
  auto q = quant::quantizeWeightsGroupWise(w, 1, 8, {.bits = 4, .groupSize = 4, .symmetric = true});
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8.1f}, y(1);
  a16Matmul(1, 8, 1, x.data(), q, nullptr, Half::F16, y.data());
  // Dequantized [7, -4, 2, 0, -14, 4, 6, -2]: 7 - 8 + 6 + 0 - 70 + 24 + 42 - 16.2 = -15.2 -> f16.
  EXPECT_EQ(y[0], quant::roundToF16(-15.2f));
}

} // namespace
