//===- GraphLayout.cpp - Per-cluster dot layouts, cached and composed -----===//
//
// A cluster's interior is laid out by one dot run over its level items; an expanded child is a box
// the size of its own interior (laid out first), so every run stays as small as a level. Levels are
// cached by (structural signature, which descendants are open): opening a cluster twice, or opening
// the 2nd to 24th of identical transformer layers, never runs dot again.
//
//===----------------------------------------------------------------------===//

#include "tpuc/GraphData/GraphLayout.h"

#include "Graphviz.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace tpuc::graph {

std::mutex &graphvizMutex() {
  static std::mutex mutex;
  return mutex;
}
GVC_t *graphvizContext() {
  static GVC_t *context = gvContext();
  return context;
}

/// A cluster interior laid out relative to its own top-left corner.
struct LayoutEngine::Level {
  Size size;
  std::vector<Rect> rects; ///< per level item
  struct LevelEdge {
    int from = 0, to = 0;
    std::vector<Point> path;
  };
  std::vector<LevelEdge> edges; ///< in the order of the engine's level edges for the cluster
};

namespace {

char *cstr(const char *s) { return const_cast<char *>(s); }

std::string withoutDialect(const std::string &op) {
  size_t dot = op.find('.');
  return dot == std::string::npos ? op : op.substr(dot + 1);
}

std::string ellipsize(const std::string &s, size_t max) {
  if (s.size() <= max)
    return s;
  return "…" + s.substr(s.size() - (max - 1));
}

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

/// Level edges of every cluster: (from item, to item) pairs with a representative graph edge and a count.
struct LevelEdgeInfo {
  int from, to;
  uint32_t edge;
  uint32_t count;
};

} // namespace

struct LayoutEngine::Data {
  std::vector<std::vector<Graph::LevelItem>> items;
  std::vector<std::vector<LevelEdgeInfo>> edges;
};

int Scene::itemOfNode(NodeId id) const {
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].kind == ItemKind::Node && items[i].ref == id)
      return static_cast<int>(i);
  return -1;
}

int Scene::itemOfCluster(ClusterId id) const {
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].kind != ItemKind::Node && items[i].ref == id)
      return static_cast<int>(i);
  return -1;
}

std::vector<std::string> nodeLabelLines(const Graph &graph, const Node &node) {
  std::vector<std::string> lines{withoutDialect(node.op), ellipsize(shortName(graph, node), 30)};
  if (node.op.starts_with("tpu.") && !node.precision.empty())
    lines.push_back(node.precision);
  for (const std::string &k : node.keyAttributes)
    lines.push_back(ellipsize(k, 30));
  return lines;
}

std::vector<std::string> clusterLabelLines(const Graph &, const Cluster &cluster) {
  return {ellipsize(cluster.label.empty() ? std::string("(root)") : cluster.label, 30),
          std::to_string(cluster.totalNodes) + (cluster.totalNodes == 1 ? " op" : " ops")};
}

Measure defaultMeasure() {
  Measure m;
  auto box = [](const std::vector<std::string> &lines) {
    size_t chars = 0;
    for (const std::string &l : lines)
      chars = std::max(chars, l.size());
    return Size{std::max(70.0, 6.5 * static_cast<double>(chars) + 16),
                14.0 * static_cast<double>(lines.size()) + 10};
  };
  m.node = [box](const Graph &g, const Node &n) { return box(nodeLabelLines(g, n)); };
  m.collapsed = [box](const Graph &g, const Cluster &c) {
    Size s = box(clusterLabelLines(g, c));
    return Size{s.width + 12, s.height + 8};
  };
  return m;
}

