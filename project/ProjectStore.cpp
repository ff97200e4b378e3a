// Reads and writes .tpuproj files: identity and version checks, migrations, transactional saves.
#include "project/ProjectStore.h"

#include "project/Schema.h"
#include "project/Sha256.h"
#include "project/Sqlite.h"

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <fstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace tpuc::project {

namespace {

std::string quoted(const fs::path &file) { return "'" + file.string() + "'"; }

// --- identity -----------------------------------------------------------------------------------

/// Checks that `db` is a TPU Studio project this build can read; returns its schema version.
Result<int> checkIdentity(sql::Db &db, const fs::path &file) {
  auto appId = db.queryInt("PRAGMA application_id");
  if (!appId) {
    // SQLITE_CORRUPT: our header is there but pages are missing or garbled (a truncated copy, a bad
    // disk); anything else means the bytes were never an SQLite database.
    if ((sqlite3_errcode(db.handle()) & 0xff) == SQLITE_CORRUPT)
      return Failure{quoted(file) + " is damaged (" + db.lastError() + ")"};
    return Failure{quoted(file) + " is not a TPU Studio project (" + db.lastError() + ")"};
  }
  auto version = db.queryInt("PRAGMA user_version");
  if (*appId != schema::kApplicationId) {
    auto tables = db.queryInt("SELECT count(*) FROM sqlite_schema");
    if (tables && *tables == 0)
      return Failure{quoted(file) + " is an empty database, not a TPU Studio project"};
    return Failure{quoted(file) + " is an SQLite database of another application, not a TPU Studio project"};
  }
  if (!version || *version < 1)
    return Failure{quoted(file) + " is a TPU Studio project without a schema version (damaged)"};
  if (*version > schema::kCurrentVersion)
    return Failure{quoted(file) + " was written by a newer TPU Studio (schema version " +
                   std::to_string(*version) + ", this build reads up to " +
                   std::to_string(schema::kCurrentVersion) + ")"};
  return static_cast<int>(*version);
}

// --- reading ------------------------------------------------------------------------------------

template <typename T> bool jsonField(const json &value, T &out) {
  try {
    out = value.get<T>();
    return true;
  } catch (const json::exception &) {
    return false;
  }
}

bool readLlmSettings(const json &value, std::optional<LlmConvertSettings> &out) {
  if (!value.is_object())
    return false;
  LlmConvertSettings l;
  // Missing keys keep their defaults (a file from an older revision); a wrong type is malformed.
  auto field = [&value](const char *key, auto &target) {
    auto it = value.find(key);
    return it == value.end() || jsonField(*it, target);
  };
  if (!field("seq_length", l.seqLength) || !field("quantize", l.quantize) ||
      !field("q_group_size", l.qGroupSize) || !field("symmetric", l.symmetric) || !field("chip", l.chip) ||
      !field("use_history_kv", l.useHistoryKv) || !field("chunk_length", l.chunkLength) ||
      !field("max_input_length", l.maxInputLength) || !field("dynamic", l.dynamic))
    return false;
  out = l;
  return true;
}

/// A failure is a malformed value or the database's error.
Result<void> readImportSettings(sql::Db &db, ImportSettings &s) {
  sql::Stmt stmt(db, "SELECT key, value FROM import_settings");
  while (stmt.step()) {
    std::string key = stmt.columnText(0);
    json value = json::parse(stmt.columnText(1), nullptr, /*allow_exceptions=*/false);
    bool ok = !value.is_discarded();
    if (ok) {
      if (key == "input_shapes")
        ok = jsonField(value, s.inputShapes);
      else if (key == "mean")
        ok = jsonField(value, s.mean);
      else if (key == "scale")
        ok = jsonField(value, s.scale);
      else if (key == "pixel_format")
        ok = jsonField(value, s.pixelFormat);
      else if (key == "channel_format")
        ok = jsonField(value, s.channelFormat);
      else if (key == "resize_dims")
        ok = jsonField(value, s.resizeDims);
      else if (key == "keep_aspect_ratio")
        ok = jsonField(value, s.keepAspectRatio);
      else if (key == "pad_value")
        ok = jsonField(value, s.padValue);
      else if (key == "output_names")
        ok = jsonField(value, s.outputNames);
      else if (key == "llm_convert")
        ok = readLlmSettings(value, s.llm);
      // Unknown keys come from a newer minor revision; ignoring them keeps the file readable.
    }
    if (!ok)
      return Failure{"import setting '" + key + "' has a malformed value"};
  }
  if (stmt.failed())
    return Failure{db.lastError()};
  return {};
}

// A dataset's index (schema 3): the root relative to the project, the files relative to the root.
Result<void> readDatasetIndex(sql::Db &db, const fs::path &dir, Dataset &d) {
  sql::Stmt head(db, "SELECT root, subsets FROM dataset_indexes WHERE dataset_id = ?");
  head.bind(1, d.id);
  if (!head.step()) {
    if (head.failed())
      return Failure{db.lastError()};
    return {};
  }
  dataset::DatasetIndex index;
  index.root = fromStoredPath(head.columnText(0), dir);
  auto subsets = dataset::subsetsFromJson(head.columnText(1));
  if (!subsets)
    return Failure{"dataset '" + d.name + "': " + llvm::toString(subsets.takeError())};
  index.subsets = std::move(*subsets);
  sql::Stmt files(db, "SELECT path, size, mtime_ns, content_hash, metadata FROM dataset_files "
                      "WHERE dataset_id = ? ORDER BY ordinal");
  files.bind(1, d.id);
  while (files.step()) {
    auto metadata = dataset::metadataFromJson(files.columnText(4));
    if (!metadata)
      return Failure{"dataset '" + d.name + "': file " + files.columnText(0) + ": " +
                     llvm::toString(metadata.takeError())};
    index.files.push_back({files.columnText(0), static_cast<std::uint64_t>(files.columnInt(1)),
                           files.columnInt(2), files.columnText(3), std::move(*metadata)});
  }
  sql::Stmt unreadable(db,
                       "SELECT path, reason FROM dataset_unreadable WHERE dataset_id = ? ORDER BY ordinal");
  unreadable.bind(1, d.id);
  while (unreadable.step())
    index.unreadable.push_back({unreadable.columnText(0), unreadable.columnText(1)});
  if (files.failed() || unreadable.failed())
    return Failure{db.lastError()};
  d.index = std::move(index);
  return {};
}

/// The statements (or fingerprints) one dataset is written through.
template <typename S> struct DatasetRows { S &dataset, &sample, &indexHead, &indexFile, &indexBad; };

/// Writes dataset `d` at position `ordinal` (id `ordinal + 1`) with its samples and index. `S` is
/// sql::Stmt when writing and RowHash when fingerprinting: both see exactly the same values.
template <typename S>
bool writeDataset(DatasetRows<S> rows, std::size_t ordinal, const Dataset &d, const fs::path &dir) {
  auto id = static_cast<std::int64_t>(ordinal + 1);
  if (!rows.dataset.bind(1, id).bind(2, static_cast<std::int64_t>(ordinal)).bind(3, d.name).run())
    return false;
  for (std::size_t j = 0; j < d.samples.size(); ++j) {
    const Sample &s = d.samples[j];
    rows.sample.bind(1, id)
        .bind(2, static_cast<std::int64_t>(j))
        .bind(3, toStoredPath(s.path, dir))
        .bind(4, s.metadataJson);
    if (s.thumbnailPng.empty())
      rows.sample.bindNull(5);
    else
      rows.sample.bindBlob(5, s.thumbnailPng);
    if (!rows.sample.run())
      return false;
  }
  if (!d.index)
    return true;
  const dataset::DatasetIndex &index = *d.index;
  if (!rows.indexHead.bind(1, id)
           .bind(2, toStoredPath(index.root, dir))
           .bind(3, dataset::subsetsToJson(index.subsets))
           .run())
    return false;
  for (std::size_t i = 0; i < index.files.size(); ++i) {
    const dataset::FileEntry &e = index.files[i];
    if (!rows.indexFile.bind(1, id)
             .bind(2, static_cast<std::int64_t>(i))
             .bind(3, e.path)
             .bind(4, static_cast<std::int64_t>(e.size))
             .bind(5, e.mtimeNs)
             .bind(6, e.contentHash)
             .bind(7, dataset::metadataToJson(e.metadata))
             .run())
      return false;
  }
  for (std::size_t i = 0; i < index.unreadable.size(); ++i)
    if (!rows.indexBad.bind(1, id)
             .bind(2, static_cast<std::int64_t>(i))
             .bind(3, index.unreadable[i].path)
             .bind(4, index.unreadable[i].reason)
             .run())
      return false;
  return true;
}

/// Writes run `r` with its artifacts (run ids are kept: artifacts, logs and the cache refer to them).
template <typename S> bool writeRun(S &run, S &artifact, const RunRecord &r, const fs::path &dir) {
  if (!run.bind(1, r.id)
           .bind(2, r.configName)
           .bind(3, r.started)
           .bind(4, r.finished)
           .bind(5, r.status)
           .bind(6, r.latencyMs)
           .bind(7, r.memoryPeakBytes)
           .bind(8, r.layerMetricsJson)
           .bind(9, r.summaryJson)
           .run())
    return false;
  for (std::size_t j = 0; j < r.artifacts.size(); ++j) {
    const ArtifactRef &a = r.artifacts[j];
    if (!artifact.bind(1, r.id)
             .bind(2, static_cast<std::int64_t>(j))
             .bind(3, a.kind)
             .bind(4, toStoredPath(a.name, dir))
             .bind(5, a.contentHash)
             .run())
      return false;
  }
  return true;
}

/// Takes the values a statement would be bound to and folds them into a 64-bit fingerprint, so the
/// rows of a dataset or a run can be compared with what a file holds without keeping a copy.
class RowHash {
public:
  RowHash &bind(int, std::int64_t value) { return mix(0x11, std::hash<std::int64_t>{}(value)); }
  RowHash &bind(int, double value) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    return mix(0x12, bits);
  }
  RowHash &bind(int, std::string_view value) {
    return mix(0x13 ^ (value.size() << 8), std::hash<std::string_view>{}(value));
  }
  RowHash &bindBlob(int, const std::vector<std::uint8_t> &value) {
    std::string_view bytes(reinterpret_cast<const char *>(value.data()), value.size());
    return mix(0x14 ^ (value.size() << 8), std::hash<std::string_view>{}(bytes));
  }
  RowHash &bindNull(int) { return mix(0x15, 0); }
  bool run() {
    mix(0x16, 0);
    return true;
  }
  std::uint64_t value() const { return m_value; }

private:
  RowHash &mix(std::uint64_t tag, std::uint64_t value) {
    // splitmix64's finalizer over the running value, the field's tag and its hash.
    std::uint64_t x = m_value ^ (tag * 0x9e3779b97f4a7c15ULL) ^ value;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    m_value = x ^ (x >> 31);
    return *this;
  }
  std::uint64_t m_value = 0x6a09e667f3bcc908ULL;
};

std::uint64_t datasetFingerprint(std::size_t ordinal, const Dataset &d, const fs::path &dir) {
  RowHash hash;
  writeDataset<RowHash>({hash, hash, hash, hash, hash}, ordinal, d, dir);
  return hash.value();
}

std::uint64_t runFingerprint(const RunRecord &r, const fs::path &dir) {
  RowHash hash;
  writeRun(hash, hash, r, dir);
  return hash.value();
}

/// Reads every section into `p`; a failure is a malformed value or the database's error.
Result<void> readAll(sql::Db &db, const fs::path &dir, Project &p) {
  {
    sql::Stmt stmt(db, "SELECT path, content_hash, size, format, embedded FROM model WHERE id = 1");
    if (stmt.step()) {
      p.model.path = fromStoredPath(stmt.columnText(0), dir);
      p.model.contentHash = stmt.columnText(1);
      p.model.size = static_cast<std::uint64_t>(stmt.columnInt(2));
      p.model.format = stmt.columnText(3);
      p.model.embedded = stmt.columnBlob(4);
    }
    if (stmt.failed())
      return Failure{db.lastError()};
  }
  if (Result<void> settings = readImportSettings(db, p.importSettings); !settings)
    return settings;
  {
    sql::Stmt sets(db, "SELECT id, name FROM datasets ORDER BY ordinal");
    sql::Stmt samples(db, "SELECT path, metadata, thumbnail FROM samples WHERE dataset_id = ? "
                          "ORDER BY ordinal");
    while (sets.step()) {
      Dataset d;
      d.id = sets.columnInt(0);
      d.name = sets.columnText(1);
      samples.bind(1, d.id);
      while (samples.step())
        d.samples.push_back(
            {fromStoredPath(samples.columnText(0), dir), samples.columnText(1), samples.columnBlob(2)});
      samples.reset();
      if (samples.failed())
        return Failure{db.lastError()};
      if (Result<void> index = readDatasetIndex(db, dir, d); !index)
        return index;
      p.datasets.push_back(std::move(d));
    }
    if (sets.failed())
      return Failure{db.lastError()};
  }
  {
    sql::Stmt tables(db, "SELECT id, name, version, created, comment FROM cali_tables ORDER BY ordinal");
    sql::Stmt rows(db, "SELECT op_name, threshold, min, max FROM cali_entries WHERE table_id = ? "
                       "ORDER BY ordinal");
    while (tables.step()) {
      CaliTable t{tables.columnInt(0),  tables.columnText(1), static_cast<int>(tables.columnInt(2)),
                  tables.columnText(3), tables.columnText(4), {}};
      rows.bind(1, t.id);
      while (rows.step())
        t.entries.push_back(
            {rows.columnText(0), rows.columnDouble(1), rows.columnDouble(2), rows.columnDouble(3)});
      rows.reset();
      if (rows.failed())
        return Failure{db.lastError()};
      p.caliTables.push_back(std::move(t));
    }
    if (tables.failed())
      return Failure{db.lastError()};
  }
  {
    sql::Stmt tables(db, "SELECT id, name, version, created, comment FROM quant_tables ORDER BY ordinal");
    sql::Stmt rows(db, "SELECT op_name, mode FROM quant_entries WHERE table_id = ? ORDER BY ordinal");
    while (tables.step()) {
      QuantTable t{tables.columnInt(0),  tables.columnText(1), static_cast<int>(tables.columnInt(2)),
                   tables.columnText(3), tables.columnText(4), {}};
      rows.bind(1, t.id);
      while (rows.step())
        t.entries.push_back({rows.columnText(0), rows.columnText(1)});
      rows.reset();
      if (rows.failed())
        return Failure{db.lastError()};
      p.quantTables.push_back(std::move(t));
    }
    if (tables.failed())
      return Failure{db.lastError()};
  }
  {
    sql::Stmt stmt(db, "SELECT id, name, chip, precision, options FROM compile_configs ORDER BY ordinal");
    while (stmt.step())
      p.compileConfigs.push_back({stmt.columnInt(0), stmt.columnText(1), stmt.columnText(2),
                                  stmt.columnText(3), stmt.columnText(4)});
    if (stmt.failed())
      return Failure{db.lastError()};
  }
  {
    sql::Stmt runs(db, "SELECT id, config_name, started, finished, status, latency_ms, memory_peak_bytes, "
                       "layer_metrics, summary FROM runs ORDER BY id");
    sql::Stmt artifacts(db, "SELECT kind, name, content_hash FROM run_artifacts WHERE run_id = ? "
                            "ORDER BY ordinal");
    while (runs.step()) {
      RunRecord r;
      r.id = runs.columnInt(0);
      r.configName = runs.columnText(1);
      r.started = runs.columnText(2);
      r.finished = runs.columnText(3);
      r.status = runs.columnText(4);
      r.latencyMs = runs.columnDouble(5);
      r.memoryPeakBytes = runs.columnInt(6);
      r.layerMetricsJson = runs.columnText(7);
      r.summaryJson = runs.columnText(8);
      artifacts.bind(1, r.id);
      while (artifacts.step())
        r.artifacts.push_back(
            {artifacts.columnText(0), fromStoredPath(artifacts.columnText(1), dir), artifacts.columnText(2)});
      artifacts.reset();
      if (artifacts.failed())
        return Failure{db.lastError()};
      p.runs.push_back(std::move(r));
    }
    if (runs.failed())
      return Failure{db.lastError()};
  }
  {
    sql::Stmt stmt(db, "SELECT key, value FROM view_state");
    while (stmt.step())
      p.viewState[stmt.columnText(0)] = stmt.columnText(1);
    if (stmt.failed())
      return Failure{db.lastError()};
  }
  sql::Stmt notes(db, "SELECT text FROM notes WHERE id = 1");
  if (notes.step())
    p.notes = notes.columnText(0);
  if (notes.failed())
    return Failure{db.lastError()};
  return {};
}

// --- writing ------------------------------------------------------------------------------------

bool writeModel(sql::Db &db, const ModelRef &m, const fs::path &dir) {
  std::string path = toStoredPath(m.path, dir);
  // Skip rewriting an unchanged (possibly large, embedded) model: most saves touch tables only.
  sql::Stmt current(db, "SELECT path, content_hash, size, format, length(embedded) FROM model WHERE id = 1");
  if (current.step() && current.columnText(0) == path && current.columnText(1) == m.contentHash &&
      current.columnInt(2) == static_cast<std::int64_t>(m.size) && current.columnText(3) == m.format &&
      current.columnInt(4) == static_cast<std::int64_t>(m.embedded.size()) && !m.contentHash.empty())
    return true;
  if (current.failed() || !db.exec("DELETE FROM model"))
    return false;
  if (m.path.empty() && m.embedded.empty() && m.contentHash.empty())
    return true;
  sql::Stmt stmt(db, "INSERT INTO model(id, path, content_hash, size, format, embedded) "
                     "VALUES (1, ?, ?, ?, ?, ?)");
  stmt.bind(1, path).bind(2, m.contentHash).bind(3, static_cast<std::int64_t>(m.size)).bind(4, m.format);
  if (m.embedded.empty())
    stmt.bindNull(5);
  else
    stmt.bindBlob(5, m.embedded);
  return stmt.run();
}

bool writeImportSettings(sql::Db &db, const ImportSettings &s) {
  sql::Stmt stmt(db, "INSERT INTO import_settings(key, value) VALUES (?, ?)");
  const std::array<std::pair<const char *, json>, 9> rows = {{
      {"input_shapes", s.inputShapes},
      {"mean", s.mean},
      {"scale", s.scale},
      {"pixel_format", s.pixelFormat},
      {"channel_format", s.channelFormat},
      {"resize_dims", s.resizeDims},
      {"keep_aspect_ratio", s.keepAspectRatio},
      {"pad_value", s.padValue},
      {"output_names", s.outputNames},
  }};
  for (const auto &[key, value] : rows)
    if (!stmt.bind(1, std::string_view(key)).bind(2, value.dump()).run())
      return false;
  if (s.llm) {
    const LlmConvertSettings &l = *s.llm;
    json value = {{"seq_length", l.seqLength},
                  {"quantize", l.quantize},
                  {"q_group_size", l.qGroupSize},
                  {"symmetric", l.symmetric},
                  {"chip", l.chip},
                  {"use_history_kv", l.useHistoryKv},
                  {"chunk_length", l.chunkLength},
                  {"max_input_length", l.maxInputLength},
                  {"dynamic", l.dynamic}};
    if (!stmt.bind(1, std::string_view("llm_convert")).bind(2, value.dump()).run())
      return false;
  }
  return true;
}

/// The sections that are small whatever the project's size, rewritten whole on every save: import
/// settings, calibration and quantize tables, configurations, view state, notes.
bool writeSmallSections(sql::Db &db, const Project &p) {
  // Child rows go with their parents through ON DELETE CASCADE.
  if (!db.exec("DELETE FROM import_settings; DELETE FROM cali_tables; DELETE FROM quant_tables; "
               "DELETE FROM compile_configs; DELETE FROM view_state; DELETE FROM notes;"))
    return false;
  if (!writeImportSettings(db, p.importSettings))
    return false;
  sql::Stmt cali(db, "INSERT INTO cali_tables(id, ordinal, name, version, created, comment) "
                     "VALUES (?, ?, ?, ?, ?, ?)");
  sql::Stmt caliRow(db, "INSERT INTO cali_entries(table_id, ordinal, op_name, threshold, min, max) "
                        "VALUES (?, ?, ?, ?, ?, ?)");
  for (std::size_t i = 0; i < p.caliTables.size(); ++i) {
    const CaliTable &t = p.caliTables[i];
    auto id = static_cast<std::int64_t>(i + 1);
    if (!cali.bind(1, id)
             .bind(2, static_cast<std::int64_t>(i))
             .bind(3, t.name)
             .bind(4, static_cast<std::int64_t>(t.version))
             .bind(5, t.created)
             .bind(6, t.comment)
             .run())
      return false;
    for (std::size_t j = 0; j < t.entries.size(); ++j) {
      const CaliEntry &e = t.entries[j];
      if (!caliRow.bind(1, id)
               .bind(2, static_cast<std::int64_t>(j))
               .bind(3, e.opName)
               .bind(4, e.threshold)
               .bind(5, e.min)
               .bind(6, e.max)
               .run())
        return false;
    }
  }
  sql::Stmt quant(db, "INSERT INTO quant_tables(id, ordinal, name, version, created, comment) "
                      "VALUES (?, ?, ?, ?, ?, ?)");
  sql::Stmt quantRow(db, "INSERT INTO quant_entries(table_id, ordinal, op_name, mode) VALUES (?, ?, ?, ?)");
  for (std::size_t i = 0; i < p.quantTables.size(); ++i) {
    const QuantTable &t = p.quantTables[i];
    auto id = static_cast<std::int64_t>(i + 1);
    if (!quant.bind(1, id)
             .bind(2, static_cast<std::int64_t>(i))
             .bind(3, t.name)
             .bind(4, static_cast<std::int64_t>(t.version))
             .bind(5, t.created)
             .bind(6, t.comment)
             .run())
      return false;
    for (std::size_t j = 0; j < t.entries.size(); ++j)
      if (!quantRow.bind(1, id)
               .bind(2, static_cast<std::int64_t>(j))
               .bind(3, t.entries[j].opName)
               .bind(4, t.entries[j].mode)
               .run())
        return false;
  }
  sql::Stmt config(db, "INSERT INTO compile_configs(id, ordinal, name, chip, precision, options) "
                       "VALUES (?, ?, ?, ?, ?, ?)");
  for (std::size_t i = 0; i < p.compileConfigs.size(); ++i) {
    const CompileConfig &c = p.compileConfigs[i];
    if (!config.bind(1, static_cast<std::int64_t>(i + 1))
             .bind(2, static_cast<std::int64_t>(i))
             .bind(3, c.name)
             .bind(4, c.chip)
             .bind(5, c.precision)
             .bind(6, c.optionsJson)
             .run())
      return false;
  }
  sql::Stmt view(db, "INSERT INTO view_state(key, value) VALUES (?, ?)");
  for (const auto &[key, value] : p.viewState)
    if (!view.bind(1, key).bind(2, value).run())
      return false;
  sql::Stmt notes(db, "INSERT INTO notes(id, text) VALUES (1, ?)");
  return notes.bind(1, p.notes).run();
}

/// The statements of the dataset sections of one database.
struct DatasetStatements {
  explicit DatasetStatements(sql::Db &db)
      : dataset(db, "INSERT INTO datasets(id, ordinal, name) VALUES (?, ?, ?)"),
        sample(db,
               "INSERT INTO samples(dataset_id, ordinal, path, metadata, thumbnail) VALUES (?, ?, ?, ?, ?)"),
        indexHead(db, "INSERT INTO dataset_indexes(dataset_id, root, subsets) VALUES (?, ?, ?)"),
        indexFile(db, "INSERT INTO dataset_files(dataset_id, ordinal, path, size, mtime_ns, content_hash, "
                      "metadata) VALUES (?, ?, ?, ?, ?, ?, ?)"),
        indexBad(db,
                 "INSERT INTO dataset_unreadable(dataset_id, ordinal, path, reason) VALUES (?, ?, ?, ?)") {}
  DatasetRows<sql::Stmt> rows() { return {dataset, sample, indexHead, indexFile, indexBad}; }
  sql::Stmt dataset, sample, indexHead, indexFile, indexBad;
};

struct RunStatements {
  explicit RunStatements(sql::Db &db)
      : run(db, "INSERT INTO runs(id, config_name, started, finished, status, latency_ms, "
                "memory_peak_bytes, layer_metrics, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
        artifact(db, "INSERT INTO run_artifacts(run_id, ordinal, kind, name, content_hash) "
                     "VALUES (?, ?, ?, ?, ?)") {}
  sql::Stmt run, artifact;
};

/// Writes every section into an empty database or over all of an existing one.
bool writeAll(sql::Db &db, const Project &p, const fs::path &dir) {
  if (!writeModel(db, p.model, dir) || !db.exec("DELETE FROM datasets; DELETE FROM runs;") ||
      !writeSmallSections(db, p))
    return false;
  // Ids are reassigned densely on every save; in memory they only need to be unique within a section.
  DatasetStatements datasets(db);
  for (std::size_t i = 0; i < p.datasets.size(); ++i)
    if (!writeDataset(datasets.rows(), i, p.datasets[i], dir))
      return false;
  RunStatements runs(db);
  for (const RunRecord &r : p.runs)
    if (!writeRun(runs.run, runs.artifact, r, dir))
      return false;
  return true;
}

/// Rewrites only the datasets and runs whose fingerprints differ from `stored` (what the file holds),
/// and the small sections; fills `written` with the project's fingerprints.
bool writeChanged(sql::Db &db, const Project &p, const fs::path &dir, const StoredState &stored,
                  StoredState &written) {
  if (!writeModel(db, p.model, dir) || !writeSmallSections(db, p))
    return false;
  sql::Stmt dropDataset(db, "DELETE FROM datasets WHERE id = ?");
  DatasetStatements datasets(db);
  written.datasets.clear();
  for (std::size_t i = 0; i < p.datasets.size(); ++i) {
    std::uint64_t fingerprint = datasetFingerprint(i, p.datasets[i], dir);
    written.datasets.push_back(fingerprint);
    if (i < stored.datasets.size() && stored.datasets[i] == fingerprint)
      continue;
    if (!dropDataset.bind(1, static_cast<std::int64_t>(i + 1)).run() ||
        !writeDataset(datasets.rows(), i, p.datasets[i], dir))
      return false;
  }
  for (std::size_t i = p.datasets.size(); i < stored.datasets.size(); ++i)
    if (!dropDataset.bind(1, static_cast<std::int64_t>(i + 1)).run())
      return false;
  sql::Stmt dropRun(db, "DELETE FROM runs WHERE id = ?");
  RunStatements runs(db);
  written.runs.clear();
  for (const RunRecord &r : p.runs) {
    std::uint64_t fingerprint = runFingerprint(r, dir);
    written.runs[r.id] = fingerprint;
    auto before = stored.runs.find(r.id);
    if (before != stored.runs.end() && before->second == fingerprint)
      continue;
    if (!dropRun.bind(1, r.id).run() || !writeRun(runs.run, runs.artifact, r, dir))
      return false;
  }
  for (const auto &[id, fingerprint] : stored.runs)
    if (!written.runs.count(id) && !dropRun.bind(1, id).run())
      return false;
  return true;
}

/// The fingerprints of every dataset and run of `p` as stored in a project file in `dir`.
StoredState fingerprints(const Project &p, const fs::path &dir) {
  StoredState state;
  for (std::size_t i = 0; i < p.datasets.size(); ++i)
    state.datasets.push_back(datasetFingerprint(i, p.datasets[i], dir));
  for (const RunRecord &r : p.runs)
    state.runs[r.id] = runFingerprint(r, dir);
  return state;
}

/// Size and modification time of `file` as a save left it: the next in-place save trusts its
/// fingerprints only while the file still has them.
bool stampFile(const fs::path &file, StoredState &state) {
  std::error_code ec;
  state.fileSize = fs::file_size(file, ec);
  if (ec)
    return false;
  state.fileTime = fs::last_write_time(file, ec);
  return !ec;
}

bool stampMatches(const fs::path &file, const StoredState &state) {
  std::error_code ec, ec2;
  return state.valid && fs::file_size(file, ec) == state.fileSize && !ec &&
         fs::last_write_time(file, ec2) == state.fileTime && !ec2;
}

/// Connection settings for saving: a rollback journal keeps the project a single self-contained file
/// between saves (WAL would leave committed data in a -wal side file that copying the project loses).
bool prepareForWrite(sql::Db &db) {
  return db.exec("PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;");
}

void syncDirectory(const fs::path &dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

Result<void> saveReplace(const Project &p, const fs::path &file, const fs::path &dir, StoredState *state) {
  fs::path temp = file;
  temp += ".saving-" + std::to_string(::getpid());
  std::error_code ec;
  fs::remove(temp, ec);
  {
    sql::Db db;
    // No journal for the temporary file: if we die, it is garbage and the target is untouched.
    bool ok = db.open(temp.string(), sql::Db::Mode::Create) &&
              db.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;") &&
              db.exec("BEGIN") && schema::create(db) && writeAll(db, p, dir) && db.exec("COMMIT");
    if (!ok) {
      Failure failure{"cannot save " + quoted(file) + ": " + db.lastError()};
      db.close();
      fs::remove(temp, ec);
      return failure;
    }
  }
  fs::rename(temp, file, ec);
  if (ec) {
    Failure failure{"cannot save " + quoted(file) + ": " + ec.message()};
    fs::remove(temp, ec);
    return failure;
  }
  syncDirectory(file.parent_path());
  if (state) {
    *state = fingerprints(p, dir);
    state->valid = stampFile(file, *state);
  }
  return {};
}

Result<void> saveInPlace(const Project &p, const fs::path &file, const fs::path &dir, StoredState *state) {
  // Only the changed datasets and runs are rewritten when the file is still as our last load or save
  // left it; otherwise (no fingerprints, another writer, an older schema) every section is.
  const bool incremental = state && stampMatches(file, *state);
  StoredState written;
  {
    sql::Db db;
    if (!db.open(file.string(), sql::Db::Mode::ReadWrite))
      return Failure{"cannot save " + quoted(file) + ": " + db.lastError()};
    Result<int> version = checkIdentity(db, file);
    if (!version)
      return Failure{"refusing to overwrite: " + version.error()};
    bool ok = prepareForWrite(db) && db.exec("BEGIN IMMEDIATE");
    if (ok && incremental && *version == schema::kCurrentVersion) {
      ok = writeChanged(db, p, dir, *state, written);
    } else {
      ok = ok && (*version == schema::kCurrentVersion || schema::migrate(db, *version)) &&
           writeAll(db, p, dir);
      if (ok && state)
        written = fingerprints(p, dir);
    }
    ok = ok && db.exec("COMMIT");
    if (!ok) {
      Failure failure{"cannot save " + quoted(file) + ": " + db.lastError()};
      db.exec("ROLLBACK");
      return failure;
    }
  }
  if (state) {
    *state = std::move(written);
    state->valid = stampFile(file, *state);
  }
  return {};
}

} // namespace

std::string toStoredPath(const std::string &absolute, const fs::path &projectDir) {
  if (absolute.empty())
    return {};
  fs::path target(absolute);
  if (!target.is_absolute())
    return target.generic_string();
  fs::path rel = target.lexically_normal().lexically_relative(projectDir.lexically_normal());
  if (rel.empty())
    return target.generic_string();
  int ups = 0;
  for (const fs::path &part : rel)
    if (part == "..")
      ++ups;
  return ups <= 2 ? rel.generic_string() : target.generic_string();
}

std::string fromStoredPath(const std::string &stored, const fs::path &projectDir) {
  if (stored.empty())
    return {};
  fs::path path(stored);
  if (path.is_absolute())
    return path.string();
  return (projectDir / path).lexically_normal().string();
}

/// SQLite's integrity report spans lines ("*** in database main ***\nPage 3: ..."): one line of at most 160
/// characters for a message.
static std::string oneLine(std::string text) {
  for (char &c : text)
    if (c == '\n' || c == '\r' || c == '\t')
      c = ' ';
  if (text.size() > 160)
    text = text.substr(0, 157) + "...";
  return text;
}

Result<Project> loadProject(const fs::path &file, StoredState *state) {
  if (state)
    *state = {};
  std::error_code ec;
  if (!fs::exists(file, ec))
    return Failure{quoted(file) + " does not exist"};
  if (fs::is_directory(file, ec))
    return Failure{quoted(file) + " is a folder, not a TPU Studio project"};
  sql::Db db;
  // Read-write so SQLite can roll back a hot journal left by a killed save; loading writes nothing else.
  if (!db.open(file.string(), sql::Db::Mode::ReadWrite) && !db.open(file.string(), sql::Db::Mode::ReadOnly))
    return Failure{"cannot open " + quoted(file) + ": " + db.lastError()};
  Result<int> version = checkIdentity(db, file);
  if (!version)
    return Failure{version.error()};
  {
    sql::Stmt check(db, "PRAGMA quick_check");
    if (!check.step() || check.columnText(0) != "ok")
      return Failure{quoted(file) + " is damaged (" +
                     oneLine(check.failed() ? db.lastError() : check.columnText(0)) + ")"};
  }
  sql::Db *source = &db;
  sql::Db memory;
  if (*version < schema::kCurrentVersion) {
    // Migrate a copy so opening an old project never modifies it; saving writes the new schema.
    if (!memory.open("", sql::Db::Mode::Memory) || !db.copyTo(memory) || !memory.exec("BEGIN") ||
        !schema::migrate(memory, *version) || !memory.exec("COMMIT"))
      return Failure{"cannot migrate " + quoted(file) + " from schema version " + std::to_string(*version) +
                     ": " + (memory.lastError().empty() ? db.lastError() : memory.lastError())};
    source = &memory;
  }
  Project project;
  fs::path dir = fs::absolute(file, ec).parent_path();
  if (Result<void> read = readAll(*source, dir, project); !read)
    return Failure{"cannot read " + quoted(file) + ": " + read.error()};
  memory.close();
  db.close();
  if (state && *version == schema::kCurrentVersion) {
    // Fingerprints describe the file only when its datasets carry the ids a save gives them.
    bool dense = true;
    for (std::size_t i = 0; i < project.datasets.size(); ++i)
      dense = dense && project.datasets[i].id == static_cast<std::int64_t>(i + 1);
    if (dense) {
      *state = fingerprints(project, dir);
      state->valid = stampFile(file, *state);
    }
  }
  return project;
}

Result<void> saveProject(const Project &project, const fs::path &file, SaveMode mode, StoredState *state) {
  std::error_code ec;
  fs::path dir = fs::absolute(file, ec).parent_path();
  if (mode == SaveMode::Replace || !fs::exists(file, ec))
    return saveReplace(project, file, dir, state);
  return saveInPlace(project, file, dir, state);
}

std::string hashBytes(std::string_view bytes) {
  Sha256 sha;
  sha.update(bytes);
  return "sha256:" + sha.hex();
}

Result<std::string> hashFile(const fs::path &file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return Failure{"cannot read " + quoted(file)};
  Sha256 sha;
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    sha.update(buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad())
    return Failure{"cannot read " + quoted(file)};
  return "sha256:" + sha.hex();
}

fs::path cacheDirFor(const fs::path &projectFile) {
  fs::path dir = projectFile;
  dir += ".cache";
  return dir;
}

fs::path autosavePathFor(const fs::path &projectFile) {
  return projectFile.parent_path() / ("." + projectFile.filename().string() + ".autosave");
}

} // namespace tpuc::project
