//===- GraphJson.cpp - JSON form of a Graph (what `tpuc graph --format json` writes) ===//

#include "tpuc/GraphData/GraphData.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace tpuc::graph {

using nlohmann::json;

namespace {

TensorInfo tensorFrom(const json &j) {
  TensorInfo t;
  t.type = j.value("type", "");
  t.dtype = j.value("dtype", "");
  t.ranked = j.contains("shape");
  if (t.ranked)
    t.shape = j.at("shape").get<std::vector<int64_t>>();
  t.quant = j.value("quant", "");
  return t;
}

} // namespace

namespace {

/// A direct JSON writer: the json-tree route took seconds for a 50,000-op graph.
class Writer {
public:
  std::string out;
  void str(std::string_view s) {
    out += '"';
    for (char c : s) {
      switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
      }
    }
    out += '"';
  }
  void key(std::string_view k) {
    str(k);
    out += ':';
  }
  void num(int64_t v) { out += std::to_string(v); }
  void strings(const std::vector<std::string> &v) {
    out += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i)
        out += ',';
      str(v[i]);
    }
    out += ']';
  }
  void tensor(const TensorInfo &t) {
    out += '{';
    key("type");
    str(t.type);
    out += ',';
    key("dtype");
    str(t.dtype);
    if (t.ranked) {
      out += ",\"shape\":[";
      for (size_t i = 0; i < t.shape.size(); ++i) {
        if (i)
          out += ',';
        num(t.shape[i]);
      }
      out += ']';
    }
    if (!t.quant.empty()) {
      out += ',';
      key("quant");
      str(t.quant);
    }
    out += '}';
  }
};

} // namespace

std::string toJson(const Graph &graph) {
  Writer w;
  w.out.reserve(graph.nodes.size() * 600 + 1024);
  w.out += "{\"format\":\"tpuc-graph\",\"version\":1,";
  w.key("source");
  w.str(graph.source);
  w.out += ',';
  w.key("title");
  w.str(graph.title);
  w.out += ",\"nodes\":[";
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node &n = graph.nodes[i];
    if (i)
      w.out += ',';
    w.out += '{';
    w.key("op");
    w.str(n.op);
    w.out += ',';
    w.key("name");
    w.str(n.name);
    w.out += ',';
    // Names besides the tensor name only when there are any.
    if (!n.onnxNode.empty()) {
      w.key("onnx_node");
      w.str(n.onnxNode);
      w.out += ',';
    }
    if (!n.resultNames.empty()) {
      w.key("result_names");
      w.strings(n.resultNames);
      w.out += ',';
    }
    if (!n.aliases.empty()) {
      w.key("aliases");
      w.strings(n.aliases);
      w.out += ',';
    }
    if (!n.legacyName.empty()) {
      w.key("legacy_name");
      w.str(n.legacyName);
      w.out += ',';
    }
    w.key("category");
    w.str(n.category);
    w.out += ',';
    w.key("location");
    w.str(n.location);
    w.out += ",\"attributes\":[";
    for (size_t a = 0; a < n.attributes.size(); ++a) {
      w.out += a ? ",[" : "[";
      w.str(n.attributes[a].name);
      w.out += ',';
      w.str(n.attributes[a].value);
      w.out += ']';
    }
    w.out += "],\"key\":[";
    for (size_t k = 0; k < n.keyAttributes.size(); ++k) {
      if (k)
        w.out += ',';
      w.str(n.keyAttributes[k]);
    }
    w.out += "],\"operands\":[";
    for (size_t o = 0; o < n.operands.size(); ++o) {
      const Operand &op = n.operands[o];
      w.out += o ? ",{" : "{";
      w.key("name");
      w.str(op.name);
      // An operand produced in the graph has its producer's result type: not written twice.
      if (op.producer == kNoNode) {
        w.out += ',';
        w.key("tensor");
        w.tensor(op.tensor);
      }
      if (op.producer != kNoNode) {
        w.out += ",\"producer\":";
        w.num(op.producer);
        w.out += ",\"result\":";
        w.num(op.resultIndex);
      }
      if (op.constant)
        w.out += ",\"constant\":true";
      w.out += '}';
    }
    w.out += "],\"results\":[";
    for (size_t r = 0; r < n.results.size(); ++r) {
      if (r)
        w.out += ',';
      w.tensor(n.results[r]);
    }
    w.out += "],";
    w.key("precision");
    w.str(n.precision);
    w.out += ',';
    w.key("quant");
    w.str(n.quant);
    w.out += ",\"cluster\":";
    w.num(n.cluster);
    if (n.flops) {
      w.out += ",\"flops\":";
      w.num(*n.flops);
    }
    if (n.layerGroup) {
      w.out += ",\"layer_group\":";
      w.num(*n.layerGroup);
    }
    if (n.constant)
      w.out += ",\"constant\":true";
    w.out += '}';
  }
  w.out += "],\"edges\":[";
  for (size_t i = 0; i < graph.edges.size(); ++i) {
    const Edge &e = graph.edges[i];
    w.out += i ? ",[" : "[";
    w.num(e.from);
    w.out += ',';
    w.num(e.to);
    w.out += ',';
    w.num(e.fromResult);
    w.out += ',';
    w.num(e.toOperand);
    w.out += ',';
    w.str(e.label);
    w.out += ']';
  }
  w.out += "],\"clusters\":[";
  for (size_t i = 0; i < graph.clusters.size(); ++i) {
    const Cluster &c = graph.clusters[i];
    w.out += i ? ",{" : "{";
    w.out += "\"parent\":";
    w.num(c.parent);
    w.out += ',';
    w.key("name");
    w.str(c.name);
    w.out += ',';
    w.key("label");
    w.str(c.label);
    w.out += ",\"children\":[";
    for (size_t k = 0; k < c.children.size(); ++k) {
      if (k)
        w.out += ',';
      w.num(c.children[k]);
    }
    w.out += "],\"chunk\":";
    w.out += c.chunk ? "true" : "false";
    w.out += '}';
  }
  w.out += "]}";
  return std::move(w.out);
}

