// The graph view: layout jobs, interaction, minimap and legend around GraphPainter.
#include "visualizer/GraphView.h"

#include "visualizer/GraphPainter.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QFutureWatcher>
#include <QGraphicsItem>
#include <QImage>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPointer>
#include <QScrollBar>
#include <QStyleOptionGraphicsItem>
#include <QSvgGenerator>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>

namespace tpuc::vis {

/// The whole scene as one item: painting culls through GraphPainter's grid, so a 50,000-op scene
/// costs only what is on screen.
class GraphCanvas : public QGraphicsItem {
public:
  explicit GraphCanvas(GraphView *view) : m_view(view) { setFlag(ItemUsesExtendedStyleOption); }
  QRectF boundingRect() const override {
    return QRectF(-20, -20, m_view->m_scene.size.width + 40, m_view->m_scene.size.height + 40);
  }
  void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *) override {
    double lod = QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
    m_view->paintScene(painter, option->exposedRect, lod, m_view->palette());
  }
  void changed() { prepareGeometryChange(); }

private:
  GraphView *m_view;
};

/// A thumbnail of the whole scene with the visible part framed; click or drag to move there.
class GraphMinimap : public QWidget {
public:
  explicit GraphMinimap(GraphView *view) : QWidget(view), m_view(view) {
    setCursor(Qt::PointingHandCursor);
    setAttribute(Qt::WA_OpaquePaintEvent);
  }
  void invalidate() {
    m_pixmap = QPixmap();
    update();
  }

protected:
  void paintEvent(QPaintEvent *) override {
    QPainter p(this);
    const graph::Scene &scene = m_view->m_scene;
    QRectF target = rect().adjusted(4, 4, -4, -4);
    double scale = std::min(target.width() / std::max(1.0, scene.size.width),
                            target.height() / std::max(1.0, scene.size.height));
    m_transform = QTransform::fromTranslate(target.left(), target.top()).scale(scale, scale);
    if (m_pixmap.size() != size()) {
      m_pixmap = QPixmap(size());
      m_pixmap.fill(palette().color(QPalette::Base));
      QPainter mp(&m_pixmap);
      mp.setTransform(m_transform);
      mp.setPen(Qt::NoPen);
      for (const graph::PlacedItem &item : scene.items) {
        if (item.kind == graph::ItemKind::Frame)
          continue;
        QColor color = item.kind == graph::ItemKind::Collapsed ? m_view->m_overlay.clusterColor(item.ref)
                                                               : m_view->m_overlay.nodeColor(item.ref);
        mp.fillRect(QRectF(item.rect.x, item.rect.y, item.rect.width, item.rect.height), color);
      }
    }
    p.drawPixmap(0, 0, m_pixmap);
    QRectF visible = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
    p.setTransform(m_transform);
    QPen pen(palette().color(QPalette::Highlight), 2);
    pen.setCosmetic(true);
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    p.drawRect(visible);
    p.resetTransform();
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(rect().adjusted(0, 0, -1, -1));
  }
  void mousePressEvent(QMouseEvent *e) override { moveTo(e->position()); }
  void mouseMoveEvent(QMouseEvent *e) override { moveTo(e->position()); }

private:
  void moveTo(QPointF p) {
    bool ok = false;
    QTransform inverse = m_transform.inverted(&ok);
    if (ok)
      m_view->centerOn(inverse.map(p));
  }
  GraphView *m_view;
  QPixmap m_pixmap;
  QTransform m_transform;
};

