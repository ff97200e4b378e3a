// Editable item models over calibration and quantize tables.
#include "ui/models/TableModels.h"

#include <algorithm>

namespace tpuc::ui {

namespace {

template <typename T> const T *findTable(const std::vector<T> &tables, qint64 id) {
  auto it = std::find_if(tables.begin(), tables.end(), [id](const T &t) { return t.id == id; });
  return it == tables.end() ? nullptr : &*it;
}

/// Resets `model` whenever the project is replaced or the watched section changes. Table edits are
/// small, so a reset is cheaper to get right than diffing rows.
void followContext(QAbstractItemModel *model, StudioContext *context, Section section,
                   const std::function<void()> &begin, const std::function<void()> &end) {
  QObject::connect(context, &StudioContext::projectChanged, model, [=](Section changed) {
    if (changed == section) {
      begin();
      end();
    }
  });
  QObject::connect(context, &StudioContext::projectLoaded, model, [=] { begin(); end(); });
  QObject::connect(context, &StudioContext::projectClosed, model, [=] { begin(); end(); });
}

} // namespace

// --- CaliTableModel -------------------------------------------------------------------------------

CaliTableModel::CaliTableModel(StudioContext *context, qint64 tableId, QObject *parent)
    : QAbstractTableModel(parent), m_context(context), m_tableId(tableId) {
  followContext(this, context, Section::CaliTables, [this] { beginResetModel(); }, [this] { endResetModel(); });
}

const project::CaliTable *CaliTableModel::table() const {
  return findTable(m_context->project().caliTables, m_tableId);
}

int CaliTableModel::rowCount(const QModelIndex &parent) const {
  const project::CaliTable *t = table();
  return parent.isValid() || !t ? 0 : static_cast<int>(t->entries.size());
}

int CaliTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CaliTableModel::data(const QModelIndex &index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const project::CaliEntry &e = table()->entries[index.row()];
  if (role == Qt::TextAlignmentRole && index.column() != OpColumn)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole && role != Qt::EditRole)
    return {};
  switch (index.column()) {
  case OpColumn: return QString::fromStdString(e.opName);
  case ThresholdColumn: return e.threshold;
  case MinColumn: return e.min;
  case MaxColumn: return e.max;
  default: return {};
  }
}

bool CaliTableModel::setData(const QModelIndex &index, const QVariant &value, int role) {
  if (role != Qt::EditRole || index.column() == OpColumn ||
      !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return false;
  bool ok = false;
  double number = value.toDouble(&ok);
  if (!ok)
    return false;
  project::CaliEntry e = table()->entries[index.row()];
  (index.column() == ThresholdColumn ? e.threshold : index.column() == MinColumn ? e.min : e.max) = number;
  if (e.min > e.max)
    return false; // an inverted range is never a valid calibration
  m_context->setCaliEntry(m_tableId, index.row(), e);
  return true;
}

Qt::ItemFlags CaliTableModel::flags(const QModelIndex &index) const {
  Qt::ItemFlags f = QAbstractTableModel::flags(index);
  if (index.isValid() && index.column() != OpColumn)
    f |= Qt::ItemIsEditable;
  return f;
}

QVariant CaliTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
  case OpColumn: return tr("Op");
  case ThresholdColumn: return tr("Threshold");
  case MinColumn: return tr("Min");
  case MaxColumn: return tr("Max");
  default: return {};
  }
}

// --- QuantTableModel ------------------------------------------------------------------------------

QuantTableModel::QuantTableModel(StudioContext *context, qint64 tableId, QObject *parent)
    : QAbstractTableModel(parent), m_context(context), m_tableId(tableId) {
  followContext(this, context, Section::QuantTables, [this] { beginResetModel(); }, [this] { endResetModel(); });
}

QStringList QuantTableModel::modes() { return {"F32", "F16", "BF16", "INT8", "INT4", "W8F16", "W4F16", "W8BF16", "W4BF16"}; }

const project::QuantTable *QuantTableModel::table() const {
  return findTable(m_context->project().quantTables, m_tableId);
}

int QuantTableModel::rowCount(const QModelIndex &parent) const {
  const project::QuantTable *t = table();
  return parent.isValid() || !t ? 0 : static_cast<int>(t->entries.size());
}

int QuantTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant QuantTableModel::data(const QModelIndex &index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  if (role != Qt::DisplayRole && role != Qt::EditRole)
    return {};
  const project::QuantEntry &e = table()->entries[index.row()];
  return QString::fromStdString(index.column() == OpColumn ? e.opName : e.mode);
}

bool QuantTableModel::setData(const QModelIndex &index, const QVariant &value, int role) {
  if (role != Qt::EditRole || index.column() != ModeColumn ||
      !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return false;
  QString mode = value.toString().trimmed().toUpper();
  if (!modes().contains(mode))
    return false;
  project::QuantEntry e = table()->entries[index.row()];
  e.mode = mode.toStdString();
  m_context->setQuantEntry(m_tableId, index.row(), e);
  return true;
}

Qt::ItemFlags QuantTableModel::flags(const QModelIndex &index) const {
  Qt::ItemFlags f = QAbstractTableModel::flags(index);
  if (index.isValid() && index.column() == ModeColumn)
    f |= Qt::ItemIsEditable;
  return f;
}

QVariant QuantTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  return section == OpColumn ? tr("Op") : tr("Mode");
}

} // namespace tpuc::ui
