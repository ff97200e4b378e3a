// The jobs panel's item model.
#include "ui/models/JobListModel.h"

#include "ui/jobs/JobQueue.h"

#include <QLocale>

namespace tpuc::ui {

JobListModel::JobListModel(JobQueue *queue, QObject *parent) : QAbstractTableModel(parent), m_queue(queue) {
  connect(queue, &JobQueue::jobAboutToBeAdded, this, [this](int row) { beginInsertRows({}, row, row); });
  connect(queue, &JobQueue::jobAdded, this, [this] { endInsertRows(); });
  connect(queue, &JobQueue::jobChanged, this, [this](int id) {
    const auto &jobs = m_queue->jobs();
    for (int row = 0; row < jobs.size(); ++row)
      if (jobs[row].id == id)
        Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
  });
}

QModelIndex JobListModel::index(int row, int column, const QModelIndex &parent) const {
  if (!hasIndex(row, column, parent))
    return {};
  return createIndex(row, column, static_cast<quintptr>(m_queue->jobs()[row].id));
}

int JobListModel::rowCount(const QModelIndex &parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_queue->jobs().size());
}

int JobListModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant JobListModel::data(const QModelIndex &index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const JobInfo &job = m_queue->jobs()[index.row()];
  if (role == JobIdRole)
    return job.id;
  if (role == FractionRole)
    return job.fraction;
  if (role == Qt::ToolTipRole)
    return job.error.isEmpty() ? job.message : job.error;
  if (role != Qt::DisplayRole)
    return {};
  switch (index.column()) {
  case TitleColumn: return job.spec.title;
  case StateColumn: return jobStateName(job.state);
  case ProgressColumn:
    if (job.fraction < 0)
      return job.stage;
    return job.stage.isEmpty() ? QLocale().toString(job.fraction * 100, 'f', 0) + QLatin1Char('%')
                               : tr("%1 %2%").arg(job.stage, QLocale().toString(job.fraction * 100, 'f', 0));
  case MessageColumn: return job.error.isEmpty() ? job.message : job.error.section(QLatin1Char('\n'), 0, 0);
  default: return {};
  }
}

QVariant JobListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
  case TitleColumn: return tr("Job");
  case StateColumn: return tr("State");
  case ProgressColumn: return tr("Progress");
  case MessageColumn: return tr("Message");
  default: return {};
  }
}

} // namespace tpuc::ui
