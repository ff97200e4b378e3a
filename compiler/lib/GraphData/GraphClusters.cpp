//===- GraphClusters.cpp - Cluster tree from name scopes or layer groups --===//
//
// Scopes come from the names importers give ops (ONNX node names, HuggingFace parameter paths), so
// a transformer layer or a ResNet stage is one cluster. The tree is then made useful to look at:
// clusters of one op are dissolved, chains of single children merged, and an oversized level is cut
// into chunks of consecutive ops so that no dot run sees more than a bounded number of boxes.
//
//===----------------------------------------------------------------------===//

#include "tpuc/GraphData/GraphData.h"

#include <algorithm>
#include <unordered_map>

namespace tpuc::graph {

namespace {

struct Proto {
  std::string name;
  std::string label;
  std::vector<int> children;
  std::vector<NodeId> nodes;
  bool chunk = false;
  uint32_t total = 0;
  NodeId first = kNoNode;
  NodeId last = 0;
};

class Builder {
public:
  explicit Builder(Graph &graph) : m_graph(graph) { m_protos.emplace_back(); }

  void add(NodeId node, const std::vector<std::string> &scopes) {
    int at = 0;
    for (const std::string &scope : scopes) {
      auto [it, inserted] = m_byName.try_emplace(scope, static_cast<int>(m_protos.size()));
      if (inserted) {
        Proto p;
        p.name = scope;
        m_protos.push_back(std::move(p));
        m_protos[at].children.push_back(it->second);
      }
      at = it->second;
    }
    m_protos[at].nodes.push_back(node);
  }

  void build(size_t maxLevelItems) {
    count(0);
    simplify(0);
    // A first view of one big box says nothing: a scope holding most of the graph (HF's "model", a
    // framework's top module) is opened into the root.
    count(0);
    for (bool again = true; again;) {
      again = false;
      std::vector<int> &children = m_protos[0].children;
      for (size_t i = 0; i < children.size(); ++i) {
        const Proto &c = m_protos[children[i]];
        if (c.total * 10 < m_protos[0].total * 8 || c.children.empty())
          continue;
        std::vector<int> grandChildren = c.children;
        m_protos[0].nodes.insert(m_protos[0].nodes.end(), c.nodes.begin(), c.nodes.end());
        children.erase(children.begin() + static_cast<long>(i));
        children.insert(children.end(), grandChildren.begin(), grandChildren.end());
        again = true;
        break;
      }
    }
    count(0);
    chunk(0, std::max<size_t>(maxLevelItems, 4));
    count(0);
    m_graph.clusters.clear();
    emit(0, kRootCluster, "");
    m_graph.finalize();
  }

private:
  void count(int id) {
    Proto &p = m_protos[id];
    p.total = static_cast<uint32_t>(p.nodes.size());
    p.first = p.nodes.empty() ? kNoNode : *std::min_element(p.nodes.begin(), p.nodes.end());
    p.last = p.nodes.empty() ? 0 : *std::max_element(p.nodes.begin(), p.nodes.end());
    for (int child : p.children) {
      count(child);
      p.total += m_protos[child].total;
      p.first = std::min(p.first, m_protos[child].first);
      p.last = std::max(p.last, m_protos[child].last);
    }
  }

  void collectNodes(int id, std::vector<NodeId> &out) {
    out.insert(out.end(), m_protos[id].nodes.begin(), m_protos[id].nodes.end());
    for (int child : m_protos[id].children)
      collectNodes(child, out);
  }

  void simplify(int id) {
    std::vector<int> children;
    for (int child : m_protos[id].children) {
      simplify(child);
      // A scope wrapping exactly one other scope is that scope.
      while (m_protos[child].nodes.empty() && m_protos[child].children.size() == 1)
        child = m_protos[child].children.front();
      if (m_protos[child].total <= 1) {
        collectNodes(child, m_protos[id].nodes);
        continue;
      }
      children.push_back(child);
    }
    m_protos[id].children = std::move(children);
    std::sort(m_protos[id].nodes.begin(), m_protos[id].nodes.end());
  }

