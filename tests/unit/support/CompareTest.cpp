//===- CompareTest.cpp - npz_tool-style compare metrics, hand-worked ------===//

#include "tpuc/Simulator/Compare.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

using namespace tpuc;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor f32(std::vector<float> values) {
  int64_t n = static_cast<int64_t>(values.size());
  return Tensor::fromValues<float>({n}, values);
}

TensorComparison cmp(const Tensor &t, const Tensor &r,
                     CompareTolerance tol = {}) {
  return compareTensors(t, r, tol, "x");
}

} // namespace

TEST(Compare, EqualIdenticalValues) {
  auto r = cmp(f32({1, 2, 3}), f32({1, 2, 3}));
  EXPECT_EQ(r.status, CompareStatus::Equal);
  EXPECT_TRUE(r.passed());
  EXPECT_DOUBLE_EQ(r.metrics.cosine, 1.0);
  EXPECT_DOUBLE_EQ(r.metrics.euclidean, 1.0);
  EXPECT_EQ(r.metrics.sqnr, kInf);
  EXPECT_EQ(r.metrics.maxAbsDiff, 0.0);
  EXPECT_EQ(r.metrics.closeOrder, 5);
  EXPECT_EQ(r.note, "");
  // -0 equals +0, values equal across dtypes.
  EXPECT_EQ(cmp(f32({-0.0f}), f32({0.0f})).status, CompareStatus::Equal);
  EXPECT_EQ(cmp(Tensor::fromValues<int8_t>({3}, {1, 2, 3}), f32({1, 2, 3}))
                .status,
            CompareStatus::Equal);
  // Empty tensors are equal.
  EXPECT_EQ(cmp(Tensor(DType::F32, {0, 4}), Tensor(DType::F16, {0, 4})).status,
            CompareStatus::Equal);
}

TEST(Compare, CloseReportsTheOrder) {
  // |diff| = 1e-4 at |r| ~ 4: passes rtol 1e-4 (4e-4), fails 1e-5 (4e-5).
  auto r = cmp(f32({1, 2, 3, 4}), f32({1, 2, 3, 4.0001f}));
  EXPECT_EQ(r.status, CompareStatus::Close);
  EXPECT_EQ(r.metrics.closeOrder, 4);
  EXPECT_NEAR(r.metrics.maxAbsDiff, 1e-4, 1e-6);
  EXPECT_EQ(r.metrics.maxDiffIndex, 3);
  // Order 2 (1e-2) holds but is below the default closeOrder 3.
  auto s = cmp(f32({1.005f, 2}), f32({1, 2}));
  EXPECT_EQ(s.metrics.closeOrder, 2);
  EXPECT_NE(s.status, CompareStatus::Close);
}

TEST(Compare, HandWorkedSimilarity) {
  // t = [3,4], r = [4,3]: cos = 24/25; |t-r| = sqrt2, |(t+r)/2| = 3.5 sqrt2,
  // euc = 1 - 2/7; var(r) = 0.5, var(t-r) = 2 -> sqnr = 10 log10(1/4).
  auto r = cmp(f32({3, 4}), f32({4, 3}));
  EXPECT_NEAR(r.metrics.cosine, 0.96, 1e-12);
  EXPECT_NEAR(r.metrics.euclidean, 5.0 / 7.0, 1e-12);
  EXPECT_NEAR(r.metrics.sqnr, 10 * std::log10(0.25), 1e-9);
  EXPECT_EQ(r.status, CompareStatus::NotSimilar);
  CompareTolerance loose;
  loose.cosine = 0.96;
  loose.euclidean = 0.7;
  EXPECT_EQ(cmp(f32({3, 4}), f32({4, 3}), loose).status,
            CompareStatus::Similar);
  loose.minSqnr = 0.0; // -6 dB is below
  EXPECT_EQ(cmp(f32({3, 4}), f32({4, 3}), loose).status,
            CompareStatus::NotSimilar);
}

TEST(Compare, HandWorkedSqnr) {
  // noise = [0.1,0,0,0]: mean .025, var .0075; var(r) = 5.
  auto r = cmp(f32({1.1f, 2, 3, 4}), f32({1, 2, 3, 4}));
  EXPECT_NEAR(r.metrics.sqnr, 10 * std::log10(5 / 0.0075), 1e-4);
  EXPECT_NEAR(r.metrics.cosine, 30.1 / std::sqrt(30.21 * 30), 1e-6);
  EXPECT_NEAR(r.metrics.euclidean, 1 - 0.1 / std::sqrt(30.1025), 1e-6);
  EXPECT_NEAR(r.metrics.meanAbsDiff, 0.025, 1e-6);
  EXPECT_EQ(r.metrics.closeOrder, 0);
  EXPECT_EQ(r.status, CompareStatus::NotSimilar); // euc 0.9818 < 0.99
  auto tol = CompareTolerance::parse("0.99,0.98");
  ASSERT_TRUE(tol);
  EXPECT_EQ(cmp(f32({1.1f, 2, 3, 4}), f32({1, 2, 3, 4}), *tol).status,
            CompareStatus::Similar);
}

