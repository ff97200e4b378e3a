//===- CalibrationTest.cpp - Streaming statistics and threshold methods ---===//
//
// Distributions with known answers: uniform data (max and kl land at the
// max), Gaussian and Laplace data (aciq and mse land at the analytic
// MSE-optimal clip, computed here by numeric minimisation), and a heavy
// outlier (percentile and kl clip it, max does not). Plus order/merge
// invariance of the streamed summary and a hand-worked KL histogram.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Quant/Arith.h"
#include "tpuc/Quant/Calibration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <thread>

using namespace tpuc::quant;

namespace {

std::vector<float> uniform(size_t n, float lo, float hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> out(n);
  for (float &v : out)
    v = d(rng);
  return out;
}

std::vector<float> gaussian(size_t n, double sigma, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(0.0, sigma);
  std::vector<float> out(n);
  for (float &v : out)
    v = static_cast<float>(d(rng));
  return out;
}

std::vector<float> laplace(size_t n, double b, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-0.5, 0.5);
  std::vector<float> out(n);
  for (float &v : out) {
    double u = d(rng);
    v = static_cast<float>(-b * std::copysign(1.0, u) *
                           std::log(1 - 2 * std::fabs(u)));
  }
  return out;
}

TensorStatistics statsOf(const std::vector<float> &values,
                         size_t batch = 10000) {
  TensorStatistics s;
  for (size_t i = 0; i < values.size(); i += batch)
    s.add(std::span<const float>(values).subspan(
        i, std::min(batch, values.size() - i)));
  return s;
}

/// Golden-section minimisation on [lo, hi].
template <typename Fn> double argmin(Fn f, double lo, double hi) {
  const double g = (std::sqrt(5.0) - 1) / 2;
  for (int i = 0; i < 200; ++i) {
    double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    (f(a) < f(b) ? hi : lo) = (f(a) < f(b) ? b : a);
  }
  return (lo + hi) / 2;
}

/// Expected squared error of clipping at alpha plus 8-bit uniform noise
/// alpha^2 / (3 * 4^8), for N(0, 1).
double gaussianMse(double alpha) {
  double phi = std::exp(-alpha * alpha / 2) / std::sqrt(2 * std::numbers::pi);
  double tail = 0.5 * std::erfc(alpha / std::sqrt(2.0));
  double clip = 2 * ((1 + alpha * alpha) * tail - alpha * phi);
  return clip + alpha * alpha / (3 * std::pow(4.0, 8));
}

/// The same for Laplace(0, 1): clipping error 2 e^-alpha.
double laplaceMse(double alpha) {
  return 2 * std::exp(-alpha) + alpha * alpha / (3 * std::pow(4.0, 8));
}

TEST(TensorStatisticsTest, MomentsCountsAndHistogramWidth) {
  TensorStatistics s;
  std::vector<float> v = {1, -2, 0, 3, NAN, INFINITY};
  s.add(v);
  EXPECT_EQ(s.count(), 4);
  EXPECT_EQ(s.zeroCount(), 1);
  EXPECT_EQ(s.nonFiniteCount(), 2);
  EXPECT_EQ(s.min(), -2);
  EXPECT_EQ(s.max(), 3);
  EXPECT_EQ(s.absMax(), 3);
  EXPECT_DOUBLE_EQ(s.mean(), 0.5);
  EXPECT_NEAR(s.stddev(), std::sqrt(13.0 / 4), 1e-12);
  // 4096 fine bins; the smallest power of two w with 3 < 4096 w is 2^-10.
  EXPECT_EQ(s.positiveHistogram().size(), 4096u);
  EXPECT_EQ(s.binWidth(), std::ldexp(1.0, -10));
  EXPECT_EQ(s.positiveHistogram()[1024], 1); // 1.0 / 2^-10
  EXPECT_EQ(s.positiveHistogram()[3072], 1); // 3.0
  EXPECT_EQ(s.negativeHistogram()[2048], 1); // |-2|
  // A later, wider sample doubles the width: 10 < 4096 * 2^-8.
  std::vector<float> wide = {10};
  s.add(wide);
  EXPECT_EQ(s.binWidth(), std::ldexp(1.0, -8));
  EXPECT_EQ(s.positiveHistogram()[256], 1);  // 1.0 re-binned
  EXPECT_EQ(s.positiveHistogram()[768], 1);  // 3.0 re-binned
  EXPECT_EQ(s.positiveHistogram()[2560], 1); // 10.0
  EXPECT_EQ(s.negativeHistogram()[512], 1);
  EXPECT_THROW(TensorStatistics(1), std::invalid_argument);
}

