//===- TensorStats.cpp - What the tensor viewer computes from two tensors --===//

#include "visualizer/TensorStats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tpuc::vis {

TensorPairStats compareTensors(std::span<const float> reference, std::span<const float> target,
                               double threshold, int qmax) {
  TensorPairStats s;
  const size_t n = std::min(reference.size(), target.size());
  s.count = n;
  s.hasThreshold = threshold > 0;
  s.threshold = threshold;
  double dot = 0, refNorm = 0, tgtNorm = 0, noise = 0, absSum = 0;
  size_t finite = 0, clipped = 0, saturated = 0;
  const double step = threshold > 0 ? threshold / qmax : 0;
  bool first = true;
  for (size_t i = 0; i < n; ++i) {
    const double r = reference[i], t = target[i];
    s.referenceNan += std::isnan(r);
    s.referenceInf += std::isinf(r);
    s.targetNan += std::isnan(t);
    s.targetInf += std::isinf(t);
    if (!std::isfinite(r) || !std::isfinite(t))
      continue;
    if (first) {
      s.referenceMin = s.referenceMax = r;
      s.targetMin = s.targetMax = t;
      first = false;
    }
    s.referenceMin = std::min(s.referenceMin, r);
    s.referenceMax = std::max(s.referenceMax, r);
    s.targetMin = std::min(s.targetMin, t);
    s.targetMax = std::max(s.targetMax, t);
    ++finite;
    dot += r * t;
    refNorm += r * r;
    tgtNorm += t * t;
    const double d = t - r;
    noise += d * d;
    absSum += std::abs(d);
    s.maxAbsDiff = std::max(s.maxAbsDiff, std::abs(d));
    if (threshold > 0) {
      clipped += std::abs(r) > threshold;
      saturated += std::abs(t) >= threshold - step / 2;
    }
  }
  if (refNorm == 0 && tgtNorm == 0)
    s.cosine = 1;
  else if (refNorm > 0 && tgtNorm > 0)
    s.cosine = dot / std::sqrt(refNorm * tgtNorm);
  s.sqnrDb = noise == 0     ? std::numeric_limits<double>::infinity()
             : refNorm == 0 ? -std::numeric_limits<double>::infinity()
                            : 10 * std::log10(refNorm / noise);
  if (finite) {
    s.meanAbsDiff = absSum / static_cast<double>(finite);
    s.clippedShare = static_cast<double>(clipped) / static_cast<double>(finite);
    s.saturatedShare = static_cast<double>(saturated) / static_cast<double>(finite);
  }
  return s;
}

TensorHistogram histogramOf(std::span<const float> reference, std::span<const float> target, size_t bins,
                            double lo, double hi, double threshold) {
  TensorHistogram h;
  bins = std::max<size_t>(bins, 1);
  if (!(hi > lo)) {
    double extent = threshold;
    for (std::span<const float> values : {reference, target})
      for (float v : values)
        if (std::isfinite(v))
          extent = std::max(extent, static_cast<double>(std::abs(v)));
    if (extent == 0)
      extent = 1;
    lo = -extent;
    hi = extent;
  }
  h.lo = lo;
  h.hi = hi;
  h.reference.assign(bins, 0);
  h.target.assign(bins, 0);
  const double scale = static_cast<double>(bins) / (hi - lo);
  auto fill = [&](std::span<const float> values, std::vector<size_t> &counts) {
    for (float v : values) {
      if (!std::isfinite(v))
        continue;
      const double bin = std::floor((v - lo) * scale);
      counts[static_cast<size_t>(std::clamp(bin, 0.0, static_cast<double>(bins - 1)))]++;
    }
  };
  fill(reference, h.reference);
  fill(target, h.target);
  return h;
}

PlaneLayout planeLayout(const std::vector<int64_t> &shape) {
  PlaneLayout l;
  if (shape.empty())
    return l;
  if (shape.size() == 1) {
    l.cols = shape[0];
    return l;
  }
  l.rows = shape[shape.size() - 2];
  l.cols = shape.back();
  l.leading.assign(shape.begin(), shape.end() - 2);
  for (int64_t d : l.leading)
    l.planes *= d;
  return l;
}

std::string PlaneLayout::planeName(int64_t plane) const {
  if (leading.empty())
    return {};
  // Row-major index of the plane over the leading dimensions, named n, c for the NCHW case.
  std::vector<int64_t> index(leading.size());
  for (size_t i = leading.size(); i-- > 0;) {
    index[i] = plane % leading[i];
    plane /= leading[i];
  }
  std::string name;
  for (size_t i = 0; i < index.size(); ++i) {
    const std::string axis = leading.size() == 2   ? (i == 0 ? "n" : "c")
                             : leading.size() == 1 ? "plane"
                                                   : "d" + std::to_string(i);
    name += (name.empty() ? "" : ", ") + axis + " " + std::to_string(index[i]);
  }
  return name;
}

std::span<const float> planeOf(std::span<const float> values, const PlaneLayout &layout, int64_t plane) {
  const size_t size = static_cast<size_t>(layout.rows * layout.cols);
  const size_t offset = static_cast<size_t>(std::clamp<int64_t>(plane, 0, layout.planes - 1)) * size;
  if (offset + size > values.size())
    return {};
  return values.subspan(offset, size);
}

} // namespace tpuc::vis
