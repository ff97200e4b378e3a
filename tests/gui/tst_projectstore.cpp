// Tests of the .tpuproj store: round trips, migration, damaged and foreign files, kills during saves.
#include "project/ArtifactCache.h"
#include "project/ProjectStore.h"
#include "project/TableFiles.h"

#include <QBuffer>
#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

using namespace tpuc::project;
using tpuc::Result;

namespace {

/// Whether `result` succeeded; logs its message when not, so the failing QVERIFY shows why.
template <typename R> bool succeeded(const R &result) {
  if (!result)
    qWarning("%s", result.error().c_str());
  return result.ok();
}

std::vector<std::uint8_t> pngThumbnail(QColor color) {
  QImage image(16, 12, QImage::Format_RGB32);
  image.fill(color);
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  image.save(&buffer, "PNG");
  return {bytes.begin(), bytes.end()};
}

std::string str(const QString &s) { return s.toStdString(); }

/// A project with every section filled, paths under `dir`.
Project fullProject(const QString &dir) {
  Project p;
  p.model.path = str(dir + "/models/resnet18.onnx");
  p.model.contentHash = hashBytes("model bytes");
  p.model.size = 11;
  p.model.format = "onnx";
  p.model.embedded = {'m', 'o', 'd', 'e', 'l', ' ', 'b', 'y', 't', 'e', 's'};
  p.importSettings = {"[[1,3,224,224]]", {123.675, 116.28, 103.53}, {0.0171, 0.0175, 0.0174}, "bgr", "nhwc",
                      {256, 256}, true, 114.0, "output,prob"};
  p.importSettings.llm = LlmConvertSettings{2048, "w4f16", 128, true, "bm1688", true, 512, 512, true};
  Dataset images{1, "imagenet-cali", {}};
  images.samples.push_back({str(dir + "/data/cat.jpg"), R"({"label":"cat","w":640})", pngThumbnail(Qt::red)});
  images.samples.push_back({str(dir + "/data/dog.jpg"), R"({"label":"dog"})", pngThumbnail(Qt::blue)});
  images.samples.push_back({"/elsewhere/far/away/x.npz", "{}", {}});
  p.datasets.push_back(images);
  p.datasets.push_back({2, "empty", {}});
  p.caliTables.push_back({1, "cali", 1, "2026-01-01T00:00:00Z", "first", {{"conv1", 4.5, -3.25, 4.5}, {"relu1", 2, 0, 2}}});
  p.caliTables.push_back({2, "cali", 2, "2026-01-02T00:00:00Z", "tuned", {{"conv1", 4.0, -3.25, 4.5}}});
  p.quantTables.push_back({1, "mixed", 1, "2026-01-03T00:00:00Z", "", {{"conv1", "F16"}, {"fc", "F32"}}});
  p.compileConfigs.push_back({1, "int8", "bm1684x", "INT8", R"({"quant_input":true})"});
  p.compileConfigs.push_back({2, "f16-1688", "bm1688", "F16", "{}"});
  RunRecord run;
  run.id = 7;
  run.configName = "int8";
  run.started = "2026-01-04T10:00:00Z";
  run.finished = "2026-01-04T10:00:05Z";
  run.latencyMs = 0.552;
  run.memoryPeakBytes = 12345678;
  run.layerMetricsJson = R"([{"op":"conv1","cos":0.999,"euc":0.98,"sqnr":35.2}])";
  run.summaryJson = R"({"cos_min":0.97})";
  run.artifacts = {{"model", str(dir + "/p.tpuproj.cache/runs/7/resnet18.tpumodel"), hashBytes("m")},
                   {"trace", str(dir + "/p.tpuproj.cache/runs/7/trace.json"), hashBytes("t")}};
  p.runs.push_back(run);
  p.viewState = {{"tabs", "overview,cali"}, {"splitter", "1,2"}};
  p.notes = "Notes with ünïcode and\nnewlines";
  return p;
}

void writeFile(const QString &path, const QByteArray &bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(bytes);
}

void execSql(const QString &file, const char *sql) {
  sqlite3 *db = nullptr;
  QCOMPARE(sqlite3_open(file.toUtf8().constData(), &db), SQLITE_OK);
  char *message = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &message);
  QVERIFY2(rc == SQLITE_OK, message);
  sqlite3_close(db);
}

