//===- PassRecorder.h - IR snapshots after every pass --------------*- C++ -*-===//
// An MLIR pass instrumentation that writes a PassSnapshots directory: after every pass, the IR as text
// (with locations), its ops, wall time, and the ops added/removed/changed by the pass.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TRANSFORMS_PASSRECORDER_H
#define TPUC_TRANSFORMS_PASSRECORDER_H

#include "tpuc/PassData/PassSnapshots.h"

#include "mlir/IR/Operation.h"
#include "mlir/Pass/PassManager.h"

#include <memory>
#include <string>

namespace tpuc {

/// The ops nested in `root` (not `root` itself), in pre-order, with content hashes.
OpRecords collectOpRecords(mlir::Operation *root);

/// Records snapshots of every pass manager it is attached to into one directory, numbering snapshots
/// across them. The index is rewritten after every pass, so a crash keeps what was recorded so far.
/// Snapshots print the whole top-level op, so attaching disables the context's multithreading (as
/// MLIR's own module-scope IR printing requires).
class PassRecorder {
public:
  /// Creates `dir` when missing; stale snapshot files of an earlier run in it are removed.
  explicit PassRecorder(std::string dir);
  ~PassRecorder();

  /// Instruments `pm`; `pipeline` names its runs in the index ("top-pipeline").
  void attach(mlir::PassManager &pm, const std::string &pipeline);

  /// The first error (cannot create or write the directory); "" when all went well.
  std::string error() const;
  /// What has been recorded so far.
  PassRun run() const;
  const std::string &dir() const { return m_dir; }
  /// The index file's path.
  std::string indexPath() const;

  struct State;

private:
  std::string m_dir;
  std::shared_ptr<State> m_state;
};

} // namespace tpuc

#endif // TPUC_TRANSFORMS_PASSRECORDER_H
