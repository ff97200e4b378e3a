// The merged diff graph: known answers on hand-made graphs, and on the Top pipeline's fusion.
#include "tpuc/PassData/PassGraphDiff.h"

#include <gtest/gtest.h>

using namespace tpuc;
using graph::kNoNode;

namespace {

/// A chain in0 -> n1 -> ... with op kinds and names; records and graph agree.
struct Stage {
  graph::Graph graph;
  OpRecords ops;
};

Stage chain(const std::vector<std::pair<std::string, std::string>> &nodes,
            const std::vector<std::string> &attrs = {}) {
  Stage s;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    graph::Node n;
    n.op = nodes[i].second;
    n.name = nodes[i].first;
    if (i > 0) {
      graph::Operand o;
      o.producer = static_cast<graph::NodeId>(i - 1);
      n.operands.push_back(o);
      s.graph.edges.push_back({static_cast<graph::NodeId>(i - 1), static_cast<graph::NodeId>(i), 0, 0, ""});
    }
    s.graph.nodes.push_back(n);
    OpRecord r;
    r.kind = n.op;
    r.name = n.name;
    r.locNames = {n.name};
    r.attributes = i < attrs.size() ? attrs[i] : "";
    if (i > 0)
      r.operands.push_back({static_cast<std::int64_t>(i - 1), 0});
    s.ops.push_back(r);
  }
  s.graph.finalize();
  hashOpRecords(s.ops);
  return s;
}

std::vector<std::pair<std::string, std::string>> relus(int n) {
  std::vector<std::pair<std::string, std::string>> out{{"x", "top.input"}};
  for (int i = 1; i < n; ++i)
    out.push_back({"r" + std::to_string(i), "top.relu"});
  return out;
}

} // namespace

TEST(PassGraphDiff, UnchangedRunsCollapseAroundAChange) {
  Stage before = chain(relus(10));
  std::vector<std::string> attrs(10);
  attrs[5] = "{relu_limit = 6.0}";
  Stage after = chain(relus(10), attrs);
  DiffGraph d = buildDiffGraph(before.graph, before.ops, after.graph, after.ops, diffOps(before.ops, after.ops));
  ASSERT_EQ(d.graph.nodes.size(), 10u);
  EXPECT_EQ(d.changed, 1u);
  EXPECT_EQ(d.added + d.removed, 0u);
  EXPECT_EQ(d.change[5], NodeChange::Changed);
  // Root, then x..r4 and r6..r9 as two collapsed clusters; r5 stays at the top level.
  ASSERT_EQ(d.graph.clusters.size(), 3u);
  EXPECT_EQ(d.graph.clusters[1].totalNodes, 5u);
  EXPECT_EQ(d.graph.clusters[2].totalNodes, 4u);
  EXPECT_EQ(d.graph.nodes[5].cluster, graph::kRootCluster);
  EXPECT_EQ(d.graph.nodes[0].cluster, 1u);
  EXPECT_EQ(d.graph.nodes[9].cluster, 2u);
  EXPECT_EQ(d.beforeNode[5], 5u);
  EXPECT_EQ(d.afterNode[5], 5u);
}

TEST(PassGraphDiff, RemovedNodesKeepTheirEdgesAndPlace) {
  // x -> conv -> bn -> relu -> out   becomes   x -> conv' -> out (bn and relu fused into the conv).
  Stage before = chain({{"x", "top.input"}, {"conv", "top.conv"}, {"bn", "top.batchnorm"}, {"relu", "top.relu"},
                        {"out", "top.relu"}});
  Stage after = chain({{"x", "top.input"}, {"conv", "top.conv"}, {"out", "top.relu"}}, {"", "{do_relu = true}", ""});
  DiffGraph d = buildDiffGraph(before.graph, before.ops, after.graph, after.ops, diffOps(before.ops, after.ops));
  std::vector<std::string> order;
  for (const graph::Node &n : d.graph.nodes)
    order.push_back(n.name);
  EXPECT_EQ(order, (std::vector<std::string>{"x", "conv", "bn", "relu", "out"}));
  EXPECT_EQ(d.change, (std::vector<NodeChange>{NodeChange::Unchanged, NodeChange::Changed, NodeChange::Removed,
                                               NodeChange::Removed, NodeChange::Changed}));
  EXPECT_EQ(d.removed, 2u);
  EXPECT_EQ(d.changed, 2u); // the conv (attribute) and out (now reads the conv)
  // Edges: the after graph's two, plus conv -> bn, bn -> relu, relu -> out from before.
  ASSERT_EQ(d.graph.edges.size(), 5u);
  auto hasEdge = [&](graph::NodeId a, graph::NodeId b) {
    for (const graph::Edge &e : d.graph.edges)
      if (e.from == a && e.to == b)
        return true;
    return false;
  };
  EXPECT_TRUE(hasEdge(1, 2));
  EXPECT_TRUE(hasEdge(2, 3));
  EXPECT_TRUE(hasEdge(3, 4));
  EXPECT_TRUE(hasEdge(1, 4));
  EXPECT_EQ(d.graph.nodes[3].operands[0].producer, 2u);
  EXPECT_EQ(d.afterNode[2], kNoNode);
  EXPECT_EQ(d.beforeNode[2], 2u);
  EXPECT_EQ(d.graph.clusters.size(), 1u); // no unchanged run of 3
}

TEST(PassGraphDiff, LongRunsAreChunked) {
  Stage before = chain(relus(250));
  Stage after = chain(relus(250));
  DiffGraph d = buildDiffGraph(before.graph, before.ops, after.graph, after.ops, diffOps(before.ops, after.ops),
                               3, 100);
  // One unchanged cluster with three chunks of 100, 100 and 50.
  ASSERT_EQ(d.graph.clusters.size(), 5u);
  EXPECT_EQ(d.graph.clusters[1].totalNodes, 250u);
  EXPECT_EQ(d.graph.clusters[1].children.size(), 3u);
  EXPECT_EQ(d.graph.clusters[4].totalNodes, 50u);
  EXPECT_TRUE(d.graph.clusters[4].chunk);
}

TEST(PassGraphDiff, PlaceholderNamesMatchUnnamedRecords) {
  graph::Graph g;
  graph::Node n;
  n.op = "func.return";
  n.name = "op#7";
  g.nodes.push_back(n);
  OpRecord r;
  r.kind = "func.return";
  EXPECT_EQ(matchNodesToRecords(g, {r}), std::vector<std::int64_t>{0});
}