QString querySql(const QString &file, const char *sql) {
  sqlite3 *db = nullptr;
  sqlite3_open(file.toUtf8().constData(), &db);
  sqlite3_stmt *stmt = nullptr;
  QString out;
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW)
    out = QString::fromUtf8(reinterpret_cast<const char *>(sqlite3_column_text(stmt, 0)));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return out;
}

} // namespace

class TestProjectStore : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void roundTripEverySection();
  void pathsAreRelativeWhenPossible();
  void migrationFromV1();
  void damagedOrForeignFiles_data();
  void damagedOrForeignFiles();
  void refusesToOverwriteForeignFile();
  void saveAsReplacesAnyFile();
  void killDuringSaveLoopLeavesValidProject();
  void artifactCacheIsOptional();
  void saveOfThousandSamplesIsFast();
  void inPlaceSaveRewritesOnlyWhatChanged();
  void staleStateMeansAFullRewrite();
  void tableFiles();
  void sha256KnownAnswers();
};

void TestProjectStore::roundTripEverySection() {
  QTemporaryDir dir;
  QString file = dir.filePath("p.tpuproj");
  Project original = fullProject(dir.path());
  QVERIFY(succeeded(saveProject(original, str(file), SaveMode::InPlace)));
  auto loaded = loadProject(str(file));
  QVERIFY2(loaded, loaded.error().c_str());
  QCOMPARE(loaded->importSettings, original.importSettings);
  QCOMPARE(loaded->datasets, original.datasets);
  QCOMPARE(loaded->runs, original.runs);
  QVERIFY(*loaded == original);

  // An in-place save of an edited project, then a reopen, sees every edit and nothing else.
  loaded->caliTables[0].entries[1].threshold = 2.5;
  loaded->quantTables[0].entries[0].mode = "INT8";
  loaded->datasets.erase(loaded->datasets.begin() + 1);
  loaded->model.embedded.clear();
  loaded->notes = "changed";
  loaded->viewState.erase("splitter");
  QVERIFY(succeeded(saveProject(*loaded, str(file), SaveMode::InPlace)));
  auto again = loadProject(str(file));
  QVERIFY2(again, again.error().c_str());
  QVERIFY(*again == *loaded);
  QVERIFY(!(*again == original));
  QCOMPARE(querySql(file, "PRAGMA user_version"), QString("3"));
  QCOMPARE(querySql(file, "PRAGMA journal_mode"), QString("delete")); // one self-contained file
}

void TestProjectStore::pathsAreRelativeWhenPossible() {
  QTemporaryDir dir;
  QDir(dir.path()).mkpath("proj");
  QString file = dir.filePath("proj/p.tpuproj");
  Project p = fullProject(dir.path() + "/proj");
  QVERIFY(succeeded(saveProject(p, str(file), SaveMode::InPlace)));
  QCOMPARE(querySql(file, "SELECT path FROM model"), QString("models/resnet18.onnx"));
  QCOMPARE(querySql(file, "SELECT path FROM samples WHERE ordinal = 2"), QString("/elsewhere/far/away/x.npz"));
  // Moving the folder keeps the model and samples beside the project.
  QVERIFY(QDir(dir.path()).rename("proj", "moved"));
  auto moved = loadProject(str(dir.filePath("moved/p.tpuproj")));
  QVERIFY2(moved, moved.error().c_str());
  QCOMPARE(QString::fromStdString(moved->model.path), dir.filePath("moved/models/resnet18.onnx"));
  QCOMPARE(QString::fromStdString(moved->datasets[0].samples[0].path), dir.filePath("moved/data/cat.jpg"));
  QCOMPARE(QString::fromStdString(moved->datasets[0].samples[2].path), QString("/elsewhere/far/away/x.npz"));
  // ...and its runs' files in its own cache, not in the folder it came from.
  QCOMPARE(querySql(file.replace("/proj/", "/moved/"), "SELECT name FROM run_artifacts WHERE ordinal = 0"),
           QString("p.tpuproj.cache/runs/7/resnet18.tpumodel"));
  QCOMPARE(QString::fromStdString(moved->runs[0].artifacts[0].name),
           dir.filePath("moved/p.tpuproj.cache/runs/7/resnet18.tpumodel"));
}

