//===- Calibration.cpp - Streaming activation statistics and thresholds ---===//

#include "tpuc/Quant/Calibration.h"

#include "tpuc/Quant/Arith.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace tpuc::quant {

//===----------------------------------------------------------------------===//
// TensorStatistics
//===----------------------------------------------------------------------===//

TensorStatistics::TensorStatistics(int64_t numBins) : bins(numBins) {
  if (numBins < 2)
    throw std::invalid_argument("histogram bin count must be >= 2, got " +
                                std::to_string(numBins));
  positive.assign(static_cast<size_t>(kOversample * numBins), 0);
  negative.assign(static_cast<size_t>(kOversample * numBins), 0);
}

double TensorStatistics::absMax() const {
  return n ? std::max(std::fabs(lo), std::fabs(hi)) : 0.0;
}

double TensorStatistics::stddev() const {
  return n ? std::sqrt(std::max(m2, 0.0) / static_cast<double>(n)) : 0.0;
}

double TensorStatistics::widthFor(double absValue) const {
  auto fine = static_cast<double>(positive.size());
  int exponent = 0;
  std::frexp(absValue / fine, &exponent); // absValue / fine < 2^exponent
  double w = std::ldexp(1.0, exponent);
  while (std::floor(absValue / w) >= fine) // Guards the division's rounding.
    w *= 2;
  return w;
}

void TensorStatistics::rebinTo(double newWidth) {
  if (width == 0 || newWidth <= width) {
    width = std::max(width, newWidth);
    return;
  }
  int shift = std::ilogb(newWidth) - std::ilogb(width); // Both powers of two.
  auto coarsen = [&](std::vector<int64_t> &h) {
    std::vector<int64_t> out(h.size(), 0);
    for (size_t k = 0; k < h.size(); ++k)
      out[shift >= 63 ? 0 : (k >> shift)] += h[k];
    h = std::move(out);
  };
  coarsen(positive);
  coarsen(negative);
  width = newWidth;
}

void TensorStatistics::add(std::span<const float> values) {
  int64_t count = 0, zeroCount = 0, bad = 0;
  double sum = 0, batchLo = std::numeric_limits<double>::infinity();
  double batchHi = -batchLo;
  for (float v : values) {
    if (!std::isfinite(v)) {
      ++bad;
      continue;
    }
    ++count;
    zeroCount += v == 0;
    sum += v;
    batchLo = std::min<double>(batchLo, v);
    batchHi = std::max<double>(batchHi, v);
  }
  nonFinite += bad;
  if (count == 0)
    return;
  double batchMean = sum / static_cast<double>(count), batchM2 = 0;
  for (float v : values)
    if (std::isfinite(v))
      batchM2 += (v - batchMean) * (v - batchMean);

  // Chan et al.'s pairwise update of the moments.
  double total = static_cast<double>(n + count);
  double delta = batchMean - runningMean;
  runningMean += delta * static_cast<double>(count) / total;
  m2 += batchM2 + delta * delta * static_cast<double>(n) *
                      static_cast<double>(count) / total;
  lo = n ? std::min(lo, batchLo) : batchLo;
  hi = n ? std::max(hi, batchHi) : batchHi;
  n += count;
  zeros += zeroCount;

  double batchAbsMax = std::max(std::fabs(batchLo), std::fabs(batchHi));
  if (batchAbsMax == 0)
    return;
  rebinTo(widthFor(batchAbsMax));
  double inverse = 1.0 / width; // Exact: width is a power of two.
  auto last = static_cast<int64_t>(positive.size()) - 1;
  for (float v : values) {
    if (!std::isfinite(v) || v == 0)
      continue;
    auto k = std::min(
        static_cast<int64_t>(std::fabs(static_cast<double>(v)) * inverse),
        last);
    ++(v > 0 ? positive : negative)[static_cast<size_t>(k)];
  }
}

void TensorStatistics::merge(const TensorStatistics &other) {
  if (other.bins != bins)
    throw std::invalid_argument("cannot merge statistics with " +
                                std::to_string(other.bins) + " bins into " +
                                std::to_string(bins));
  nonFinite += other.nonFinite;
  if (other.n == 0)
    return;
  if (n == 0) {
    int64_t keepNonFinite = nonFinite;
    *this = other;
    nonFinite = keepNonFinite;
    return;
  }
  double total = static_cast<double>(n + other.n);
  double delta = other.runningMean - runningMean;
  runningMean += delta * static_cast<double>(other.n) / total;
  m2 += other.m2 + delta * delta * static_cast<double>(n) *
                       static_cast<double>(other.n) / total;
  lo = std::min(lo, other.lo);
  hi = std::max(hi, other.hi);
  n += other.n;
  zeros += other.zeros;
  if (other.width == 0)
    return;
  TensorStatistics aligned = other;
  double common = std::max(width, other.width);
  rebinTo(common);
  aligned.rebinTo(common);
  for (size_t k = 0; k < positive.size(); ++k) {
    positive[k] += aligned.positive[k];
    negative[k] += aligned.negative[k];
  }
}

