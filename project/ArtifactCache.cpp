// The content-addressed artifact cache beside a project.
#include "project/ArtifactCache.h"

#include "project/ProjectStore.h"
#include "tpuc/Support/FileWrite.h"

#include <unistd.h>

namespace fs = std::filesystem;

namespace tpuc::project {

fs::path ArtifactCache::pathFor(const std::string &hash) const {
  std::string hex = hash.substr(hash.find(':') == std::string::npos ? 0 : hash.find(':') + 1);
  return m_dir / hex.substr(0, 2) / hex;
}

std::optional<fs::path> ArtifactCache::find(const std::string &hash) const {
  std::error_code ec;
  fs::path path = pathFor(hash);
  if (hash.empty() || !fs::is_regular_file(path, ec))
    return std::nullopt;
  return path;
}

Result<std::string> ArtifactCache::storeBytes(std::string_view bytes) {
  std::string hash = hashBytes(bytes);
  if (find(hash))
    return hash;
  fs::path target = pathFor(hash);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (Result<void> written = writeFileAtomically(target.string(), bytes); !written)
    return Failure{written.error()};
  return hash;
}

Result<std::string> ArtifactCache::storeFile(const fs::path &source) {
  Result<std::string> hash = hashFile(source);
  if (!hash)
    return hash;
  if (find(*hash))
    return hash;
  fs::path target = pathFor(*hash);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  fs::path temp = target;
  temp += ".tmp-" + std::to_string(::getpid());
  fs::copy_file(source, temp, fs::copy_options::overwrite_existing, ec);
  if (!ec)
    fs::rename(temp, target, ec);
  if (ec) {
    Failure failure{"cannot copy '" + source.string() + "' into the cache: " + ec.message()};
    fs::remove(temp, ec);
    return failure;
  }
  return hash;
}

} // namespace tpuc::project
