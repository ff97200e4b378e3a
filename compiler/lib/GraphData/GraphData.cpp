//===- GraphData.cpp - Graph queries: adjacency, cluster paths, search, signatures ===//

#include "tpuc/GraphData/GraphData.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace tpuc::graph {

namespace {

/// FNV-1a: deterministic across runs and platforms (std::hash is neither promised).
uint64_t hashBytes(uint64_t h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h ^ 0xff; // separates "ab","c" from "a","bc"
}
uint64_t hashInt(uint64_t h, uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xff;
    h *= 1099511628211ull;
  }
  return h;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char &c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

} // namespace

std::string TensorInfo::label() const {
  if (!ranked)
    return "* " + dtype;
  if (shape.empty())
    return dtype;
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      out += 'x';
    out += shape[i] < 0 ? std::string("?") : std::to_string(shape[i]);
  }
  return out + " " + dtype;
}

std::vector<Graph::LevelItem> Graph::levelItems(ClusterId id) const {
  const Cluster &c = clusters[id];
  std::vector<LevelItem> items;
  items.reserve(c.children.size() + c.nodes.size());
  for (ClusterId child : c.children)
    items.push_back({true, child});
  for (NodeId n : c.nodes)
    items.push_back({false, n});
  auto first = [&](const LevelItem &item) {
    return item.isCluster ? clusters[item.ref].firstNode : item.ref;
  };
  std::stable_sort(items.begin(), items.end(),
                   [&](const LevelItem &a, const LevelItem &b) { return first(a) < first(b); });
  return items;
}

int Graph::levelItemOf(ClusterId cluster, NodeId node) const {
  ClusterId at = nodes[node].cluster;
  if (at == cluster) {
    std::vector<LevelItem> items = levelItems(cluster);
    for (size_t i = 0; i < items.size(); ++i)
      if (!items[i].isCluster && items[i].ref == node)
        return static_cast<int>(i);
    return -1;
  }
  while (at != kRootCluster && clusters[at].parent != cluster)
    at = clusters[at].parent;
  if (at == kRootCluster)
    return -1;
  std::vector<LevelItem> items = levelItems(cluster);
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].isCluster && items[i].ref == at)
      return static_cast<int>(i);
  return -1;
}

void Graph::finalize() {
  for (size_t i = 0; i < nodes.size(); ++i)
    nodes[i].id = static_cast<NodeId>(i);
  inEdges.assign(nodes.size(), {});
  outEdges.assign(nodes.size(), {});
  for (size_t e = 0; e < edges.size(); ++e) {
    outEdges[edges[e].from].push_back(static_cast<uint32_t>(e));
    inEdges[edges[e].to].push_back(static_cast<uint32_t>(e));
  }
  if (clusters.empty()) {
    Cluster root;
    root.parent = kRootCluster;
    clusters.push_back(root);
  }
  for (Cluster &c : clusters) {
    c.nodes.clear();
    c.totalNodes = 0;
    c.firstNode = kNoNode;
  }
  for (ClusterId id = 0; id < clusters.size(); ++id)
    clusters[id].id = id;
  for (const Node &n : nodes) {
    if (n.constant)
      continue;
    clusters[n.cluster].nodes.push_back(n.id);
    for (ClusterId at = n.cluster;; at = clusters[at].parent) {
      Cluster &c = clusters[at];
      ++c.totalNodes;
      c.firstNode = std::min(c.firstNode, n.id);
      if (at == kRootCluster)
        break;
    }
  }
  // Level items of every cluster and each item's index, so an edge finds its level in O(depth).
  for (Cluster &c : clusters)
    std::sort(c.children.begin(), c.children.end(),
              [&](ClusterId a, ClusterId b) { return clusters[a].firstNode < clusters[b].firstNode; });
  std::vector<std::vector<LevelItem>> items(clusters.size());
  std::vector<int> clusterItem(clusters.size(), -1), nodeItem(nodes.size(), -1);
  for (ClusterId id = 0; id < clusters.size(); ++id) {
    items[id] = levelItems(id);
    for (size_t i = 0; i < items[id].size(); ++i)
      (items[id][i].isCluster ? clusterItem : nodeItem)[items[id][i].ref] = static_cast<int>(i);
  }
  // Each edge belongs to the level of the lowest cluster holding both ends.
  std::vector<std::vector<std::pair<int, int>>> levelEdges(clusters.size());
  for (const Edge &e : edges) {
    std::vector<ClusterId> a = clusterPath(nodes[e.from].cluster), b = clusterPath(nodes[e.to].cluster);
    size_t common = 0;
    while (common < a.size() && common < b.size() && a[common] == b[common])
      ++common;
    ClusterId level = a[common - 1];
    int from = common < a.size() ? clusterItem[a[common]] : nodeItem[e.from];
    int to = common < b.size() ? clusterItem[b[common]] : nodeItem[e.to];
    if (from != to)
      levelEdges[level].push_back({from, to});
  }
  // Signatures bottom-up: a reversed pre-order sees every child before its parent.
  std::vector<ClusterId> preorder, stack{kRootCluster};
  while (!stack.empty()) {
    ClusterId id = stack.back();
    stack.pop_back();
    preorder.push_back(id);
    for (ClusterId child : clusters[id].children)
      stack.push_back(child);
  }
  for (auto it = preorder.rbegin(); it != preorder.rend(); ++it) {
    ClusterId id = *it;
    uint64_t h = 1469598103934665603ull;
    for (const LevelItem &item : items[id]) {
      if (item.isCluster) {
        const Cluster &child = clusters[item.ref];
        h = hashInt(hashBytes(h, child.label), child.signature);
        continue;
      }
      const Node &n = nodes[item.ref];
      h = hashBytes(hashBytes(h, n.op), shortName(*this, n));
      for (const std::string &k : n.keyAttributes)
        h = hashBytes(h, k);
      for (const TensorInfo &r : n.results)
        h = hashBytes(h, r.label());
    }
    std::vector<std::pair<int, int>> &le = levelEdges[id];
    std::sort(le.begin(), le.end());
    le.erase(std::unique(le.begin(), le.end()), le.end());
    for (auto [a, b] : le)
      h = hashInt(hashInt(h, static_cast<uint64_t>(a)), static_cast<uint64_t>(b));
    clusters[id].signature = h;
  }
}

