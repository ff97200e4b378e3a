//===- Compare.h - Tensor comparison metrics (npz_tool compare) -----------===//
//
// Qt-free. TPU-MLIR's `npz_tool.py compare` semantics, per tensor:
//
//  * Values of both tensors are read as double (f16/bf16 decoded; with
//    `u16AsBF16`, u16 tensors are taken for bf16 as npz_tool does, because
//    NumPy has no bf16 and such tensors are stored as uint16).
//  * MISMATCH     the element counts differ (a failure). Same count but a
//                 different shape: compared as flat arrays, with a note.
//  * EQUAL        every element equal (NaN equals NaN at the same place;
//                 -0 equals +0); also two empty tensors.
//  * CLOSE        all finite pairs satisfy |t - r| <= 1e-8 + 10^-k * |r|
//                 (np.allclose with the reference r second) for some
//                 k >= closeOrder; k is tried 5, 4, 3, ... and the largest
//                 that holds is reported as closeOrder (TPU-MLIR: order 3).
//  * SIMILAR      cosine >= tol.cosine and euclidean >= tol.euclidean and
//                 sqnr >= tol.minSqnr (TPU-MLIR uses '>'; we use '>=' so a
//                 tolerance of 1.0 accepts a perfect match).
//  * NOT_SIMILAR  otherwise, or when a NaN/Inf appears in one tensor at a
//                 place where the other does not hold the same value.
//
// Metrics are computed over the positions where both values are finite:
//   cosine    = t.r / (|t| |r|); 1 if both are all zero, 0 if only one is.
//   euclidean = 1 - |t - r| / |(t + r) / 2|; 1 if both norms are 0,
//               -inf if only the denominator is 0 (t = -r).
//   sqnr      = 10 log10(var(r) / var(t - r)) in dB with zero-mean sums and
//               the reference r as the signal; +inf when the noise has no
//               variance, -inf when only the signal has none.
//   maxAbsDiff, meanAbsDiff over finite pairs, and the flat index of the max.
// Accumulation is in double.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_SIMULATOR_COMPARE_H
#define TPUC_SIMULATOR_COMPARE_H

#include "tpuc/Support/Npz.h"
#include "tpuc/Support/Tensor.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpuc {

/// Outcome of comparing one tensor pair (see the file comment).
enum class CompareStatus { Equal, Close, Similar, NotSimilar, Mismatch };

/// "EQUAL", "CLOSE", "SIMILAR", "NOT_SIMILAR", "MISMATCH".
std::string_view compareStatusName(CompareStatus status);
/// EQUAL, CLOSE and SIMILAR pass.
bool compareStatusPassed(CompareStatus status);

/// Thresholds. Defaults are TPU-MLIR's F32 ones (0.99, 0.99); its usual
/// choices are F16/BF16 0.99,0.90 and INT8 0.90,0.80.
struct CompareTolerance {
  double cosine = 0.99;
  double euclidean = 0.99;
  /// Minimum SQNR in dB; -inf (no limit) like npz_tool.
  double minSqnr = -std::numeric_limits<double>::infinity();
  /// Smallest allclose order that still counts as CLOSE.
  int closeOrder = 3;
  /// Decode u16 tensors as bf16 (npz_tool does).
  bool u16AsBF16 = true;

  /// Parses "cos,euc" (npz_tool's --tolerance); nullopt if malformed.
  static std::optional<CompareTolerance> parse(const std::string &text);
};

/// Metrics of one pair (see the file comment for definitions).
struct CompareMetrics {
  double cosine = 1.0;
  double euclidean = 1.0;
  double sqnr = std::numeric_limits<double>::infinity();
  double maxAbsDiff = 0.0;
  double meanAbsDiff = 0.0;
  int64_t maxDiffIndex = -1;
  /// Largest allclose order that holds (5..2), 0 if none.
  int closeOrder = 0;
  int64_t count = 0;
  /// NaN/Inf counts per side and positions where they disagree.
  int64_t targetNonFinite = 0;
  int64_t referenceNonFinite = 0;
  int64_t nonFiniteMismatches = 0;
};

/// The result for one tensor.
struct TensorComparison {
  std::string name;
  CompareStatus status = CompareStatus::Equal;
  CompareMetrics metrics;
  std::vector<int64_t> targetShape, referenceShape;
  DType targetType = DType::F32, referenceType = DType::F32;
  /// Why the status is what it is, when that is not obvious ("" if not).
  std::string note;

  bool passed() const { return compareStatusPassed(status); }
};

/// Compares `target` against `reference`.
TensorComparison compareTensors(const Tensor &target, const Tensor &reference,
                                const CompareTolerance &tolerance,
                                std::string name = "");

/// The result for two npz files.
struct NpzComparison {
  std::string targetName, referenceName;
  CompareTolerance tolerance;
  /// In the order of the target (first) file, names present in both.
  std::vector<TensorComparison> results;
  std::vector<std::string> onlyInTarget, onlyInReference, excepted;

  int64_t count(CompareStatus status) const;
  int64_t passedCount() const;
  int64_t failedCount() const;
  /// True when at least one tensor was compared and all passed.
  bool allPassed() const;
  /// Minimum metrics over SIMILAR and NOT_SIMILAR tensors (1, 1, +inf when
  /// there are none), as npz_tool's "min_similarity".
  CompareMetrics minSimilarity() const;
};

/// Compares the tensors present in both files, in the target's order,
/// skipping names listed in `excepts`.
NpzComparison compareNpz(const NpzFile &target, const NpzFile &reference,
                         const CompareTolerance &tolerance,
                         const std::vector<std::string> &excepts = {});

/// A fixed-width table with a summary (npz_tool's wording at the end:
/// "npz compare PASSED." / "npz compare FAILED."). `verbose` adds shapes,
/// dtypes, close order, mean diff and notes per tensor.
std::string formatCompareText(const NpzComparison &comparison, bool verbose);
/// One header line and one line per tensor:
/// name,status,pass,cosine,euclidean,sqnr,max_abs_diff,mean_abs_diff,
/// close_order,target_shape,reference_shape,target_dtype,reference_dtype,note
std::string formatCompareCsv(const NpzComparison &comparison);
/// {"target":..., "reference":..., "tolerance":{...}, "results":[...],
///  "summary":{...}}. Non-finite numbers are written as the strings "inf",
/// "-inf" and "nan" (JSON has no such numbers).
std::string formatCompareJson(const NpzComparison &comparison);

/// Formats a metric value: "inf", "-inf", "nan" or fixed with 6 decimals.
std::string formatMetric(double value);

} // namespace tpuc

#endif // TPUC_SIMULATOR_COMPARE_H
