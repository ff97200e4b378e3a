// The .tpuproj SQLite schema: its identity, its current version and the migrations from older versions.
#ifndef TPUC_APP_PROJECT_SCHEMA_H
#define TPUC_APP_PROJECT_SCHEMA_H

#include "project/Sqlite.h"

namespace tpuc::project::schema {

/// PRAGMA application_id of every .tpuproj ("TPUS"): tells our files from other apps' SQLite files.
inline constexpr std::int64_t kApplicationId = 0x54505553;
/// PRAGMA user_version written by this build. History: 1 = first release (flat settings, one
/// unversioned calibration table), 2 = sections with versioned tables, datasets, configs and artifacts,
/// 3 = dataset indexes (files with metadata, unreadable files, subsets).
inline constexpr int kCurrentVersion = 3;

/// Creates the current schema in an empty database and stamps application_id and user_version.
bool create(sql::Db &db);

/// Upgrades a database of version `from` to kCurrentVersion, one step at a time. The caller owns the
/// transaction so a failed step leaves the file as it was.
bool migrate(sql::Db &db, int from);

} // namespace tpuc::project::schema

#endif
