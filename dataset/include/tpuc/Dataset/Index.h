//===- Index.h - A calibration dataset's index as plain data (TpucDatasetModel) ===//
//
// What a scan of a dataset folder knows: every sample file with its metadata (size, format, width and
// height, channels, content hash, and the cheap image features the subsets and the quality report use),
// the files it could not read with the reason, and the named subsets. Plain values with a versioned JSON
// form, no I/O beyond the JSON file: the project store keeps the same values, the studio shows them.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DATASET_INDEX_H
#define TPUC_DATASET_INDEX_H

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tpuc::dataset {

/// Side of the grayscale thumbnail kept as an embedding (kEmbedSide * kEmbedSide bytes).
inline constexpr int kEmbedSide = 16;

/// What the file's content says, cached by content hash (the same bytes under another path reuse it).
struct FileMetadata {
  /// By content (magic bytes), not by extension: "jpeg", "png", "bmp", "gif", "webp", "npy", "npz", ...
  std::string format;
  /// Images: pixels and the channels the file stores (1 gray, 2 gray+alpha, 3 colour, 4 colour+alpha).
  int64_t width = 0, height = 0, channels = 0;
  /// Tensors: dtype and shape of the array (.npy) or of each array (.npz, `arrays` in the file's order).
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<std::string> arrays;
  /// Value statistics: images per channel in R, G, B order (gray: one value) over 0..255 pixels; tensors one
  /// value over every element of the (first) array. The outlier check compares them with the dataset's.
  std::vector<double> mean, stddev;
  /// Images: 64-bit difference hash (9x8 grayscale, a bit per horizontally adjacent pair) for near
  /// duplicates, and the kEmbedSide^2 grayscale thumbnail for "most diverse" subsets. Empty for tensors.
  bool hasDhash = false;
  uint64_t dhash = 0;
  std::vector<uint8_t> embedding;
  bool operator==(const FileMetadata &) const = default;
};

/// One readable sample file.
struct FileEntry {
  /// Relative to the dataset root, '/'-separated.
  std::string path;
  uint64_t size = 0;
  /// Modification time (nanoseconds since the epoch): with `size` it tells an unchanged file on a rescan
  /// without reading it.
  int64_t mtimeNs = 0;
  /// "sha256:<hex>" of the bytes.
  std::string contentHash;
  FileMetadata metadata;
  /// The folder (relative to the root, "" for the root itself): the strata of stratified subsets and the
  /// per-folder balance.
  std::string folder() const;
  bool operator==(const FileEntry &) const = default;
};

/// A file the scan found but could not read; never fatal.
struct UnreadableFile {
  std::string path; ///< relative to the root
  std::string reason;
  bool operator==(const UnreadableFile &) const = default;
};

/// A named selection of the dataset's files (paths relative to the root, in the order chosen).
struct Subset {
  std::string name;
  /// "random", "first", "stratified", "manual" or "diverse".
  std::string method;
  int64_t count = 0;
  uint64_t seed = 0;
  std::vector<std::string> paths;
  bool operator==(const Subset &) const = default;
};

/// A scanned dataset folder.
struct DatasetIndex {
  /// The folder scanned, absolute in memory (the JSON file and the project store write it relative to
  /// themselves where possible).
  std::string root;
  /// Sorted by path.
  std::vector<FileEntry> files;
  std::vector<UnreadableFile> unreadable;
  std::vector<Subset> subsets;
  bool operator==(const DatasetIndex &) const = default;

  /// The file at `path` (relative to the root), or null.
  const FileEntry *find(const std::string &path) const;
  /// The subset named `name`, or null.
  const Subset *findSubset(const std::string &name) const;
  /// Adds or replaces the subset of that name.
  void putSubset(Subset subset);
  /// The absolute path of a file of this dataset.
  std::string absolutePath(const std::string &relative) const;
};

/// How a rescan differs from the previous index.
struct IndexChanges {
  std::vector<std::string> added, removed, changed;
  /// (old path, new path) of files whose content now lives under another path.
  std::vector<std::pair<std::string, std::string>> moved;
  size_t unchanged = 0;
  bool empty() const { return added.empty() && removed.empty() && changed.empty() && moved.empty(); }
};

/// Compares two indexes of the same folder by path and content hash: a path present in both with another
/// hash is changed; a path gone whose hash appears at a new path is moved; the rest added or removed.
IndexChanges diffIndexes(const DatasetIndex &previous, const DatasetIndex &current);

/// The JSON schema name and version of an index file.
inline constexpr const char *kIndexSchema = "tpuc.dataset_index";
inline constexpr int kIndexVersion = 1;

/// The JSON of one file's metadata (the content-hash cache stores it) and its inverse.
std::string metadataToJson(const FileMetadata &metadata);
llvm::Expected<FileMetadata> metadataFromJson(const std::string &json);

/// Writes the index as JSON to `file`, its root relative to the file's folder where that is at most two
/// levels up (so a project folder can move); atomically (a temporary file renamed over it).
llvm::Error writeIndex(const DatasetIndex &index, const std::string &file);
/// Reads an index file; the error is one line naming the file and the field at fault.
llvm::Expected<DatasetIndex> readIndex(const std::string &file);

/// The subsets as JSON (the project store keeps them in one column) and back.
std::string subsetsToJson(const std::vector<Subset> &subsets);
llvm::Expected<std::vector<Subset>> subsetsFromJson(const std::string &json);

} // namespace tpuc::dataset

#endif // TPUC_DATASET_INDEX_H
