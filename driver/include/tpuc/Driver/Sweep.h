//===- Sweep.h - Model-zoo sweeps: manifest, cells, records and the report -===//
//
// `tpuc sweep MANIFEST` runs every (model, precision, chip) of a manifest through transform -> calibrate
// (INT8) -> deploy -> run -> compare, each cell a `tpuc sweep MANIFEST --cell K` process that runs those
// subcommands as children and writes one record (schema "tpuc.sweep_cell"). An executor only launches
// cells (a local process pool, or one Slurm job array); the report (schema "tpuc.sweep_report", and an
// HTML table) is built from the records, compared with a previous sweep's when asked. Qt-free and
// MLIR-free (TpucRequests): the studio reads the report with the same code. docs/SWEEPS.md.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_SWEEP_H
#define TPUC_DRIVER_SWEEP_H

#include "tpuc/Driver/Requests.h"
#include "tpuc/Driver/Results.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tpuc::driver {

inline constexpr const char *kSweepCellSchema = "tpuc.sweep_cell";
inline constexpr const char *kSweepReportSchema = "tpuc.sweep_report";
inline constexpr int kSweepVersion = 1;

// --- sweep (not in TPU-MLIR) ------------------------------------------------------
struct SweepOptions {
  static constexpr std::string_view kCommand = "sweep";
  std::string manifest;
  std::string executor = "local";  ///< local, slurm
  int64_t jobs = 0;                ///< local: cells at once (0: the number of cores)
  std::string out;                 ///< the sweep folder (default: <manifest stem>_sweep beside it)
  int64_t cell = -1;               ///< run this one cell and write its record (what executors launch)
  std::string compare;             ///< a previous sweep's report.json (or its folder)
  double accuracyThreshold = 0.01; ///< a drop of the lowest output cosine beyond this is a regression
  double latencyThreshold = 0.05;  ///< a simulated latency grown by more than this fraction is one
  int64_t retries = 1;             ///< re-launches of a cell that ended in error or without a record
  std::string partition;           ///< slurm: --partition (default: the manifest's, else the cluster's)
  int64_t cpusPerTask = 0;         ///< slurm: --cpus-per-task per cell (0: the manifest's, else 1)
  std::string mem;                 ///< slurm: --mem per cell ("2G")
  std::string time;                ///< slurm: --time per cell ("00:30:00")
  std::string tpuc;                ///< slurm: the tpuc the tasks run (default: this one; shared path)
  bool operator==(const SweepOptions &) const = default;
};
void addSweepOptions(ArgParser &parser, SweepOptions &opts);
std::string validateSweepOptions(const SweepOptions &opts);
inline void bindOptions(ArgParser &p, SweepOptions &o) { addSweepOptions(p, o); }
/// The sweep folder of a request: --out, else <manifest stem>_sweep beside the manifest.
std::string sweepOutDir(const SweepOptions &o);

/// One model of a manifest. Its stages' flags are kept as arguments of the subcommands (the manifest's
/// "transform", "calibrate" and "deploy" objects, keys as the flags without dashes), checked against their
/// flag tables when the manifest is read; relative paths are made absolute against the manifest's folder.
struct SweepModel {
  std::string name;
  std::vector<std::string> transformArgs;
  std::vector<std::string> calibrateArgs;
  bool calibrate = false; ///< a "calibrate" object was given (INT8 needs one)
  std::vector<std::string> deployArgs;
  /// "cos,euc" by precision ("" key: every precision without its own); default: defaultTolerance().
  std::map<std::string, std::string> tolerance;
  bool operator==(const SweepModel &) const = default;
};

/// Slurm resources per cell from the manifest's "slurm" object (flags override them).
struct SweepSlurm {
  std::string partition, mem, time;
  int64_t cpusPerTask = 0;
  bool operator==(const SweepSlurm &) const = default;
};

struct SweepManifest {
  std::string name; ///< "name", default the manifest's file stem
  std::string path; ///< the manifest file (absolute)
  std::vector<SweepModel> models;
  std::vector<std::string> precisions, chips;
  SweepSlurm slurm;
  bool operator==(const SweepManifest &) const = default;
};

/// Reads a manifest's JSON text; `path` is the file (errors name it, relative paths resolve against its
/// folder). The error is one line naming the field ("m.json: models[1].transform: tpuc transform: ...").
ReadResult<SweepManifest> parseSweepManifest(const std::string &text, const std::string &path);
/// Reads and parses the manifest file.
ReadResult<SweepManifest> readSweepManifest(const std::string &path);

