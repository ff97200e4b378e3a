//===- GraphTest.cpp - Graph extraction, clusters, search, JSON, layout, rendering ===//

#include "tpuc/Graph/GraphExtract.h"
#include "tpuc/GraphData/GraphData.h"
#include "tpuc/GraphData/GraphLayout.h"
#include "tpuc/GraphData/GraphSynthetic.h"

#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace tpuc::graph;
using tpuc::Result;

namespace {

// conv+relu+add in one ONNX-style scope, plus an op outside it, named as the importer names them: each op
// after the tensor it produces, with its ONNX node as the location's child (the conv produces the fused
// relu's tensor; the sigmoid's tensor also goes by an Identity's name and by the graph output's).
const char *kTinyTop = R"mlir(
module @tiny {
  func.func @main(%arg0: tensor<1x3x8x8xf32>) -> (tensor<1x4x8x8xf32> {top.name = "output"}) {
    %0 = top.input %arg0 : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xf32> loc("input")
    %w = top.weight "c1.w" : tensor<4x3x3x3xf32> loc("c1.w")
    %n = top.none : none loc("none")
    %1 = top.conv %0, %w, %n {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32> loc(fused["/block/conv1/Conv_output_0"("/block/conv1/Conv"), "/block/relu/Relu_output_0"("/block/relu/Relu")])
    %2 = top.relu %1 : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32> loc("/block/relu2/Relu_output_0"("/block/relu2/Relu"))
    %3 = top.add %2, %1 : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("/block/Add_output_0"("/block/Add"))
    %4 = top.sigmoid %3 : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32> loc("/head/Sigmoid_output_0"(fused["/head/Sigmoid", fused<"aliases">["probs"("/head/Identity")]]))
    return %4 : tensor<1x4x8x8xf32>
  }
}
)mlir";

const char *kTinyTpu = R"mlir(
!qx = !quant.uniform<i8:f32, 0.02>
!qy = !quant.uniform<i8:f32, 0.05:-3>
module @q {
  func.func @main(%x: tensor<1x3x8x8x!qx>, %w: tensor<2x3x3x3xi8>, %b: tensor<2xi32>) -> tensor<1x2x8x8x!qy> {
    %0 = tpu.conv2d %x, %w, %b {precision = #top.precision<INT8>, kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, multiplier = array<i64: 19005, 17002>, rshift = array<i64: 20, 20>, tpu.group = #tpu.group<id = 3, kind = group>} : (tensor<1x3x8x8x!qx>, tensor<2x3x3x3xi8>, tensor<2xi32>) -> tensor<1x2x8x8x!qy> loc("conv")
    return %0 : tensor<1x2x8x8x!qy>
  }
}
)mlir";

Graph extract(const char *text) {
  auto context = makeGraphContext();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, context.get());
  EXPECT_TRUE(module);
  return extractGraph(*module);
}

bool overlaps(const Rect &a, const Rect &b) {
  // Touching borders are fine; any shared area is not.
  return a.x + 0.5 < b.x + b.width && b.x + 0.5 < a.x + a.width && a.y + 0.5 < b.y + b.height &&
         b.y + 0.5 < a.y + a.height;
}

/// Items that must not overlap: boxes at the same level (frames contain their own contents).
void expectNoOverlap(const Graph &g, const Scene &scene) {
  for (size_t i = 0; i < scene.items.size(); ++i)
    for (size_t j = i + 1; j < scene.items.size(); ++j) {
      const PlacedItem &a = scene.items[i], &b = scene.items[j];
      auto inside = [&](const PlacedItem &frame, const PlacedItem &item) {
        if (frame.kind != ItemKind::Frame)
          return false;
        ClusterId c = item.kind == ItemKind::Node ? g.nodes[item.ref].cluster : item.ref;
        return c != frame.ref && g.clusterContains(frame.ref, c) ||
               (item.kind == ItemKind::Node && g.nodes[item.ref].cluster == frame.ref);
      };
      if (inside(a, b) || inside(b, a))
        continue;
      EXPECT_FALSE(overlaps(a.rect, b.rect)) << "items " << i << " and " << j << " overlap";
    }
}

