//===- LLMTestUtil.h - Helpers shared by the TpucLLM unit tests -----------===//
//
// A temporary directory, a hand-packing safetensors writer (independent of
// the reader under test) and the location of the fetched tokenizer assets.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_TESTS_UNIT_LLM_LLMTESTUTIL_H
#define TPUC_TESTS_UNIT_LLM_LLMTESTUTIL_H

#include "tpuc/Testing/TestAssets.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace tpuc::llm::test {

using tpuc::testsupport::TempDir;
using tpuc::testsupport::assetsDir;

inline void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// One tensor for packSafeTensors.
struct PackedTensor {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  std::string bytes;
};

template <typename T> std::string rawBytes(const std::vector<T> &values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  if (!values.empty())
    std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

/// The file bytes for a given header text and data region: u64 LE size,
/// header, data. `sizeOverride` replaces the stored header size.
inline std::string rawSafeTensors(const std::string &header, const std::string &data,
                                  std::optional<uint64_t> sizeOverride = {}) {
  uint64_t size = sizeOverride.value_or(header.size());
  std::string file(8, '\0');
  for (int i = 0; i < 8; ++i)
    file[i] = static_cast<char>((size >> (8 * i)) & 0xFF);
  return file + header + data;
}

/// A valid safetensors file: tensors laid out back to back in order, the
/// header padded with spaces to a multiple of 8 (as the reference writer).
inline std::string packSafeTensors(const std::vector<PackedTensor> &tensors,
                                   const std::map<std::string, std::string> &metadata = {}) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty())
    header["__metadata__"] = metadata;
  std::string data;
  for (const PackedTensor &t : tensors) {
    header[t.name] = {{"dtype", t.dtype},
                      {"shape", t.shape},
                      {"data_offsets", {data.size(), data.size() + t.bytes.size()}}};
    data += t.bytes;
  }
  std::string text = header.dump();
  while ((8 + text.size()) % 8)
    text += ' ';
  return rawSafeTensors(text, data);
}

/// The error message of `error` (consumed), or "" on success.
inline std::string errorText(llvm::Error error) {
  if (!error)
    return "";
  return llvm::toString(std::move(error));
}

} // namespace tpuc::llm::test

#endif // TPUC_TESTS_UNIT_LLM_LLMTESTUTIL_H
