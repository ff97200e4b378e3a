//===- Window.h - Geometry of sliding-window kernels (internal) -*- C++ -*-===//
// Conv, depthwise conv and pooling share it: 1-D ops are 2-D ops of height 1, and the padded input can
// be split into stride phases so that every kernel tap reads contiguous memory.
//===----------------------------------------------------------------------===//
#ifndef TPUC_SIMULATOR_REFERENCE_WINDOW_H
#define TPUC_SIMULATOR_REFERENCE_WINDOW_H

#include "llvm/ADT/ArrayRef.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace tpuc::sim::ref {

/// The geometry of a 1-D or 2-D window op; 1-D ops are 2-D ops of height 1.
struct Geometry {
  int64_t n, ic, ih, iw, oc, oh, ow;
  int64_t kh, kw, sh, sw, dh, dw, padTop, padLeft;
  int64_t group;
};

inline Geometry makeGeometry(llvm::ArrayRef<int64_t> in, llvm::ArrayRef<int64_t> out,
                             llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> strides,
                             llvm::ArrayRef<int64_t> pads, llvm::ArrayRef<int64_t> dilations, int64_t group) {
  Geometry g{};
  g.n = in[0];
  g.ic = in[1];
  g.oc = out[1];
  g.group = group;
  if (in.size() == 4) {
    g.ih = in[2], g.iw = in[3], g.oh = out[2], g.ow = out[3];
    g.kh = kernel[0], g.kw = kernel[1], g.sh = strides[0], g.sw = strides[1];
    g.dh = dilations[0], g.dw = dilations[1], g.padTop = pads[0], g.padLeft = pads[1];
  } else {
    g.ih = g.oh = 1, g.iw = in[2], g.ow = out[2];
    g.kh = 1, g.kw = kernel[0], g.sh = 1, g.sw = strides[0];
    g.dh = 1, g.dw = dilations[0], g.padTop = 0, g.padLeft = pads[0];
  }
  return g;
}

/// The range [lo, hi) of i in [0, count) for which `i * stride + offset` lies in [0, limit).
inline std::pair<int64_t, int64_t> validRange(int64_t count, int64_t stride, int64_t offset, int64_t limit) {
  int64_t lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  int64_t last = limit - 1 - offset;
  int64_t hi = last < 0 ? 0 : last / stride + 1;
  hi = std::min(hi, count);
  return {std::min(lo, hi), hi};
}

/// Sizes of the phase planes of a window op: the padded input split by row (sh) and column (sw) phase,
/// each plane `hq` x `wq` plus `wq` floats of slack for reads past the last row. Phase (qy, qx) holds
/// padded rows qy, qy + sh, ... and columns qx, qx + sw, ...; the padded input covers every window, also
/// ceil-mode windows that overhang the end pads.
struct Phases {
  int64_t hq, wq, planeSize;
  explicit Phases(const Geometry &g) {
    int64_t hp = (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1;
    int64_t wp = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
    hq = (hp + g.sh - 1) / g.sh;
    wq = (wp + g.sw - 1) / g.sw;
    planeSize = hq * wq + wq;
  }
  /// Floats of scratch: all phase planes plus the padded-width output.
  int64_t scratchSize(const Geometry &g) const { return g.sh * g.sw * planeSize + g.oh * wq; }
};

/// Fills the phase planes of one input plane `src` at `buffer` (Phases::planeSize floats per plane, row
/// phase major); cells outside the input hold `fill`.
void buildPhases(const Geometry &g, const Phases &ph, const float *src, float fill, float *buffer);

/// Where each kernel tap (ky, kx), in row-major tap order, reads relative to the phase buffer: its phase
/// plane offset by the tap, so output (oy, ox) of an output laid out with row stride `wq` reads element
/// `oy * wq + ox` from there.
inline std::vector<int64_t> tapOffsets(const Geometry &g, const Phases &ph) {
  std::vector<int64_t> offsets;
  for (int64_t ky = 0; ky < g.kh; ++ky)
    for (int64_t kx = 0; kx < g.kw; ++kx) {
      int64_t rowOffset = ky * g.dh, colOffset = kx * g.dw;
      offsets.push_back(((rowOffset % g.sh) * g.sw + colOffset % g.sw) * ph.planeSize +
                        (rowOffset / g.sh) * ph.wq + colOffset / g.sw);
    }
  return offsets;
}

/// How combineTaps folds a tap into the accumulator.
enum class TapOp { MulAdd, Add, Max };

inline float tapStep(TapOp op, float acc, float w, float x) {
  return op == TapOp::MulAdd ? acc + w * x : op == TapOp::Add ? acc + x : std::max(acc, x);
}

/// acc[i] = init, then every tap t folded in: acc[i] op= (weights[t] *) taps[t][i], for i in [0, total).
/// Taps go in passes of three, so each pass loads and stores the accumulator once for three taps; the
/// pass's pointers and weights are locals, which lets the compiler keep them in registers and vectorize.
template <TapOp Op>
inline void combineTaps(int64_t numTaps, int64_t total, float *__restrict acc, float init,
                        const float *const *taps, const float *weights) {
  for (int64_t t = 0; t < numTaps || t == 0; t += 3) {
    int64_t count = std::min<int64_t>(3, numTaps - t);
    const float *__restrict p0 = count > 0 ? taps[t] : nullptr;
    const float *__restrict p1 = count > 1 ? taps[t + 1] : nullptr;
    const float *__restrict p2 = count > 2 ? taps[t + 2] : nullptr;
    float w0 = weights && count > 0 ? weights[t] : 1.0f, w1 = weights && count > 1 ? weights[t + 1] : 1.0f;
    float w2 = weights && count > 2 ? weights[t + 2] : 1.0f;
    bool first = t == 0;
    if (count == 3) {
      for (int64_t i = 0; i < total; ++i) {
        float a = first ? init : acc[i];
        a = tapStep(Op, a, w0, p0[i]);
        a = tapStep(Op, a, w1, p1[i]);
        acc[i] = tapStep(Op, a, w2, p2[i]);
      }
    } else if (count == 2) {
      for (int64_t i = 0; i < total; ++i)
        acc[i] = tapStep(Op, tapStep(Op, first ? init : acc[i], w0, p0[i]), w1, p1[i]);
    } else if (count == 1) {
      for (int64_t i = 0; i < total; ++i)
        acc[i] = tapStep(Op, first ? init : acc[i], w0, p0[i]);
    } else {
      for (int64_t i = 0; i < total; ++i)
        acc[i] = init;
    }
  }
}

} // namespace tpuc::sim::ref

#endif // TPUC_SIMULATOR_REFERENCE_WINDOW_H