TEST(TensorStatisticsTest, OrderBatchingAndThreadedMergeDoNotMatter) {
  // Batches whose range grows, so the histogram is re-binned several times.
  std::vector<std::vector<float>> batches;
  for (int i = 0; i < 24; ++i)
    batches.push_back(gaussian(5000, 0.01 * std::pow(1.6, i), 100 + i));

  TensorStatistics forward, backward;
  for (const auto &b : batches)
    forward.add(b);
  for (auto it = batches.rbegin(); it != batches.rend(); ++it)
    backward.add(*it);

  // Three threads, each with its own summary, merged at the end.
  std::vector<TensorStatistics> partial(3);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 3; ++t)
    threads.emplace_back([&, t] {
      for (size_t i = t; i < batches.size(); i += 3)
        partial[t].add(batches[i]);
    });
  for (std::thread &t : threads)
    t.join();
  TensorStatistics merged;
  merged.merge(partial[2]);
  merged.merge(partial[0]);
  merged.merge(partial[1]);

  for (const TensorStatistics *s : {&backward, &merged}) {
    EXPECT_EQ(s->count(), forward.count());
    EXPECT_EQ(s->min(), forward.min());
    EXPECT_EQ(s->max(), forward.max());
    EXPECT_EQ(s->binWidth(), forward.binWidth());
    EXPECT_TRUE(std::ranges::equal(s->positiveHistogram(),
                                   forward.positiveHistogram()));
    EXPECT_TRUE(std::ranges::equal(s->negativeHistogram(),
                                   forward.negativeHistogram()));
    EXPECT_NEAR(s->mean(), forward.mean(), 1e-9);
    EXPECT_NEAR(s->stddev(), forward.stddev(), 1e-9 * forward.stddev());
    for (CalibrationMethod m :
         {CalibrationMethod::KL, CalibrationMethod::MSE, CalibrationMethod::Max,
          CalibrationMethod::Percentile9999})
      EXPECT_EQ(computeThreshold(*s, m), computeThreshold(forward, m))
          << calibrationMethodName(m);
  }
  // Memory is bounded by the bin count, not by the 120000 values seen.
  EXPECT_EQ(merged.positiveHistogram().size(),
            static_cast<size_t>(TensorStatistics::kOversample *
                                kDefaultHistogramBins));
  TensorStatistics other(1024);
  EXPECT_THROW(merged.merge(other), std::invalid_argument);
}

TEST(KlThresholdTest, HandWorkedHistogram) {
  // hist [6, 2, 1, 0], width 0.5, 2 target bins. Candidates:
  //  i=2: P = [6/9, 3/9], Q = [6/8, 2/8]:
  //       KL = 6/9 log10(8/9) + 3/9 log10(4/3) = 0.00754
  //  i=4: P = [6, 2, 1, 0]/9, Q = [4/9, 4/9, 1/9, 0]:
  //       KL = 6/9 log10(1.5) + 2/9 log10(0.5) = 0.05050
  // i=2 wins: threshold = 2 * 0.5 = 1.0.
  std::vector<double> h = {6, 2, 1, 0};
  EXPECT_DOUBLE_EQ(klThreshold(h, 0.5, 2), 1.0);
  // Spread evenly within groups, the full range has KL 0 and wins: 4 * 0.5.
  std::vector<double> flat = {4, 4, 1, 1};
  EXPECT_DOUBLE_EQ(klThreshold(flat, 0.5, 2), 2.0);
  // An empty histogram keeps the full range.
  std::vector<double> empty = {0, 0, 0, 0};
  EXPECT_DOUBLE_EQ(klThreshold(empty, 0.5, 2), 2.0);
}