void TestProjectStore::migrationFromV1() {
  QTemporaryDir dir;
  QString file = dir.filePath("old.tpuproj");
  // The version 1 layout, written the way the first release wrote it.
  execSql(file, R"sql(
    PRAGMA application_id = 1414550867; PRAGMA user_version = 1;
    CREATE TABLE model(path TEXT NOT NULL, sha256 TEXT);
    CREATE TABLE settings(key TEXT PRIMARY KEY, value TEXT);
    CREATE TABLE cali_table(op_name TEXT, threshold REAL, min REAL, max REAL);
    CREATE TABLE runs(id INTEGER PRIMARY KEY, chip TEXT, precision TEXT, started TEXT, latency_ms REAL);
    INSERT INTO model VALUES ('/models/mobilenet.onnx', 'abc123');
    INSERT INTO settings VALUES ('input_shapes', '[[1,3,224,224]]'), ('mean', '123.675 116.28 103.53'),
      ('scale', '0.017 0.017 0.017'), ('pixel_format', 'bgr'), ('keep_aspect_ratio', '1'),
      ('notes', 'from v1'), ('view.tabs', 'overview');
    INSERT INTO cali_table VALUES ('conv1', 4.5, -3, 4.5), ('fc', 9, -9, 8);
    INSERT INTO runs VALUES (1, 'bm1684x', 'INT8', '2025-05-01', 0.6), (2, 'bm1684x', 'INT8', '2025-05-02', 0.55),
      (3, 'bm1688', 'F16', '2025-05-03', 1.5);
  )sql");
  QByteArray before;
  {
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    before = f.readAll();
  }
  StoredState state;
  auto p = loadProject(str(file), &state);
  QVERIFY2(p, p.error().c_str());
  QVERIFY(!state.valid); // an older schema: the first save rewrites everything
  QCOMPARE(p->model.path, std::string("/models/mobilenet.onnx"));
  QCOMPARE(p->model.contentHash, std::string("sha256:abc123"));
  QCOMPARE(p->model.format, std::string("onnx"));
  QCOMPARE(p->importSettings.inputShapes, std::string("[[1,3,224,224]]"));
  QCOMPARE(p->importSettings.mean, (std::vector<double>{123.675, 116.28, 103.53}));
  QCOMPARE(p->importSettings.pixelFormat, std::string("bgr"));
  QVERIFY(p->importSettings.keepAspectRatio);
  QCOMPARE(p->notes, std::string("from v1"));
  QCOMPARE(p->viewState.at("tabs"), std::string("overview"));
  QCOMPARE(p->caliTables.size(), std::size_t(1));
  QCOMPARE(p->caliTables[0].name, std::string("default"));
  QCOMPARE(p->caliTables[0].entries, (std::vector<CaliEntry>{{"conv1", 4.5, -3, 4.5}, {"fc", 9, -9, 8}}));
  QCOMPARE(p->compileConfigs.size(), std::size_t(2));
  QCOMPARE(p->compileConfigs[0].name, std::string("bm1684x-int8"));
  QCOMPARE(p->compileConfigs[1].precision, std::string("F16"));
  QCOMPARE(p->runs.size(), std::size_t(3));
  QCOMPARE(p->runs[2].configName, std::string("bm1688-f16"));
  QCOMPARE(p->runs[1].latencyMs, 0.55);
  // Loading did not touch the old file; saving upgrades it in place.
  {
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), before);
  }
  QVERIFY(succeeded(saveProject(*p, str(file), SaveMode::InPlace, &state)));
  QVERIFY(state.valid);
  QCOMPARE(querySql(file, "PRAGMA user_version"), QString("3"));
  QCOMPARE(querySql(file, "SELECT count(*) FROM sqlite_schema WHERE name = 'settings'"), QString("0"));
  auto upgraded = loadProject(str(file));
  QVERIFY2(upgraded, upgraded.error().c_str());
  QVERIFY(*upgraded == *p);
}

