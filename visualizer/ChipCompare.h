// Two compile configurations side by side (e.g. opt 1 vs opt 2, INT8 vs F16): their totals with deltas,
// and per op (matched by tensor name) the group each put it in and its cycles.
#ifndef TPUC_VISUALIZER_CHIPCOMPARE_H
#define TPUC_VISUALIZER_CHIPCOMPARE_H

#include "tpuc/ChipData/Run.h"

#include <QAbstractTableModel>
#include <QWidget>

class QLabel;
class QTableView;

namespace tpuc::vis {

/// Totals of two runs: metric, A, B, delta (B relative to A).
class CompareTotalsModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { Metric, A, B, Delta, ColumnCount };
  struct Row {
    QString metric;
    double a = 0, b = 0;
    bool haveA = false, haveB = false;
    QString unit; ///< "cycles", "bytes", "%", "" (count)
    bool lowerIsBetter = true;
  };
  explicit CompareTotalsModel(QObject *parent = nullptr);
  void setRuns(std::shared_ptr<const chip::ChipRun> a, std::shared_ptr<const chip::ChipRun> b);
  const std::vector<Row> &rows() const { return m_rows; }

  int rowCount(const QModelIndex &parent = {}) const override;
  int columnCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
  std::vector<Row> m_rows;
  double m_mhzA = 0, m_mhzB = 0;
};

/// Per op present in either plan: group and estimated TIU cycles in each, and the delta.
class CompareOpsModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { Op, GroupA, GroupB, CyclesA, CyclesB, Delta, ColumnCount };
  struct Row {
    QString op;
    int groupA = -1, groupB = -1;
    qint64 cyclesA = -1, cyclesB = -1;
  };
  explicit CompareOpsModel(QObject *parent = nullptr);
  void setRuns(std::shared_ptr<const chip::ChipRun> a, std::shared_ptr<const chip::ChipRun> b);
  const std::vector<Row> &rows() const { return m_rows; }

  int rowCount(const QModelIndex &parent = {}) const override;
  int columnCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
  std::vector<Row> m_rows;
};

class ChipCompareView : public QWidget {
  Q_OBJECT
public:
  explicit ChipCompareView(QWidget *parent = nullptr);
  void setRuns(std::shared_ptr<const chip::ChipRun> a, const QString &nameA, std::shared_ptr<const chip::ChipRun> b,
               const QString &nameB);
  CompareTotalsModel *totals() const { return m_totals; }
  CompareOpsModel *ops() const { return m_ops; }
  QTableView *opTable() const { return m_opTable; }

Q_SIGNALS:
  void opSelected(const QString &name);

private:
  CompareTotalsModel *m_totals;
  CompareOpsModel *m_ops;
  QTableView *m_totalTable, *m_opTable;
  QLabel *m_title;
};

} // namespace tpuc::vis

#endif
