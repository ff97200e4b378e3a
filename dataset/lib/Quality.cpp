//===- Quality.cpp - Duplicates, outliers and histograms of a dataset ------===//
//
// Near duplicates use multi-index hashing: a Hamming distance <= t between 64-bit hashes means at least one
// of t + 1 disjoint bit blocks is equal (pigeonhole), so only hashes sharing a block value are compared,
// which keeps 100,000 images far from the 5e9 pairs of a brute-force pass. Outliers are scored per file
// class (images against images, tensors of one shape against each other) on median and MAD, which the
// outliers themselves cannot drag.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Dataset/Quality.h"
#include "tpuc/Dataset/Scan.h"
#include "tpuc/Dataset/Statistics.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <unordered_map>

namespace tpuc::dataset {

namespace {

struct UnionFind {
  std::vector<size_t> parent;
  explicit UnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  size_t find(size_t x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  void unite(size_t a, size_t b) {
    a = find(a), b = find(b);
    if (a != b)
      parent[std::max(a, b)] = std::min(a, b);
  }
};

} // namespace

QualityReport analyzeQuality(const DatasetIndex &index, const QualityOptions &options) {
  QualityReport report;
  const std::vector<FileEntry> &files = index.files;
  report.files = files.size();
  report.corrupt = index.unreadable;

  // Exact duplicates: by content hash; `content` numbers the distinct contents.
  std::unordered_map<std::string, size_t> contentOf;
  std::vector<std::vector<size_t>> byContent;
  for (size_t i = 0; i < files.size(); ++i) {
    auto [it, inserted] = contentOf.emplace(files[i].contentHash, byContent.size());
    if (inserted)
      byContent.emplace_back();
    byContent[it->second].push_back(i);
  }
  for (const auto &group : byContent)
    if (group.size() > 1) {
      std::vector<std::string> paths;
      for (size_t i : group)
        paths.push_back(files[i].path);
      report.exactDuplicates.push_back(std::move(paths));
    }

  // Near duplicates over distinct contents with a dHash. Contents with the same dHash are one node (a flat
  // or synthetic image set has many), so the buckets below hold distinct hashes only.
  std::vector<size_t> hashed; // content ids
  std::unordered_map<uint64_t, size_t> nodeOf;
  std::vector<uint64_t> nodeHash;
  std::vector<size_t> contentNode;
  for (size_t c = 0; c < byContent.size(); ++c)
    if (files[byContent[c].front()].metadata.hasDhash) {
      uint64_t h = files[byContent[c].front()].metadata.dhash;
      auto [it, inserted] = nodeOf.emplace(h, nodeHash.size());
      if (inserted)
        nodeHash.push_back(h);
      hashed.push_back(c);
      contentNode.push_back(it->second);
    }
  int t = std::clamp(options.nearThreshold, 0, 63);
  int blocks = t + 1;
  UnionFind near(nodeHash.size());
  auto blockOf = [&](uint64_t h, int b) {
    int begin = 64 * b / blocks, end = 64 * (b + 1) / blocks;
    uint64_t mask = end - begin == 64 ? ~uint64_t(0) : ((uint64_t(1) << (end - begin)) - 1);
    return (h >> begin) & mask;
  };
  for (int b = 0; b < blocks; ++b) {
    std::unordered_map<uint64_t, std::vector<size_t>> buckets;
    for (size_t k = 0; k < nodeHash.size(); ++k)
      buckets[blockOf(nodeHash[k], b)].push_back(k);
    for (auto &[value, members] : buckets)
      for (size_t x = 0; x < members.size(); ++x)
        for (size_t y = x + 1; y < members.size(); ++y) {
          uint64_t hx = nodeHash[members[x]], hy = nodeHash[members[y]];
          if (hammingDistance(hx, hy) > t)
            continue;
          // Counted once: in the first block where the pair agrees.
          bool earlier = false;
          for (int e = 0; e < b && !earlier; ++e)
            earlier = blockOf(hx, e) == blockOf(hy, e);
          if (!earlier)
            near.unite(members[x], members[y]);
        }
  }
  // Groups of contents (ids into `hashed`) by component.
  std::map<size_t, std::vector<size_t>> components;
  for (size_t k = 0; k < hashed.size(); ++k)
    components[near.find(contentNode[k])].push_back(k);
  for (auto &[root, members] : components)
    if (members.size() > 1) {
      std::vector<std::string> paths;
      for (size_t k : members)
        for (size_t i : byContent[hashed[k]])
          paths.push_back(files[i].path);
      std::sort(paths.begin(), paths.end());
      report.nearDuplicates.push_back(std::move(paths));
    }
  std::sort(report.nearDuplicates.begin(), report.nearDuplicates.end());

  // Outliers: images on their R, G, B means and their average spread; tensors per (dtype, shape) on their
  // mean and standard deviation (Statistics.h, the rule the preprocessing preview scores a sample by).
  DatasetStatistics statistics = datasetStatistics(index);
  std::vector<std::vector<double>> imageFeatures; // for the channel swaps below
  for (const FileEntry &e : files) {
    if (classKey(e.metadata) == kImageClass)
      imageFeatures.push_back(classFeatures(e.metadata));
    if (auto d = deviation(e.metadata, statistics); d && d->z > options.outlierZ)
      report.outliers.push_back({e.path, d->z, d->reason});
  }
  std::sort(report.outliers.begin(), report.outliers.end(),
            [](const Outlier &a, const Outlier &b) { return a.score > b.score; });

  // Channel swaps: R and B exchanged within a few levels, and a clear R/B difference.
  std::vector<double> redMinusBlue;
  for (const auto &f : imageFeatures)
    redMinusBlue.push_back(f[0] - f[2]);
  double typical = median(redMinusBlue);
  // Pairs within each near-duplicate group whose hashes are within the threshold; a group too large to pair
  // up (thousands of flat frames) is left out.
  constexpr size_t kLargestPairedGroup = 64;
  for (auto &[root, members] : components) {
    if (members.size() < 2 || members.size() > kLargestPairedGroup)
      continue;
    for (size_t x = 0; x < members.size(); ++x)
      for (size_t y = x + 1; y < members.size(); ++y) {
        const FileEntry &a = files[byContent[hashed[members[x]]].front()];
        const FileEntry &b = files[byContent[hashed[members[y]]].front()];
        if (hammingDistance(a.metadata.dhash, b.metadata.dhash) > t || a.metadata.mean.size() < 3 ||
            b.metadata.mean.size() < 3)
          continue;
        double ar = a.metadata.mean[0], ab = a.metadata.mean[2], br = b.metadata.mean[0],
               bb = b.metadata.mean[2];
        double tolerance = 2.0 + 0.02 * std::max(std::abs(ar - ab), 1.0);
        if (std::abs(ar - ab) < 8 || std::abs(ar - bb) > tolerance || std::abs(ab - br) > tolerance)
          continue;
        // The copy whose red-minus-blue has the other sign than the dataset's typical file is the swapped
        // one.
        bool aAgainst = (ar - ab) * typical < 0;
        report.channelSwaps.push_back(aAgainst ? ChannelSwap{a.path, b.path} : ChannelSwap{b.path, a.path});
      }
  }
  std::sort(report.channelSwaps.begin(), report.channelSwaps.end(),
            [](const ChannelSwap &a, const ChannelSwap &b) { return a.swapped < b.swapped; });

  // Histograms and balance.
  std::map<std::string, size_t> folders;
  for (const FileEntry &e : files) {
    ++folders[e.folder()];
    const FileMetadata &m = e.metadata;
    if (m.width > 0 && m.height > 0) {
      ++report.resolutions[std::to_string(m.width) + "x" + std::to_string(m.height)];
      ++report.aspects[std::round(double(m.width) / double(m.height) * 20.0) / 20.0];
    }
  }
  size_t most = 0, least = SIZE_MAX;
  for (auto &[folder, count] : folders) {
    report.folders.push_back({folder, count});
    most = std::max(most, count), least = std::min(least, count);
  }
  report.balance = most ? double(least) / double(most) : 1.0;
  return report;
}

std::string toJson(const QualityReport &report, const QualityOptions &options) {
  using nlohmann::json;
  json outliers = json::array(), swaps = json::array(), corrupt = json::array(), resolutions = json::array(),
       aspects = json::array(), folders = json::array();
  for (const Outlier &o : report.outliers)
    outliers.push_back({{"path", o.path}, {"score", o.score}, {"reason", o.reason}});
  for (const ChannelSwap &s : report.channelSwaps)
    swaps.push_back({{"swapped", s.swapped}, {"original", s.original}});
  for (const UnreadableFile &u : report.corrupt)
    corrupt.push_back({{"path", u.path}, {"reason", u.reason}});
  for (auto &[resolution, count] : report.resolutions)
    resolutions.push_back({{"resolution", resolution}, {"images", count}});
  for (auto &[aspect, count] : report.aspects)
    aspects.push_back({{"aspect", aspect}, {"images", count}});
  for (const FolderCount &f : report.folders)
    folders.push_back({{"folder", f.folder},
                       {"files", f.files},
                       {"fraction", report.files ? double(f.files) / double(report.files) : 0.0}});
  json doc = {{"schema", "tpuc.dataset_report"},
              {"version", 1},
              {"files", report.files},
              {"near_threshold", options.nearThreshold},
              {"outlier_z", options.outlierZ},
              {"exact_duplicates", report.exactDuplicates},
              {"near_duplicates", report.nearDuplicates},
              {"outliers", std::move(outliers)},
              {"channel_swaps", std::move(swaps)},
              {"corrupt", std::move(corrupt)},
              {"resolutions", std::move(resolutions)},
              {"aspects", std::move(aspects)},
              {"folders", std::move(folders)},
              {"folder_balance", report.balance}};
  return doc.dump(2) + "\n";
}

} // namespace tpuc::dataset
