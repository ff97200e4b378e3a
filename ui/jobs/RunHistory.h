// Turns a finished job into an entry of the project's run history (command, exit, duration, artifacts,
// compare summary from the job's result record). Plain functions over plain data, so the work can run off the
// UI thread.
#ifndef TPUC_UI_JOBS_RUNHISTORY_H
#define TPUC_UI_JOBS_RUNHISTORY_H

#include "project/Project.h"
#include "ui/jobs/JobQueue.h"

#include <QJsonArray>
#include <QStringList>

namespace tpuc::ui {

/// One compared tensor of a result record (compare, deploy, transform).
struct CompareRow {
  QString name;
  QString status; ///< EQUAL, CLOSE, SIMILAR, NOT_SIMILAR, MISMATCH (as the record has it)
  bool passed = false;
  double cosine = 0, euclidean = 0, sqnr = 0, maxAbsDiff = 0; ///< NaN when printed as "-"
  bool operator==(const CompareRow &) const = default;
};

/// The compare rows as the JSON array stored in RunRecord::summaryJson's "compare".
QJsonArray compareRowsJson(const std::vector<CompareRow> &rows);

/// The run record of a finished job. Artifact paths that exist are hashed (file content, "sha256:...");
/// this reads files, so call it off the UI thread for large artifacts.
project::RunRecord makeRunRecord(const JobInfo &job);

} // namespace tpuc::ui

#endif
