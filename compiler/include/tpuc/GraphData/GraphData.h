//===- GraphData.h - Plain-data graph of an MLIR function (no MLIR, no Qt) -*- C++ -*-===//
//
// What the graph view, the `tpuc graph` exporter and the pass inspector share: ops as nodes, SSA
// values as edges, and a cluster tree built from name scopes (`/layer1/layer1.0/conv1/Conv`,
// `model.layers.3.self_attn.q_proj`) or layer-group attributes. Plain values only: a graph can be
// built by the MLIR extraction (GraphExtract.h), read from JSON (`tpuc graph --format json`) or made
// by hand in a test, and handed to another thread without locks.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_GRAPH_GRAPHDATA_H
#define TPUC_GRAPH_GRAPHDATA_H

#include "tpuc/Support/Result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpuc::graph {

/// Index of a node in Graph::nodes.
using NodeId = uint32_t;
/// Index of a cluster in Graph::clusters; 0 is the root (the whole function or module).
using ClusterId = uint32_t;
inline constexpr NodeId kNoNode = UINT32_MAX;
inline constexpr ClusterId kRootCluster = 0;

/// One named attribute of an op, printed as MLIR prints it.
struct Attribute {
  std::string name;
  std::string value;
};

/// Type of one SSA value: shape and element type, plus quantization parameters when quantized.
struct TensorInfo {
  std::vector<int64_t> shape; ///< empty for scalars, `none` and unranked
  bool ranked = true;
  std::string dtype; ///< "f32", "bf16", "i8", "none", or the quantized storage type "i8"
  std::string quant; ///< "scale=0.02 zp=0" for !quant.uniform, else empty
  std::string type;  ///< the full MLIR type, e.g. "tensor<1x64x56x56xf32>"
  /// "1x64x56x56 f32" (the edge label form).
  std::string label() const;
};

/// An operand of a node: where it comes from.
struct Operand {
  NodeId producer = kNoNode; ///< kNoNode for block arguments
  unsigned resultIndex = 0;  ///< which result of the producer
  std::string name;          ///< the producer's name, the weight's array name, or "%argN"
  TensorInfo tensor;
  bool constant = false; ///< produced by a weight/none/constant node (hidden by default)
};

/// One op.
struct Node {
  NodeId id = 0;
  std::string op;   ///< full op name, "top.conv"
  std::string name; ///< its tensor name (TensorNames.h: "/layer1/layer1.0/conv1/Conv_output_0"), or "op#N"
  std::string onnxNode; ///< the ONNX node that produced it ("/layer1/layer1.0/conv1/Conv"), "" when none
  std::vector<std::string> resultNames; ///< each result's tensor name, when the op has more than one result
  std::vector<std::string> aliases;     ///< further names of its result (forwarded tensors, graph outputs)
  std::string legacyName; ///< the name it had when ops were named after ONNX nodes, when that differs
  std::string category;   ///< from the dialect's ODS: conv, matmul, elementwise, activation, io, ...
  std::string location;   ///< the printed location, e.g. `fused["c"("/conv1/Conv"), "r"("/relu/Relu")]`
  std::vector<Attribute> attributes;      ///< every attribute, sorted by name
  std::vector<std::string> keyAttributes; ///< short label lines, e.g. "k 3x3 s 2", "relu"
  std::vector<Operand> operands;
  std::vector<TensorInfo> results;
  std::string precision;        ///< "INT8", "BF16" (the op's precision attribute or its result dtype)
  std::string quant;            ///< quantization parameters (requant multiplier/rshift, !quant.uniform)
  std::optional<int64_t> flops; ///< from FlopsInterface when the op has it
  std::optional<int64_t>
      layerGroup; ///< the backend's `tpu.group` id (or a `group_id`/`layer_group` attribute)
  ClusterId cluster = kRootCluster; ///< innermost cluster holding the node
  bool constant = false;            ///< weights, none and constants: not drawn, listed as operands instead
};

/// A use of a value: from a result of one node to an operand of another.
struct Edge {
  NodeId from = 0;
  NodeId to = 0;
  unsigned fromResult = 0;
  unsigned toOperand = 0;
  std::string label; ///< "1x64x56x56 f32"
};

