// The content-addressed cache of regenerable artifacts that lives beside a project (`<file>.cache/`).
#ifndef TPUC_APP_PROJECT_ARTIFACTCACHE_H
#define TPUC_APP_PROJECT_ARTIFACTCACHE_H

#include "tpuc/Support/Result.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace tpuc::project {

/// Files keyed by "sha256:<hex>" content hashes. Nothing in the project depends on the cache
/// existing: a missing entry means "recompute", so deleting the folder is always safe.
class ArtifactCache {
public:
  explicit ArtifactCache(std::filesystem::path dir) : m_dir(std::move(dir)) {}

  const std::filesystem::path &dir() const { return m_dir; }
  /// Where the artifact with `hash` lives (whether or not it exists): `<dir>/<ab>/<abcdef...>`.
  std::filesystem::path pathFor(const std::string &hash) const;
  /// The artifact's path when it is present, else nullopt.
  std::optional<std::filesystem::path> find(const std::string &hash) const;
  /// Copies a file into the cache (atomically: temp file then rename); returns its hash.
  Result<std::string> storeFile(const std::filesystem::path &source);
  /// Stores bytes; returns their hash.
  Result<std::string> storeBytes(std::string_view bytes);

private:
  std::filesystem::path m_dir;
};

} // namespace tpuc::project

#endif
