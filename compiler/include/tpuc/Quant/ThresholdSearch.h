//===- ThresholdSearch.h - run_calibration's --search search_threshold ----===//
//
// Chooses each tensor's INT8 threshold among the candidates TPU-MLIR's
// search_threshold compares (kl with its tune step, octav, max,
// percentile9999) by how close the tensor, fake-quantized at the candidate
// (INT8 symmetric, as the lowering stores it), stays to its float values over
// the calibration samples: cosine similarity or SNR. The candidates come from
// the streamed statistics of a first pass (Calibration.h); a second pass
// folds every sample into a few error sums per candidate, so memory stays
// bounded by the model and the sums, kept in exact fixed point, do not depend
// on how samples are spread over threads. docs/quantization.md, section 8,
// describes the search.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_QUANT_THRESHOLDSEARCH_H
#define TPUC_QUANT_THRESHOLDSEARCH_H

#include "tpuc/Quant/Calibration.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tpuc::quant {

/// How a fake-quantized tensor is compared with its float values
/// (run_calibration's --benchmark_method).
enum class SearchMetric : uint8_t {
  Cosine, ///< cos(x, q) = Σxq / sqrt(Σx² Σq²), TPU-MLIR's default.
  Snr,    ///< 10 log10(Σx² / Σ(x - q)²) in dB.
};

/// "cos", "snr".
std::string_view searchMetricName(SearchMetric metric);
/// Inverse of searchMetricName; nullopt for unknown names.
std::optional<SearchMetric> parseSearchMetric(std::string_view name);

/// The candidate methods search_threshold chooses among.
enum class SearchCandidate : uint8_t {
  Max,            ///< absMax.
  Percentile9999, ///< the 99.99th percentile of |x|.
  Octav,          ///< the OCTAV fixed point (--cali_method mse).
  KlTune,         ///< kl, then the tune step (see ThresholdSearch).
};
/// The candidates in the order that wins a tie: the simpler method first, so
/// that a threshold several methods give is reported under the simplest
/// (a tie in score almost always means the same threshold).
inline constexpr std::array<SearchCandidate, 4> kSearchCandidates = {
    SearchCandidate::Max, SearchCandidate::Percentile9999,
    SearchCandidate::Octav, SearchCandidate::KlTune};

/// "kl_tune", "octav", "max", "percentile9999".
std::string_view searchCandidateName(SearchCandidate candidate);
/// The --cali_method whose threshold a candidate starts from (kl, mse, max,
/// percentile9999), e.g. for the 4-bit threshold of the same method.
CalibrationMethod searchCandidateMethod(SearchCandidate candidate);

/// Points of the kl tune grid: kl + k (absMax - kl) / kKlTuneSteps for k = 0
/// .. kKlTuneSteps - 1 (TPU-MLIR's SimpleTuner makes 10 steps from kl; absMax
/// itself is the max candidate).
inline constexpr int kKlTuneSteps = 10;

/// Error sums of one tensor fake-quantized at several thresholds, over any
/// number of samples: per threshold t, with q = clamp(round(x / s), -128,
/// 127) · s and s = t / 127 (round to nearest, ties to even), Σ(x - q)² and
/// Σx(x - q), and once Σx². Non-finite values are skipped, as the statistics
/// skip them.
///
/// Each sample's sums are computed in double in element order, then added
/// into 128-bit fixed-point totals whose unit is set from `bound` (at least
/// Σx² over all samples, e.g. count · absMax²): integer addition is
/// associative, so the totals, and every score derived from them, are the
/// same bit for bit whatever the order of the samples and however they were
/// split among instances that merge().
///
/// Not thread-safe: give each thread its own and merge().
class FakeQuantErrors {
public:
  FakeQuantErrors() = default;
  FakeQuantErrors(std::vector<double> thresholds, double bound);