Result<Graph> fromJson(std::string_view text) {
  try {
    json root = json::parse(text.begin(), text.end());
    if (root.value("format", "") != "tpuc-graph")
      return Failure{"not a tpuc graph (missing \"format\": \"tpuc-graph\")"};
    Graph g;
    g.source = root.value("source", "");
    g.title = root.value("title", "");
    for (const json &j : root.at("nodes")) {
      Node n;
      n.op = j.at("op").get<std::string>();
      n.name = j.value("name", "");
      n.onnxNode = j.value("onnx_node", "");
      for (const char *key : {"result_names", "aliases"})
        if (auto names = j.find(key); names != j.end())
          for (const json &a : *names)
            (key[0] == 'r' ? n.resultNames : n.aliases).push_back(a.get_ref<const std::string &>());
      n.legacyName = j.value("legacy_name", "");
      n.category = j.value("category", "other");
      n.location = j.value("location", "");
      // find() and references throughout: value(key, default) copies whole arrays.
      if (auto attrs = j.find("attributes"); attrs != j.end())
        for (const json &a : *attrs)
          n.attributes.push_back(
              {a.at(0).get_ref<const std::string &>(), a.at(1).get_ref<const std::string &>()});
      if (auto keys = j.find("key"); keys != j.end())
        for (const json &k : *keys)
          n.keyAttributes.push_back(k.get_ref<const std::string &>());
      static const json kEmpty = json::array();
      auto operands = j.find("operands");
      for (const json &o : operands != j.end() ? *operands : kEmpty) {
        Operand op;
        op.name = o.value("name", "");
        if (auto t = o.find("tensor"); t != o.end())
          op.tensor = tensorFrom(*t);
        op.producer = o.value("producer", kNoNode);
        op.resultIndex = o.value("result", 0u);
        op.constant = o.value("constant", false);
        n.operands.push_back(std::move(op));
      }
      auto results = j.find("results");
      for (const json &r : results != j.end() ? *results : kEmpty)
        n.results.push_back(tensorFrom(r));
      n.precision = j.value("precision", "");
      n.quant = j.value("quant", "");
      n.cluster = j.value("cluster", kRootCluster);
      if (j.contains("flops"))
        n.flops = j.at("flops").get<int64_t>();
      if (j.contains("layer_group"))
        n.layerGroup = j.at("layer_group").get<int64_t>();
      n.constant = j.value("constant", false);
      g.nodes.push_back(std::move(n));
    }
    for (Node &n : g.nodes)
      for (Operand &o : n.operands)
        if (o.producer != kNoNode) {
          if (o.producer >= g.nodes.size() || o.resultIndex >= g.nodes[o.producer].results.size())
            return Failure{"operand of '" + n.name + "' refers to a missing result"};
          o.tensor = g.nodes[o.producer].results[o.resultIndex];
        }
    for (const json &e : root.at("edges")) {
      Edge edge{e.at(0).get<NodeId>(), e.at(1).get<NodeId>(), e.at(2).get<unsigned>(),
                e.at(3).get<unsigned>(), e.at(4).get<std::string>()};
      if (edge.from >= g.nodes.size() || edge.to >= g.nodes.size())
        return Failure{"edge refers to node " + std::to_string(std::max(edge.from, edge.to)) + " of " +
                       std::to_string(g.nodes.size())};
      g.edges.push_back(std::move(edge));
    }
    for (const json &c : root.at("clusters")) {
      Cluster cluster;
      cluster.parent = c.value("parent", kRootCluster);
      cluster.name = c.value("name", "");
      cluster.label = c.value("label", "");
      cluster.children = c.value("children", std::vector<ClusterId>{});
      cluster.chunk = c.value("chunk", false);
      g.clusters.push_back(std::move(cluster));
    }
    for (size_t i = 1; i < g.clusters.size(); ++i)
      if (g.clusters[i].parent >= i)
        return Failure{"cluster " + std::to_string(i) + " does not come after its parent"};
    for (const Cluster &c : g.clusters)
      for (ClusterId child : c.children)
        if (child >= g.clusters.size())
          return Failure{"cluster refers to cluster " + std::to_string(child) + " of " +
                         std::to_string(g.clusters.size())};
    for (const Node &n : g.nodes)
      if (n.cluster >= std::max<size_t>(g.clusters.size(), 1))
        return Failure{"node '" + n.name + "' refers to cluster " + std::to_string(n.cluster)};
    g.finalize();
    return g;
  } catch (const json::exception &e) {
    return Failure{std::string("malformed graph JSON: ") + e.what()};
  }
}

} // namespace tpuc::graph