void TestProjectStore::damagedOrForeignFiles_data() {
  QTest::addColumn<QString>("kind");
  QTest::addColumn<QString>("expected");
  QTest::newRow("random bytes") << "random" << "not a TPU Studio project";
  QTest::newRow("truncated") << "truncated" << "is damaged";
  QTest::newRow("text file") << "text" << "not a TPU Studio project";
  QTest::newRow("other app's SQLite") << "foreign" << "another application";
  QTest::newRow("empty file") << "empty" << "empty database";
  QTest::newRow("newer schema") << "newer" << "newer TPU Studio";
  QTest::newRow("missing") << "missing" << "does not exist";
  QTest::newRow("folder") << "folder" << "is a folder";
  QTest::newRow("bad JSON value") << "badjson" << "import setting 'mean'";
  QTest::newRow("bad llm_convert value") << "badllm" << "import setting 'llm_convert'";
}

void TestProjectStore::damagedOrForeignFiles() {
  QFETCH(QString, kind);
  QFETCH(QString, expected);
  QTemporaryDir dir;
  QString file = dir.filePath("broken.tpuproj");
  if (kind == "random") {
    QByteArray bytes(64 * 1024, '\0');
    for (char &c : bytes)
      c = static_cast<char>(QRandomGenerator::global()->generate());
    writeFile(file, bytes);
  } else if (kind == "truncated") {
    Project p = fullProject(dir.path());
    for (int i = 0; i < 200; ++i)
      p.datasets[0].samples.push_back({"x" + std::to_string(i), "{}", pngThumbnail(QColor::fromRgb(i, 0, 0))});
    QVERIFY(succeeded(saveProject(p, str(file), SaveMode::InPlace)));
    QFile f(file);
    QVERIFY(f.resize(f.size() / 2));
  } else if (kind == "text") {
    writeFile(file, "<?xml version=\"1.0\"?>\n<project>not sqlite</project>\n");
  } else if (kind == "foreign") {
    execSql(file, "CREATE TABLE moz_places(id INTEGER PRIMARY KEY, url TEXT); INSERT INTO moz_places VALUES (1, 'x');");
  } else if (kind == "empty") {
    writeFile(file, QByteArray());
  } else if (kind == "newer") {
    execSql(file, "PRAGMA application_id = 1414550867; PRAGMA user_version = 99; CREATE TABLE future(x);");
  } else if (kind == "folder") {
    QDir(dir.path()).mkdir("broken.tpuproj");
  } else if (kind == "badjson") {
    QVERIFY(succeeded(saveProject(fullProject(dir.path()), str(file), SaveMode::InPlace)));
    execSql(file, "UPDATE import_settings SET value = '{\"not\": \"a list\"}' WHERE key = 'mean';");
  } else if (kind == "badllm") {
    QVERIFY(succeeded(saveProject(fullProject(dir.path()), str(file), SaveMode::InPlace)));
    execSql(file, "UPDATE import_settings SET value = '{\"seq_length\": \"long\"}' WHERE key = 'llm_convert';");
  }
  auto loaded = loadProject(str(file));
  QVERIFY(!loaded);
  QString message = QString::fromStdString(loaded.error());
  qInfo() << kind << "->" << message;
  QVERIFY2(message.contains(file), qPrintable(message)); // names the file
  QVERIFY2(message.contains(expected), qPrintable(message));
  QVERIFY(!message.contains('\n'));
}

void TestProjectStore::refusesToOverwriteForeignFile() {
  QTemporaryDir dir;
  QString file = dir.filePath("other.db");
  execSql(file, "CREATE TABLE t(x); INSERT INTO t VALUES (42);");
  Result<void> saved = saveProject(fullProject(dir.path()), str(file), SaveMode::InPlace);
  QVERIFY(!saved);
  QVERIFY2(QString::fromStdString(saved.error()).contains("refusing to overwrite"), saved.error().c_str());
  QCOMPARE(querySql(file, "SELECT x FROM t"), QString("42"));
}

