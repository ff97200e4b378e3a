//===- Quality.h - A dataset's quality report (TpucDataset) ----------------===//
//
// What is wrong with a calibration set, from its index alone (no file is read again): exact duplicates
// (same content hash), near duplicates (64-bit dHash within a Hamming distance), outliers (a file's value
// statistics far from the dataset's: robust z-scores on median and MAD, so a BGR-swapped or 0-1 scaled
// copy stands out), channel-swapped copies (a near duplicate whose R and B means are exchanged), corrupt
// files, resolution and aspect histograms and the balance between folders. JSON for `tpuc dataset
// report` and the studio's report view.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DATASET_QUALITY_H
#define TPUC_DATASET_QUALITY_H

#include "tpuc/Dataset/Index.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tpuc::dataset {

struct QualityOptions {
  /// Near duplicates: dHash Hamming distance at most this (0..64).
  int nearThreshold = 5;
  /// Outliers: robust z-score (|x - median| / (1.4826 MAD)) above this in any statistic.
  double outlierZ = 5.0;
};

struct Outlier {
  std::string path;
  double score = 0; ///< the largest robust z-score
  std::string reason;
};

/// A near-duplicate pair whose red and blue means are exchanged: `swapped` is the copy whose channel
/// balance goes against the dataset's.
struct ChannelSwap {
  std::string swapped, original;
};

struct FolderCount {
  std::string folder;
  size_t files = 0;
};

struct QualityReport {
  size_t files = 0;
  /// Groups of paths with the same bytes (two or more each), by first path.
  std::vector<std::vector<std::string>> exactDuplicates;
  /// Groups of images whose dHashes are within the threshold of each other (transitively), counting each
  /// content once: exact copies alone do not make a group.
  std::vector<std::vector<std::string>> nearDuplicates;
  std::vector<Outlier> outliers;
  std::vector<ChannelSwap> channelSwaps;
  std::vector<UnreadableFile> corrupt;
  /// "WxH" -> images, and the aspect ratio w/h rounded to 0.05 -> images.
  std::map<std::string, size_t> resolutions;
  std::map<double, size_t> aspects;
  /// Files per folder ("" the root), by folder; `balance` = smallest / largest count (1 when even).
  std::vector<FolderCount> folders;
  double balance = 1.0;
};

QualityReport analyzeQuality(const DatasetIndex &index, const QualityOptions &options = {});

/// The report as JSON ({"schema": "tpuc.dataset_report", "version": 1, ...}, pretty-printed).
std::string toJson(const QualityReport &report, const QualityOptions &options);

} // namespace tpuc::dataset

#endif // TPUC_DATASET_QUALITY_H
