// The activation statistics table model and its filter proxy.
#include "ui/views/ActivationStatsModel.h"

#include "visualizer/CalibrationCharts.h"

#include <QColor>
#include <QFont>

#include <cmath>
#include <limits>

namespace tpuc::ui {

ActivationStatsModel::ActivationStatsModel(QObject *parent) : QAbstractTableModel(parent) {}

void ActivationStatsModel::setReport(std::shared_ptr<const vis::CalibrationReport> report) {
  beginResetModel();
  m_report = std::move(report);
  endResetModel();
}

int ActivationStatsModel::rowCount(const QModelIndex &parent) const {
  return parent.isValid() || !m_report ? 0 : static_cast<int>(m_report->tensors.size());
}

int ActivationStatsModel::columnCount(const QModelIndex &parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ActivationStatsModel::data(const QModelIndex &index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_report)
    return {};
  const vis::TensorReport &t = m_report->tensors[index.row()];
  const bool settled = m_report->settled(t);
  const double threshold = t.threshold(m_report->highlightedMethod());
  if (role == SortRole) {
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    switch (index.column()) {
    case Order:
      return index.row();
    case Name:
      return t.name;
    case Threshold:
      return threshold;
    case Min:
      return t.min;
    case Max:
      return t.max;
    case StableAfter:
      return t.stableAfter > 0 ? static_cast<double>(t.stableAfter) : kNaN;
    case Settled:
      return settled ? 1 : 0;
    default:
      return {};
    }
  }
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
    case Order:
      return index.row() + 1;
    case Name:
      return t.name;
    case Threshold:
      return vis::thresholdText(threshold);
    case Min:
      return vis::thresholdText(t.min);
    case Max:
      return vis::thresholdText(t.max);
    case StableAfter:
      return t.stableAfter > 0 ? QVariant(t.stableAfter) : QVariant(QStringLiteral("–"));
    case Settled:
      return settled ? tr("settled") : tr("not settled");
    default:
      return {};
    }
  }
  if (role == Qt::TextAlignmentRole && index.column() != Name && index.column() != Settled)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ForegroundRole && index.column() == Settled && !settled)
    return QColor(0xd5, 0x5e, 0x00);
  if (role == Qt::FontRole && index.column() == Settled && !settled) {
    QFont bold;
    bold.setBold(true);
    return bold;
  }
  if (role == Qt::ToolTipRole) {
    if (index.column() == Settled || index.column() == StableAfter)
      return settled
                 ? tr("Within %1 % of its final value from %2 of %3 samples on")
                       .arg(m_report->tolerance * 100, 0, 'g', 3)
                       .arg(t.stableAfter)
                       .arg(m_report->samples)
                 : tr("Settled only after %1 of %2 samples: fewer than a quarter of the samples confirm it — "
                      "add more samples")
                       .arg(t.stableAfter)
                       .arg(m_report->samples);
    if (index.column() == Name)
      return t.name;
  }
  return {};
}

QVariant ActivationStatsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal)
    return {};
  const QString method = m_report ? m_report->highlightedMethod() : QStringLiteral("chosen");
  if (role == Qt::DisplayRole) {
    switch (section) {
    case Order:
      return QStringLiteral("#");
    case Name:
      return tr("Tensor");
    case Threshold:
      return tr("%1 threshold").arg(method);
    case Min:
      return tr("Min");
    case Max:
      return tr("Max");
    case StableAfter:
      return tr("Settled after");
    case Settled:
      return tr("Status");
    default:
      return {};
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
    case Threshold:
      return tr("The threshold the %1 method picked over all samples").arg(method);
    case StableAfter:
      return tr("The sample count from which the threshold stays within the tolerance of its final value");
    case Settled:
      return tr("Not settled: the threshold moved within the last quarter of the samples, so more samples "
                "could still "
                "move it");
    default:
      return {};
    }
  }
  return {};
}

ActivationStatsFilter::ActivationStatsFilter(QObject *parent) : QSortFilterProxyModel(parent) {
  setSortRole(ActivationStatsModel::SortRole);
}

void ActivationStatsFilter::setNameFilter(const QString &text) {
  m_name = text;
  invalidateFilter();
}

void ActivationStatsFilter::setOnlyUnsettled(bool only) {
  m_onlyUnsettled = only;
  invalidateFilter();
}

bool ActivationStatsFilter::filterAcceptsRow(int sourceRow, const QModelIndex &) const {
  auto *model = qobject_cast<const ActivationStatsModel *>(sourceModel());
  if (!model || !model->report())
    return true;
  const vis::TensorReport &t = model->report()->tensors[sourceRow];
  if (m_onlyUnsettled && model->report()->settled(t))
    return false;
  return m_name.isEmpty() || t.name.contains(m_name, Qt::CaseInsensitive);
}

bool ActivationStatsFilter::lessThan(const QModelIndex &left, const QModelIndex &right) const {
  const QVariant a = left.data(sortRole()), b = right.data(sortRole());
  if (a.typeId() == QMetaType::QString)
    return QString::compare(a.toString(), b.toString(), Qt::CaseInsensitive) < 0;
  const double x = a.toDouble(), y = b.toDouble();
  // NaN (no value) last in ascending order.
  if (std::isnan(x) || std::isnan(y))
    return !std::isnan(x) && std::isnan(y);
  return x < y;
}

} // namespace tpuc::ui
