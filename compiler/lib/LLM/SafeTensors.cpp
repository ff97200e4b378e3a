//===- SafeTensors.cpp - Memory-mapped, bounds-checked safetensors reader -===//

#include "tpuc/LLM/SafeTensors.h"

#include <sys/mman.h>
#include <unistd.h>

#include "tpuc/Support/FloatConvert.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cassert>
#include <cstring>

using namespace tpuc;
using namespace tpuc::llm;
using llvm::Expected;
using llvm::StringRef;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// A JSON value as a non-negative integer, if it is one.
std::optional<uint64_t> asUnsigned(const nlohmann::json &value) {
  if (value.is_number_unsigned())
    return value.get<uint64_t>();
  if (value.is_number_integer() && value.get<int64_t>() >= 0)
    return static_cast<uint64_t>(value.get<int64_t>());
  return std::nullopt;
}

/// Parses one tensor entry; errors name the file and tensor.
Expected<SafeTensorInfo> parseEntry(const std::string &name, const nlohmann::json &entry, uint64_t dataSize,
                                    StringRef fileName) {
  auto fail = [&](const llvm::Twine &what) {
    return makeError(fileName + ": tensor '" + name + "': " + what);
  };
  if (!entry.is_object())
    return fail("header entry is not an object");
  SafeTensorInfo info;
  info.name = name;

  auto dtypeIt = entry.find("dtype");
  if (dtypeIt == entry.end() || !dtypeIt->is_string())
    return fail("missing or non-string 'dtype'");
  std::string dtypeName = dtypeIt->get<std::string>();
  std::optional<DType> dtype = parseSafeTensorsDType(dtypeName);
  if (!dtype)
    return fail("unknown or unsupported dtype '" + dtypeName + "'");
  info.dtype = *dtype;

  auto shapeIt = entry.find("shape");
  if (shapeIt == entry.end() || !shapeIt->is_array())
    return fail("missing or non-array 'shape'");
  uint64_t numElements = 1;
  bool overflow = false;
  for (const nlohmann::json &dim : *shapeIt) {
    std::optional<uint64_t> value = asUnsigned(dim);
    if (!value || *value > static_cast<uint64_t>(INT64_MAX))
      return fail("shape has a non-integer or negative dimension");
    info.shape.push_back(static_cast<int64_t>(*value));
    overflow |= __builtin_mul_overflow(numElements, *value, &numElements);
  }
  uint64_t byteSize = 0;
  overflow |= __builtin_mul_overflow(numElements, uint64_t(dtypeSize(*dtype)), &byteSize);
  if (overflow || numElements > static_cast<uint64_t>(INT64_MAX))
    return fail("shape is too large");

  auto offsetsIt = entry.find("data_offsets");
  if (offsetsIt == entry.end() || !offsetsIt->is_array() || offsetsIt->size() != 2)
    return fail("'data_offsets' must be an array [begin, end]");
  std::optional<uint64_t> begin = asUnsigned((*offsetsIt)[0]);
  std::optional<uint64_t> end = asUnsigned((*offsetsIt)[1]);
  if (!begin || !end)
    return fail("'data_offsets' must hold non-negative integers");
  if (*begin > *end)
    return fail("data_offsets begin " + llvm::Twine(*begin) + " > end " + llvm::Twine(*end));
  if (*end > dataSize)
    return fail("data_offsets [" + llvm::Twine(*begin) + ", " + llvm::Twine(*end) +
                ") run past the data region of " + llvm::Twine(dataSize) + " bytes");
  if (*end - *begin != byteSize)
    return fail("data_offsets span " + llvm::Twine(*end - *begin) + " bytes but " + dtypeName + " " +
                shapeToString(info.shape) + " needs " + llvm::Twine(byteSize));
  info.dataBegin = *begin;
  info.dataEnd = *end;
  return info;
}

} // namespace

StringRef tpuc::llm::safeTensorsDTypeName(DType type) {
  switch (type) {
  case DType::F32:
    return "F32";
  case DType::F64:
    return "F64";
  case DType::F16:
    return "F16";
  case DType::BF16:
    return "BF16";
  case DType::I8:
    return "I8";
  case DType::U8:
    return "U8";
  case DType::I16:
    return "I16";
  case DType::U16:
    return "U16";
  case DType::I32:
    return "I32";
  case DType::U32:
    return "U32";
  case DType::I64:
    return "I64";
  case DType::U64:
    return "U64";
  case DType::Bool:
    return "BOOL";
  }
  return "?";
}

std::optional<DType> tpuc::llm::parseSafeTensorsDType(StringRef name) {
  for (DType type : kAllDTypes)
    if (safeTensorsDTypeName(type) == name)
      return type;
  return std::nullopt;
}

