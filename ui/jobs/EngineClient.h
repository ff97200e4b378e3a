// The studio's one way to the engine: every tpuc child process the studio starts is started here (queued
// jobs through its JobQueue, one-off calls such as the graph view's `tpuc graph` as EngineCalls), and every
// command line is rendered from a value-type request by the CLI's own flag binding (tpuc/Driver/Requests.h).
// Nothing else in ui/ spells a tpuc flag or starts a process (tests/unit/layering checks it).
#ifndef TPUC_UI_JOBS_ENGINECLIENT_H
#define TPUC_UI_JOBS_ENGINECLIENT_H

#include "tpuc/Driver/Requests.h"
#include "ui/Background.h"
#include "ui/jobs/JobQueue.h"

#include <QObject>
#include <QStringList>

class QProcess;

namespace tpuc::ui {

/// `tpuc` arguments of a request, command word first; or the one-line error naming the field whose value
/// no argument spells (then `args` is empty).
struct EngineArgs {
  QStringList args;
  QString error;
};

template <typename Request> EngineArgs engineArguments(const Request &request) {
  driver::Argv argv = driver::commandLine(request);
  EngineArgs out;
  out.error = QString::fromStdString(argv.error);
  for (const std::string &arg : argv.args)
    out.args << QString::fromStdString(arg);
  return out;
}

/// Reads a stored command line (a run's "arguments", command word first) back into its request; nullopt
/// when it is another command or does not parse. Required options may be missing (their fields are then
/// empty).
template <typename Request> std::optional<Request> requestOf(const QStringList &commandLine) {
  if (commandLine.isEmpty() || commandLine.front().toStdString() != Request::kCommand)
    return std::nullopt;
  std::vector<std::string> args;
  for (qsizetype i = 1; i < commandLine.size(); ++i)
    args.push_back(commandLine[i].toStdString());
  driver::Parsed<Request> parsed = driver::parseRequest<Request>(args, /*checkRequired=*/false);
  if (!parsed)
    return std::nullopt;
  return parsed.request;
}

/// A queued job: its id, or -1 and why it was not queued.
struct Submitted {
  int id = -1;
  QString error;
};

/// One tpuc child run at once, outside the queue, for a view that waits on its answer. Deleting it (or its
/// parent) kills and reaps the child; a superseded call is simply deleted.
class EngineCall : public QObject {
  Q_OBJECT
public:
  ~EngineCall() override;

Q_SIGNALS:
  /// The child exited: its exit code (-1 when it crashed) and what it wrote on stderr, trimmed.
  void finished(int exitCode, const QString &stderrText);
  /// The engine could not be started (not found, not executable).
  void failedToStart();

private:
  friend class EngineClient;
  EngineCall(const QStringList &arguments, QObject *parent);
  QProcess *m_process;
};

/// Owns the job queue; builds every tpuc command line from a request.
class EngineClient : public QObject {
  Q_OBJECT
public:
  explicit EngineClient(QObject *parent = nullptr);

  JobQueue *queue() const { return m_queue; }

  /// Queues `tpuc <request>` in `workingDirectory`. `resultFile`: the result record the job writes
  /// (Results.h), which the run history reads.
  template <typename Request>
  Submitted submit(const QString &title, const Request &request, const QString &workingDirectory,
                   const QString &resultFile = {}) {
    EngineArgs args = engineArguments(request);
    if (!args.error.isEmpty())
      return {-1, args.error};
    return {m_queue->enqueue({title, tpucPath(), args.args, workingDirectory, resultFile}), {}};
  }

  /// A started call, or why none was started (the request has no command line).
  struct Called {
    EngineCall *call = nullptr;
    QString error;
  };
  /// Runs `tpuc graph <request>` now; the call belongs to `owner`.
  static Called call(const driver::GraphOptions &request, QObject *owner);
  /// Runs `tpuc runs <request>` now (the run comparison's `runs diff --format json`).
  static Called call(const driver::RunsOptions &request, QObject *owner);

private:
  JobQueue *m_queue;
};

} // namespace tpuc::ui

#endif
