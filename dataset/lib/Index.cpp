//===- Index.cpp - The dataset index, its JSON form and the rescan diff -------===//

#include "tpuc/Dataset/Index.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

namespace tpuc::dataset {
namespace fs = std::filesystem;
using nlohmann::json;

std::string FileEntry::folder() const {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

const FileEntry *DatasetIndex::find(const std::string &relative) const {
  auto it = std::lower_bound(files.begin(), files.end(), relative,
                             [](const FileEntry &e, const std::string &p) { return e.path < p; });
  return it != files.end() && it->path == relative ? &*it : nullptr;
}

const Subset *DatasetIndex::findSubset(const std::string &name) const {
  for (const Subset &s : subsets)
    if (s.name == name)
      return &s;
  return nullptr;
}

void DatasetIndex::putSubset(Subset subset) {
  for (Subset &s : subsets)
    if (s.name == subset.name) {
      s = std::move(subset);
      return;
    }
  subsets.push_back(std::move(subset));
}

std::string DatasetIndex::absolutePath(const std::string &relative) const {
  return (fs::path(root) / relative).lexically_normal().string();
}

IndexChanges diffIndexes(const DatasetIndex &previous, const DatasetIndex &current) {
  IndexChanges changes;
  std::map<std::string, const FileEntry *> before, after;
  for (const FileEntry &e : previous.files)
    before[e.path] = &e;
  for (const FileEntry &e : current.files)
    after[e.path] = &e;
  // Content that disappeared from its old path, by hash: a new path with that content is a move.
  std::multimap<std::string, std::string> goneByHash;
  for (auto &[path, entry] : before)
    if (!after.count(path))
      goneByHash.emplace(entry->contentHash, path);
  std::vector<std::string> gone;
  for (auto &[path, entry] : after) {
    auto old = before.find(path);
    if (old != before.end()) {
      if (old->second->contentHash == entry->contentHash)
        ++changes.unchanged;
      else
        changes.changed.push_back(path);
      continue;
    }
    auto moved = goneByHash.find(entry->contentHash);
    if (moved != goneByHash.end()) {
      changes.moved.emplace_back(moved->second, path);
      goneByHash.erase(moved);
    } else {
      changes.added.push_back(path);
    }
  }
  for (auto &[hash, path] : goneByHash)
    changes.removed.push_back(path);
  std::sort(changes.removed.begin(), changes.removed.end());
  return changes;
}

namespace {

json metadataJson(const FileMetadata &m) {
  json j = {{"format", m.format}};
  if (m.width || m.height)
    j["width"] = m.width, j["height"] = m.height, j["channels"] = m.channels;
  if (!m.dtype.empty())
    j["dtype"] = m.dtype, j["shape"] = m.shape;
  if (!m.arrays.empty())
    j["arrays"] = m.arrays;
  if (!m.mean.empty())
    j["mean"] = m.mean, j["std"] = m.stddev;
  if (m.hasDhash) {
    char hex[17];
    std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(m.dhash));
    j["dhash"] = hex;
  }
  if (!m.embedding.empty()) {
    static const char *digits = "0123456789abcdef";
    std::string hex;
    for (uint8_t b : m.embedding)
      hex += digits[b >> 4], hex += digits[b & 15];
    j["embedding"] = hex;
  }
  return j;
}

/// Reads a metadata object; throws json exceptions or std::runtime_error naming the field.
FileMetadata metadataFrom(const json &j) {
  FileMetadata m;
  m.format = j.at("format").get<std::string>();
  m.width = j.value("width", int64_t(0));
  m.height = j.value("height", int64_t(0));
  m.channels = j.value("channels", int64_t(0));
  m.dtype = j.value("dtype", std::string());
  if (j.contains("shape"))
    m.shape = j.at("shape").get<std::vector<int64_t>>();
  if (j.contains("arrays"))
    m.arrays = j.at("arrays").get<std::vector<std::string>>();
  if (j.contains("mean"))
    m.mean = j.at("mean").get<std::vector<double>>(), m.stddev = j.at("std").get<std::vector<double>>();
  if (j.contains("dhash")) {
    std::string hex = j.at("dhash").get<std::string>();
    if (hex.size() != 16 || hex.find_first_not_of("0123456789abcdef") != std::string::npos)
      throw std::runtime_error("'dhash' is not 16 hex digits");
    m.hasDhash = true;
    m.dhash = std::stoull(hex, nullptr, 16);
  }
  if (j.contains("embedding")) {
    std::string hex = j.at("embedding").get<std::string>();
    if (hex.size() != 2 * kEmbedSide * kEmbedSide ||
        hex.find_first_not_of("0123456789abcdef") != std::string::npos)
      throw std::runtime_error("'embedding' is not " + std::to_string(kEmbedSide * kEmbedSide) +
                               " hex bytes");
    auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    m.embedding.resize(hex.size() / 2);
    for (size_t i = 0; i < m.embedding.size(); ++i)
      m.embedding[i] = static_cast<uint8_t>(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
  }
  return m;
}

json subsetJson(const Subset &s) {
  return {{"name", s.name}, {"method", s.method}, {"count", s.count}, {"seed", s.seed}, {"paths", s.paths}};
}

Subset subsetFrom(const json &j) {
  Subset s;
  s.name = j.at("name").get<std::string>();
  s.method = j.at("method").get<std::string>();
  s.count = j.value("count", int64_t(0));
  s.seed = j.value("seed", uint64_t(0));
  s.paths = j.at("paths").get<std::vector<std::string>>();
  return s;
}

/// How `target` is written into a file in `dir`: relative when it is inside `dir` or at most two levels up
/// (the rule of the project store), else absolute.
std::string storedPath(const fs::path &target, const fs::path &dir) {
  fs::path rel = target.lexically_relative(dir);
  int ups = 0;
  for (const fs::path &part : rel)
    ups += part == "..";
  if (rel.empty() || ups > 2)
    return target.string();
  return rel.string();
}

} // namespace

std::string metadataToJson(const FileMetadata &metadata) { return metadataJson(metadata).dump(); }

llvm::Expected<FileMetadata> metadataFromJson(const std::string &text) {
  try {
    return metadataFrom(json::parse(text));
  } catch (const std::exception &e) {
    return llvm::createStringError(std::string("metadata: ") + e.what());
  }
}

std::string subsetsToJson(const std::vector<Subset> &subsets) {
  json list = json::array();
  for (const Subset &s : subsets)
    list.push_back(subsetJson(s));
  return list.dump();
}

llvm::Expected<std::vector<Subset>> subsetsFromJson(const std::string &text) {
  try {
    std::vector<Subset> subsets;
    for (const json &j : json::parse(text))
      subsets.push_back(subsetFrom(j));
    return subsets;
  } catch (const std::exception &e) {
    return llvm::createStringError(std::string("subsets: ") + e.what());
  }
}

llvm::Error writeIndex(const DatasetIndex &index, const std::string &file) {
  fs::path dir = fs::absolute(file).parent_path();
  json files = json::array();
  for (const FileEntry &e : index.files) {
    json j = {{"path", e.path}, {"size", e.size}, {"mtime_ns", e.mtimeNs}, {"hash", e.contentHash}};
    j["metadata"] = metadataJson(e.metadata);
    files.push_back(std::move(j));
  }
  json unreadable = json::array();
  for (const UnreadableFile &u : index.unreadable)
    unreadable.push_back({{"path", u.path}, {"reason", u.reason}});
  json subsets = json::array();
  for (const Subset &s : index.subsets)
    subsets.push_back(subsetJson(s));
  json doc = {{"schema", kIndexSchema},
              {"version", kIndexVersion},
              {"root", storedPath(fs::absolute(index.root).lexically_normal(), dir)},
              {"files", std::move(files)},
              {"unreadable", std::move(unreadable)},
              {"subsets", std::move(subsets)}};
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string temporary = file + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary);
    out << doc.dump(1) << "\n";
    out.close();
    if (!out) {
      fs::remove(temporary, ec);
      return llvm::createStringError(file + ": cannot write the dataset index");
    }
  }
  fs::rename(temporary, file, ec);
  if (ec) {
    fs::remove(temporary, ec);
    return llvm::createStringError(file + ": cannot write the dataset index: " + ec.message());
  }
  return llvm::Error::success();
}

