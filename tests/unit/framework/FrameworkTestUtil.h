//===- FrameworkTestUtil.h - Helpers shared by the ONNX Runtime tests ---===//

#ifndef TPUC_TESTS_UNIT_FRAMEWORK_FRAMEWORKTESTUTIL_H
#define TPUC_TESTS_UNIT_FRAMEWORK_FRAMEWORKTESTUTIL_H

#include "tpuc/Testing/TestAssets.h"
#include "tpuc/Simulator/OnnxRuntime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

namespace tpuc::sim::ort::test {

using tpuc::testsupport::TempDir;
using tpuc::testsupport::assetsDir;

namespace fs = std::filesystem;

/// Fails the current test (fatal) when ONNX Runtime cannot be loaded.
#define TPUC_REQUIRE_ORT()                                                                                   \
  do {                                                                                                       \
    std::string why_;                                                                                        \
    ASSERT_TRUE(::tpuc::sim::ort::available(why_)) << "ONNX Runtime is required by this test: " << why_;     \
  } while (0)

/// Cosine similarity and max abs difference of two tensors as doubles.
struct Similarity {
  double cosine = 0, maxAbsDiff = 0, maxAbsRef = 0;
};

inline Similarity similarity(const Tensor &a, const Tensor &ref) {
  Similarity s;
  std::vector<double> x = a.toDoubles(), y = ref.toDoubles();
  if (x.size() != y.size())
    return s;
  double dot = 0, nx = 0, ny = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    dot += x[i] * y[i];
    nx += x[i] * x[i];
    ny += y[i] * y[i];
    s.maxAbsDiff = std::max(s.maxAbsDiff, std::abs(x[i] - y[i]));
    s.maxAbsRef = std::max(s.maxAbsRef, std::abs(y[i]));
  }
  s.cosine = (nx == 0 && ny == 0) ? 1.0 : dot / std::sqrt(nx * ny);
  return s;
}

} // namespace tpuc::sim::ort::test

#endif // TPUC_TESTS_UNIT_FRAMEWORK_FRAMEWORKTESTUTIL_H
