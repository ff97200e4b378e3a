// The layer-group view: every group in a sortable table and a strip, and the selected group's LMEM chart,
// pipeline stages, slices over the tensor shapes and the planner's reasons for its boundaries.
#ifndef TPUC_VISUALIZER_LAYERGROUPVIEW_H
#define TPUC_VISUALIZER_LAYERGROUPVIEW_H

#include "visualizer/ChipModels.h"
#include "visualizer/ChipWidgets.h"

#include <QSortFilterProxyModel>
#include <QWidget>

class QCheckBox;
class QLabel;
class QTableView;
class QTabWidget;

namespace tpuc::vis {

/// Sorts by kChipSortRole (numbers numerically).
class ChipSortProxy : public QSortFilterProxyModel {
  Q_OBJECT
public:
  explicit ChipSortProxy(QObject *parent = nullptr);

protected:
  bool lessThan(const QModelIndex &a, const QModelIndex &b) const override;
};

class LayerGroupView : public QWidget {
  Q_OBJECT
public:
  explicit LayerGroupView(QWidget *parent = nullptr);
  void setRun(std::shared_ptr<const chip::ChipRun> run);
  /// Shows group `group` in the detail (and selects its row) without emitting.
  void selectGroup(int group);
  int selectedGroup() const { return m_group; }
  /// Selects the group holding the op (tensor name) and highlights its buffers; false when the plan has no
  /// such op.
  bool selectOp(const QString &name);

  GroupTableModel *groupModel() const { return m_groups; }
  StepTableModel *stepModel() const { return m_steps; }
  CutListModel *cutModel() const { return m_cuts; }
  QTableView *groupTable() const { return m_table; }
  LmemChartWidget *lmemChart() const { return m_lmem; }
  GroupStripWidget *strip() const { return m_strip; }
  SliceShapeWidget *sliceShape() const { return m_slices; }
  QTabWidget *detailTabs() const { return m_detail; }

Q_SIGNALS:
  /// The user selected a group: its ops (tensor names, in order).
  void groupSelected(int group, const QStringList &ops);
  /// The user clicked a buffer or a reason: the op it belongs to.
  void opSelected(const QString &name);

private:
  void showGroup(int group);
  void updateSummary();
  std::shared_ptr<const chip::ChipRun> m_run;
  GroupTableModel *m_groups;
  ChipSortProxy *m_groupProxy;
  StepTableModel *m_steps;
  CutListModel *m_cuts;
  QTableView *m_table, *m_stepTable, *m_cutTable;
  GroupStripWidget *m_strip;
  LmemChartWidget *m_lmem;
  SliceShapeWidget *m_slices;
  QTabWidget *m_detail;
  QCheckBox *m_allCuts, *m_fit;
  QLabel *m_summary;
  int m_group = -1;
  bool m_updating = false;
};

} // namespace tpuc::vis

#endif
