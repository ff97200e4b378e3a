//===- Subsets.cpp - Subset selection and the data list export -------------===//
//
// Random choices use our own Fisher-Yates over mt19937_64 (std::shuffle and the distributions are not
// the same across standard libraries), so a seed picks the same files everywhere. Chosen files are kept
// in path order, except "diverse", whose order is the order of choice (a prefix is a diverse subset too).
//
//===----------------------------------------------------------------------===//

#include "tpuc/Dataset/Subsets.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

namespace tpuc::dataset {
namespace fs = std::filesystem;

namespace {

/// The first `count` of a seeded shuffle of 0..n-1.
std::vector<size_t> randomPick(size_t n, size_t count, uint64_t seed) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i)
    order[i] = i;
  std::mt19937_64 rng(seed);
  count = std::min(count, n);
  for (size_t i = 0; i < count; ++i) {
    // Unbiased draw from [i, n) by rejection.
    uint64_t range = n - i, limit = UINT64_MAX - UINT64_MAX % range, draw;
    do
      draw = rng();
    while (draw >= limit);
    std::swap(order[i], order[i + draw % range]);
  }
  order.resize(count);
  std::sort(order.begin(), order.end());
  return order;
}

} // namespace

std::vector<size_t> farthestPointSample(const std::vector<const std::vector<uint8_t> *> &embeddings,
                                        size_t count) {
  size_t n = embeddings.size();
  count = std::min(count, n);
  if (count == 0)
    return {};
  size_t dims = embeddings.front()->size();
  std::vector<double> mean(dims, 0.0);
  for (const auto *e : embeddings)
    for (size_t d = 0; d < dims; ++d)
      mean[d] += (*e)[d];
  for (double &m : mean)
    m /= double(n);
  size_t first = 0;
  double best = -1;
  for (size_t i = 0; i < n; ++i) {
    double dist = 0;
    for (size_t d = 0; d < dims; ++d)
      dist += ((*embeddings[i])[d] - mean[d]) * ((*embeddings[i])[d] - mean[d]);
    if (best < 0 || dist < best)
      best = dist, first = i;
  }
  std::vector<size_t> chosen{first};
  // nearest[i]: squared distance of i to the nearest chosen point, updated with each choice.
  std::vector<int64_t> nearest(n, INT64_MAX);
  for (size_t k = 1; k < count; ++k) {
    const uint8_t *last = embeddings[chosen.back()]->data();
    size_t farthest = 0;
    int64_t farthestDist = -1;
    for (size_t i = 0; i < n; ++i) {
      const uint8_t *e = embeddings[i]->data();
      int64_t dist = 0;
      for (size_t d = 0; d < dims; ++d) {
        int diff = int(e[d]) - int(last[d]);
        dist += diff * diff;
      }
      nearest[i] = std::min(nearest[i], dist);
      if (nearest[i] > farthestDist)
        farthestDist = nearest[i], farthest = i;
    }
    // Every point already coincides with a chosen one (duplicates): take the lowest unchosen index.
    if (farthestDist == 0)
      for (size_t i = 0; i < n; ++i)
        if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) {
          farthest = i;
          break;
        }
    nearest[farthest] = 0;
    chosen.push_back(farthest);
  }
  return chosen;
}

