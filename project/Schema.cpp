// The .tpuproj SQLite schema (version 3) and the migrations from versions 1 and 2.
#include "project/Schema.h"

#include <nlohmann/json.hpp>

#include <string>

namespace tpuc::project::schema {

namespace {

// Version 2. Sections are separate tables so each can evolve on its own; JSON columns hold free-form data.
constexpr const char *kSchemaV2 = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE model(
  id INTEGER PRIMARY KEY CHECK (id = 1),
  path TEXT NOT NULL, content_hash TEXT NOT NULL, size INTEGER NOT NULL, format TEXT NOT NULL,
  embedded BLOB);
CREATE TABLE import_settings(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE datasets(id INTEGER PRIMARY KEY, ordinal INTEGER NOT NULL, name TEXT NOT NULL);
CREATE TABLE samples(
  dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE, ordinal INTEGER NOT NULL,
  path TEXT NOT NULL, metadata TEXT NOT NULL, thumbnail BLOB, PRIMARY KEY (dataset_id, ordinal));
CREATE TABLE cali_tables(
  id INTEGER PRIMARY KEY, ordinal INTEGER NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL,
  created TEXT NOT NULL, comment TEXT NOT NULL, UNIQUE (name, version));
CREATE TABLE cali_entries(
  table_id INTEGER NOT NULL REFERENCES cali_tables(id) ON DELETE CASCADE, ordinal INTEGER NOT NULL,
  op_name TEXT NOT NULL, threshold REAL NOT NULL, min REAL NOT NULL, max REAL NOT NULL,
  PRIMARY KEY (table_id, ordinal));
CREATE TABLE quant_tables(
  id INTEGER PRIMARY KEY, ordinal INTEGER NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL,
  created TEXT NOT NULL, comment TEXT NOT NULL, UNIQUE (name, version));
CREATE TABLE quant_entries(
  table_id INTEGER NOT NULL REFERENCES quant_tables(id) ON DELETE CASCADE, ordinal INTEGER NOT NULL,
  op_name TEXT NOT NULL, mode TEXT NOT NULL, PRIMARY KEY (table_id, ordinal));
CREATE TABLE compile_configs(
  id INTEGER PRIMARY KEY, ordinal INTEGER NOT NULL, name TEXT NOT NULL UNIQUE, chip TEXT NOT NULL,
  precision TEXT NOT NULL, options TEXT NOT NULL);
CREATE TABLE runs(
  id INTEGER PRIMARY KEY, config_name TEXT NOT NULL, started TEXT NOT NULL, finished TEXT NOT NULL,
  status TEXT NOT NULL, latency_ms REAL NOT NULL, memory_peak_bytes INTEGER NOT NULL,
  layer_metrics TEXT NOT NULL, summary TEXT NOT NULL);
CREATE TABLE run_artifacts(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, ordinal INTEGER NOT NULL,
  kind TEXT NOT NULL, name TEXT NOT NULL, content_hash TEXT NOT NULL, PRIMARY KEY (run_id, ordinal));
CREATE TABLE view_state(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE notes(id INTEGER PRIMARY KEY CHECK (id = 1), text TEXT NOT NULL);
)sql";

// Version 3 adds the dataset index of a scanned folder (TpucDataset): its root and subsets (JSON), one row
// per file (path relative to the root, the metadata as JSON) and per unreadable file.
constexpr const char *kSchemaV3 = R"sql(
CREATE TABLE dataset_indexes(
  dataset_id INTEGER PRIMARY KEY REFERENCES datasets(id) ON DELETE CASCADE, root TEXT NOT NULL,
  subsets TEXT NOT NULL);
CREATE TABLE dataset_files(
  dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE, ordinal INTEGER NOT NULL,
  path TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, content_hash TEXT NOT NULL,
  metadata TEXT NOT NULL, PRIMARY KEY (dataset_id, ordinal));
CREATE TABLE dataset_unreadable(
  dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE, ordinal INTEGER NOT NULL,
  path TEXT NOT NULL, reason TEXT NOT NULL, PRIMARY KEY (dataset_id, ordinal));
)sql";

std::string formatFromPath(const std::string &path) {
  auto dot = path.rfind('.');
  auto slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return "hf"; // a HuggingFace checkpoint is a folder
  return path.substr(dot + 1);
}

bool stamp(sql::Db &db, int version) {
  return db.exec("PRAGMA application_id = " + std::to_string(kApplicationId) + ";") &&
         db.exec("PRAGMA user_version = " + std::to_string(version) + ";");
}

// Version 1 kept a flat key/value `settings` table (import flags, notes and view.* keys mixed), one
// `cali_table` without versions, the model as an absolute path with its sha256, and runs that named
// their chip and precision inline. Version 2 splits these into sections.
bool migrate1To2(sql::Db &db) {
  if (!db.exec("ALTER TABLE model RENAME TO model_v1; ALTER TABLE runs RENAME TO runs_v1;") ||
      !db.exec(kSchemaV2))
    return false;
  {
    sql::Stmt read(db, "SELECT path, sha256 FROM model_v1 LIMIT 1");
    sql::Stmt write(db, "INSERT INTO model(id, path, content_hash, size, format) VALUES (1, ?, ?, 0, ?)");
    if (read.step()) {
      std::string path = read.columnText(0), hash = read.columnText(1);
      if (!hash.empty() && hash.find(':') == std::string::npos)
        hash = "sha256:" + hash;
      if (!write.bind(1, path).bind(2, hash).bind(3, formatFromPath(path)).run())
        return false;
    }
    if (read.failed())
      return false;
  }
  {
    sql::Stmt read(db, "SELECT key, value FROM settings");
    sql::Stmt importRow(db, "INSERT INTO import_settings(key, value) VALUES (?, ?)");
    sql::Stmt viewRow(db, "INSERT INTO view_state(key, value) VALUES (?, ?)");
    sql::Stmt noteRow(db, "INSERT INTO notes(id, text) VALUES (1, ?)");
    while (read.step()) {
      std::string key = read.columnText(0), value = read.columnText(1);
      bool ok;
      if (key == "notes") {
        ok = noteRow.bind(1, value).run();
      } else if (key.rfind("view.", 0) == 0) {
        ok = viewRow.bind(1, key.substr(5)).bind(2, value).run();
      } else {
        // v1 stored list values as space-separated text ("123.675 116.28 103.53"); v2 stores JSON.
        if (key == "mean" || key == "scale" || key == "resize_dims") {
          nlohmann::json list = nlohmann::json::array();
          std::size_t pos = 0;
          while (pos < value.size()) {
            std::size_t end = value.find(' ', pos);
            if (end == std::string::npos)
              end = value.size();
            if (end > pos)
              list.push_back(std::stod(value.substr(pos, end - pos)));
            pos = end + 1;
          }
          value = list.dump();
        } else if (key == "keep_aspect_ratio") {
          value = (value == "1" || value == "true") ? "true" : "false";
        } else if (key == "pad_value") {
          value = nlohmann::json(std::stod(value)).dump();
        } else {
          value = nlohmann::json(value).dump();
        }
        ok = importRow.bind(1, key).bind(2, value).run();
      }
      if (!ok)
        return false;
    }
    if (read.failed())
      return false;
  }
  // The single v1 table becomes version 1 of the table "default".
  if (!db.exec("INSERT INTO cali_tables(id, ordinal, name, version, created, comment) "
               "SELECT 1, 0, 'default', 1, '', 'migrated from schema v1' "
               "WHERE EXISTS (SELECT 1 FROM cali_table);"
               "INSERT INTO cali_entries(table_id, ordinal, op_name, threshold, min, max) "
               "SELECT 1, rowid - 1, op_name, threshold, min, max FROM cali_table ORDER BY rowid;"
               // Each distinct (chip, precision) of the v1 runs becomes a named compile configuration.
               "INSERT INTO compile_configs(ordinal, name, chip, precision, options) "
               "SELECT ROW_NUMBER() OVER (ORDER BY MIN(id)) - 1, chip || '-' || lower(precision), chip, "
               "precision, '{}' FROM runs_v1 GROUP BY chip, precision;"
               "INSERT INTO runs(id, config_name, started, finished, status, latency_ms, "
               "memory_peak_bytes, layer_metrics, summary) "
               "SELECT id, chip || '-' || lower(precision), started, started, 'ok', latency_ms, 0, '[]', "
               "'{}' FROM runs_v1;"
               "DROP TABLE model_v1; DROP TABLE runs_v1; DROP TABLE settings; DROP TABLE cali_table;"))
    return false;
  return stamp(db, 2);
}

// Version 2 had no dataset indexes: the new tables start empty.
bool migrate2To3(sql::Db &db) { return db.exec(kSchemaV3) && stamp(db, 3); }

} // namespace

bool create(sql::Db &db) { return db.exec(kSchemaV2) && db.exec(kSchemaV3) && stamp(db, kCurrentVersion); }

bool migrate(sql::Db &db, int from) {
  for (int version = from; version < kCurrentVersion; ++version) {
    bool ok = false;
    switch (version) {
    case 1:
      try {
        ok = migrate1To2(db);
      } catch (const std::exception &e) { // std::stod on a malformed v1 value
        db.setError(std::string("malformed value in the schema v1 settings: ") + e.what());
        return false;
      }
      break;
    case 2:
      ok = migrate2To3(db);
      break;
    default:
      db.setError("no migration from schema version " + std::to_string(version));
      return false;
    }
    if (!ok)
      return false;
  }
  return true;
}

} // namespace tpuc::project::schema
