//===- Statistics.h - A dataset's typical file, robustly (TpucDataset) -----===//
//
// The value statistics of an index (FileMetadata's mean and std) summarized per class of files that are
// compared with each other: images on their R, G, B means and average spread over 0..255, tensors of one
// dtype and shape on their mean and std. Each statistic keeps its median and its robust spread
// (1.4826 MAD), which the outliers themselves cannot drag; a file's distance from its class is the
// largest robust z-score |x - median| / spread. The quality report's outliers and the studio's
// preprocessing preview score files with this one rule (docs/DATASETS.md).
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DATASET_STATISTICS_H
#define TPUC_DATASET_STATISTICS_H

#include "tpuc/Dataset/Index.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace tpuc::dataset {

/// A class needs this many files before it says what is typical.
inline constexpr size_t kMinClassFiles = 4;
/// The key of the images' class; tensors are keyed "<dtype>[<dim>,...,]".
inline constexpr const char *kImageClass = "image";

/// One statistic over a class: its median and robust spread, 1.4826 MAD but at least the class's floor
/// (a gray level for images) plus 0.1 % of the median, so a statistic that barely varies does not make
/// noise look far.
struct RobustStatistic {
  std::string name; ///< "mean R", "mean G", "mean B", "std" (images); "mean", "std" (tensors)
  double median = 0;
  double spread = 1;
  bool operator==(const RobustStatistic &) const = default;
};

/// The files of one class, summarized.
struct FileClass {
  std::string key;
  size_t files = 0;
  std::vector<RobustStatistic> statistics;
  bool operator==(const FileClass &) const = default;
};

/// Every class of a dataset with at least kMinClassFiles files.
struct DatasetStatistics {
  std::vector<FileClass> classes;
  bool empty() const { return classes.empty(); }
  /// The class of that key, or null.
  const FileClass *find(const std::string &key) const;
  bool operator==(const DatasetStatistics &) const = default;
};

/// The median of `values` (the mean of the two middle ones for an even count; 0 when empty).
double median(std::vector<double> values);

/// The class a file belongs to; "" for a file without value statistics.
std::string classKey(const FileMetadata &metadata);
/// A file's statistics in its class's order (images: mean R, G, B (a gray image's mean three times) and
/// the average std; tensors: mean, std). Empty without statistics.
std::vector<double> classFeatures(const FileMetadata &metadata);

/// The statistics of every class of `index`.
DatasetStatistics datasetStatistics(const DatasetIndex &index);

/// How far a file lies from its class: the largest robust z over the class's statistics.
struct Deviation {
  double z = 0;
  size_t statistic = 0; ///< index into the class's statistics
  double value = 0;     ///< the file's value of that statistic
  /// "mean B 176 is far from the dataset's 41.8 (robust z 12.3)"
  std::string reason;
};
/// The robust z of `features` (classFeatures' order) against `fileClass`.
Deviation deviation(const std::vector<double> &features, const FileClass &fileClass);
/// A file against its class in `statistics`; nullopt when the file has no statistics or its class is
/// not there (too few files of its kind).
std::optional<Deviation> deviation(const FileMetadata &metadata, const DatasetStatistics &statistics);

} // namespace tpuc::dataset

#endif // TPUC_DATASET_STATISTICS_H
