//===- Manifest.h - What a run was made from, and two runs told apart -----===//
//
// Every `tpuc deploy` and `tpuc calibrate` that writes files records a run manifest beside its result
// (schema "tpuc.manifest"): the tool's version, the command line that reproduces it, every flag with its
// value (defaults included), and the SHA-256 of every file it read (the model and its weights, the tables,
// the chip profile, the test or calibration samples). `tpuc runs diff A B` names what differs between two
// manifests and puts the two runs' per-layer accuracy side by side (diffManifests, diffRunLayers).
// Qt- and MLIR-free (TpucRequests): the studio reads them as it reads the result records. docs/ACCURACY.md.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_MANIFEST_H
#define TPUC_DRIVER_MANIFEST_H

#include "tpuc/Driver/Requests.h"
#include "tpuc/Driver/Results.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tpuc::driver {

inline constexpr const char *kManifestSchema = "tpuc.manifest";
inline constexpr const char *kRunsDiffSchema = "tpuc.runs_diff";
inline constexpr int kManifestVersion = 1;

/// This build's version (the project's), as `tpuc --version` prints it.
const char *tpucVersion();

/// A file a run read, or a set of them (the samples of a folder).
struct ManifestInput {
  /// model, weights, calibration_table, quantize_table, chip_profile, test_input, test_reference,
  /// test_samples, calibration_samples.
  std::string role;
  std::string path;
  /// "sha256:<hex>" of the file; for a set, of its lines "<path>\t<sha256 of the file>\n" in order.
  std::string sha256;
  /// Bytes of the file, or of every file of the set.
  int64_t bytes = 0;
  /// 1 for a file; the files of a set.
  int64_t files = 1;
  bool operator==(const ManifestInput &) const = default;
};

/// <stem>_manifest.json (deploy) or <table>_manifest.json (calibrate).
struct RunManifest {
  std::string version; ///< tpucVersion() of the tool that ran
  std::string command; ///< "deploy", "calibrate"
  /// The command line that reproduces the run (toArgv of the request: what differs from the defaults).
  std::vector<std::string> argv;
  /// Every flag and positional with its value, defaults included (ArgParser::values).
  std::vector<std::pair<std::string, std::string>> flags;
  std::vector<ManifestInput> inputs;
  /// The run's records, for what compares runs: the file names (beside the manifest) of the result record
  /// and of the accuracy records it wrote ("" when it wrote none).
  std::string result, compare, compareSamples, firstDivergent;
  /// The engine trace of the run's command-level simulation (<stem>_trace.json: per-op cycles and the
  /// simulated latency), "" when it wrote none. Optional in the record: manifests written before it read
  /// as "".
  std::string trace;
  bool operator==(const RunManifest &) const = default;
};

/// Every flag of a request with its value, defaults included.
template <typename Request>
std::vector<std::pair<std::string, std::string>> requestFlags(const Request &request) {
  Request fields = request;
  ArgParser parser("tpuc " + std::string(Request::kCommand), "");
  bindOptions(parser, fields);
  return parser.values();
}

std::string toJson(const RunManifest &manifest);
ReadResult<RunManifest> parseManifest(const std::string &json);

/// Where deploy writes its manifest (deployArtifactStem + "_manifest.json"; only when it writes files) and
/// where calibrate writes its own (the table + "_manifest.json").
std::string deployManifestPath(const DeployOptions &o);
std::string calibrateManifestPath(const CalibrateOptions &o);

/// One thing that differs between two manifests: "version", "command", "flag --tolerance", "input
/// calibration_table" (its path or its content), with each side's value ("" when a side has none).
struct ManifestDifference {
  std::string what, a, b;
  bool operator==(const ManifestDifference &) const = default;
};
/// The differences, in the order: version, command, flags (A's order, then B's own), inputs (by role).
/// Flags that only name the run's own output files (--tpu_mlir, --model, -o / --calibration_table of
/// calibrate, --snapshots, --report) are compared too: they are part of what was run.
std::vector<ManifestDifference> diffManifests(const RunManifest &a, const RunManifest &b);

/// One layer of two runs side by side: the accumulated and isolated cosine of each (the mean over the
/// samples for a many-sample run), NaN where a run lacks it; and the TIU cycles each run's engine trace
/// spent on the op of that name, absent where a run has no trace or the op no cycles.
struct LayerDelta {
  std::string name;
  double aCosine, bCosine, aIsolated, bIsolated;
  std::optional<int64_t> aCycles = std::nullopt, bCycles = std::nullopt;
  bool operator==(const LayerDelta &) const = default;
};

/// The per-layer cosines of a run's accuracy record: <stem>_compare_samples.json (means) or
/// <stem>_compare.json (one sample), whichever `manifest` (read from `manifestPath`) names beside it (the
/// first when both); the error names the file. The layers in the record's order.
struct LayerCosines {
  std::string file;
  std::vector<std::string> names;
  std::vector<double> cosine, isolated;
};
ReadResult<LayerCosines> readLayerCosines(const RunManifest &manifest, const std::string &manifestPath);

/// A's layers in their order, then B's own.
std::vector<LayerDelta> diffRunLayers(const LayerCosines &a, const LayerCosines &b);

/// What a run's engine trace says of its simulated time: the total, and each op's TIU cycles in the
/// trace's op order (ops without TIU cycles left out). Read by `tpuc runs diff` (the trace reader is not
/// part of this library).
struct RunCycles {
  std::string file;
  double latencyMs = 0;
  int64_t totalCycles = 0;
  std::vector<std::pair<std::string, int64_t>> ops;
};

/// Puts each run's cycles on the layers of the same name (the trace names ops by the tensor they
/// produce, as the accuracy records name layers); ops with cycles and no layer row follow (A's in trace
/// order, then B's own). Either run may lack a trace (null).
void addRunCycles(std::vector<LayerDelta> &layers, const RunCycles *a, const RunCycles *b);

/// The simulated latency of a run (its engine trace's total).
struct RunLatency {
  std::string trace; ///< the trace file it was read from
  double ms = 0;
  int64_t cycles = 0;
  bool operator==(const RunLatency &) const = default;
};

/// `tpuc runs diff`'s record (schema "tpuc.runs_diff"): both manifests' paths, the differences, and the
/// layers when both runs have accuracy records (`layers_a`/`layers_b` name the files, "" when absent) or
/// engine traces (per-layer cycles, `latencyA`/`latencyB`; optional fields of version 1).
struct RunsDiff {
  std::string a, b;
  std::vector<ManifestDifference> differences;
  std::string layersA, layersB;
  std::vector<LayerDelta> layers;
  std::optional<RunLatency> latencyA = std::nullopt, latencyB = std::nullopt;
  bool operator==(const RunsDiff &) const = default;
};
std::string toJson(const RunsDiff &diff);
/// Reads `tpuc runs diff --format json` back (the studio's run comparison); another schema or a newer
/// version is one line.
ReadResult<RunsDiff> parseRunsDiff(const std::string &json);
/// The diff for humans: the differences, the simulated latency of both runs, then a table of the layers
/// with the change of cosine and of cycles.
std::string formatRunsDiff(const RunsDiff &diff);

} // namespace tpuc::driver

#endif // TPUC_DRIVER_MANIFEST_H