TEST(Compare, OrthogonalAndZeroTensors) {
  auto r = cmp(f32({1, 0}), f32({0, 1}));
  EXPECT_DOUBLE_EQ(r.metrics.cosine, 0.0);
  EXPECT_NEAR(r.metrics.euclidean, -1.0, 1e-12);
  EXPECT_NEAR(r.metrics.sqnr, 10 * std::log10(0.5 / 2), 1e-9);
  // One side all zero: cos 0, euc 1 - sqrt5 / (sqrt5 / 2) = -1.
  auto z = cmp(f32({0, 0}), f32({1, 2}));
  EXPECT_DOUBLE_EQ(z.metrics.cosine, 0.0);
  EXPECT_NEAR(z.metrics.euclidean, -1.0, 1e-12);
  EXPECT_EQ(z.status, CompareStatus::NotSimilar);
  // t = -r: the mean is zero, euclidean similarity is -inf.
  auto neg = cmp(f32({1, 2}), f32({-1, -2}));
  EXPECT_DOUBLE_EQ(neg.metrics.cosine, -1.0);
  EXPECT_EQ(neg.metrics.euclidean, -kInf);
  // A constant reference with a varying error: sqnr -inf.
  EXPECT_EQ(cmp(f32({1, 3}), f32({2, 2})).metrics.sqnr, -kInf);
  // A constant bias only: no noise variance, sqnr +inf.
  EXPECT_EQ(cmp(f32({2, 3}), f32({1, 2})).metrics.sqnr, kInf);
}

TEST(Compare, NaNAndInf) {
  auto same = cmp(f32({NAN, INFINITY, 1}), f32({NAN, INFINITY, 1}));
  EXPECT_EQ(same.status, CompareStatus::Equal);
  EXPECT_EQ(same.metrics.targetNonFinite, 2);
  auto nan = cmp(f32({NAN, 1, 2}), f32({0, 1, 2}));
  EXPECT_EQ(nan.status, CompareStatus::NotSimilar);
  EXPECT_EQ(nan.metrics.nonFiniteMismatches, 1);
  EXPECT_EQ(nan.note, "1 position(s) where NaN/Inf values differ");
  EXPECT_DOUBLE_EQ(nan.metrics.cosine, 1.0); // over the finite pairs
  auto inf = cmp(f32({INFINITY, 1}), f32({-INFINITY, 1}));
  EXPECT_EQ(inf.status, CompareStatus::NotSimilar);
  // Matching non-finite values are left out of the metrics.
  auto close = cmp(f32({INFINITY, 1, 2}), f32({INFINITY, 1, 2.0001f}));
  EXPECT_EQ(close.status, CompareStatus::Close);
  EXPECT_EQ(close.metrics.closeOrder, 4);
  EXPECT_TRUE(std::isfinite(close.metrics.cosine));
  (void)kNaN;
}

TEST(Compare, ShapesAndDTypes) {
  Tensor a = Tensor::fromValues<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = Tensor::fromValues<float>({6}, {1, 2, 3, 4, 5, 6});
  auto flat = cmp(a, b);
  EXPECT_EQ(flat.status, CompareStatus::Equal);
  EXPECT_EQ(flat.note, "shapes (2, 3) and (6,) differ; compared as flat arrays");
  auto bad = cmp(a, f32({1, 2, 3, 4, 5}));
  EXPECT_EQ(bad.status, CompareStatus::Mismatch);
  EXPECT_FALSE(bad.passed());
  EXPECT_EQ(bad.note, "shapes (2, 3) and (5,) differ in element count");
  // bf16 kept as u16 in npz: decoded as bf16 unless told otherwise.
  Tensor u16 = Tensor::fromValues<uint16_t>({2}, {0x3f80, 0x4000}); // 1, 2
  EXPECT_EQ(cmp(u16, f32({1, 2})).status, CompareStatus::Equal);
  CompareTolerance raw;
  raw.u16AsBF16 = false;
  EXPECT_EQ(cmp(u16, f32({16256, 16384}), raw).status, CompareStatus::Equal);
  Tensor half = Tensor::fromValues<uint16_t>({1}, {0x3c00}).reinterpret(
      DType::F16);
  EXPECT_EQ(cmp(half, f32({1})).status, CompareStatus::Equal);
}

