// Issue 25, the studio's side of faults: two studios and one project file (the second is told and opens it
// read-only, never last-writer-wins; a dead holder's lock is taken over), a studio killed while jobs run (the
// next opening records those runs as interrupted; the children died with it) — markers, and the real engine's
// every job type —, the project's cache folder overwritten with garbage or deleted under a running studio,
// and a model file cut short while the studio or the engine reads it.
#include "GuiTestSupport.h"

#include "project/ProjectStore.h"
#include "ui/LlmImportDialog.h"
#include "ui/MainWindow.h"
#include "ui/ModelInputs.h"
#include "ui/StudioContext.h"
#include "ui/jobs/JobMarkers.h"
#include "ui/models/ThumbnailCache.h"
#include "ui/views/ChipViewsTab.h"
#include "ui/views/GraphViewTab.h"
#include "ui/views/PassInspectorView.h"

#include <QApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHostInfo>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace tpuc;
using namespace tpuc::ui;

class TestReliability : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void secondStudioOpensReadOnly();
  void deadHoldersLockIsTakenOver();
  void mainWindowSaysReadOnly();
  void killedStudioLeavesInterruptedRuns();
  void childrenDieWithTheStudio();
  void studioKilledDuringEachJobType_data();
  void studioKilledDuringEachJobType();
  void modelTruncatedWhileTheStudioReadsIt();
  void modelTruncatedWhileTheEngineReadsIt();
  void cacheDeletedOrCorruptedUnderTheStudio();
  void thumbnailCacheRebuildsWhatIsBadOrGone();

private:
  QString makeProject(const QTemporaryDir &dir, const QString &name = "p.tpuproj");
};

QString TestReliability::makeProject(const QTemporaryDir &dir, const QString &name) {
  project::Project p;
  p.notes = "reliability";
  p.compileConfigs.push_back({1, "f32", "bm1684x", "F32", "{}"});
  const QString file = dir.filePath(name);
  const auto saved = project::saveProject(p, file.toStdString(), project::SaveMode::Replace);
  return saved ? file : QString();
}

void TestReliability::secondStudioOpensReadOnly() {
  QTemporaryDir dir;
  const QString file = makeProject(dir);
  QVERIFY(!file.isEmpty());
  StudioContext first, second;
  QString error, lockedBy;
  QVERIFY2(first.openProject(file, &error), qPrintable(error));
  QVERIFY(!first.isReadOnly());
  // The second is refused, told by whom.
  QVERIFY(!second.openProject(file, &error, StudioContext::OpenMode::ReadWrite, &lockedBy));
  QVERIFY2(error.contains("is open in another TPU Studio") && !error.contains('\n'), qPrintable(error));
  QCOMPARE(lockedBy,
           QString("pid %1 on %2").arg(QCoreApplication::applicationPid()).arg(QHostInfo::localHostName()));
  QVERIFY(second.filePath().isEmpty()); // what it had open before stays
  // Read-only: it cannot save over the first one's file.
  QVERIFY2(second.openProject(file, &error, StudioContext::OpenMode::ReadOnlyIfLocked), qPrintable(error));
  QVERIFY(second.isReadOnly());
  second.setNotes("second's edit");
  QVERIFY(!second.save(&error));
  QVERIFY2(error.contains("read-only") && error.contains("Save As"), qPrintable(error));
  QCOMPARE(project::loadProject(file.toStdString())->notes, std::string("reliability"));
  // The first saves as usual; Save As gives the second a file of its own, writable.
  first.setNotes("first's edit");
  QVERIFY2(first.save(&error), qPrintable(error));
  QVERIFY2(second.saveAs(dir.filePath("copy.tpuproj"), &error), qPrintable(error));
  QVERIFY(!second.isReadOnly());
  QCOMPARE(project::loadProject(file.toStdString())->notes, std::string("first's edit"));
  QCOMPARE(project::loadProject(dir.filePath("copy.tpuproj").toStdString())->notes,
           std::string("second's edit"));
  // Save As onto the file the first has open is refused as well.
  QVERIFY(!second.saveAs(file, &error));
  QVERIFY(error.contains("is open in another TPU Studio"));
  // Closing lets go: now the second may open it for writing.
  first.closeProject();
  QVERIFY2(second.openProject(file, &error), qPrintable(error));
  QVERIFY(!second.isReadOnly());
}

