// The in-memory value model of a .tpuproj project: one plain struct per section, no Qt, no I/O.
#ifndef TPUC_APP_PROJECT_PROJECT_H
#define TPUC_APP_PROJECT_PROJECT_H

#include "tpuc/Dataset/Index.h"
#include "tpuc/Driver/Chips.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tpuc::project {

/// The model the project was created from. Paths are absolute in memory; the store writes them relative
/// to the project file when that keeps the project folder movable.
struct ModelRef {
  std::string path;                   ///< absolute path of the model file or HF folder, empty = none
  std::string contentHash;            ///< "sha256:<hex>" of the file, empty when unknown
  std::uint64_t size = 0;             ///< bytes, 0 when unknown
  std::string format;                 ///< "onnx", "hf", "mlir", ... (informational)
  std::vector<std::uint8_t> embedded; ///< the model bytes when embedded in the project, else empty
  bool operator==(const ModelRef &) const = default;
};

/// llm_convert's flags for a HuggingFace model (LLM-TPU names). Stored normalized: the studio applies
/// llm_convert's defaulting rules before recording them, so the values are the ones the engine gets.
struct LlmConvertSettings {
  std::int64_t seqLength = 512;
  std::string quantize = "w4bf16"; ///< bf16, f16, f32, w8bf16, w4bf16, w8f16, w4f16
  std::int64_t qGroupSize = 64;
  bool symmetric = false;
  std::string chip{driver::kDefaultChip}; ///< a chip profile's name (driver::listChips)
  bool useHistoryKv = false;
  std::int64_t chunkLength = 0;    ///< 0 = none (only with useHistoryKv)
  std::int64_t maxInputLength = 0; ///< 0 = seq_length
  bool dynamic = false;            ///< --dynamic: prefill also for shorter prompt buckets
  bool operator==(const LlmConvertSettings &) const = default;
};

/// model_transform's input and preprocessing flags (TPU-MLIR names).
struct ImportSettings {
  std::string inputShapes;              ///< e.g. "[[1,3,224,224]]"
  std::vector<double> mean;             ///< per channel
  std::vector<double> scale;            ///< per channel
  std::string pixelFormat = "rgb";      ///< rgb, bgr, gray, rgba
  std::string channelFormat = "nchw";   ///< nchw or nhwc
  std::vector<std::int64_t> resizeDims; ///< h, w; empty = the model's input size
  bool keepAspectRatio = false;
  double padValue = 0.0;
  std::string outputNames;               ///< comma separated, empty = the model's outputs
  std::optional<LlmConvertSettings> llm; ///< set for a HuggingFace model (stored under key "llm_convert")
  bool operator==(const ImportSettings &) const = default;
};

/// One calibration sample: an image or .npy/.npz file plus what the studio knows about it.
struct Sample {
  std::string path;                       ///< absolute in memory
  std::string metadataJson = "{}";        ///< free-form per-sample metadata (size, label, ...)
  std::vector<std::uint8_t> thumbnailPng; ///< small PNG, may be empty
  bool operator==(const Sample &) const = default;
};

struct Dataset {
  std::int64_t id = 0;
  std::string name;
  std::vector<Sample> samples;
  /// The scanned folder behind the dataset (`tpuc dataset scan`, TpucDataset): every file with its
  /// metadata, the unreadable ones with the reason, the named subsets. Its root is absolute in memory and
  /// stored relative to the project file where possible; its file paths are relative to the root.
  std::optional<dataset::DatasetIndex> index;
  bool operator==(const Dataset &) const = default;
  /// The samples calibration can use: the readable files of the folder and the samples added one by one.
  std::size_t fileCount() const { return samples.size() + (index ? index->files.size() : 0); }
};

/// One line of a TPU-MLIR calibration table: `op_name threshold min max`.
struct CaliEntry {
  std::string opName;
  double threshold = 0, min = 0, max = 0;
  bool operator==(const CaliEntry &) const = default;
};

/// A calibration table; editing keeps the same (name, version), "new version" copies it to version + 1.
struct CaliTable {
  std::int64_t id = 0;
  std::string name;
  int version = 1;
  std::string created; ///< ISO 8601 UTC
  std::string comment;
  std::vector<CaliEntry> entries;
  bool operator==(const CaliTable &) const = default;
};

/// One line of a quantize table: `op_name MODE` (F32, F16, BF16, INT8, ...).
struct QuantEntry {
  std::string opName;
  std::string mode;
  bool operator==(const QuantEntry &) const = default;
};

struct QuantTable {
  std::int64_t id = 0;
  std::string name;
  int version = 1;
  std::string created;
  std::string comment;
  std::vector<QuantEntry> entries;
  bool operator==(const QuantTable &) const = default;
};

/// A deploy configuration (model_deploy flags).
struct CompileConfig {
  std::int64_t id = 0;
  std::string name;
  std::string chip{driver::kDefaultChip}; ///< a chip profile's name (driver::listChips)
  std::string precision = "F32";          ///< F32, F16, BF16, INT8, W8F16, W4F16, ...
  std::string optionsJson = "{}";         ///< the remaining flags as a JSON object
  bool operator==(const CompileConfig &) const = default;
};

/// A produced artifact of a run; the bytes live in the cache folder under their hash.
struct ArtifactRef {
  std::string kind; ///< "top_mlir", "tpu_mlir", "model", "npz", "trace", ...
  /// The file: absolute in memory, stored relative to the project file where possible (as sample paths
  /// are), so a project folder moved or copied with its cache keeps its runs' files.
  std::string name;
  std::string contentHash;
  bool operator==(const ArtifactRef &) const = default;
};

/// One entry of the run history with its result summary. `summaryJson` of a run the studio recorded
/// from a job holds {"command", "arguments" [...], "exitCode", "durationMs", "message", "compare":
/// [{"name","status","pass","cosine","euclidean","sqnr","maxAbsDiff"}...]} (keys absent when unknown).
struct RunRecord {
  std::int64_t id = 0;
  std::string configName;
  std::string started, finished; ///< ISO 8601 UTC
  std::string status = "ok";     ///< ok, failed, cancelled
  double latencyMs = 0;          ///< simulated latency
  std::int64_t memoryPeakBytes = 0;
  std::string layerMetricsJson = "[]"; ///< per-layer metrics (cosine, euclidean, sqnr, ...)
  std::string summaryJson = "{}";
  std::vector<ArtifactRef> artifacts;
  bool operator==(const RunRecord &) const = default;
};

/// A whole project. Plain data: copy it to snapshot it.
struct Project {
  ModelRef model;
  ImportSettings importSettings;
  std::vector<Dataset> datasets;
  std::vector<CaliTable> caliTables;
  std::vector<QuantTable> quantTables;
  std::vector<CompileConfig> compileConfigs;
  std::vector<RunRecord> runs;
  std::map<std::string, std::string> viewState; ///< UI state (open tabs, splitter sizes, ...)
  std::string notes;
  bool operator==(const Project &) const = default;

  /// The run with id `id`, or null.
  const RunRecord *findRun(std::int64_t id) const {
    for (const RunRecord &r : runs)
      if (r.id == id)
        return &r;
    return nullptr;
  }
};

} // namespace tpuc::project

#endif
