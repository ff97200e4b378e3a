#include "ui/jobs/JobMarkers.h"

#include "project/ProjectStore.h"
#include "tpuc/Support/FileWrite.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cerrno>
#include <csignal>

namespace tpuc::ui {

namespace {

QString markerDir(const QString &projectFile) {
  return QString::fromStdString(project::cacheDirFor(projectFile.toStdString()).string()) +
         QStringLiteral("/jobs");
}

QString markerFile(const QString &projectFile, qint64 pid, int jobId) {
  return markerDir(projectFile) + QStringLiteral("/running-%1-%2.json").arg(pid).arg(jobId);
}

bool processAlive(qint64 pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

} // namespace

void markJobRunning(const QString &projectFile, const JobInfo &job) {
  if (projectFile.isEmpty() || !QDir().mkpath(markerDir(projectFile)))
    return;
  QJsonObject marker{{QStringLiteral("title"), job.spec.title},
                     {QStringLiteral("program"), job.spec.program},
                     {QStringLiteral("arguments"), QJsonArray::fromStringList(job.spec.arguments)},
                     {QStringLiteral("started"), job.started.toString(Qt::ISODate)},
                     {QStringLiteral("studioPid"), QCoreApplication::applicationPid()}};
  // Written beside and renamed, so a studio killed meanwhile leaves no half marker; but not with QSaveFile,
  // whose fsync took up to 0.3 s of the UI thread for every job on a busy disk (the soak test's stalls). A
  // marker has to outlive the studio, not the machine. A marker that cannot be written is no reason to
  // refuse the job: the run is then simply not recoverable as "interrupted".
  const QByteArray bytes = QJsonDocument(marker).toJson(QJsonDocument::Compact);
  (void)writeFileAtomically(markerFile(projectFile, QCoreApplication::applicationPid(), job.id).toStdString(),
                            std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
}

void clearJobMarker(const QString &projectFile, int jobId) {
  if (!projectFile.isEmpty())
    QFile::remove(markerFile(projectFile, QCoreApplication::applicationPid(), jobId));
}

std::vector<project::RunRecord> collectInterruptedRuns(const QString &projectFile) {
  std::vector<project::RunRecord> runs;
  if (projectFile.isEmpty())
    return runs;
  QDir dir(markerDir(projectFile));
  for (const QString &name : dir.entryList({QStringLiteral("running-*.json")}, QDir::Files, QDir::Name)) {
    const qint64 pid = name.section(QLatin1Char('-'), 1, 1).toLongLong();
    if (processAlive(pid))
      continue; // a studio still running that job (this one, or another with the project open read-only)
    QFile file(dir.filePath(name));
    project::RunRecord run;
    run.status = "interrupted";
    QJsonObject summary{{QStringLiteral("interrupted"), true}};
    QJsonParseError error;
    const QJsonObject marker = file.open(QIODevice::ReadOnly)
                                   ? QJsonDocument::fromJson(file.readAll(), &error).object()
                                   : QJsonObject();
    if (marker.isEmpty()) {
      run.configName = QStringLiteral("Job interrupted (unreadable marker %1)").arg(name).toStdString();
      summary.insert(QStringLiteral("message"), QStringLiteral("%1: not a job marker").arg(file.fileName()));
    } else {
      run.configName = marker.value(QStringLiteral("title")).toString().toStdString();
      run.started = marker.value(QStringLiteral("started")).toString().toStdString();
      const QJsonArray arguments = marker.value(QStringLiteral("arguments")).toArray();
      summary.insert(QStringLiteral("program"), marker.value(QStringLiteral("program")));
      summary.insert(QStringLiteral("arguments"), arguments);
      summary.insert(QStringLiteral("command"),
                     arguments.isEmpty() ? QString() : arguments.first().toString());
      summary.insert(
          QStringLiteral("message"),
          QStringLiteral("the studio (pid %1) ended while this job ran; its outputs may be missing "
                         "or partial")
              .arg(pid));
    }
    run.summaryJson = QJsonDocument(summary).toJson(QJsonDocument::Compact).toStdString();
    runs.push_back(std::move(run));
    file.close();
    QFile::remove(dir.filePath(name));
  }
  // Half-written markers of studios that are gone (killed between writing and renaming one:
  // writeFileAtomically's temporary "<marker>.tmp-<pid>").
  for (const QString &name : dir.entryList({QStringLiteral("running-*.json.tmp-*")}, QDir::Files))
    if (!processAlive(name.section(QLatin1Char('-'), 1, 1).toLongLong()))
      QFile::remove(dir.filePath(name));
  std::stable_sort(runs.begin(), runs.end(), [](const project::RunRecord &a, const project::RunRecord &b) {
    return a.started < b.started;
  });
  return runs;
}

} // namespace tpuc::ui
