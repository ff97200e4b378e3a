// The project explorer's item model.
#include "ui/models/ProjectTreeModel.h"

#include <QFileInfo>
#include <QFont>
#include <QLocale>

namespace tpuc::ui {

namespace {
// A child's internal id is its parent's row + 1; top-level rows carry 0.
constexpr quintptr kTopLevel = 0;

QString qs(const std::string &text) { return QString::fromStdString(text); }
} // namespace

ProjectTreeModel::ProjectTreeModel(StudioContext *context, QObject *parent)
    : QAbstractItemModel(parent), m_context(context) {
  rebuild();
  auto reset = [this] {
    beginResetModel();
    rebuild();
    endResetModel();
  };
  connect(context, &StudioContext::projectLoaded, this, reset);
  connect(context, &StudioContext::projectClosed, this, reset);
  connect(context, &StudioContext::projectChanged, this, reset);
}

void ProjectTreeModel::rebuild() {
  const project::Project &p = m_context->project();
  QLocale locale;
  m_nodes.clear();

  Node model{Section::Model, tr("Model"), tr("none"), {}};
  if (!p.model.path.empty()) {
    model.info = QFileInfo(qs(p.model.path)).fileName();
    if (!p.model.embedded.empty())
      model.info += tr(" (embedded)");
  }
  m_nodes.append(model);

  Node import{Section::ImportSettings, tr("Import settings"), qs(p.importSettings.inputShapes), {}};
  m_nodes.append(import);

  Node datasets{Section::Datasets, tr("Calibration datasets"), QString::number(p.datasets.size()), {}};
  for (const auto &d : p.datasets)
    datasets.children.append(
        {qs(d.name), countText(static_cast<qint64>(d.fileCount()), tr("sample"), tr("samples")), {}, d.id});
  m_nodes.append(datasets);

  Node cali{Section::CaliTables, tr("Calibration tables"), QString::number(p.caliTables.size()), {}};
  for (const auto &t : p.caliTables)
    cali.children.append({tr("%1 v%2").arg(qs(t.name)).arg(t.version),
                          countText(static_cast<qint64>(t.entries.size()), tr("op"), tr("ops")), qs(t.comment), t.id});
  m_nodes.append(cali);

  Node quant{Section::QuantTables, tr("Quantize tables"), QString::number(p.quantTables.size()), {}};
  for (const auto &t : p.quantTables)
    quant.children.append({tr("%1 v%2").arg(qs(t.name)).arg(t.version),
                           countText(static_cast<qint64>(t.entries.size()), tr("op"), tr("ops")), qs(t.comment), t.id});
  m_nodes.append(quant);

  Node configs{Section::CompileConfigs, tr("Compile configurations"),
               QString::number(p.compileConfigs.size()), {}};
  for (const auto &c : p.compileConfigs)
    configs.children.append({qs(c.name), tr("%1, %2").arg(qs(c.chip), qs(c.precision)), {}, c.id});
  m_nodes.append(configs);

  Node runs{Section::Runs, tr("Runs"), QString::number(p.runs.size()), {}};
  for (const auto &r : p.runs)
    runs.children.append({tr("#%1 %2").arg(r.id).arg(qs(r.configName)),
                          // Only simulator runs have a latency; a transform or convert run shows its status.
                          r.latencyMs > 0 ? tr("%1, %2 ms").arg(qs(r.status), locale.toString(r.latencyMs, 'f', 3))
                                          : qs(r.status),
                          qs(r.started), r.id});
  m_nodes.append(runs);

  m_nodes.append({Section::Notes, tr("Notes"), p.notes.empty() ? tr("empty") : QString(), {}});
}

QModelIndex ProjectTreeModel::index(int row, int column, const QModelIndex &parent) const {
  if (!hasIndex(row, column, parent))
    return {};
  if (!parent.isValid())
    return createIndex(row, column, kTopLevel);
  return createIndex(row, column, static_cast<quintptr>(parent.row() + 1));
}

QModelIndex ProjectTreeModel::parent(const QModelIndex &child) const {
  if (!child.isValid() || child.internalId() == kTopLevel)
    return {};
  return createIndex(static_cast<int>(child.internalId() - 1), 0, kTopLevel);
}

int ProjectTreeModel::rowCount(const QModelIndex &parent) const {
  if (!parent.isValid())
    return static_cast<int>(m_nodes.size());
  if (parent.column() != 0 || parent.internalId() != kTopLevel)
    return 0;
  return static_cast<int>(m_nodes[parent.row()].children.size());
}

int ProjectTreeModel::columnCount(const QModelIndex &) const { return ColumnCount; }

QVariant ProjectTreeModel::data(const QModelIndex &index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid))
    return {};
  if (index.internalId() == kTopLevel) {
    const Node &node = m_nodes[index.row()];
    if (role == Qt::DisplayRole)
      return index.column() == NameColumn ? node.name : node.info;
    if (role == Qt::FontRole && index.column() == NameColumn) {
      QFont font;
      font.setBold(true);
      return font;
    }
    return {};
  }
  const Item &item = m_nodes[static_cast<int>(index.internalId() - 1)].children[index.row()];
  if (role == Qt::DisplayRole)
    return index.column() == NameColumn ? item.name : item.info;
  if (role == Qt::ToolTipRole && !item.toolTip.isEmpty())
    return item.toolTip;
  return {};
}

QVariant ProjectTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return {};
  return section == NameColumn ? tr("Name") : tr("Info");
}

Selection ProjectTreeModel::selectionFor(const QModelIndex &index) const {
  if (!index.isValid())
    return {};
  if (index.internalId() == kTopLevel)
    return {m_nodes[index.row()].section, -1};
  const Node &node = m_nodes[static_cast<int>(index.internalId() - 1)];
  return {node.section, node.children[index.row()].id};
}

QModelIndex ProjectTreeModel::indexFor(const Selection &selection) const {
  for (int row = 0; row < m_nodes.size(); ++row) {
    const Node &node = m_nodes[row];
    if (node.section != selection.section)
      continue;
    if (selection.id < 0)
      return index(row, 0);
    for (int child = 0; child < node.children.size(); ++child)
      if (node.children[child].id == selection.id)
        return index(child, 0, index(row, 0));
  }
  return {};
}

} // namespace tpuc::ui