int64_t SafeTensorInfo::numElements() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

Expected<SafeTensorsHeader> tpuc::llm::parseSafeTensorsHeader(llvm::ArrayRef<uint8_t> fileBytes,
                                                              StringRef fileName) {
  if (fileBytes.size() < 8)
    return makeError(fileName + ": not a safetensors file (" + llvm::Twine(fileBytes.size()) +
                     " bytes, shorter than the 8-byte header size)");
  uint64_t headerSize = 0;
  for (int i = 7; i >= 0; --i)
    headerSize = (headerSize << 8) | fileBytes[i];
  if (headerSize > kMaxSafeTensorsHeaderSize)
    return makeError(fileName + ": header size " + llvm::Twine(headerSize) + " exceeds the limit of " +
                     llvm::Twine(kMaxSafeTensorsHeaderSize) + " bytes");
  if (headerSize > fileBytes.size() - 8)
    return makeError(fileName + ": header size " + llvm::Twine(headerSize) +
                     " runs past the end of the file (" + llvm::Twine(fileBytes.size()) + " bytes)");

  const char *text = reinterpret_cast<const char *>(fileBytes.data() + 8);
  nlohmann::json json = nlohmann::json::parse(text, text + headerSize,
                                              /*cb=*/nullptr,
                                              /*allow_exceptions=*/false);
  if (json.is_discarded())
    return makeError(fileName + ": header is not valid JSON");
  if (!json.is_object())
    return makeError(fileName + ": header is not a JSON object");

  SafeTensorsHeader header;
  header.dataOffset = 8 + headerSize;
  header.dataSize = fileBytes.size() - header.dataOffset;
  for (auto it = json.begin(); it != json.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it->is_object())
        return makeError(fileName + ": '__metadata__' is not an object");
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (!m->is_string())
          return makeError(fileName + ": '__metadata__' entry '" + m.key() + "' is not a string");
        header.metadata[m.key()] = m->get<std::string>();
      }
      continue;
    }
    Expected<SafeTensorInfo> info = parseEntry(it.key(), *it, header.dataSize, fileName);
    if (!info)
      return info.takeError();
    header.tensors.push_back(std::move(*info));
  }

  // Two tensors may not share bytes; empty tensors occupy nothing.
  std::vector<const SafeTensorInfo *> byOffset;
  for (const SafeTensorInfo &info : header.tensors)
    if (info.dataEnd > info.dataBegin)
      byOffset.push_back(&info);
  std::sort(byOffset.begin(), byOffset.end(),
            [](const SafeTensorInfo *a, const SafeTensorInfo *b) { return a->dataBegin < b->dataBegin; });
  for (size_t i = 1; i < byOffset.size(); ++i)
    if (byOffset[i]->dataBegin < byOffset[i - 1]->dataEnd)
      return makeError(fileName + ": tensor '" + byOffset[i]->name + "' overlaps tensor '" +
                       byOffset[i - 1]->name + "'");
  return header;
}

//===----------------------------------------------------------------------===//
// TensorView
//===----------------------------------------------------------------------===//

namespace {
template <typename T> T loadAt(const uint8_t *base, int64_t index) {
  T value;
  std::memcpy(&value, base + index * sizeof(T), sizeof(T));
  return value;
}

template <typename T> void convertAll(const uint8_t *base, llvm::MutableArrayRef<float> out) {
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<float>(loadAt<T>(base, i));
}
} // namespace

void TensorView::toF32(llvm::MutableArrayRef<float> out) const {
  assert(static_cast<int64_t>(out.size()) == numElements() && "output size must match the tensor");
  const uint8_t *base = data.data();
  switch (dtype()) {
  case DType::F32:
    if (!out.empty())
      std::memcpy(out.data(), base, out.size() * sizeof(float));
    return;
  case DType::F16:
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = f16ToF32(loadAt<uint16_t>(base, i));
    return;
  case DType::BF16:
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = bf16ToF32(loadAt<uint16_t>(base, i));
    return;
  case DType::F64:
    return convertAll<double>(base, out);
  case DType::I8:
    return convertAll<int8_t>(base, out);
  case DType::U8:
    return convertAll<uint8_t>(base, out);
  case DType::I16:
    return convertAll<int16_t>(base, out);
  case DType::U16:
    return convertAll<uint16_t>(base, out);
  case DType::I32:
    return convertAll<int32_t>(base, out);
  case DType::U32:
    return convertAll<uint32_t>(base, out);
  case DType::I64:
    return convertAll<int64_t>(base, out);
  case DType::U64:
    return convertAll<uint64_t>(base, out);
  case DType::Bool:
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = base[i] ? 1.0f : 0.0f;
    return;
  }
}

