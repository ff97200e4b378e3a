//===- Subsets.h - Choosing calibration subsets of a dataset (TpucDataset) ===//
//
// Named selections of an index's files: random (seeded), the first N by path, stratified by folder,
// a manual list, and the "most diverse N" (farthest-point sampling on the grayscale thumbnails). Every
// method is deterministic for a given index, count and seed, so a subset can be made again on another
// machine. The data list (TPU-MLIR's --data_list) is the export format.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DATASET_SUBSETS_H
#define TPUC_DATASET_SUBSETS_H

#include "tpuc/Dataset/Index.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tpuc::dataset {

/// The methods, as spelt in subsets and on the command line.
inline constexpr const char *kSubsetMethods[] = {"random", "first", "stratified", "manual", "diverse"};

struct SubsetRequest {
  std::string name;
  std::string method = "random";
  /// How many files (random, first, stratified, diverse); more than the dataset has takes them all.
  int64_t count = 0;
  uint64_t seed = 0;
  /// manual: the files (relative to the root, or absolute inside it).
  std::vector<std::string> paths;
};

/// Makes the subset. The error is one line naming the field at fault (an unknown method, a count < 1, a
/// manual path not in the index, "diverse" on a dataset without images).
llvm::Expected<Subset> makeSubset(const DatasetIndex &index, const SubsetRequest &request);

/// Farthest-point sampling: `count` indices into `embeddings` (equal-length byte vectors), starting from
/// the one nearest the mean, each next the one farthest (squared L2) from all chosen so far; ties go to
/// the lower index.
std::vector<size_t> farthestPointSample(const std::vector<const std::vector<uint8_t> *> &embeddings,
                                        size_t count);

/// The samples of a folder laid out for a multi-input model: one top-level folder per model input, named
/// after it (`input_ids/`, `attention_mask/`); the files with the same path below each of them, less the
/// extension, make one sample, their files in input order. A file outside the input folders is a sample on
/// its own (an .npz holding every input).
struct InputGroups {
  /// Every input has its folder (and there are two inputs or more); otherwise every file is a sample.
  bool grouped = false;
  /// Paths as given (relative to the root, '/'-separated), one list per sample.
  std::vector<std::vector<std::string>> samples;
  /// Files under an input folder without a partner under every other input folder.
  std::vector<std::string> unmatched;
};

/// Groups `paths` (every file of the folder, sorted) for a model with inputs `inputNames`. With `chosen`
/// (a subset's paths), the samples are those of the chosen files, in the order first chosen: choosing one
/// file of a sample takes its partners too.
InputGroups groupByInputs(const std::vector<std::string> &paths, const std::vector<std::string> &inputNames,
                          const std::vector<std::string> *chosen = nullptr);

/// Writes `paths` (relative to the index's root) as a data list: one absolute path a line.
llvm::Error writeDataList(const DatasetIndex &index, const std::vector<std::string> &paths,
                          const std::string &file);
/// Writes samples of one or more files each (relative to the index's root) as a data list: a sample a line,
/// its files separated by commas, as run_calibration reads a multi-input sample.
llvm::Error writeSampleList(const DatasetIndex &index, const std::vector<std::vector<std::string>> &samples,
                            const std::string &file);

} // namespace tpuc::dataset

#endif // TPUC_DATASET_SUBSETS_H
