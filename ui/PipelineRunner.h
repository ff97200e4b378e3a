// "Run Whole Pipeline" (issue 24): the steps of one compile configuration — transform, calibrate, deploy,
// run on the simulator — queued one after another as jobs, each only once the one before it has ended well
// and the studio has taken in its result (a calibration table, a recorded run). The runner owns the order and
// the states; what a step does is the caller's (MainWindow's run… functions), so it is tested with fake
// steps.
#ifndef TPUC_UI_PIPELINERUNNER_H
#define TPUC_UI_PIPELINERUNNER_H

#include <QDateTime>
#include <QObject>
#include <QString>

#include <functional>
#include <optional>
#include <vector>

namespace tpuc::project {
struct Project;
}

namespace tpuc::ui {

class JobQueue;

/// How the studio makes a calibration table of a given name: Run ▸ Calibrate names its tables
/// "<model> <dataset>[/<subset>] <method>" (MainWindow::runCalibrate), so a configuration naming a table it
/// does not have yet says which dataset, subset and method make it.
struct CalibrationRecipe {
  qint64 datasetId = -1;
  QString subset;
  QString method;
};
/// The recipe of table `tableName` of model `modelName` in `project`: nullopt when the name is not of that
/// form or names no dataset of the project.
std::optional<CalibrationRecipe> calibrationRecipe(const project::Project &project, const QString &modelName,
                                                   const QString &tableName);
enum class JobState;

/// What starting a step did: queued a job (`job` > 0), decided it has nothing to do (`skipped` says why), or
/// was refused (`job` < 0 and `skipped` empty; `error` says why when the caller knows).
struct StepStart {
  int job = -1;
  QString skipped;
  QString error;
};

struct PipelineStep {
  QString name;
  /// Queues the step's job; called when the steps before it have succeeded or been skipped.
  std::function<StepStart()> start;
  /// Whether the step's outcome must also be taken in before the next starts: the step then ends on
  /// PipelineRunner::resultTaken (e.g. a run recorded, a calibration table added), not on the job's end.
  bool waitsForResult = false;
};

class PipelineRunner : public QObject {
  Q_OBJECT
public:
  enum class StepState { Pending, Running, Succeeded, Skipped, Failed, Cancelled };

  PipelineRunner(JobQueue *jobs, std::vector<PipelineStep> steps, QObject *parent = nullptr);

  /// Starts the first step (once).
  void start();
  /// Cancels the running step's job; the steps after it are marked cancelled.
  void cancel();
  /// The studio has taken in the result of the job `job` (its run recorded as `runId`, or -1 when it only
  /// needed to be waited for): a step waiting for it ends and the next one starts.
  void resultTaken(int job, qint64 runId = -1);

  int stepCount() const { return static_cast<int>(m_steps.size()); }
  const QString &stepName(int step) const { return m_steps[step].def.name; }
  StepState stepState(int step) const { return m_steps[step].state; }
  /// The step's job id, or -1 when it queued none.
  int stepJob(int step) const { return m_steps[step].job; }
  /// The run recorded for the step's job (resultTaken), or -1.
  qint64 stepRun(int step) const { return m_steps[step].run; }
  /// Why the step was skipped or failed; empty otherwise.
  const QString &stepDetail(int step) const { return m_steps[step].detail; }
  /// Wall time of the step: from its start to its end (or now while it runs); 0 before it starts.
  qint64 stepMilliseconds(int step) const;
  /// The step running now, or -1.
  int currentStep() const { return m_current; }
  bool isFinished() const { return m_finished; }
  /// True when every step succeeded or was skipped.
  bool succeeded() const;

  static QString stateName(StepState state);

Q_SIGNALS:
  void stepChanged(int step);
  void finished(bool succeeded);

private:
  struct Step {
    PipelineStep def;
    StepState state = StepState::Pending;
    int job = -1;
    qint64 run = -1;
    bool jobEnded = false, resultArrived = false;
    QString detail;
    QDateTime started, ended;
  };
  void startStep(int step);
  void endStep(int step, StepState state, const QString &detail = {});
  void jobFinished(int job, JobState state);

  JobQueue *m_jobs;
  std::vector<Step> m_steps;
  int m_current = -1;
  bool m_started = false, m_finished = false;
};

} // namespace tpuc::ui

#endif