void TestReliability::deadHoldersLockIsTakenOver() {
  QTemporaryDir dir;
  const QString file = makeProject(dir);
  // A studio that was killed: its lock file names a pid that no longer runs.
  QProcess gone;
  gone.start("/bin/true");
  QVERIFY(gone.waitForFinished());
  const qint64 deadPid = gone.processId() > 0 ? gone.processId() : 999999;
  QFile lock(file + ".lock");
  QVERIFY(lock.open(QIODevice::WriteOnly));
  lock.write(QString("%1\ntpu-studio\n%2\n").arg(deadPid).arg(QHostInfo::localHostName()).toUtf8());
  lock.close();
  StudioContext context;
  QString error;
  QVERIFY2(context.openProject(file, &error), qPrintable(error));
  QVERIFY(!context.isReadOnly());
}

void TestReliability::mainWindowSaysReadOnly() {
  QTemporaryDir dir;
  const QString file = makeProject(dir);
  StudioContext holder;
  QString error;
  QVERIFY(holder.openProject(file, &error));
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false); // the question's safe answer: read-only
  QVERIFY(window.startup(file));
  QVERIFY(context.isReadOnly());
  QVERIFY2(window.windowTitle().contains("(read-only)"), qPrintable(window.windowTitle()));
}

void TestReliability::killedStudioLeavesInterruptedRuns() {
  QTemporaryDir dir;
  const QString file = makeProject(dir);
  // A studio (here a child process standing in for one: the marker names its pid) ran a deploy when it was
  // killed.
  QProcess studio;
  studio.start("/bin/sleep", {"60"});
  QVERIFY(studio.waitForStarted());
  const QString markers = QString::fromStdString(project::cacheDirFor(file.toStdString()).string()) + "/jobs";
  QVERIFY(QDir().mkpath(markers));
  QFile marker(markers + QString("/running-%1-3.json").arg(studio.processId()));
  QVERIFY(marker.open(QIODevice::WriteOnly));
  marker.write(R"json({"title": "Deploy net INT8 bm1684x (int8)", "program": "/usr/bin/tpuc",
                  "arguments": ["deploy", "--mlir", "net.top.mlir"], "started": "2026-12-05T10:00:00Z",
                  "studioPid": 1})json");
  marker.close();
  QFile garbage(markers + "/running-1-9.json"); // pid 1 is alive: another studio's job, left alone
  QVERIFY(garbage.open(QIODevice::WriteOnly));
  garbage.write("{}");
  garbage.close();
  // While the studio runs, its job is not taken for interrupted.
  QVERIFY(collectInterruptedRuns(file).empty());
  studio.kill();
  QVERIFY(studio.waitForFinished());

  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  QVERIFY(window.startup(file));
  QCOMPARE(context.project().runs.size(), std::size_t{1});
  const project::RunRecord &run = context.project().runs.front();
  QCOMPARE(run.status, std::string("interrupted"));
  QCOMPARE(run.configName, std::string("Deploy net INT8 bm1684x (int8)"));
  QVERIFY2(run.summaryJson.find("\"command\":\"deploy\"") != std::string::npos, run.summaryJson.c_str());
  QVERIFY(!QFileInfo::exists(marker.fileName()));
  QVERIFY(QFileInfo::exists(garbage.fileName()));
  QVERIFY(context.isModified()); // the record is the user's to save
  // The project on disk is whole and unchanged.
  QCOMPARE(project::loadProject(file.toStdString())->notes, std::string("reliability"));

  // The studio's own jobs write and clear their markers.
  QSignalSpy finished(window.findChild<JobQueue *>(), &JobQueue::jobFinished);
  JobQueue *queue = window.findChild<JobQueue *>();
  QVERIFY(queue);
  const int id = queue->enqueue({"fake slow", TPUC_FAKE_JOB, {"slow-talker"}, {}});
  const QString mine =
      markers + QString("/running-%1-%2.json").arg(QCoreApplication::applicationPid()).arg(id);
  QVERIFY(QTest::qWaitFor([&] { return QFileInfo::exists(mine); }, 10000));
  QVERIFY(finished.wait(20000));
  QVERIFY(!QFileInfo::exists(mine));
}

void TestReliability::childrenDieWithTheStudio() {
  // A studio stand-in (the test forks itself: the child queues a job that would run for an hour, then is
  // SIGKILLed): the job's child must not outlive it.
  QTemporaryDir dir;
  const QString pidFile = dir.filePath("child.pid");
  const pid_t studio = fork();
  if (studio == 0) {
    JobQueue queue;
    queue.enqueue(
        {"fake hang", "/bin/sh", {"-c", QString("echo $$ > '%1'; exec sleep 3600").arg(pidFile)}, {}});
    QTest::qWait(60000);
    _exit(0);
  }
  QVERIFY(studio > 0);
  QVERIFY(QTest::qWaitFor([&] { return QFileInfo(pidFile).size() > 0; }, 10000));
  QFile f(pidFile);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const pid_t child = static_cast<pid_t>(f.readAll().trimmed().toLongLong());
  QVERIFY(child > 0 && ::kill(child, 0) == 0);
  ::kill(studio, SIGKILL);
  ::waitpid(studio, nullptr, 0);
  QVERIFY2(QTest::qWaitFor([&] { return ::kill(child, 0) != 0; }, 5000),
           "the job's child outlived its studio");
}

