// Two stages of a model in synchronized graph views, linked by provenance from MLIR locations.
#ifndef TPUC_VISUALIZER_SIDEBYSIDE_H
#define TPUC_VISUALIZER_SIDEBYSIDE_H

#include "tpuc/PassData/PassProvenance.h"
#include "visualizer/PassGraphView.h"

#include <QWidget>

#include <memory>

class QLabel;

namespace tpuc::vis {

/// One stage: its graph and the op records it was recorded with (the provenance runs on the records).
struct Stage {
  QString title;
  std::shared_ptr<const graph::Graph> graph;
  OpRecords ops;
  int order = 0; ///< position in the pipeline: provenance runs from the earlier stage to the later
};

/// Left and right graph views. Selecting a node on one side marks it (selected) and marks what it
/// became or came from on the other side (one-to-many and many-to-one), opening the clusters around
/// them and centring the first; a line below says what is related.
class SideBySideView : public QWidget {
  Q_OBJECT
public:
  explicit SideBySideView(QWidget *parent = nullptr);

  void setStages(Stage left, Stage right);
  /// Selects a node of one side as a click would (left: side 0).
  void selectNode(int side, graph::NodeId id);
  /// The nodes of side `side` related to node `id` of the other side.
  std::vector<graph::NodeId> relatedNodes(int side, graph::NodeId id) const;

  PassGraphView *view(int side) const { return side == 0 ? m_left : m_right; }
  QString statusText() const;

private:
  void onSelected(int side, graph::NodeId id);

  PassGraphView *m_left, *m_right;
  QLabel *m_leftTitle, *m_rightTitle, *m_status;
  Stage m_stages[2];
  Provenance m_provenance;               ///< from left records to right records
  std::vector<std::int64_t> m_nodeRecord[2];  ///< per node, its record
  std::vector<graph::NodeId> m_recordNode[2]; ///< per record, its node (kNoNode: not drawn)
  bool m_syncing = false;
};

} // namespace tpuc::vis

#endif
