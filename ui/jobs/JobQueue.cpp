// The out-of-process job queue.
#include "ui/jobs/JobQueue.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

#include <csignal>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <cstring>

namespace tpuc::ui {

namespace {

QString describeSignal(int signal) {
  switch (signal) {
  case SIGSEGV: return QObject::tr("crashed (segmentation fault)");
  case SIGABRT: return QObject::tr("aborted");
  case SIGKILL: return QObject::tr("was killed (SIGKILL)");
  case SIGTERM: return QObject::tr("was terminated (SIGTERM)");
  case SIGBUS: return QObject::tr("crashed (bus error)");
  case SIGFPE: return QObject::tr("crashed (arithmetic exception)");
  case SIGILL: return QObject::tr("crashed (illegal instruction)");
  default: return QObject::tr("crashed (signal %1, %2)").arg(signal).arg(QString::fromLocal8Bit(strsignal(signal)));
  }
}

} // namespace

QString jobStateName(JobState state) {
  switch (state) {
  case JobState::Queued: return QObject::tr("queued");
  case JobState::Running: return QObject::tr("running");
  case JobState::Succeeded: return QObject::tr("done");
  case JobState::Failed: return QObject::tr("failed");
  case JobState::Cancelled: return QObject::tr("cancelled");
  case JobState::NotImplemented: return QObject::tr("not implemented");
  }
  return {};
}

JobQueue::JobQueue(QObject *parent) : QObject(parent), m_stall(new QTimer(this)) {
  m_stall->setSingleShot(true);
  connect(m_stall, &QTimer::timeout, this, [this] {
    if (!m_process || m_cancelling)
      return;
    m_stalled = true;
    m_process->kill(); // its end arrives as finish(), which says why
  });
}

JobQueue::~JobQueue() {
  if (m_process) {
    m_process->disconnect(this);
    m_process->kill();
    m_process->waitForFinished(1000); // reap the child so it never outlives the studio as a zombie
  }
}

int JobQueue::enqueue(const JobSpec &spec) {
  JobInfo info;
  info.id = m_nextId++;
  info.spec = spec;
  Q_EMIT jobAboutToBeAdded(static_cast<int>(m_jobs.size()));
  m_jobs.append(info);
  Q_EMIT jobAdded(info.id);
  if (m_running < 0)
    startNext();
  return info.id;
}

JobInfo *JobQueue::find(int id) {
  for (JobInfo &info : m_jobs)
    if (info.id == id)
      return &info;
  return nullptr;
}

std::optional<JobInfo> JobQueue::job(int id) const {
  for (const JobInfo &info : m_jobs)
    if (info.id == id)
      return info;
  return std::nullopt;
}

void JobQueue::cancel(int id) {
  JobInfo *info = find(id);
  if (!info)
    return;
  if (info->state == JobState::Queued) {
    info->message = tr("Cancelled before it started");
    complete(*info, JobState::Cancelled);
  } else if (info->state == JobState::Running && m_process) {
    // Killing is safe: the child writes its artifacts atomically and the project is not touched by it.
    m_cancelling = true;
    m_process->kill();
  }
}

void JobQueue::cancelAll() {
  for (const JobInfo &info : QList<JobInfo>(m_jobs))
    if (info.state == JobState::Queued)
      cancel(info.id);
  if (m_running >= 0)
    cancel(m_running);
}

void JobQueue::startNext() {
  for (JobInfo &info : m_jobs) {
    if (info.state != JobState::Queued)
      continue;
    m_running = info.id;
    m_cancelling = false;
    m_stalled = false;
    m_partial[0].clear();
    m_partial[1].clear();
    info.state = JobState::Running;
    info.started = QDateTime::currentDateTimeUtc();
    m_process = new QProcess(this);
    m_process->setProgram(info.spec.program);
    m_process->setArguments(info.spec.arguments);
    if (!info.spec.workingDirectory.isEmpty())
      m_process->setWorkingDirectory(info.spec.workingDirectory);
#ifdef __linux__
    // A child never outlives a studio that is killed: it would go on writing into a project nobody has open.
    m_process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
#endif
    connect(m_process, &QProcess::readyReadStandardOutput, this,
            [this] { readOutput(QProcess::StandardOutput); });
    connect(m_process, &QProcess::readyReadStandardError, this, [this] { readOutput(QProcess::StandardError); });
    connect(m_process, &QProcess::finished, this, &JobQueue::finish);
    connect(m_process, &QProcess::errorOccurred, this, &JobQueue::failedToStart);
    Q_EMIT jobChanged(info.id);
    if (m_stallSeconds > 0)
      m_stall->start(m_stallSeconds * 1000);
    m_process->start();
    return;
  }
}

bool JobQueue::parseProgressLine(const QByteArray &line, JobInfo &info) {
  QByteArray trimmed = line.trimmed();
  if (!trimmed.startsWith('{'))
    return false;
  QJsonParseError error;
  QJsonDocument doc = QJsonDocument::fromJson(trimmed, &error);
  if (error.error != QJsonParseError::NoError || !doc.isObject())
    return false;
  QJsonObject o = doc.object();
  if (!o.contains(QLatin1String("stage")) && !o.contains(QLatin1String("fraction")) &&
      !o.contains(QLatin1String("message")) && !o.contains(QLatin1String("artifacts")))
    return false;
  if (o.contains(QLatin1String("stage")))
    info.stage = o.value(QLatin1String("stage")).toString();
  if (o.contains(QLatin1String("fraction"))) {
    QJsonValue f = o.value(QLatin1String("fraction"));
    info.fraction = f.isDouble() ? qBound(0.0, f.toDouble(), 1.0) : -1;
  }
  if (o.contains(QLatin1String("message")))
    info.message = o.value(QLatin1String("message")).toString();
  for (const QJsonValue &artifact : o.value(QLatin1String("artifacts")).toArray())
    if (artifact.isString() && !info.artifacts.contains(artifact.toString()))
      info.artifacts.append(artifact.toString());
  return true;
}

void JobQueue::appendLog(JobInfo &info, const QString &line) {
  info.log.append(line);
  if (info.log.size() > kMaxLogLines)
    info.log.removeFirst();
  Q_EMIT logLine(info.id, line);
}

void JobQueue::readOutput(QProcess::ProcessChannel channel) {
  JobInfo *info = find(m_running);
  if (!info || !m_process)
    return;
  m_process->setReadChannel(channel);
  if (m_stallSeconds > 0)
    m_stall->start(m_stallSeconds * 1000); // alive
  QByteArray &partial = m_partial[channel == QProcess::StandardOutput ? 0 : 1];
  partial += m_process->readAll();
  const int id = info->id;
  qsizetype newline;
  while ((newline = partial.indexOf('\n')) >= 0) {
    QByteArray line = partial.left(newline);
    partial.remove(0, newline + 1);
    // One notification per progress line, so observers see every stage even when lines arrive together.
    if (channel == QProcess::StandardOutput && parseProgressLine(line, *info))
      Q_EMIT jobChanged(id);
    else if (!line.trimmed().isEmpty())
      appendLog(*info, QString::fromUtf8(line).trimmed());
    info = find(id); // a slot may have enqueued a job and moved the list
    if (!info)
      return;
  }
}

void JobQueue::complete(JobInfo &info, JobState state) {
  info.state = state;
  info.finished = QDateTime::currentDateTimeUtc();
  if (state == JobState::Succeeded)
    info.fraction = 1;
  int id = info.id;
  Q_EMIT jobChanged(id);
  Q_EMIT jobFinished(id, state);
}

void JobQueue::finish(int exitCode, QProcess::ExitStatus status) {
  JobInfo *info = find(m_running);
  QProcess *process = m_process;
  m_process = nullptr;
  m_running = -1;
  m_stall->stop();
  if (process)
    process->deleteLater();
  if (info) {
    for (QByteArray &partial : m_partial)
      if (!partial.trimmed().isEmpty())
        appendLog(*info, QString::fromUtf8(partial).trimmed());
    QString tail = QStringList(info->log.mid(qMax(0, info->log.size() - kTailLines))).join(QLatin1Char('\n'));
    auto withTail = [&](const QString &what) {
      return tail.isEmpty() ? what : tr("%1\nLast output:\n%2").arg(what, tail);
    };
    if (m_cancelling) {
      info->message = tr("Cancelled");
      complete(*info, JobState::Cancelled);
    } else if (m_stalled) {
      info->error =
          withTail(tr("%1 wrote nothing for %2 s and was stopped as hung (the studio's job timeout, "
                      "settings key jobs/stallSeconds; a child out of memory under a limit can hang "
                      "like this)")
                       .arg(info->spec.title)
                       .arg(m_stallSeconds));
      complete(*info, JobState::Failed);
    } else if (status == QProcess::CrashExit) {
      // On Unix QProcess reports the terminating signal as the exit code of a crashed child.
      info->error = withTail(tr("%1 %2").arg(info->spec.title, describeSignal(exitCode)));
      complete(*info, JobState::Failed);
    } else if (exitCode == kExitNotImplemented &&
               info->log.filter(QLatin1String("not implemented yet")).size() > 0) {
      // Not a failure of the user's model: the engine says this step does not exist yet.
      info->exitCode = exitCode;
      info->message = tr("Not implemented yet in this engine");
      info->error = withTail(tr("%1: not implemented yet in this build of tpuc (exit code %2)")
                                 .arg(info->spec.title).arg(exitCode));
      complete(*info, JobState::NotImplemented);
    } else if (exitCode != 0) {
      info->exitCode = exitCode;
      // The engine's one-line reason (its last line that is not a JSON progress record) goes into the
      // headline, so the run history and the status bar name the file, node or field at fault.
      QString reason;
      for (auto it = info->log.crbegin(); it != info->log.crend() && reason.isEmpty(); ++it)
        if (!it->trimmed().isEmpty() && !it->trimmed().startsWith(QLatin1Char('{')))
          reason = it->trimmed();
      info->error = withTail(reason.isEmpty()
                                 ? tr("%1 failed with exit code %2").arg(info->spec.title).arg(exitCode)
                                 : tr("%1 failed with exit code %2: %3").arg(info->spec.title).arg(exitCode).arg(reason));
      complete(*info, JobState::Failed);
    } else {
      info->exitCode = 0;
      complete(*info, JobState::Succeeded);
    }
  }
  startNext();
}

void JobQueue::failedToStart(QProcess::ProcessError error) {
  if (error != QProcess::FailedToStart || !m_process)
    return;
  JobInfo *info = find(m_running);
  QString reason = m_process->errorString();
  m_process->deleteLater();
  m_process = nullptr;
  m_running = -1;
  m_stall->stop();
  if (info) {
    info->error = tr("%1 could not start '%2': %3").arg(info->spec.title, info->spec.program, reason);
    complete(*info, JobState::Failed);
  }
  startNext();
}

} // namespace tpuc::ui