TEST(GraphExtract, TinyTopKnownAnswer) {
  Graph g = extract(kTinyTop);
  // input, weight, none, conv, relu, add, sigmoid, return.
  ASSERT_EQ(g.nodes.size(), 8u);
  EXPECT_EQ(g.visibleNodeCount(), 6u); // weight and none are constants
  // The fused conv+relu produces the relu's tensor: that is its name, the relu node its provenance.
  ASSERT_NE(g.findByName("/block/relu/Relu_output_0"), kNoNode);
  const Node &conv = g.nodes[g.findByName("/block/relu/Relu_output_0")];
  EXPECT_EQ(conv.op, "top.conv");
  EXPECT_EQ(conv.onnxNode, "/block/relu/Relu");
  EXPECT_EQ(conv.legacyName, "/block/relu/Relu"); // its name when ops were named after ONNX nodes
  EXPECT_EQ(conv.category, "conv");
  EXPECT_EQ(conv.location, "fused[\"/block/conv1/Conv_output_0\"(\"/block/conv1/Conv\"), "
                           "\"/block/relu/Relu_output_0\"(\"/block/relu/Relu\")]");
  ASSERT_EQ(conv.results.size(), 1u);
  EXPECT_EQ(conv.results[0].label(), "1x4x8x8 f32");
  EXPECT_EQ(conv.precision, "f32");
  ASSERT_TRUE(conv.flops.has_value());
  EXPECT_EQ(*conv.flops, 2 * 4 * 8 * 8 * 3 * 3 * 3); // 2·Cout·H·W·Cin·Kh·Kw, no bias
  ASSERT_EQ(conv.operands.size(), 3u);
  EXPECT_EQ(conv.operands[1].name, "c1.w");
  EXPECT_TRUE(conv.operands[1].constant);
  EXPECT_NE(std::find(conv.keyAttributes.begin(), conv.keyAttributes.end(), "kernel_shape 3x3"),
            conv.keyAttributes.end());
  EXPECT_EQ(g.nodes[g.findByName("input")].category, "io");
  NodeId sigmoid = g.findByName("/head/Sigmoid_output_0");
  ASSERT_NE(sigmoid, kNoNode);
  EXPECT_EQ(g.nodes[sigmoid].category, "activation");
  EXPECT_EQ(g.nodes[sigmoid].aliases, (std::vector<std::string>{"probs", "output"}));
  // Found by its aliases, and by the node names a run recorded before tensor names.
  EXPECT_EQ(g.findByName("probs"), sigmoid);
  EXPECT_EQ(g.findByName("output"), sigmoid);
  EXPECT_EQ(g.findByName("/head/Sigmoid"), sigmoid);
  EXPECT_EQ(g.findByName("/block/relu/Relu"), conv.id);
  EXPECT_EQ(g.nodes[g.findByName("/block/Add_output_0")].category, "elementwise");

  // Edges: input→conv, conv→relu, relu→add, conv→add, add→sigmoid, sigmoid→return.
  EXPECT_EQ(g.edges.size(), 6u);
  NodeId add = g.findByName("/block/Add_output_0");
  std::vector<NodeId> producers = g.producers(add);
  std::set<std::string> producerNames;
  for (NodeId p : producers)
    producerNames.insert(g.nodes[p].name);
  EXPECT_EQ(producerNames, (std::set<std::string>{"/block/relu/Relu_output_0", "/block/relu2/Relu_output_0"}));
  EXPECT_EQ(g.consumers(conv.id).size(), 2u);
  for (const Edge &e : g.edges)
    EXPECT_EQ(e.label, "1x" + std::to_string(e.from == g.findByName("input") ? 3 : 4) + "x8x8 f32");

  // Clusters: /block holds conv, relu2 and add; /head has one op and is dissolved.
  ASSERT_EQ(g.clusters.size(), 2u);
  EXPECT_EQ(g.clusters[1].name, "/block");
  EXPECT_EQ(g.clusters[1].label, "block");
  EXPECT_EQ(g.clusters[1].totalNodes, 3u);
  EXPECT_EQ(conv.cluster, 1u);
  EXPECT_EQ(g.nodes[sigmoid].cluster, kRootCluster);
  EXPECT_EQ(shortName(g, conv), "relu/Relu_output_0");
}

