#include "ui/PipelineRunner.h"

#include "project/Project.h"
#include "ui/jobs/JobQueue.h"

namespace tpuc::ui {

std::optional<CalibrationRecipe> calibrationRecipe(const project::Project &project, const QString &modelName,
                                                   const QString &tableName) {
  const QString prefix = modelName + QLatin1Char(' ');
  const qsizetype lastSpace = tableName.lastIndexOf(QLatin1Char(' '));
  if (!tableName.startsWith(prefix) || lastSpace <= prefix.size())
    return std::nullopt;
  const QString source = tableName.mid(prefix.size(), lastSpace - prefix.size());
  const QString method = tableName.mid(lastSpace + 1);
  // The longest dataset name that fits: "a/b" may be a dataset of that name or subset b of dataset a.
  std::optional<CalibrationRecipe> best;
  qsizetype bestLength = -1;
  for (const project::Dataset &dataset : project.datasets) {
    const QString name = QString::fromStdString(dataset.name);
    if (name.size() <= bestLength)
      continue;
    if (source == name)
      best = CalibrationRecipe{dataset.id, {}, method};
    else if (source.startsWith(name + QLatin1Char('/')) && source.size() > name.size() + 1)
      best = CalibrationRecipe{dataset.id, source.mid(name.size() + 1), method};
    else
      continue;
    bestLength = name.size();
  }
  return best;
}

PipelineRunner::PipelineRunner(JobQueue *jobs, std::vector<PipelineStep> steps, QObject *parent)
    : QObject(parent), m_jobs(jobs) {
  for (PipelineStep &step : steps)
    m_steps.push_back(Step{std::move(step)});
  // Queued: the studio's own handlers of the same signal (the calibration table joining the project, the run
  // being recorded) have run when the next step starts and looks for what this one made.
  connect(m_jobs, &JobQueue::jobFinished, this, &PipelineRunner::jobFinished, Qt::QueuedConnection);
}

void PipelineRunner::start() {
  if (m_started)
    return;
  m_started = true;
  if (m_steps.empty()) {
    m_finished = true;
    Q_EMIT finished(true);
    return;
  }
  startStep(0);
}

void PipelineRunner::startStep(int step) {
  m_current = step;
  Step &s = m_steps[step];
  s.state = StepState::Running;
  s.started = QDateTime::currentDateTimeUtc();
  Q_EMIT stepChanged(step);
  const StepStart started = s.def.start ? s.def.start() : StepStart{-1, {}, tr("the step cannot start")};
  if (started.job > 0) {
    s.job = started.job;
    Q_EMIT stepChanged(step);
  } else if (!started.skipped.isEmpty()) {
    endStep(step, StepState::Skipped, started.skipped);
  } else {
    endStep(step, StepState::Failed,
            started.error.isEmpty() ? tr("the studio refused to start it (see the log)") : started.error);
  }
}

void PipelineRunner::endStep(int step, StepState state, const QString &detail) {
  Step &s = m_steps[step];
  s.state = state;
  s.detail = detail;
  s.ended = QDateTime::currentDateTimeUtc();
  Q_EMIT stepChanged(step);
  if (state == StepState::Succeeded || state == StepState::Skipped) {
    if (step + 1 < stepCount()) {
      startStep(step + 1);
      return;
    }
  } else {
    for (int later = step + 1; later < stepCount(); ++later) {
      m_steps[later].state = StepState::Cancelled;
      m_steps[later].detail =
          state == StepState::Failed ? tr("not run: %1 failed").arg(s.def.name) : tr("not run: cancelled");
      Q_EMIT stepChanged(later);
    }
  }
  m_current = -1;
  m_finished = true;
  Q_EMIT finished(succeeded());
}

void PipelineRunner::jobFinished(int job, JobState state) {
  if (m_current < 0 || m_steps[m_current].job != job)
    return;
  Step &s = m_steps[m_current];
  s.jobEnded = true;
  const std::optional<JobInfo> info = m_jobs->job(job);
  switch (state) {
  case JobState::Succeeded:
    // The result may have been taken before this queued call arrived.
    if (!s.def.waitsForResult || s.resultArrived)
      endStep(m_current, StepState::Succeeded);
    else
      Q_EMIT stepChanged(m_current);
    break;
  case JobState::Cancelled:
    endStep(m_current, StepState::Cancelled, tr("cancelled"));
    break;
  default: {
    // The first line of the job's error: the engine's one-line reason.
    const QString why = info ? info->error.section(QLatin1Char('\n'), 0, 0) : QString();
    endStep(m_current, StepState::Failed, why.isEmpty() ? tr("the job failed") : why);
    break;
  }
  }
}

void PipelineRunner::resultTaken(int job, qint64 runId) {
  if (m_current < 0 || m_steps[m_current].job != job)
    return;
  Step &s = m_steps[m_current];
  if (!s.def.waitsForResult)
    return;
  s.run = runId;
  s.resultArrived = true;
  // Taken before the queued end of the job arrived here: the end finishes the step.
  if (s.jobEnded)
    endStep(m_current, StepState::Succeeded);
}

void PipelineRunner::cancel() {
  if (m_finished)
    return;
  if (!m_started) {
    m_started = true;
    for (int step = 0; step < stepCount(); ++step) {
      m_steps[step].state = StepState::Cancelled;
      m_steps[step].detail = tr("not run: cancelled");
      Q_EMIT stepChanged(step);
    }
    m_finished = true;
    Q_EMIT finished(false);
    return;
  }
  const int step = m_current;
  if (step < 0)
    return;
  if (m_steps[step].job > 0 && !m_steps[step].jobEnded)
    m_jobs->cancel(m_steps[step].job); // its end arrives as jobFinished(Cancelled)
  else
    endStep(step, StepState::Cancelled, tr("cancelled"));
}

qint64 PipelineRunner::stepMilliseconds(int step) const {
  const Step &s = m_steps[step];
  if (!s.started.isValid())
    return 0;
  return s.started.msecsTo(s.ended.isValid() ? s.ended : QDateTime::currentDateTimeUtc());
}

bool PipelineRunner::succeeded() const {
  if (!m_finished)
    return false;
  for (const Step &s : m_steps)
    if (s.state != StepState::Succeeded && s.state != StepState::Skipped)
      return false;
  return true;
}

QString PipelineRunner::stateName(StepState state) {
  switch (state) {
  case StepState::Pending:
    return tr("waiting");
  case StepState::Running:
    return tr("running");
  case StepState::Succeeded:
    return tr("done");
  case StepState::Skipped:
    return tr("skipped");
  case StepState::Failed:
    return tr("failed");
  case StepState::Cancelled:
    return tr("cancelled");
  }
  return {};
}

} // namespace tpuc::ui
