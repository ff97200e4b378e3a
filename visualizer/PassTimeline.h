// The pass timeline of a recorded pipeline run: one row per pass with its wall time and op counts.
#ifndef TPUC_VISUALIZER_PASSTIMELINE_H
#define TPUC_VISUALIZER_PASSTIMELINE_H

#include "tpuc/PassData/PassSnapshots.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QWidget>

class QCheckBox;
class QLabel;
class QTableView;

namespace tpuc::vis {

/// A thin model over a PassRun (immutable; a new run is a model reset). Row = snapshot index.
class PassTimelineModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { Index, Pass, Anchor, Time, Ops, Added, Removed, Changed, ColumnCount };
  /// Sort/filter roles: the raw number behind a cell, and whether the pass changed anything.
  static constexpr int kValueRole = Qt::UserRole + 1;
  static constexpr int kChangedRole = Qt::UserRole + 2;

  explicit PassTimelineModel(QObject *parent = nullptr);
  void setRun(PassRun run);
  const PassRun &run() const { return m_run; }
  double maxWallMs() const { return m_maxMs; }

  int rowCount(const QModelIndex &parent = {}) const override;
  int columnCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
  PassRun m_run;
  double m_maxMs = 0;
};

/// Hides passes that changed nothing (no op added, removed or changed and the same text) when asked.
class PassTimelineFilter : public QSortFilterProxyModel {
  Q_OBJECT
public:
  using QSortFilterProxyModel::QSortFilterProxyModel;
  void setHideUnchanged(bool hide);
  bool hideUnchanged() const { return m_hide; }

protected:
  bool filterAcceptsRow(int row, const QModelIndex &parent) const override;

private:
  bool m_hide = false;
};

/// The table with a "Hide passes that changed nothing" switch and a summary line; wall time is drawn
/// as a bar relative to the slowest pass.
class PassTimeline : public QWidget {
  Q_OBJECT
public:
  explicit PassTimeline(QWidget *parent = nullptr);
  void setRun(PassRun run);
  const PassRun &run() const { return m_model->run(); }
  /// Selects a snapshot (a hidden one shows all passes again); -1 clears.
  void selectSnapshot(int index);
  int selectedSnapshot() const;
  void setHideUnchanged(bool hide);
  /// Rows shown (after filtering).
  int visibleRows() const;
  QTableView *table() const { return m_table; }

Q_SIGNALS:
  /// The user or selectSnapshot picked a snapshot (its index in the run), -1 when none.
  void snapshotSelected(int index);

private:
  PassTimelineModel *m_model;
  PassTimelineFilter *m_filter;
  QTableView *m_table;
  QCheckBox *m_hide;
  QLabel *m_summary;
};

} // namespace tpuc::vis

#endif
