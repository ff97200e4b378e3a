//===- SafeTensors.h - Memory-mapped, bounds-checked safetensors reader ---===//
//
// Qt-free. Reads HuggingFace checkpoints: one model.safetensors file or a set
// of shards listed by model.safetensors.index.json. Files are memory-mapped
// and tensors are handed out as zero-copy views; every header field is
// checked against the file before a view is made, so a corrupt or hostile
// file gives one error line naming the file and tensor, never a crash.
//
// Format: u64 little-endian header size N, N bytes of JSON mapping tensor
// names to {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative
// to the data region that follows the header) plus an optional
// "__metadata__" object of string values, then the raw little-endian data.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_LLM_SAFETENSORS_H
#define TPUC_LLM_SAFETENSORS_H

#include "tpuc/Support/Tensor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tpuc::llm {

/// Largest header the reader accepts (the reference implementation's limit).
inline constexpr uint64_t kMaxSafeTensorsHeaderSize = 100ull << 20;

/// The safetensors dtype spelling ("F32", "BF16", "BOOL", ...) of `type`.
llvm::StringRef safeTensorsDTypeName(DType type);
/// Parses a safetensors dtype spelling; nullopt for unknown or unsupported
/// ones (F8 variants are not supported).
std::optional<DType> parseSafeTensorsDType(llvm::StringRef name);

/// One entry of a safetensors header.
struct SafeTensorInfo {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  /// Byte range [dataBegin, dataEnd) relative to the data region.
  uint64_t dataBegin = 0;
  uint64_t dataEnd = 0;

  /// Number of elements (product of the shape; 1 for a 0-d tensor).
  int64_t numElements() const;
};

/// The parsed and validated header of one safetensors file.
struct SafeTensorsHeader {
  /// Tensors sorted by name (the JSON object order; the file order is not
  /// kept, so a huge hostile header cannot make parsing quadratic).
  std::vector<SafeTensorInfo> tensors;
  /// The "__metadata__" entries (e.g. {"format": "pt"}).
  std::map<std::string, std::string> metadata;
  /// Offset of the data region in the file (8 + header size).
  uint64_t dataOffset = 0;
  /// Size of the data region in bytes.
  uint64_t dataSize = 0;
};

/// Parses and validates the header of a whole safetensors file held in
/// `fileBytes`: header size within the file and the limit, valid JSON object,
/// known dtypes, non-negative shapes, offsets inside the data region and
/// consistent with dtype x shape, no two non-empty tensors overlapping.
/// `fileName` only labels error messages.
llvm::Expected<SafeTensorsHeader> parseSafeTensorsHeader(llvm::ArrayRef<uint8_t> fileBytes,
                                                         llvm::StringRef fileName);

/// A zero-copy view of one tensor inside a mapped file. Valid as long as the
/// file (or checkpoint) that produced it is alive. The bytes need not be
/// aligned for the element type; the accessors copy element by element.
class TensorView {
public:
  TensorView() = default;
  TensorView(const SafeTensorInfo *info, llvm::ArrayRef<uint8_t> bytes) : info(info), data(bytes) {}

  llvm::StringRef name() const { return info->name; }
  DType dtype() const { return info->dtype; }
  llvm::ArrayRef<int64_t> shape() const { return info->shape; }
  int64_t numElements() const { return info->numElements(); }
  /// The raw little-endian bytes of the tensor.
  llvm::ArrayRef<uint8_t> bytes() const { return data; }

  /// All elements converted to f32 (F16/BF16 decoded exactly, F64 rounded,
  /// integers and bools by value).
  std::vector<float> toF32() const;
  /// Same, into caller storage of exactly numElements() floats.
  void toF32(llvm::MutableArrayRef<float> out) const;
  /// A copy as a tpuc::Tensor with the same dtype and shape.
  Tensor toTensor() const;

private:
  const SafeTensorInfo *info = nullptr;
  llvm::ArrayRef<uint8_t> data;
};

/// One memory-mapped safetensors file.
class SafeTensorsFile {
public:
  /// Maps and validates `path`.
  static llvm::Expected<std::unique_ptr<SafeTensorsFile>> open(llvm::StringRef path);
  /// Validates an in-memory file (tests, fuzzing); `buffer` is kept alive.
  static llvm::Expected<std::unique_ptr<SafeTensorsFile>>
  fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer);

  /// The file name given to open() (or the buffer's identifier).
  llvm::StringRef path() const { return filePath; }
  const SafeTensorsHeader &header() const { return parsedHeader; }
  /// Tensors sorted by name.
  llvm::ArrayRef<SafeTensorInfo> tensors() const { return parsedHeader.tensors; }
  /// The entry named `name`, or nullptr.
  const SafeTensorInfo *find(llvm::StringRef name) const;
  /// A view of tensor `name`; an error naming file and tensor if absent.
  llvm::Expected<TensorView> get(llvm::StringRef name) const;
  /// Drops the pages of tensor `name` from the process's resident memory (they stay in the page cache
  /// and are read again if the tensor is): a converter that has consumed a tensor releases it, so
  /// streaming a 15 GB checkpoint does not leave 15 GB of mapped pages resident. A no-op for a buffer
  /// that is not a file mapping.
  void releasePages(llvm::StringRef name) const;

private:
  SafeTensorsFile(std::unique_ptr<llvm::MemoryBuffer> buffer, SafeTensorsHeader header);

  std::unique_ptr<llvm::MemoryBuffer> buffer;
  SafeTensorsHeader parsedHeader;
  llvm::StringMap<size_t> index;
  std::string filePath;
};

/// A whole checkpoint: a single file or shards from an index. Each shard is
/// opened (mapped and validated) once, when the checkpoint is opened.
class SafeTensorsCheckpoint {
public:
  /// `path` is a directory (uses model.safetensors.index.json if present,
  /// else model.safetensors), an index .json file, or one .safetensors file.
  static llvm::Expected<std::unique_ptr<SafeTensorsCheckpoint>> open(llvm::StringRef path);

  /// All tensor names, sorted.
  std::vector<std::string> tensorNames() const;
  bool contains(llvm::StringRef name) const { return where.count(name); }
  /// The header entry of `name`, or nullptr.
  const SafeTensorInfo *find(llvm::StringRef name) const;
  /// A view of `name`; an error naming the checkpoint and tensor if absent.
  llvm::Expected<TensorView> get(llvm::StringRef name) const;
  /// The tensor converted to f32.
  llvm::Expected<std::vector<float>> getF32(llvm::StringRef name) const;
  /// SafeTensorsFile::releasePages of the shard holding `name`.
  void releasePages(llvm::StringRef name) const;
  /// The opened files (one per shard).
  llvm::ArrayRef<std::unique_ptr<SafeTensorsFile>> files() const { return shards; }
  /// The index's "metadata" object (e.g. total_size), if any, as JSON text.
  const std::map<std::string, std::string> &indexMetadata() const { return metadata; }

private:
  std::string location;
  std::vector<std::unique_ptr<SafeTensorsFile>> shards;
  /// Tensor name -> shard number.
  llvm::StringMap<size_t> where;
  std::map<std::string, std::string> metadata;
};

} // namespace tpuc::llm

#endif // TPUC_LLM_SAFETENSORS_H
