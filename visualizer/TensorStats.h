//===- TensorStats.h - What the tensor viewer computes from two tensors ----===//
//
// Plain C++ (no Qt): the statistics of a quantized tensor against its float reference (cosine, SQNR,
// max |delta|, NaN/Inf counts, the share of reference values clipped at the quantization threshold and of
// quantized values saturated at +-qmax), the histogram of both over one range, and the planes a tensor of
// any rank is shown as (N x C planes of H x W, token x hidden for an LLM's [batch, tokens, hidden]).
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_VISUALIZER_TENSORSTATS_H
#define TPUC_VISUALIZER_TENSORSTATS_H

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tpuc::vis {

struct TensorPairStats {
  size_t count = 0;
  /// Over the elements finite in both; cosine 1 and SQNR +inf for identical tensors, cosine 1 for two
  /// all-zero tensors.
  double cosine = 0, sqnrDb = 0, maxAbsDiff = 0, meanAbsDiff = 0;
  size_t referenceNan = 0, referenceInf = 0, targetNan = 0, targetInf = 0;
  double referenceMin = 0, referenceMax = 0, targetMin = 0, targetMax = 0;
  /// With a threshold T > 0 (INT8: scale = T / qmax): the share of reference values with |x| > T (clipped
  /// by the quantization), and of target values within half a step of +-T (saturated at +-qmax).
  bool hasThreshold = false;
  double threshold = 0;
  double clippedShare = 0, saturatedShare = 0;
};

/// Compares `target` (e.g. the INT8 simulation, dequantized) with `reference` (the float run), element by
/// element; the spans must have the same size.
TensorPairStats compareTensors(std::span<const float> reference, std::span<const float> target,
                               double threshold = 0, int qmax = 127);

struct TensorHistogram {
  double lo = 0, hi = 0; ///< the range of the bins
  std::vector<size_t> reference, target;
  double binWidth() const {
    return reference.empty() ? 0 : (hi - lo) / static_cast<double>(reference.size());
  }
};

/// Histograms of both tensors over [lo, hi] in `bins` equal bins (values outside go to the end bins,
/// non-finite ones are left out). lo == hi: the range is +-max |x| of both (at least the threshold).
TensorHistogram histogramOf(std::span<const float> reference, std::span<const float> target, size_t bins,
                            double lo = 0, double hi = 0, double threshold = 0);

/// How a tensor of `shape` is cut into 2-D planes: the last two dimensions are rows and columns (a vector
/// is one row, a scalar one cell), the leading ones index the planes (N, C for NCHW; the batch for an LLM's
/// [batch, tokens, hidden]).
struct PlaneLayout {
  std::vector<int64_t> leading; ///< the dimensions the planes are indexed by
  int64_t planes = 1, rows = 1, cols = 1;
  /// "n 0, c 12" for plane 12 of [1, 64, 56, 56].
  std::string planeName(int64_t plane) const;
};
PlaneLayout planeLayout(const std::vector<int64_t> &shape);

/// Plane `plane` of a row-major tensor laid out as `layout`.
std::span<const float> planeOf(std::span<const float> values, const PlaneLayout &layout, int64_t plane);

} // namespace tpuc::vis

#endif // TPUC_VISUALIZER_TENSORSTATS_H
