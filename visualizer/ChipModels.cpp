// Item models of the layer-group view.
#include "visualizer/ChipModels.h"

#include "visualizer/ChipStyle.h"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace tpuc::vis {

using namespace tpuc::chip;

namespace {

QString sliceText(int s) { return s >= 0 ? QStringLiteral("slice %1").arg(s) : QString(); }

/// Memory-bound marks: warm, readable on light and dark backgrounds.
QColor boundColor(bool memory) { return memory ? QColor(214, 110, 20) : QColor(30, 150, 100); }

} // namespace

// --- GroupTableModel ------------------------------------------------------------------------------

GroupTableModel::GroupTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void GroupTableModel::setRun(std::shared_ptr<const ChipRun> run) {
  beginResetModel();
  m_run = std::move(run);
  endResetModel();
}

int GroupTableModel::rowCount(const QModelIndex &parent) const {
  const Plan *p = m_run ? m_run->plan() : nullptr;
  return parent.isValid() || !p ? 0 : static_cast<int>(p->groups.size());
}

int GroupTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant GroupTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal)
    return {};
  static const char *names[] = {"#",         "kind",        "ops",        "cycles",      "bound by",
                                "TIU cycles", "GDMA cycles", "LMEM peak",  "of capacity", "lower bound",
                                "DDR bytes",  "slices n×c×h×w", "steps",   "ops (first – last)"};
  static const char *tips[] = {
      "Group index in execution order",
      "An LMEM group, a global op that runs through DDR, or a control-flow step (if branch / else / join, "
      "loop "
      "init / back: a branch on a DDR value and the copies of the values it hands over)",
      "Number of ops in the group",
      "Planned cycles: per stage the busier engine",
      "compute: TIU busier; memory: GDMA busier",
      "TIU (compute engine) busy cycles",
      "GDMA (DMA engine) busy cycles",
      "Highest LMEM address used, per lane",
      "LMEM peak as a share of the lane",
      "Most bytes live at one time step: no placement can use less",
      "Bytes moved between DDR and LMEM",
      "How the group's outputs are cut: slices per N, C, H and W",
      "Pipeline stages: slices + 2 (load, compute and store overlap)",
      "The group's first and last op"};
  if (role == Qt::DisplayRole && section >= 0 && section < ColumnCount)
    return QString::fromUtf8(names[section]);
  if (role == Qt::ToolTipRole && section >= 0 && section < ColumnCount)
    return QString::fromUtf8(tips[section]);
  return {};
}

QVariant GroupTableModel::data(const QModelIndex &index, int role) const {
  const Plan *p = m_run ? m_run->plan() : nullptr;
  if (!p || !index.isValid() || index.row() >= static_cast<int>(p->groups.size()))
    return {};
  const Group &g = p->groups[index.row()];
  auto opName = [&](int op) { return op >= 0 ? QString::fromStdString(p->ops[op].name) : QString(); };
  const double share = p->chip.lmemBytesPerLane ? static_cast<double>(g.lmemPeak) / p->chip.lmemBytesPerLane : 0;
  if (role == kChipSortRole) {
    switch (index.column()) {
    case Id:
      return g.id;
    case Ops:
      return static_cast<qlonglong>(g.ops.size());
    case Steps:
      return static_cast<qlonglong>(g.steps.size());
    case Tiu:
      return static_cast<qlonglong>(g.tiuCycles);
    case Gdma:
      return static_cast<qlonglong>(g.gdmaCycles);
    case Cycles:
      return static_cast<qlonglong>(g.cycles);
    case DdrBytes:
      return static_cast<qlonglong>(g.ddrBytes);
    case LmemPeak:
      return static_cast<qlonglong>(g.lmemPeak);
    case LmemShare:
      return share;
    case LowerBound:
      return static_cast<qlonglong>(g.lmemLowerBound);
    case Slicing:
      return static_cast<qlonglong>(g.cuts[0] * g.cuts[1] * g.cuts[2] * g.cuts[3]);
    default:
      break;
    }
    return data(index, Qt::DisplayRole);
  }
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
    case Id:
      return g.id;
    case Kind:
      if (!g.control.empty()) // "loop_back" -> "loop back"
        return QString::fromStdString(g.control).replace(QLatin1Char('_'), QLatin1Char(' '));
      return g.global ? QStringLiteral("global") : QStringLiteral("LMEM");
    case Ops:
      return static_cast<qlonglong>(g.ops.size());
    case FirstOp:
      if (g.ops.empty())
        return QString();
      return g.ops.size() == 1 ? opName(g.ops.front()) : opName(g.ops.front()) + QStringLiteral(" – ") + opName(g.ops.back());
    case Slicing:
      return g.global ? QString() : QStringLiteral("%1×%2×%3×%4").arg(g.cuts[0]).arg(g.cuts[1]).arg(g.cuts[2]).arg(g.cuts[3]);
    case Steps:
      return g.global ? QVariant() : QVariant(static_cast<qlonglong>(g.steps.size()));
    case Tiu:
      return groupedNumber(g.tiuCycles);
    case Gdma:
      return groupedNumber(g.gdmaCycles);
    case Cycles:
      return groupedNumber(g.cycles);
    case DdrBytes:
      return byteSize(g.ddrBytes);
    case LmemPeak:
      return g.global ? QString() : byteSize(g.lmemPeak);
    case LmemShare:
      return g.global ? QString() : QStringLiteral("%1 %").arg(100 * share, 0, 'f', 1);
    case LowerBound:
      return g.global ? QString() : byteSize(g.lmemLowerBound);
    case Bound:
      if (g.cycles == 0)
        return QStringLiteral("in place");
      return g.memoryBound() ? QStringLiteral("memory") : QStringLiteral("compute");
    }
  }
  if (role == Qt::ForegroundRole && index.column() == Bound && g.cycles > 0)
    return QBrush(boundColor(g.memoryBound()));
  if (role == Qt::TextAlignmentRole && index.column() != FirstOp && index.column() != Kind && index.column() != Bound)
    return static_cast<int>(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole && index.column() == FirstOp) {
    QStringList names;
    for (int op : g.ops)
      names << opName(op);
    return names.join(QLatin1Char('\n'));
  }
  return {};
}