TEST(TensorStatisticsTest, TpuMlirHistogramLayout) {
  // Values 1..1000 (and negatives): absMax 1000, W = 1000 / 2047; every value
  // lands within one bin of round(|x| / W).
  std::vector<float> v;
  for (int i = 1; i <= 1000; ++i) {
    v.push_back(static_cast<float>(i));
    v.push_back(-static_cast<float>(i));
  }
  TensorStatistics s;
  s.add(v);
  double w = 0;
  std::vector<double> h = s.tpuMlirHistogram(w);
  EXPECT_DOUBLE_EQ(w, 1000.0 / 2047);
  double total = 0;
  for (double c : h)
    total += c;
  EXPECT_NEAR(total, 2000, 1e-6); // Mass is conserved.
  // ... and stays where it was: sum h_j * j * W ~ sum |x| = 1001000 (each
  // value moves by at most a fine bin plus half a target bin).
  double moment = 0;
  for (size_t j = 0; j < h.size(); ++j)
    moment += h[j] * static_cast<double>(j) * w;
  EXPECT_NEAR(moment, 1001000.0, 2000 * (0.25 + w / 2));
  // +-100 (fine bin [100, 100.25) = [204.70 W, 205.21 W)) fills bin 205
  // alone; bin 204 ([99.41, 99.90)) holds no value.
  EXPECT_NEAR(h[205], 2.0, 1e-9);
  EXPECT_EQ(h[204], 0.0);
  EXPECT_GT(h[2047], 0);
  EXPECT_EQ(h[0], 0);
}

TEST(CalibrationMethodTest, NamesRoundTrip) {
  for (CalibrationMethod m :
       {CalibrationMethod::KL, CalibrationMethod::MSE, CalibrationMethod::Max,
        CalibrationMethod::Percentile9999, CalibrationMethod::AciqGauss,
        CalibrationMethod::AciqLaplace})
    EXPECT_EQ(parseCalibrationMethod(calibrationMethodName(m)), m);
  EXPECT_EQ(parseCalibrationMethod("use_percentile9999"),
            CalibrationMethod::Percentile9999);
  EXPECT_FALSE(parseCalibrationMethod("entropy").has_value());
}

TEST(CalibrationMethodTest, UniformDataKeepsTheMax) {
  TensorStatistics s = statsOf(uniform(1000000, -1.0f, 1.0f, 1));
  double max = s.absMax();
  EXPECT_NEAR(max, 1.0, 1e-4);
  EXPECT_EQ(computeThreshold(s, CalibrationMethod::Max), max);
  EXPECT_NEAR(computeThreshold(s, CalibrationMethod::KL), max, 0.01 * max);
  EXPECT_NEAR(computeThreshold(s, CalibrationMethod::Percentile9999), 0.9999,
              1e-3);
  // OCTAV on U(0, 1) magnitudes: eps ~ sqrt(2 * 4^-8 / 3) below the max.
  double mse = computeThreshold(s, CalibrationMethod::MSE);
  EXPECT_GT(mse, 0.99);
  EXPECT_LE(mse, max);
  // aciq_gauss asks for 3.92 sigma = 2.26: capped at the max.
  EXPECT_EQ(computeThreshold(s, CalibrationMethod::AciqGauss), max);
}

TEST(CalibrationMethodTest, GaussianDataMatchesTheAnalyticOptimum) {
  double optimum = argmin(gaussianMse, 1.0, 8.0); // Close to 3.92.
  EXPECT_NEAR(optimum, 3.92403337, 0.02);
  TensorStatistics s = statsOf(gaussian(1000000, 2.0, 2));
  double aciq = computeThreshold(s, CalibrationMethod::AciqGauss);
  EXPECT_NEAR(aciq, 2.0 * optimum, 0.02 * 2.0 * optimum);
  double mse = computeThreshold(s, CalibrationMethod::MSE);
  EXPECT_NEAR(mse, 2.0 * optimum, 0.05 * 2.0 * optimum);
  double kl = computeThreshold(s, CalibrationMethod::KL);
  EXPECT_GT(kl, 2.0 * 2.5);
  EXPECT_LE(kl, s.absMax() * 1.001);
  // percentile9999 of |N(0, sigma)| is 3.89 sigma.
  EXPECT_NEAR(computeThreshold(s, CalibrationMethod::Percentile9999),
              2.0 * 3.8906, 0.03 * 2.0 * 3.8906);
}

