// Reads and writes .tpuproj files (SQLite) and names the files that live beside a project.
#ifndef TPUC_APP_PROJECT_PROJECTSTORE_H
#define TPUC_APP_PROJECT_PROJECTSTORE_H

#include "project/Project.h"
#include "tpuc/Support/Result.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace tpuc::project {

/// How saveProject writes the file.
enum class SaveMode {
  /// Update an existing project in one SQLite transaction (rollback journal, synchronous=FULL): a kill
  /// at any point leaves either the old or the new content; the hot journal is rolled back on next open.
  /// Creates the file (as Replace does) when it does not exist yet.
  InPlace,
  /// Write a complete new database beside the target, fsync it and rename it over the target
  /// (Save As over an existing file, autosave). Never leaves a half-written target.
  Replace,
};

/// What a project file holds, as fingerprints of its large sections (each dataset by position, each run
/// by id), taken by the load or save that last touched the file. An in-place save given it rewrites only
/// the datasets and runs that changed (and the small sections); it is trusted only while the file keeps
/// the size and modification time that load or save left, so another writer means a full rewrite.
struct StoredState {
  std::vector<std::uint64_t> datasets;
  std::map<std::int64_t, std::uint64_t> runs;
  std::uintmax_t fileSize = 0;
  std::filesystem::file_time_type fileTime{};
  bool valid = false;
};

/// Loads a project, or a Failure whose one line names the file. Older schema versions are migrated in
/// memory; the file itself is not modified by loading. `state`, when given, receives what the file
/// holds for a later in-place save (left invalid for an older schema).
Result<Project> loadProject(const std::filesystem::path &file, StoredState *state = nullptr);

/// Saves a project. A Failure names the file; the file on disk then still holds its previous content
/// (and `state` is unchanged). Refuses to overwrite a file that is not a TPU Studio project in InPlace
/// mode. `state`, when given, says what the file holds before (InPlace) and receives what it holds after.
Result<void> saveProject(const Project &project, const std::filesystem::path &file, SaveMode mode,
                         StoredState *state = nullptr);

/// "sha256:<hex>" of a file's bytes, or a Failure naming the file.
Result<std::string> hashFile(const std::filesystem::path &file);
/// "sha256:<hex>" of a byte string.
std::string hashBytes(std::string_view bytes);

/// The folder of regenerable artifacts beside a project: `<file>.cache/`.
std::filesystem::path cacheDirFor(const std::filesystem::path &projectFile);
/// The autosave file beside a project: `.<name>.autosave` in the same folder (hidden on Unix).
std::filesystem::path autosavePathFor(const std::filesystem::path &projectFile);

/// How a path is written into a project in `projectDir`: relative when the target is in the project's
/// folder or at most two levels up from it (so the folder can be moved or shared), else absolute.
std::string toStoredPath(const std::string &absolute, const std::filesystem::path &projectDir);
/// The inverse of toStoredPath.
std::string fromStoredPath(const std::string &stored, const std::filesystem::path &projectDir);

} // namespace tpuc::project

#endif
