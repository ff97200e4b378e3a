// Thin item models over an immutable ChipRun: the layer groups, one group's time steps and the planner's
// reasons for its cuts. A new run is a model reset; the row is the domain index (group id, stage, cut).
#ifndef TPUC_VISUALIZER_CHIPMODELS_H
#define TPUC_VISUALIZER_CHIPMODELS_H

#include "tpuc/ChipData/Run.h"

#include <QAbstractTableModel>

#include <memory>

namespace tpuc::vis {

/// Sort role shared by the models: the raw number behind a cell (text columns sort by text).
constexpr int kChipSortRole = Qt::UserRole + 1;

/// One row per layer group (or global op) of the plan.
class GroupTableModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { Id, Kind, Ops, Cycles, Bound, Tiu, Gdma, LmemPeak, LmemShare, LowerBound, DdrBytes, Slicing, Steps,
                FirstOp, ColumnCount };
  explicit GroupTableModel(QObject *parent = nullptr);
  void setRun(std::shared_ptr<const chip::ChipRun> run);
  const chip::ChipRun *run() const { return m_run.get(); }

  int rowCount(const QModelIndex &parent = {}) const override;
  int columnCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
  std::shared_ptr<const chip::ChipRun> m_run;
};

/// The pipeline stages of one group: load ‖ compute ‖ store, cycles per engine, the bottleneck.
class StepTableModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { Stage, Load, Compute, Store, Weights, Tiu, Gdma, Cycles, Bottleneck, ColumnCount };
  explicit StepTableModel(QObject *parent = nullptr);
  void setGroup(std::shared_ptr<const chip::ChipRun> run, int group);
  int group() const { return m_group; }

  int rowCount(const QModelIndex &parent = {}) const override;
  int columnCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
  std::shared_ptr<const chip::ChipRun> m_run;
  int m_group = -1;
};

/// The planner's reasons: all of them, or those of one group.
class CutListModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { Group, Where, Reason, Message, ColumnCount };
  explicit CutListModel(QObject *parent = nullptr);
  /// `group` < 0: every cut of the plan.
  void setRun(std::shared_ptr<const chip::ChipRun> run, int group = -1);
  /// The cut of a row (index into Plan::cuts).
  int cutAt(int row) const { return row >= 0 && row < static_cast<int>(m_rows.size()) ? m_rows[row] : -1; }

  int rowCount(const QModelIndex &parent = {}) const override;
  int columnCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
  std::shared_ptr<const chip::ChipRun> m_run;
  std::vector<int> m_rows;
};

} // namespace tpuc::vis

#endif