std::vector<float> TensorView::toF32() const {
  std::vector<float> out(numElements());
  toF32(out);
  return out;
}

Tensor TensorView::toTensor() const {
  return Tensor(dtype(), info->shape, std::vector<uint8_t>(data.begin(), data.end()));
}

//===----------------------------------------------------------------------===//
// SafeTensorsFile
//===----------------------------------------------------------------------===//

SafeTensorsFile::SafeTensorsFile(std::unique_ptr<llvm::MemoryBuffer> buffer, SafeTensorsHeader header)
    : buffer(std::move(buffer)), parsedHeader(std::move(header)) {
  filePath = this->buffer->getBufferIdentifier().str();
  for (size_t i = 0; i < parsedHeader.tensors.size(); ++i)
    index[parsedHeader.tensors[i].name] = i;
}

Expected<std::unique_ptr<SafeTensorsFile>> SafeTensorsFile::open(StringRef path) {
  // Never null-terminated: the mapping covers exactly the file.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError(path + ": cannot open: " + buffer.getError().message());
  return fromBuffer(std::move(*buffer));
}

Expected<std::unique_ptr<SafeTensorsFile>>
SafeTensorsFile::fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  llvm::ArrayRef<uint8_t> bytes(reinterpret_cast<const uint8_t *>(buffer->getBufferStart()),
                                buffer->getBufferSize());
  Expected<SafeTensorsHeader> header = parseSafeTensorsHeader(bytes, buffer->getBufferIdentifier());
  if (!header)
    return header.takeError();
  return std::unique_ptr<SafeTensorsFile>(new SafeTensorsFile(std::move(buffer), std::move(*header)));
}

void SafeTensorsFile::releasePages(StringRef name) const {
  const SafeTensorInfo *info = find(name);
  if (!info || buffer->getBufferKind() != llvm::MemoryBuffer::MemoryBuffer_MMap)
    return;
  // Only whole pages inside the tensor: a neighbour sharing a page keeps it.
  uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  uintptr_t begin =
      reinterpret_cast<uintptr_t>(buffer->getBufferStart()) + parsedHeader.dataOffset + info->dataBegin;
  uintptr_t end = begin + (info->dataEnd - info->dataBegin);
  begin = (begin + page - 1) / page * page;
  end = end / page * page;
  if (end > begin)
    ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
}

const SafeTensorInfo *SafeTensorsFile::find(StringRef name) const {
  auto it = index.find(name);
  return it == index.end() ? nullptr : &parsedHeader.tensors[it->second];
}

Expected<TensorView> SafeTensorsFile::get(StringRef name) const {
  const SafeTensorInfo *info = find(name);
  if (!info)
    return makeError(filePath + ": no tensor named '" + name + "'");
  // A mapped file cut short after it was opened would raise SIGBUS on the first page past its new end:
  // look before handing out the view (a conversion reads tensor by tensor for minutes, so a checkpoint
  // rewritten meanwhile is caught here; only a cut during one tensor's read escapes this check).
  if (buffer->getBufferKind() == llvm::MemoryBuffer::MemoryBuffer_MMap && !filePath.empty()) {
    uint64_t size = 0;
    const uint64_t needed = parsedHeader.dataOffset + info->dataEnd;
    if (std::error_code ec = llvm::sys::fs::file_size(filePath, size))
      return makeError(filePath + ": cannot read tensor '" + name + "': " + ec.message());
    if (size < needed)
      return makeError(filePath + ": the file ended early (truncated or rewritten while it was read): tensor '" +
                       name + "' needs " + llvm::Twine(needed) + " bytes, the file has " + llvm::Twine(size));
  }
  const uint8_t *base = reinterpret_cast<const uint8_t *>(buffer->getBufferStart()) + parsedHeader.dataOffset;
  return TensorView(info, llvm::ArrayRef<uint8_t>(base + info->dataBegin, info->dataEnd - info->dataBegin));
}

//===----------------------------------------------------------------------===//
// SafeTensorsCheckpoint
//===----------------------------------------------------------------------===//

