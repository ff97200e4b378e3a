// Paints a laid-out graph scene with level of detail; shared by the view, its exports and the minimap.
#ifndef TPUC_VISUALIZER_GRAPHPAINTER_H
#define TPUC_VISUALIZER_GRAPHPAINTER_H

#include "tpuc/GraphData/GraphLayout.h"
#include "visualizer/GraphOverlay.h"

#include <QFont>
#include <QHash>
#include <QPainterPath>
#include <QPalette>
#include <QRectF>
#include <QVector>

class QPainter;

namespace tpuc::vis {

/// How an item is emphasised.
enum class Highlight { None = 0, Selected, Producer, Consumer, Match };

/// A scene plus what painting needs fast: edge paths and a grid of item and edge indices for culling
/// and hit tests (the one hit-test path of the view).
class GraphPainter {
public:
  /// Builds paths and the index for `scene` of `graph` (both must outlive the painter's use).
  void setScene(const graph::Graph *graph, const graph::Scene *scene);
  /// Box sizes from the font: used by the layout so text fits the boxes it is drawn in.
  static graph::Measure measureFor(const QFont &font);

  /// Paints what intersects `exposed`. lod = on-screen pixels per scene point: below ~0.45 text is
  /// dropped, below ~0.15 edges become plain lines; labels of edges need ~0.7.
  void paint(QPainter *painter, const QRectF &exposed, double lod, const QFont &font, const QPalette &palette,
             const GraphOverlay &overlay, const QHash<int, Highlight> &highlights, graph::NodeId selected) const;

  /// The topmost item at a scene point (nodes and collapsed clusters before frames), or -1.
  int itemAt(QPointF p) const;
  /// Whether a point on a frame is on its title bar (double click there closes it).
  bool onFrameHeader(int item, QPointF p) const;
  QRectF itemRect(int item) const;
  /// Small tags drawn on a node's top-right corner ("F16": an op kept in float), by node id; a collapsed
  /// cluster holding tagged nodes shows how many.
  void setBadges(QHash<graph::NodeId, QString> badges) { m_badges = std::move(badges); }
  QString badge(graph::NodeId id) const { return m_badges.value(id); }

private:
  void paintBadge(QPainter *painter, const QRectF &node, const QString &text, const QFont &font) const;
  QHash<graph::NodeId, QString> m_badges;
  std::vector<int> query(const QRectF &r, bool edges) const;

  const graph::Graph *m_graph = nullptr;
  const graph::Scene *m_scene = nullptr;
  QVector<QPainterPath> m_edgePaths;
  QVector<QRectF> m_edgeBounds;
  std::vector<bool> m_showLabel;
  double m_cell = 400;
  int m_cols = 1, m_rows = 1;
  std::vector<std::vector<int>> m_itemGrid, m_edgeGrid;
  double m_frameHeader = 22;
};

} // namespace tpuc::vis

#endif
