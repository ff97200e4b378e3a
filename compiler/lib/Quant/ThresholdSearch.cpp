//===- ThresholdSearch.cpp - run_calibration's --search search_threshold --===//

#include "tpuc/Quant/ThresholdSearch.h"

#include "tpuc/Quant/Arith.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace tpuc::quant {

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

std::string_view searchMetricName(SearchMetric metric) {
  return metric == SearchMetric::Snr ? "snr" : "cos";
}

std::optional<SearchMetric> parseSearchMetric(std::string_view name) {
  if (name == "cos")
    return SearchMetric::Cosine;
  if (name == "snr")
    return SearchMetric::Snr;
  return std::nullopt;
}

std::string_view searchCandidateName(SearchCandidate candidate) {
  switch (candidate) {
  case SearchCandidate::KlTune:
    return "kl_tune";
  case SearchCandidate::Octav:
    return "octav";
  case SearchCandidate::Max:
    return "max";
  case SearchCandidate::Percentile9999:
    return "percentile9999";
  }
  return "kl_tune";
}

CalibrationMethod searchCandidateMethod(SearchCandidate candidate) {
  switch (candidate) {
  case SearchCandidate::KlTune:
    return CalibrationMethod::KL;
  case SearchCandidate::Octav:
    return CalibrationMethod::MSE;
  case SearchCandidate::Max:
    return CalibrationMethod::Max;
  case SearchCandidate::Percentile9999:
    return CalibrationMethod::Percentile9999;
  }
  return CalibrationMethod::KL;
}

//===----------------------------------------------------------------------===//
// FakeQuantErrors
//===----------------------------------------------------------------------===//

namespace {

/// Fixed-point totals keep 120 bits below the bound's magnitude (plus 4 of
/// headroom for Σ(x - q)², at most about 4.1 Σ|x|² when thresholds do not
/// exceed absMax), well inside the 127 of a signed __int128.
constexpr int kFixedBits = 120;
constexpr int kHeadroomBits = 4;

/// Adding then subtracting 1.5 * 2^23 rounds a float of magnitude <= 2^22 to
/// the nearest integer, ties to even (the default rounding mode), in plain
/// vectorizable arithmetic.
constexpr float kRoundMagic = 12582912.0f;

/// Per-sample sums of one threshold: Σ(x - q)² and Σx(x - q).
struct SampleSums {
  double error2 = 0, crossError = 0;
};

/// Eight float lanes (GCC/Clang vector extension: two SSE registers on baseline x86-64). The lanes' partial
/// sums are flushed into double every block, so no float sum runs over more than kBlock / 8 terms, and the
/// order of every addition is fixed by this code, whatever the instruction set.
typedef float Lanes __attribute__((vector_size(32)));
constexpr size_t kLanes = sizeof(Lanes) / sizeof(float);

/// Adds the sums of the values `x` at every threshold to `sums` (one per threshold). Values are taken in
/// blocks of kBlock, each block read once for all thresholds (it stays in L1, where a pass per threshold
/// over a large tensor would go to memory each time).
[[gnu::always_inline]] inline void fakeQuantSumsBody(std::span<const float> x, std::span<const double> thresholds,
                                                     SampleSums *sums) {
  constexpr size_t kBlock = 1024;
  // x - q for one float or eight lanes (by reference: vector arguments would depend on the ABI).
  auto error = [](const auto &v, float inverse, float step, auto &e) {
    auto c = v * inverse;
    c = c < -128.0f ? -128.0f : c;
    c = c > 127.0f ? 127.0f : c;
    auto r = (c + kRoundMagic) - kRoundMagic;
    e = v - r * step;
  };
  size_t n = x.size(), full = n - n % kLanes;
  for (size_t begin = 0; begin < full; begin += kBlock) {
    size_t end = std::min(full, begin + kBlock);
    for (size_t t = 0; t < thresholds.size(); ++t) {
      auto inverse = static_cast<float>(127.0 / thresholds[t]);
      auto step = static_cast<float>(thresholds[t] / 127.0);
      Lanes e2 = {}, xe = {};
      for (size_t i = begin; i < end; i += kLanes) {
        Lanes v, e;
        std::memcpy(&v, x.data() + i, sizeof(v));
        error(v, inverse, step, e);
        e2 += e * e;
        xe += v * e;
      }
      for (size_t l = 0; l < kLanes; ++l) {
        sums[t].error2 += e2[l];
        sums[t].crossError += xe[l];
      }
    }
  }
  for (size_t t = 0; t < thresholds.size(); ++t) {
    auto inverse = static_cast<float>(127.0 / thresholds[t]);
    auto step = static_cast<float>(thresholds[t] / 127.0);
    for (size_t i = full; i < n; ++i) {
      float e;
      error(x[i], inverse, step, e);
      sums[t].error2 += e * e;
      sums[t].crossError += x[i] * e;
    }
  }
}

/// The same loop built for AVX2 (one register per eight lanes) and for baseline x86-64. Both perform the
/// same IEEE operations in the same order (no FMA in either), so their sums are equal bit for bit.
__attribute__((target("avx2"))) void fakeQuantSumsAvx2(std::span<const float> x, std::span<const double> thresholds,
                                                        SampleSums *sums) {
  fakeQuantSumsBody(x, thresholds, sums);
}
void fakeQuantSumsBaseline(std::span<const float> x, std::span<const double> thresholds, SampleSums *sums) {
  fakeQuantSumsBody(x, thresholds, sums);
}
void fakeQuantSums(std::span<const float> x, std::span<const double> thresholds, SampleSums *sums) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  avx2 ? fakeQuantSumsAvx2(x, thresholds, sums) : fakeQuantSumsBaseline(x, thresholds, sums);
}

} // namespace

