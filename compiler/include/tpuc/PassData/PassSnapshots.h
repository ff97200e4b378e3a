//===- PassSnapshots.h - A pipeline run's per-pass snapshots on disk -*- C++ -*-===//
// The artifact the pass recorder writes and the studio reads: a directory with `index.json`, the IR after
// each pass (`NNN-<pass>.mlir`), its ops (`NNN-<pass>.ops.json`) and its graph (`NNN-<pass>.graph.json`,
// GraphData.h's JSON). Plain data, no MLIR, no Qt.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TRANSFORMS_PASSSNAPSHOTS_H
#define TPUC_TRANSFORMS_PASSSNAPSHOTS_H

#include "tpuc/PassData/PassDiff.h"
#include "tpuc/Support/Result.h"

#include <string>
#include <vector>

namespace tpuc {

/// The IR after one pass (index 0: the pipeline's input, pass "input").
struct PassSnapshot {
  std::size_t index = 0;
  std::string pass;     ///< the pass's name ("Canonicalizer"), "input" for the first snapshot
  std::string argument; ///< its command-line argument ("canonicalize"); "" when it has none
  std::string anchor;   ///< the op the pass ran on ("builtin.module", "func.func @main")
  std::string pipeline; ///< which pass-manager run of the process it belongs to ("top-pipeline")
  double wallMs = 0;    ///< the pass's wall time (0 for the input)
  std::size_t opCount = 0;
  std::size_t added = 0, removed = 0, changed = 0; ///< versus the previous snapshot
  bool failed = false;                             ///< the pass failed; the IR is what it left behind
  bool irChanged = false;                          ///< the IR text differs from the previous snapshot's
  std::string irFile;    ///< relative to the run directory; shared with the previous when unchanged
  std::string opsFile;   ///< likewise
  std::string graphFile; ///< the graph (tpuc graph's JSON) likewise; "" when not recorded
  bool operator==(const PassSnapshot &) const = default;

  /// "canonicalize" or the name when there is no argument.
  const std::string &label() const { return argument.empty() ? pass : argument; }
};

/// Everything recorded for a process's pipelines, in order.
struct PassRun {
  static constexpr int kFormatVersion = 1;
  std::vector<PassSnapshot> snapshots;
  bool operator==(const PassRun &) const = default;
};

/// Writes `dir/index.json` (atomically: temp file then rename); a one-line Failure naming the file.
Result<void> writePassRunIndex(const PassRun &run, const std::string &dir);
/// Reads `dir/index.json`; a one-line Failure naming the file and field when it is malformed.
Result<PassRun> readPassRun(const std::string &dir);

/// The ops of a snapshot as JSON (what `NNN-<pass>.ops.json` holds).
std::string opRecordsToJson(const OpRecords &records);
/// Parses opRecordsToJson's output; `source` names the file in errors.
Result<OpRecords> opRecordsFromJson(const std::string &text, const std::string &source);

/// Reads a whole file; a one-line Failure naming it.
Result<std::string> readTextFile(const std::string &path);
/// Writes a file atomically; a one-line Failure naming it.
Result<void> writeTextFile(const std::string &path, const std::string &text);

/// The files of one snapshot, loaded for display.
struct LoadedSnapshot {
  std::string ir;
  OpRecords ops;
  std::string graphJson; ///< "" when the run has no graph files
};
/// Loads `snapshot` of the run in `dir`; a Failure names the first file that is missing or malformed.
Result<LoadedSnapshot> loadSnapshot(const std::string &dir, const PassSnapshot &snapshot);

} // namespace tpuc

#endif // TPUC_TRANSFORMS_PASSSNAPSHOTS_H
