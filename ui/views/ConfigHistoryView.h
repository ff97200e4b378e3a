// Runs over time (issue 22, item 5): the deploy runs of one compile configuration as a chart — output
// accuracy and simulated latency per run, failures marked — with a list beside it; a point opens its run's
// accuracy view, "Compare with previous" the comparison with the run before it.
#ifndef TPUC_UI_VIEWS_CONFIGHISTORYVIEW_H
#define TPUC_UI_VIEWS_CONFIGHISTORYVIEW_H

#include "project/Project.h"

#include <QString>
#include <QWidget>

#include <vector>

class QChartView;
class QLabel;
class QTreeWidget;

namespace tpuc::ui {

class StudioContext;

/// One deploy run of a configuration, as the history shows it. NaN where the run did not record it.
struct HistoryPoint {
  qint64 runId = 0;
  QString finished; ///< ISO 8601 UTC, as recorded
  QString status;   ///< the job's ("ok", "failed", "cancelled"), or the result's "failed"/"error"
  bool failed = false;
  int samples = 1;
  /// The lowest output cosine: of the run's one sample (its output tensors), or over many samples the
  /// lowest output's mean over the samples and its lowest sample.
  double outputCos, minCos;
  double latencyMs; ///< simulated (the run's engine trace)
};

/// The deploy runs (isDeployRun) of configuration `configId` (a run's title ends in "(<configuration>)"),
/// oldest first.
std::vector<HistoryPoint> configHistory(const project::Project &project, qint64 configId);

/// A central tab: the history of one configuration, rebuilt when the project's runs change and when the
/// palette does.
class ConfigHistoryView : public QWidget {
  Q_OBJECT
public:
  ConfigHistoryView(StudioContext *context, qint64 configId, QWidget *parent = nullptr);
  qint64 configId() const { return m_configId; }
  const std::vector<HistoryPoint> &points() const { return m_points; }
  QChartView *chart() const { return m_chart; }
  QTreeWidget *runs() const { return m_runs; }
  QLabel *summary() const { return m_summary; }
  /// The run whose point lies under `pos` (chart view coordinates, within a marker's reach), or -1.
  qint64 runAt(const QPoint &pos) const;
  /// The deploy run before `runId` in this history, or -1.
  qint64 previousRun(qint64 runId) const;
  /// Rebuilds from the project (done on every change of its runs or configurations).
  void refresh();

Q_SIGNALS:
  /// A point or row was clicked: open that run's accuracy view.
  void runActivated(qint64 runId);
  /// "Compare with previous": open the comparison of run A (the earlier) with B.
  void compareRequested(qint64 runA, qint64 runB);

protected:
  void changeEvent(QEvent *event) override;
  bool eventFilter(QObject *watched, QEvent *event) override;

private:
  void rebuildChart();
  void showMenu(qint64 runId, const QPoint &globalPos);

  StudioContext *m_context;
  qint64 m_configId;
  std::vector<HistoryPoint> m_points;
  QLabel *m_summary;
  QChartView *m_chart;
  QTreeWidget *m_runs;
};

} // namespace tpuc::ui

#endif