/// The colour key of the current overlay.
class GraphLegend : public QWidget {
public:
  explicit GraphLegend(QWidget *parent) : QWidget(parent) { setAttribute(Qt::WA_TransparentForMouseEvents); }
  void setLegend(const Legend &legend) {
    m_legend = legend;
    QFontMetrics fm(font());
    int width = fm.horizontalAdvance(legend.title) + 16;
    for (const LegendEntry &e : legend.entries)
      width = std::max(width, fm.horizontalAdvance(e.text) + fm.height() * 2 + 16);
    width = std::max(width, fm.horizontalAdvance(legend.note) + 16);
    int lines = 1 + static_cast<int>(legend.entries.size()) + (legend.note.isEmpty() ? 0 : 1);
    resize(width, lines * fm.height() + 12);
    update();
  }

protected:
  void paintEvent(QPaintEvent *) override {
    QPainter p(this);
    QFontMetrics fm(font());
    QColor bg = palette().color(QPalette::Base);
    bg.setAlphaF(0.9f);
    p.setPen(palette().color(QPalette::Mid));
    p.setBrush(bg);
    p.drawRoundedRect(rect().adjusted(0, 0, -1, -1), 4, 4);
    int y = 6;
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(palette().color(QPalette::Text));
    p.drawText(8, y + fm.ascent(), m_legend.title);
    p.setFont(font());
    y += fm.height();
    for (const LegendEntry &e : m_legend.entries) {
      p.setPen(e.color.darker(140));
      p.setBrush(e.color);
      p.drawRect(8, y + 2, fm.height() + 4, fm.height() - 4);
      p.setPen(palette().color(QPalette::Text));
      p.drawText(16 + fm.height(), y + fm.ascent(), e.text);
      y += fm.height();
    }
    if (!m_legend.note.isEmpty()) {
      p.setPen(palette().color(QPalette::PlaceholderText));
      p.drawText(8, y + fm.ascent(), m_legend.note);
    }
  }

private:
  Legend m_legend;
};

GraphView::GraphView(QWidget *parent)
    : QGraphicsView(parent), m_qscene(new QGraphicsScene(this)), m_minimap(new GraphMinimap(this)),
      m_legend(new GraphLegend(this)), m_painter(std::make_unique<GraphPainter>()) {
  m_qscene->setItemIndexMethod(QGraphicsScene::NoIndex);
  setScene(m_qscene);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  setRenderHint(QPainter::Antialiasing);
  setBackgroundBrush(palette().color(QPalette::Base));
  setFocusPolicy(Qt::StrongFocus);
  m_canvas = new GraphCanvas(this);
  m_qscene->addItem(m_canvas);
  m_minimap->hide();
  m_legend->hide();
}

GraphView::~GraphView() = default;

void GraphView::paintScene(QPainter *painter, const QRectF &exposed, double lod, const QPalette &palette) const {
  QHash<int, Highlight> highlights;
  for (auto it = m_highlight.begin(); it != m_highlight.end(); ++it)
    highlights.insert(it.key(), static_cast<Highlight>(it.value()));
  m_painter->paint(painter, exposed, lod, font(), palette, m_overlay, highlights, m_selected);
}

void GraphView::setGraph(std::shared_ptr<const graph::Graph> graph) {
  m_graph = std::move(graph);
  m_selected = graph::kNoNode;
  m_highlight.clear();
  m_matches.clear();
  m_matchIndex = -1;
  m_expanded.assign(m_graph ? m_graph->clusters.size() : 0, false);
  m_overlay.setGraph(m_graph.get());
  m_engine = m_graph ? std::make_shared<graph::LayoutEngine>(m_graph, GraphPainter::measureFor(font())) : nullptr;
  m_fitAfterLayout = true;
  m_scene = {};
  m_painter->setScene(nullptr, nullptr);
  setNodeBadges(std::unordered_map<std::string, QString>(m_badgeNames));
  m_canvas->changed();
  updateDecorations();
  relayout();
}

void GraphView::relayout() {
  if (!m_engine)
    return;
  quint64 generation = ++m_generation;
  ++m_pending;
  std::shared_ptr<graph::LayoutEngine> engine = m_engine;
  std::vector<bool> expanded = m_expanded;
  auto *watcher = new QFutureWatcher<std::pair<graph::Scene, qint64>>(this);
  connect(watcher, &QFutureWatcher<std::pair<graph::Scene, qint64>>::finished, this, [this, watcher, generation] {
    std::pair<graph::Scene, qint64> result = watcher->result();
    watcher->deleteLater();
    --m_pending;
    // A newer request superseded this one: drop it.
    if (generation == m_generation)
      applyScene(std::move(result.first), generation, result.second);
  });
  watcher->setFuture(QtConcurrent::run([engine, expanded] {
    QElapsedTimer timer;
    timer.start();
    graph::Scene scene = engine->layout(expanded);
    return std::make_pair(std::move(scene), timer.elapsed());
  }));
}

