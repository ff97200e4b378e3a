//===- ThresholdSearchTest.cpp - search_threshold's per-tensor choice -----===//
//
// The fake-quantization sums against a hand-worked example and a direct
// double-precision loop, their bit-for-bit independence from sample order and
// merge grouping, and the choice on distributions with known answers: a
// tensor already on max's grid and one dominated by an outlier (max wins),
// Laplace data (octav, the MSE-optimal clip, beats max and kl by dB), the tune
// step lifting kl towards the outlier.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Quant/Arith.h"
#include "tpuc/Quant/ThresholdSearch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <thread>

using namespace tpuc::quant;

namespace {

/// Statistics and search of one tensor "t" over `values` in batches of `batch`.
struct OneTensor {
  ActivationStatistics stats;
  std::optional<ThresholdSearch> search;
  OneTensor(const std::vector<float> &values, size_t batch = 10000) {
    std::span<const float> all(values);
    for (size_t i = 0; i < values.size(); i += batch)
      stats.add("t", all.subspan(i, std::min(batch, values.size() - i)));
    search.emplace(stats);
    for (size_t i = 0; i < values.size(); i += batch)
      search->add("t", all.subspan(i, std::min(batch, values.size() - i)));
  }
  ThresholdChoice choose(SearchMetric metric) const { return search->choose(metric).at(0); }
};

const CandidateScore &finalist(const ThresholdChoice &c, SearchCandidate which) {
  for (size_t i = 0; i < kSearchCandidates.size(); ++i)
    if (kSearchCandidates[i] == which)
      return c.finalists[i];
  throw std::logic_error("no such finalist");
}

const CandidateScore &measured(const ThresholdChoice &c, const std::string &label) {
  for (const CandidateScore &s : c.measured)
    if (s.label == label)
      return s;
  throw std::logic_error("not measured: " + label);
}

std::vector<float> laplace(size_t n, double b, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-0.5, 0.5);
  std::vector<float> out(n);
  for (float &v : out) {
    double u = d(rng);
    v = static_cast<float>(-b * std::copysign(1.0, u) * std::log(1 - 2 * std::fabs(u)));
  }
  return out;
}

std::vector<float> gaussian(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(0.0, 1.0);
  std::vector<float> out(n);
  for (float &v : out)
    v = static_cast<float>(d(rng));
  return out;
}

} // namespace

TEST(ThresholdSearchTest, NamesAndMethods) {
  EXPECT_EQ(parseSearchMetric("cos"), SearchMetric::Cosine);
  EXPECT_EQ(parseSearchMetric("snr"), SearchMetric::Snr);
  EXPECT_FALSE(parseSearchMetric("mse"));
  EXPECT_EQ(searchMetricName(SearchMetric::Snr), "snr");
  EXPECT_EQ(searchCandidateName(SearchCandidate::KlTune), "kl_tune");
  EXPECT_EQ(searchCandidateName(SearchCandidate::Octav), "octav");
  EXPECT_EQ(searchCandidateMethod(SearchCandidate::Octav), CalibrationMethod::MSE);
  EXPECT_EQ(searchCandidateMethod(SearchCandidate::KlTune), CalibrationMethod::KL);
  EXPECT_EQ(searchCandidateMethod(SearchCandidate::Percentile9999), CalibrationMethod::Percentile9999);
}

// docs/quantization.md, section 8: x = [1, -2, 0.5, 0] at threshold 127 (step 1): q = [1, -2, 0, 0] (0.5
// rounds to the even 0), errors [0, 0, 0.5, 0]; Σx² = 5.25, Σe² = 0.25, Σxe = 0.25, so Σxq = 5 and
// Σq² = 5: cos = 5 / sqrt(5.25 · 5) = 0.9759, SNR = 10 log10(21) = 13.222 dB. At threshold 127/128
// (step 1/128): 1 → code 128, clamped to 127 (error 1/128); -2 → -256, clamped to -128 (q = -1, error -1).
TEST(FakeQuantErrorsTest, HandWorkedSums) {
  std::vector<float> x = {1.0f, -2.0f, 0.5f, 0.0f};
  FakeQuantErrors e({127.0, 127.0 / 128.0, 127.0 / 64.0}, 4 * 4.0);
  e.add(x);
  EXPECT_DOUBLE_EQ(e.signalEnergy(), 5.25);
  EXPECT_DOUBLE_EQ(e.squaredError(0), 0.25);
  EXPECT_NEAR(e.cosine(0), 5.0 / std::sqrt(26.25), 1e-15);
  EXPECT_NEAR(e.snrDb(0), 10 * std::log10(21.0), 1e-12);
  EXPECT_DOUBLE_EQ(e.squaredError(1), 1.0 + 1.0 / 16384);
  // Step 1/64: every value is on the grid (-2 is code -128), no error at all.
  EXPECT_EQ(e.squaredError(2), 0.0);
  EXPECT_EQ(e.cosine(2), 1.0);
  EXPECT_EQ(e.snrDb(2), std::numeric_limits<double>::infinity());
  EXPECT_EQ(e.score(2, SearchMetric::Cosine), 1.0);
}

