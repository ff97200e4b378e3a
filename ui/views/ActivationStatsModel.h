// The activation statistics view's item models: one row per tensor of a calibration report, and the
// filter/sort proxy.
#ifndef TPUC_UI_VIEWS_ACTIVATIONSTATSMODEL_H
#define TPUC_UI_VIEWS_ACTIVATIONSTATSMODEL_H

#include "visualizer/CalibrationReport.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <memory>

namespace tpuc::ui {

/// A thin table over an immutable report (a new report = model reset); the row is the tensor's index in
/// the report (graph order).
class ActivationStatsModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { Order, Name, Threshold, Min, Max, StableAfter, Settled, ColumnCount };
  /// The number to sort by (NaN sorts last; Settled sorts not-settled first).
  static constexpr int SortRole = Qt::UserRole;

  explicit ActivationStatsModel(QObject *parent = nullptr);

  void setReport(std::shared_ptr<const vis::CalibrationReport> report);
  const std::shared_ptr<const vis::CalibrationReport> &report() const { return m_report; }

  int rowCount(const QModelIndex &parent = {}) const override;
  int columnCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
  std::shared_ptr<const vis::CalibrationReport> m_report;
};

/// A name filter (case-insensitive substring) and "only the tensors that did not settle"; sorts by
/// SortRole.
class ActivationStatsFilter : public QSortFilterProxyModel {
  Q_OBJECT
public:
  explicit ActivationStatsFilter(QObject *parent = nullptr);
  void setNameFilter(const QString &text);
  void setOnlyUnsettled(bool only);
  bool onlyUnsettled() const { return m_onlyUnsettled; }

protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
  bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
  QString m_name;
  bool m_onlyUnsettled = false;
};

} // namespace tpuc::ui

#endif
