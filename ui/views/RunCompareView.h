// Two runs side by side (issue 22, item 5): what differs between their manifests (`tpuc runs diff --format
// json`), per layer accuracy and simulated cycles of both with the change, and the cosine of both along the
// graph.
#ifndef TPUC_UI_VIEWS_RUNCOMPAREVIEW_H
#define TPUC_UI_VIEWS_RUNCOMPAREVIEW_H

#include "tpuc/Driver/Manifest.h"
#include "ui/StudioContext.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QWidget>

#include <vector>

class QChartView;
class QCheckBox;
class QLabel;
class QLineEdit;
class QTableView;
class QTreeWidget;

namespace tpuc::ui {

class EngineCall;

/// One layer of two runs: cosines from the runs diff (accumulated, isolated), TIU cycles from the runs'
/// engine traces as the run history recorded them. NaN where a run lacks the value.
struct CompareLayerRow {
  QString name;
  double aCosine, bCosine, aIsolated, bIsolated, aCycles, bCycles;
};

/// The layers of two runs: A's in order, then B's own (as `tpuc runs diff`), then layers that only have
/// cycles. Rows are immutable until the next setRows (a model reset).
class RunCompareModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column {
    Name,
    ACosine,
    BCosine,
    DeltaCosine,
    AIsolated,
    BIsolated,
    ACycles,
    BCycles,
    DeltaCycles,
    ColumnCount
  };
  /// The number to sort by (NaN sorts last in both orders through the proxy).
  static constexpr int SortRole = Qt::UserRole;

  explicit RunCompareModel(QObject *parent = nullptr) : QAbstractTableModel(parent) {}
  void setRows(std::vector<CompareLayerRow> rows);
  const std::vector<CompareLayerRow> &rows() const { return m_rows; }

  int rowCount(const QModelIndex &parent = {}) const override;
  int columnCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
  std::vector<CompareLayerRow> m_rows;
};

/// Name search and "only layers that changed" (cosine by more than 1e-6, or cycles).
class RunCompareFilter : public QSortFilterProxyModel {
  Q_OBJECT
public:
  explicit RunCompareFilter(QObject *parent = nullptr);
  void setOnlyChanged(bool on);
  void setNameFilter(const QString &text);

protected:
  bool filterAcceptsRow(int row, const QModelIndex &parent) const override;
  bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
  bool m_onlyChanged = false;
  QString m_name;
};

/// The rows of two runs: `diff`'s layers with each run's cycles — the diff's own (its engine trace) for a
/// side whose latency the diff has, else the run's recorded cycles (runLayerValues "cycles") joined by name;
/// layers with cycles only follow. Without accuracy layers in the diff, the runs' own recorded cosines.
std::vector<CompareLayerRow> compareRows(const driver::RunsDiff &diff, const project::RunRecord &a,
                                         const project::RunRecord &b);

/// A central tab comparing run A (the earlier) with run B. Runs `tpuc runs diff --format json` on their
/// manifests through the engine client and reads the answer off the UI thread.
class RunCompareView : public QWidget {
  Q_OBJECT
public:
  RunCompareView(StudioContext *context, qint64 runA, qint64 runB, QWidget *parent = nullptr);
  ~RunCompareView() override;
  qint64 runA() const { return m_runA; }
  qint64 runB() const { return m_runB; }
  bool isLoaded() const { return m_loaded; }
  /// Empty when the diff was read.
  QString error() const { return m_error; }
  const driver::RunsDiff &diff() const { return m_diff; }
  RunCompareModel *model() const { return m_model; }
  RunCompareFilter *filter() const { return m_filter; }
  QTableView *table() const { return m_table; }
  QTreeWidget *differences() const { return m_differences; }
  QChartView *chart() const { return m_chart; }
  QLabel *summary() const { return m_summary; }

Q_SIGNALS:
  /// The comparison is shown (or failed: `error` non-empty).
  void loaded(const QString &error);

private:
  void start();
  void show(const driver::RunsDiff &diff);
  void fail(const QString &message);
  void rebuildChart();

  StudioContext *m_context;
  qint64 m_runA, m_runB;
  driver::RunsDiff m_diff;
  bool m_loaded = false;
  QString m_error;
  QLabel *m_summary;
  QTreeWidget *m_differences;
  RunCompareModel *m_model;
  RunCompareFilter *m_filter;
  QTableView *m_table;
  QLineEdit *m_search;
  QCheckBox *m_onlyChanged;
  QChartView *m_chart;
  EngineCall *m_call = nullptr;
};

} // namespace tpuc::ui

#endif