FakeQuantErrors::FakeQuantErrors(std::vector<double> thresholdsIn, double bound)
    : thresholds(std::move(thresholdsIn)) {
  for (double t : thresholds)
    if (!(t > 0) || !std::isfinite(t))
      throw std::invalid_argument("fake-quantization threshold must be positive and finite, got " +
                                  std::to_string(t));
  if (!std::isfinite(bound))
    throw std::invalid_argument("fake-quantization error bound must be finite");
  unitExponent = std::ilogb(std::max(bound, DBL_MIN)) + 1 + kHeadroomBits - kFixedBits;
  error2.assign(thresholds.size(), 0);
  crossError.assign(thresholds.size(), 0);
}

__int128 FakeQuantErrors::toFixed(double value) const {
  double scaled = std::ldexp(value, -unitExponent);
  if (!(std::fabs(scaled) < 0x1p126))
    throw std::out_of_range("fake-quantization sums exceed the bound they were set up for");
  return static_cast<__int128>(scaled); // Truncation: deterministic per sample.
}

double FakeQuantErrors::toDouble(__int128 fixed) const {
  return std::ldexp(static_cast<double>(fixed), unitExponent);
}

void FakeQuantErrors::add(std::span<const float> values) {
  std::vector<float> finite;
  std::span<const float> x = values;
  if (!std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); })) {
    finite.reserve(values.size());
    for (float v : values)
      if (std::isfinite(v))
        finite.push_back(v);
    x = finite;
  }
  double sumSquares = 0;
  for (float v : x)
    sumSquares += static_cast<double>(v) * v;
  energy += toFixed(sumSquares);
  std::vector<SampleSums> sums(thresholds.size());
  fakeQuantSums(x, thresholds, sums.data());
  for (size_t i = 0; i < thresholds.size(); ++i) {
    error2[i] += toFixed(sums[i].error2);
    crossError[i] += toFixed(sums[i].crossError);
  }
}

void FakeQuantErrors::merge(const FakeQuantErrors &other) {
  if (other.thresholds != thresholds || other.unitExponent != unitExponent)
    throw std::invalid_argument("cannot merge fake-quantization sums over different thresholds");
  energy += other.energy;
  for (size_t i = 0; i < thresholds.size(); ++i) {
    error2[i] += other.error2[i];
    crossError[i] += other.crossError[i];
  }
}

double FakeQuantErrors::signalEnergy() const { return toDouble(energy); }

double FakeQuantErrors::squaredError(size_t i) const { return toDouble(error2[i]); }

double FakeQuantErrors::cosine(size_t i) const {
  // Σxq = Σx² - Σx(x-q) and Σq² = Σx² - 2Σx(x-q) + Σ(x-q)², exactly in fixed point.
  __int128 xq = energy - crossError[i];
  __int128 q2 = energy - 2 * crossError[i] + error2[i];
  if (energy == 0 || q2 <= 0)
    return energy == 0 && q2 <= 0 ? 1.0 : 0.0;
  double cos = toDouble(xq) / std::sqrt(toDouble(energy) * toDouble(q2));
  return std::clamp(cos, -1.0, 1.0);
}

