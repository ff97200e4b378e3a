// The activation statistics view: one calibration report folder (`tpuc calibrate --report`) as a table of
// tensors beside the selected tensor's histogram with every method's threshold and its convergence, under a
// banner saying whether the samples were enough.
#ifndef TPUC_UI_VIEWS_ACTIVATIONSTATSVIEW_H
#define TPUC_UI_VIEWS_ACTIVATIONSTATSVIEW_H

#include "ui/StudioContext.h"
#include "visualizer/CalibrationReport.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QLabel;
class QLineEdit;
class QSplitter;
class QTableView;
class QTabWidget;

namespace tpuc::vis {
class CalibrationOverviewFigure;
class CalibrationTensorFigure;
} // namespace tpuc::vis

namespace tpuc::ui {

class ActivationStatsFilter;
class ActivationStatsModel;

/// The report folder recorded for calibration table `tableId` (a studio calibration records one), empty
/// when there is none or it is no longer on disk.
QString calibrationReportOfTable(const StudioContext &context, qint64 tableId);
/// Records `folder` as calibration table `tableId`'s report (in the project's view state, relative to the
/// cache folder when inside it, so the project and its cache can move together).
void setCalibrationReportOfTable(StudioContext &context, qint64 tableId, const QString &folder);
/// The report folder among a run's artifacts (the folder of its histograms.json), empty when none.
QString calibrationReportOfRun(const project::RunRecord &run);

/// Shows one report. The report is read off the UI thread (loaded() tells when); a malformed one shows
/// its one-line error in the banner. Selecting a tensor publishes it through StudioContext::selectOp
/// (op name = tensor name) and an op selected elsewhere selects its row.
class ActivationStatsView : public QWidget {
  Q_OBJECT
public:
  /// Reads `folder` (empty: nothing until load or setReport). `tableId` is the calibration table it
  /// belongs to, -1 when none.
  ActivationStatsView(StudioContext *context, const QString &folder, qint64 tableId = -1,
                      QWidget *parent = nullptr);

  /// Reads a report folder off the UI thread; a newer load supersedes an older one.
  void load(const QString &folder);
  /// Shows a report at once.
  void setReport(vis::CalibrationReport report);

  QString folder() const { return m_folder; }
  qint64 tableId() const { return m_tableId; }
  /// The last load's error, empty when the report loaded.
  QString error() const { return m_error; }
  const vis::CalibrationReport *report() const { return m_report.get(); }

  ActivationStatsModel *model() const { return m_model; }
  ActivationStatsFilter *filter() const { return m_filter; }
  QTableView *table() const { return m_table; }
  QLabel *banner() const { return m_banner; }
  QCheckBox *onlyUnsettled() const { return m_onlyUnsettled; }
  vis::CalibrationTensorFigure *figure() const { return m_figure; }
  vis::CalibrationOverviewFigure *overview() const { return m_overview; }
  QTabWidget *charts() const { return m_charts; }
  /// The tensor of the current row, empty when none.
  QString currentTensor() const;
  /// Makes `name` the current row (showing every row again when a filter hides it); false when the report
  /// has no such tensor.
  bool selectTensor(const QString &name);

Q_SIGNALS:
  /// A load finished: `ok` false when the report could not be read (error() says why).
  void loaded(bool ok);

protected:
  void changeEvent(QEvent *event) override;
  void resizeEvent(QResizeEvent *event) override;

private:
  void showReport(std::shared_ptr<const vis::CalibrationReport> report);
  void showError(const QString &error);
  void updateBanner();
  void fitColumns();
  /// Gives the table its width (at most 45 % of the view) and the charts the rest, until the user moves the
  /// splitter.
  void balance();

  StudioContext *m_context;
  QString m_folder;
  qint64 m_tableId;
  QString m_error;
  std::shared_ptr<const vis::CalibrationReport> m_report;
  quint64 m_generation = 0; ///< bumped by every load: a superseded read is dropped
  ActivationStatsModel *m_model;
  ActivationStatsFilter *m_filter;
  QLabel *m_banner;
  QLineEdit *m_search;
  QCheckBox *m_onlyUnsettled;
  QTableView *m_table;
  QTabWidget *m_charts;
  QSplitter *m_splitter;
  bool m_userSized = false;
  vis::CalibrationTensorFigure *m_figure;
  vis::CalibrationOverviewFigure *m_overview;
  bool m_publishing = false; ///< a selection this view publishes is not followed back
  bool m_quiet = false;      ///< a row chosen by the view itself (after a load) is not published
};

} // namespace tpuc::ui

#endif