// A run-time If stands for its branches: the node says how many ops each holds, and the operand segment
// sizes MLIR keeps on it are not shown.
TEST(GraphExtract, ControlFlowNodeSummarizesItsRegions) {
  Graph g = extract(R"mlir(
module @cf {
  func.func @main(%c: tensor<1xi1>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
    %y = top.if %c (%x) : (tensor<1xi1>, tensor<1x4xf32>) -> tensor<1x4xf32> {
    ^bb0(%a: tensor<1x4xf32>):
      %r = top.relu %a : tensor<1x4xf32> -> tensor<1x4xf32> loc("r")
      %s = top.sigmoid %r : tensor<1x4xf32> -> tensor<1x4xf32> loc("s")
      top.yield %s : tensor<1x4xf32>
    }, {
    ^bb0(%a: tensor<1x4xf32>):
      top.yield %a : tensor<1x4xf32>
    } loc("y")
    return %y : tensor<1x4xf32>
  }
}
)mlir");
  NodeId y = g.findByName("y");
  ASSERT_NE(y, kNoNode);
  ASSERT_FALSE(g.nodes[y].keyAttributes.empty());
  EXPECT_EQ(g.nodes[y].keyAttributes.front(), "then 2 ops, else 0 ops");
  for (const std::string &k : g.nodes[y].keyAttributes)
    EXPECT_EQ(k.find("SegmentSizes"), std::string::npos) << k;
}

TEST(GraphExtract, TpuPrecisionAndQuantization) {
  Graph g = extract(kTinyTpu);
  const Node &conv = g.nodes[g.findByName("conv")];
  EXPECT_EQ(conv.category, "conv");
  EXPECT_EQ(conv.precision, "INT8");
  EXPECT_NE(conv.quant.find("multiplier array<i64: 19005, 17002>"), std::string::npos) << conv.quant;
  EXPECT_NE(conv.quant.find("output scale=0.05 zp=-3"), std::string::npos) << conv.quant;
  EXPECT_EQ(conv.results[0].dtype, "i8");
  EXPECT_EQ(conv.operands[0].name, "%arg0");
  // The backend's tpu-layer-group records the group as `tpu.group = #tpu.group<id = 3, ...>`: the layer-group
  // overlay.
  EXPECT_EQ(conv.layerGroup, 3);
}

TEST(GraphExtract, CategoriesComeFromTheOds) {
  EXPECT_EQ(opCategory("top.matmul"), "matmul");
  EXPECT_EQ(opCategory("top.attention"), "attention");
  EXPECT_EQ(opCategory("top.weight"), "io"); // no stated category: its file, TopIOOps.td
  EXPECT_EQ(opCategory("tpu.conv2d"), "conv");
  EXPECT_EQ(opCategory("arith.addf"), "other");
}

TEST(GraphData, ScopesOfNames) {
  EXPECT_EQ(scopeOf("/layer1/layer1.0/conv1/Conv"),
            (std::vector<std::string>{"/layer1", "/layer1/layer1.0", "/layer1/layer1.0/conv1"}));
  EXPECT_EQ(scopeOf("model.layers.3.mlp.up_proj"),
            (std::vector<std::string>{"model", "model.layers.3", "model.layers.3.mlp"}));
  EXPECT_TRUE(scopeOf("onnx::Conv_12").empty());
  EXPECT_TRUE(scopeOf("input").empty());
}