namespace {

/// The child processes of `pid` (every thread's children list).
QList<pid_t> childrenOf(pid_t pid) {
  QList<pid_t> out;
  const QDir tasks(QString("/proc/%1/task").arg(pid));
  for (const QString &task : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    QFile f(tasks.filePath(task + "/children"));
    if (f.open(QIODevice::ReadOnly))
      for (const QByteArray &child : f.readAll().split(' '))
        if (child.trimmed().toInt() > 0)
          out << child.trimmed().toInt();
  }
  return out;
}

/// The state letter of process `pid` from /proc (R, S, T, Z, ...), 0 when there is no such process.
char processState(pid_t pid) {
  QFile f(QString("/proc/%1/stat").arg(pid));
  if (!f.open(QIODevice::ReadOnly))
    return 0;
  const QByteArray stat = f.readAll();
  const qsizetype paren = stat.lastIndexOf(')');
  return paren > 0 && paren + 2 < stat.size() ? stat[paren + 2] : 0;
}

QByteArray sha256Of(const QString &path) {
  QFile f(path);
  QCryptographicHash hash(QCryptographicHash::Sha256);
  return f.open(QIODevice::ReadOnly) && hash.addData(&f) ? hash.result().toHex() : QByteArray();
}

const QStringList kJobTypes{"transform", "calibrate", "deploy", "run", "compare", "llm-convert"};

/// The studio of studioKilledDuringEachJobType, in a process of its own (`tst_reliability --studio-for-kill
/// TYPE PROJECT LLM_FOLDER`, the engine in $TPUC): opens the project in a main window (for llm-convert: a new
/// project of LLM_FOLDER saved as PROJECT), runs what a TYPE job needs first (always a transform or a first
/// conversion, so the project has earlier runs) and saves, then starts the TYPE job. As soon as the
/// engine child runs, it is frozen (SIGSTOP: the job is surely mid-way when the studio dies, however fast the
/// engine is) and `RUNNING <job id> <child pid> <title>` is printed; then it waits to be SIGKILLed. Prints
/// `FINISHED` (the engine ended before it could be frozen; the test tries again) or `ERROR <why>`.
int studioForKill(const QString &type, const QString &file, const QString &llmFolder) {
  auto say = [](const QString &line) {
    std::printf("%s\n", qPrintable(line));
    std::fflush(stdout);
  };
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  QObject::connect(&context, &StudioContext::logMessage, [](LogLevel, const QString &text) {
    std::fprintf(stderr, "studio: %s\n", qPrintable(text));
  });
  if (type == "llm-convert") { // a new project of the HuggingFace folder, saved as `file`
    window.startup(QString());
    QString error;
    if (!context.saveAs(file, &error))
      return say("ERROR " + error), 2;
    const std::optional<project::LlmConvertSettings> settings = normalizeLlmSettings({}, 4096, &error);
    QSignalSpy imported(&window, &MainWindow::modelImported);
    if (!settings)
      return say("ERROR " + error), 2;
    window.importHfModel(llmFolder, *settings, /*convert=*/false);
    if (!imported.wait(30000) || !imported.front().front().toBool())
      return say("ERROR " + llmFolder + " not imported"), 2;
  } else if (!window.startup(file)) {
    return say("ERROR cannot open " + file), 2;
  }
  JobQueue *queue = window.findChild<JobQueue *>();
  auto done = [&](int id) {
    if (id <= 0)
      return false;
    const std::size_t runs = context.project().runs.size();
    if (!QTest::qWaitFor([&] { return context.project().runs.size() > runs; }, 240000)) // its run recorded
      return false;
    return queue->job(id)->state == JobState::Succeeded;
  };
  qint64 f16 = -1;
  for (const project::CompileConfig &c : context.project().compileConfigs)
    if (c.name == "bm1684x-f16")
      f16 = c.id;
  if (!done(type == "llm-convert" ? window.runLlmConvert() : window.runTransform()))
    return say("ERROR the first job failed"), 2;
  if ((type == "run" || type == "compare") && !done(window.runDeploy(f16)))
    return say("ERROR the deploy before the job failed"), 2;
  QString error;
  if (!context.save(&error))
    return say("ERROR " + error), 2;
  int id = -1;
  if (type == "transform") {
    id = window.runTransform();
  } else if (type == "calibrate") {
    id = window.runCalibrate(context.project().datasets.front().id, "kl");
  } else if (type == "deploy") {
    id = window.runDeploy(f16);
  } else if (type == "run") {
    id = window.runModelFile(f16);
  } else if (type == "llm-convert") {
    id = window.runLlmConvert();
  } else if (type == "compare") {
    const QDir cache(QString::fromStdString(project::cacheDirFor(file.toStdString()).string()));
    const QStringList outputs = cache.entryList({"*outputs.npz"}, QDir::Files, QDir::Name);
    if (outputs.size() < 2)
      return say("ERROR no two output tensor files in " + cache.path()), 2;
    id = window.runCompare(cache.filePath(outputs[0]), cache.filePath(outputs[1]));
  }
  if (id <= 0)
    return say("ERROR the " + type + " job did not start"), 2;
  const QString engine = QFileInfo(qEnvironmentVariable("TPUC")).canonicalFilePath();
  QElapsedTimer clock;
  clock.start();
  while (clock.elapsed() < 120000) {
    const std::optional<JobInfo> job = queue->job(id);
    if (job->state != JobState::Queued && job->state != JobState::Running)
      return say("FINISHED"), 3;
    if (job->state == JobState::Running)
      for (pid_t child : childrenOf(::getpid()))
        if (QFileInfo(QString("/proc/%1/exe").arg(child)).canonicalFilePath() == engine &&
            ::kill(child, SIGSTOP) == 0) {
          QTest::qWait(20);
          if (processState(child) != 'T')
            return say("FINISHED"), 3;
          say(QString("RUNNING %1 %2 %3").arg(id).arg(child).arg(job->spec.title));
          QTest::qWait(600000);
          return say("ERROR not killed"), 2;
        }
    QCoreApplication::processEvents(QEventLoop::AllEvents, 1);
  }
  return say("ERROR the engine child never appeared"), 2;
}

} // namespace

