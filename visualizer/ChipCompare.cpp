// Two runs side by side with deltas.
#include "visualizer/ChipCompare.h"

#include "visualizer/ChipModels.h"
#include "visualizer/ChipStyle.h"
#include "visualizer/LayerGroupView.h"

#include <QBrush>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>
#include <map>

namespace tpuc::vis {

using namespace tpuc::chip;

namespace {

/// The totals of one run, in the order the table lists them.
std::vector<std::pair<double, bool>> totalsOf(const ChipRun *run) {
  const Plan *p = run ? run->plan() : nullptr;
  const Trace *t = run ? run->trace() : nullptr;
  std::vector<std::pair<double, bool>> v;
  int lmem = 0;
  int64_t ddr = 0;
  if (p)
    for (const Group &g : p->groups) {
      lmem += !g.global;
      ddr += g.ddrBytes;
    }
  v.push_back({t ? static_cast<double>(t->totalCycles) : 0, t != nullptr});
  v.push_back({p ? static_cast<double>(p->totalCycles) : 0, p != nullptr});
  v.push_back({p ? static_cast<double>(p->groups.size()) : 0, p != nullptr});
  v.push_back({static_cast<double>(lmem), p != nullptr});
  v.push_back({p ? static_cast<double>(p->groups.size() - lmem) : 0, p != nullptr});
  v.push_back({static_cast<double>(ddr), p != nullptr});
  v.push_back({p ? static_cast<double>(run->ddr().peak) : 0, p != nullptr});
  v.push_back({p ? static_cast<double>(run->ddr().lowerBound) : 0, p != nullptr});
  v.push_back({p ? static_cast<double>(p->gmem.coeffBytes) : 0, p != nullptr});
  int64_t lmemPeak = 0;
  if (p)
    for (const Group &g : p->groups)
      lmemPeak = std::max(lmemPeak, g.lmemPeak);
  v.push_back({static_cast<double>(lmemPeak), p != nullptr});
  v.push_back({t ? 100.0 * run->idle()[0].busyShare : 0, t != nullptr});
  v.push_back({t ? 100.0 * run->idle()[1].busyShare : 0, t != nullptr});
  return v;
}

} // namespace

// --- CompareTotalsModel ---------------------------------------------------------------------------

CompareTotalsModel::CompareTotalsModel(QObject *parent) : QAbstractTableModel(parent) {}

void CompareTotalsModel::setRuns(std::shared_ptr<const ChipRun> a, std::shared_ptr<const ChipRun> b) {
  beginResetModel();
  m_rows.clear();
  struct Spec {
    const char *name, *unit;
    bool lower;
  };
  static const Spec specs[] = {{"simulated cycles", "cycles", true},   {"planned cycles", "cycles", true},
                               {"groups", "", true},                   {"LMEM groups", "", true},
                               {"global ops", "", true},               {"DDR ↔ LMEM traffic", "bytes", true},
                               {"DDR activation peak", "bytes", true}, {"DDR lower bound", "bytes", true},
                               {"coefficient bytes", "bytes", true},   {"largest LMEM peak", "bytes", true},
                               {"TIU busy", "%", false},               {"GDMA busy", "%", false}};
  auto va = totalsOf(a.get()), vb = totalsOf(b.get());
  for (size_t i = 0; i < std::size(specs); ++i)
    m_rows.push_back({QString::fromUtf8(specs[i].name), va[i].first, vb[i].first, va[i].second, vb[i].second,
                      QString::fromLatin1(specs[i].unit), specs[i].lower});
  m_mhzA = a && a->plan() ? a->plan()->chip.frequencyMhz : (a && a->trace() ? a->trace()->frequencyMhz : 0);
  m_mhzB = b && b->plan() ? b->plan()->chip.frequencyMhz : (b && b->trace() ? b->trace()->frequencyMhz : 0);
  endResetModel();
}

int CompareTotalsModel::rowCount(const QModelIndex &parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}
int CompareTotalsModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CompareTotalsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return {};
  static const char *names[] = {"", "A", "B", "B vs A"};
  return section >= 0 && section < ColumnCount ? QString::fromUtf8(names[section]) : QVariant();
}

