//===- Chips.cpp - Chip names from the profile folders ---------------------===//

#include "tpuc/Driver/Chips.h"

#include <cstdlib>
#include <filesystem>
#include <set>

namespace fs = std::filesystem;

namespace tpuc::driver {

std::vector<std::string> chipSearchDirs(const std::vector<std::string> &extraDirs) {
  std::vector<std::string> dirs(extraDirs);
  if (const char *env = std::getenv("TPUC_CHIP_DIR"); env && *env)
    dirs.emplace_back(env);
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    dirs.push_back((exe.parent_path().parent_path() / "share/tpu-studio/chips").string());
#ifdef TPUC_SOURCE_CHIP_DIR
  dirs.emplace_back(TPUC_SOURCE_CHIP_DIR);
#endif
  return dirs;
}

std::vector<std::string> listChips(const std::vector<std::string> &extraDirs) {
  std::set<std::string> names;
  for (const std::string &dir : chipSearchDirs(extraDirs)) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".json")
        names.insert(it->path().stem().string());
  }
  return {names.begin(), names.end()};
}

} // namespace tpuc::driver
