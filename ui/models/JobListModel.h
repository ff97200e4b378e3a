// The jobs panel's item model: one row per job of a JobQueue.
#ifndef TPUC_UI_MODELS_JOBLISTMODEL_H
#define TPUC_UI_MODELS_JOBLISTMODEL_H

#include <QAbstractTableModel>

namespace tpuc::ui {

class JobQueue;

/// Rows follow the queue's job list (jobs are only appended, so rows are stable); the internal id
/// of an index is the job id.
class JobListModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { TitleColumn, StateColumn, ProgressColumn, MessageColumn, ColumnCount };
  enum Role { JobIdRole = Qt::UserRole + 1, FractionRole };

  explicit JobListModel(JobQueue *queue, QObject *parent = nullptr);

  QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
  int rowCount(const QModelIndex &parent = {}) const override;
  int columnCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  JobQueue *m_queue;
};

} // namespace tpuc::ui

#endif