void GraphView::applyScene(graph::Scene scene, quint64, qint64 ms) {
  // Keep the cluster that was toggled where it was on screen.
  QPointF anchorViewport;
  bool anchored = false;
  if (m_anchorCluster != graph::kRootCluster) {
    int before = m_scene.itemOfCluster(m_anchorCluster);
    if (before >= 0) {
      const graph::Rect &r = m_scene.items[static_cast<size_t>(before)].rect;
      anchorViewport = mapFromScene(QPointF(r.x + r.width / 2, r.y));
      anchored = true;
    }
  }
  m_lastLayoutMs = ms;
  m_canvas->changed();
  m_scene = std::move(scene);
  m_painter->setScene(m_graph.get(), &m_scene);
  m_qscene->setSceneRect(m_canvas->boundingRect());
  if (m_fitAfterLayout) {
    m_fitAfterLayout = false;
    fitToView();
  } else if (anchored) {
    int after = m_scene.itemOfCluster(m_anchorCluster);
    if (after >= 0) {
      const graph::Rect &r = m_scene.items[static_cast<size_t>(after)].rect;
      QPointF now = mapFromScene(QPointF(r.x + r.width / 2, r.y));
      QPointF delta = now - anchorViewport;
      horizontalScrollBar()->setValue(horizontalScrollBar()->value() + static_cast<int>(delta.x()));
      verticalScrollBar()->setValue(verticalScrollBar()->value() + static_cast<int>(delta.y()));
    }
  }
  m_anchorCluster = graph::kRootCluster;
  if (m_pendingCentre != graph::kNoNode) {
    int item = m_scene.itemOfNode(m_pendingCentre);
    if (item >= 0)
      centreReadable(m_painter->itemRect(item).center());
    m_pendingCentre = graph::kNoNode;
  }
  updateHighlights();
  updateDecorations();
  m_qscene->update();
  Q_EMIT layoutApplied();
}

graph::LayoutStats GraphView::layoutStats() const { return m_engine ? m_engine->stats() : graph::LayoutStats{}; }

bool GraphView::waitForLayout(int timeoutMs) {
  if (!isLayoutPending())
    return true;
  QEventLoop loop;
  QTimer timer;
  timer.setSingleShot(true);
  connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
  connect(this, &GraphView::layoutApplied, &loop, [&] {
    if (!isLayoutPending())
      loop.quit();
  });
  timer.start(timeoutMs);
  loop.exec();
  return !isLayoutPending();
}

bool GraphView::isExpanded(graph::ClusterId id) const {
  return id == graph::kRootCluster || (id < m_expanded.size() && m_expanded[id]);
}

void GraphView::setExpanded(graph::ClusterId id, bool expanded) {
  if (!m_graph || id == graph::kRootCluster || id >= m_expanded.size() || m_expanded[id] == expanded)
    return;
  m_expanded[id] = expanded;
  m_anchorCluster = id;
  relayout();
}

void GraphView::expandAll() {
  m_expanded.assign(m_expanded.size(), true);
  m_fitAfterLayout = true;
  relayout();
}

void GraphView::collapseAll() {
  m_expanded.assign(m_expanded.size(), false);
  m_fitAfterLayout = true;
  relayout();
}

void GraphView::revealNode(graph::NodeId id) {
  bool changed = false;
  for (graph::ClusterId c : m_graph->clusterPath(m_graph->nodes[id].cluster))
    if (c != graph::kRootCluster && !m_expanded[c]) {
      m_expanded[c] = true;
      changed = true;
    }
  if (changed) {
    m_pendingCentre = id;
    relayout();
  } else if (int item = m_scene.itemOfNode(id); item >= 0) {
    centreReadable(m_painter->itemRect(item).center());
  }
}

void GraphView::centreReadable(QPointF scenePos) {
  // A node found by search or selection should be legible: zoom in to where labels are drawn.
  if (transform().m11() < 0.8)
    setTransform(QTransform::fromScale(1.0, 1.0));
  centerOn(scenePos);
  updateMinimapVisibility();
}

void GraphView::selectNode(graph::NodeId id) {
  if (!m_graph || (id != graph::kNoNode && (id >= m_graph->nodes.size() || m_graph->nodes[id].constant)))
    id = graph::kNoNode;
  m_selected = id;
  if (id != graph::kNoNode)
    revealNode(id);
  updateHighlights();
  Q_EMIT nodeSelected(id);
}

