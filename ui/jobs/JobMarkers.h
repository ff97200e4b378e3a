// Runs a killed studio leaves behind (issue 25): while a job runs, a marker file in the project's cache
// (`<cache>/jobs/running-<studio pid>-<job id>.json`: title, command line, start) says so; the job's end
// removes it. Opening the project later turns the markers of studios that are gone into runs marked
// "interrupted", so the run history says what was cut off instead of forgetting it.
#ifndef TPUC_UI_JOBS_JOBMARKERS_H
#define TPUC_UI_JOBS_JOBMARKERS_H

#include "project/Project.h"
#include "ui/jobs/JobQueue.h"

#include <QString>

#include <vector>

namespace tpuc::ui {

/// Writes the marker of running job `job` of the project saved as `projectFile` (nothing for an untitled
/// one).
void markJobRunning(const QString &projectFile, const JobInfo &job);
/// Removes the marker of job `jobId` of this studio.
void clearJobMarker(const QString &projectFile, int jobId);
/// The markers of jobs whose studio process no longer runs, as runs with status "interrupted" (oldest
/// first); their marker files are removed. A marker that cannot be read becomes a run saying so.
std::vector<project::RunRecord> collectInterruptedRuns(const QString &projectFile);

} // namespace tpuc::ui

#endif