  void chunk(int id, size_t maxItems) {
    for (int child : m_protos[id].children)
      chunk(child, maxItems);
    size_t chunkSize = maxItems / 2;
    while (m_protos[id].children.size() + m_protos[id].nodes.size() > maxItems) {
      // Items in drawing order, then runs of chunkSize of them become chunk clusters.
      struct Item {
        bool cluster;
        uint32_t ref;
        NodeId first;
      };
      std::vector<Item> items;
      for (int child : m_protos[id].children)
        items.push_back({true, static_cast<uint32_t>(child), m_protos[child].first});
      for (NodeId n : m_protos[id].nodes)
        items.push_back({false, n, n});
      std::stable_sort(items.begin(), items.end(),
                       [](const Item &a, const Item &b) { return a.first < b.first; });
      std::vector<int> chunks;
      for (size_t begin = 0; begin < items.size(); begin += chunkSize) {
        Proto c;
        c.chunk = true;
        c.name = m_protos[id].name;
        size_t end = std::min(items.size(), begin + chunkSize);
        for (size_t i = begin; i < end; ++i) {
          if (items[i].cluster)
            c.children.push_back(static_cast<int>(items[i].ref));
          else
            c.nodes.push_back(items[i].ref);
        }
        int cid = static_cast<int>(m_protos.size());
        m_protos.push_back(std::move(c));
        count(cid);
        chunks.push_back(cid);
      }
      m_protos[id].children = std::move(chunks);
      m_protos[id].nodes.clear();
    }
  }

  static std::string labelOf(const std::string &name, const std::string &parent) {
    if (!parent.empty() && name.size() > parent.size() + 1 && name.compare(0, parent.size(), parent) == 0)
      return name.substr(parent.size() + 1);
    if (!name.empty() && name.front() == '/')
      return name.substr(1);
    return name;
  }

  /// Pre-order numbering with children by first node.
  void emit(int id, ClusterId parent, const std::string &parentScope) {
    Proto &p = m_protos[id];
    ClusterId cid = static_cast<ClusterId>(m_graph.clusters.size());
    Cluster c;
    c.id = cid;
    c.parent = id == 0 ? kRootCluster : parent;
    c.name = p.name;
    c.chunk = p.chunk;
    if (p.chunk) {
      c.label = "ops " + std::to_string(m_rank.at(p.first)) + "–" + std::to_string(m_rank.at(p.last));
    } else {
      c.label = id == 0 ? labelOf(p.name, "") : labelOf(p.name, parentScope);
    }
    m_graph.clusters.push_back(c);
    if (id != 0)
      m_graph.clusters[parent].children.push_back(cid);
    for (NodeId n : p.nodes)
      m_graph.nodes[n].cluster = cid;
    std::vector<int> children = p.children;
    std::sort(children.begin(), children.end(),
              [&](int a, int b) { return m_protos[a].first < m_protos[b].first; });
    const std::string scope = p.chunk ? parentScope : p.name;
    for (int child : children)
      emit(child, cid, scope);
  }

public:
  /// Rank of each non-constant node in IR order (1-based): chunk labels read "ops 61–120".
  void rankNodes() {
    uint32_t r = 0;
    for (const Node &n : m_graph.nodes)
      if (!n.constant)
        m_rank[n.id] = ++r;
  }

private:
  Graph &m_graph;
  std::vector<Proto> m_protos;
  std::unordered_map<std::string, int> m_byName;
  std::unordered_map<NodeId, uint32_t> m_rank;
};

} // namespace

void buildClusters(Graph &graph, bool byLayerGroup, size_t maxLevelItems) {
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    graph.nodes[i].id = static_cast<NodeId>(i);
  bool groups = byLayerGroup && std::any_of(graph.nodes.begin(), graph.nodes.end(),
                                            [](const Node &n) { return n.layerGroup.has_value(); });
  Builder builder(graph);
  builder.rankNodes();
  for (const Node &n : graph.nodes) {
    if (n.constant)
      continue;
    if (groups)
      builder.add(n.id, n.layerGroup ? std::vector<std::string>{"group " + std::to_string(*n.layerGroup)}
                                     : std::vector<std::string>{});
    else
      builder.add(
          n.id,
          scopeOf(n.onnxNode.empty() ? n.name : n.onnxNode)); // the node's scope: tensor names may have none
  }
  for (Node &n : graph.nodes)
    n.cluster = kRootCluster;
  builder.build(maxLevelItems);
}

} // namespace tpuc::graph