LayoutEngine::LayoutEngine(std::shared_ptr<const Graph> graph, Measure measure)
    : m_graph(std::move(graph)), m_measure(std::move(measure)) {
  const Graph &g = *m_graph;
  m_data = std::make_unique<Data>();
  Data &data = *m_data;
  data.items.resize(g.clusters.size());
  std::vector<int> clusterItem(g.clusters.size(), -1), nodeItem(g.nodes.size(), -1);
  for (ClusterId id = 0; id < g.clusters.size(); ++id) {
    data.items[id] = g.levelItems(id);
    for (size_t i = 0; i < data.items[id].size(); ++i)
      (data.items[id][i].isCluster ? clusterItem : nodeItem)[data.items[id][i].ref] = static_cast<int>(i);
  }
  std::vector<std::map<std::pair<int, int>, LevelEdgeInfo>> perLevel(g.clusters.size());
  for (uint32_t e = 0; e < g.edges.size(); ++e) {
    std::vector<ClusterId> a = g.clusterPath(g.nodes[g.edges[e].from].cluster);
    std::vector<ClusterId> b = g.clusterPath(g.nodes[g.edges[e].to].cluster);
    size_t common = 0;
    while (common < a.size() && common < b.size() && a[common] == b[common])
      ++common;
    int from = common < a.size() ? clusterItem[a[common]] : nodeItem[g.edges[e].from];
    int to = common < b.size() ? clusterItem[b[common]] : nodeItem[g.edges[e].to];
    if (from == to || from < 0 || to < 0)
      continue;
    auto [it, inserted] = perLevel[a[common - 1]].try_emplace({from, to}, LevelEdgeInfo{from, to, e, 0});
    ++it->second.count;
  }
  data.edges.resize(g.clusters.size());
  for (ClusterId id = 0; id < g.clusters.size(); ++id)
    for (auto &[key, info] : perLevel[id])
      data.edges[id].push_back(info);
}

LayoutEngine::~LayoutEngine() = default;

LayoutStats LayoutEngine::stats() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_stats;
}

uint64_t LayoutEngine::levelKey(ClusterId id, const std::vector<bool> &expanded) const {
  const Graph &g = *m_graph;
  uint64_t h = g.clusters[id].signature;
  const std::vector<Graph::LevelItem> &items = m_data->items[id];
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].isCluster && items[i].ref < expanded.size() && expanded[items[i].ref])
      h = mix(mix(h, i + 1), levelKey(items[i].ref, expanded));
  return h;
}

std::shared_ptr<const LayoutEngine::Level> LayoutEngine::levelFor(ClusterId id,
                                                                  const std::vector<bool> &expanded) {
  const Graph &g = *m_graph;
  uint64_t key = levelKey(id, expanded);
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (auto it = m_cache.find(key); it != m_cache.end()) {
      ++m_stats.cacheHits;
      return it->second;
    }
  }
  const std::vector<Graph::LevelItem> &items = m_data->items[id];
  std::vector<Size> sizes(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const Graph::LevelItem &item = items[i];
    if (!item.isCluster) {
      sizes[i] = m_measure.node(g, g.nodes[item.ref]);
    } else if (item.ref < expanded.size() && expanded[item.ref]) {
      std::shared_ptr<const Level> inner = levelFor(item.ref, expanded);
      sizes[i] = {inner->size.width + 2 * m_measure.framePadding,
                  inner->size.height + m_measure.frameHeader + m_measure.framePadding};
      // The title must fit too.
      Size title = m_measure.collapsed(g, g.clusters[item.ref]);
      sizes[i].width = std::max(sizes[i].width, title.width);
    } else {
      sizes[i] = m_measure.collapsed(g, g.clusters[item.ref]);
    }
  }
  const std::vector<LevelEdgeInfo> &levelEdges = m_data->edges[id];

  auto level = std::make_shared<Level>();
  level->rects.resize(items.size());
  {
    std::lock_guard<std::mutex> lock(graphvizMutex());
    Agraph_t *dot = agopen(cstr("level"), Agdirected, nullptr);
    agattr(dot, AGRAPH, cstr("rankdir"), cstr("TB"));
    agattr(dot, AGRAPH, cstr("nodesep"), cstr("0.3"));
    agattr(dot, AGRAPH, cstr("ranksep"), cstr("0.4"));
    agattr(dot, AGNODE, cstr("shape"), cstr("box"));
    agattr(dot, AGNODE, cstr("fixedsize"), cstr("true"));
    agattr(dot, AGNODE, cstr("label"), cstr(""));
    Agsym_t *width = agattr(dot, AGNODE, cstr("width"), cstr("1"));
    Agsym_t *height = agattr(dot, AGNODE, cstr("height"), cstr("1"));
    std::vector<Agnode_t *> nodes(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      std::string name = "n" + std::to_string(i);
      nodes[i] = agnode(dot, cstr(name.c_str()), 1);
      agxset(nodes[i], width, cstr(std::to_string(sizes[i].width / 72.0).c_str()));
      agxset(nodes[i], height, cstr(std::to_string(sizes[i].height / 72.0).c_str()));
    }
    std::vector<Agedge_t *> edges;
    for (const LevelEdgeInfo &e : levelEdges)
      edges.push_back(agedge(dot, nodes[e.from], nodes[e.to], nullptr, 1));
    gvLayout(graphvizContext(), dot, "dot");
    boxf bb = GD_bb(dot);
    auto toPoint = [&](pointf p) { return Point{p.x - bb.LL.x, bb.UR.y - p.y}; };
    level->size = {bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y};
    for (size_t i = 0; i < items.size(); ++i) {
      Point c = toPoint(ND_coord(nodes[i]));
      level->rects[i] = {c.x - sizes[i].width / 2, c.y - sizes[i].height / 2, sizes[i].width,
                         sizes[i].height};
    }
    for (size_t k = 0; k < edges.size(); ++k) {
      Level::LevelEdge le{levelEdges[k].from, levelEdges[k].to, {}};
      splines *spl = ED_spl(edges[k]);
      if (spl && spl->size > 0) {
        const bezier &bz = spl->list[0];
        for (int i = 0; i < bz.size; ++i)
          le.path.push_back(toPoint(bz.list[i]));
        if (bz.eflag && !le.path.empty()) {
          Point tip = toPoint(bz.ep);
          le.path.push_back(le.path.back());
          le.path.push_back(tip);
          le.path.push_back(tip);
        }
      }
      level->edges.push_back(std::move(le));
    }
    gvFreeLayout(graphvizContext(), dot);
    agclose(dot);
  }
  std::lock_guard<std::mutex> lock(m_mutex);
  ++m_stats.dotRuns;
  m_cache.emplace(key, level);
  return level;
}

