//===- ProjectFuzzer.cpp - libFuzzer target for .tpuproj files -------------===//
//
// Any file given as a project: a foreign or truncated SQLite file, a damaged page, a value of the wrong type
// or malformed JSON in a column. loadProject either refuses in one line naming the file, or returns a
// project that saves and loads back equal (what the studio does with it next).
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"
#include "project/ProjectStore.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

const fs::path &workDir() {
  static const fs::path dir = [] {
    fs::path base = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    fs::path d = base / ("tpuc-project-fuzz-" + std::to_string(getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const fs::path file = workDir() / "fuzz.tpuproj";
  std::error_code ec;
  for (const char *suffix : {"", "-journal", "-wal", "-shm"})
    fs::remove(file.string() + suffix, ec);
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
  }
  tpuc::Result<tpuc::project::Project> project = tpuc::project::loadProject(file);
  if (!project) {
    tpuc::fuzz::rejectionIsOneLine(project.error(), file.string());
    return 0;
  }
  const fs::path copy = workDir() / "copy.tpuproj";
  fs::remove(copy, ec);
  if (!tpuc::project::saveProject(*project, copy, tpuc::project::SaveMode::Replace))
    __builtin_trap();
  tpuc::Result<tpuc::project::Project> again = tpuc::project::loadProject(copy);
  if (!again || !(*again == *project))
    __builtin_trap();
  return 0;
}