void TestReliability::studioKilledDuringEachJobType_data() {
  QTest::addColumn<QString>("type");
  for (const QString &type : kJobTypes)
    QTest::newRow(qPrintable(type)) << type;
}

void TestReliability::studioKilledDuringEachJobType() {
#ifndef TPUC_ENGINE
  QSKIP("this build has no tpuc");
#else
  QFETCH(QString, type);
  QTemporaryDir dir;
  QString file, llmFolder;
  if (type == "llm-convert") { // a tiny random Qwen2 checkpoint, as tst_llmchat makes
#ifdef TPUC_TINY_LLM_SCRIPT
    llmFolder = dir.filePath("tiny-qwen2");
    const QString problem =
        guitest::runPython(TPUC_TINY_LLM_SCRIPT,
                           {"--family", "qwen2", "--vocab", "258", "--out", llmFolder, "--new_tokens", "1"});
    if (problem.contains("No module named 'torch'"))
      QSKIP("make_tiny_llm.py needs python3-torch");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    file = dir.filePath("llm.tpuproj");
#endif
  } else {
    const QString copied = guitest::copyExampleProject(dir.path(), &file);
    QVERIFY2(copied.isEmpty(), qPrintable(copied));
  }
  QVERIFY(!file.isEmpty());
  QProcess studio;
  QStringList running;
  for (int attempt = 0; attempt < 3 && running.isEmpty(); ++attempt) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("TPUC", TPUC_ENGINE);
    studio.setProcessEnvironment(env);
    studio.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    studio.start(QCoreApplication::applicationFilePath(), {"--studio-for-kill", type, file, llmFolder});
    QVERIFY(studio.waitForStarted());
    QByteArray line;
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                   if (studio.canReadLine())
                     line = studio.readLine().trimmed();
                   return !line.isEmpty() || studio.state() == QProcess::NotRunning;
                 },
                 300000),
             "the studio said nothing in 300 s");
    QVERIFY2(line.startsWith("RUNNING") || line == "FINISHED", line.constData());
    if (line.startsWith("RUNNING"))
      running = QString::fromUtf8(line).split(' ');
    else
      QVERIFY(studio.waitForFinished());
  }
  QVERIFY2(running.size() >= 4, "the engine ended before it could be caught running, three times");
  const pid_t child = running[2].toInt();
  const QString title = running.mid(3).join(' ');
  const Result<project::Project> before = project::loadProject(file.toStdString());
  QVERIFY(before);
  QVERIFY(!before->runs.empty()); // the transform before, saved
  const QByteArray hash = sha256Of(file);

  ::kill(static_cast<pid_t>(studio.processId()), SIGKILL);
  QVERIFY(studio.waitForFinished());
  QVERIFY2(QTest::qWaitFor(
               [&] {
                 const char s = processState(child);
                 return s == 0 || s == 'Z';
               },
               5000),
           "the engine child outlived its studio");
  QCOMPARE(sha256Of(file), hash); // the file on disk is what the studio last saved

  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  QVERIFY(window.startup(file));
  const std::vector<project::RunRecord> &runs = context.project().runs;
  QCOMPARE(runs.size(), before->runs.size() + 1);
  for (std::size_t i = 0; i < before->runs.size(); ++i) {
    QCOMPARE(runs[i].id, before->runs[i].id);
    QCOMPARE(runs[i].status, before->runs[i].status);
    QCOMPARE(runs[i].configName, before->runs[i].configName);
    QCOMPARE(runs[i].summaryJson, before->runs[i].summaryJson);
  }
  const project::RunRecord &cut = runs.back();
  QCOMPARE(cut.status, std::string("interrupted"));
  QCOMPARE(QString::fromStdString(cut.configName), title);
  const std::string command = "\"command\":\"" + type.toStdString() + "\"";
  QVERIFY2(cut.summaryJson.find(command) != std::string::npos, cut.summaryJson.c_str());
  // Saved, it opens again with its integrity check passing and the interrupted run in it.
  QString error;
  QVERIFY2(context.save(&error), qPrintable(error));
  const Result<project::Project> after = project::loadProject(file.toStdString());
  QVERIFY2(after, after ? "" : after.error().c_str());
  QCOMPARE(after->runs.size(), runs.size());
  QCOMPARE(after->runs.back().status, std::string("interrupted"));
  qInfo("killed during '%s' (engine pid %d, frozen mid-job): the engine died with the studio; reopened, %zu "
        "earlier "
        "runs intact and the job recorded as interrupted (%s)",
        qPrintable(title), child, before->runs.size(), cut.summaryJson.c_str());