/// One cell: cells are numbered model-major, then precision, then chip (the order of the manifest).
struct SweepCell {
  int64_t index = 0;
  size_t model = 0;
  std::string precision, chip;
};
std::vector<SweepCell> sweepCells(const SweepManifest &manifest);
/// "model/precision/chip".
std::string cellName(const SweepManifest &manifest, const SweepCell &cell);
/// TPU-MLIR's default (cos, euc) per precision: F32 0.99,0.99; F16/BF16 0.99,0.90; INT8 and the rest
/// 0.90,0.80.
std::string defaultTolerance(const std::string &precision);
std::string cellTolerance(const SweepModel &model, const std::string &precision);

/// One child of a cell: its subcommand, how it ended and what it cost.
struct SweepStage {
  std::string name; ///< transform, calibrate, deploy, run, compare
  int exitCode = 0;
  double seconds = 0;
  int64_t peakRssKb = 0;
  bool operator==(const SweepStage &) const = default;
};

/// A cell's record (<out>/cells/<K>.json), and a row of the report.
struct SweepCellRecord {
  int64_t index = 0;
  std::string model, precision, chip;
  /// passed; failed (a stage failed or an output missed the tolerance: the result); error (a stage could
  /// not run or was killed, or the cell left no record: retried).
  std::string status;
  std::string stage;   ///< the stage that failed, "" when passed
  std::string message; ///< its one-line error
  std::string tolerance;
  /// The model file's outputs on the simulator against the Top reference (compare).
  std::vector<TensorResult> outputs;
  /// Deploy's first divergent layer (the best-ranked candidate), "" when it found none.
  std::string firstDivergent;
  double latencyMs = 0; ///< simulated, from the run
  int64_t cycles = 0;
  double compileSeconds = 0; ///< transform + calibrate + deploy, wall time of the children
  int64_t peakRssKb = 0;     ///< the largest peak RSS of the children
  std::vector<SweepStage> stages;
  std::string runDir;   ///< the cell's folder, relative to the sweep folder
  std::string accuracy; ///< deploy's per-layer comparison (<stem>_compare.json), relative; "" when none
  int64_t attempts = 1;
  // Set by compareSweeps (report only).
  bool accuracyRegression = false, latencyRegression = false;
  std::optional<double> previousOutputCosine, previousLatencyMs;
  std::string previousStatus;
  bool operator==(const SweepCellRecord &) const = default;
};
/// The lowest cosine over the outputs (NaN when none).
double minOutputCosine(const SweepCellRecord &record);
/// Whether the record is final (passed or failed): a re-run skips such cells.
bool isFinished(const SweepCellRecord &record);

std::string toJson(const SweepCellRecord &record);
ReadResult<SweepCellRecord> parseSweepCellRecord(const std::string &json);
/// Where cell K's record lives in the sweep folder: <out>/cells/<K>.json.
std::string cellRecordPath(const std::string &outDir, int64_t index);

struct SweepReport {
  std::string name, manifest;
  std::string executor;
  std::string compared; ///< the previous report, "" when none
  double accuracyThreshold = 0, latencyThreshold = 0;
  int64_t passed = 0, failed = 0, errors = 0, regressions = 0;
  double wallSeconds = 0;
  std::vector<SweepCellRecord> cells;
  bool operator==(const SweepReport &) const = default;
};
/// Counts the statuses and regressions of `report.cells`.
void countSweep(SweepReport &report);
/// Flags each cell's regressions against the same cell (model, precision, chip) of `previous`: a lowest
/// output cosine lower by more than accuracyThreshold or a pass turned into a failure (accuracy); a latency
/// higher by more than latencyThreshold as a fraction (latency). Regressions sort first, then cell order.
/// `compared` becomes the previous report's name (the CLI sets it to its file).
void compareSweeps(SweepReport &report, const SweepReport &previous);

std::string toJson(const SweepReport &report);
ReadResult<SweepReport> parseSweepReport(const std::string &json);
ReadResult<SweepReport> readSweepReport(const std::string &path);
/// The report as one self-contained HTML page (one table, regressions highlighted).
std::string sweepReportHtml(const SweepReport &report);

} // namespace tpuc::driver

#endif // TPUC_DRIVER_SWEEP_H