QVector<graph::NodeId> GraphView::search(const QString &query, bool regex, QString *error) {
  m_matches.clear();
  m_matchIndex = -1;
  if (!m_graph)
    return m_matches;
  graph::SearchResult result =
      graph::find(*m_graph, query.toStdString(), regex ? graph::SearchMode::Regex : graph::SearchMode::Substring);
  if (!result.error.empty() && error)
    *error = QString::fromStdString(result.error);
  for (graph::NodeId n : result.nodes)
    m_matches.push_back(n);
  updateHighlights();
  if (!m_matches.isEmpty())
    nextMatch();
  return m_matches;
}

graph::NodeId GraphView::nextMatch() {
  if (m_matches.isEmpty())
    return graph::kNoNode;
  m_matchIndex = (m_matchIndex + 1) % static_cast<int>(m_matches.size());
  selectNode(m_matches[m_matchIndex]);
  return m_matches[m_matchIndex];
}

void GraphView::updateHighlights() {
  m_highlight.clear();
  if (!m_graph || m_scene.items.empty()) {
    viewport()->update();
    return;
  }
  // Where a node is drawn: itself, or the collapsed cluster holding it.
  QHash<quint32, int> nodeItem, clusterItem;
  for (size_t i = 0; i < m_scene.items.size(); ++i) {
    const graph::PlacedItem &item = m_scene.items[i];
    (item.kind == graph::ItemKind::Node ? nodeItem : clusterItem).insert(item.ref, static_cast<int>(i));
  }
  auto itemOf = [&](graph::NodeId n) -> int {
    if (auto it = nodeItem.find(n); it != nodeItem.end())
      return it.value();
    for (graph::ClusterId c : m_graph->clusterPath(m_graph->nodes[n].cluster))
      if (auto it = clusterItem.find(c); it != clusterItem.end())
        return it.value();
    return -1;
  };
  for (graph::NodeId n : m_matches)
    if (int i = itemOf(n); i >= 0)
      m_highlight.insert(i, static_cast<int>(Highlight::Match));
  if (m_selected != graph::kNoNode) {
    for (graph::NodeId p : m_graph->producers(m_selected))
      if (int i = itemOf(p); i >= 0)
        m_highlight.insert(i, static_cast<int>(Highlight::Producer));
    for (graph::NodeId c : m_graph->consumers(m_selected))
      if (int i = itemOf(c); i >= 0)
        m_highlight.insert(i, static_cast<int>(Highlight::Consumer));
    if (int i = itemOf(m_selected); i >= 0)
      m_highlight.insert(i, static_cast<int>(Highlight::Selected));
  }
  viewport()->update();
}

void GraphView::setOverlay(OverlayMode mode) {
  m_overlay.setMode(mode);
  updateDecorations();
  viewport()->update();
}

void GraphView::setNodeValues(OverlayMode mode, std::unordered_map<std::string, double> values) {
  m_overlay.setValues(mode, std::move(values));
  updateDecorations();
  viewport()->update();
}

void GraphView::setNodeBadges(const std::unordered_map<std::string, QString> &badges) {
  m_badgeNames = badges;
  QHash<graph::NodeId, QString> byId;
  if (m_graph)
    for (const auto &[name, text] : badges)
      if (graph::NodeId id = m_graph->findByName(name); id != graph::kNoNode)
        byId.insert(id, text);
  m_painter->setBadges(std::move(byId));
  viewport()->update();
}

QString GraphView::nodeBadge(graph::NodeId id) const { return m_painter->badge(id); }

void GraphView::fitToView() {
  if (m_scene.items.empty())
    return;
  fitInView(m_canvas->boundingRect(), Qt::KeepAspectRatio);
  // Never blow a small graph up beyond readable size.
  if (transform().m11() > 1.4)
    setTransform(QTransform::fromScale(1.4, 1.4));
  updateMinimapVisibility();
}

void GraphView::setMinimapVisible(bool visible) {
  m_minimapWanted = visible;
  updateDecorations();
}

void GraphView::updateDecorations() {
  m_legend->setLegend(m_overlay.legend());
  m_legend->setVisible(m_graph != nullptr);
  m_legend->move(8, 8);
  int w = std::max(120, viewport()->width() / 5), h = std::max(90, viewport()->height() / 5);
  m_minimap->resize(w, h);
  m_minimap->move(viewport()->width() - w - 8, viewport()->height() - h - 8);
  m_minimap->invalidate();
  updateMinimapVisibility();
}

