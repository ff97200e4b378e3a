// The jobs panel: the job queue as a table with cancel and a log of the selected job.
#ifndef TPUC_UI_PANELS_JOBSPANEL_H
#define TPUC_UI_PANELS_JOBSPANEL_H

#include <QWidget>

class QPlainTextEdit;
class QPushButton;
class QTreeView;

namespace tpuc::ui {

class JobQueue;
class JobListModel;

class JobsPanel : public QWidget {
  Q_OBJECT
public:
  /// Sized in characters and lines, so the first-run layout scales with the font and DPI.
  QSize sizeHint() const override;
  explicit JobsPanel(JobQueue *queue, QWidget *parent = nullptr);

private:
  int currentJob() const;
  void showCurrentJob();

  JobQueue *m_queue;
  JobListModel *m_model;
  QTreeView *m_view;
  QPushButton *m_cancel;
  QPlainTextEdit *m_log;
};

} // namespace tpuc::ui

#endif
