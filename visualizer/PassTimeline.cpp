// The pass timeline of a recorded pipeline run.
#include "visualizer/PassTimeline.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

namespace tpuc::vis {
namespace {

/// Paints the wall time as a bar behind its number.
class TimeBarDelegate : public QStyledItemDelegate {
public:
  TimeBarDelegate(PassTimelineModel *model, QObject *parent) : QStyledItemDelegate(parent), m_model(model) {}
  void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override {
    double ms = index.data(PassTimelineModel::kValueRole).toDouble();
    double max = m_model->maxWallMs();
    if (max > 0 && ms > 0) {
      QRectF bar = QRectF(option.rect).adjusted(2, 3, -2, -3);
      bar.setWidth(std::max(1.0, bar.width() * ms / max));
      QColor c = option.palette.color(QPalette::Highlight);
      c.setAlphaF(0.35f);
      painter->fillRect(bar, c);
    }
    QStyledItemDelegate::paint(painter, option, index);
  }

private:
  PassTimelineModel *m_model;
};

QString msText(double ms) {
  if (ms <= 0)
    return QStringLiteral("–");
  return ms < 10 ? QString::number(ms, 'f', 2) : ms < 100 ? QString::number(ms, 'f', 1) : QString::number(ms, 'f', 0);
}

} // namespace

PassTimelineModel::PassTimelineModel(QObject *parent) : QAbstractTableModel(parent) {}

void PassTimelineModel::setRun(PassRun run) {
  beginResetModel();
  m_run = std::move(run);
  m_maxMs = 0;
  for (const PassSnapshot &s : m_run.snapshots)
    m_maxMs = std::max(m_maxMs, s.wallMs);
  endResetModel();
}

int PassTimelineModel::rowCount(const QModelIndex &parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_run.snapshots.size());
}
int PassTimelineModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant PassTimelineModel::data(const QModelIndex &index, int role) const {
  if (!index.isValid() || index.row() >= rowCount())
    return {};
  const PassSnapshot &s = m_run.snapshots[static_cast<std::size_t>(index.row())];
  const bool changed = s.index == 0 || s.irChanged || s.added || s.removed || s.changed;
  if (role == kChangedRole)
    return changed;
  auto count = [](std::size_t n, const char *sign) {
    return n ? QString::fromUtf8(sign) + QString::number(n) : QStringLiteral("·");
  };
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case Index: return static_cast<qulonglong>(s.index);
    case Pass: return QString::fromStdString(s.label()) + (s.failed ? tr(" (failed)") : QString());
    case Anchor: return QString::fromStdString(s.anchor);
    case Time: return msText(s.wallMs);
    case Ops: return static_cast<qulonglong>(s.opCount);
    case Added: return s.index == 0 ? QString() : count(s.added, "+");
    case Removed: return s.index == 0 ? QString() : count(s.removed, "−");
    case Changed: return s.index == 0 ? QString() : count(s.changed, "~");
    default: return {};
    }
  case kValueRole:
    switch (index.column()) {
    case Index: return static_cast<qulonglong>(s.index);
    case Pass: return QString::fromStdString(s.label());
    case Anchor: return QString::fromStdString(s.anchor);
    case Time: return s.wallMs;
    case Ops: return static_cast<qulonglong>(s.opCount);
    case Added: return static_cast<qulonglong>(s.added);
    case Removed: return static_cast<qulonglong>(s.removed);
    case Changed: return static_cast<qulonglong>(s.changed);
    default: return {};
    }
  case Qt::ToolTipRole:
    return tr("%1 (%2) on %3 · pipeline %4\n%5 ms · %6 ops · +%7 −%8 ~%9%10")
        .arg(QString::fromStdString(s.pass), QString::fromStdString(s.argument), QString::fromStdString(s.anchor),
             QString::fromStdString(s.pipeline), msText(s.wallMs))
        .arg(s.opCount)
        .arg(s.added)
        .arg(s.removed)
        .arg(s.changed)
        .arg(changed ? QString() : tr("\nchanged nothing"));
  case Qt::TextAlignmentRole:
    return static_cast<int>(index.column() >= Time ? (Qt::AlignRight | Qt::AlignVCenter) : (Qt::AlignLeft | Qt::AlignVCenter));
  case Qt::ForegroundRole:
    if (!changed)
      return QPalette().color(QPalette::Disabled, QPalette::Text);
    if (index.column() == Added && s.added)
      return QColor(0x1f, 0x8a, 0x3c);
    if (index.column() == Removed && s.removed)
      return QColor(0xc0, 0x30, 0x30);
    if (index.column() == Changed && s.changed)
      return QColor(0xb0, 0x70, 0x00);
    if (s.failed)
      return QColor(0xc0, 0x30, 0x30);
    return {};
  default:
    return {};
  }
}

