//===- GraphSynthetic.h - Generated graphs and IR for tests and the bench -*- C++ -*-===//
#ifndef TPUC_GRAPH_GRAPHSYNTHETIC_H
#define TPUC_GRAPH_GRAPHSYNTHETIC_H

#include "tpuc/GraphData/GraphData.h"

#include <string>

namespace tpuc::graph {

/// A CNN-shaped graph of about `ops` ops: residual blocks of 10 ops named "/stageS/blockB/opI", 50 blocks
/// a stage (so clusters nest two deep and every block has the same structure). With `named` false the
/// ops have no scopes and only chunking bounds the levels. Clustered and finalized.
Graph syntheticGraph(size_t ops, bool named = true);

/// Shape of a decoder-only transformer (defaults: Qwen2-0.5B).
struct TransformerShape {
  int layers = 24;
  int hidden = 896;
  int heads = 14;
  int kvHeads = 2;
  int headDim = 64;
  int intermediate = 4864;
  int vocab = 151936;
  int seqLength = 512; ///< tokens of the stage (prefill length, or 1 for decode)
};
/// Top IR text of a whole decoder (embedding, `layers` × attention + MLP, final norm, lm_head) with
/// HuggingFace parameter names as locations, file-backed weights (the file need not exist to draw it).
std::string transformerTopIR(const TransformerShape &shape);

} // namespace tpuc::graph

#endif
