//===- Scan.cpp - Folder scan, per-file metadata, the content-hash cache ---===//
//
// Files are enumerated first (sorted, so every run numbers them alike), then worker threads take them one
// at a time: an unchanged file (size, mtime) of the previous index is copied, otherwise the bytes are read
// once, hashed (SHA-256), and the metadata looked up in the cache by hash or computed by decoding. Each
// worker holds one file's bytes and one decoded image at a time, so memory does not grow with the count.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Dataset/Scan.h"

#include "tpuc/Preprocess/Preprocess.h"
#include "tpuc/Support/Npz.h"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

namespace tpuc::dataset {
namespace fs = std::filesystem;

namespace {

std::string lowerExtension(std::string_view name) {
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos)
    return {};
  std::string ext(name.substr(dot + 1));
  for (char &c : ext)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

/// The format by magic bytes.
std::string sniffFormat(const uint8_t *p, size_t n) {
  auto starts = [&](const char *magic, size_t len, size_t at = 0) {
    return n >= at + len && std::memcmp(p + at, magic, len) == 0;
  };
  if (starts("\xFF\xD8\xFF", 3))
    return "jpeg";
  if (starts("\x89PNG\r\n\x1A\n", 8))
    return "png";
  if (starts("BM", 2))
    return "bmp";
  if (starts("GIF8", 4))
    return "gif";
  if (starts("RIFF", 4) && starts("WEBP", 4, 8))
    return "webp";
  if (starts("\x93NUMPY", 6))
    return "npy";
  if (starts("PK\x03\x04", 4) || starts("PK\x05\x06", 4))
    return "npz";
  if (starts("8BPS", 4))
    return "psd";
  if (n >= 2 && p[0] == 'P' && p[1] >= '1' && p[1] <= '6')
    return "pnm";
  return "";
}

/// Mean and standard deviation of a tensor's values.
void tensorStatistics(const Tensor &tensor, FileMetadata &m) {
  double sum = 0, squares = 0;
  int64_t n = tensor.numElements();
  for (int64_t i = 0; i < n; ++i) {
    double v = tensor.valueAsDouble(i);
    sum += v, squares += v * v;
  }
  double mean = n ? sum / double(n) : 0.0;
  m.mean = {mean};
  m.stddev = {n ? std::sqrt(std::max(0.0, squares / double(n) - mean * mean)) : 0.0};
}

/// Box-averages an 8-bit gray image to `w` x `h`.
std::vector<uint8_t> boxDownscale(const uint8_t *gray, int width, int height, int w, int h) {
  std::vector<uint8_t> out(size_t(w) * h);
  for (int ty = 0; ty < h; ++ty) {
    int y0 = int(int64_t(ty) * height / h), y1 = std::max(y0 + 1, int(int64_t(ty + 1) * height / h));
    for (int tx = 0; tx < w; ++tx) {
      int x0 = int(int64_t(tx) * width / w), x1 = std::max(x0 + 1, int(int64_t(tx + 1) * width / w));
      uint64_t sum = 0;
      for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x)
          sum += gray[size_t(y) * width + x];
      uint64_t count = uint64_t(y1 - y0) * uint64_t(x1 - x0);
      out[size_t(ty) * w + tx] = static_cast<uint8_t>((sum + count / 2) / count);
    }
  }
  return out;
}

void imageMetadata(const uint8_t *data, size_t size, const std::string &name, FileMetadata &m) {
  int channels = preprocess::imageInfo(data, size, name).channels;
  preprocess::Image image = preprocess::decodeImage(data, size, name, preprocess::PixelFormat::RGB);
  m.width = image.width, m.height = image.height, m.channels = channels;
  size_t pixels = size_t(image.width) * image.height;
  double sum[3] = {0, 0, 0}, squares[3] = {0, 0, 0};
  std::vector<uint8_t> gray(pixels);
  const uint8_t *p = image.pixels.data();
  for (size_t i = 0; i < pixels; ++i, p += 3) {
    for (int c = 0; c < 3; ++c)
      sum[c] += p[c], squares[c] += double(p[c]) * p[c];
    // OpenCV's BGR2GRAY integer coefficients, as the preprocessing's gray conversion.
    gray[i] = static_cast<uint8_t>((9798 * p[0] + 19235 * p[1] + 3735 * p[2] + 16384) >> 15);
  }
  int shown = channels <= 2 ? 1 : 3;
  for (int c = 0; c < shown; ++c) {
    double mean = sum[c] / double(pixels);
    m.mean.push_back(mean);
    m.stddev.push_back(std::sqrt(std::max(0.0, squares[c] / double(pixels) - mean * mean)));
  }
  m.hasDhash = true;
  m.dhash = differenceHash(gray.data(), image.width, image.height);
  m.embedding = boxDownscale(gray.data(), image.width, image.height, kEmbedSide, kEmbedSide);
}

/// The cache: one JSON line per content hash, read on the first lookup (a rescan that takes every file
/// over from the previous index never reads it), appended to as files are computed. A line cut short by a
/// crash, or of another schema, is skipped.
class MetadataCache {
public:
  explicit MetadataCache(std::string dir) : dir(std::move(dir)) {}
  std::optional<FileMetadata> find(const std::string &hash) {
    std::lock_guard<std::mutex> lock(mutex);
    load();
    auto it = entries.find(hash);
    if (it == entries.end())
      return std::nullopt;
    return it->second;
  }
  void put(const std::string &hash, const FileMetadata &metadata) {
    std::lock_guard<std::mutex> lock(mutex);
    load();
    if (!out.is_open() || !entries.emplace(hash, metadata).second)
      return;
    // Our own line layout, so that loading can cut the metadata out without parsing the line twice.
    out << "{\"hash\":\"" << hash << "\",\"metadata\":" << metadataToJson(metadata) << "}\n";
  }

private:
  void load() {
    if (loaded || dir.empty())
      return;
    loaded = true;
    std::error_code ec;
    fs::create_directories(dir, ec);
    std::string path = (fs::path(dir) / "metadata-v1.jsonl").string();
    std::ifstream in(path);
    static const std::string head = "{\"hash\":\"", middle = "\",\"metadata\":";
    for (std::string line; std::getline(in, line);) {
      size_t split = line.find(middle);
      if (line.rfind(head, 0) != 0 || split == std::string::npos || line.back() != '}')
        continue;
      auto meta =
          metadataFromJson(line.substr(split + middle.size(), line.size() - split - middle.size() - 1));
      if (!meta) {
        llvm::consumeError(meta.takeError());
        continue;
      }
      entries[line.substr(head.size(), split - head.size())] = std::move(*meta);
    }
    out.open(path, std::ios::app | std::ios::binary);
  }

