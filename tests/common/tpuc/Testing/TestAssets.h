//===- TestAssets.h - Where tests find fetched assets; temporary dirs ---===//
//
// Shared by the unit, model and GUI tests and the benches: the asset cache that scripts/fetch-assets.sh
// fills (real models, tokenizers, photos, ONNX Runtime) and a temporary directory removed at scope exit.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_TESTING_TESTASSETS_H
#define TPUC_TESTING_TESTASSETS_H

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace tpuc::testsupport {

/// The asset cache: $TPUC_ASSETS (the variable scripts/fetch-assets.sh honours), else $TPUC_ASSETS_DIR,
/// else the build's TPUC_ASSETS_DIR cache variable.
inline std::string assetsDir() {
  for (const char *name : {"TPUC_ASSETS", "TPUC_ASSETS_DIR"})
    if (const char *env = std::getenv(name); env && *env)
      return env;
  return TPUC_DEFAULT_ASSETS_DIR;
}

/// The hint every test prints when an asset is missing.
inline constexpr const char *kFetchHint = "run scripts/fetch-assets.sh (or set TPUC_ASSETS)";

/// The photos of the asset cache (`<assets>/images/*.jpg|png`), sorted; empty when there are none.
inline std::vector<std::string> assetPhotos(const std::string &assets = assetsDir()) {
  std::vector<std::string> photos;
  std::error_code ec;
  for (const auto &entry : std::filesystem::directory_iterator(assets + "/images", ec)) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".jpg" || ext == ".png")
      photos.push_back(entry.path().string());
  }
  std::sort(photos.begin(), photos.end());
  return photos;
}

/// A fresh directory under the system temp dir, removed with everything in it at scope exit.
class TempDir {
public:
  explicit TempDir(const std::string &prefix = "tpuc-test") {
    std::random_device random;
    dir = std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(random()));
    std::filesystem::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  std::string file(const std::string &name) const { return (dir / name).string(); }
  std::string path() const { return dir.string(); }

private:
  std::filesystem::path dir;
};

} // namespace tpuc::testsupport

#endif // TPUC_TESTING_TESTASSETS_H