#endif
}

namespace {

std::string varint(std::uint64_t v) {
  std::string out;
  do {
    out += static_cast<char>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
    v >>= 7;
  } while (v);
  return out;
}
std::string lengthField(int field, const std::string &payload) {
  return varint(static_cast<std::uint64_t>(field) << 3 | 2) + varint(payload.size()) + payload;
}
std::string varintField(int field, std::uint64_t value) {
  return varint(static_cast<std::uint64_t>(field) << 3) + varint(value);
}

/// An ONNX model of `initializers` weights of 1 kB each, its one input ("image", float32 1x3x8x8) after them:
/// reading the input means walking the whole file.
std::string bigOnnxModel(int initializers) {
  std::string graph;
  const std::string raw(1024, '\x5a');
  for (int i = 0; i < initializers; ++i)
    graph += lengthField(5, lengthField(8, "w" + std::to_string(i)) + lengthField(9, raw));
  std::string shape;
  for (int dim : {1, 3, 8, 8})
    shape += lengthField(1, varintField(1, dim));
  const std::string tensorType = varintField(1, 1) + lengthField(2, shape);
  graph += lengthField(11, lengthField(1, "image") + lengthField(2, lengthField(1, tensorType)));
  return varintField(1, 8) + lengthField(7, graph);
}

/// Shrinks `path` to a few bytes and writes `content` back, again and again, while it lives.
class Truncator {
public:
  Truncator(const QString &path, std::string content) : m_content(std::move(content)) {
    m_fd = ::open(QFile::encodeName(path).constData(), O_WRONLY);
    m_thread = std::thread([this] {
      while (m_fd >= 0 && !m_stop) {
        if (::ftruncate(m_fd, 16) != 0 || ::pwrite(m_fd, m_content.data(), m_content.size(), 0) < 0)
          break;
        ++m_cycles;
        std::this_thread::sleep_for(
            std::chrono::microseconds(500)); // whole for a while: some reads start whole
      }
    });
  }
  ~Truncator() {
    m_stop = true;
    m_thread.join();
    if (m_fd >= 0)
      ::close(m_fd);
  }
  int cycles() const { return m_cycles; }

private:
  std::string m_content;
  int m_fd = -1;
  std::atomic<bool> m_stop = false;
  std::atomic<int> m_cycles = 0;
  std::thread m_thread;
};

} // namespace

