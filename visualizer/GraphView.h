// A zoomable view of a plain-data graph: dot layout off the UI thread, clusters opened on demand.
#ifndef TPUC_VISUALIZER_GRAPHVIEW_H
#define TPUC_VISUALIZER_GRAPHVIEW_H

#include "tpuc/GraphData/GraphData.h"
#include "tpuc/GraphData/GraphLayout.h"
#include "visualizer/GraphOverlay.h"

#include <QGraphicsView>
#include <QHash>
#include <QVector>

#include <memory>

namespace tpuc::vis {

class GraphCanvas;
class GraphMinimap;
class GraphLegend;
class GraphPainter;

/// Shows one graph. Nodes are drawn with their type, short name and key attributes, edges with shape
/// and dtype; clusters start collapsed and open with a double click (the layout of each level runs
/// once, on a worker thread, and is cached; identical blocks share one). Wheel zooms, drag pans, F fits.
/// A click selects a node and highlights its producers (blue) and consumers (orange).
/// The view has no application state: whoever owns it listens to nodeSelected and feeds overlays.
class GraphView : public QGraphicsView {
  Q_OBJECT
public:
  explicit GraphView(QWidget *parent = nullptr);
  ~GraphView() override;

  /// Shows `graph` with every cluster collapsed; the layout runs off the UI thread.
  void setGraph(std::shared_ptr<const graph::Graph> graph);
  std::shared_ptr<const graph::Graph> graph() const { return m_graph; }

  /// Opens or closes a cluster (re-layout off the UI thread, cached per level).
  void setExpanded(graph::ClusterId id, bool expanded);
  bool isExpanded(graph::ClusterId id) const;
  void expandAll();
  void collapseAll();
  /// Which clusters are open, by ClusterId.
  const std::vector<bool> &expandedState() const { return m_expanded; }

  /// Selects a node, opening the clusters around it and centring it; kNoNode clears.
  void selectNode(graph::NodeId id);
  graph::NodeId selectedNode() const { return m_selected; }
  /// Highlights the matches of a name/type/category query (substring or regex) and selects the first.
  /// Returns the matches; a bad regex gives an empty list and `error`.
  QVector<graph::NodeId> search(const QString &query, bool regex, QString *error = nullptr);
  /// Selects the next match of the last search (wrapping); kNoNode if none.
  graph::NodeId nextMatch();

  /// Colouring and the data behind it (see GraphOverlay.h).
  void setOverlay(OverlayMode mode);
  OverlayMode overlay() const { return m_overlay.mode(); }
  /// The number the current overlay shows for a node (NaN when none).
  double overlayValue(graph::NodeId id) const { return m_overlay.nodeValue(id); }
  /// Per-node values by node name for the Cycles and Cosine modes (e.g. from a run's results).
  void setNodeValues(OverlayMode mode, std::unordered_map<std::string, double> values);
  /// Tags nodes by name with a short text on their corner (e.g. "F16" for ops kept in float); names the
  /// graph does not have are ignored. Replaces the previous tags.
  void setNodeBadges(const std::unordered_map<std::string, QString> &badges);
  /// The tag of a node, empty when none.
  QString nodeBadge(graph::NodeId id) const;

  void fitToView();
  void setMinimapVisible(bool visible);

  /// Writes what is shown (the whole laid-out scene, full detail). One-line errors.
  bool exportSvg(const QString &path, QString *error) const;
  bool exportPng(const QString &path, QString *error, double scale = 2.0) const;

  /// True while a layout is running. Tests and screenshots wait with waitForLayout().
  bool isLayoutPending() const { return m_pending > 0; }
  bool waitForLayout(int timeoutMs = 60000);
  const graph::Scene &layoutScene() const { return m_scene; }
  graph::LayoutStats layoutStats() const;
  /// Milliseconds of the last layout (worker) and of applying it (UI thread).
  qint64 lastLayoutMs() const { return m_lastLayoutMs; }

Q_SIGNALS:
  /// The user selected a node (click, search, selectNode); kNoNode when cleared.
  void nodeSelected(tpuc::graph::NodeId id);
  /// A new layout is shown.
  void layoutApplied();

protected:
  void wheelEvent(QWheelEvent *event) override;
  void mousePressEvent(QMouseEvent *event) override;
  void mouseDoubleClickEvent(QMouseEvent *event) override;
  void keyPressEvent(QKeyEvent *event) override;
  void resizeEvent(QResizeEvent *event) override;
  void scrollContentsBy(int dx, int dy) override;

private:
  friend class GraphCanvas;
  friend class GraphMinimap;
  void paintScene(QPainter *painter, const QRectF &exposed, double lod, const QPalette &palette) const;
  void relayout();
  void applyScene(graph::Scene scene, quint64 generation, qint64 ms);
  int hitTest(QPointF scenePos) const;
  void revealNode(graph::NodeId id);
  void centreReadable(QPointF scenePos);
  void updateHighlights();
  void updateDecorations();
  void updateMinimapVisibility();

  std::shared_ptr<const graph::Graph> m_graph;
  std::unordered_map<std::string, QString> m_badgeNames; ///< setNodeBadges, re-applied to a new graph
  std::shared_ptr<graph::LayoutEngine> m_engine;
  std::vector<bool> m_expanded;
  graph::Scene m_scene;
  QGraphicsScene *m_qscene;
  GraphCanvas *m_canvas = nullptr;
  GraphMinimap *m_minimap;
  GraphLegend *m_legend;
  GraphOverlay m_overlay;
  std::unique_ptr<GraphPainter> m_painter;
  bool m_minimapWanted = true;
  graph::ClusterId m_anchorCluster = graph::kRootCluster; ///< kept in place across a relayout

  graph::NodeId m_selected = graph::kNoNode;
  QHash<int, int> m_highlight; ///< scene item → 1 selected, 2 producer, 3 consumer, 4 search match
  QVector<graph::NodeId> m_matches;
  int m_matchIndex = -1;
  graph::NodeId m_pendingCentre = graph::kNoNode;
  bool m_fitAfterLayout = true;

  quint64 m_generation = 0;
  int m_pending = 0;
  qint64 m_lastLayoutMs = 0;
};

} // namespace tpuc::vis

#endif
