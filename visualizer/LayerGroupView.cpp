// The layer-group view.
#include "visualizer/LayerGroupView.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace tpuc::vis {

using namespace tpuc::chip;

ChipSortProxy::ChipSortProxy(QObject *parent) : QSortFilterProxyModel(parent) { setSortRole(kChipSortRole); }

bool ChipSortProxy::lessThan(const QModelIndex &a, const QModelIndex &b) const {
  QVariant va = a.data(kChipSortRole), vb = b.data(kChipSortRole);
  bool na = false, nb = false;
  double da = va.toDouble(&na), db = vb.toDouble(&nb);
  if (na && nb && va.typeId() != QMetaType::QString && vb.typeId() != QMetaType::QString)
    return da < db;
  return QString::localeAwareCompare(va.toString(), vb.toString()) < 0;
}

namespace {

QTableView *makeTable(QWidget *parent, QAbstractItemModel *model, bool sortable) {
  auto *t = new QTableView(parent);
  t->setModel(model);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->setSelectionMode(QAbstractItemView::SingleSelection);
  t->setSortingEnabled(sortable);
  t->verticalHeader()->hide();
  t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
  t->horizontalHeader()->setHighlightSections(false);
  t->setAlternatingRowColors(true);
  t->setWordWrap(false);
  return t;
}

} // namespace

LayerGroupView::LayerGroupView(QWidget *parent)
    : QWidget(parent), m_groups(new GroupTableModel(this)), m_groupProxy(new ChipSortProxy(this)),
      m_steps(new StepTableModel(this)), m_cuts(new CutListModel(this)) {
  m_groupProxy->setSourceModel(m_groups);
  m_summary = new QLabel(this);
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_strip = new GroupStripWidget(this);
  m_strip->setToolTip(tr("Every group, as wide as its share of the planned cycles"));
  m_table = makeTable(this, m_groupProxy, true);
  m_table->sortByColumn(GroupTableModel::Id, Qt::AscendingOrder);
  m_lmem = new LmemChartWidget(this);
  m_lmem->setFitToPeak(true);
  m_fit = new QCheckBox(tr("Zoom the address axis to the peak"), this);
  m_fit->setChecked(true);
  m_fit->setToolTip(tr("When a group uses less than 60 % of the lane, show its buffers large; the capacity is noted"));
  connect(m_fit, &QCheckBox::toggled, m_lmem, &LmemChartWidget::setFitToPeak);
  m_slices = new SliceShapeWidget(this);
  m_stepTable = makeTable(this, m_steps, false);
  m_cutTable = makeTable(this, m_cuts, false);
  m_cutTable->horizontalHeader()->setStretchLastSection(true);
  m_allCuts = new QCheckBox(tr("Show the reasons of every group"), this);

  auto *cutPage = new QWidget(this);
  auto *cutLayout = new QVBoxLayout(cutPage);
  cutLayout->setContentsMargins(0, 4, 0, 0);
  cutLayout->addWidget(m_allCuts);
  cutLayout->addWidget(m_cutTable, 1);
  m_detail = new QTabWidget(this);
  m_detail->addTab(m_stepTable, tr("Time Steps"));
  m_detail->addTab(m_slices, tr("Slices"));
  m_detail->addTab(cutPage, tr("Why Cut Here"));

  auto *chartPage = new QWidget(this);
  auto *chartLayout = new QVBoxLayout(chartPage);
  chartLayout->setContentsMargins(0, 0, 0, 0);
  chartLayout->setSpacing(0);
  chartLayout->addWidget(m_lmem, 1);
  chartLayout->addWidget(m_fit);
  auto *right = new QSplitter(Qt::Vertical, this);
  right->addWidget(chartPage);
  right->addWidget(m_detail);
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 2);
  auto *split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(m_table);
  split->addWidget(right);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  split->setSizes({420, 700});

  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_summary);
  layout->addWidget(m_strip);
  layout->addWidget(split, 1);

  connect(m_strip, &GroupStripWidget::groupClicked, this, [this](int g) {
    showGroup(g);
    const Plan *p = m_run ? m_run->plan() : nullptr;
    if (!p)
      return;
    QStringList ops;
    for (int op : p->groups[g].ops)
      ops << QString::fromStdString(p->ops[op].name);
    Q_EMIT groupSelected(g, ops);
  });
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &current) {
    if (m_updating || !current.isValid())
      return;
    int g = m_groupProxy->mapToSource(current).row();
    showGroup(g);
    const Plan *p = m_run->plan();
    QStringList ops;
    for (int op : p->groups[g].ops)
      ops << QString::fromStdString(p->ops[op].name);
    Q_EMIT groupSelected(g, ops);
  });
  connect(m_lmem, &LmemChartWidget::bufferClicked, this, [this](int rect, int value, const QString &op) {
    const Plan *p = m_run->plan();
    int slice = m_group >= 0 ? p->groups[m_group].rects[rect].slice : -1;
    m_slices->setValue(m_run, m_group, value, slice);
    if (!op.isEmpty())
      Q_EMIT opSelected(op);
  });
  connect(m_allCuts, &QCheckBox::toggled, this, [this](bool all) { m_cuts->setRun(m_run, all ? -1 : m_group); });
  connect(m_cutTable, &QTableView::clicked, this, [this](const QModelIndex &index) {
    int cut = m_cuts->cutAt(index.row());
    const Plan *p = m_run ? m_run->plan() : nullptr;
    if (!p || cut < 0)
      return;
    const Cut &c = p->cuts[cut];
    if (c.group != m_group)
      selectGroup(c.group);
    if (c.op >= 0)
      Q_EMIT opSelected(QString::fromStdString(p->ops[c.op].name));
  });
}