  /// Folds one sample of the tensor in.
  void add(std::span<const float> values);
  /// Folds sums over the same thresholds and bound in (else
  /// std::invalid_argument).
  void merge(const FakeQuantErrors &other);

  size_t size() const { return thresholds.size(); }
  double threshold(size_t i) const { return thresholds[i]; }
  /// Σx² of the values seen.
  double signalEnergy() const;
  /// Σ(x - q)² at threshold i.
  double squaredError(size_t i) const;
  /// cos(x, q) at threshold i; 1 when x and q are both all zero, 0 when only
  /// one of them is.
  double cosine(size_t i) const;
  /// 10 log10(Σx² / Σ(x - q)²) at threshold i; +inf without error, -inf
  /// for an all-zero signal with error.
  double snrDb(size_t i) const;
  /// The score of `metric` at threshold i (larger is better).
  double score(size_t i, SearchMetric metric) const;

private:
  double toDouble(__int128 fixed) const;
  __int128 toFixed(double value) const;

  std::vector<double> thresholds;
  int unitExponent = 0; // One fixed-point step is 2^unitExponent.
  __int128 energy = 0;
  std::vector<__int128> error2, crossError; // Σ(x-q)², Σx(x-q) per threshold.
};

/// One measured threshold of a tensor.
struct CandidateScore {
  /// "kl" (the tune grid's first point), "kl_tune_1" .. "kl_tune_9" (the
  /// grid's further points), "octav", "max", "percentile9999".
  std::string label;
  double threshold = 0;
  double cosine = 0;
  double snrDb = 0;
};

/// The search's result for one tensor.
struct ThresholdChoice {
  std::string name;
  SearchCandidate chosen = SearchCandidate::KlTune;
  double threshold = 0;
  /// The score of the chosen threshold under the metric of the search.
  double score = 0;
  /// The four finalists in kSearchCandidates order (max, percentile9999,
  /// octav, kl after its tune step), labelled with searchCandidateName.
  std::array<CandidateScore, 4> finalists;
  /// Every threshold measured: the tune grid first, then max,
  /// percentile9999 and octav.
  std::vector<CandidateScore> measured;
};

/// search_threshold over every tensor of a model.
///
///   ThresholdSearch search(stats);          // candidates from the first pass
///   search.add(name, values);               // second pass, every tensor
///   auto choices = search.choose(SearchMetric::Cosine);
///
/// Per tensor, the candidates are kl, octav (mse), max and percentile9999 of
/// its statistics (computeThreshold, 8 bits). The tune step of kl (TPU-MLIR's
/// "kld+tune") measures the kKlTuneSteps grid points from kl towards absMax
/// and keeps the one with the least squared error (TPU-MLIR's tune criterion
/// is a Euclidean distance), the lower on a tie. Then the four finalists are
/// compared by the metric and the best wins; a tie goes to the earlier in
/// kSearchCandidates.
///
/// Not thread-safe: give each thread its own copy (made from the same
/// statistics) and merge().
class ThresholdSearch {
public:
  explicit ThresholdSearch(const ActivationStatistics &stats);

  /// Folds a sample of tensor `name` in; names the statistics do not have
  /// are ignored.
  void add(const std::string &name, std::span<const float> values);
  /// Folds a search made from the same statistics in.
  void merge(const ThresholdSearch &other);

  /// The choice for every tensor, in the statistics' order.
  std::vector<ThresholdChoice> choose(SearchMetric metric) const;

private:
  struct Tensor {
    std::string name;
    /// Index into errors' thresholds of each tune grid point, max,
    /// percentile9999 and octav (equal thresholds are measured once).
    std::array<size_t, kKlTuneSteps> grid{};
    size_t max = 0, percentile = 0, octav = 0;
    FakeQuantErrors errors;
  };
  std::vector<Tensor> tensors;
  std::unordered_map<std::string, size_t> index;
};

} // namespace tpuc::quant

#endif // TPUC_QUANT_THRESHOLDSEARCH_H
