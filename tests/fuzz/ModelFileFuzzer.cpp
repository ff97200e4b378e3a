//===- ModelFileFuzzer.cpp - libFuzzer target for the .tpum reader --------===//
//
// The input is a model file body: the fuzzer wraps it in a valid header
// (magic, version, size, checksum) so mutations reach the body parser instead
// of dying at the checksum; inputs starting with "TPUM" are also parsed as
// whole files. Any input must parse or throw ModelFileError; a parsed model
// must serialise and parse back to itself.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Codegen/ModelFile.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {
uint32_t crc32(const uint8_t *p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k)
      c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return c ^ 0xFFFFFFFFu;
}

void check(const uint8_t *data, size_t size) {
  try {
    tpuc::codegen::Model m = tpuc::codegen::parseModel(data, size, "fuzz.tpum");
    std::vector<uint8_t> image = tpuc::codegen::serializeModel(m);
    if (!(tpuc::codegen::parseModel(image.data(), image.size(), "again.tpum") == m))
      __builtin_trap();
    (void)tpuc::codegen::validateModel(m);
    (void)tpuc::codegen::modelPrint(m);
  } catch (const tpuc::codegen::ModelFileError &) {
  }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size >= 4 && std::memcmp(data, "TPUM", 4) == 0) {
    check(data, size);
    return 0;
  }
  std::vector<uint8_t> file(32, 0);
  std::memcpy(file.data(), "TPUM", 4);
  uint32_t version = tpuc::codegen::kModelVersion, crc = crc32(data, size);
  uint64_t body = size;
  std::memcpy(file.data() + 4, &version, 4);
  std::memcpy(file.data() + 8, &body, 8);
  std::memcpy(file.data() + 16, &crc, 4);
  file.insert(file.end(), data, data + size);
  check(file.data(), file.size());
  return 0;
}
