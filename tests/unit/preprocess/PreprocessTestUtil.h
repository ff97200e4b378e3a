//===- PreprocessTestUtil.h - Helpers shared by the preprocessing tests ---===//
//
// A temporary directory, the fetched photo assets, and a runner for the OpenCV reference script.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_TESTS_UNIT_PREPROCESS_PREPROCESSTESTUTIL_H
#define TPUC_TESTS_UNIT_PREPROCESS_PREPROCESSTESTUTIL_H

#include "tpuc/Testing/TestAssets.h"
#include "tpuc/Preprocess/Preprocess.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace tpuc::preprocess::test {

using tpuc::testsupport::TempDir;
using tpuc::testsupport::assetsDir;

namespace fs = std::filesystem;

/// Sorted paths of the fetched photos (scripts/assets/images.sh); fails the test when absent.
inline std::vector<std::string> photos() {
  fs::path dir = fs::path(assetsDir()) / "images";
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator(dir, ec))
    if (isImageFile(entry.path().string()))
      out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  if (out.size() < 10)
    ADD_FAILURE() << "test photos missing in " << dir.string()
                  << ": run scripts/fetch-assets.sh (or set TPUC_ASSETS_DIR)";
  return out;
}

inline std::string quote(const std::string &s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Runs cv2_reference.py with `args`; false (and a test failure) if it does not exit 0.
inline bool runReference(const std::vector<std::string> &args) {
  std::string cmd = quote(TPUC_PYTHON) + " " + quote(TPUC_CV2_REFERENCE);
  for (const auto &a : args)
    cmd += " " + quote(a);
  int rc = std::system(cmd.c_str());
  if (rc != 0) {
    ADD_FAILURE() << "reference script failed (" << rc << "): " << cmd
                  << " (needs /usr/bin/python3 with python3-opencv; see scripts/setup.sh)";
    return false;
  }
  return true;
}

inline bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace tpuc::preprocess::test

#endif // TPUC_TESTS_UNIT_PREPROCESS_PREPROCESSTESTUTIL_H
