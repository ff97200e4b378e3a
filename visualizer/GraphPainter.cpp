// Level-of-detail painting of a laid-out graph scene, with a grid index for culling and hit tests.
#include "visualizer/GraphPainter.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

namespace tpuc::vis {

namespace {

QColor textOn(const QColor &background) {
  return background.lightnessF() > 0.6 ? QColor(0x20, 0x20, 0x20) : QColor(Qt::white);
}

QColor highlightColor(Highlight h, const QPalette &palette) {
  switch (h) {
  case Highlight::Selected: return palette.color(QPalette::Highlight);
  case Highlight::Producer: return QColor(0x1f, 0x77, 0xd4);
  case Highlight::Consumer: return QColor(0xe0, 0x6c, 0x00);
  case Highlight::Match: return QColor(0xe8, 0xc5, 0x00);
  default: return {};
  }
}

QStringList toQt(const std::vector<std::string> &lines) {
  QStringList out;
  for (const std::string &l : lines)
    out << QString::fromStdString(l);
  return out;
}

QRectF toQt(const graph::Rect &r) { return QRectF(r.x, r.y, r.width, r.height); }

} // namespace

graph::Measure GraphPainter::measureFor(const QFont &font) {
  // Per-character estimates from the font, not a text layout per node: the measure runs on the layout
  // thread, and 50,000 nodes must be measured in milliseconds. Drawing elides what does not fit.
  QFontMetricsF fm(font);
  QFont bold = font;
  bold.setBold(true);
  QFontMetricsF fmBold(bold);
  const QString sample = QStringLiteral("conv1/Conv_2 layers.3.mlp k 3x3 s 2x2 matmul");
  double charWidth = std::max(fm.horizontalAdvance(sample), fmBold.horizontalAdvance(sample)) / sample.size();
  double line = fm.lineSpacing();
  graph::Measure m;
  auto box = [charWidth, line](const std::vector<std::string> &lines, double extra) {
    size_t chars = 0;
    for (const std::string &l : lines)
      chars = std::max(chars, static_cast<size_t>(QString::fromStdString(l).size()));
    return graph::Size{std::max(12 * charWidth, charWidth * static_cast<double>(chars) + 2 * charWidth + extra),
                       line * static_cast<double>(lines.size()) + 0.8 * line + extra};
  };
  m.node = [box](const graph::Graph &g, const graph::Node &n) { return box(graph::nodeLabelLines(g, n), 0); };
  m.collapsed = [box, line](const graph::Graph &g, const graph::Cluster &c) {
    return box(graph::clusterLabelLines(g, c), line * 0.6);
  };
  m.frameHeader = line * 1.5;
  m.framePadding = line * 0.6;
  return m;
}

void GraphPainter::setScene(const graph::Graph *graph, const graph::Scene *scene) {
  m_graph = graph;
  m_scene = scene;
  m_edgePaths.clear();
  m_edgeBounds.clear();
  m_showLabel.clear();
  m_itemGrid.clear();
  m_edgeGrid.clear();
  if (!graph || !scene)
    return;
  // One label per source and tensor: a value used by 24 layers (an attention mask) is labelled once.
  std::set<std::pair<uint32_t, std::string>> labelled;
  for (const graph::PlacedEdge &e : scene->edges) {
    m_showLabel.push_back(labelled.insert({e.fromItem, e.label}).second);
    QPainterPath path;
    if (!e.path.empty()) {
      path.moveTo(e.path[0].x, e.path[0].y);
      for (size_t i = 1; i + 2 < e.path.size(); i += 3)
        path.cubicTo(e.path[i].x, e.path[i].y, e.path[i + 1].x, e.path[i + 1].y, e.path[i + 2].x, e.path[i + 2].y);
    }
    m_edgeBounds.push_back(path.controlPointRect().adjusted(-6, -6, 6, 6));
    m_edgePaths.push_back(std::move(path));
  }
  // About 64 items per cell on average, at least 200 points.
  double area = std::max(1.0, scene->size.width * scene->size.height);
  m_cell = std::max(200.0, std::sqrt(area * 64 / std::max<size_t>(1, scene->items.size())));
  m_cols = std::max(1, static_cast<int>(std::ceil(scene->size.width / m_cell)) + 1);
  m_rows = std::max(1, static_cast<int>(std::ceil(scene->size.height / m_cell)) + 1);
  m_itemGrid.assign(static_cast<size_t>(m_cols * m_rows), {});
  m_edgeGrid.assign(static_cast<size_t>(m_cols * m_rows), {});
  auto insert = [&](std::vector<std::vector<int>> &grid, const QRectF &r, int index) {
    int x0 = std::clamp(static_cast<int>(r.left() / m_cell), 0, m_cols - 1);
    int x1 = std::clamp(static_cast<int>(r.right() / m_cell), 0, m_cols - 1);
    int y0 = std::clamp(static_cast<int>(r.top() / m_cell), 0, m_rows - 1);
    int y1 = std::clamp(static_cast<int>(r.bottom() / m_cell), 0, m_rows - 1);
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x)
        grid[static_cast<size_t>(y * m_cols + x)].push_back(index);
  };
  for (size_t i = 0; i < scene->items.size(); ++i)
    insert(m_itemGrid, toQt(scene->items[i].rect), static_cast<int>(i));
  for (int i = 0; i < m_edgeBounds.size(); ++i)
    insert(m_edgeGrid, m_edgeBounds[i], i);
}

