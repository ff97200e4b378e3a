//===- SweepExecutors.h - Where a sweep's cells run ------------------------===//
//
// An executor launches cells and returns when they have ended; each cell is `tpuc sweep MANIFEST --cell K
// --out DIR`, which writes DIR/cells/K.json. Nothing about the executor reaches the cells: the local one
// runs them as a pool of child processes, the Slurm one as one `sbatch --array` job array.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_APP_TPUC_SWEEPEXECUTORS_H
#define TPUC_APP_TPUC_SWEEPEXECUTORS_H

#include "Commands.h"

#include "tpuc/Driver/Sweep.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tpuc::cli {

class SweepExecutor {
public:
  virtual ~SweepExecutor() = default;
  /// Runs the cells `indices` and waits for them; "" or one line when they could not be launched at all
  /// (a cell that fails is its record's business).
  virtual std::string launch(const std::vector<int64_t> &indices) = 0;
  /// Why cell `index` left no record, as far as the executor knows (its exit, its log).
  virtual std::string whyNoRecord(int64_t index) const = 0;
};

std::unique_ptr<SweepExecutor> makeExecutor(const driver::SweepOptions &o,
                                            const driver::SweepManifest &manifest, const std::string &outDir);

/// A cell's folder, relative to the sweep folder: cells/<K>-<model>-<precision>-<chip>.
std::string cellRunDir(const driver::SweepManifest &manifest, const driver::SweepCell &cell);
/// Writes cell K's record (atomically: a temporary file renamed). False when it cannot.
bool writeCellRecord(const std::string &outDir, const driver::SweepCellRecord &record);
driver::ReadResult<driver::SweepCellRecord> readCellRecord(const std::string &outDir, int64_t index);
/// `tpuc sweep --cell K`: runs the cell and writes its record; 0 when it passed.
int runCell(const driver::SweepManifest &manifest, const driver::SweepCell &cell, const std::string &outDir);

} // namespace tpuc::cli

#endif // TPUC_APP_TPUC_SWEEPEXECUTORS_H