std::vector<double> TensorStatistics::tpuMlirHistogram(double &widthOut) const {
  std::vector<double> out(static_cast<size_t>(bins), 0.0);
  double a = absMax();
  widthOut = a / static_cast<double>(bins - 1);
  if (a == 0 || width == 0)
    return out;
  double w = widthOut;
  auto index = [&](double x) {
    return std::min<int64_t>(static_cast<int64_t>(std::floor(x / w + 0.5)),
                             bins - 1);
  };
  for (size_t k = 0; k < positive.size(); ++k) {
    auto count = static_cast<double>(positive[k] + negative[k]);
    if (count == 0)
      continue;
    double begin = static_cast<double>(k) * width;
    double end = std::min(begin + width, a);
    if (end <= begin) { // A bin holding exactly absMax.
      out[static_cast<size_t>(index(begin))] += count;
      continue;
    }
    int64_t first = index(begin), lastBin = index(end);
    for (int64_t j = first; j <= lastBin; ++j) {
      double low = j == first ? begin : (static_cast<double>(j) - 0.5) * w;
      double high = j == lastBin ? end : (static_cast<double>(j) + 0.5) * w;
      if (high > low)
        out[static_cast<size_t>(j)] += count * (high - low) / (end - begin);
    }
  }
  return out;
}

double TensorStatistics::absPercentile(double fraction) const {
  if (n == 0)
    return 0;
  double target = std::clamp(fraction, 0.0, 1.0) * static_cast<double>(n);
  double cumulative = static_cast<double>(zeros);
  if (target <= cumulative)
    return 0;
  double a = absMax();
  for (size_t k = 0; k < positive.size(); ++k) {
    auto count = static_cast<double>(positive[k] + negative[k]);
    if (count > 0 && cumulative + count >= target)
      return std::min(a, (static_cast<double>(k) +
                          (target - cumulative) / count) *
                             width);
    cumulative += count;
  }
  return a;
}

double TensorStatistics::meanAbsDeviation() const {
  if (n == 0)
    return 0;
  double mu = runningMean, a = absMax();
  double sum = static_cast<double>(zeros) * std::fabs(mu);
  for (size_t k = 0; k < positive.size(); ++k) {
    if (positive[k] == 0 && negative[k] == 0)
      continue;
    double centre = std::min((static_cast<double>(k) + 0.5) * width, a);
    sum += static_cast<double>(positive[k]) * std::fabs(centre - mu) +
           static_cast<double>(negative[k]) * std::fabs(-centre - mu);
  }
  return sum / static_cast<double>(n);
}

//===----------------------------------------------------------------------===//
// Threshold methods
//===----------------------------------------------------------------------===//

std::string_view calibrationMethodName(CalibrationMethod method) {
  switch (method) {
  case CalibrationMethod::KL:
    return "kl";
  case CalibrationMethod::MSE:
    return "mse";
  case CalibrationMethod::Max:
    return "max";
  case CalibrationMethod::Percentile9999:
    return "percentile9999";
  case CalibrationMethod::AciqGauss:
    return "aciq_gauss";
  case CalibrationMethod::AciqLaplace:
    return "aciq_laplace";
  }
  return "kl";
}

std::optional<CalibrationMethod> parseCalibrationMethod(std::string_view name) {
  if (name.starts_with("use_"))
    name.remove_prefix(4);
  for (auto m : {CalibrationMethod::KL, CalibrationMethod::MSE,
                 CalibrationMethod::Max, CalibrationMethod::Percentile9999,
                 CalibrationMethod::AciqGauss, CalibrationMethod::AciqLaplace})
    if (calibrationMethodName(m) == name)
      return m;
  return std::nullopt;
}

double klThreshold(std::span<const double> histogram, double width,
                   int64_t targetBins) {
  auto size = static_cast<int64_t>(histogram.size());
  if (targetBins < 1 || size < 1)
    throw std::invalid_argument("klThreshold: empty histogram or target");
  targetBins = std::min(targetBins, size);
  double total = 0;
  for (double h : histogram)
    total += h;
  if (total <= 0)
    return width * static_cast<double>(size);

  auto term = [](double p, double q) {
    return p * (std::log10(p + 1e-30) - std::log10(q + 1e-30));
  };
  double bestKl = std::numeric_limits<double>::infinity();
  int64_t bestBins = size;
  for (int64_t i = targetBins; i <= size; i += targetBins) {
    double head = 0, tail = 0;
    for (int64_t j = 0; j < size; ++j)
      (j < i ? head : tail) += histogram[static_cast<size_t>(j)];
    if (head <= 0)
      continue;
    int64_t expand = i / targetBins;
    double kl = 0;
    for (int64_t g = 0; g < targetBins; ++g) {
      double groupSum = 0, nonEmpty = 0;
      for (int64_t j = g * expand; j < (g + 1) * expand; ++j) {
        groupSum += histogram[static_cast<size_t>(j)];
        nonEmpty += histogram[static_cast<size_t>(j)] > 0;
      }
      double qBase = groupSum / std::max(nonEmpty, 1.0) / head;
      for (int64_t j = g * expand; j < (g + 1) * expand; ++j) {
        double h = histogram[static_cast<size_t>(j)];
        double p = (j == i - 1 ? h + tail : h) / total;
        double q = h > 0 ? qBase : 0.0;
        kl += term(p, q);
      }
    }
    if (kl < bestKl) {
      bestKl = kl;
      bestBins = i;
    }
  }
  return width * static_cast<double>(bestBins);
}

