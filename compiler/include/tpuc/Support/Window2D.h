//===- Window2D.h - A 2-D convolution / pooling window ----------*- C++ -*-===//
// Plain data shared by the Tpu dialect's backend interface (what an op states) and the backend graph
// (what the planner and the cost model read): one type, no conversion between them.
//===----------------------------------------------------------------------===//
#ifndef TPUC_SUPPORT_WINDOW2D_H
#define TPUC_SUPPORT_WINDOW2D_H

#include <cstdint>

namespace tpuc {

/// Kernel, strides, pads (begin and end of H and W) and dilations of a 2-D window.
struct Window2D {
  int64_t kh = 1, kw = 1;
  int64_t sh = 1, sw = 1;
  int64_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
  int64_t dh = 1, dw = 1;
};

} // namespace tpuc

#endif // TPUC_SUPPORT_WINDOW2D_H