// --- StepTableModel -------------------------------------------------------------------------------

StepTableModel::StepTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void StepTableModel::setGroup(std::shared_ptr<const ChipRun> run, int group) {
  beginResetModel();
  m_run = std::move(run);
  const Plan *p = m_run ? m_run->plan() : nullptr;
  m_group = p && group >= 0 && group < static_cast<int>(p->groups.size()) ? group : -1;
  endResetModel();
}

int StepTableModel::rowCount(const QModelIndex &parent) const {
  if (parent.isValid() || m_group < 0)
    return 0;
  return static_cast<int>(m_run->plan()->groups[m_group].steps.size());
}

int StepTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant StepTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal)
    return {};
  static const char *names[] = {"stage", "load",  "compute", "store", "weights loaded", "TIU cycles", "GDMA cycles",
                                "cycles", "bottleneck"};
  if (role == Qt::DisplayRole && section >= 0 && section < ColumnCount)
    return QString::fromUtf8(names[section]);
  if (role == Qt::ToolTipRole && section == Cycles)
    return QStringLiteral("The stage lasts as long as its busier engine: TIU and GDMA overlap");
  return {};
}

QVariant StepTableModel::data(const QModelIndex &index, int role) const {
  if (m_group < 0 || !index.isValid())
    return {};
  const Group &g = m_run->plan()->groups[m_group];
  if (index.row() >= static_cast<int>(g.steps.size()))
    return {};
  const TimeStep &st = g.steps[index.row()];
  if (role == kChipSortRole) {
    switch (index.column()) {
    case Tiu:
      return static_cast<qlonglong>(st.tiuCycles);
    case Gdma:
      return static_cast<qlonglong>(st.gdmaCycles);
    case Cycles:
      return static_cast<qlonglong>(st.cycles);
    case Stage:
      return index.row();
    default:
      return data(index, Qt::DisplayRole);
    }
  }
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
    case Stage:
      return index.row();
    case Load:
      return sliceText(st.loadSlice);
    case Compute:
      return sliceText(st.computeSlice);
    case Store:
      return sliceText(st.storeSlice);
    case Weights:
      return st.loadsWeights ? QStringLiteral("yes") : QString();
    case Tiu:
      return groupedNumber(st.tiuCycles);
    case Gdma:
      return groupedNumber(st.gdmaCycles);
    case Cycles:
      return groupedNumber(st.cycles);
    case Bottleneck:
      return st.gdmaBound() ? QStringLiteral("GDMA") : (st.tiuCycles > 0 ? QStringLiteral("TIU") : QString());
    }
  }
  if (role == Qt::ForegroundRole && index.column() == Bottleneck)
    return QBrush(boundColor(st.gdmaBound()));
  if (role == Qt::TextAlignmentRole && index.column() >= Tiu && index.column() <= Cycles)
    return static_cast<int>(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

// --- CutListModel ---------------------------------------------------------------------------------

CutListModel::CutListModel(QObject *parent) : QAbstractTableModel(parent) {}

void CutListModel::setRun(std::shared_ptr<const ChipRun> run, int group) {
  beginResetModel();
  m_run = std::move(run);
  m_rows.clear();
  if (const Plan *p = m_run ? m_run->plan() : nullptr)
    for (size_t i = 0; i < p->cuts.size(); ++i)
      if (group < 0 || p->cuts[i].group == group)
        m_rows.push_back(static_cast<int>(i));
  endResetModel();
}

int CutListModel::rowCount(const QModelIndex &parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int CutListModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CutListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return {};
  static const char *names[] = {"group", "where", "reason", "why the planner cut here"};
  return section >= 0 && section < ColumnCount ? QString::fromUtf8(names[section]) : QVariant();
}

QVariant CutListModel::data(const QModelIndex &index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(m_rows.size()))
    return {};
  const Cut &c = m_run->plan()->cuts[m_rows[index.row()]];
  if (role == Qt::DisplayRole || role == kChipSortRole) {
    switch (index.column()) {
    case Group:
      return c.group;
    case Where:
      return c.global ? QStringLiteral("stayed global") : QStringLiteral("group ends");
    case Reason:
      return QString::fromStdString(c.reason);
    case Message:
      return QString::fromStdString(c.message);
    }
  }
  if (role == Qt::ToolTipRole) {
    QString tip = QString::fromStdString(c.message);
    for (const LiveBuffer &b : c.live)
      tip += QStringLiteral("\n  %1 (%2%3) %4/lane")
                 .arg(QString::fromStdString(m_run->plan()->values[b.value].name),
                      QString::fromLatin1(bufferKindName(b.kind)),
                      b.slice >= 0 ? QStringLiteral(", slice %1").arg(b.slice) : QString(), byteSize(b.size));
    if (c.cyclesSplit || c.cyclesMerged)
      tip += QStringLiteral("\nsplit: %1 cycles · merged: %2 cycles").arg(groupedNumber(c.cyclesSplit), groupedNumber(c.cyclesMerged));
    return tip;
  }
  return {};
}

} // namespace tpuc::vis