  std::string dir;
  bool loaded = false;
  std::mutex mutex;
  std::unordered_map<std::string, FileMetadata> entries;
  std::ofstream out;
};

struct Found {
  std::string relative;
  uint64_t size = 0;
  int64_t mtimeNs = 0;
};

bool readFile(const std::string &path, std::vector<uint8_t> &bytes, std::string &reason) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    reason = std::strerror(errno);
    return false;
  }
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  in.seekg(0);
  bytes.resize(size > 0 ? size_t(size) : 0);
  if (size > 0 && !in.read(reinterpret_cast<char *>(bytes.data()), size)) {
    reason = "read error";
    return false;
  }
  return true;
}

} // namespace

bool isDatasetFile(std::string_view name) {
  return preprocess::isImageFile(name) || preprocess::isTensorFile(name);
}

std::error_code forEachDatasetFile(const fs::path &root,
                                   const std::function<void(const fs::directory_entry &)> &visit) {
  std::error_code ec;
  auto options = fs::directory_options::skip_permission_denied;
  for (auto it = fs::recursive_directory_iterator(root, options, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!name.empty() && name.front() == '.') {
      if (it->is_directory(ec))
        it.disable_recursion_pending();
      continue;
    }
    if (isDatasetFile(name) && it->is_regular_file(ec))
      visit(*it);
  }
  return ec;
}

std::string contentHash(const void *data, size_t size) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data, size, digest, &length, EVP_sha256(), nullptr);
  static const char *digits = "0123456789abcdef";
  std::string hex = "sha256:";
  for (unsigned i = 0; i < length; ++i)
    hex += digits[digest[i] >> 4], hex += digits[digest[i] & 15];
  return hex;
}

uint64_t differenceHash(const uint8_t *gray, int width, int height) {
  std::vector<uint8_t> small = boxDownscale(gray, width, height, 9, 8);
  uint64_t hash = 0;
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x)
      if (small[size_t(y) * 9 + x] > small[size_t(y) * 9 + x + 1])
        hash |= uint64_t(1) << (8 * y + x);
  return hash;
}

int hammingDistance(uint64_t a, uint64_t b) { return std::popcount(a ^ b); }

llvm::Expected<FileMetadata> computeMetadata(const void *data, size_t size, const std::string &displayName) {
  const auto *bytes = static_cast<const uint8_t *>(data);
  FileMetadata m;
  m.format = sniffFormat(bytes, size);
  try {
    if (size == 0)
      return llvm::createStringError(displayName + ": empty file");
    if (m.format == "npy") {
      Tensor tensor = parseNpy(bytes, size, displayName);
      m.dtype = std::string(dtypeName(tensor.dtype()));
      m.shape = tensor.shape();
      tensorStatistics(tensor, m);
    } else if (m.format == "npz") {
      NpzFile npz = NpzFile::parse(data, size, displayName);
      if (npz.empty())
        return llvm::createStringError(displayName + ": the .npz holds no array");
      m.arrays = npz.names();
      const Tensor &first = npz.get(m.arrays.front());
      m.dtype = std::string(dtypeName(first.dtype()));
      m.shape = first.shape();
      tensorStatistics(first, m);
    } else {
      imageMetadata(bytes, size, displayName, m);
      if (m.format.empty())
        m.format = "image";
    }
  } catch (const std::exception &e) {
    std::string message = e.what();
    return llvm::createStringError(message.rfind(displayName, 0) == 0 ? message
                                                                      : displayName + ": " + message);
  }
  return m;
}