void TestReliability::modelTruncatedWhileTheStudioReadsIt() {
  // The studio reads a model's inputs in its own process (import dialog, calibration, preprocessing preview):
  // a model file cut short while that happens (re-exported next to the studio) must be an error naming it,
  // never SIGBUS from a mapped page past the file's new end.
  QTemporaryDir dir;
  const QString path = dir.filePath("big.onnx");
  const std::string content = bigOnnxModel(8000); // 8 MB
  {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QCOMPARE(f.write(content.data(), static_cast<qint64>(content.size())),
             static_cast<qint64>(content.size()));
  }
  const Result<std::vector<ModelInput>> whole = readOnnxInputsFromFile(path.toStdString());
  QVERIFY2(whole, whole ? "" : whole.error().c_str());
  QCOMPARE(whole->size(), std::size_t{1});
  QCOMPARE(whole->front().dims, (std::vector<std::int64_t>{1, 3, 8, 8}));
  int read = 0, refused = 0, cycles = 0;
  {
    Truncator truncator(path, content);
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 4000 || truncator.cycles() < 20) {
      const Result<std::vector<ModelInput>> inputs = readOnnxInputsFromFile(path.toStdString());
      if (inputs) {
        // Read whole between two cuts, or an earlier byte range: then it is the model's own input.
        QVERIFY(inputs->empty() || *inputs == *whole);
        ++read;
      } else {
        QVERIFY2(inputs.error().rfind(path.toStdString() + ": ", 0) == 0 &&
                     inputs.error().find('\n') == std::string::npos,
                 inputs.error().c_str());
        ++refused;
      }
      if (clock.elapsed() > 30000)
        break;
    }
    cycles = truncator.cycles();
  }
  qInfo("%d reads, %d refused, while the file was cut %d times", read, refused, cycles);
  QVERIFY(refused > 0); // the cuts were seen
}