TEST(FakeQuantErrorsTest, MatchesADirectLoopAndSkipsNonFinite) {
  std::vector<float> x = laplace(100003, 0.7, 5); // not a multiple of the lane count
  x[17] = std::numeric_limits<float>::quiet_NaN();
  x[99] = std::numeric_limits<float>::infinity();
  std::vector<double> thresholds = {0.5, 2.0, 6.5, 9.0};
  FakeQuantErrors e(thresholds, 100003 * 100.0);
  e.add(x);
  for (size_t i = 0; i < thresholds.size(); ++i) {
    double s = thresholds[i] / 127, energy = 0, err = 0, xq = 0, q2 = 0;
    for (float v : x) {
      if (!std::isfinite(v))
        continue;
      double q = std::clamp(std::nearbyint(v / s), -128.0, 127.0) * s;
      energy += double(v) * v;
      err += (v - q) * (v - q);
      xq += v * q;
      q2 += q * q;
    }
    EXPECT_NEAR(e.signalEnergy(), energy, 1e-9 * energy);
    EXPECT_NEAR(e.squaredError(i), err, 1e-5 * err) << thresholds[i];
    EXPECT_NEAR(1 - e.cosine(i), 1 - xq / std::sqrt(energy * q2), 1e-4 * (1 - xq / std::sqrt(energy * q2)));
    EXPECT_NEAR(e.snrDb(i), 10 * std::log10(energy / err), 1e-4);
  }
}

// The totals are integers: any order of samples and any split among instances that merge give the same
// scores bit for bit, so the chosen thresholds do not depend on the thread count.
TEST(FakeQuantErrorsTest, OrderAndMergeDoNotMatter) {
  std::vector<float> x = gaussian(200000, 9);
  std::vector<double> thresholds = {1.0, 3.7, 4.5};
  double bound = 200000 * 25.0;
  std::span<const float> all(x);
  FakeQuantErrors forward(thresholds, bound), backward(thresholds, bound);
  for (size_t i = 0; i < x.size(); i += 1000)
    forward.add(all.subspan(i, 1000));
  for (size_t i = x.size(); i > 0; i -= 1000)
    backward.add(all.subspan(i - 1000, 1000));
  FakeQuantErrors a(thresholds, bound), b(thresholds, bound);
  std::thread ta([&] {
    for (size_t i = 0; i < x.size(); i += 2000)
      a.add(all.subspan(i, 1000));
  });
  std::thread tb([&] {
    for (size_t i = 1000; i < x.size(); i += 2000)
      b.add(all.subspan(i, 1000));
  });
  ta.join();
  tb.join();
  b.merge(a);
  for (size_t i = 0; i < thresholds.size(); ++i) {
    EXPECT_EQ(forward.squaredError(i), backward.squaredError(i));
    EXPECT_EQ(forward.cosine(i), backward.cosine(i));
    EXPECT_EQ(forward.squaredError(i), b.squaredError(i));
    EXPECT_EQ(forward.cosine(i), b.cosine(i));
    EXPECT_EQ(forward.snrDb(i), b.snrDb(i));
  }
  EXPECT_THROW(b.merge(FakeQuantErrors({1.0}, bound)), std::invalid_argument);
  EXPECT_THROW(FakeQuantErrors({0.0}, bound), std::invalid_argument);
}

// A tensor already on max's own grid (codes k · absMax / 127, e.g. a dequantized INT8 input): max
// reproduces it exactly, while octav, which models a rounding noise this tensor does not have, clips a
// little and loses. kl and percentile9999 land on absMax too; the tie goes to max.
TEST(ThresholdSearchTest, ValuesOnTheMaxGridKeepTheMax) {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int> code(-127, 127);
  std::vector<float> x(200000);
  for (float &v : x)
    v = static_cast<float>(code(rng)) * 0.02f;
  x[0] = 127 * 0.02f;
  OneTensor t(x);
  for (SearchMetric metric : {SearchMetric::Cosine, SearchMetric::Snr}) {
    ThresholdChoice c = t.choose(metric);
    EXPECT_EQ(c.chosen, SearchCandidate::Max) << searchMetricName(metric);
    EXPECT_FLOAT_EQ(c.threshold, 2.54f);
    EXPECT_EQ(finalist(c, SearchCandidate::Max).snrDb, std::numeric_limits<double>::infinity());
    EXPECT_LT(finalist(c, SearchCandidate::Octav).threshold, c.threshold);
    EXPECT_LT(finalist(c, SearchCandidate::Octav).snrDb, 70);
  }
}

