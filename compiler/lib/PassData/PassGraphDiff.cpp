//===- PassGraphDiff.cpp - Merged before/after graph of a pass ------------===//
//===----------------------------------------------------------------------===//
#include "tpuc/PassData/PassGraphDiff.h"

#include <string>
#include <string_view>
#include <unordered_map>

namespace tpuc {
using graph::kNoNode;
using graph::NodeId;

namespace {

/// GraphData names ops without a location "op#N"; the records leave such names empty.
bool isPlaceholderName(const std::string &name) {
  if (name.rfind("op#", 0) != 0 || name.size() == 3)
    return false;
  for (std::size_t i = 3; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9')
      return false;
  return true;
}

} // namespace

std::vector<std::int64_t> matchNodesToRecords(const graph::Graph &graph, const OpRecords &records) {
  std::unordered_map<std::string, std::vector<std::size_t>> byIdentity, byLocation;
  for (std::size_t i = 0; i < records.size(); ++i) {
    byIdentity[records[i].identity()].push_back(i);
    std::string_view loc = records[i].location;
    if (loc.starts_with("loc(") && loc.ends_with(")"))
      loc = loc.substr(4, loc.size() - 5);
    byLocation[std::string(loc) + "|" + records[i].kind].push_back(i);
  }
  std::vector<bool> taken(records.size(), false);
  std::vector<std::int64_t> out(graph.nodes.size(), -1);
  auto pick = [&](const std::unordered_map<std::string, std::vector<std::size_t>> &index,
                  const std::string &key, std::size_t n) {
    auto it = index.find(key);
    if (it == index.end())
      return;
    for (std::size_t r : it->second)
      if (!taken[r]) {
        taken[r] = true;
        out[n] = static_cast<std::int64_t>(r);
        return;
      }
  };
  for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
    const graph::Node &node = graph.nodes[n];
    pick(byIdentity, (isPlaceholderName(node.name) ? std::string() : node.name) + "|" + node.op, n);
  }
  // A fused op is named after its tensor (its location's last name), the record after its first name:
  // those pair by their printed location.
  for (std::size_t n = 0; n < graph.nodes.size(); ++n)
    if (out[n] < 0 && !graph.nodes[n].location.empty())
      pick(byLocation, graph.nodes[n].location + "|" + graph.nodes[n].op, n);
  return out;
}

DiffGraph buildDiffGraph(const graph::Graph &before, const OpRecords &beforeOps, const graph::Graph &after,
                         const OpRecords &afterOps, const OpDiff &diff, std::size_t minCollapsed,
                         std::size_t chunk) {
  const std::vector<std::int64_t> beforeRecord = matchNodesToRecords(before, beforeOps);
  const std::vector<std::int64_t> afterRecord = matchNodesToRecords(after, afterOps);

  // Record-level pairing and states.
  std::vector<std::int64_t> partnerOfBeforeRecord(beforeOps.size(), -1);
  std::vector<NodeChange> afterRecordChange(afterOps.size(), NodeChange::Unchanged);
  std::vector<bool> removedRecord(beforeOps.size(), false);
  for (auto [i, j] : diff.unchanged)
    partnerOfBeforeRecord[i] = static_cast<std::int64_t>(j);
  for (auto [i, j] : diff.changed) {
    partnerOfBeforeRecord[i] = static_cast<std::int64_t>(j);
    afterRecordChange[j] = NodeChange::Changed;
  }
  for (std::size_t j : diff.added)
    afterRecordChange[j] = NodeChange::Added;
  for (std::size_t i : diff.removed)
    removedRecord[i] = true;

  std::vector<NodeId> afterNodeOfRecord(afterOps.size(), kNoNode);
  for (std::size_t n = 0; n < after.nodes.size(); ++n)
    if (afterRecord[n] >= 0)
      afterNodeOfRecord[afterRecord[n]] = static_cast<NodeId>(n);

  // Each before node: the after node it survives as, or removed.
  std::vector<NodeId> survivor(before.nodes.size(), kNoNode);
  std::vector<bool> removedNode(before.nodes.size(), false);
  for (std::size_t n = 0; n < before.nodes.size(); ++n) {
    std::int64_t r = beforeRecord[n];
    if (r < 0)
      continue;
    if (removedRecord[r])
      removedNode[n] = true;
    else if (partnerOfBeforeRecord[r] >= 0)
      survivor[n] = afterNodeOfRecord[partnerOfBeforeRecord[r]];
  }

  // Removed nodes go after the closest preceding survivor (bucket after.nodes.size() = the start).
  const std::size_t start = after.nodes.size();
  std::vector<std::vector<NodeId>> bucket(after.nodes.size() + 1);
  std::size_t anchor = start;
  for (std::size_t n = 0; n < before.nodes.size(); ++n) {
    if (survivor[n] != kNoNode)
      anchor = survivor[n];
    else if (removedNode[n])
      bucket[anchor].push_back(static_cast<NodeId>(n));
  }

  DiffGraph out;
  graph::Graph &g = out.graph;
  g.source = after.source;
  g.title = after.title;
  std::vector<NodeId> mergedOfAfter(after.nodes.size(), kNoNode),
      mergedOfBefore(before.nodes.size(), kNoNode);
  auto addBefore = [&](NodeId b) {
    mergedOfBefore[b] = static_cast<NodeId>(g.nodes.size());
    g.nodes.push_back(before.nodes[b]);
    out.change.push_back(NodeChange::Removed);
    out.beforeNode.push_back(b);
    out.afterNode.push_back(kNoNode);
  };
  for (NodeId b : bucket[start])
    addBefore(b);
  std::vector<NodeId> beforeOfAfter(after.nodes.size(), kNoNode);
  for (std::size_t n = 0; n < before.nodes.size(); ++n)
    if (survivor[n] != kNoNode)
      beforeOfAfter[survivor[n]] = static_cast<NodeId>(n);
  for (std::size_t a = 0; a < after.nodes.size(); ++a) {
    mergedOfAfter[a] = static_cast<NodeId>(g.nodes.size());
    g.nodes.push_back(after.nodes[a]);
    out.change.push_back(afterRecord[a] >= 0 ? afterRecordChange[afterRecord[a]] : NodeChange::Unchanged);
    out.beforeNode.push_back(beforeOfAfter[a]);
    out.afterNode.push_back(static_cast<NodeId>(a));
    for (NodeId b : bucket[a])
      addBefore(b);
  }

  // Operands and edges in merged ids: the after graph's, plus the removed nodes' from the before graph.
  auto fromBefore = [&](NodeId b) -> NodeId {
    if (b == kNoNode)
      return kNoNode;
    if (mergedOfBefore[b] != kNoNode)
      return mergedOfBefore[b];
    return survivor[b] != kNoNode ? mergedOfAfter[survivor[b]] : kNoNode;
  };
  for (std::size_t m = 0; m < g.nodes.size(); ++m) {
    graph::Node &node = g.nodes[m];
    node.cluster = graph::kRootCluster;
    bool removed = out.change[m] == NodeChange::Removed;
    for (graph::Operand &o : node.operands)
      o.producer =
          removed ? fromBefore(o.producer) : (o.producer == kNoNode ? kNoNode : mergedOfAfter[o.producer]);
  }
  for (const graph::Edge &e : after.edges) {
    graph::Edge copy = e;
    copy.from = mergedOfAfter[e.from];
    copy.to = mergedOfAfter[e.to];
    g.edges.push_back(copy);
  }
  for (const graph::Edge &e : before.edges) {
    if (!removedNode[e.from] && !removedNode[e.to])
      continue; // between survivors: the after graph's edges are the truth
    graph::Edge copy = e;
    copy.from = fromBefore(e.from);
    copy.to = fromBefore(e.to);
    if (copy.from != kNoNode && copy.to != kNoNode)
      g.edges.push_back(copy);
  }

  for (std::size_t m = 0; m < g.nodes.size(); ++m) {
    if (g.nodes[m].constant)
      continue;
    out.added += out.change[m] == NodeChange::Added;
    out.removed += out.change[m] == NodeChange::Removed;
    out.changed += out.change[m] == NodeChange::Changed;
  }

  // Unchanged runs (constants, which are not drawn, do not break a run) become collapsed clusters.
  g.clusters.assign(1, graph::Cluster{});
  auto newCluster = [&](graph::ClusterId parent, const std::string &name, const std::string &label,
                        bool isChunk) {
    graph::Cluster c;
    c.id = static_cast<graph::ClusterId>(g.clusters.size());
    c.parent = parent;
    c.name = name;
    c.label = label;
    c.chunk = isChunk;
    g.clusters[parent].children.push_back(c.id);
    g.clusters.push_back(c);
    return c.id;
  };
  std::vector<NodeId> run;
  std::size_t runs = 0;
  auto flush = [&] {
    if (run.size() >= minCollapsed) {
      ++runs;
      std::string name = "unchanged-" + std::to_string(runs);
      graph::ClusterId id = newCluster(graph::kRootCluster, name, "unchanged", false);
      for (std::size_t k = 0; k < run.size(); ++k) {
        graph::ClusterId target = id;
        if (run.size() > chunk) {
          if (k % chunk == 0)
            newCluster(id, name + "/" + std::to_string(k / chunk + 1),
                       "ops " + std::to_string(k + 1) + "–" + std::to_string(std::min(run.size(), k + chunk)),
                       true);
          target = g.clusters[id].children.back();
        }
        g.nodes[run[k]].cluster = target;
      }
    }
    run.clear();
  };
  for (std::size_t m = 0; m < g.nodes.size(); ++m) {
    if (g.nodes[m].constant)
      continue;
    if (out.change[m] == NodeChange::Unchanged)
      run.push_back(static_cast<NodeId>(m));
    else
      flush();
  }
  flush();
  g.finalize();
  return out;
}

} // namespace tpuc
