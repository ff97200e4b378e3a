//===- NpyStream.h - Internal: stream-parse an .npy image -----------------===//
//
// Shared by the .npy and .npz readers so both parse straight from their
// source (file, zip member, memory) into the tensor's storage, with every
// length checked against the bytes the source really holds.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_LIB_SUPPORT_NPYSTREAM_H
#define TPUC_LIB_SUPPORT_NPYSTREAM_H

#include "tpuc/Support/Npz.h"

#include <cstdint>
#include <string>

namespace tpuc::detail {

/// A sequential byte source of known total size.
class ByteReader {
public:
  virtual ~ByteReader() = default;
  /// Reads up to `size` bytes into `dst`; returns how many were read (fewer
  /// only at the end of the source). Throws NpyError on an I/O error.
  virtual size_t read(void *dst, size_t size) = 0;
};

/// Parses one .npy image of `totalSize` bytes from `reader`.
Tensor parseNpyStream(ByteReader &reader, uint64_t totalSize,
                      const std::string &context);

} // namespace tpuc::detail

#endif // TPUC_LIB_SUPPORT_NPYSTREAM_H