std::vector<int> GraphPainter::query(const QRectF &r, bool edges) const {
  std::vector<int> out;
  if (!m_scene || m_itemGrid.empty())
    return out;
  const auto &grid = edges ? m_edgeGrid : m_itemGrid;
  int x0 = std::clamp(static_cast<int>(std::floor(r.left() / m_cell)), 0, m_cols - 1);
  int x1 = std::clamp(static_cast<int>(std::floor(r.right() / m_cell)), 0, m_cols - 1);
  int y0 = std::clamp(static_cast<int>(std::floor(r.top() / m_cell)), 0, m_rows - 1);
  int y1 = std::clamp(static_cast<int>(std::floor(r.bottom() / m_cell)), 0, m_rows - 1);
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x)
      for (int i : grid[static_cast<size_t>(y * m_cols + x)])
        out.push_back(i);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

QRectF GraphPainter::itemRect(int item) const {
  return m_scene && item >= 0 && static_cast<size_t>(item) < m_scene->items.size()
             ? toQt(m_scene->items[static_cast<size_t>(item)].rect)
             : QRectF();
}

int GraphPainter::itemAt(QPointF p) const {
  int best = -1;
  int bestRank = -1;
  for (int i : query(QRectF(p, QSizeF(0.01, 0.01)), false)) {
    const graph::PlacedItem &item = m_scene->items[static_cast<size_t>(i)];
    if (!toQt(item.rect).contains(p))
      continue;
    int rank = item.kind == graph::ItemKind::Frame ? item.depth : 1000;
    if (rank > bestRank) {
      best = i;
      bestRank = rank;
    }
  }
  return best;
}

bool GraphPainter::onFrameHeader(int item, QPointF p) const {
  QRectF r = itemRect(item);
  return r.contains(p) && p.y() < r.top() + m_frameHeader;
}

