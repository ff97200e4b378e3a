// The engine client's queue (EngineClient.h): runs jobs as child processes, one at a time, parsing their
// JSON-lines progress.
#ifndef TPUC_UI_JOBS_JOBQUEUE_H
#define TPUC_UI_JOBS_JOBQUEUE_H

#include "tpuc/Driver/Requests.h"

#include <QDateTime>
#include <QList>
#include <QObject>
#include <QProcess>

class QTimer;
#include <QStringList>

#include <optional>

namespace tpuc::ui {

/// What to run: a program with arguments (normally `tpuc <subcommand> ... --progress json`).
struct JobSpec {
  QString title;
  QString program;
  QStringList arguments;
  QString workingDirectory;
  /// The versioned result record the job writes (tpuc/Driver/Results.h), read by the run history; empty
  /// when the job writes none.
  QString resultFile;
};

/// NotImplemented: the engine exited with kExitNotImplemented saying so; the step does not exist in this
/// build, which is neither the model's fault nor a crash.
enum class JobState { Queued, Running, Succeeded, Failed, Cancelled, NotImplemented };

/// A job's state as last reported. Progress comes from stdout lines of the form
/// `{"stage": "...", "fraction": 0.4, "message": "...", "artifacts": ["..."]}`; any other output line
/// goes to the job's log.
struct JobInfo {
  int id = 0;
  JobSpec spec;
  JobState state = JobState::Queued;
  QString stage;
  double fraction = -1;   ///< 0..1, or -1 when unknown (busy indicator)
  QString message;
  QStringList artifacts;  ///< paths reported by the child
  QString error;          ///< why it failed, one line plus the log tail
  QStringList log;        ///< every non-progress line, stdout and stderr (bounded)
  int exitCode = -1;      ///< the child's exit code, -1 when it did not exit normally (crash, cancel, no start)
  QDateTime started, finished; ///< UTC; invalid until the job starts / ends
};

/// The engine's exit code for a subcommand this build does not implement yet.
using driver::kExitNotImplemented;

/// A queue of out-of-process jobs. A crashing or hanging child never takes the studio down: a crash is
/// reported with its signal and the log tail, cancel kills the child. Lives on the UI thread and is driven
/// by QProcess signals only (no polling).
class JobQueue : public QObject {
  Q_OBJECT
public:
  explicit JobQueue(QObject *parent = nullptr);
  ~JobQueue() override;

  /// Appends a job; it starts when the jobs before it are done. Returns its id.
  int enqueue(const JobSpec &spec);
  /// Cancels a queued job or kills a running one.
  void cancel(int id);
  void cancelAll();

  const QList<JobInfo> &jobs() const { return m_jobs; }
  std::optional<JobInfo> job(int id) const;
  /// The running job's id, or -1.
  int runningJob() const { return m_running; }
  /// How many lines of log each job keeps, and how many end a failure message.
  static constexpr int kMaxLogLines = 5000, kTailLines = 12;

  /// A child that writes nothing (no progress, no log line) for `seconds` is taken for hung: it is killed and
  /// its job fails saying so. 0 turns the watchdog off. The studio sets settings::jobStallSeconds().
  void setStallTimeout(int seconds) { m_stallSeconds = seconds; }
  int stallTimeout() const { return m_stallSeconds; }

  /// Parses one progress line into `info`; false when the line is not a progress object.
  static bool parseProgressLine(const QByteArray &line, JobInfo &info);

Q_SIGNALS:
  /// Emitted just before a job is appended at index `row` of jobs() (for item models).
  void jobAboutToBeAdded(int row);
  void jobAdded(int id);
  void jobChanged(int id);
  void jobFinished(int id, tpuc::ui::JobState state);
  void logLine(int id, const QString &line);

private:
  void startNext();
  void readOutput(QProcess::ProcessChannel channel);
  void finish(int exitCode, QProcess::ExitStatus status);
  void failedToStart(QProcess::ProcessError error);
  JobInfo *find(int id);
  void appendLog(JobInfo &info, const QString &line);
  void complete(JobInfo &info, JobState state);

  QList<JobInfo> m_jobs;
  QProcess *m_process = nullptr;
  int m_running = -1;
  int m_nextId = 1;
  bool m_cancelling = false;
  bool m_stalled = false; ///< the watchdog killed the running child
  int m_stallSeconds = 0;
  QTimer *m_stall = nullptr; ///< restarted by every output of the running child
  QByteArray m_partial[2]; ///< unterminated stdout / stderr text
};

/// A short human name of a job state.
QString jobStateName(JobState state);

} // namespace tpuc::ui

#endif