// N(0, 1) with one value at 1000 among 10^5: the outlier carries ~90 % of the energy, so clipping it
// loses most of the signal. max wins by both metrics; the tune step lifts kl (~62) to the grid's last
// point (~906, +9 dB), still short of max. percentile9999 (~4) keeps a cosine of ~0.31.
TEST(ThresholdSearchTest, ADominantOutlierKeepsTheMaxAndTheTuneLiftsKl) {
  std::vector<float> x = gaussian(100000, 11);
  x[500] = 1000.0f;
  OneTensor t(x);
  for (SearchMetric metric : {SearchMetric::Cosine, SearchMetric::Snr}) {
    ThresholdChoice c = t.choose(metric);
    EXPECT_EQ(c.chosen, SearchCandidate::Max) << searchMetricName(metric);
    EXPECT_DOUBLE_EQ(c.threshold, 1000.0);
    const CandidateScore &kl = measured(c, "kl"), &tuned = finalist(c, SearchCandidate::KlTune);
    EXPECT_LT(kl.threshold, 100);
    EXPECT_EQ(tuned.threshold, measured(c, "kl_tune_9").threshold);
    EXPECT_GT(tuned.snrDb, kl.snrDb + 8);
    EXPECT_GT(finalist(c, SearchCandidate::Max).snrDb, tuned.snrDb);
    EXPECT_GT(finalist(c, SearchCandidate::Max).snrDb, finalist(c, SearchCandidate::Octav).snrDb + 2);
    EXPECT_LT(finalist(c, SearchCandidate::Percentile9999).cosine, 0.5);
  }
}

// Laplace(1), 10^6 values: the MSE-optimal int8 clip is near 9.9 b (docs/quantization.md, aciq), max
// (~17.7) wastes codes on a tail of a few dozen values and kl (~15.5) too. octav, the MSE fixed point,
// wins by both metrics, 3.7 dB above max and 2.6 dB above kl; the tune cannot help kl (every grid point
// lies above kl, further from the optimum).
TEST(ThresholdSearchTest, LaplaceDataPicksOctavOverMaxAndKl) {
  OneTensor t(laplace(1000000, 1.0, 1));
  for (SearchMetric metric : {SearchMetric::Cosine, SearchMetric::Snr}) {
    ThresholdChoice c = t.choose(metric);
    EXPECT_EQ(c.chosen, SearchCandidate::Octav) << searchMetricName(metric);
    EXPECT_NEAR(c.threshold, 9.9, 0.1 * 9.9);
    double snr = finalist(c, SearchCandidate::Octav).snrDb;
    EXPECT_GT(snr, finalist(c, SearchCandidate::Max).snrDb + 3);
    EXPECT_GT(snr, measured(c, "kl").snrDb + 2);
    EXPECT_EQ(finalist(c, SearchCandidate::KlTune).threshold, measured(c, "kl").threshold);
    EXPECT_EQ(c.score, metric == SearchMetric::Snr ? snr : finalist(c, SearchCandidate::Octav).cosine);
  }
}

TEST(ThresholdSearchTest, KeepsTheStatisticsOrderAndMerges) {
  ActivationStatistics stats;
  std::vector<float> a = gaussian(5000, 1), b = laplace(5000, 0.3, 2), zeros(100, 0.0f);
  stats.add("b", b);
  stats.add("a", a);
  stats.add("z", zeros);
  ThresholdSearch whole(stats), first(stats), second(stats);
  for (const auto &[name, v] : {std::pair{"b", &b}, {"a", &a}, {"z", &zeros}})
    whole.add(name, *v);
  first.add("b", b);
  first.add("unknown", a); // ignored
  second.add("a", a);
  second.add("z", zeros);
  second.merge(first);
  auto choices = whole.choose(SearchMetric::Cosine), merged = second.choose(SearchMetric::Cosine);
  ASSERT_EQ(choices.size(), 3u);
  EXPECT_EQ(choices[0].name, "b");
  EXPECT_EQ(choices[1].name, "a");
  for (size_t i = 0; i < choices.size(); ++i) {
    EXPECT_EQ(choices[i].chosen, merged[i].chosen);
    EXPECT_EQ(choices[i].threshold, merged[i].threshold);
    EXPECT_EQ(choices[i].score, merged[i].score);
    EXPECT_EQ(choices[i].measured.size(), static_cast<size_t>(kKlTuneSteps) + 3);
  }
  // An all-zero tensor: every candidate is the 1e-5 floor and reproduces it exactly; max takes the tie.
  EXPECT_EQ(choices[2].chosen, SearchCandidate::Max);
  EXPECT_EQ(choices[2].threshold, kMinThreshold);
  EXPECT_EQ(choices[2].score, 1.0);
  EXPECT_THROW(whole.merge(ThresholdSearch(ActivationStatistics())), std::invalid_argument);
}