void TestProjectStore::saveAsReplacesAnyFile() {
  QTemporaryDir dir;
  QString file = dir.filePath("target.tpuproj");
  writeFile(file, "garbage that the user agreed to overwrite");
  Project p = fullProject(dir.path());
  QVERIFY(succeeded(saveProject(p, str(file), SaveMode::Replace)));
  auto loaded = loadProject(str(file));
  QVERIFY2(loaded, loaded.error().c_str());
  QVERIFY(*loaded == p);
  QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"target.tpuproj"}); // no temp left
}

void TestProjectStore::killDuringSaveLoopLeavesValidProject() {
  QTemporaryDir dir;
  QString file = dir.filePath("loop.tpuproj");
  std::size_t lastReported = 0;
  for (int round = 0; round < 6; ++round) {
    QProcess child;
    child.start(TPUC_SAVE_LOOP, {file});
    QVERIFY(child.waitForStarted());
    QVERIFY2(child.waitForReadyRead(10000), qPrintable(child.readAllStandardError()));
    // Kill at a random moment, usually in the middle of a transaction.
    QTest::qWait(static_cast<int>(QRandomGenerator::global()->bounded(20, 250)));
    child.kill(); // SIGKILL
    QVERIFY(child.waitForFinished());
    // A leftover journal means the kill landed inside a transaction; loading must roll it back.
    bool midTransaction = QFileInfo::exists(file + "-journal");
    QCOMPARE(child.exitStatus(), QProcess::CrashExit);
    for (const QByteArray &line : child.readAllStandardOutput().split('\n'))
      if (line.startsWith("saved "))
        lastReported = std::max<std::size_t>(lastReported, line.mid(6).toULongLong());
    auto p = loadProject(str(file));
    QVERIFY2(p, p.error().c_str());
    // Each save is atomic: the notes and the run count always agree, and no reported save is lost.
    QCOMPARE(p->notes, "round " + std::to_string(p->runs.size()));
    QVERIFY(p->runs.size() >= lastReported);
    QVERIFY(p->runs.size() <= lastReported + 1);
    QCOMPARE(p->datasets.at(0).samples.size(), std::size_t(400));
    qInfo() << "round" << round << "killed after" << p->runs.size() << "saves"
            << (midTransaction ? "(inside a transaction)" : "(between transactions)");
  }
  QVERIFY(lastReported > 0);
}

void TestProjectStore::artifactCacheIsOptional() {
  QTemporaryDir dir;
  QString file = dir.filePath("p.tpuproj");
  ArtifactCache cache(cacheDirFor(str(file)));
  QCOMPARE(QString::fromStdString(cache.dir().string()), file + ".cache");
  auto hash = cache.storeBytes("module {}");
  QVERIFY2(hash, hash.error().c_str());
  QCOMPARE(*hash, hashBytes("module {}"));
  QVERIFY(cache.find(*hash));
  Project p = fullProject(dir.path());
  p.runs[0].artifacts = {{"top_mlir", "top.mlir", *hash}};
  QVERIFY(succeeded(saveProject(p, str(file), SaveMode::InPlace)));
  QVERIFY(QDir(file + ".cache").removeRecursively());
  auto loaded = loadProject(str(file));
  QVERIFY2(loaded, loaded.error().c_str());
  QVERIFY(!cache.find(loaded->runs[0].artifacts[0].contentHash)); // stale: to be recomputed on demand
  // Storing a file puts it under its hash.
  writeFile(dir.filePath("w.npz"), "npz bytes");
  auto fileHash = cache.storeFile(str(dir.filePath("w.npz")));
  QVERIFY2(fileHash, fileHash.error().c_str());
  QCOMPARE(*fileHash, hashBytes("npz bytes"));
  QVERIFY(cache.find(*fileHash));
}