TEST(GraphData, SearchByNameTypeCategoryAndRegex) {
  Graph g = extract(kTinyTop);
  EXPECT_EQ(find(g, "relu", SearchMode::Substring).nodes.size(), 2u); // relu2, and the conv with its fused relu's tensor
  EXPECT_EQ(find(g, "CONV", SearchMode::Substring).nodes.size(), 1u);
  EXPECT_EQ(find(g, "activation", SearchMode::Substring).nodes.size(), 2u); // relu, sigmoid
  SearchResult re = find(g, "^/block/(Add|relu2)", SearchMode::Regex);
  EXPECT_EQ(re.nodes.size(), 2u);
  SearchResult bad = find(g, "([", SearchMode::Regex);
  EXPECT_TRUE(bad.nodes.empty());
  EXPECT_NE(bad.error.find("invalid regular expression"), std::string::npos);
  EXPECT_TRUE(find(g, "c1.w", SearchMode::Substring).nodes.empty()); // constants are not drawn
}

TEST(GraphData, JsonRoundTrip) {
  Graph g = extract(kTinyTpu);
  Result<Graph> back = fromJson(toJson(g));
  ASSERT_TRUE(back) << back.error();
  ASSERT_EQ(back->nodes.size(), g.nodes.size());
  EXPECT_EQ(toJson(*back), toJson(g));
  // The names besides the tensor name (ONNX node, aliases, legacy name) survive JSON.
  Graph top = extract(kTinyTop);
  Result<Graph> topParsed = fromJson(toJson(top));
  ASSERT_TRUE(topParsed) << topParsed.error();
  const Graph &topBack = *topParsed;
  EXPECT_EQ(toJson(topBack), toJson(top));
  NodeId sigmoid = topBack.findByName("/head/Sigmoid_output_0");
  ASSERT_NE(sigmoid, kNoNode);
  EXPECT_EQ(topBack.nodes[sigmoid].onnxNode, "/head/Sigmoid");
  EXPECT_EQ(topBack.nodes[sigmoid].aliases, (std::vector<std::string>{"probs", "output"}));
  EXPECT_EQ(topBack.nodes[sigmoid].legacyName, "/head/Sigmoid");
  EXPECT_NE(toJson(top).find("\"onnx_node\":\"/head/Sigmoid\""), std::string::npos);
  EXPECT_FALSE(fromJson("{\"format\": \"other\"}"));
  Result<Graph> malformed = fromJson("not json");
  EXPECT_FALSE(malformed);
  EXPECT_NE(malformed.error().find("malformed graph JSON"), std::string::npos);
}

TEST(GraphData, ChunksBoundEveryLevel) {
  Graph flat = syntheticGraph(2000, /*named=*/false);
  for (ClusterId c = 0; c < flat.clusters.size(); ++c)
    EXPECT_LE(flat.levelItems(c).size(), 120u);
  EXPECT_EQ(flat.clusters[0].totalNodes, 2000u);
  Graph named = syntheticGraph(2000);
  EXPECT_EQ(named.levelItems(kRootCluster).size(), 4u); // 200 blocks, 50 a stage
}

TEST(GraphLayout, NoOverlapAndStablePositions) {
  auto g = std::make_shared<const Graph>(syntheticGraph(1000));
  LayoutEngine a(g, defaultMeasure()), b(g, defaultMeasure());
  std::vector<bool> expanded(g->clusters.size(), false);
  expanded[1] = true; // the first stage
  expanded[g->clusters[1].children[0]] = true; // and its first block
  Scene s1 = a.layout(expanded), s2 = b.layout(expanded);
  ASSERT_EQ(s1.items.size(), s2.items.size());
  for (size_t i = 0; i < s1.items.size(); ++i) {
    EXPECT_DOUBLE_EQ(s1.items[i].rect.x, s2.items[i].rect.x);
    EXPECT_DOUBLE_EQ(s1.items[i].rect.y, s2.items[i].rect.y);
  }
  expectNoOverlap(*g, s1);
  // A frame encloses its contents.
  int frame = s1.itemOfCluster(1);
  ASSERT_GE(frame, 0);
  EXPECT_EQ(s1.items[static_cast<size_t>(frame)].kind, ItemKind::Frame);
  for (const PlacedItem &item : s1.items)
    if (item.kind == ItemKind::Node) {
      const Rect &f = s1.items[static_cast<size_t>(frame)].rect;
      EXPECT_GE(item.rect.x, f.x);
      EXPECT_LE(item.rect.x + item.rect.width, f.x + f.width + 0.5);
    }
}

