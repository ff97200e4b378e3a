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
