// The engine client: tpuc command lines from requests, the job queue, one-off engine calls.
#include "ui/jobs/EngineClient.h"

#include <QProcess>

namespace tpuc::ui {

EngineCall::EngineCall(const QStringList &arguments, QObject *parent)
    : QObject(parent), m_process(new QProcess(this)) {
  m_process->setProgram(tpucPath());
  m_process->setArguments(arguments);
  connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart)
      Q_EMIT failedToStart();
  });
  connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
    const QString stderrText = QString::fromLocal8Bit(m_process->readAllStandardError()).trimmed();
    Q_EMIT finished(status == QProcess::NormalExit ? code : -1, stderrText);
  });
  m_process->start();
}

EngineCall::~EngineCall() {
  m_process->disconnect(this);
  if (m_process->state() != QProcess::NotRunning) {
    m_process->kill();
    m_process->waitForFinished(1000); // reap the child so it never outlives the view as a zombie
  }
}

EngineSession::EngineSession(const QStringList &arguments, QObject *parent)
    : QObject(parent), m_process(new QProcess(this)) {
  m_process->setProgram(tpucPath());
  m_process->setArguments(arguments);
  connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart)
      Q_EMIT failedToStart();
  });
  connect(m_process, &QProcess::readyReadStandardOutput, this, [this] {
    m_pending += m_process->readAllStandardOutput();
    qsizetype end;
    while ((end = m_pending.indexOf('\n')) >= 0) {
      QByteArray line = m_pending.left(end);
      m_pending.remove(0, end + 1);
      Q_EMIT lineReceived(line);
    }
  });
  connect(m_process, &QProcess::readyReadStandardError, this, [this] {
    // Only the tail matters (the reason a child failed); keep it bounded.
    m_stderr += m_process->readAllStandardError();
    if (m_stderr.size() > 16384)
      m_stderr = m_stderr.right(16384);
  });
  connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
    m_stderr += m_process->readAllStandardError();
    Q_EMIT finished(status == QProcess::NormalExit ? code : -1, QString::fromLocal8Bit(m_stderr).trimmed());
  });
}

void EngineSession::start() { m_process->start(); }

EngineSession::~EngineSession() {
  m_process->disconnect(this);
  if (m_process->state() != QProcess::NotRunning) {
    m_process->closeWriteChannel();
    m_process->kill();
    m_process->waitForFinished(1000); // reap the child so it never outlives the view as a zombie
  }
}

bool EngineSession::send(const QByteArray &line) {
  if (m_process->state() != QProcess::Running)
    return false;
  return m_process->write(line + '\n') == line.size() + 1;
}

bool EngineSession::isRunning() const { return m_process->state() != QProcess::NotRunning; }

void EngineSession::kill() {
  if (m_process->state() != QProcess::NotRunning)
    m_process->kill();
}

EngineClient::Served EngineClient::serve(const driver::LlmRunOptions &request, QObject *owner) {
  EngineArgs args = engineArguments(request);
  if (!args.error.isEmpty())
    return {nullptr, args.error};
  return {new EngineSession(args.args, owner), {}};
}

EngineClient::EngineClient(QObject *parent) : QObject(parent), m_queue(new JobQueue(this)) {}

EngineClient::Called EngineClient::call(const driver::GraphOptions &request, QObject *owner) {
  EngineArgs args = engineArguments(request);
  if (!args.error.isEmpty())
    return {nullptr, args.error};
  return {new EngineCall(args.args, owner), {}};
}

EngineClient::Called EngineClient::call(const driver::RunsOptions &request, QObject *owner) {
  EngineArgs args = engineArguments(request);
  if (!args.error.isEmpty())
    return {nullptr, args.error};
  return {new EngineCall(args.args, owner), {}};
}

} // namespace tpuc::ui