QVariant PassTimelineModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal)
    return {};
  if (role == Qt::ToolTipRole)
    switch (section) {
    case Added: return tr("Ops added by the pass");
    case Removed: return tr("Ops removed by the pass");
    case Changed: return tr("Ops whose attributes, types, operands or location the pass changed");
    case Time: return tr("Wall time of the pass; the bar is relative to the slowest pass");
    default: return {};
    }
  if (role != Qt::DisplayRole)
    return {};
  switch (section) {
  case Index: return tr("#");
  case Pass: return tr("Pass");
  case Anchor: return tr("On");
  case Time: return tr("Time (ms)");
  case Ops: return tr("Ops");
  // Short headers keep the table narrow; the tooltips say what they count.
  case Added: return tr("+");
  case Removed: return tr("−");
  case Changed: return tr("~");
  default: return {};
  }
}

void PassTimelineFilter::setHideUnchanged(bool hide) {
  if (hide == m_hide)
    return;
  m_hide = hide;
  invalidateFilter();
}

bool PassTimelineFilter::filterAcceptsRow(int row, const QModelIndex &parent) const {
  if (!m_hide)
    return true;
  return sourceModel()->index(row, 0, parent).data(PassTimelineModel::kChangedRole).toBool();
}

PassTimeline::PassTimeline(QWidget *parent)
    : QWidget(parent), m_model(new PassTimelineModel(this)), m_filter(new PassTimelineFilter(this)),
      m_table(new QTableView(this)), m_hide(new QCheckBox(tr("Hide passes that changed nothing"), this)),
      m_summary(new QLabel(this)) {
  m_filter->setSourceModel(m_model);
  m_filter->setSortRole(PassTimelineModel::kValueRole);
  m_table->setModel(m_filter);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(PassTimelineModel::Index, Qt::AscendingOrder);
  m_table->verticalHeader()->hide();
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setSectionResizeMode(PassTimelineModel::Pass, QHeaderView::Stretch);
  m_table->setItemDelegateForColumn(PassTimelineModel::Time, new TimeBarDelegate(m_model, this));
  m_table->setAlternatingRowColors(true);
  m_summary->setWordWrap(true);
  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_hide);
  layout->addWidget(m_table, 1);
  layout->addWidget(m_summary);
  connect(m_hide, &QCheckBox::toggled, this, [this](bool on) { m_filter->setHideUnchanged(on); });
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex &current) { Q_EMIT snapshotSelected(current.isValid() ? m_filter->mapToSource(current).row() : -1); });
}

void PassTimeline::setRun(PassRun run) {
  m_model->setRun(std::move(run));
  double total = 0;
  int idle = 0;
  for (const PassSnapshot &s : m_model->run().snapshots) {
    total += s.wallMs;
    idle += s.index > 0 && !s.irChanged && !s.added && !s.removed && !s.changed;
  }
  // "On" only says something when passes run on different ops (nested pipelines).
  bool oneAnchor = true;
  for (const PassSnapshot &s : m_model->run().snapshots)
    oneAnchor = oneAnchor && s.anchor == m_model->run().snapshots.front().anchor;
  m_table->setColumnHidden(PassTimelineModel::Anchor, oneAnchor);
  int passes = std::max(0, m_model->rowCount() - 1);
  m_summary->setText(tr("%1 passes, %2 ms in total; %3 changed nothing.").arg(passes).arg(msText(total)).arg(idle));
}

void PassTimeline::selectSnapshot(int index) {
  if (index < 0 || index >= m_model->rowCount()) {
    m_table->clearSelection();
    return;
  }
  QModelIndex source = m_model->index(index, 0);
  if (m_filter->hideUnchanged() && !source.data(PassTimelineModel::kChangedRole).toBool())
    m_hide->setChecked(false);
  QModelIndex proxy = m_filter->mapFromSource(source);
  m_table->selectionModel()->setCurrentIndex(proxy, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  m_table->scrollTo(proxy);
}

int PassTimeline::selectedSnapshot() const {
  QModelIndex current = m_table->selectionModel()->currentIndex();
  return current.isValid() ? m_filter->mapToSource(current).row() : -1;
}

void PassTimeline::setHideUnchanged(bool hide) { m_hide->setChecked(hide); }

int PassTimeline::visibleRows() const { return m_filter->rowCount(); }

} // namespace tpuc::vis
