//===- NpzFuzzer.cpp - libFuzzer target for the .npy/.npz parsers ---------===//
//
// Any input must either parse or throw NpyError; anything else (a crash, an
// ASan report, another exception escaping) is a bug.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Support/Npz.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  try {
    if (size >= 6 && std::memcmp(data, "\x93NUMPY", 6) == 0) {
      tpuc::Tensor t = tpuc::parseNpy(data, size, "fuzz.npy");
      // A parsed tensor must serialise and parse back to itself.
      std::vector<uint8_t> image = tpuc::serializeNpy(t);
      if (!(tpuc::parseNpy(image.data(), image.size(), "again.npy") == t))
        __builtin_trap();
    } else {
      tpuc::NpzFile npz = tpuc::NpzFile::parse(data, size, "fuzz.npz");
      for (const std::string &name : npz.names())
        (void)npz.get(name).numElements();
    }
  } catch (const tpuc::NpyError &) {
  }
  return 0;
}
