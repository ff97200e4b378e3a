// A graph view with diff and provenance marks.
#include "visualizer/PassGraphView.h"

#include <QPainter>
#include <QPainterPath>

namespace tpuc::vis {

PassGraphView::PassGraphView(QWidget *parent) : GraphView(parent) {
  connect(this, &GraphView::layoutApplied, this, [this] {
    centreOnPending();
    viewport()->update();
  });
}

QColor PassGraphView::markColor(NodeMark mark) {
  switch (mark) {
  case NodeMark::Added: return QColor(0x1f, 0xa0, 0x46);
  case NodeMark::Removed: return QColor(0xd6, 0x2f, 0x2f);
  case NodeMark::Changed: return QColor(0xe8, 0x96, 0x00);
  case NodeMark::Source: return QColor(0x25, 0x63, 0xeb);
  case NodeMark::Related: return QColor(0xc0, 0x26, 0xd3);
  case NodeMark::None: break;
  }
  return {};
}

QString PassGraphView::markName(NodeMark mark) {
  switch (mark) {
  case NodeMark::Added: return tr("added");
  case NodeMark::Removed: return tr("removed");
  case NodeMark::Changed: return tr("changed");
  case NodeMark::Source: return tr("selected");
  case NodeMark::Related: return tr("became / came from");
  case NodeMark::None: break;
  }
  return {};
}

void PassGraphView::setMarks(std::vector<NodeMark> marks) {
  m_marks = std::move(marks);
  m_clusterMarks.clear();
  if (const auto &g = graph()) {
    m_marks.resize(g->nodes.size(), NodeMark::None);
    m_clusterMarks.assign(g->clusters.size(), NodeMark::None);
    for (const graph::Node &n : g->nodes) {
      NodeMark mark = m_marks[n.id];
      if (mark == NodeMark::None || n.constant)
        continue;
      // A collapsed cluster shows the first mark inside in the order added, removed, changed, selected,
      // related.
      for (graph::ClusterId c = n.cluster; c != graph::kRootCluster; c = g->clusters[c].parent) {
        NodeMark &cm = m_clusterMarks[c];
        if (cm == NodeMark::None || static_cast<int>(mark) < static_cast<int>(cm))
          cm = mark;
      }
    }
  }
  viewport()->update();
}

void PassGraphView::reveal(const std::vector<graph::NodeId> &nodes) {
  const auto &g = graph();
  if (!g || nodes.empty())
    return;
  bool relayout = false;
  for (graph::NodeId id : nodes) {
    if (id >= g->nodes.size())
      continue;
    for (graph::ClusterId c : g->clusterPath(g->nodes[id].cluster))
      if (c != graph::kRootCluster && !isExpanded(c)) {
        setExpanded(c, true);
        relayout = true;
      }
  }
  m_pendingCentre = nodes.front();
  if (!relayout && !isLayoutPending())
    centreOnPending();
}

void PassGraphView::centreOnPending() {
  if (m_pendingCentre == graph::kNoNode)
    return;
  int item = layoutScene().itemOfNode(m_pendingCentre);
  if (item < 0)
    return;
  const graph::Rect &r = layoutScene().items[static_cast<std::size_t>(item)].rect;
  // Like a selection in the graph view: the counterpart should be legible, not a dot in a fitted graph.
  if (transform().m11() < 0.8)
    setTransform(QTransform::fromScale(1.0, 1.0));
  centerOn(QPointF(r.x + r.width / 2, r.y + r.height / 2));
  m_pendingCentre = graph::kNoNode;
}

void PassGraphView::drawForeground(QPainter *painter, const QRectF &exposed) {
  GraphView::drawForeground(painter, exposed);
  const auto &g = graph();
  if (!g || m_marks.empty())
    return;
  const graph::Scene &scene = layoutScene();
  std::vector<bool> used(6, false);
  painter->save();
  painter->setRenderHint(QPainter::Antialiasing);
  QFont badgeFont = font();
  badgeFont.setBold(true);
  for (const graph::PlacedItem &item : scene.items) {
    NodeMark mark = NodeMark::None;
    if (item.kind == graph::ItemKind::Node && item.ref < m_marks.size())
      mark = m_marks[item.ref];
    else if (item.kind == graph::ItemKind::Collapsed && item.ref < m_clusterMarks.size())
      mark = m_clusterMarks[item.ref];
    if (mark == NodeMark::None)
      continue;
    used[static_cast<std::size_t>(mark)] = true;
    QRectF r(item.rect.x, item.rect.y, item.rect.width, item.rect.height);
    if (!r.intersects(exposed.adjusted(-20, -20, 20, 20)))
      continue;
    QColor c = markColor(mark);
    if (mark == NodeMark::Removed && item.kind == graph::ItemKind::Node) {
      QColor fill = c;
      fill.setAlphaF(0.18f);
      painter->fillRect(r, QBrush(fill, Qt::BDiagPattern));
    }
    QPen pen(c, 3.5);
    pen.setCosmetic(true);
    if (mark == NodeMark::Removed || item.kind == graph::ItemKind::Collapsed)
      pen.setStyle(Qt::DashLine);
    painter->setPen(pen);
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(r.adjusted(-3, -3, 3, 3), 6, 6);
    // A badge in the top-right corner: + − ~ for diffs.
    QString badge = mark == NodeMark::Added ? QStringLiteral("+")
                    : mark == NodeMark::Removed ? QStringLiteral("−")
                    : mark == NodeMark::Changed ? QStringLiteral("~")
                                                : QString();
    if (!badge.isEmpty()) {
      QRectF b(r.right() - 7, r.top() - 9, 16, 16);
      painter->setPen(Qt::NoPen);
      painter->setBrush(c);
      painter->drawEllipse(b);
      painter->setPen(Qt::white);
      painter->setFont(badgeFont);
      painter->drawText(b, Qt::AlignCenter, badge);
    }
  }
  painter->restore();

  // Legend of the marks shown, bottom-left, in viewport coordinates.
  QStringList names;
  std::vector<QColor> colors;
  for (NodeMark m : {NodeMark::Added, NodeMark::Removed, NodeMark::Changed, NodeMark::Source, NodeMark::Related})
    if (used[static_cast<std::size_t>(m)]) {
      names << markName(m);
      colors.push_back(markColor(m));
    }
  if (names.isEmpty())
    return;
  painter->save();
  painter->resetTransform();
  QFontMetrics fm(font());
  const int pad = fm.height() / 3, swatch = fm.height() - 4;
  int width = pad;
  for (const QString &n : names)
    width += swatch + pad + fm.horizontalAdvance(n) + 2 * pad;
  QRect box(8, viewport()->height() - fm.height() - 2 * pad - 8, width, fm.height() + 2 * pad);
  QColor bg = palette().color(QPalette::Base);
  bg.setAlphaF(0.9f);
  painter->setPen(palette().color(QPalette::Mid));
  painter->setBrush(bg);
  painter->drawRoundedRect(box, 4, 4);
  int x = box.left() + pad;
  for (int i = 0; i < names.size(); ++i) {
    QRect sw(x, box.top() + pad + 2, swatch, swatch);
    QPen pen(colors[static_cast<std::size_t>(i)], 3);
    painter->setPen(pen);
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(sw, 3, 3);
    x += swatch + pad;
    painter->setPen(palette().color(QPalette::Text));
    painter->drawText(QRect(x, box.top() + pad, fm.horizontalAdvance(names[i]) + pad, fm.height()), Qt::AlignVCenter,
                      names[i]);
    x += fm.horizontalAdvance(names[i]) + 2 * pad;
  }
  painter->restore();
}

} // namespace tpuc::vis
