// A graph view that also marks nodes: added / removed / changed by a pass, or related through provenance.
#ifndef TPUC_VISUALIZER_PASSGRAPHVIEW_H
#define TPUC_VISUALIZER_PASSGRAPHVIEW_H

#include "visualizer/GraphView.h"

#include <cstdint>
#include <vector>

namespace tpuc::vis {

enum class NodeMark : std::uint8_t { None, Added, Removed, Changed, Source, Related };

/// GraphView plus per-node marks drawn over the nodes (a coloured outline and a badge; removed nodes
/// also hatched), a collapsed cluster outlined when it hides a marked node, and a legend of the marks
/// in use in the bottom-left corner.
class PassGraphView : public GraphView {
  Q_OBJECT
public:
  explicit PassGraphView(QWidget *parent = nullptr);

  /// Marks per node of graph() (shorter: the rest unmarked). Call after setGraph.
  void setMarks(std::vector<NodeMark> marks);
  const std::vector<NodeMark> &marks() const { return m_marks; }
  /// Opens the clusters around `nodes` and centres the first one once laid out.
  void reveal(const std::vector<graph::NodeId> &nodes);

  static QColor markColor(NodeMark mark);
  static QString markName(NodeMark mark);

protected:
  void drawForeground(QPainter *painter, const QRectF &rect) override;

private:
  void centreOnPending();

  std::vector<NodeMark> m_marks;
  std::vector<NodeMark> m_clusterMarks;
  graph::NodeId m_pendingCentre = graph::kNoNode;
};

} // namespace tpuc::vis

#endif