TEST(CalibrationMethodTest, LaplaceDataMatchesTheAnalyticOptimum) {
  double optimum = argmin(laplaceMse, 1.0, 20.0); // Close to 9.89.
  EXPECT_NEAR(optimum, 9.89675982, 0.05);
  TensorStatistics s = statsOf(laplace(1000000, 0.5, 3));
  EXPECT_NEAR(s.meanAbsDeviation(), 0.5, 0.005);
  double aciq = computeThreshold(s, CalibrationMethod::AciqLaplace);
  EXPECT_NEAR(aciq, 0.5 * optimum, 0.02 * 0.5 * optimum);
  double mse = computeThreshold(s, CalibrationMethod::MSE);
  EXPECT_NEAR(mse, 0.5 * optimum, 0.05 * 0.5 * optimum);
}

TEST(CalibrationMethodTest, HeavyOutlierIsClippedByKlAndPercentileNotMax) {
  std::vector<float> v = gaussian(100000, 1.0, 4);
  v.push_back(1000.0f);
  TensorStatistics s = statsOf(v);
  EXPECT_EQ(computeThreshold(s, CalibrationMethod::Max), 1000.0);
  EXPECT_LT(computeThreshold(s, CalibrationMethod::KL), 100.0);
  EXPECT_LT(computeThreshold(s, CalibrationMethod::Percentile9999), 6.0);
  // MSE keeps it: clipping a 1000-sigma value in 1e5 costs ~996^2 / 1e5 = 9.9
  // per element, more than the rounding noise of the full range,
  // 667^2 / (3 * 4^8) = 2.3. OCTAV finds that far fixed point (1000 / 1.5).
  EXPECT_NEAR(computeThreshold(s, CalibrationMethod::MSE), 1000.0 / 1.5, 5.0);
}

TEST(CalibrationMethodTest, DegenerateTensorsGetTheMinimumThreshold) {
  TensorStatistics empty;
  std::vector<float> zeros(100, 0.0f);
  TensorStatistics allZero;
  allZero.add(zeros);
  for (CalibrationMethod m :
       {CalibrationMethod::KL, CalibrationMethod::MSE, CalibrationMethod::Max,
        CalibrationMethod::Percentile9999, CalibrationMethod::AciqGauss,
        CalibrationMethod::AciqLaplace}) {
    EXPECT_EQ(computeThreshold(empty, m), kMinThreshold);
    EXPECT_EQ(computeThreshold(allZero, m), kMinThreshold);
  }
  // A constant tensor: every method gives (at most) the constant.
  std::vector<float> constant(1000, 0.5f);
  TensorStatistics c;
  c.add(constant);
  EXPECT_EQ(computeThreshold(c, CalibrationMethod::Max), 0.5);
  EXPECT_LE(computeThreshold(c, CalibrationMethod::KL), 0.5);
  EXPECT_NEAR(computeThreshold(c, CalibrationMethod::Percentile9999), 0.5,
              0.5 / 2048);
  EXPECT_THROW(computeThreshold(c, CalibrationMethod::Max, 16),
               std::invalid_argument);
}

TEST(ActivationStatisticsTest, KeepsGraphOrderAndMerges) {
  ActivationStatistics a, b;
  std::vector<float> x = {1, 2, 3}, y = {-4, 4}, z = {0.5f};
  a.add("conv1", x);
  a.add("relu1", x);
  b.add("fc", y);
  b.add("conv1", y);
  a.merge(b);
  EXPECT_EQ(a.names(), (std::vector<std::string>{"conv1", "relu1", "fc"}));
  const TensorStatistics *conv = a.find("conv1");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->count(), 5);
  EXPECT_EQ(conv->min(), -4);
  EXPECT_EQ(a.find("missing"), nullptr);
  std::vector<CalibrationEntry> table = a.thresholds(CalibrationMethod::Max);
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(table[0], (CalibrationEntry{"conv1", 4.0, -4.0, 4.0}));
  EXPECT_EQ(table[1], (CalibrationEntry{"relu1", 3.0, 1.0, 3.0}));
}

} // namespace
