//===- Resize.cpp - OpenCV INTER_LINEAR resize of 8-bit images, bit-exact ---===//
//
// Reproduces cv::resize(..., INTER_LINEAR) on CV_8U data as OpenCV 4.x computes it (resize.cpp,
// resizeGeneric_ with HResizeLinear and VResizeLinear<uchar, int, short, FixedPtCast, ...>):
//  - coordinate tables: scale = 1 / (dst / src) in double; f = float((d + 0.5) * scale - 0.5),
//    s = floor(f), f -= s; weights saturate_cast<short>((1 - f) * 2048) and (f * 2048), rounded to
//    nearest even. Horizontally a source index outside [0, w-1) is clamped with weight (2048, 0);
//    vertically only the row index is clamped and the weights stay as computed.
//  - horizontal pass: int32 S[x] = a0 * p[sx] + a1 * p[sx + 1], exact.
//  - vertical pass: (((b0 * (S0 >> 4)) >> 16) + ((b1 * (S1 >> 4)) >> 16) + 2) >> 2, the formula of
//    OpenCV's SIMD path, which its scalar tail copies so every column agrees.
// OpenCV switches an exact 2x downscale to INTER_AREA's fast path; that yields the same numbers as
// this formula ((a + b + c + d + 2) >> 2), so no special case is needed.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Preprocess/Preprocess.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tpuc::preprocess {

namespace {

constexpr int kCoefBits = 11;
constexpr int kCoefScale = 1 << kCoefBits;

int16_t saturateShort(float v) {
  long r = std::lrintf(v);
  return static_cast<int16_t>(std::clamp<long>(r, INT16_MIN, INT16_MAX));
}

int floorToInt(float v) {
  int i = static_cast<int>(v);
  return i - (static_cast<float>(i) > v);
}

struct AxisTable {
  std::vector<int> index;      ///< First source index (clamped for x, raw for y).
  std::vector<int16_t> w0, w1; ///< Fixed-point weights of index and index + 1.
};

AxisTable makeAxis(int srcSize, int dstSize, bool clampWeights) {
  AxisTable t;
  t.index.resize(dstSize);
  t.w0.resize(dstSize);
  t.w1.resize(dstSize);
  double invScale = static_cast<double>(dstSize) / srcSize;
  double scale = 1.0 / invScale;
  for (int d = 0; d < dstSize; ++d) {
    float f = static_cast<float>((d + 0.5) * scale - 0.5);
    int s = floorToInt(f);
    f -= static_cast<float>(s);
    if (clampWeights) {
      if (s < 0)
        f = 0.f, s = 0;
      if (s >= srcSize - 1)
        f = 0.f, s = srcSize - 1;
    }
    t.index[d] = s;
    t.w0[d] = saturateShort((1.f - f) * kCoefScale);
    t.w1[d] = saturateShort(f * kCoefScale);
  }
  return t;
}

// One source row resized horizontally into int32 values scaled by 2^11.
void resizeRow(const uint8_t *src, int srcWidth, int channels, const AxisTable &xt, int32_t *out) {
  int dstWidth = static_cast<int>(xt.index.size());
  for (int dx = 0; dx < dstWidth; ++dx) {
    int sx = xt.index[dx];
    int sx1 = std::min(sx + 1, srcWidth - 1);
    int32_t a0 = xt.w0[dx], a1 = xt.w1[dx];
    const uint8_t *p0 = src + size_t(sx) * channels;
    const uint8_t *p1 = src + size_t(sx1) * channels;
    for (int c = 0; c < channels; ++c)
      out[size_t(dx) * channels + c] = p0[c] * a0 + p1[c] * a1;
  }
}

} // namespace

Image resizeLinear(const Image &src, int height, int width) {
  if (src.height <= 0 || src.width <= 0 || src.channels <= 0)
    throw PreprocessError("resize: empty source image");
  if (height <= 0 || width <= 0)
    throw PreprocessError("resize: target size " + std::to_string(height) + "x" + std::to_string(width) +
                          " is empty");
  if (src.height == height && src.width == width)
    return src;

  const int cn = src.channels;
  AxisTable xt = makeAxis(src.width, width, /*clampWeights=*/true);
  AxisTable yt = makeAxis(src.height, height, /*clampWeights=*/false);
  Image dst(height, width, cn);
  const size_t rowLen = size_t(width) * cn;

  // Two horizontally resized rows, reused while consecutive output rows share source rows.
  std::vector<int32_t> buf0(rowLen), buf1(rowLen);
  int row0 = -1, row1 = -1;
  auto fetch = [&](int sy, std::vector<int32_t> &buf, int &have) {
    if (have != sy) {
      resizeRow(src.row(sy), src.width, cn, xt, buf.data());
      have = sy;
    }
  };
  for (int dy = 0; dy < height; ++dy) {
    int sy0 = std::clamp(yt.index[dy], 0, src.height - 1);
    int sy1 = std::clamp(yt.index[dy] + 1, 0, src.height - 1);
    // Keep whichever buffer already holds a needed row.
    if (row1 == sy0 && row0 != sy0) {
      std::swap(buf0, buf1);
      std::swap(row0, row1);
    }
    fetch(sy0, buf0, row0);
    if (sy1 == sy0) {
      // Same row twice (top/bottom border): compute with buf0 for both.
    } else {
      fetch(sy1, buf1, row1);
    }
    const int32_t *s0 = buf0.data();
    const int32_t *s1 = sy1 == sy0 ? buf0.data() : buf1.data();
    const int32_t b0 = yt.w0[dy], b1 = yt.w1[dy];
    uint8_t *out = dst.row(dy);
    for (size_t x = 0; x < rowLen; ++x) {
      int32_t v = (((b0 * (s0[x] >> 4)) >> 16) + ((b1 * (s1[x] >> 4)) >> 16) + 2) >> 2;
      out[x] = static_cast<uint8_t>(std::clamp(v, 0, 255));
    }
  }
  return dst;
}

} // namespace tpuc::preprocess
