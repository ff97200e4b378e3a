//===- GraphRender.cpp - Graphviz rendering of a graph's visible level (tpuc graph) ===//
//
// Expanded clusters become dot `cluster_*` subgraphs, collapsed ones single boxes; nodes are filled
// with their category colour. Graphviz lays out and renders in one go, so the headless export needs
// neither Qt nor a display.
//
//===----------------------------------------------------------------------===//

#include "tpuc/GraphData/GraphLayout.h"

#include "Graphviz.h"
#include <functional>

#include <map>
#include <mutex>
#include <set>

namespace tpuc::graph {

namespace {

char *cstr(const char *s) { return const_cast<char *>(s); }

/// Graphviz's escString: backslash starts an escape, "\n" breaks a centred line.
std::string escapeLines(const std::vector<std::string> &lines) {
  std::string out;
  for (const std::string &line : lines) {
    if (!out.empty())
      out += "\\n";
    for (char c : line) {
      if (c == '\\')
        out += "\\\\";
      else
        out += c;
    }
  }
  return out;
}

void set(void *obj, const char *name, const std::string &value) {
  agsafeset(obj, cstr(name), cstr(value.c_str()), cstr(""));
}

} // namespace

Result<std::string> renderWithGraphviz(const Graph &graph, const std::vector<bool> &expanded,
                                       RenderFormat format) {
  auto isOpen = [&](ClusterId id) { return id == kRootCluster || (id < expanded.size() && expanded[id]); };
  // The visible stand-in of a node: itself, or its outermost collapsed cluster.
  auto visibleOf = [&](NodeId n) -> std::pair<bool, uint32_t> {
    for (ClusterId c : graph.clusterPath(graph.nodes[n].cluster))
      if (!isOpen(c))
        return {true, c};
    return {false, n};
  };

  std::lock_guard<std::mutex> lock(graphvizMutex());
  GVC_t *gvc = graphvizContext();

  Agraph_t *g = agopen(cstr("graph"), Agdirected, nullptr);
  set(g, "rankdir", "TB");
  set(g, "nodesep", "0.3");
  set(g, "ranksep", "0.4");
  set(g, "fontname", "Helvetica");
  set(g, "label", graph.title.empty() ? graph.source : graph.title);
  set(g, "labelloc", "t");
  agattr(g, AGNODE, cstr("shape"), cstr("box"));
  agattr(g, AGNODE, cstr("style"), cstr("filled,rounded"));
  agattr(g, AGNODE, cstr("fontname"), cstr("Helvetica"));
  agattr(g, AGNODE, cstr("fontsize"), cstr("10"));
  agattr(g, AGEDGE, cstr("fontname"), cstr("Helvetica"));
  agattr(g, AGEDGE, cstr("fontsize"), cstr("8"));
  agattr(g, AGEDGE, cstr("color"), cstr("#555555"));

  std::map<ClusterId, Agraph_t *> subgraphs{{kRootCluster, g}};
  std::function<Agraph_t *(ClusterId)> container = [&](ClusterId c) -> Agraph_t * {
    if (auto it = subgraphs.find(c); it != subgraphs.end())
      return it->second;
    Agraph_t *parent = container(graph.clusters[c].parent);
    std::string name = "cluster_" + std::to_string(c);
    Agraph_t *sub = agsubg(parent, cstr(name.c_str()), 1);
    set(sub, "label", escapeLines({graph.clusters[c].label}));
    set(sub, "style", "rounded");
    set(sub, "color", "#8888aa");
    set(sub, "fontname", "Helvetica");
    set(sub, "fontsize", "10");
    subgraphs[c] = sub;
    return sub;
  };

  std::map<std::pair<bool, uint32_t>, Agnode_t *> visible;
  auto nodeFor = [&](std::pair<bool, uint32_t> key) -> Agnode_t * {
    if (auto it = visible.find(key); it != visible.end())
      return it->second;
    std::string name = (key.first ? "c" : "n") + std::to_string(key.second);
    Agnode_t *n;
    if (key.first) {
      const Cluster &c = graph.clusters[key.second];
      n = agnode(container(c.parent), cstr(name.c_str()), 1);
      set(n, "label", escapeLines(clusterLabelLines(graph, c)));
      set(n, "fillcolor", "#e4e4ee");
      set(n, "shape", "box3d");
      set(n, "style", "filled");
    } else {
      const Node &node = graph.nodes[key.second];
      n = agnode(container(node.cluster), cstr(name.c_str()), 1);
      set(n, "label", escapeLines(nodeLabelLines(graph, node)));
      set(n, "fillcolor", categoryColor(node.category));
      set(n, "tooltip", node.name);
    }
    visible[key] = n;
    return n;
  };

  for (const Node &n : graph.nodes)
    if (!n.constant)
      nodeFor(visibleOf(n.id));
  std::set<std::pair<Agnode_t *, Agnode_t *>> seen;
  for (const Edge &e : graph.edges) {
    Agnode_t *a = nodeFor(visibleOf(e.from)), *b = nodeFor(visibleOf(e.to));
    if (a == b || !seen.insert({a, b}).second)
      continue;
    Agedge_t *edge = agedge(g, a, b, nullptr, 1);
    set(edge, "label", e.label);
  }

  if (gvLayout(gvc, g, "dot") != 0) {
    agclose(g);
    return Failure{"Graphviz could not lay out the graph"};
  }
  const char *fmt = format == RenderFormat::Svg ? "svg" : format == RenderFormat::Png ? "png" : "dot";
  char *data = nullptr;
  unsigned length = 0;
  Result<std::string> out =
      Failure{std::string("Graphviz has no renderer for ") + fmt + " (is its plugin installed?)"};
  if (gvRenderData(gvc, g, fmt, &data, &length) == 0 && data)
    out = std::string(data, length);
  if (data)
    gvFreeRenderData(data);
  gvFreeLayout(gvc, g);
  agclose(g);
  return out;
}

} // namespace tpuc::graph