/// OCTAV's fixed point for the MSE-optimal clip (TPU-MLIR's threshold_mse),
/// over the fine histogram's bin centres.
static double mseThreshold(const TensorStatistics &stats, int bits) {
  std::span<const int64_t> pos = stats.positiveHistogram();
  std::span<const int64_t> neg = stats.negativeHistogram();
  double w = stats.binWidth(), a = stats.absMax();
  auto total = static_cast<double>(stats.count());
  double sumAbs = 0, nonZero = 0;
  for (size_t k = 0; k < pos.size(); ++k) {
    auto c = static_cast<double>(pos[k] + neg[k]);
    sumAbs += c * std::min((static_cast<double>(k) + 0.5) * w, a);
    nonZero += c;
  }
  if (nonZero == 0)
    return 0;
  // Non-negative tensors quantize to unsigned: one more bit, 4x less noise.
  double unsignedFactor = std::fabs(stats.min()) < 1e-6 ? 4.0 : 1.0;
  double noise = std::pow(4.0, -bits) / 3.0 / unsignedFactor;
  double s = sumAbs / nonZero;
  for (int iter = 0; iter < 100; ++iter) {
    double above = 0, countAbove = 0;
    for (size_t k = 0; k < pos.size(); ++k) {
      double centre = std::min((static_cast<double>(k) + 0.5) * w, a);
      if (centre > s) {
        auto c = static_cast<double>(pos[k] + neg[k]);
        above += c * centre;
        countAbove += c;
      }
    }
    if (countAbove == 0)
      break;
    double next = above / (noise * (total - countAbove) + countAbove);
    bool done = std::fabs(next - s) <= 1e-9 * s;
    s = next;
    if (done)
      break;
  }
  return s;
}

double computeThreshold(const TensorStatistics &stats, CalibrationMethod method,
                        int bits) {
  if (bits != 4 && bits != 8)
    throw std::invalid_argument("calibration supports 4 or 8 bits, got " +
                                std::to_string(bits));
  double a = stats.absMax();
  if (stats.count() == 0 || a == 0)
    return kMinThreshold;
  double th = a;
  switch (method) {
  case CalibrationMethod::Max:
    break;
  case CalibrationMethod::KL: {
    double w = 0;
    std::vector<double> hist = stats.tpuMlirHistogram(w);
    th = klThreshold(hist, w, bits == 8 ? 128 : 8);
    break;
  }
  case CalibrationMethod::MSE:
    th = mseThreshold(stats, bits);
    break;
  case CalibrationMethod::Percentile9999:
    th = stats.absPercentile(0.9999);
    break;
  case CalibrationMethod::AciqGauss:
    // Banner et al.'s optimal clip for a Gaussian, in standard deviations.
    th = (bits == 8 ? 3.92403337 : 2.55913642) * stats.stddev();
    break;
  case CalibrationMethod::AciqLaplace:
    // ... and for a Laplace distribution, in units of its scale b.
    th = (bits == 8 ? 9.89675982 : 5.02864014) * stats.meanAbsDeviation();
    break;
  }
  if (!(th > kMinThreshold))
    return kMinThreshold;
  return std::min(th, std::max(a, kMinThreshold));
}

//===----------------------------------------------------------------------===//
// ActivationStatistics
//===----------------------------------------------------------------------===//

ActivationStatistics::ActivationStatistics(int64_t numBins) : bins(numBins) {
  TensorStatistics probe(numBins); // Validates numBins up front.
}

TensorStatistics &ActivationStatistics::slot(const std::string &name) {
  auto [it, inserted] = index.try_emplace(name, stats.size());
  if (inserted) {
    order.push_back(name);
    stats.emplace_back(bins);
  }
  return stats[it->second];
}

void ActivationStatistics::add(const std::string &name,
                               std::span<const float> values) {
  slot(name).add(values);
}

void ActivationStatistics::merge(const ActivationStatistics &other) {
  for (size_t i = 0; i < other.order.size(); ++i)
    slot(other.order[i]).merge(other.stats[i]);
}

const TensorStatistics *
ActivationStatistics::find(std::string_view name) const {
  auto it = index.find(std::string(name));
  return it == index.end() ? nullptr : &stats[it->second];
}

std::vector<CalibrationEntry>
ActivationStatistics::thresholds(CalibrationMethod method, int bits) const {
  std::vector<CalibrationEntry> out;
  out.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i)
    out.push_back({order[i], computeThreshold(stats[i], method, bits),
                   stats[i].min(), stats[i].max()});
  return out;
}

} // namespace tpuc::quant
