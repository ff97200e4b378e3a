// The window of Run ▸ Run Whole Pipeline: one row per step (state, progress of its job, the engine's stage
// message, wall time, why it was skipped or failed), Cancel while it runs, and when it has succeeded the
// buttons that open what it made (accuracy, layer groups, engine timeline). Not modal: the studio stays
// usable and the jobs panel shows the same jobs.
#ifndef TPUC_UI_PIPELINEDIALOG_H
#define TPUC_UI_PIPELINEDIALOG_H

#include <QDialog>
#include <QPointer>

#include <functional>
#include <vector>

class QDialogButtonBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTimer;

namespace tpuc::ui {

class JobQueue;
class PipelineRunner;

/// A button the dialog offers once the pipeline has succeeded.
struct PipelineOutcomeAction {
  QString text;
  QString toolTip;
  std::function<void()> open;
};

class PipelineDialog : public QDialog {
  Q_OBJECT
public:
  PipelineDialog(PipelineRunner *runner, JobQueue *jobs, const QString &heading,
                 std::vector<PipelineOutcomeAction> outcomes, QWidget *parent = nullptr);

  PipelineRunner *runner() const;
  /// The one-line summary under the steps ("Done in 41 s", "Deploy failed: …").
  QString summary() const;
  /// The buttons of the outcomes (enabled once the pipeline has succeeded).
  const std::vector<QPushButton *> &outcomeButtons() const { return m_outcomeButtons; }

private:
  void updateStep(int step);
  void updateTimes();
  void finish(bool succeeded);
  /// Moves to the window's bottom right corner, off the view an outcome button opened.
  void moveAside();

  struct Row {
    QLabel *icon, *name, *detail, *time;
    QProgressBar *progress;
  };
  QPointer<PipelineRunner> m_runner;
  JobQueue *m_jobs;
  std::vector<Row> m_rows;
  QLabel *m_summary;
  QDialogButtonBox *m_buttons;
  QPushButton *m_cancel;
  std::vector<QPushButton *> m_outcomeButtons;
  QTimer *m_clock;
};

} // namespace tpuc::ui

#endif