QVariant CompareTotalsModel::data(const QModelIndex &index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(m_rows.size()))
    return {};
  const Row &r = m_rows[index.row()];
  auto value = [&](double v, bool have, double mhz) -> QString {
    if (!have)
      return QStringLiteral("–");
    if (r.unit == QLatin1String("cycles"))
      return cyclesText(static_cast<qint64>(v), mhz);
    if (r.unit == QLatin1String("bytes"))
      return byteSize(static_cast<qint64>(v));
    if (r.unit == QLatin1String("%"))
      return QStringLiteral("%1 %").arg(v, 0, 'f', 1);
    return QString::number(static_cast<qint64>(v));
  };
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
    case Metric:
      return r.metric;
    case A:
      return value(r.a, r.haveA, m_mhzA);
    case B:
      return value(r.b, r.haveB, m_mhzB);
    case Delta:
      if (!r.haveA || !r.haveB)
        return QStringLiteral("–");
      if (r.unit == QLatin1String("%"))
        return QStringLiteral("%1%2 points").arg(r.b >= r.a ? QStringLiteral("+") : QString()).arg(r.b - r.a, 0, 'f', 1);
      if (r.a == 0)
        return r.b == 0 ? QStringLiteral("=") : QStringLiteral("new");
      return QStringLiteral("%1%2 %").arg(r.b >= r.a ? QStringLiteral("+") : QString()).arg(100.0 * (r.b - r.a) / r.a, 0, 'f', 1);
    }
  }
  if (role == Qt::ForegroundRole && index.column() == Delta && r.haveA && r.haveB && r.a != r.b) {
    bool better = (r.b < r.a) == r.lowerIsBetter;
    return QBrush(better ? QColor(30, 150, 100) : QColor(214, 60, 40));
  }
  if (role == Qt::TextAlignmentRole && index.column() != Metric)
    return static_cast<int>(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

// --- CompareOpsModel ------------------------------------------------------------------------------

CompareOpsModel::CompareOpsModel(QObject *parent) : QAbstractTableModel(parent) {}

void CompareOpsModel::setRuns(std::shared_ptr<const ChipRun> a, std::shared_ptr<const ChipRun> b) {
  beginResetModel();
  m_rows.clear();
  std::map<std::string, size_t> row;
  auto add = [&](const ChipRun *run, bool second) {
    const Plan *p = run ? run->plan() : nullptr;
    if (!p)
      return;
    for (const PlanOp &op : p->ops) {
      auto [it, inserted] = row.emplace(op.name, m_rows.size());
      if (inserted)
        m_rows.push_back({QString::fromStdString(op.name)});
      Row &r = m_rows[it->second];
      (second ? r.groupB : r.groupA) = op.group;
      // The simulated cycles where there is a trace, else the plan's estimate.
      qint64 cycles = op.tiuCycles;
      if (const Trace *t = run->trace())
        if (int i = t->opIndex(op.name); i >= 0)
          cycles = t->ops[i].tiuCycles;
      (second ? r.cyclesB : r.cyclesA) = cycles;
    }
  };
  add(a.get(), false);
  add(b.get(), true);
  endResetModel();
}

int CompareOpsModel::rowCount(const QModelIndex &parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}
int CompareOpsModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CompareOpsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return {};
  static const char *names[] = {"op", "group A", "group B", "TIU cycles A", "TIU cycles B", "Δ cycles"};
  return section >= 0 && section < ColumnCount ? QString::fromUtf8(names[section]) : QVariant();
}

QVariant CompareOpsModel::data(const QModelIndex &index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(m_rows.size()))
    return {};
  const Row &r = m_rows[index.row()];
  const bool both = r.cyclesA >= 0 && r.cyclesB >= 0;
  if (role == kChipSortRole) {
    switch (index.column()) {
    case Op:
      return r.op;
    case GroupA:
      return r.groupA;
    case GroupB:
      return r.groupB;
    case CyclesA:
      return r.cyclesA;
    case CyclesB:
      return r.cyclesB;
    case Delta:
      return both ? static_cast<qlonglong>(r.cyclesB - r.cyclesA) : 0;
    }
  }
  if (role == Qt::DisplayRole) {
    auto groupText = [](int g) { return g >= 0 ? QString::number(g) : QStringLiteral("–"); };
    switch (index.column()) {
    case Op:
      return r.op;
    case GroupA:
      return groupText(r.groupA);
    case GroupB:
      return groupText(r.groupB);
    case CyclesA:
      return r.cyclesA >= 0 ? groupedNumber(r.cyclesA) : QStringLiteral("–");
    case CyclesB:
      return r.cyclesB >= 0 ? groupedNumber(r.cyclesB) : QStringLiteral("–");
    case Delta:
      return both ? (r.cyclesB >= r.cyclesA ? QStringLiteral("+") : QString()) + groupedNumber(r.cyclesB - r.cyclesA)
                  : QStringLiteral("–");
    }
  }
  if (role == Qt::ForegroundRole && index.column() == Delta && both && r.cyclesA != r.cyclesB)
    return QBrush(r.cyclesB < r.cyclesA ? QColor(30, 150, 100) : QColor(214, 60, 40));
  if (role == Qt::TextAlignmentRole && index.column() != Op)
    return static_cast<int>(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

// --- ChipCompareView ------------------------------------------------------------------------------

ChipCompareView::ChipCompareView(QWidget *parent)
    : QWidget(parent), m_totals(new CompareTotalsModel(this)), m_ops(new CompareOpsModel(this)),
      m_totalTable(new QTableView(this)), m_opTable(new QTableView(this)), m_title(new QLabel(this)) {
  m_title->setWordWrap(true);
  m_totalTable->setModel(m_totals);
  auto *proxy = new ChipSortProxy(this);
  proxy->setSourceModel(m_ops);
  m_opTable->setModel(proxy);
  m_opTable->setSortingEnabled(true);
  for (QTableView *t : {m_totalTable, m_opTable}) {
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setAlternatingRowColors(true);
  }
  auto *split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(m_totalTable);
  split->addWidget(m_opTable);
  split->setStretchFactor(1, 2);
  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_title);
  layout->addWidget(split, 1);
  connect(m_opTable, &QTableView::clicked, this, [this, proxy](const QModelIndex &index) {
    int row = proxy->mapToSource(index).row();
    if (row >= 0 && row < static_cast<int>(m_ops->rows().size()))
      Q_EMIT opSelected(m_ops->rows()[row].op);
  });
}

void ChipCompareView::setRuns(std::shared_ptr<const ChipRun> a, const QString &nameA, std::shared_ptr<const ChipRun> b,
                              const QString &nameB) {
  m_title->setText(tr("<b>A</b>: %1 &nbsp; vs &nbsp; <b>B</b>: %2 — green where B is better").arg(nameA.toHtmlEscaped(),
                                                                                                  nameB.toHtmlEscaped()));
  m_totals->setRuns(a, b);
  m_ops->setRuns(a, b);
  m_totalTable->resizeColumnsToContents();
  m_opTable->resizeColumnsToContents();
  m_opTable->sortByColumn(CompareOpsModel::Delta, Qt::AscendingOrder);
}

} // namespace tpuc::vis
