//===- Window.cpp - Stride phases of padded input planes ------------------===//
// The one non-trivial piece of Window.h: gathering a padded input plane into its stride phases.
//===----------------------------------------------------------------------===//
#include "Window.h"

#include <algorithm>
#include <cstring>

namespace tpuc::sim::ref {

// Stride-2 column gathers vectorize with AVX-512/AVX2 shuffles; the clones are chosen at run time.
__attribute__((target_clones("avx512f", "avx2", "default"))) void
buildPhases(const Geometry &g, const Phases &ph, const float *src, float fill, float *buffer) {
  int64_t hq = ph.hq, wq = ph.wq;
  for (int64_t qy = 0; qy < g.sh; ++qy) {
    for (int64_t qx = 0; qx < g.sw; ++qx) {
      float *plane = buffer + (qy * g.sw + qx) * ph.planeSize;
      auto [lo, hi] = validRange(wq, g.sw, qx - g.padLeft, g.iw);
      for (int64_t r = 0; r < hq; ++r) {
        float *dst = plane + r * wq;
        int64_t iy = r * g.sh + qy - g.padTop;
        if (iy < 0 || iy >= g.ih) {
          std::fill(dst, dst + wq, fill);
          continue;
        }
        const float *row = src + iy * g.iw;
        std::fill(dst, dst + lo, fill);
        if (g.sw == 1) {
          std::memcpy(dst + lo, row + lo + qx - g.padLeft, (hi - lo) * sizeof(float));
        } else if (g.sw == 2) { // a constant stride lets the compiler use shuffles
          const float *from = row + qx - g.padLeft;
          for (int64_t j = lo; j < hi; ++j)
            dst[j] = from[2 * j];
        } else
          for (int64_t j = lo; j < hi; ++j)
            dst[j] = row[j * g.sw + qx - g.padLeft];
        std::fill(dst + hi, dst + wq, fill);
      }
      std::fill(plane + hq * wq, plane + ph.planeSize, fill);
    }
  }
}

} // namespace tpuc::sim::ref