void TestProjectStore::saveOfThousandSamplesIsFast() {
  QTemporaryDir dir;
  QString file = dir.filePath("big.tpuproj");
  Project p = fullProject(dir.path());
  auto thumb = pngThumbnail(Qt::green);
  p.datasets[0].samples.clear();
  for (int i = 0; i < 1000; ++i)
    p.datasets[0].samples.push_back({str(dir.path()) + "/data/" + std::to_string(i) + ".jpg", R"({"w":224})", thumb});
  for (int i = 0; i < 20; ++i) {
    RunRecord r = p.runs[0];
    r.id = 100 + i;
    p.runs.push_back(r);
  }
  QVERIFY(succeeded(saveProject(p, str(file), SaveMode::InPlace)));
  p.notes = "edited";
  QElapsedTimer timer;
  timer.start();
  QVERIFY(succeeded(saveProject(p, str(file), SaveMode::InPlace)));
  qint64 ms = timer.elapsed();
  qInfo() << "in-place save of 1000 samples and 21 runs:" << ms << "ms";
  // The target is 200 ms; the bound here leaves room for a loaded shared CI machine.
  QVERIFY2(ms < 1000, qPrintable(QString::number(ms)));
}

void TestProjectStore::inPlaceSaveRewritesOnlyWhatChanged() {
  QTemporaryDir dir;
  QString file = dir.filePath("p.tpuproj");
  Project p = fullProject(dir.path());
  for (int i = 0; i < 5; ++i) {
    RunRecord r = p.runs[0];
    r.id = 20 + i;
    r.status = "ok";
    p.runs.push_back(r);
  }
  StoredState saved;
  QVERIFY(succeeded(saveProject(p, str(file), SaveMode::Replace, &saved)));
  QVERIFY(saved.valid);
  QCOMPARE(saved.runs.size(), std::size_t(6));
  QCOMPARE(saved.datasets.size(), std::size_t(2));
  // Loading sees the file as the save left it.
  StoredState state;
  auto loaded = loadProject(str(file), &state);
  QVERIFY2(loaded, loaded.error().c_str());
  QVERIFY(state.valid);
  QCOMPARE(state.datasets, saved.datasets);
  QCOMPARE(state.runs, saved.runs);

  // Run 20 is changed in the file behind the studio's back, keeping the file's size and time: a save
  // that rewrote every run would put "ok" back, one that rewrites only what changed leaves it.
  const std::filesystem::path path = str(file);
  const auto stamp = std::filesystem::last_write_time(path);
  execSql(file, "UPDATE runs SET status = 'zz' WHERE id = 20");
  std::filesystem::last_write_time(path, stamp);
  QCOMPARE(std::filesystem::file_size(path), state.fileSize);

  Project edited = *loaded;
  edited.runs[3].status = "failed";           // run 22 (runs are 7, 20, 21, 22, 23, 24)
  edited.runs.erase(edited.runs.begin() + 4); // run 23
  RunRecord added = edited.runs[0];
  added.id = 30;
  edited.runs.push_back(added);
  edited.datasets[0].samples.push_back({str(dir.path() + "/data/bird.jpg"), "{}", pngThumbnail(Qt::gray)});
  edited.datasets.pop_back();
  edited.notes = "edited";
  QVERIFY(succeeded(saveProject(edited, str(file), SaveMode::InPlace, &state)));
  QVERIFY(state.valid);
  QCOMPARE(state.runs.size(), std::size_t(6));
  QCOMPARE(state.datasets.size(), std::size_t(1));

  auto again = loadProject(str(file));
  QVERIFY2(again, again.error().c_str());
  Project expected = edited;
  expected.runs[1].status = "zz"; // run 20, untouched: the save did not rewrite it
  QCOMPARE(again->runs, expected.runs);
  QCOMPARE(again->datasets, expected.datasets);
  QVERIFY(*again == expected);
  QCOMPARE(querySql(file, "SELECT count(*) FROM samples"), QString("4"));
  QCOMPARE(querySql(file, "SELECT count(*) FROM run_artifacts"), QString("12"));
  QCOMPARE(querySql(file, "PRAGMA foreign_key_check"), QString());
}

