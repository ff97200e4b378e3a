//===- PrefillBuckets.h - The prefill buckets of llm-convert --dynamic ------===//
//
// Qt-free and MLIR-free (the studio's import dialog shows them). With
// --dynamic the prefill stages are compiled again for shorter prompts, and
// a prompt runs in the smallest bucket that holds it (LlmConvert.h).
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_LLM_PREFILLBUCKETS_H
#define TPUC_LLM_PREFILLBUCKETS_H

#include <cstdint>
#include <string>
#include <vector>

namespace tpuc::llm {

/// The default --dynamic buckets of a prefill of `maxInputLength` tokens: halvings rounded up to a
/// multiple of 16, from max_input_length / 2 down to 16 (none when max_input_length <= 16), ascending.
inline std::vector<int64_t> defaultPrefillBuckets(int64_t maxInputLength) {
  std::vector<int64_t> buckets;
  for (int64_t length = maxInputLength;;) {
    int64_t next = (length / 2 + 15) / 16 * 16;
    if (next < 16 || next >= length)
      break;
    buckets.insert(buckets.begin(), next);
    length = next;
  }
  return buckets;
}

/// The name of prefill stage `base` ("embedding", "block_" or "block_kv_") for a bucket of `tokens`
/// and, for the blocks, decoder layer `layer`: embedding_len64, block_len64_3, block_kv_len64_3.
inline std::string bucketStageName(std::string base, int64_t tokens, int64_t layer = -1) {
  if (!base.empty() && base.back() == '_')
    base.pop_back();
  base += "_len" + std::to_string(tokens);
  if (layer >= 0)
    base += "_" + std::to_string(layer);
  return base;
}

} // namespace tpuc::llm

#endif // TPUC_LLM_PREFILLBUCKETS_H
