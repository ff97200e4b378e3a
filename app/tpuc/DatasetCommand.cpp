//===- DatasetCommand.cpp - tpuc dataset: scan, subset, export-list, report ===//
//
// The adapter of TpucDataset (tpuc/Dataset/*.h): the index lives in a JSON file (default
// <folder>/.tpuc/index.json, hidden from scans), the metadata cache beside it. `scan` writes the index
// (keeping the subsets of the previous one, following moved files) and prints what changed and what it
// could not read; `subset` adds a named subset; `export-list` writes one as a TPU-MLIR data list;
// `report` writes the quality report. Errors are one line naming the file or flag, exit 2.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tpuc/Dataset/Index.h"
#include "tpuc/Dataset/Quality.h"
#include "tpuc/Dataset/Scan.h"
#include "tpuc/Dataset/Subsets.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace tpuc::cli {
namespace fs = std::filesystem;

namespace {

int fail(const std::string &message) {
  std::cerr << "tpuc dataset: " << message << std::endl;
  return kExitUsage;
}

std::string indexPath(const DatasetOptions &o) {
  return o.index.empty() ? dataset::defaultIndexPath(o.folder) : o.index;
}

int scan(const DatasetOptions &o, ProgressReporter &progress) {
  std::string file = indexPath(o);
  std::optional<dataset::DatasetIndex> previous;
  std::error_code ec;
  if (fs::exists(file, ec)) {
    auto read = dataset::readIndex(file);
    if (!read)
      return fail(llvm::toString(read.takeError()) + " (remove it to scan afresh)");
    // An index written for another folder (an explicit --index given twice) is not taken over.
    if (fs::weakly_canonical(o.folder, ec) != fs::weakly_canonical(read->root, ec))
      return fail(file + ": indexes " + read->root + ", not " + o.folder + " (give another '--index')");
    previous = std::move(*read);
  }
  dataset::ScanOptions options;
  options.cacheDir = o.cache.empty() ? dataset::defaultCacheDir(file) : o.cache;
  options.threads = unsigned(o.threads);
  options.previous = previous ? &*previous : nullptr;
  size_t step = 0;
  options.progress = [&](size_t done, size_t total) {
    // About a hundred reports whatever the count.
    if (done == total || done >= step) {
      step = done + std::max<size_t>(1, total / 100);
      progress.report("dataset", double(done) / double(total),
                      "file " + std::to_string(done) + "/" + std::to_string(total));
    }
  };
  auto result = dataset::scanDataset(o.folder, options);
  if (!result)
    return fail(llvm::toString(result.takeError()));
  if (auto err = dataset::writeIndex(result->index, file))
    return fail(llvm::toString(std::move(err)));
  progress.report("dataset", 1.0, "wrote " + file, {file});
  const dataset::IndexChanges &c = result->changes;
  std::printf("tpuc dataset: %zu files indexed in %s, %zu unreadable (%zu computed, %zu from the cache, %zu "
              "unchanged), %.2f s; index written to %s\n",
              result->index.files.size(), o.folder.c_str(), result->index.unreadable.size(), result->computed,
              result->cached, result->reused, result->seconds, file.c_str());
  if (previous)
    std::printf("changes: %zu added, %zu removed, %zu changed, %zu moved\n", c.added.size(), c.removed.size(),
                c.changed.size(), c.moved.size());
  for (const auto &[from, to] : c.moved)
    std::printf("moved: %s -> %s\n", from.c_str(), to.c_str());
  if (previous) {
    for (const std::string &path : c.changed)
      std::printf("changed: %s\n", path.c_str());
    for (const std::string &path : c.removed)
      std::printf("removed: %s\n", path.c_str());
  }
  for (const dataset::UnreadableFile &u : result->index.unreadable)
    std::printf("unreadable: %s: %s\n", u.path.c_str(), u.reason.c_str());
  return kExitOk;
}

int subset(const DatasetOptions &o) {
  std::string file = indexPath(o);
  auto index = dataset::readIndex(file);
  if (!index)
    return fail(llvm::toString(index.takeError()));
  dataset::SubsetRequest request{o.name, o.method, o.count, uint64_t(o.seed), o.files};
  auto made = dataset::makeSubset(*index, request);
  if (!made)
    return fail(llvm::toString(made.takeError()));
  size_t chosen = made->paths.size();
  index->putSubset(std::move(*made));
  if (auto err = dataset::writeIndex(*index, file))
    return fail(llvm::toString(std::move(err)));
  std::printf("tpuc dataset: subset '%s' (%s) of %zu of %zu files written to %s\n", o.name.c_str(),
              o.method.c_str(), chosen, index->files.size(), file.c_str());
  return kExitOk;
}

int exportList(const DatasetOptions &o) {
  std::string file = indexPath(o);
  auto index = dataset::readIndex(file);
  if (!index)
    return fail(llvm::toString(index.takeError()));
  const dataset::Subset *subset = index->findSubset(o.subset);
  if (!subset)
    return fail(file + ": no subset '" + o.subset + "'");
  if (auto err = dataset::writeDataList(*index, subset->paths, o.output))
    return fail(llvm::toString(std::move(err)));
  std::printf("tpuc dataset: %zu files of subset '%s' written to %s\n", subset->paths.size(),
              o.subset.c_str(), o.output.c_str());
  return kExitOk;
}

int report(const DatasetOptions &o) {
  std::string file = indexPath(o);
  auto index = dataset::readIndex(file);
  if (!index)
    return fail(llvm::toString(index.takeError()));
  dataset::QualityOptions options{int(o.nearThreshold), o.outlierZ};
  dataset::QualityReport report = dataset::analyzeQuality(*index, options);
  std::string json = dataset::toJson(report, options);
  if (o.output.empty()) {
    std::cout << json;
    return kExitOk;
  }
  std::ofstream out(o.output, std::ios::binary);
  out << json;
  out.close();
  if (!out)
    return fail(o.output + ": cannot write the report");
  std::printf(
      "tpuc dataset: %zu files: %zu exact and %zu near-duplicate groups, %zu outliers, %zu channel swaps, "
      "%zu corrupt; report written to %s\n",
      report.files, report.exactDuplicates.size(), report.nearDuplicates.size(), report.outliers.size(),
      report.channelSwaps.size(), report.corrupt.size(), o.output.c_str());
  return kExitOk;
}

} // namespace

int runDataset(const DatasetOptions &o) {
  ProgressReporter progress = makeProgressReporter(o.progress);
  if (o.action == "scan")
    return scan(o, progress);
  if (o.action == "subset")
    return subset(o);
  if (o.action == "export-list")
    return exportList(o);
  return report(o);
}

} // namespace tpuc::cli