std::string defaultIndexPath(const std::string &root) {
  return (fs::path(root) / ".tpuc" / "index.json").string();
}
std::string defaultCacheDir(const std::string &indexPath) {
  return (fs::path(indexPath).parent_path() / "cache").string();
}

llvm::Expected<ScanResult> scanDataset(const std::string &rootArg, const ScanOptions &options) {
  auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  fs::path root = fs::absolute(rootArg, ec).lexically_normal();
  if (root.has_filename() == false && root.has_parent_path())
    root = root.parent_path();
  if (!fs::is_directory(root, ec))
    return llvm::createStringError(rootArg + ": not a directory");
  std::vector<Found> found;
  ec = forEachDatasetFile(root, [&](const fs::directory_entry &entry) {
    struct stat st;
    Found f;
    f.relative = entry.path().lexically_relative(root).generic_string();
    if (::stat(entry.path().c_str(), &st) == 0) {
      f.size = uint64_t(st.st_size);
      f.mtimeNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    }
    found.push_back(std::move(f));
  });
  if (ec)
    return llvm::createStringError(rootArg + ": " + ec.message());
  std::sort(found.begin(), found.end(),
            [](const Found &a, const Found &b) { return a.relative < b.relative; });

  MetadataCache cache(options.cacheDir);
  std::vector<std::optional<FileEntry>> entries(found.size());
  std::vector<std::string> reasons(found.size());
  std::atomic<size_t> next{0}, done{0}, reused{0}, cached{0}, computed{0};
  std::atomic<bool> cancelled{false};
  std::mutex progressMutex;
  auto work = [&] {
    std::vector<uint8_t> bytes;
    while (!cancelled) {
      if (options.cancelled && options.cancelled()) {
        cancelled = true;
        break;
      }
      size_t i = next++;
      if (i >= found.size())
        break;
      const Found &f = found[i];
      const FileEntry *old = options.previous ? options.previous->find(f.relative) : nullptr;
      if (old && old->size == f.size && old->mtimeNs == f.mtimeNs && !old->contentHash.empty()) {
        entries[i] = *old;
        ++reused;
      } else {
        std::string full = (root / f.relative).string(), reason;
        if (!readFile(full, bytes, reason)) {
          reasons[i] = "cannot read: " + reason;
        } else {
          FileEntry e{f.relative, f.size, f.mtimeNs, contentHash(bytes.data(), bytes.size()), {}};
          if (auto hit = cache.find(e.contentHash)) {
            e.metadata = std::move(*hit);
            ++cached;
            entries[i] = std::move(e);
          } else if (auto meta = computeMetadata(bytes.data(), bytes.size(), f.relative)) {
            e.metadata = std::move(*meta);
            cache.put(e.contentHash, e.metadata);
            ++computed;
            entries[i] = std::move(e);
          } else {
            std::string message = llvm::toString(meta.takeError());
            // The reason without the path it starts with: the report lists the path beside it.
            if (message.rfind(f.relative + ": ", 0) == 0)
              message = message.substr(f.relative.size() + 2);
            reasons[i] = message;
          }
        }
      }
      size_t finished = ++done;
      if (options.progress) {
        std::lock_guard<std::mutex> lock(progressMutex);
        options.progress(finished, found.size());
      }
    }
  };
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = unsigned(std::min<size_t>(threads, std::max<size_t>(1, found.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work();
  for (std::thread &t : pool)
    t.join();
  if (cancelled)
    return llvm::createStringError("scan of " + rootArg + " cancelled after " + std::to_string(done.load()) +
                                   "/" + std::to_string(found.size()) + " files");

  ScanResult result;
  result.index.root = root.string();
  for (size_t i = 0; i < found.size(); ++i) {
    if (entries[i])
      result.index.files.push_back(std::move(*entries[i]));
    else
      result.index.unreadable.push_back({found[i].relative, reasons[i]});
  }
  if (options.previous) {
    result.changes = diffIndexes(*options.previous, result.index);
    // Subsets follow their files: a moved file keeps its place, a removed one leaves the subset.
    std::unordered_map<std::string, std::string> movedTo(result.changes.moved.begin(),
                                                         result.changes.moved.end());
    for (Subset subset : options.previous->subsets) {
      std::vector<std::string> kept;
      for (const std::string &path : subset.paths) {
        auto moved = movedTo.find(path);
        const std::string &now = moved == movedTo.end() ? path : moved->second;
        if (result.index.find(now))
          kept.push_back(now);
      }
      subset.paths = std::move(kept);
      result.index.subsets.push_back(std::move(subset));
    }
  } else {
    for (const FileEntry &e : result.index.files)
      result.changes.added.push_back(e.path);
  }
  result.reused = reused, result.cached = cached, result.computed = computed;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

} // namespace tpuc::dataset