namespace {
/// Reads an index file's weight_map: tensor name -> shard file name.
Expected<std::map<std::string, std::string>> readIndex(StringRef indexPath,
                                                       std::map<std::string, std::string> &metadata) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(indexPath, /*IsText=*/true);
  if (!buffer)
    return makeError(indexPath + ": cannot open: " + buffer.getError().message());
  StringRef text = (*buffer)->getBuffer();
  nlohmann::json json = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (json.is_discarded() || !json.is_object())
    return makeError(indexPath + ": not a JSON object");
  auto mapIt = json.find("weight_map");
  if (mapIt == json.end() || !mapIt->is_object())
    return makeError(indexPath + ": missing 'weight_map' object");
  std::map<std::string, std::string> weightMap;
  for (auto it = mapIt->begin(); it != mapIt->end(); ++it) {
    if (!it->is_string())
      return makeError(indexPath + ": weight_map entry '" + it.key() + "' is not a file name");
    std::string shard = it->get<std::string>();
    // Shards live beside the index; a path would escape the folder.
    if (shard.empty() || shard.find('/') != std::string::npos || shard == "." || shard == "..")
      return makeError(indexPath + ": weight_map entry '" + it.key() + "' names an invalid shard file '" +
                       shard + "'");
    weightMap[it.key()] = std::move(shard);
  }
  auto metaIt = json.find("metadata");
  if (metaIt != json.end() && metaIt->is_object())
    for (auto it = metaIt->begin(); it != metaIt->end(); ++it)
      metadata[it.key()] = it->is_string() ? it->get<std::string>() : it->dump();
  return weightMap;
}
} // namespace

Expected<std::unique_ptr<SafeTensorsCheckpoint>> SafeTensorsCheckpoint::open(StringRef path) {
  auto checkpoint = std::make_unique<SafeTensorsCheckpoint>();
  checkpoint->location = path.str();

  std::string indexPath;
  std::string singlePath;
  if (llvm::sys::fs::is_directory(path)) {
    llvm::SmallString<256> candidate(path);
    llvm::sys::path::append(candidate, "model.safetensors.index.json");
    if (llvm::sys::fs::exists(candidate)) {
      indexPath = candidate.str().str();
    } else {
      candidate = path;
      llvm::sys::path::append(candidate, "model.safetensors");
      if (!llvm::sys::fs::exists(candidate))
        return makeError(path + ": no model.safetensors or "
                                "model.safetensors.index.json in the folder");
      singlePath = candidate.str().str();
    }
  } else if (path.ends_with(".json")) {
    indexPath = path.str();
  } else {
    singlePath = path.str();
  }

  if (!singlePath.empty()) {
    Expected<std::unique_ptr<SafeTensorsFile>> file = SafeTensorsFile::open(singlePath);
    if (!file)
      return file.takeError();
    for (const SafeTensorInfo &info : (*file)->tensors())
      checkpoint->where[info.name] = 0;
    checkpoint->shards.push_back(std::move(*file));
    return checkpoint;
  }

  Expected<std::map<std::string, std::string>> weightMap = readIndex(indexPath, checkpoint->metadata);
  if (!weightMap)
    return weightMap.takeError();
  StringRef folder = llvm::sys::path::parent_path(indexPath);
  std::map<std::string, size_t> shardNumber;
  for (const auto &[tensor, shard] : *weightMap) {
    auto [it, inserted] = shardNumber.try_emplace(shard, checkpoint->shards.size());
    if (inserted) {
      llvm::SmallString<256> shardPath(folder);
      llvm::sys::path::append(shardPath, shard);
      Expected<std::unique_ptr<SafeTensorsFile>> file = SafeTensorsFile::open(shardPath);
      if (!file)
        return file.takeError();
      checkpoint->shards.push_back(std::move(*file));
    }
    const SafeTensorsFile &file = *checkpoint->shards[it->second];
    if (!file.find(tensor))
      return makeError(llvm::Twine(indexPath) + ": tensor '" + tensor + "' is mapped to " + shard +
                       " but that file has no such tensor");
    checkpoint->where[tensor] = it->second;
  }
  return checkpoint;
}

std::vector<std::string> SafeTensorsCheckpoint::tensorNames() const {
  std::vector<std::string> names;
  for (const auto &entry : where)
    names.push_back(entry.getKey().str());
  std::sort(names.begin(), names.end());
  return names;
}

const SafeTensorInfo *SafeTensorsCheckpoint::find(StringRef name) const {
  auto it = where.find(name);
  return it == where.end() ? nullptr : shards[it->second]->find(name);
}

Expected<TensorView> SafeTensorsCheckpoint::get(StringRef name) const {
  auto it = where.find(name);
  if (it == where.end())
    return makeError(location + ": missing tensor '" + name + "'");
  return shards[it->second]->get(name);
}

void SafeTensorsCheckpoint::releasePages(StringRef name) const {
  auto it = where.find(name);
  if (it != where.end())
    shards[it->second]->releasePages(name);
}

Expected<std::vector<float>> SafeTensorsCheckpoint::getF32(StringRef name) const {
  Expected<TensorView> view = get(name);
  if (!view)
    return view.takeError();
  return view->toF32();
}
