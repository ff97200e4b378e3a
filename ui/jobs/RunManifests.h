// Keeps each deploy's or calibration's run manifest (tpuc.manifest) with the accuracy records it names, so
// two runs stay comparable (`tpuc runs diff`) after a later deploy of the same configuration overwrote the
// files.
#ifndef TPUC_UI_JOBS_RUNMANIFESTS_H
#define TPUC_UI_JOBS_RUNMANIFESTS_H

#include "project/Project.h"
#include "ui/jobs/JobQueue.h"

#include <QString>

namespace tpuc::ui {

/// The artifact kind of a kept manifest in a run record.
inline constexpr const char *kRunManifestKind = "run_manifest";

/// When `job` wrote a run manifest (beside its result record: `<stem>_result.json` →
/// `<stem>_manifest.json`), copies it and the records it names (result, compare, compare_samples,
/// first_divergent, and the engine trace whose cycles `tpuc runs diff` compares) into a folder of their own,
/// `<folder of the manifest>/kept-runs/<stem>-<finish time>-<job>/`, and lists the copy in `run` (kind
/// "run_manifest", hashed). Reads and writes files: call it off the UI thread, right after the job ends.
/// Returns the kept manifest, or empty when the job wrote none.
QString keepRunManifest(const JobInfo &job, project::RunRecord &run);

/// The run manifest of a run: its kept copy, else a `_manifest.json` artifact still on disk; empty when none.
QString runManifestOf(const project::RunRecord &run);

} // namespace tpuc::ui

#endif
