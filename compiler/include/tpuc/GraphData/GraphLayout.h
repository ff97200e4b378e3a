//===- GraphLayout.h - Graphviz (dot) layout of a graph's visible level -*- C++ -*-===//
//
// Lays out what is visible with some clusters expanded: each cluster's interior is one dot run over
// its direct nodes and child clusters (collapsed children are boxes, expanded ones are boxes the size
// of their own interior), cached by structure, so an expanded cluster is laid out once and identical
// transformer blocks share one layout. Plain data in and out, no Qt: the studio runs it on a worker
// thread, `tpuc graph` and the bench in the foreground. Coordinates are points, origin top-left, y down.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_GRAPH_GRAPHLAYOUT_H
#define TPUC_GRAPH_GRAPHLAYOUT_H

#include "tpuc/GraphData/GraphData.h"
#include "tpuc/Support/Result.h"

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tpuc::graph {

struct Point {
  double x = 0, y = 0;
};
struct Size {
  double width = 0, height = 0;
};
struct Rect {
  double x = 0, y = 0, width = 0, height = 0;
  bool intersects(const Rect &o) const {
    return x < o.x + o.width && o.x < x + width && y < o.y + o.height && o.y < y + height;
  }
};

/// What a placed item shows.
enum class ItemKind {
  Node,      ///< an op
  Collapsed, ///< a cluster drawn as one box
  Frame,     ///< an expanded cluster: a frame around its contents (drawn before them)
};

struct PlacedItem {
  ItemKind kind = ItemKind::Node;
  uint32_t ref = 0; ///< NodeId for Node, ClusterId otherwise
  Rect rect;        ///< absolute
  int depth = 0;    ///< nesting depth of expanded frames around it
};

/// An edge between two placed items (several graph edges between the same pair are one placed edge).
struct PlacedEdge {
  uint32_t fromItem = 0, toItem = 0;   ///< indices into Scene::items
  NodeId from = kNoNode, to = kNoNode; ///< a representative graph edge's endpoints
  std::string label;                   ///< that edge's shape/dtype label
  uint32_t count = 1;                  ///< graph edges it stands for
  /// An edge into or out of an expanded cluster, routed at the cluster's level to its frame; this is
  /// its continuation from the visible source to the visible target, drawn as a straight curve.
  bool crossLevel = false;
  /// Cubic Bézier control points as dot gives them: p0, (c1, c2, p)*; ends at the target's border.
  std::vector<Point> path;
};

/// A laid-out visible level: frames, nodes and collapsed clusters with absolute positions.
struct Scene {
  std::vector<PlacedItem> items;
  std::vector<PlacedEdge> edges;
  Size size;
  /// The item index of a node or collapsed cluster, or -1 when not visible.
  int itemOfNode(NodeId id) const;
  int itemOfCluster(ClusterId id) const;
};

/// Sizes of the boxes (the view measures text with its font; the CLI estimates).
struct Measure {
  std::function<Size(const Graph &, const Node &)> node;
  std::function<Size(const Graph &, const Cluster &)> collapsed;
  double frameHeader = 22; ///< space for an expanded cluster's title
  double framePadding = 10;
};
/// Estimates from character counts (7 pt per character, 15 pt per line).
Measure defaultMeasure();

/// The text lines of a node box: op name without dialect, then the short name, then key attributes.
std::vector<std::string> nodeLabelLines(const Graph &graph, const Node &node);
/// "layer1.0 · 6 ops" style label lines of a collapsed cluster.
std::vector<std::string> clusterLabelLines(const Graph &graph, const Cluster &cluster);

/// Counters for tests and the bench.
struct LayoutStats {
  size_t dotRuns = 0;   ///< levels laid out by dot
  size_t cacheHits = 0; ///< levels reused (expanded before, or a repeated block)
};

/// Lays out visible levels of one graph; thread-safe (one dot run at a time: libgvc has global state).
class LayoutEngine {
public:
  LayoutEngine(std::shared_ptr<const Graph> graph, Measure measure);
  ~LayoutEngine();
  LayoutEngine(const LayoutEngine &) = delete;
  LayoutEngine &operator=(const LayoutEngine &) = delete;

  const Graph &graph() const { return *m_graph; }
  /// The scene with the clusters in `expanded` (indexed by ClusterId; missing = collapsed) open. The
  /// root is always open. Same input, same output (dot is deterministic), so positions are stable.
  Scene layout(const std::vector<bool> &expanded);
  LayoutStats stats() const;

  struct Level; // a cluster interior's relative layout (cached)

private:
  struct Data; // level items and level edges of every cluster, computed once
  std::shared_ptr<const Level> levelFor(ClusterId id, const std::vector<bool> &expanded);
  uint64_t levelKey(ClusterId id, const std::vector<bool> &expanded) const;
  void place(ClusterId id, const std::vector<bool> &expanded, Point origin, int depth, Scene &scene);
  void addCrossLevelEdges(const std::vector<bool> &expanded, Scene &scene) const;

  std::shared_ptr<const Graph> m_graph;
  Measure m_measure;
  std::unique_ptr<Data> m_data;
  mutable std::mutex m_mutex;
  std::unordered_map<uint64_t, std::shared_ptr<const Level>> m_cache;
  LayoutStats m_stats;
};

/// Output of `tpuc graph` / the export helpers rendered by Graphviz itself.
enum class RenderFormat { Dot, Svg, Png };
/// Renders the visible level (clusters in `expanded` open, as nested dot clusters) with category
/// colours. Returns the file bytes, or a Failure naming what Graphviz could not do.
Result<std::string> renderWithGraphviz(const Graph &graph, const std::vector<bool> &expanded,
                                       RenderFormat format);

/// Fill colour of a category as "#rrggbb" (shared by the view and the exporter so both agree).
std::string categoryColor(std::string_view category);

} // namespace tpuc::graph

#endif // TPUC_GRAPH_GRAPHLAYOUT_H