void TestProjectStore::staleStateMeansAFullRewrite() {
  QTemporaryDir dir;
  QString file = dir.filePath("p.tpuproj");
  Project p = fullProject(dir.path());
  StoredState state;
  QVERIFY(succeeded(saveProject(p, str(file), SaveMode::InPlace, &state)));
  QVERIFY(state.valid);
  // Another writer changes the file (a run and a dataset only it knows); our fingerprints are stale.
  Project other = p;
  RunRecord theirs = p.runs[0];
  theirs.id = 99;
  other.runs.push_back(theirs);
  other.datasets.push_back({3, "theirs", {}});
  QTest::qWait(20); // a later modification time even on coarse clocks
  QVERIFY(succeeded(saveProject(other, str(file), SaveMode::InPlace)));
  p.notes = "ours";
  QVERIFY(succeeded(saveProject(p, str(file), SaveMode::InPlace, &state)));
  auto again = loadProject(str(file));
  QVERIFY2(again, again.error().c_str());
  QVERIFY(*again == p); // nothing of theirs is left over: every section was rewritten
}

void TestProjectStore::tableFiles() {
  // TPU-MLIR's layout: comment header, one op per line, an int4 section that this format does not carry.
  auto cali = parseCaliTable("# genetated time: 2024-01-01\n# histogram number: 2048\n"
                             "input 1.0 -1.0 1.0\n\nconv1  4.5   -3.25 4.5\r\n#int4_th\nconv1 0.5 -0.5 0.5\n",
                             "t.txt");
  QVERIFY2(cali, cali.error().c_str());
  QCOMPARE(*cali, (std::vector<CaliEntry>{{"input", 1.0, -1.0, 1.0}, {"conv1", 4.5, -3.25, 4.5}}));
  CaliTable table{1, "cali", 3, "", "", *cali};
  table.entries.push_back({"fc", 0.1f, -0.07, 1e-30}); // every double survives the text form
  auto again = parseCaliTable(formatCaliTable(table), "x");
  QVERIFY2(again, again.error().c_str());
  QCOMPARE(*again, table.entries);
  QCOMPARE(parseCaliTable("a 1 2\n", "t.txt").error(),
           std::string("t.txt:1: expected 'op_name threshold min max', got 3 fields"));
  QCOMPARE(parseCaliTable("# c\na 1 0 1\nb one 0 1\n", "t.txt").error(),
           std::string("t.txt:3: threshold, min and max of 'b' must be numbers"));
  QCOMPARE(parseCaliTable("a 1 2 1\n", "t.txt").error(),
           std::string("t.txt:1: 'a' needs min <= max and threshold >= 0"));
  QCOMPARE(parseCaliTable("a 1 0 1\na 2 0 2\n", "t.txt").error(), std::string("t.txt:2: 'a' appears twice"));

  auto quant = parseQuantTable("# qtable\nconv1 f16\nfc F32\n", "q.txt");
  QVERIFY2(quant, quant.error().c_str());
  QCOMPARE(*quant, (std::vector<QuantEntry>{{"conv1", "F16"}, {"fc", "F32"}}));
  QuantTable qt{1, "q", 1, "", "", *quant};
  auto qagain = parseQuantTable(formatQuantTable(qt), "x");
  QVERIFY2(qagain, qagain.error().c_str());
  QCOMPARE(*qagain, qt.entries);
  QCOMPARE(parseQuantTable("conv1 FP64\n", "q.txt").error(),
           std::string("q.txt:1: unknown mode 'FP64' for 'conv1'"));
}

void TestProjectStore::sha256KnownAnswers() {
  // FIPS 180-4 examples, plus lengths around the 55/56/64-byte padding boundaries against Qt's SHA-256.
  QCOMPARE(hashBytes(""), std::string("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
  QCOMPARE(hashBytes("abc"), std::string("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
  QCOMPARE(hashBytes("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
           std::string("sha256:248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
  for (int n : {55, 56, 63, 64, 65, 119, 1000}) {
    QByteArray data(n, '\0');
    for (int i = 0; i < n; ++i)
      data[i] = static_cast<char>(i * 7 + 3);
    QCOMPARE(QString::fromStdString(hashBytes(std::string_view(data.constData(), data.size()))),
             "sha256:" + QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex());
  }
}

QTEST_GUILESS_MAIN(TestProjectStore)
#include "tst_projectstore.moc"