void GraphPainter::paint(QPainter *painter, const QRectF &exposed, double lod, const QFont &font,
                         const QPalette &palette, const GraphOverlay &overlay, const QHash<int, Highlight> &highlights,
                         graph::NodeId selected) const {
  if (!m_scene || !m_graph)
    return;
  const graph::Graph &g = *m_graph;
  const bool text = lod >= 0.45;
  const bool edgeLabels = lod >= 0.7;
  const bool curves = lod >= 0.15;
  QFontMetricsF fm(font);
  QFont bold = font;
  bold.setBold(true);
  QFont small = font;
  small.setPointSizeF(font.pointSizeF() > 0 ? font.pointSizeF() * 0.8 : 8);
  const double line = fm.lineSpacing();
  const QColor textColor = palette.color(QPalette::Text);
  const QColor base = palette.color(QPalette::Base);
  const QColor edgeColor = palette.color(QPalette::Mid).darker(130);

  std::vector<int> items = query(exposed, false);
  painter->setRenderHint(QPainter::Antialiasing, lod >= 0.3);

  // Frames first (outer before inner: placement order), then edges, then boxes.
  for (int i : items) {
    const graph::PlacedItem &item = m_scene->items[static_cast<size_t>(i)];
    if (item.kind != graph::ItemKind::Frame)
      continue;
    QRectF r = toQt(item.rect);
    QColor frame = palette.color(QPalette::Mid);
    QColor fill = palette.color(QPalette::AlternateBase);
    fill.setAlphaF(0.35f);
    painter->setPen(QPen(frame, 1, Qt::DashLine));
    painter->setBrush(fill);
    painter->drawRoundedRect(r, 6, 6);
    if (text) {
      painter->setFont(bold);
      painter->setPen(textColor);
      const graph::Cluster &c = g.clusters[item.ref];
      QString title = QString::fromStdString(c.label) + QStringLiteral("  ·  %1 ops").arg(c.totalNodes);
      painter->drawText(r.adjusted(8, 2, -8, 0), Qt::AlignLeft | Qt::AlignTop,
                        QFontMetricsF(bold).elidedText(title, Qt::ElideMiddle, r.width() - 16));
    }
  }

  std::vector<int> edges = query(exposed, true);
  for (int e : edges) {
    const graph::PlacedEdge &pe = m_scene->edges[static_cast<size_t>(e)];
    if (!m_edgeBounds[e].intersects(exposed) || pe.path.empty())
      continue;
    bool touches = selected != graph::kNoNode && (pe.from == selected || pe.to == selected);
    QColor color = touches ? (pe.from == selected ? highlightColor(Highlight::Consumer, palette)
                                                  : highlightColor(Highlight::Producer, palette))
                           : edgeColor;
    painter->setPen(QPen(color, touches ? 2.2 : 1.1, pe.crossLevel ? Qt::DashLine : Qt::SolidLine));
    painter->setBrush(Qt::NoBrush);
    const graph::Point &end = pe.path.back();
    if (curves) {
      painter->drawPath(m_edgePaths[e]);
    } else {
      painter->drawLine(QPointF(pe.path.front().x, pe.path.front().y), QPointF(end.x, end.y));
      continue;
    }
    // Arrowhead along the last distinct direction.
    QPointF tip(end.x, end.y), from = tip;
    for (size_t k = pe.path.size() - 1; k-- > 0;) {
      from = QPointF(pe.path[k].x, pe.path[k].y);
      if (QLineF(from, tip).length() > 0.5)
        break;
    }
    QLineF dir(tip, from);
    if (dir.length() > 0.1) {
      dir.setLength(7);
      QLineF left = dir, right = dir;
      left.setAngle(dir.angle() + 25);
      right.setAngle(dir.angle() - 25);
      painter->setBrush(color);
      painter->setPen(Qt::NoPen);
      painter->drawPolygon(QPolygonF({tip, left.p2(), right.p2()}));
    }
    if (edgeLabels && m_showLabel[e]) {
      QPointF mid = m_edgePaths[e].pointAtPercent(0.5);
      QString label = QString::fromStdString(pe.label);
      if (pe.count > 1)
        label += QStringLiteral(" ×%1").arg(pe.count);
      painter->setFont(small);
      painter->setPen(palette.color(QPalette::PlaceholderText));
      painter->drawText(QPointF(mid.x() + 4, mid.y() + line * 0.3), label);
    }
  }

  for (int i : items) {
    const graph::PlacedItem &item = m_scene->items[static_cast<size_t>(i)];
    if (item.kind == graph::ItemKind::Frame)
      continue;
    QRectF r = toQt(item.rect);
    Highlight h = highlights.value(i, Highlight::None);
    bool collapsed = item.kind == graph::ItemKind::Collapsed;
    QColor color = collapsed ? overlay.clusterColor(item.ref) : overlay.nodeColor(item.ref);
    QPen border(h == Highlight::None ? color.darker(150) : highlightColor(h, palette),
                h == Highlight::None ? 1.0 : (h == Highlight::Selected ? 3.0 : 2.4));
    if (collapsed) {
      // A stacked look: the cluster has more inside.
      painter->setPen(QPen(color.darker(150), 1));
      painter->setBrush(color.darker(115));
      painter->drawRoundedRect(r.translated(4, 4), 5, 5);
    }
    if (!text) {
      painter->setPen(lod >= 0.15 || h != Highlight::None ? border : Qt::NoPen);
      painter->setBrush(color);
      painter->drawRect(r);
      continue;
    }
    painter->setPen(border);
    if (collapsed) {
      painter->setBrush(color);
      painter->drawRoundedRect(r, 5, 5);
      QStringList lines = toQt(graph::clusterLabelLines(g, g.clusters[item.ref]));
      painter->setPen(textOn(color));
      painter->setFont(bold);
      painter->drawText(QRectF(r.left(), r.top() + line * 0.4, r.width(), line), Qt::AlignHCenter,
                        QFontMetricsF(bold).elidedText(lines.value(0), Qt::ElideMiddle, r.width() - 8));
      painter->setFont(font);
      painter->drawText(QRectF(r.left(), r.top() + line * 1.4, r.width(), line), Qt::AlignHCenter, lines.value(1));
      if (!m_badges.isEmpty()) {
        int tagged = 0;
        for (auto it = m_badges.begin(); it != m_badges.end(); ++it)
          for (graph::ClusterId c = it.key() < g.nodes.size() ? g.nodes[it.key()].cluster
                                                              : graph::kRootCluster;
               c != graph::kRootCluster; c = g.clusters[c].parent)
            if (c == item.ref) {
              ++tagged;
              break;
            }
        if (tagged)
          paintBadge(painter, r, QStringLiteral("%1 float").arg(tagged), small);
      }
      continue;
    }
    // Node: a coloured title band with the op type, the name and key attributes below.
    const graph::Node &node = g.nodes[item.ref];
    QStringList lines = toQt(graph::nodeLabelLines(g, node));
    double band = line * 1.3;
    painter->setBrush(base);
    painter->drawRoundedRect(r, 4, 4);
    QRectF top(r.left(), r.top(), r.width(), band);
    painter->save();
    painter->setClipRect(top);
    painter->setBrush(color);
    painter->drawRoundedRect(r, 4, 4);
    painter->restore();
    painter->setFont(bold);
    painter->setPen(textOn(color));
    painter->drawText(top, Qt::AlignCenter, QFontMetricsF(bold).elidedText(lines.value(0), Qt::ElideRight, r.width() - 6));
    painter->setFont(font);
    painter->setPen(textColor);
    for (int k = 1; k < lines.size(); ++k) {
      QRectF lr(r.left() + 3, r.top() + band + (k - 1) * line + line * 0.15, r.width() - 6, line);
      if (lr.bottom() > r.bottom() + 1)
        break;
      painter->drawText(lr, Qt::AlignHCenter | Qt::AlignVCenter, fm.elidedText(lines[k], Qt::ElideMiddle, lr.width()));
    }
    if (auto it = m_badges.constFind(item.ref); it != m_badges.constEnd())
      paintBadge(painter, r, *it, small);
  }
}

void GraphPainter::paintBadge(QPainter *painter, const QRectF &node, const QString &text,
                              const QFont &font) const {
  // A vermillion pill over the node's top-right corner: the same in light and dark themes, and apart from
  // every overlay ramp and category colour.
  const QFontMetricsF fm(font);
  const double h = fm.height() + 2, w = fm.horizontalAdvance(text) + h * 0.8;
  const QRectF pill(node.right() - w + h * 0.3, node.top() - h * 0.55, w, h);
  painter->save();
  painter->setPen(QPen(QColor(0x8a, 0x3a, 0x00), 1));
  painter->setBrush(QColor(0xd5, 0x5e, 0x00));
  painter->drawRoundedRect(pill, h / 2, h / 2);
  painter->setFont(font);
  painter->setPen(Qt::white);
  painter->drawText(pill, Qt::AlignCenter, text);
  painter->restore();
}

} // namespace tpuc::vis
