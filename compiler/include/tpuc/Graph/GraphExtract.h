//===- GraphExtract.h - MLIR function or module to a plain-data Graph -*- C++ -*-===//
//
// Walks the ops of a module's functions once and copies what the views show into a Graph: op names,
// categories from the dialects' ODS (OpCategories.h), locations, attributes, types, precision and
// quantization parameters, FLOPs. Clusters come from GraphData's buildClusters.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_GRAPH_GRAPHEXTRACT_H
#define TPUC_GRAPH_GRAPHEXTRACT_H

#include "tpuc/GraphData/GraphData.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tpuc::graph {

struct ExtractOptions {
  /// Cluster by layer-group ids instead of name scopes when ops carry them.
  bool byLayerGroup = false;
  /// Items per level before chunk clusters are added (see buildClusters).
  size_t maxLevelItems = 120;
};

/// Extracts every function of `module` (one cluster per function when there are several).
Graph extractGraph(mlir::ModuleOp module, const ExtractOptions &options = {});

/// The category of an op name from the dialects' ODS ("conv", "io", ...), "other" when unknown.
std::string opCategory(std::string_view opName);

/// A context with the project's dialects loaded; unknown dialects are allowed so any MLIR file opens.
std::unique_ptr<mlir::MLIRContext> makeGraphContext();
/// Parses an MLIR file (text or bytecode); the error is one line naming the file (and the line).
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> parseMlirFile(const std::string &path,
                                                                mlir::MLIRContext &context);

} // namespace tpuc::graph

#endif // TPUC_GRAPH_GRAPHEXTRACT_H