double FakeQuantErrors::snrDb(size_t i) const {
  if (error2[i] == 0)
    return std::numeric_limits<double>::infinity();
  if (energy == 0)
    return -std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(toDouble(energy) / toDouble(error2[i]));
}

double FakeQuantErrors::score(size_t i, SearchMetric metric) const {
  return metric == SearchMetric::Snr ? snrDb(i) : cosine(i);
}

//===----------------------------------------------------------------------===//
// ThresholdSearch
//===----------------------------------------------------------------------===//

ThresholdSearch::ThresholdSearch(const ActivationStatistics &stats) {
  for (const std::string &name : stats.names()) {
    const TensorStatistics &s = *stats.find(name);
    Tensor t;
    t.name = name;
    std::vector<double> thresholds;
    auto slot = [&](double value) {
      auto it = std::find(thresholds.begin(), thresholds.end(), value);
      if (it != thresholds.end())
        return static_cast<size_t>(it - thresholds.begin());
      thresholds.push_back(value);
      return thresholds.size() - 1;
    };
    double kl = computeThreshold(s, CalibrationMethod::KL);
    double max = computeThreshold(s, CalibrationMethod::Max);
    for (int k = 0; k < kKlTuneSteps; ++k)
      t.grid[static_cast<size_t>(k)] = slot(kl + (max - kl) * k / kKlTuneSteps);
    t.max = slot(max);
    t.octav = slot(computeThreshold(s, CalibrationMethod::MSE));
    t.percentile = slot(computeThreshold(s, CalibrationMethod::Percentile9999));
    double top = std::max(s.absMax(), *std::max_element(thresholds.begin(), thresholds.end()));
    double bound = static_cast<double>(s.count()) * top * top;
    t.errors = FakeQuantErrors(std::move(thresholds), bound);
    index.emplace(name, tensors.size());
    tensors.push_back(std::move(t));
  }
}

void ThresholdSearch::add(const std::string &name, std::span<const float> values) {
  auto it = index.find(name);
  if (it != index.end())
    tensors[it->second].errors.add(values);
}

void ThresholdSearch::merge(const ThresholdSearch &other) {
  if (other.tensors.size() != tensors.size())
    throw std::invalid_argument("cannot merge threshold searches of different statistics");
  for (size_t i = 0; i < tensors.size(); ++i)
    tensors[i].errors.merge(other.tensors[i].errors);
}

std::vector<ThresholdChoice> ThresholdSearch::choose(SearchMetric metric) const {
  std::vector<ThresholdChoice> out;
  out.reserve(tensors.size());
  for (const Tensor &t : tensors) {
    const FakeQuantErrors &e = t.errors;
    auto measure = [&](std::string label, size_t i) {
      return CandidateScore{std::move(label), e.threshold(i), e.cosine(i), e.snrDb(i)};
    };
    ThresholdChoice choice;
    choice.name = t.name;
    // The tune step: the least squared error on the grid from kl to absMax, the lower threshold on a tie.
    size_t best = 0;
    for (size_t k = 0; k < t.grid.size(); ++k) {
      choice.measured.push_back(measure(k == 0 ? "kl" : "kl_tune_" + std::to_string(k), t.grid[k]));
      if (e.squaredError(t.grid[k]) < e.squaredError(t.grid[best]))
        best = k;
    }
    choice.measured.push_back(measure("max", t.max));
    choice.measured.push_back(measure("percentile9999", t.percentile));
    choice.measured.push_back(measure("octav", t.octav));

    // In kSearchCandidates order.
    std::array<size_t, 4> finalists = {t.max, t.percentile, t.octav, t.grid[best]};
    size_t winner = 0;
    for (size_t f = 0; f < finalists.size(); ++f) {
      choice.finalists[f] = measure(std::string(searchCandidateName(kSearchCandidates[f])), finalists[f]);
      if (e.score(finalists[f], metric) > e.score(finalists[winner], metric))
        winner = f;
    }
    choice.chosen = kSearchCandidates[winner];
    choice.threshold = e.threshold(finalists[winner]);
    choice.score = e.score(finalists[winner], metric);
    out.push_back(std::move(choice));
  }
  return out;
}

} // namespace tpuc::quant
