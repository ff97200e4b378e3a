//===- GraphCommand.cpp - graph: render MLIR as SVG, PNG, dot or graph JSON ===//
//
// `tpuc graph model.mlir --format svg|png|dot|json -o out`. Headless and Qt-free: Graphviz lays out
// and renders. Clusters (name scopes, transformer layers) are drawn open when the graph is small
// and closed when it is large, unless --expand says otherwise. The json form is the plain-data graph
// the studio reads (it runs extraction out of process).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tpuc/Graph/GraphExtract.h"
#include "tpuc/GraphData/GraphLayout.h"

#include <fstream>
#include <iostream>

namespace tpuc::cli {

int runGraph(const GraphOptions &o) {
  std::unique_ptr<mlir::MLIRContext> context = graph::makeGraphContext();
  std::string error;
  auto parsed = graph::parseMlirFile(o.mlir, *context);
  if (!parsed) {
    std::cerr << "tpuc graph: " << llvm::toString(parsed.takeError()) << std::endl;
    return kExitUsage;
  }
  mlir::OwningOpRef<mlir::ModuleOp> module = std::move(*parsed);
  graph::ExtractOptions extract;
  extract.byLayerGroup = o.clusterBy == "layer_group";
  graph::Graph g = graph::extractGraph(*module, extract);
  g.source = o.mlir;

  std::string bytes;
  if (o.format == "json") {
    bytes = graph::toJson(g);
  } else {
    bool open = o.expand == "all" || (o.expand == "auto" && g.visibleNodeCount() <= 400);
    std::vector<bool> expanded(g.clusters.size(), open);
    graph::RenderFormat format = o.format == "png"   ? graph::RenderFormat::Png
                                 : o.format == "dot" ? graph::RenderFormat::Dot
                                                     : graph::RenderFormat::Svg;
    Result<std::string> rendered = graph::renderWithGraphviz(g, expanded, format);
    if (!rendered) {
      std::cerr << "tpuc graph: " << o.mlir << ": " << rendered.error() << std::endl;
      return kExitFailed;
    }
    bytes = std::move(*rendered);
  }
  std::ofstream out(o.output, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::cerr << "tpuc graph: cannot write '" << o.output << "'" << std::endl;
    return kExitUsage;
  }
  return kExitOk;
}

} // namespace tpuc::cli
