//===- PassIndexFuzzer.cpp - libFuzzer target for pass-snapshot records ----===//
//
// What the pass inspector reads from a snapshot folder: `index.json` (first byte even) or a snapshot's
// `NNN-<pass>.ops.json` (odd). Either a one-line rejection naming the file, or records that stay inside
// their folder (no file name with a '/' or '..') and write back to JSON that reads the same.
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"
#include "tpuc/PassData/PassSnapshots.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

const std::string &runDir() {
  static const std::string dir = [] {
    fs::path base = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    fs::path d = base / ("tpuc-pass-index-fuzz-" + std::to_string(getpid()));
    fs::create_directories(d);
    return d.string();
  }();
  return dir;
}

bool insideFolder(const std::string &file) {
  return file.find('/') == std::string::npos && file.find("..") == std::string::npos;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
  if (data[0] & 1) {
    tpuc::Result<tpuc::OpRecords> ops = tpuc::opRecordsFromJson(text, "fuzz/001-canonicalize.ops.json");
    if (!ops) {
      tpuc::fuzz::rejectionIsOneLine(ops.error(), "fuzz/001-canonicalize.ops.json");
      return 0;
    }
    tpuc::Result<tpuc::OpRecords> again = tpuc::opRecordsFromJson(tpuc::opRecordsToJson(*ops), "again");
    if (!again || again->size() != ops->size())
      __builtin_trap();
    return 0;
  }
  const std::string index = runDir() + "/index.json";
  {
    std::ofstream out(index, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  tpuc::Result<tpuc::PassRun> run = tpuc::readPassRun(runDir());
  if (!run) {
    tpuc::fuzz::rejectionIsOneLine(run.error(), index);
    return 0;
  }
  for (const tpuc::PassSnapshot &s : run->snapshots)
    if (!insideFolder(s.irFile) || !insideFolder(s.opsFile) || !insideFolder(s.graphFile))
      __builtin_trap();
  if (!tpuc::writePassRunIndex(*run, runDir()))
    __builtin_trap();
  tpuc::Result<tpuc::PassRun> again = tpuc::readPassRun(runDir());
  if (!again || !(*again == *run))
    __builtin_trap();
  return 0;
}