void GraphView::updateMinimapVisibility() {
  // Only worth its space when part of the graph is off screen.
  QRectF visible = mapToScene(viewport()->rect()).boundingRect();
  bool clipped = !visible.contains(QRectF(0, 0, m_scene.size.width, m_scene.size.height));
  m_minimap->setVisible(m_minimapWanted && !m_scene.items.empty() && clipped);
  m_minimap->update();
}

void GraphView::resizeEvent(QResizeEvent *event) {
  QGraphicsView::resizeEvent(event);
  updateDecorations();
}

void GraphView::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  updateMinimapVisibility();
}

void GraphView::wheelEvent(QWheelEvent *event) {
  double factor = std::pow(1.0015, event->angleDelta().y());
  double current = transform().m11();
  if ((current > 8 && factor > 1) || (current < 0.005 && factor < 1))
    return;
  scale(factor, factor);
  updateMinimapVisibility();
  event->accept();
}

int GraphView::hitTest(QPointF scenePos) const { return m_painter->itemAt(scenePos); }

void GraphView::mousePressEvent(QMouseEvent *event) {
  if (event->button() == Qt::LeftButton) {
    int item = hitTest(mapToScene(event->position().toPoint()));
    if (item >= 0 && m_scene.items[static_cast<size_t>(item)].kind == graph::ItemKind::Node)
      selectNode(m_scene.items[static_cast<size_t>(item)].ref);
  }
  QGraphicsView::mousePressEvent(event);
}

void GraphView::mouseDoubleClickEvent(QMouseEvent *event) {
  QPointF p = mapToScene(event->position().toPoint());
  int item = hitTest(p);
  if (item < 0)
    return;
  const graph::PlacedItem &placed = m_scene.items[static_cast<size_t>(item)];
  if (placed.kind == graph::ItemKind::Collapsed)
    setExpanded(placed.ref, true);
  else if (placed.kind == graph::ItemKind::Frame && m_painter->onFrameHeader(item, p))
    setExpanded(placed.ref, false);
}

void GraphView::keyPressEvent(QKeyEvent *event) {
  switch (event->key()) {
  case Qt::Key_F: fitToView(); return;
  case Qt::Key_Plus:
  case Qt::Key_Equal: scale(1.25, 1.25); return;
  case Qt::Key_Minus: scale(0.8, 0.8); return;
  case Qt::Key_Escape: selectNode(graph::kNoNode); return;
  case Qt::Key_N:
  case Qt::Key_F3: nextMatch(); return;
  default: QGraphicsView::keyPressEvent(event);
  }
}

bool GraphView::exportSvg(const QString &path, QString *error) const {
  if (m_scene.items.empty()) {
    if (error)
      *error = tr("nothing to export: the graph is not laid out yet");
    return false;
  }
  QRectF bounds = m_canvas->boundingRect();
  QSvgGenerator svg;
  svg.setFileName(path);
  svg.setSize(bounds.size().toSize());
  svg.setViewBox(QRectF(QPointF(0, 0), bounds.size()));
  svg.setTitle(QString::fromStdString(m_graph->title.empty() ? m_graph->source : m_graph->title));
  QPainter painter;
  if (!painter.begin(&svg)) {
    if (error)
      *error = tr("cannot write %1").arg(path);
    return false;
  }
  painter.translate(-bounds.topLeft());
  QPalette light; // exports are for documents: always the light palette
  m_painter->paint(&painter, bounds, 1.0, font(), light, m_overlay, {}, graph::kNoNode);
  painter.end();
  return true;
}

bool GraphView::exportPng(const QString &path, QString *error, double scale) const {
  if (m_scene.items.empty()) {
    if (error)
      *error = tr("nothing to export: the graph is not laid out yet");
    return false;
  }
  QRectF bounds = m_canvas->boundingRect();
  // Stay below QImage's limits on huge graphs (detail drops with the scale, as on screen).
  scale = std::min(scale, 16000.0 / std::max(bounds.width(), bounds.height()));
  QImage image((bounds.size() * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
  if (image.isNull()) {
    if (error)
      *error = tr("the graph is too large for an image");
    return false;
  }
  image.fill(Qt::white);
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.scale(scale, scale);
  painter.translate(-bounds.topLeft());
  QPalette light;
  m_painter->paint(&painter, bounds, scale, font(), light, m_overlay, {}, graph::kNoNode);
  painter.end();
  if (!image.save(path, "PNG")) {
    if (error)
      *error = tr("cannot write %1").arg(path);
    return false;
  }
  return true;
}

} // namespace tpuc::vis
