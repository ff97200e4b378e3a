//===- Statistics.cpp - A dataset's typical file, robustly -----------------===//

#include "tpuc/Dataset/Statistics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

namespace tpuc::dataset {

namespace {

std::string format(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g", value);
  return text;
}

/// The smallest difference that matters in a statistic: a gray level in pixels; tensors have no unit.
double floorOf(const std::string &key) { return key == kImageClass ? 1.0 : 1e-6; }

std::vector<std::string> namesOf(const std::string &key) {
  if (key == kImageClass)
    return {"mean R", "mean G", "mean B", "std"};
  return {"mean", "std"};
}

} // namespace

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  double upper = values[mid];
  if (values.size() % 2)
    return upper;
  return (upper + *std::max_element(values.begin(), values.begin() + mid)) / 2;
}

const FileClass *DatasetStatistics::find(const std::string &key) const {
  for (const FileClass &c : classes)
    if (c.key == key)
      return &c;
  return nullptr;
}

std::string classKey(const FileMetadata &m) {
  if (m.mean.empty())
    return {};
  // Images carry a dHash; tensors are compared only with tensors of their dtype and shape.
  if (m.hasDhash)
    return kImageClass;
  std::string key = m.dtype + "[";
  for (int64_t d : m.shape)
    key += std::to_string(d) + ",";
  return key + "]";
}

std::vector<double> classFeatures(const FileMetadata &m) {
  if (m.mean.empty())
    return {};
  if (m.hasDhash) {
    std::vector<double> f(3);
    for (size_t c = 0; c < 3; ++c)
      f[c] = m.mean[std::min(c, m.mean.size() - 1)];
    f.push_back(m.stddev.empty()
                    ? 0.0
                    : std::accumulate(m.stddev.begin(), m.stddev.end(), 0.0) / double(m.stddev.size()));
    return f;
  }
  return {m.mean.front(), m.stddev.empty() ? 0.0 : m.stddev.front()};
}

DatasetStatistics datasetStatistics(const DatasetIndex &index) {
  // Images first, then the tensor classes by key: the order the quality report lists them in.
  std::map<std::string, std::vector<std::vector<double>>> byClass;
  for (const FileEntry &e : index.files)
    if (std::string key = classKey(e.metadata); !key.empty())
      byClass[key].push_back(classFeatures(e.metadata));
  DatasetStatistics out;
  auto summarize = [&](const std::string &key, const std::vector<std::vector<double>> &features) {
    if (features.size() < kMinClassFiles)
      return;
    FileClass c{key, features.size(), {}};
    std::vector<std::string> names = namesOf(key);
    for (size_t d = 0; d < names.size(); ++d) {
      std::vector<double> column;
      column.reserve(features.size());
      for (const auto &f : features)
        column.push_back(f[d]);
      double centre = median(column);
      for (double &v : column)
        v = std::abs(v - centre);
      double spread = std::max(1.4826 * median(std::move(column)), floorOf(key) + 1e-3 * std::abs(centre));
      c.statistics.push_back({names[d], centre, spread});
    }
    out.classes.push_back(std::move(c));
  };
  if (auto images = byClass.find(kImageClass); images != byClass.end())
    summarize(images->first, images->second);
  for (const auto &[key, features] : byClass)
    if (key != kImageClass)
      summarize(key, features);
  return out;
}

Deviation deviation(const std::vector<double> &features, const FileClass &fileClass) {
  Deviation worst;
  for (size_t d = 0; d < fileClass.statistics.size() && d < features.size(); ++d) {
    const RobustStatistic &s = fileClass.statistics[d];
    double z = std::abs(features[d] - s.median) / s.spread;
    if (z > worst.z || d == 0) {
      worst.z = z;
      worst.statistic = d;
      worst.value = features[d];
    }
  }
  if (!fileClass.statistics.empty()) {
    const RobustStatistic &s = fileClass.statistics[worst.statistic];
    worst.reason = s.name + " " + format(worst.value) + " is far from the dataset's " + format(s.median) +
                   " (robust z " + format(worst.z) + ")";
  }
  return worst;
}

std::optional<Deviation> deviation(const FileMetadata &metadata, const DatasetStatistics &statistics) {
  const FileClass *c = statistics.find(classKey(metadata));
  if (!c)
    return std::nullopt;
  return deviation(classFeatures(metadata), *c);
}

} // namespace tpuc::dataset