TEST(Compare, ToleranceParsing) {
  auto t = CompareTolerance::parse(" 0.9, 0.8 ");
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->cosine, 0.9);
  EXPECT_DOUBLE_EQ(t->euclidean, 0.8);
  for (const char *bad : {"0.9", "a,b", "0.9,0.8,0.7", "", "0.9,inf"})
    EXPECT_FALSE(CompareTolerance::parse(bad)) << bad;
  EXPECT_EQ(compareStatusName(CompareStatus::NotSimilar), "NOT_SIMILAR");
}

namespace {

NpzComparison sampleComparison() {
  NpzFile target, reference;
  target.set("conv", f32({1, 2, 3}));
  target.set("relu", f32({3, 4}));
  target.set("only_t", f32({1}));
  target.set("skip", f32({1}));
  target.set("add", f32({1, 2, 3, 4}));
  reference.set("add", f32({1, 2, 3, 4.0001f}));
  reference.set("relu", f32({4, 3}));
  reference.set("conv", f32({1, 2, 3}));
  reference.set("skip", f32({9}));
  reference.set("only_r", f32({1}));
  NpzComparison c = compareNpz(target, reference, {}, {"skip"});
  c.targetName = "a.npz";
  c.referenceName = "b.npz";
  return c;
}

} // namespace

TEST(CompareNpz, OrderCountsAndLists) {
  NpzComparison c = sampleComparison();
  ASSERT_EQ(c.results.size(), 3u);
  EXPECT_EQ(c.results[0].name, "conv"); // target order
  EXPECT_EQ(c.results[1].name, "relu");
  EXPECT_EQ(c.results[2].name, "add");
  EXPECT_EQ(c.onlyInTarget, std::vector<std::string>{"only_t"});
  EXPECT_EQ(c.onlyInReference, std::vector<std::string>{"only_r"});
  EXPECT_EQ(c.excepted, std::vector<std::string>{"skip"});
  EXPECT_EQ(c.passedCount(), 2);
  EXPECT_EQ(c.failedCount(), 1);
  EXPECT_EQ(c.count(CompareStatus::Close), 1);
  EXPECT_FALSE(c.allPassed());
  EXPECT_NEAR(c.minSimilarity().cosine, 0.96, 1e-12);
  EXPECT_FALSE(NpzComparison{}.allPassed()); // nothing compared
}

TEST(CompareNpz, TextCsvJson) {
  NpzComparison c = sampleComparison();
  std::string text = formatCompareText(c, /*verbose=*/true);
  EXPECT_NE(text.find("Target    a.npz\n"), std::string::npos);
  EXPECT_NE(text.find("conv                              EQUAL        PASSED"),
            std::string::npos);
  EXPECT_NE(text.find("relu                              NOT_SIMILAR  FAILED"
                      "   0.960000   0.714286  -6.020600      1.000000"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    (2,) f32 vs (2,) f32, close order 0"),
            std::string::npos);
  EXPECT_NE(text.find("3 compared\n2 passed\n  1 equal, 1 close, 0 similar\n"
                      "1 failed\n  1 not similar, 0 mismatched\n"),
            std::string::npos);
  EXPECT_NE(text.find("only in target (1): only_t\n"), std::string::npos);
  EXPECT_NE(text.find("excepted (1): skip\n"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 20), "npz compare FAILED.\n");

  std::string csv = formatCompareCsv(c);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "name,status,pass,cosine,euclidean,sqnr,max_abs_diff,"
            "mean_abs_diff,close_order,target_shape,reference_shape,"
            "target_dtype,reference_dtype,note");
  EXPECT_NE(csv.find("\nconv,EQUAL,true,1.000000,1.000000,inf,0.000000,"
                     "0.000000,5,\"(3,)\",\"(3,)\",f32,f32,\n"),
            std::string::npos)
      << csv;

  auto json = nlohmann::json::parse(formatCompareJson(c));
  EXPECT_EQ(json["target"], "a.npz");
  EXPECT_EQ(json["results"].size(), 3u);
  EXPECT_EQ(json["results"][0]["sqnr"], "inf");
  EXPECT_EQ(json["results"][1]["status"], "NOT_SIMILAR");
  EXPECT_NEAR(json["results"][1]["cosine"].get<double>(), 0.96, 1e-12);
  EXPECT_EQ(json["summary"]["failed"], 1);
  EXPECT_EQ(json["summary"]["only_in_reference"][0], "only_r");
  EXPECT_EQ(json["summary"]["all_passed"], false);
}