void TestReliability::modelTruncatedWhileTheEngineReadsIt() {
#ifndef TPUC_ENGINE
  QSKIP("this build has no tpuc");
#else
  // `tpuc transform` reading the ONNX model and `tpuc run` reading a model file, each while the file is cut
  // short and written again in a loop: every run either works or ends with a one-line error naming the file;
  // none dies of a signal.
  const QString source = qEnvironmentVariable("TPUC_EXAMPLE_PROJECT");
  QVERIFY2(QFileInfo::exists(source), qPrintable("example project missing: " + source));
  const QString onnx = QFileInfo(source).dir().filePath("models/ch_ppocr_mobile_v2.0_cls_infer.onnx");
  QTemporaryDir dir;
  const QString model = dir.filePath("cls.onnx");
  QVERIFY(QFile::copy(onnx, model));
  auto tpuc = [&](const QStringList &args, QString *stderrText = nullptr) {
    QProcess p;
    p.setWorkingDirectory(dir.path());
    p.start(TPUC_ENGINE, args);
    if (!p.waitForFinished(120000))
      return QString("did not finish");
    if (stderrText)
      *stderrText = QString::fromLocal8Bit(p.readAllStandardError()).trimmed();
    return p.exitStatus() == QProcess::CrashExit ? QString("crashed with signal %1").arg(p.exitCode())
                                                 : QString::number(p.exitCode());
  };
  const QStringList transform{"transform",      "--model_name",   "cls",    "--model_def", model,
                              "--input_shapes", "[[1,3,48,192]]", "--mlir", "cls.mlir"};
  QCOMPARE(tpuc(transform), QString("0"));
  QCOMPARE(tpuc({"deploy", "--mlir", "cls.mlir", "--quantize", "F16", "--chip", "bm1684x", "--model",
                 "cls.tpum", "--test_input", QFileInfo(source).dir().filePath("text-lines/line_00.png")}),
           QString("0"));
  QVERIFY(QFileInfo::exists(dir.filePath("cls_in_f32.npz")));

  struct Case {
    QString file;
    QStringList args;
  };
  for (const Case &c : {Case{model, transform}, Case{dir.filePath("cls.tpum"),
                                                     {"run", "--model", "cls.tpum", "--input",
                                                      "cls_in_f32.npz", "--output", "o.npz"}}}) {
    QFile f(c.file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    f.close();
    const std::string content(bytes.constData(), static_cast<std::size_t>(bytes.size()));
    QMap<QString, int> outcomes;
    int cycles = 0;
    {
      Truncator truncator(c.file, content);
      for (int i = 0; i < 12; ++i) {
        QString error;
        const QString outcome = tpuc(c.args, &error);
        outcomes[outcome]++;
        if (outcome != "0") {
          QVERIFY2(!outcome.startsWith("crashed") && outcome != "did not finish",
                   qPrintable(c.args.front() + " " + outcome + ": " + error));
          const QString last = error.section('\n', -1);
          QVERIFY2(last.contains(QFileInfo(c.file).fileName()), qPrintable(c.args.front() + ": " + error));
          if (!outcomes.contains("error"))
            qInfo("tpuc %s: %s", qPrintable(c.args.front()), qPrintable(last));
          outcomes["error"] = 0;
        }
      }
      cycles = truncator.cycles();
    }
    QStringList seen;
    outcomes.remove("error");
    for (auto it = outcomes.cbegin(); it != outcomes.cend(); ++it)
      seen << QString("exit %1: %2").arg(it.key()).arg(it.value());
    qInfo("tpuc %s while %s was cut %d times: %s", qPrintable(c.args.front()),
          qPrintable(QFileInfo(c.file).fileName()), cycles, qPrintable(seen.join(", ")));
  }
#endif
}

void TestReliability::cacheDeletedOrCorruptedUnderTheStudio() {
#ifndef TPUC_ENGINE
  QSKIP("this build has no tpuc");
#else
  // The project's cache folder (<project>.cache: Top IR, pass snapshots, model files, plans, traces, job logs
  // and markers) overwritten with garbage, then deleted, while the studio has the project open: the views
  // that read it say which file is bad in one line, the jobs that read it fail naming the file, the jobs that
  // write it rebuild it; the studio stays up and the project loses nothing.
  QTemporaryDir dir;
  QString file;
  const QString copied = guitest::copyExampleProject(dir.path(), &file);
  QVERIFY2(copied.isEmpty(), qPrintable(copied));
  qputenv("TPUC", TPUC_ENGINE);
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  QStringList logged; // errors and warnings the studio logged
  connect(&context, &StudioContext::logMessage, this, [&](LogLevel level, const QString &text) {
    if (level != LogLevel::Info)
      logged << text;
  });
  QVERIFY(window.startup(file));
  JobQueue *queue = window.jobQueue();
  qint64 f16 = -1;
  for (const project::CompileConfig &c : context.project().compileConfigs)
    if (c.name == "bm1684x-f16")
      f16 = c.id;
  // Runs a job to its end; its state, and the id of its run.
  auto finish = [&](int id, qint64 *runId = nullptr) {
    if (id <= 0)
      return JobState::Queued;
    QSignalSpy recorded(&window, &MainWindow::runRecordedForJob);
    QTest::qWaitFor(
        [&] {
          for (const QList<QVariant> &r : recorded)
            if (r[0].toInt() == id)
              return true;
          return false;
        },
        240000);
    for (const QList<QVariant> &r : recorded)
      if (r[0].toInt() == id && runId)
        *runId = r[1].toLongLong();
    return queue->job(id)->state;
  };
  qint64 transformRun = -1, deployRun = -1;
  QCOMPARE(finish(window.runTransform(), &transformRun), JobState::Succeeded);
  QCOMPARE(finish(window.runDeploy(f16), &deployRun), JobState::Succeeded);
  QVERIFY(transformRun > 0 && deployRun > 0);
  const std::size_t runs = context.project().runs.size();
  const QString cache = QString::fromStdString(project::cacheDirFor(file.toStdString()).string());
  const QString cacheName = QFileInfo(cache).fileName();

  // Opens the views that read the cache (graph, pass snapshots, chip views), waits for them; their errors.
  auto openViews = [&]() -> QStringList {
    while (window.centralTabs()->count() > 1)
      delete window.centralTabs()->widget(1);
    QStringList errors;
    if (GraphViewTab *graph = window.openTopGraph()) {
      QSignalSpy loaded(graph, &GraphViewTab::loaded);
      if (loaded.wait(60000))
        errors << "graph: " + loaded.front().front().toString();
    } else {
      errors << "graph: " + (logged.isEmpty() ? QString() : logged.last()); // showError logs what it says
    }
    window.openTab({Section::Runs, transformRun});
    if (auto *passes = window.findChild<PassInspectorView *>()) {
      QSignalSpy loaded(passes, &PassInspectorView::runLoaded);
      if (loaded.wait(30000))
        errors << "passes: " + loaded.front().front().toString();
    }
    ChipViewsTab *chip = window.openChipViews(deployRun);
    if (!chip)
      return errors << "chip: (no view)";
    QSignalSpy chipLoaded(chip, &ChipViewsTab::loaded);
    chipLoaded.wait(5000); // already emitted when there was nothing to read
    if (!chipLoaded.isEmpty())
      errors << "chip: " + chipLoaded.front().front().toString();
    return errors;
  };
  const QStringList whole = openViews();
  QVERIFY2(whole == QStringList({"graph: ", "passes: ", "chip: "}), qPrintable(whole.join(" | ")));

  // Garbage in every file of the cache.
  int overwritten = 0;
  QDirIterator files(cache, QDir::Files, QDirIterator::Subdirectories);
  while (files.hasNext()) {
    QFile f(files.next());
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(QByteArray("\x89garbage\0\xff{\"not\": [", 20) + QByteArray(300, '\x7f'));
    ++overwritten;
  }
  QVERIFY(overwritten > 20);
  logged.clear();
  const QStringList garbled = openViews();
  qInfo("%d cache files overwritten with garbage; the views said: %s", overwritten,
        qPrintable(garbled.join(" | ")));
  QCOMPARE(garbled.size(), 3);
  for (const QString &error : garbled) {
    QVERIFY2(error.section(": ", 1).size() > 0, qPrintable(error)); // each view says something is wrong
    QVERIFY2(!error.contains('\n') && error.contains(cacheName),
             qPrintable(error)); // in one line, naming the file
  }
  // The jobs reading garbage fail naming the file: the simulator run of the model file, a deploy of the Top
  // IR.
  for (const int id : {window.runModelFile(f16), window.runDeploy(f16)}) {
    QCOMPARE(finish(id), JobState::Failed);
    const QString headline = queue->job(id)->error.section('\n', 0, 0);
    qInfo("%s", qPrintable(headline));
    QVERIFY2(headline.contains(cacheName), qPrintable(queue->job(id)->error));
  }

  // The cache folder deleted.
  QVERIFY(QDir(cache).removeRecursively());
  logged.clear();
  const QStringList gone = openViews();
  qInfo("the cache deleted; the views said: %s", qPrintable(gone.join(" | ")));
  for (const QString &error : gone)
    QVERIFY2(!error.contains('\n') && error.section(": ", 1).size() > 0, qPrintable(error));
  // Views with nothing left to read say which file went (chip views: the plan and trace; the pass inspector:
  // the snapshot index).
  qInfo("logged: %s", qPrintable(logged.join(" | ")));
  for (const char *what : {"plan.json is gone", "trace.json is gone", "index.json is gone"})
    QVERIFY2(logged.filter(what).size() == 1, qPrintable(what + (": " + logged.join('\n'))));
  QVERIFY(window.runModelFile(f16) < 0); // "deploy it first", in one line
  QVERIFY2(!logged.last().contains('\n') && logged.last().contains("deploy"), qPrintable(logged.last()));
  // The jobs that write the cache build it again, and the views read it.
  QCOMPARE(finish(window.runTransform(), &transformRun), JobState::Succeeded);
  QCOMPARE(finish(window.runDeploy(f16), &deployRun), JobState::Succeeded);
  const QStringList rebuilt = openViews();
  QVERIFY2(rebuilt == QStringList({"graph: ", "passes: ", "chip: "}), qPrintable(rebuilt.join(" | ")));

  // Nothing of the project was lost: every run is there, and it saves and opens.
  QCOMPARE(context.project().runs.size(), runs + 4);
  QString error;
  QVERIFY2(context.save(&error), qPrintable(error));
  const Result<project::Project> saved = project::loadProject(file.toStdString());
  QVERIFY2(saved, saved ? "" : saved.error().c_str());
  QCOMPARE(saved->runs.size(), runs + 4);
#endif
}

void TestReliability::thumbnailCacheRebuildsWhatIsBadOrGone() {
  // The dataset view's thumbnails on disk (<project>.cache/datasets/<hash>.png): a file overwritten with
  // garbage, or the folder deleted while the studio runs, is made again from the sample, silently.
  const QString source = qEnvironmentVariable("TPUC_EXAMPLE_PROJECT");
  const QString image = QFileInfo(source).dir().filePath("images/dog.jpg");
  QVERIFY2(QFileInfo::exists(image), qPrintable(image));
  QTemporaryDir dir;
  const QString disk = dir.filePath("p.tpuproj.cache/datasets");
  const QString key = "sha256:" + QString(64, 'a');
  const QString png = disk + "/aa/" + QString(64, 'a') + ".png";
  auto thumbnail = [&] { // a fresh cache (as a new dataset view makes), nothing in memory
    ThumbnailCache cache(96, disk);
    QSignalSpy ready(&cache, &ThumbnailCache::ready);
    if (cache.get(key, image).isNull() && !ready.wait(10000))
      return QString("no thumbnail");
    if (cache.failed(key))
      return QString("failed");
    return cache.get(key, image).isNull() ? QString("null") : QString();
  };
  QCOMPARE(thumbnail(), QString());
  QVERIFY(QImage(png).width() > 0);
  QFile garbage(png);
  QVERIFY(garbage.open(QIODevice::WriteOnly | QIODevice::Truncate));
  garbage.write("\x89PNG garbage");
  garbage.close();
  QCOMPARE(thumbnail(), QString());
  QVERIFY2(QImage(png).width() > 0, "the garbage was not replaced");
  QVERIFY(QDir(dir.filePath("p.tpuproj.cache")).removeRecursively());
  QCOMPARE(thumbnail(), QString());
  QVERIFY2(QImage(png).width() > 0, "the deleted folder was not made again");
}

// QTEST_MAIN, and the studio stand-in of studioKilledDuringEachJobType when started with --studio-for-kill.
int main(int argc, char **argv) {
  QApplication app(argc, argv);
  if (argc == 5 && QByteArray(argv[1]) == "--studio-for-kill")
    return studioForKill(QString::fromLocal8Bit(argv[2]), QString::fromLocal8Bit(argv[3]),
                         QString::fromLocal8Bit(argv[4]));
  TestReliability test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_reliability.moc"