llvm::Expected<DatasetIndex> readIndex(const std::string &file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return llvm::createStringError(file + ": cannot read the dataset index");
  json doc;
  try {
    doc = json::parse(in);
  } catch (const std::exception &e) {
    return llvm::createStringError(file + ": not JSON: " + e.what());
  }
  if (!doc.is_object() || doc.value("schema", std::string()) != kIndexSchema)
    return llvm::createStringError(file + ": 'schema' is not \"" + std::string(kIndexSchema) + "\"");
  if (!doc.contains("version") || !doc["version"].is_number_integer() ||
      doc["version"].get<int>() > kIndexVersion)
    return llvm::createStringError(file + ": 'version' is missing or newer than " +
                                   std::to_string(kIndexVersion) + " (written by a newer tpuc)");
  DatasetIndex index;
  std::string field = "root";
  try {
    fs::path root = doc.at("root").get<std::string>();
    index.root =
        (root.is_absolute() ? root : fs::absolute(file).parent_path() / root).lexically_normal().string();
    if (index.root.size() > 1 && index.root.back() == '/')
      index.root.pop_back();
    const json &files = doc.at("files");
    for (size_t i = 0; i < files.size(); ++i) {
      field = "files[" + std::to_string(i) + "]";
      const json &j = files.at(i);
      FileEntry e;
      e.path = j.at("path").get<std::string>();
      e.size = j.at("size").get<uint64_t>();
      e.mtimeNs = j.value("mtime_ns", int64_t(0));
      e.contentHash = j.at("hash").get<std::string>();
      field += ".metadata";
      e.metadata = metadataFrom(j.at("metadata"));
      index.files.push_back(std::move(e));
    }
    field = "unreadable";
    for (const json &j : doc.value("unreadable", json::array()))
      index.unreadable.push_back({j.at("path").get<std::string>(), j.at("reason").get<std::string>()});
    field = "subsets";
    for (const json &j : doc.value("subsets", json::array()))
      index.subsets.push_back(subsetFrom(j));
  } catch (const std::exception &e) {
    return llvm::createStringError(file + ": '" + field + "': " + e.what());
  }
  std::sort(index.files.begin(), index.files.end(),
            [](const FileEntry &a, const FileEntry &b) { return a.path < b.path; });
  return index;
}

} // namespace tpuc::dataset