llvm::Expected<Subset> makeSubset(const DatasetIndex &index, const SubsetRequest &request) {
  Subset subset{request.name, request.method, request.count, request.seed, {}};
  if (request.name.empty())
    return llvm::createStringError("subset: 'name' is empty");
  if (std::find(std::begin(kSubsetMethods), std::end(kSubsetMethods), request.method) ==
      std::end(kSubsetMethods))
    return llvm::createStringError("subset '" + request.name + "': 'method' " + request.method +
                                   " is not one of random, first, stratified, manual, diverse");
  const std::vector<FileEntry> &files = index.files;
  if (request.method == "manual") {
    if (request.paths.empty())
      return llvm::createStringError("subset '" + request.name + "': a manual subset needs its files");
    for (const std::string &given : request.paths) {
      std::string relative = given;
      if (fs::path(given).is_absolute())
        relative = fs::path(given).lexically_normal().lexically_relative(index.root).generic_string();
      if (!index.find(relative))
        return llvm::createStringError("subset '" + request.name + "': " + given +
                                       " is not a readable file of " + index.root);
      subset.paths.push_back(relative);
    }
    subset.count = int64_t(subset.paths.size());
    return subset;
  }
  if (request.count < 1)
    return llvm::createStringError("subset '" + request.name + "': 'count' must be at least 1");
  size_t count = size_t(request.count);
  if (request.method == "first") {
    for (size_t i = 0; i < std::min(count, files.size()); ++i)
      subset.paths.push_back(files[i].path);
  } else if (request.method == "random") {
    for (size_t i : randomPick(files.size(), count, request.seed))
      subset.paths.push_back(files[i].path);
  } else if (request.method == "stratified") {
    // Each folder gets its proportional share of `count`, rounded by largest remainder (ties to the
    // earlier folder), then a seeded random pick inside each folder.
    std::map<std::string, std::vector<size_t>> folders;
    for (size_t i = 0; i < files.size(); ++i)
      folders[files[i].folder()].push_back(i);
    count = std::min(count, files.size());
    std::vector<std::pair<std::string, size_t>> shares;
    std::vector<std::pair<double, size_t>> remainders;
    size_t given = 0;
    for (auto &[folder, members] : folders) {
      double exact = double(count) * double(members.size()) / double(files.size());
      size_t share = size_t(exact);
      remainders.emplace_back(exact - double(share), shares.size());
      shares.emplace_back(folder, share);
      given += share;
    }
    std::stable_sort(remainders.begin(), remainders.end(),
                     [](auto &a, auto &b) { return a.first > b.first; });
    for (size_t k = 0; given < count && k < remainders.size(); ++k, ++given)
      ++shares[remainders[k].second].second;
    uint64_t stratum = 0;
    std::vector<size_t> picked;
    for (auto &[folder, share] : shares) {
      const std::vector<size_t> &members = folders[folder];
      for (size_t j : randomPick(members.size(), share, request.seed + stratum++))
        picked.push_back(members[j]);
    }
    std::sort(picked.begin(), picked.end());
    for (size_t i : picked)
      subset.paths.push_back(files[i].path);
  } else { // diverse
    std::vector<const std::vector<uint8_t> *> embeddings;
    std::vector<size_t> owners;
    for (size_t i = 0; i < files.size(); ++i)
      if (files[i].metadata.embedding.size() == size_t(kEmbedSide * kEmbedSide)) {
        embeddings.push_back(&files[i].metadata.embedding);
        owners.push_back(i);
      }
    if (embeddings.empty())
      return llvm::createStringError("subset '" + request.name +
                                     "': 'diverse' needs images (it compares their thumbnails); " +
                                     index.root + " has none");
    for (size_t k : farthestPointSample(embeddings, count))
      subset.paths.push_back(files[owners[k]].path);
  }
  return subset;
}

llvm::Error writeDataList(const DatasetIndex &index, const std::vector<std::string> &paths,
                          const std::string &file) {
  std::vector<std::vector<std::string>> samples;
  samples.reserve(paths.size());
  for (const std::string &path : paths)
    samples.push_back({path});
  return writeSampleList(index, samples, file);
}

llvm::Error writeSampleList(const DatasetIndex &index, const std::vector<std::vector<std::string>> &samples,
                            const std::string &file) {
  std::ofstream out(file, std::ios::binary);
  for (const std::vector<std::string> &sample : samples) {
    for (size_t i = 0; i < sample.size(); ++i)
      out << (i ? "," : "") << index.absolutePath(sample[i]);
    out << "\n";
  }
  out.close();
  if (!out)
    return llvm::createStringError(file + ": cannot write the data list");
  return llvm::Error::success();
}

InputGroups groupByInputs(const std::vector<std::string> &paths, const std::vector<std::string> &inputNames,
                          const std::vector<std::string> *chosen) {
  InputGroups groups;
  // The input a path is under, and its key there (the rest of the path less the extension).
  auto split = [&](const std::string &path) -> std::pair<int, std::string> {
    const size_t slash = path.find('/');
    if (slash == std::string::npos)
      return {-1, path};
    auto it = std::find(inputNames.begin(), inputNames.end(), path.substr(0, slash));
    if (it == inputNames.end())
      return {-1, path};
    std::string key = path.substr(slash + 1);
    const size_t dot = key.rfind('.');
    if (dot != std::string::npos && key.find('/', dot) == std::string::npos)
      key.resize(dot);
    return {static_cast<int>(it - inputNames.begin()), key};
  };
  std::vector<bool> hasFolder(inputNames.size(), false);
  std::map<std::string, std::vector<std::string>> byKey; // key -> one path per input ("" when missing)
  for (const std::string &path : paths)
    if (auto [input, key] = split(path); input >= 0) {
      hasFolder[input] = true;
      auto &files = byKey.try_emplace(key, inputNames.size()).first->second;
      files[input] = path;
    }
  groups.grouped =
      inputNames.size() > 1 && std::all_of(hasFolder.begin(), hasFolder.end(), [](bool b) { return b; });
  const std::vector<std::string> &order = chosen ? *chosen : paths;
  std::set<std::string> taken;
  for (const std::string &path : order) {
    auto [input, key] = groups.grouped ? split(path) : std::pair<int, std::string>{-1, path};
    if (input < 0) {
      groups.samples.push_back({path});
      continue;
    }
    if (!taken.insert(key).second)
      continue;
    auto found = byKey.find(key);
    if (found == byKey.end()) { // a chosen file that is not among the folder's
      groups.unmatched.push_back(path);
      continue;
    }
    const std::vector<std::string> &files = found->second;
    if (std::any_of(files.begin(), files.end(), [](const std::string &f) { return f.empty(); })) {
      for (const std::string &f : files)
        if (!f.empty())
          groups.unmatched.push_back(f);
      continue;
    }
    groups.samples.push_back(files);
  }
  return groups;
}

} // namespace tpuc::dataset
