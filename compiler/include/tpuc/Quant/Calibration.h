//===- Calibration.h - Streaming activation statistics and thresholds -----===//
//
// Calibration runs the float model over a data set and keeps, per tensor, a
// fixed-size summary (moments, range, a histogram of values) that every
// sample is folded into: memory grows with the model, never with the number
// of samples, and summaries built by different threads merge exactly. The
// threshold methods of TPU-MLIR's run_calibration (kl, mse, max,
// percentile9999, aciq_gauss, aciq_laplace) work on the summary;
// docs/quantization.md describes each.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_QUANT_CALIBRATION_H
#define TPUC_QUANT_CALIBRATION_H

#include "tpuc/Quant/Tables.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tpuc::quant {

/// TPU-MLIR's --histogram_bin_num default.
inline constexpr int64_t kDefaultHistogramBins = 2048;

/// Streaming statistics of one tensor over any number of samples.
///
/// The histogram keeps signed values in two halves (x > 0 and x < 0) of
/// kOversample * numBins bins each; bin k holds |x| in [k*w, (k+1)*w). The
/// width w is always a power of two: the smallest one with
/// absMax < bins * w. When a sample exceeds the range, w doubles (pairs of
/// bins merge, an exact operation) until it fits. Hence the histogram, the
/// range and the kl / mse / max / percentile thresholds depend only on the
/// multiset of values seen, not on their order, batching or merge grouping
/// (bit for bit); mean and standard deviation up to floating-point rounding.
/// Zeros and non-finite values are counted apart and stay out of the
/// histogram (TPU-MLIR also leaves zeros out of its KL histogram).
///
/// Not thread-safe: give each thread its own and merge().
class TensorStatistics {
public:
  /// Internal histogram resolution relative to numBins (so that after
  /// re-binning at least numBins fine bins cover [0, absMax]).
  static constexpr int64_t kOversample = 2;

  /// `numBins` is the TPU-MLIR histogram size the KL method uses (>= 2).
  explicit TensorStatistics(int64_t numBins = kDefaultHistogramBins);

  /// Folds a sample in. Non-finite values are counted and skipped.
  void add(std::span<const float> values);
  /// Folds another summary in (same numBins, else std::invalid_argument).
  void merge(const TensorStatistics &other);

  int64_t numBins() const { return bins; }
  /// Finite values seen (including zeros).
  int64_t count() const { return n; }
  int64_t zeroCount() const { return zeros; }
  int64_t nonFiniteCount() const { return nonFinite; }
  /// Range of the finite values; 0 when none were seen.
  double min() const { return n ? lo : 0.0; }
  double max() const { return n ? hi : 0.0; }
  double absMax() const;
  double mean() const { return n ? runningMean : 0.0; }
  /// Population standard deviation.
  double stddev() const;

  /// Width of the fine bins (0 until a non-zero value was seen).
  double binWidth() const { return width; }
  /// Fine bins of x > 0 and of |x| for x < 0 (kOversample * numBins each).
  std::span<const int64_t> positiveHistogram() const { return positive; }
  std::span<const int64_t> negativeHistogram() const { return negative; }

  /// The |x| histogram in TPU-MLIR's layout: numBins bins of width
  /// absMax / (numBins - 1), bin j counting |x| in [(j-1/2)W, (j+1/2)W)
  /// (nonzero values only). Fine-bin counts are spread uniformly over each
  /// fine bin's extent (clipped at absMax). Sets `widthOut` to W.
  std::vector<double> tpuMlirHistogram(double &widthOut) const;
  /// The value t with a `fraction` of all finite |x| (zeros included) at or
  /// below it, interpolated linearly inside a fine bin.
  double absPercentile(double fraction) const;
  /// E|x - mean| over the fine bins' centres (Laplace scale estimate).
  double meanAbsDeviation() const;

private:
  void rebinTo(double newWidth);
  double widthFor(double absValue) const;

  int64_t bins;
  int64_t n = 0, zeros = 0, nonFinite = 0;
  double lo = 0, hi = 0;
  double runningMean = 0, m2 = 0; // Welford / Chan moments.
  double width = 0;
  std::vector<int64_t> positive, negative;
};

/// Threshold selection methods (run_calibration's --cali_method).
enum class CalibrationMethod : uint8_t {
  KL,
  MSE,
  Max,
  Percentile9999,
  AciqGauss,
  AciqLaplace,
};

/// "kl", "mse", "max", "percentile9999", "aciq_gauss", "aciq_laplace".
std::string_view calibrationMethodName(CalibrationMethod method);
/// Inverse of calibrationMethodName (TPU-MLIR's "use_kl" etc. also
/// accepted); nullopt for unknown names.
std::optional<CalibrationMethod> parseCalibrationMethod(std::string_view name);

/// TPU-MLIR's KL-divergence threshold search over a histogram in its layout
/// (bin j centred at j*width): for each candidate i = targetBins,
/// 2*targetBins, ... <= size, P is the first i bins with the tail folded into
/// bin i-1 (normalised by the total count), Q quantizes the first i bins
/// into targetBins groups, spreading each group's mass evenly over its
/// non-empty bins (normalised by the mass of the first i bins), and
/// KL(P||Q) = sum P log10(P/Q) (1e-30 guards the logs). Returns
/// width * (i_best) for the first minimum. targetBins is 128 for 8 bits
/// and 8 for 4 bits in TPU-MLIR.
double klThreshold(std::span<const double> histogram, double width,
                   int64_t targetBins = 128);

/// The threshold of `stats` by `method` for `bits`-bit symmetric
/// quantization (8 or 4), never below kMinThreshold (1e-5; also for an empty
/// or all-zero tensor) and never above absMax() except for that floor.
double computeThreshold(const TensorStatistics &stats, CalibrationMethod method,
                        int bits = 8);

/// Statistics of every tensor of a model, in first-seen (= graph) order.
class ActivationStatistics {
public:
  explicit ActivationStatistics(int64_t numBins = kDefaultHistogramBins);
  /// Folds a sample of tensor `name` in.
  void add(const std::string &name, std::span<const float> values);
  /// Folds another model's statistics in; names new here are appended in
  /// the other's order.
  void merge(const ActivationStatistics &other);
  /// The statistics of `name`, or null.
  const TensorStatistics *find(std::string_view name) const;
  /// Tensor names in first-seen order.
  const std::vector<std::string> &names() const { return order; }
  int64_t numBins() const { return bins; }

  /// One `name threshold min max` entry per tensor, in order.
  std::vector<CalibrationEntry> thresholds(CalibrationMethod method,
                                           int bits = 8) const;

private:
  TensorStatistics &slot(const std::string &name);

  int64_t bins;
  std::vector<std::string> order;
  std::vector<TensorStatistics> stats;
  std::unordered_map<std::string, size_t> index;
};

} // namespace tpuc::quant

#endif // TPUC_QUANT_CALIBRATION_H
