//===- AccuracyStats.cpp - Statistics over samples, the first-divergent rule ===//
//
// The plain-data half of Accuracy.h: percentiles, the streaming per-layer aggregation, the rule that names
// the first divergent layers and the report for humans. No simulator runs here (Accuracy.cpp runs them).
//
//===----------------------------------------------------------------------===//

#include "tpuc/Driver/Accuracy.h"

#include "AccuracyFormat.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <numeric>
#include <sstream>

namespace tpuc::driver {
namespace {

using accuracy_format::fixed;
using accuracy_format::signedFixed;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Metric order where NaN is the lowest value (the worst a similarity can be).
bool lowerMetric(double a, double b) {
  if (std::isnan(a))
    return !std::isnan(b);
  if (std::isnan(b))
    return false;
  return a < b;
}

} // namespace

double percentile(std::vector<double> values, double p) {
  if (values.empty())
    return kNaN;
  std::sort(values.begin(), values.end(), lowerMetric);
  double rank = std::clamp(p, 0.0, 100.0) / 100.0 * double(values.size() - 1);
  size_t below = static_cast<size_t>(std::floor(rank));
  size_t above = std::min(below + 1, values.size() - 1);
  double fraction = rank - double(below);
  if (fraction == 0.0 || below == above)
    return values[below];
  return values[below] + fraction * (values[above] - values[below]);
}

std::vector<LayerObservation> observations(const std::vector<cli::LayerRow> &rows) {
  std::vector<LayerObservation> out;
  out.reserve(rows.size());
  auto metric = [](const TensorComparison &c) {
    return LayerMetric{c.metrics.cosine, c.metrics.euclidean, c.passed()};
  };
  for (const cli::LayerRow &row : rows) {
    LayerObservation o{row.name, metric(row.accumulated), std::nullopt};
    if (row.isolated)
      o.isolated = metric(*row.isolated);
    out.push_back(std::move(o));
  }
  return out;
}

void SampleAggregator::add(SampleResult sample, const std::vector<LayerObservation> &layers) {
  int64_t index = static_cast<int64_t>(results.size());
  sample.index = index;
  auto fold = [index](Series &s, const LayerMetric &m) {
    s.cosine.push_back(m.cosine);
    s.euclidean.push_back(m.euclidean);
    s.sample.push_back(index);
    s.failing += m.pass ? 0 : 1;
  };
  for (const LayerObservation &o : layers) {
    auto [it, added] = indexOf.try_emplace(o.name, series.size());
    if (added)
      series.push_back(Layer{o.name, {}, {}});
    Layer &layer = series[it->second];
    fold(layer.accumulated, o.accumulated);
    if (o.isolated)
      fold(layer.isolated, *o.isolated);
  }
  results.push_back(std::move(sample));
}

MetricStats SampleAggregator::summarize(const Series &s) const {
  MetricStats stats;
  stats.samples = static_cast<int64_t>(s.cosine.size());
  stats.failingSamples = s.failing;
  if (s.cosine.empty())
    return stats;
  auto mean = [](const std::vector<double> &v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  };
  stats.meanCosine = mean(s.cosine);
  stats.meanEuclidean = mean(s.euclidean);
  size_t worst =
      static_cast<size_t>(std::min_element(s.cosine.begin(), s.cosine.end(), lowerMetric) - s.cosine.begin());
  stats.minCosine = s.cosine[worst];
  stats.minEuclidean = *std::min_element(s.euclidean.begin(), s.euclidean.end(), lowerMetric);
  stats.p5Cosine = percentile(s.cosine, kStatsPercentile);
  stats.p5Euclidean = percentile(s.euclidean, kStatsPercentile);
  stats.worstSample = s.sample[worst];
  stats.worstSampleName = results[static_cast<size_t>(stats.worstSample)].name;
  return stats;
}

std::vector<LayerStats> SampleAggregator::layers() const {
  std::vector<LayerStats> out;
  out.reserve(series.size());
  for (const Layer &layer : series) {
    LayerStats stats{layer.name, summarize(layer.accumulated), std::nullopt};
    if (!layer.isolated.cosine.empty())
      stats.isolated = summarize(layer.isolated);
    out.push_back(std::move(stats));
  }
  return out;
}

int64_t SampleAggregator::worstSample() const {
  auto worst =
      std::min_element(results.begin(), results.end(), [](const SampleResult &a, const SampleResult &b) {
        return lowerMetric(a.outputCosine, b.outputCosine);
      });
  return worst == results.end() ? -1 : worst->index;
}

int64_t SampleAggregator::failingSamples() const {
  return std::count_if(results.begin(), results.end(), [](const SampleResult &s) { return !s.pass; });
}

size_t SampleAggregator::valuesHeld() const {
  size_t held = 0;
  for (const Layer &layer : series)
    held += layer.accumulated.cosine.size() * 2 + layer.isolated.cosine.size() * 2;
  return held;
}

double headroom(const MetricStats &stats, const CompareTolerance &tolerance) {
  auto room = [](double value, double tol) {
    if (std::isnan(value))
      return -std::numeric_limits<double>::infinity();
    return tol < 1.0 ? (value - tol) / (1.0 - tol) : value - tol;
  };
  return std::min(room(stats.p5Cosine, tolerance.cosine), room(stats.p5Euclidean, tolerance.euclidean));
}

bool statsPass(const MetricStats &stats, const CompareTolerance &tolerance) {
  return stats.p5Cosine >= tolerance.cosine && stats.p5Euclidean >= tolerance.euclidean;
}

std::vector<size_t> firstDivergentLayers(const std::vector<LayerStats> &layers, const TensorGraph &graph,
                                         const CompareTolerance &tolerance, DivergenceRule rule) {
  std::unordered_map<std::string, size_t> byName;
  for (size_t i = 0; i < layers.size(); ++i)
    byName.emplace(layers[i].name, i);
  std::vector<size_t> found;
  for (size_t i = 0; i < layers.size(); ++i) {
    const LayerStats &layer = layers[i];
    if (!layer.isolated || !graph.ops.count(layer.name))
      continue;
    if (rule == DivergenceRule::Isolated && statsPass(*layer.isolated, tolerance))
      continue;
    auto producers = graph.producers.find(layer.name);
    bool inputsPass = true;
    if (producers != graph.producers.end())
      for (const std::string &p : producers->second)
        if (auto it = byName.find(p);
            it != byName.end() && !statsPass(layers[it->second].accumulated, tolerance))
          inputsPass = false;
    if (inputsPass)
      found.push_back(i);
  }
  std::stable_sort(found.begin(), found.end(), [&](size_t a, size_t b) {
    return headroom(*layers[a].isolated, tolerance) < headroom(*layers[b].isolated, tolerance);
  });
  return found;
}

std::string formatCompareSamples(const CompareSamplesRecord &r) {
  size_t width = 24;
  bool isolated = false;
  for (const LayerStats &layer : r.layers) {
    width = std::max(width, layer.name.size() + 2);
    isolated |= layer.isolated.has_value();
  }
  std::ostringstream out;
  out << std::left << std::setw(static_cast<int>(width)) << "name" << std::right << std::setw(10)
      << "mean cos" << std::setw(10) << "min cos" << std::setw(10) << "p5 cos";
  if (isolated)
    out << std::setw(12) << "iso p5 cos";
  out << std::setw(9) << "failing"
      << "  worst sample\n";
  for (const LayerStats &layer : r.layers) {
    out << std::left << std::setw(static_cast<int>(width)) << layer.name << std::right << std::setw(10)
        << fixed(layer.accumulated.meanCosine, 5) << std::setw(10) << fixed(layer.accumulated.minCosine, 5)
        << std::setw(10) << fixed(layer.accumulated.p5Cosine, 5);
    if (isolated)
      out << std::setw(12) << (layer.isolated ? fixed(layer.isolated->p5Cosine, 5) : std::string("-"));
    out << std::setw(9) << layer.accumulated.failingSamples << "  " << layer.accumulated.worstSampleName
        << "\n";
  }
  out << r.samples.size() << " sample(s), " << r.failingSamples << " beyond the tolerance (cos "
      << fixed(r.toleranceCosine, 3) << ", euc " << fixed(r.toleranceEuclidean, 3) << ")";
  if (r.worstSample >= 0 && r.worstSample < static_cast<int64_t>(r.samples.size())) {
    const SampleResult &worst = r.samples[static_cast<size_t>(r.worstSample)];
    out << "; worst: " << worst.name << " (cos " << fixed(worst.outputCosine) << ")";
  }
  out << "\n";
  return out.str();
}

std::string formatFirstDivergent(const FirstDivergentRecord &r) {
  std::ostringstream out;
  if (r.rule == "headroom")
    out << "no layer breaks the tolerance (cos " << fixed(r.toleranceCosine, 3) << ", euc "
        << fixed(r.toleranceEuclidean, 3)
        << ") on its own: the layers with the least isolated headroom whose "
        << "inputs pass (" << r.samples << " sample(s)):\n";
  else
    out << "first divergent layers (isolated p5 beyond cos " << fixed(r.toleranceCosine, 3) << ", euc "
        << fixed(r.toleranceEuclidean, 3) << " while their inputs pass; " << r.samples << " sample(s)):\n";
  if (r.candidates.empty()) {
    out << "  none: " << r.summary << "\n";
    return out.str();
  }
  size_t width = 8;
  for (const DivergentCandidate &c : r.candidates)
    width = std::max(width, c.name.size() + 2);
  // Every re-run candidate, then at most a few more by headroom (the record lists them all).
  constexpr size_t kUnmeasuredShown = 5;
  size_t shown = 0, unmeasured = 0;
  for (const DivergentCandidate &c : r.candidates)
    shown += c.measured || unmeasured++ < kUnmeasuredShown;
  for (size_t i = 0; i < shown; ++i) {
    const DivergentCandidate &c = r.candidates[i];
    out << "  " << std::setw(2) << i + 1 << ". " << std::left << std::setw(static_cast<int>(width)) << c.name
        << std::right << "isolated cos " << fixed(c.isolated.p5Cosine) << " euc "
        << fixed(c.isolated.p5Euclidean) << ", accumulated cos " << fixed(c.accumulated.p5Cosine);
    if (c.measured) {
      out << "; in " << r.floatMode << ": output cos " << signedFixed(c.gain);
      if (!c.outputFloatOps.empty())
        out << ", with its consumers " << signedFixed(c.outputGain);
    }
    out << "\n";
  }
  if (shown < r.candidates.size())
    out << "  ... " << r.candidates.size() - shown << " more, by isolated headroom, in the JSON record\n";
  out << r.summary << "\n";
  return out.str();
}

} // namespace tpuc::driver
