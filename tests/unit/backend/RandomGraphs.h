//===- RandomGraphs.h - Seeded random conv chains for property tests ------===//

#ifndef TPUC_TESTS_BACKEND_RANDOMGRAPHS_H
#define TPUC_TESTS_BACKEND_RANDOMGRAPHS_H

#include "tpuc/Backend/Graph.h"

#include <random>
#include <string>

namespace tpuc::backend::testing {

/// A chain of conv / depthwise conv / pool / unary ops with residual adds to
/// earlier values of the same shape, and sometimes a reshape + matmul tail.
/// Same seed, same graph; `big` draws tensors large enough that groups must
/// be sliced (batch up to 4, 256 channels, 224 rows).
inline Graph randomChain(unsigned seed, int length = 12, bool big = false) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const DType dtypes[] = {DType::INT8, DType::BF16, DType::F32};
  GraphBuilder b(dtypes[pick(0, 2)]);
  int64_t n = pick(1, big ? 4 : 2), c = pick(1, big ? 256 : 48);
  int64_t h = pick(6, big ? 224 : 80), w = pick(6, big ? 224 : 80);
  int x = b.input("in", {n, c, h, w});
  std::vector<int> history = {x};
  for (int i = 0; i < length; ++i) {
    std::string name = "op" + std::to_string(i);
    const Graph &g = b.get();
    const Value &v = g.values[x];
    int64_t curH = v.dim(2), curW = v.dim(3), curC = v.dim(1);
    int kind = pick(0, 9);
    if (kind <= 3) {
      int64_t k = std::min<int64_t>(pick(0, 2) * 2 + 1, std::min(curH, curW));
      int64_t s = (curH >= 8 && curW >= 8 && pick(0, 3) == 0) ? 2 : 1;
      int64_t d = (k == 3 && pick(0, 4) == 0 && curH > 6 && curW > 6) ? 2 : 1;
      x = b.conv(name, x, pick(1, big ? 512 : 96), k, s, (k / 2) * d, 1, d);
    } else if (kind == 4) {
      x = b.conv(name, x, curC, 3, 1, 1, /*groups=*/curC);
    } else if (kind == 5 && curH >= 4 && curW >= 4) {
      x = b.maxPool(name, x, 2, 2, 0);
    } else if (kind == 6) {
      x = b.unary(name, x);
    } else {
      // Residual add with an earlier value of the same shape, else unary.
      int partner = -1;
      for (int hv : history)
        if (hv != x && b.get().values[hv].shape == v.shape)
          partner = hv;
      x = partner >= 0 ? b.add(name, x, partner) : b.unary(name, x);
    }
    history.push_back(x);
  }
  if (pick(0, 2) == 0) {
    const Value &v = b.get().values[x];
    int64_t flat = v.dim(1) * v.dim(2) * v.dim(3);
    x = b.reshape("flatten", x, {v.dim(0), flat});
    x = b.matmul("fc", x, pick(2, 40));
  }
  b.output(x);
  return b.take();
}

} // namespace tpuc::backend::testing

#endif // TPUC_TESTS_BACKEND_RANDOMGRAPHS_H
