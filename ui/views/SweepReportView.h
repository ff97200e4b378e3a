// A model-zoo sweep's report (`tpuc sweep`, issue 26): one row per cell (model, precision, chip) with the
// columns of report.html, regressions against the previous sweep highlighted and sorted first; a cell opens
// its run (its per-layer accuracy, else its folder).
#ifndef TPUC_UI_VIEWS_SWEEPREPORTVIEW_H
#define TPUC_UI_VIEWS_SWEEPREPORTVIEW_H

#include "tpuc/Driver/Sweep.h"

#include <QAbstractTableModel>
#include <QWidget>

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace tpuc::ui {

/// The cells of one report, immutable until the next setReport (a model reset). Row order is the
/// report's (regressions first when it was compared).
class SweepReportModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column {
    Index,
    Model,
    Precision,
    Chip,
    Status,
    Regression,
    MinCosine,
    Outputs,
    FirstDivergent,
    Latency,
    Compile,
    PeakRss,
    Error,
    ColumnCount
  };
  /// The value to sort by (numbers for the numeric columns).
  static constexpr int SortRole = Qt::UserRole;
  /// Whether the row is a regression (bool).
  static constexpr int RegressionRole = Qt::UserRole + 1;

  explicit SweepReportModel(QObject *parent = nullptr) : QAbstractTableModel(parent) {}
  void setReport(driver::SweepReport report);
  const driver::SweepReport &report() const { return m_report; }

  int rowCount(const QModelIndex &parent = {}) const override;
  int columnCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
  driver::SweepReport m_report;
};

class SweepReportView : public QWidget {
  Q_OBJECT
public:
  /// Reads `reportPath` (report.json of a sweep folder) off the UI thread; loaded() tells when.
  explicit SweepReportView(const QString &reportPath, QWidget *parent = nullptr);

  QString reportPath() const { return m_path; }
  bool isLoaded() const { return m_loaded; }
  QString error() const { return m_error; }
  SweepReportModel *model() const { return m_model; }
  QTableView *table() const { return m_table; }
  QLabel *summary() const { return m_summary; }
  /// Asks to open the cell of the report's row `row` (cellRequested); false when there is no such row.
  bool openCell(int row);

Q_SIGNALS:
  void loaded(const QString &error);
  /// Open a cell's run: `accuracyFile` its deploy's per-layer comparison ("" when it has none), `folder`
  /// its run folder, `title` "model/precision/chip".
  void cellRequested(const QString &accuracyFile, const QString &folder, const QString &title);

private:
  void show(driver::SweepReport report);

  QString m_path;
  bool m_loaded = false;
  QString m_error;
  QLabel *m_summary;
  SweepReportModel *m_model;
  QSortFilterProxyModel *m_proxy;
  QTableView *m_table;
  QPushButton *m_open;
};

} // namespace tpuc::ui

#endif
