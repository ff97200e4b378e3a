//===- PassGraphDiff.h - Two snapshots' graphs merged into one diff graph -*- C++ -*-===//
// For the graph view of a pass diff: the graph after the pass plus the ops it removed, each node marked
// added / removed / changed / unchanged, and runs of unchanged ops folded into collapsed clusters so
// what changed stands out. Plain data (GraphData.h), no MLIR, no Qt.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TRANSFORMS_PASSGRAPHDIFF_H
#define TPUC_TRANSFORMS_PASSGRAPHDIFF_H

#include "tpuc/GraphData/GraphData.h"
#include "tpuc/PassData/PassDiff.h"

#include <cstdint>
#include <vector>

namespace tpuc {

/// Per node of `graph`, the index of the same op in `records` (-1 when none): nodes and records pair by
/// (name, op kind) in IR order, then the rest by (printed location, op kind) (a fused op's graph name is
/// its tensor's, its record's identity its first location name). Graph nodes named "op#N" (no location
/// name) pair with unnamed records.
std::vector<std::int64_t> matchNodesToRecords(const graph::Graph &graph, const OpRecords &records);

enum class NodeChange : std::uint8_t { Unchanged, Added, Removed, Changed };

/// The merged graph of a pass diff.
struct DiffGraph {
  graph::Graph graph;
  std::vector<NodeChange> change;        ///< per node of `graph`
  std::vector<graph::NodeId> beforeNode; ///< per node: the node in the before graph, or kNoNode (added)
  std::vector<graph::NodeId> afterNode;  ///< per node: the node in the after graph, or kNoNode (removed)
  std::size_t added = 0, removed = 0, changed = 0; ///< counts over non-constant nodes
};

/// Merges `before` and `after` (graphs of two snapshots, with their op records and the records' diff).
/// Removed nodes are placed after the nearest op that precedes them in `before` and survives; their
/// edges come from `before`. Runs of at least `minCollapsed` unchanged visible nodes become clusters
/// ("unchanged · N ops", split into chunks of at most `chunk` nodes); changed, added and removed nodes
/// stay at the top level.
DiffGraph buildDiffGraph(const graph::Graph &before, const OpRecords &beforeOps, const graph::Graph &after,
                         const OpRecords &afterOps, const OpDiff &diff, std::size_t minCollapsed = 3,
                         std::size_t chunk = 100);

} // namespace tpuc

#endif // TPUC_TRANSFORMS_PASSGRAPHDIFF_H
