//===- SafeTensorsFuzzer.cpp - libFuzzer target for the safetensors header -===//
//
// Any input must either give an llvm::Error or a header whose tensors can all
// be viewed and converted to f32 without reading outside the input; a crash
// or an ASan report is a bug.
//
//===----------------------------------------------------------------------===//

#include "tpuc/LLM/SafeTensors.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::ArrayRef<uint8_t> bytes(data, size);
  llvm::Expected<tpuc::llm::SafeTensorsHeader> header =
      tpuc::llm::parseSafeTensorsHeader(bytes, "fuzz.safetensors");
  if (!header) {
    llvm::consumeError(header.takeError());
    return 0;
  }
  if (header->dataOffset + header->dataSize != size)
    __builtin_trap();
  for (const tpuc::llm::SafeTensorInfo &info : header->tensors) {
    if (info.dataEnd > header->dataSize || info.dataBegin > info.dataEnd)
      __builtin_trap();
    // Views only of modest size, so the fuzzer stays fast.
    if (info.dataEnd - info.dataBegin > (1u << 20))
      continue;
    tpuc::llm::TensorView view(
        &info, bytes.slice(header->dataOffset + info.dataBegin, info.dataEnd - info.dataBegin));
    std::vector<float> values = view.toF32();
    if (static_cast<int64_t>(values.size()) != info.numElements())
      __builtin_trap();
  }
  return 0;
}