TEST(GraphLayout, RepeatedBlocksAndReopenedClustersReuseLayouts) {
  auto g = std::make_shared<const Graph>(syntheticGraph(1000));
  LayoutEngine engine(g, defaultMeasure());
  std::vector<bool> expanded(g->clusters.size(), false);
  engine.layout(expanded);
  size_t runs = engine.stats().dotRuns;
  EXPECT_EQ(runs, 1u);
  // Open every block of stage 0: 50 identical blocks → new dot runs for one block, the stage, and the
  // root (which now holds a big frame).
  expanded[1] = true;
  for (ClusterId c : g->clusters[1].children)
    expanded[c] = true;
  Scene open = engine.layout(expanded);
  EXPECT_EQ(engine.stats().dotRuns, runs + 3);
  EXPECT_GE(engine.stats().cacheHits, 49u);
  EXPECT_EQ(open.itemOfNode(0) >= 0, true);
  // Closing and reopening runs dot no more.
  size_t before = engine.stats().dotRuns;
  std::vector<bool> closed(g->clusters.size(), false);
  engine.layout(closed);
  engine.layout(expanded);
  EXPECT_EQ(engine.stats().dotRuns, before);
  // A collapsed cluster stands for its ops; opening it shows them.
  Scene collapsed = engine.layout(closed);
  EXPECT_LT(collapsed.itemOfNode(0), 0);
  EXPECT_GE(collapsed.itemOfCluster(1), 0);
}

TEST(GraphRender, SvgPngAndDot) {
  Graph g = extract(kTinyTop);
  std::vector<bool> open(g.clusters.size(), true);
  Result<std::string> svg = renderWithGraphviz(g, open, RenderFormat::Svg);
  ASSERT_TRUE(svg) << svg.error();
  ASSERT_FALSE(svg->empty());
  EXPECT_NE(svg->find("<svg"), std::string::npos);
  EXPECT_NE(svg->find("cluster_1"), std::string::npos);
  EXPECT_NE(svg->find("1x4x8x8 f32"), std::string::npos);
  Result<std::string> png = renderWithGraphviz(g, open, RenderFormat::Png);
  ASSERT_TRUE(png) << png.error();
  ASSERT_GE(png->size(), 8u);
  EXPECT_EQ(png->substr(1, 3), "PNG");
  std::vector<bool> closed(g.clusters.size(), false);
  Result<std::string> dot = renderWithGraphviz(g, closed, RenderFormat::Dot);
  ASSERT_TRUE(dot) << dot.error();
  EXPECT_NE(dot->find("digraph"), std::string::npos);
  EXPECT_NE(dot->find("3 ops"), std::string::npos); // the collapsed /block
}

TEST(GraphExtract, TransformerShapedIR) {
  TransformerShape shape;
  shape.layers = 3;
  shape.seqLength = 16;
  auto context = makeGraphContext();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(transformerTopIR(shape), context.get());
  ASSERT_TRUE(module);
  Graph g = extractGraph(*module);
  // Root: inputs, the "model" scope opened (embedding, layers, norm), lm_head, output.
  std::set<std::string> layerClusters;
  for (const Cluster &c : g.clusters)
    if (c.name.starts_with("model.layers.") && c.name.find('.', 13) == std::string::npos)
      layerClusters.insert(c.name);
  EXPECT_EQ(layerClusters.size(), 3u);
  // Identical layers have identical signatures (one layout for all).
  std::set<uint64_t> signatures;
  for (const Cluster &c : g.clusters)
    if (layerClusters.count(c.name))
      signatures.insert(c.signature);
  EXPECT_EQ(signatures.size(), 1u);
  EXPECT_EQ(g.nodes[g.findByName("model.layers.1.self_attn.q_proj")].category, "matmul");
}

} // namespace
