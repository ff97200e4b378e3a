// Two stages side by side with provenance.
#include "visualizer/SideBySide.h"

#include "tpuc/PassData/PassGraphDiff.h"

#include <QGridLayout>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

namespace tpuc::vis {

SideBySideView::SideBySideView(QWidget *parent)
    : QWidget(parent), m_left(new PassGraphView(this)), m_right(new PassGraphView(this)), m_leftTitle(new QLabel(this)),
      m_rightTitle(new QLabel(this)), m_status(new QLabel(this)) {
  auto *splitter = new QSplitter(Qt::Horizontal, this);
  auto column = [&](QLabel *title, PassGraphView *view) {
    auto *w = new QWidget(splitter);
    auto *l = new QVBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    QFont f = title->font();
    f.setBold(true);
    title->setFont(f);
    l->addWidget(title);
    l->addWidget(view, 1);
    splitter->addWidget(w);
  };
  column(m_leftTitle, m_left);
  column(m_rightTitle, m_right);
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(splitter, 1);
  layout->addWidget(m_status);
  connect(m_left, &GraphView::nodeSelected, this, [this](graph::NodeId id) { onSelected(0, id); });
  connect(m_right, &GraphView::nodeSelected, this, [this](graph::NodeId id) { onSelected(1, id); });
}

void SideBySideView::setStages(Stage left, Stage right) {
  m_stages[0] = std::move(left);
  m_stages[1] = std::move(right);
  if (m_stages[0].order <= m_stages[1].order) {
    m_provenance = mapProvenance(m_stages[0].ops, m_stages[1].ops);
  } else {
    m_provenance = mapProvenance(m_stages[1].ops, m_stages[0].ops);
    std::swap(m_provenance.forward, m_provenance.backward);
  }
  for (int side = 0; side < 2; ++side) {
    const Stage &s = m_stages[side];
    m_nodeRecord[side] = s.graph ? matchNodesToRecords(*s.graph, s.ops) : std::vector<std::int64_t>{};
    m_recordNode[side].assign(s.ops.size(), graph::kNoNode);
    for (std::size_t n = 0; n < m_nodeRecord[side].size(); ++n)
      if (m_nodeRecord[side][n] >= 0)
        m_recordNode[side][static_cast<std::size_t>(m_nodeRecord[side][n])] = static_cast<graph::NodeId>(n);
    view(side)->setGraph(s.graph);
    view(side)->setMarks({});
  }
  m_leftTitle->setText(m_stages[0].title);
  m_rightTitle->setText(m_stages[1].title);
  m_status->setText(tr("Select an op on either side to see what it became or came from."));
}

std::vector<graph::NodeId> SideBySideView::relatedNodes(int side, graph::NodeId id) const {
  const int other = 1 - side;
  std::vector<graph::NodeId> out;
  if (id >= m_nodeRecord[other].size() || m_nodeRecord[other][id] < 0)
    return out;
  auto record = static_cast<std::size_t>(m_nodeRecord[other][id]);
  // Node `id` is on side `other`; its records relate through forward (left → right) or backward.
  const auto &related = other == 0 ? m_provenance.forward[record] : m_provenance.backward[record];
  for (std::size_t r : related)
    if (r < m_recordNode[side].size() && m_recordNode[side][r] != graph::kNoNode)
      out.push_back(m_recordNode[side][r]);
  return out;
}

void SideBySideView::selectNode(int side, graph::NodeId id) { view(side)->selectNode(id); }

QString SideBySideView::statusText() const { return m_status->text(); }

void SideBySideView::onSelected(int side, graph::NodeId id) {
  if (m_syncing)
    return;
  m_syncing = true;
  const int other = 1 - side;
  const auto &g = m_stages[side].graph;
  std::vector<NodeMark> own, theirs;
  if (g && id < g->nodes.size()) {
    own.assign(g->nodes.size(), NodeMark::None);
    own[id] = NodeMark::Source;
    std::vector<graph::NodeId> related = relatedNodes(other, id);
    const auto &og = m_stages[other].graph;
    if (og) {
      theirs.assign(og->nodes.size(), NodeMark::None);
      for (graph::NodeId r : related)
        theirs[r] = NodeMark::Related;
    }
    QStringList names;
    for (graph::NodeId r : related)
      names << QStringLiteral("%1 (%2)").arg(QString::fromStdString(og->nodes[r].name),
                                             QString::fromStdString(og->nodes[r].op));
    const graph::Node &n = g->nodes[id];
    QString verb = side == 0 ? tr("became") : tr("came from");
    m_status->setText(related.empty()
                          ? tr("%1 (%2) has no counterpart in %3.")
                                .arg(QString::fromStdString(n.name), QString::fromStdString(n.op), m_stages[other].title)
                          : tr("%1 (%2) %3 %4 op(s) in %5: %6")
                                .arg(QString::fromStdString(n.name), QString::fromStdString(n.op), verb)
                                .arg(related.size())
                                .arg(m_stages[other].title, names.join(QStringLiteral(", "))));
    view(other)->setMarks(std::move(theirs));
    view(other)->reveal(related);
  } else {
    view(other)->setMarks({});
    m_status->setText(tr("Select an op on either side to see what it became or came from."));
  }
  view(side)->setMarks(std::move(own));
  m_syncing = false;
}

} // namespace tpuc::vis