void LayerGroupView::setRun(std::shared_ptr<const ChipRun> run) {
  m_run = std::move(run);
  m_updating = true;
  m_groups->setRun(m_run);
  m_strip->setRun(m_run);
  m_updating = false;
  m_table->resizeColumnsToContents();
  m_table->setColumnWidth(GroupTableModel::FirstOp, std::min(m_table->columnWidth(GroupTableModel::FirstOp),
                                                             fontMetrics().horizontalAdvance(QLatin1Char('x')) * 40));
  m_group = -1;
  const Plan *p = m_run ? m_run->plan() : nullptr;
  updateSummary();
  selectGroup(p && !p->groups.empty() ? 0 : -1);
}

void LayerGroupView::updateSummary() {
  const Plan *p = m_run ? m_run->plan() : nullptr;
  if (!p) {
    m_summary->setText(tr("No backend plan: deploy with a model file to see the layer groups."));
    return;
  }
  int lmem = 0, memoryBound = 0;
  for (const Group &g : p->groups) {
    lmem += !g.global;
    memoryBound += g.memoryBound();
  }
  m_summary->setText(tr("<b>%1</b> · opt %2 · <b>%3</b> groups: %4 in LMEM, %5 global ops · %6 memory-bound · "
                        "planned %7 · LMEM %8 per lane in %9 banks%10")
                         .arg(QString::fromStdString(p->chip.name))
                         .arg(p->opt)
                         .arg(p->groups.size())
                         .arg(lmem)
                         .arg(p->groups.size() - lmem)
                         .arg(memoryBound)
                         .arg(cyclesText(p->totalCycles, p->chip.frequencyMhz), byteSize(p->chip.lmemBytesPerLane))
                         .arg(p->chip.lmemBanks)
                         .arg(p->cuts.empty() ? tr(" · the plan (version %1) records no reasons for its cuts").arg(p->version)
                                              : QString()));
}

void LayerGroupView::showGroup(int group) {
  m_group = group;
  m_strip->setSelectedGroup(group);
  m_lmem->setGroup(m_run, group);
  m_steps->setGroup(m_run, group);
  m_cuts->setRun(m_run, m_allCuts->isChecked() ? -1 : group);
  m_stepTable->resizeColumnsToContents();
  m_cutTable->resizeColumnToContents(CutListModel::Group);
  m_cutTable->resizeColumnToContents(CutListModel::Where);
  m_cutTable->resizeColumnToContents(CutListModel::Reason);
  const Plan *p = m_run ? m_run->plan() : nullptr;
  int value = -1;
  if (p && group >= 0) {
    const Group &g = p->groups[group];
    value = !g.inputs.empty() ? g.inputs.front() : (!g.outputs.empty() ? g.outputs.front() : -1);
    if (m_lmem->selectedValue() >= 0)
      for (const SliceBoxes &sb : g.slices)
        if (sb.valueBox(m_lmem->selectedValue()))
          value = m_lmem->selectedValue();
  }
  m_slices->setValue(m_run, group, value);
}

void LayerGroupView::selectGroup(int group) {
  const Plan *p = m_run ? m_run->plan() : nullptr;
  if (!p || group < 0 || group >= static_cast<int>(p->groups.size())) {
    showGroup(-1);
    return;
  }
  m_updating = true;
  QModelIndex index = m_groupProxy->mapFromSource(m_groups->index(group, 0));
  m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  m_table->scrollTo(index);
  m_updating = false;
  showGroup(group);
}

bool LayerGroupView::selectOp(const QString &name) {
  const Plan *p = m_run ? m_run->plan() : nullptr;
  int op = p ? p->opIndex(name.toStdString()) : -1;
  if (op < 0) {
    m_lmem->setSelectedValue(-1);
    return false;
  }
  int group = p->groupOfOp(op);
  m_lmem->setSelectedValue(p->valueIndex(name.toStdString()));
  if (group != m_group)
    selectGroup(group);
  else
    showGroup(group);
  return true;
}

} // namespace tpuc::vis
