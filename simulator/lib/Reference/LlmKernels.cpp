//===- LlmKernels.cpp - Reference kernels of the LLM ops (TopLLMOps.td) ----===//
#include "Kernels.h"

#include <vector>

using namespace mlir;

namespace tpuc::sim::ref {

LogicalResult run(top::RepetitionPenaltyOp op, Inputs in, Outputs out) {
  auto shape = shapeOf(op.getLogits());
  int64_t batch = shape[0], vocab = shape[1], seen = shapeOf(op.getIds())[1];
  float penalty = in[2][0];
  parallelCopy(out[0], in[0], batch * vocab);
  for (int64_t b = 0; b < batch; ++b) {
    // Each token once, from the original logits: gather, rescale, scatter.
    std::vector<bool> done(vocab, false);
    const float *ids = in[1] + b * seen;
    const float *logits = in[0] + b * vocab;
    float *result = out[0] + b * vocab;
    for (int64_t s = 0; s < seen; ++s) {
      int64_t id = toIndex(ids[s]);
      if (id < 0)
        continue;
      if (id >= vocab)
        return op.emitOpError() << "token id " << id << " is outside the vocabulary of " << vocab;
      if (done[id])
        continue;
      done[id] = true;
      float value = logits[id];
      result[id] = value < 0 ? value * penalty : value / penalty;
    }
  }
  return success();
}

} // namespace tpuc::sim::ref
