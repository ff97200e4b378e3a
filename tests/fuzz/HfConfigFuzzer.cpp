//===- HfConfigFuzzer.cpp - libFuzzer target for HuggingFace config files --===//
//
// config.json and generation_config.json (the first byte picks which; the rest is the text): either a
// one-line rejection naming the file, or a configuration the converter can size stages from: positive
// sizes, key/value heads dividing the query heads, a positive head dimension.
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"
#include "tpuc/LLM/HFConfig.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  llvm::StringRef text(reinterpret_cast<const char *>(data + 1), size - 1);
  if (data[0] & 1) {
    auto generation = tpuc::llm::parseGenerationConfig(text, "fuzz/generation_config.json");
    if (!generation)
      tpuc::fuzz::rejectionIsOneLine(llvm::toString(generation.takeError()), "fuzz/generation_config.json");
    return 0;
  }
  llvm::Expected<tpuc::llm::ModelConfig> config = tpuc::llm::parseModelConfig(text, "fuzz/config.json");
  if (!config) {
    tpuc::fuzz::rejectionIsOneLine(llvm::toString(config.takeError()), "fuzz/config.json");
    return 0;
  }
  if (config->hiddenSize <= 0 || config->intermediateSize <= 0 || config->numHiddenLayers <= 0 ||
      config->vocabSize <= 0 || config->numAttentionHeads <= 0 || config->numKeyValueHeads <= 0 ||
      config->numAttentionHeads % config->numKeyValueHeads != 0 || config->headDim <= 0)
    __builtin_trap();
  // An accepted vision tower has a whole number of image tokens on a grid the shuffle divides.
  if (const auto &v = config->vision)
    if (v->grid() <= 0 || v->tokenGrid() <= 0 || v->grid() % v->tokenGrid() != 0 || v->imageTokens() <= 0 ||
        v->hiddenSize % v->numHeads != 0)
      __builtin_trap();
  return 0;
}
