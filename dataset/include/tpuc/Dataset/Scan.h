//===- Scan.h - Scanning a dataset folder into an index (TpucDataset) -----===//
//
// A recursive scan of a folder for sample files (images jpg/png/bmp/gif/webp/..., .npy, .npz; hidden entries
// skipped), each file's metadata computed on worker threads and cached by content hash in a cache folder
// (metadata-v1.jsonl, one JSON line per distinct content), so a copy or a move of a file, or another
// dataset holding the same images, is not decoded again. With a previous index, a file whose size and
// modification time are unchanged is taken over without being read. A file that cannot be read or
// decoded is listed with the reason, never fatal. Qt-free and MLIR-free: the studio calls it in-process.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DATASET_SCAN_H
#define TPUC_DATASET_SCAN_H

#include "tpuc/Dataset/Index.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <system_error>

namespace tpuc::dataset {

/// Whether a file name is a sample the scan looks at (by extension): the images calibration decodes
/// (preprocess::isImageFile: jpg, png, bmp, gif, webp, ...), .npy and .npz.
bool isDatasetFile(std::string_view name);

/// Calls `visit` for every regular file below `root` that isDatasetFile accepts, recursively; hidden
/// entries (a name starting with '.') are skipped with everything below them. Unordered. Returns the
/// error that stopped the walk (the caller names the folder).
std::error_code
forEachDatasetFile(const std::filesystem::path &root,
                   const std::function<void(const std::filesystem::directory_entry &)> &visit);

/// "sha256:<hex>" of bytes.
std::string contentHash(const void *data, size_t size);

/// The metadata of a file's bytes (format by content, size, channels, value statistics, dHash and
/// embedding). The error is one line starting with `displayName`.
llvm::Expected<FileMetadata> computeMetadata(const void *data, size_t size, const std::string &displayName);

/// The difference hash of an 8-bit grayscale image (`width` x `height`, rows packed): box-averaged to
/// 9 x 8, bit (8 * y + x) set when pixel (x, y) is brighter than (x + 1, y).
uint64_t differenceHash(const uint8_t *gray, int width, int height);
/// Hamming distance of two hashes.
int hammingDistance(uint64_t a, uint64_t b);

struct ScanOptions {
  /// Folder of the content-hash metadata cache; empty: no cache.
  std::string cacheDir;
  /// Worker threads; 0: the hardware concurrency.
  unsigned threads = 0;
  /// The previous index of the same folder: unchanged files (same path, size and mtime) are taken over
  /// without reading them, its subsets are kept (paths no longer present dropped), and the result's
  /// `changes` say what moved or changed since.
  const DatasetIndex *previous = nullptr;
  /// Files done of the total; called from the worker threads, one call at a time.
  std::function<void(size_t done, size_t total)> progress;
  /// Polled between files; true stops the scan with a "cancelled" error.
  std::function<bool()> cancelled;
};

struct ScanResult {
  DatasetIndex index;
  /// Against ScanOptions::previous (everything added when there is none).
  IndexChanges changes;
  /// Files taken over from the previous index, found in the cache, and computed (read and decoded).
  size_t reused = 0, cached = 0, computed = 0;
  double seconds = 0;
};

/// Scans `root`. An error only when `root` is not a readable folder or the scan was cancelled.
llvm::Expected<ScanResult> scanDataset(const std::string &root, const ScanOptions &options = {});

/// The default places of a folder's index and cache when none is given: `<root>/.tpuc/index.json` and
/// `<root>/.tpuc/cache` (hidden, so scans skip them).
std::string defaultIndexPath(const std::string &root);
std::string defaultCacheDir(const std::string &indexPath);

} // namespace tpuc::dataset

#endif // TPUC_DATASET_SCAN_H