void LayoutEngine::place(ClusterId id, const std::vector<bool> &expanded, Point origin, int depth,
                         Scene &scene) {
  const Graph &g = *m_graph;
  std::shared_ptr<const Level> level = levelFor(id, expanded);
  const std::vector<Graph::LevelItem> &items = m_data->items[id];
  std::vector<int> sceneIndex(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    Rect r = level->rects[i];
    r.x += origin.x;
    r.y += origin.y;
    sceneIndex[i] = static_cast<int>(scene.items.size());
    const Graph::LevelItem &item = items[i];
    if (!item.isCluster) {
      scene.items.push_back({ItemKind::Node, item.ref, r, depth});
    } else if (item.ref < expanded.size() && expanded[item.ref]) {
      scene.items.push_back({ItemKind::Frame, item.ref, r, depth});
      std::shared_ptr<const Level> inner = levelFor(item.ref, expanded);
      Point innerOrigin{r.x + (r.width - inner->size.width) / 2, r.y + m_measure.frameHeader};
      place(item.ref, expanded, innerOrigin, depth + 1, scene);
    } else {
      scene.items.push_back({ItemKind::Collapsed, item.ref, r, depth});
    }
  }
  const std::vector<LevelEdgeInfo> &levelEdges = m_data->edges[id];
  for (size_t k = 0; k < level->edges.size() && k < levelEdges.size(); ++k) {
    const LevelEdgeInfo &info = levelEdges[k];
    const Edge &edge = g.edges[info.edge];
    PlacedEdge pe;
    pe.fromItem = static_cast<uint32_t>(sceneIndex[info.from]);
    pe.toItem = static_cast<uint32_t>(sceneIndex[info.to]);
    pe.from = edge.from;
    pe.to = edge.to;
    pe.label = edge.label;
    pe.count = info.count;
    for (Point p : level->edges[k].path)
      pe.path.push_back({p.x + origin.x, p.y + origin.y});
    scene.edges.push_back(std::move(pe));
  }
}