/// A group of nodes (name scope, transformer block, layer group) with sub-clusters.
struct Cluster {
  ClusterId id = 0;
  ClusterId parent = kRootCluster; ///< the root's parent is itself
  std::string name;                ///< full scope path, "/layer1/layer1.0" (root: "")
  std::string label;               ///< last component, "layer1.0"
  std::vector<ClusterId> children;
  std::vector<NodeId> nodes;  ///< non-constant nodes directly in this cluster, in IR order
  uint32_t totalNodes = 0;    ///< non-constant nodes in this cluster and its descendants
  NodeId firstNode = kNoNode; ///< lowest node id inside (orders clusters among nodes)
  bool chunk = false;         ///< a run of consecutive ops grouped only to keep a level small
  /// Structural hash of the contents (op kinds, key attributes, shapes, internal edges, children):
  /// clusters with equal signatures are repeated blocks and share one layout.
  uint64_t signature = 0;
};

/// A whole graph. Nodes are in IR order (a topological order for SSA graphs).
struct Graph {
  std::string source; ///< file or function it came from
  std::string title;  ///< module/function name
  std::vector<Node> nodes;
  std::vector<Edge> edges;       ///< only edges between non-constant nodes
  std::vector<Cluster> clusters; ///< clusters[0] is the root

  /// Edge indices into and out of each node (filled by finalize()).
  std::vector<std::vector<uint32_t>> inEdges, outEdges;

  /// Builds inEdges/outEdges and cluster node counts and signatures. Call after filling the vectors.
  void finalize();
  /// Nodes that feed `id` / that `id` feeds (non-constant, deduplicated).
  std::vector<NodeId> producers(NodeId id) const;
  std::vector<NodeId> consumers(NodeId id) const;
  /// The ancestor chain of a cluster from the root down to it (inclusive).
  std::vector<ClusterId> clusterPath(ClusterId id) const;
  /// Whether `inner` is `outer` or lies inside it.
  bool clusterContains(ClusterId outer, ClusterId inner) const;
  /// The items of a cluster's interior in drawing order: child clusters and direct nodes, sorted by
  /// first node. `isCluster` tells which; the value is a ClusterId or a NodeId.
  struct LevelItem {
    bool isCluster = false;
    uint32_t ref = 0;
  };
  std::vector<LevelItem> levelItems(ClusterId id) const;
  /// The item of `levelItems(cluster)` that holds `node` (its own index), or -1 if outside.
  int levelItemOf(ClusterId cluster, NodeId node) const;
  /// Number of non-constant nodes.
  size_t visibleNodeCount() const;
  /// The node whose name equals `name` exactly, else the one with `name` among its result names or
  /// aliases, else (a name written when ops were named after ONNX nodes) the one whose legacy name or
  /// ONNX node it is; kNoNode when none.
  NodeId findByName(std::string_view name) const;
};

/// The name of a node relative to its cluster's scope ("conv1/Conv" inside "/layer1/layer1.0").
std::string shortName(const Graph &graph, const Node &node);

/// How find() matches.
enum class SearchMode { Substring, Regex };

/// Non-constant nodes whose name, op name (with or without dialect prefix) or category matches the
/// query, case-insensitively; regex mode uses ECMAScript syntax. Fails with a message for a bad regex.
struct SearchResult {
  std::vector<NodeId> nodes;
  std::string error;
};
SearchResult find(const Graph &graph, std::string_view query, SearchMode mode);

/// The enclosing scopes of a node name, outermost first: "/a/b/Conv" → {"/a","/a/b"};
/// "model.layers.3.mlp.up_proj" → {"model","model.layers.3","model.layers.3.mlp"} (a numbered
/// component joins its predecessor so each transformer layer is one scope). Names without '/' or '.'
/// have none.
std::vector<std::string> scopeOf(std::string_view name);

/// Groups nodes into clusters by the scopes of their names (or by layer group when `byLayerGroup`
/// and the graph has group ids). Single-child scope chains are merged and clusters of one node are
/// dissolved; a level with more than `maxLevelItems` items gets chunk clusters of consecutive nodes
/// so no level is too large to lay out. Replaces graph.clusters and node.cluster; calls finalize().
void buildClusters(Graph &graph, bool byLayerGroup = false, size_t maxLevelItems = 120);

/// JSON form (`tpuc graph --format json`), read by the studio, which runs extraction out of process.
std::string toJson(const Graph &graph);
/// Parses toJson's output; a Failure (one line) on malformed input.
Result<Graph> fromJson(std::string_view text);

} // namespace tpuc::graph

#endif // TPUC_GRAPH_GRAPHDATA_H
