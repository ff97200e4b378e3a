//===- AccuracyRecords.h - Per-sample and first-divergent accuracy reports -===//
//
// What `tpuc deploy --compare_all` writes for many test samples (<stem>_compare_samples.json, schema
// "tpuc.compare_samples") and with --find_divergent (<stem>_first_divergent.json, schema
// "tpuc.first_divergent"), as plain structs with their JSON. Qt- and MLIR-free (TpucRequests), so the
// studio reads them as it reads the result records (Results.h); a reader rejects another schema or a newer
// version in one line. docs/ACCURACY.md describes every field.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_ACCURACYRECORDS_H
#define TPUC_DRIVER_ACCURACYRECORDS_H

#include "tpuc/Driver/Results.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tpuc::driver {

inline constexpr const char *kCompareSamplesSchema = "tpuc.compare_samples";
inline constexpr const char *kFirstDivergentSchema = "tpuc.first_divergent";
inline constexpr int kAccuracyRecordVersion = 1;

/// The percentile the statistics report besides mean and minimum (the 5th: a layer's cosine on the worst
/// one in twenty samples).
inline constexpr double kStatsPercentile = 5.0;

/// One comparison mode (accumulated or isolated) of one layer over the samples that compared it.
struct MetricStats {
  int64_t samples = 0;
  double meanCosine = 0, minCosine = 0, p5Cosine = 0;
  double meanEuclidean = 0, minEuclidean = 0, p5Euclidean = 0;
  /// Samples whose comparison of this layer did not pass the tolerance.
  int64_t failingSamples = 0;
  /// The sample with the lowest cosine (the first of equals): its index in the samples' order and name.
  int64_t worstSample = -1;
  std::string worstSampleName;
  bool operator==(const MetricStats &) const = default;
};

/// One layer (a tensor of the reference) in graph order.
struct LayerStats {
  std::string name;
  MetricStats accumulated;
  std::optional<MetricStats> isolated;
  bool operator==(const LayerStats &) const = default;
};

/// One output of one sample against the reference.
struct SampleOutput {
  std::string name;
  double cosine = 0, euclidean = 0;
  bool pass = false;
  bool operator==(const SampleOutput &) const = default;
};

/// One sample as it was evaluated (deploy: a test input; compare: a pair of files of the same name).
struct SampleResult {
  int64_t index = 0;
  /// The sample's files joined by ","; `files` lists them.
  std::string name;
  std::vector<std::string> files;
  /// Every compared layer (accumulated) within the tolerance.
  bool pass = false;
  /// The first accumulated layer beyond the tolerance, "" when none.
  std::string firstFailing;
  /// The lowest cosine over the outputs (compare: over every tensor of the pair, all listed in `outputs`).
  double outputCosine = 0;
  std::vector<SampleOutput> outputs;
  bool operator==(const SampleResult &) const = default;
};

/// <stem>_compare_samples.json (deploy) or `tpuc compare DIR DIR --format json`: per-layer statistics over
/// many samples and every sample's outputs.
struct CompareSamplesRecord {
  /// What was compared with what: "tpu" and "top" for deploy, the two folders for compare.
  std::string target, reference;
  std::string mlir, chip, quantize; ///< deploy's model ("" for compare)
  std::string testInput;            ///< the folder or data list (deploy)
  std::string testSubset;           ///< "" when every sample of it ran
  double toleranceCosine = 0, toleranceEuclidean = 0;
  double percentile = kStatsPercentile;
  int64_t failingSamples = 0;
  /// The sample with the lowest output cosine; <stem>_compare.json holds its layers.
  int64_t worstSample = -1;
  std::vector<LayerStats> layers;
  std::vector<SampleResult> samples;
  bool operator==(const CompareSamplesRecord &) const = default;
};

/// A producer of a candidate layer: its accumulated statistics (none when it was not compared: excepted).
struct DivergentInput {
  std::string name;
  std::optional<MetricStats> accumulated;
  bool operator==(const DivergentInput &) const = default;
};

/// A first divergent layer: its isolated error breaks the tolerance while its inputs pass (or, when no layer
/// breaks it on its own, one adding to the error: FirstDivergentRecord::rule).
struct DivergentCandidate {
  std::string name;
  MetricStats isolated, accumulated;
  std::vector<DivergentInput> inputs;
  std::vector<std::string> consumers;
  /// How far the isolated p5 metrics sit above the tolerance, as a fraction of the room between the
  /// tolerance and 1 (the smaller of cosine and euclidean; negative: broken). The pre-ranking.
  double headroom = 0;
  /// Whether it was re-run in float (the `top` candidates by headroom).
  bool measured = false;
  /// The mean lowest output cosine of the gain samples with the op in float, and its gain over the
  /// deployed model's.
  double floatOutputCosine = 0, gain = 0;
  /// Same with the op and every consumer in float, so that its output is not requantized by its own
  /// scale either (empty when it has no consumer the other re-run left quantized).
  std::vector<std::string> outputFloatOps;
  double outputFloatCosine = 0, outputGain = 0;
  /// The ranking key: the larger of the two gains.
  double score = 0;
  bool operator==(const DivergentCandidate &) const = default;
};

/// <stem>_first_divergent.json.
struct FirstDivergentRecord {
  std::string mlir, chip, quantize;
  double toleranceCosine = 0, toleranceEuclidean = 0;
  /// Samples the per-layer statistics come from.
  int64_t samples = 0;
  /// Which rule named the candidates (all with inputs whose accumulated statistics pass): "isolated" (their
  /// isolated statistics break the tolerance), "headroom" (no layer breaks it on its own, yet the run leaves
  /// it: every such layer, least isolated headroom first), "" (none: every layer is within the tolerance).
  std::string rule;
  /// The precision a candidate is re-run in ("F16"; "" when nothing was re-run).
  std::string floatMode;
  /// The samples of the float re-runs (the worst by output cosine).
  std::vector<std::string> gainSamples;
  /// The mean lowest output cosine of the gain samples as deployed.
  double baselineOutputCosine = 0;
  /// Candidates: measured ones by score (highest first), then the rest by headroom.
  std::vector<DivergentCandidate> candidates;
  /// One line for humans: what was found ("no layer breaks the tolerance on its own ...").
  std::string summary;
  bool operator==(const FirstDivergentRecord &) const = default;
};

/// The record as JSON text (pretty-printed, one trailing newline). Non-finite numbers as "inf", "-inf" or
/// null (NaN), as the result records store them.
std::string toJson(const CompareSamplesRecord &record);
std::string toJson(const FirstDivergentRecord &record);

ReadResult<CompareSamplesRecord> parseCompareSamples(const std::string &json);
ReadResult<FirstDivergentRecord> parseFirstDivergent(const std::string &json);

/// Where `tpuc deploy` writes them: deployArtifactStem + "_compare_samples.json" / "_first_divergent.json".
struct DeployOptions;
std::string compareSamplesPath(const DeployOptions &o);
std::string firstDivergentPath(const DeployOptions &o);

} // namespace tpuc::driver

#endif // TPUC_DRIVER_ACCURACYRECORDS_H