std::vector<NodeId> Graph::producers(NodeId id) const {
  std::vector<NodeId> out;
  for (uint32_t e : inEdges[id])
    if (std::find(out.begin(), out.end(), edges[e].from) == out.end())
      out.push_back(edges[e].from);
  return out;
}

std::vector<NodeId> Graph::consumers(NodeId id) const {
  std::vector<NodeId> out;
  for (uint32_t e : outEdges[id])
    if (std::find(out.begin(), out.end(), edges[e].to) == out.end())
      out.push_back(edges[e].to);
  return out;
}

std::vector<ClusterId> Graph::clusterPath(ClusterId id) const {
  std::vector<ClusterId> path;
  for (ClusterId at = id;; at = clusters[at].parent) {
    path.push_back(at);
    if (at == kRootCluster)
      break;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

bool Graph::clusterContains(ClusterId outer, ClusterId inner) const {
  for (ClusterId at = inner;; at = clusters[at].parent) {
    if (at == outer)
      return true;
    if (at == kRootCluster)
      return false;
  }
}

size_t Graph::visibleNodeCount() const {
  return static_cast<size_t>(
      std::count_if(nodes.begin(), nodes.end(), [](const Node &n) { return !n.constant; }));
}

NodeId Graph::findByName(std::string_view name) const {
  for (const Node &n : nodes)
    if (n.name == name)
      return n.id;
  auto among = [&](const std::vector<std::string> &names) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  for (const Node &n : nodes)
    if (among(n.resultNames) || among(n.aliases))
      return n.id;
  for (const Node &n : nodes)
    if (!n.constant && (n.legacyName == name || (n.legacyName.empty() && n.onnxNode == name)))
      return n.id;
  return kNoNode;
}

std::string shortName(const Graph &graph, const Node &node) {
  ClusterId at = node.cluster;
  while (at != kRootCluster && graph.clusters[at].chunk)
    at = graph.clusters[at].parent;
  const std::string &scope = graph.clusters[at].name;
  if (!scope.empty() && node.name.size() > scope.size() + 1 &&
      node.name.compare(0, scope.size(), scope) == 0 &&
      (node.name[scope.size()] == '/' || node.name[scope.size()] == '.'))
    return node.name.substr(scope.size() + 1);
  return node.name;
}

SearchResult find(const Graph &graph, std::string_view query, SearchMode mode) {
  SearchResult result;
  if (query.empty())
    return result;
  if (mode == SearchMode::Regex) {
    std::regex re;
    try {
      re = std::regex(std::string(query), std::regex::ECMAScript | std::regex::icase);
    } catch (const std::regex_error &e) {
      result.error = "invalid regular expression '" + std::string(query) + "': " + e.what();
      return result;
    }
    for (const Node &n : graph.nodes)
      if (!n.constant &&
          (std::regex_search(n.name, re) || std::regex_search(n.op, re) || std::regex_search(n.category, re)))
        result.nodes.push_back(n.id);
    return result;
  }
  std::string q = lower(query);
  for (const Node &n : graph.nodes) {
    if (n.constant)
      continue;
    if (lower(n.name).find(q) != std::string::npos || lower(n.op).find(q) != std::string::npos ||
        lower(n.category) == q)
      result.nodes.push_back(n.id);
  }
  return result;
}

std::vector<std::string> scopeOf(std::string_view name) {
  std::vector<std::string> scopes;
  if (name.find('/') != std::string_view::npos) {
    size_t pos = 0;
    std::string path;
    while (true) {
      size_t next = name.find('/', pos);
      if (next == std::string_view::npos)
        break; // the last component is the op itself
      std::string_view part = name.substr(pos, next - pos);
      if (!part.empty()) {
        path += "/";
        path += part;
        scopes.push_back(path);
      }
      pos = next + 1;
    }
    return scopes;
  }
  if (name.find("::") != std::string_view::npos)
    return scopes; // "onnx::Conv_12" is a name, not a path
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (true) {
    size_t next = name.find('.', pos);
    std::string_view part =
        name.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos);
    bool numeric = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
    if (numeric && !parts.empty())
      parts.back() =
          name.substr(parts.back().data() - name.data(), part.data() + part.size() - parts.back().data());
    else
      parts.push_back(part);
    if (next == std::string_view::npos)
      break;
    pos = next + 1;
  }
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (parts[i].empty())
      return {};
    scopes.emplace_back(name.substr(0, parts[i].data() + parts[i].size() - name.data()));
  }
  return scopes;
}

} // namespace tpuc::graph