void LayoutEngine::addCrossLevelEdges(const std::vector<bool> &expanded, Scene &scene) const {
  const Graph &g = *m_graph;
  std::vector<int> nodeItem(g.nodes.size(), -1), clusterItem(g.clusters.size(), -1);
  for (size_t i = 0; i < scene.items.size(); ++i) {
    const PlacedItem &item = scene.items[i];
    if (item.kind == ItemKind::Node)
      nodeItem[item.ref] = static_cast<int>(i);
    else if (item.kind == ItemKind::Collapsed)
      clusterItem[item.ref] = static_cast<int>(i);
  }
  auto visible = [&](NodeId n) {
    if (nodeItem[n] >= 0)
      return nodeItem[n];
    for (ClusterId c : g.clusterPath(g.nodes[n].cluster))
      if (c != kRootCluster && !(c < expanded.size() && expanded[c]))
        return clusterItem[c];
    return -1;
  };
  std::set<std::pair<int, int>> drawn;
  for (const PlacedEdge &e : scene.edges)
    drawn.insert({static_cast<int>(e.fromItem), static_cast<int>(e.toItem)});
  for (const Edge &e : g.edges) {
    int a = visible(e.from), b = visible(e.to);
    if (a < 0 || b < 0 || a == b)
      continue;
    // Already drawn when both ends sit at one level (that level's dot edge).
    if (scene.items[static_cast<size_t>(a)].depth == scene.items[static_cast<size_t>(b)].depth &&
        drawn.count({a, b}))
      continue;
    if (!drawn.insert({a, b}).second)
      continue;
    const Rect &ra = scene.items[static_cast<size_t>(a)].rect, &rb = scene.items[static_cast<size_t>(b)].rect;
    Point p0{ra.x + ra.width / 2, ra.y + ra.height}, p3{rb.x + rb.width / 2, rb.y};
    double bend = std::max(20.0, std::fabs(p3.y - p0.y) / 3);
    PlacedEdge pe;
    pe.fromItem = static_cast<uint32_t>(a);
    pe.toItem = static_cast<uint32_t>(b);
    pe.from = e.from;
    pe.to = e.to;
    pe.label = e.label;
    pe.crossLevel = true;
    pe.path = {p0, {p0.x, p0.y + bend}, {p3.x, p3.y - bend}, p3};
    scene.edges.push_back(std::move(pe));
  }
}

Scene LayoutEngine::layout(const std::vector<bool> &expanded) {
  Scene scene;
  std::shared_ptr<const Level> root = levelFor(kRootCluster, expanded);
  scene.size = root->size;
  place(kRootCluster, expanded, {0, 0}, 0, scene);
  addCrossLevelEdges(expanded, scene);
  return scene;
}

std::string categoryColor(std::string_view category) {
  static const std::map<std::string_view, const char *> colors = {
      {"conv", "#4e79a7"},   {"matmul", "#2f6fb0"},     {"attention", "#b07aa1"},
      {"norm", "#59a14f"},   {"activation", "#e15759"}, {"elementwise", "#f28e2b"},
      {"pool", "#76b7b2"},   {"shape", "#9c9c9c"},      {"io", "#c9b26b"},
      {"cast", "#edc948"},   {"reduce", "#8cd17d"},     {"embedding", "#d37295"},
      {"control", "#ff9da7"}};
  if (auto it = colors.find(category); it != colors.end())
    return it->second;
  // Any other category: a stable hue from its name, muted like the fixed ones.
  uint32_t h = 2166136261u;
  for (char c : category)
    h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  double hue = (h % 360) / 60.0;
  double s = 0.45, v = 0.75, c = v * s, x = c * (1 - std::fabs(std::fmod(hue, 2.0) - 1)), m = v - c;
  double r = 0, gg = 0, b = 0;
  switch (static_cast<int>(hue)) {
  case 0:
    r = c, gg = x;
    break;
  case 1:
    r = x, gg = c;
    break;
  case 2:
    gg = c, b = x;
    break;
  case 3:
    gg = x, b = c;
    break;
  case 4:
    r = x, b = c;
    break;
  default:
    r = c, b = x;
    break;
  }
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>((r + m) * 255),
                static_cast<int>((gg + m) * 255), static_cast<int>((b + m) * 255));
  return buf;
}

} // namespace tpuc::graph
