//===- Tensor.cpp - n-d array value type ----------------------------------===//

#include "tpuc/Support/Tensor.h"
#include "tpuc/Support/FloatConvert.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace tpuc {

size_t dtypeSize(DType type) {
  switch (type) {
  case DType::F64:
  case DType::I64:
  case DType::U64:
    return 8;
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 4;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
  case DType::U16:
    return 2;
  case DType::I8:
  case DType::U8:
  case DType::Bool:
    return 1;
  }
  return 1;
}

std::string_view dtypeName(DType type) {
  switch (type) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I8:
    return "i8";
  case DType::U8:
    return "u8";
  case DType::I16:
    return "i16";
  case DType::U16:
    return "u16";
  case DType::I32:
    return "i32";
  case DType::U32:
    return "u32";
  case DType::I64:
    return "i64";
  case DType::U64:
    return "u64";
  case DType::Bool:
    return "bool";
  }
  return "?";
}

std::optional<DType> parseDType(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  static const std::pair<const char *, DType> kAliases[] = {
      {"float32", DType::F32}, {"float64", DType::F64},
      {"float16", DType::F16}, {"bfloat16", DType::BF16},
      {"int8", DType::I8},     {"uint8", DType::U8},
      {"int16", DType::I16},   {"uint16", DType::U16},
      {"int32", DType::I32},   {"uint32", DType::U32},
      {"int64", DType::I64},   {"uint64", DType::U64},
      {"bool_", DType::Bool}};
  for (DType type : kAllDTypes)
    if (lower == dtypeName(type))
      return type;
  for (const auto &[alias, type] : kAliases)
    if (lower == alias)
      return type;
  return std::nullopt;
}

bool isFloatDType(DType type) {
  return type == DType::F32 || type == DType::F64 || type == DType::F16 ||
         type == DType::BF16;
}

bool isSignedIntDType(DType type) {
  return type == DType::I8 || type == DType::I16 || type == DType::I32 ||
         type == DType::I64;
}

int64_t shapeNumElements(std::span<const int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      throw TensorError("negative dimension in shape " + shapeToString(shape));
    if (dim != 0 && count > std::numeric_limits<int64_t>::max() / dim)
      throw TensorError("shape " + shapeToString(shape) +
                        " has too many elements");
    count *= dim;
  }
  return count;
}

std::string shapeToString(std::span<const int64_t> shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1)
    text += ",";
  return text + ")";
}

static size_t checkedByteSize(DType type, std::span<const int64_t> shape) {
  int64_t count = shapeNumElements(shape);
  auto elem = static_cast<int64_t>(dtypeSize(type));
  if (count > std::numeric_limits<int64_t>::max() / elem)
    throw TensorError("shape " + shapeToString(shape) + " is too large");
  return static_cast<size_t>(count * elem);
}

Tensor::Tensor(DType type, std::vector<int64_t> shape)
    : dtype_(type), shape_(std::move(shape)) {
  size_t size = checkedByteSize(dtype_, shape_);
  numElements_ = shapeNumElements(shape_);
  bytes_.assign(size, 0);
}

Tensor::Tensor(DType type, std::vector<int64_t> shape,
               std::vector<uint8_t> bytes)
    : dtype_(type), shape_(std::move(shape)), bytes_(std::move(bytes)) {
  size_t size = checkedByteSize(dtype_, shape_);
  numElements_ = shapeNumElements(shape_);
  if (bytes_.size() != size)
    throw TensorError(std::string(dtypeName(dtype_)) + " tensor of shape " +
                      shapeToString(shape_) + " needs " +
                      std::to_string(size) + " bytes, got " +
                      std::to_string(bytes_.size()));
}

template <typename T>
static T load(const uint8_t *bytes, int64_t index) {
  T value;
  std::memcpy(&value, bytes + index * sizeof(T), sizeof(T));
  return value;
}

double Tensor::valueAsDouble(int64_t index) const {
  if (index < 0 || index >= numElements_)
    throw TensorError("element index " + std::to_string(index) +
                      " out of range for " + std::to_string(numElements_) +
                      " elements");
  const uint8_t *p = bytes_.data();
  switch (dtype_) {
  case DType::F32:
    return load<float>(p, index);
  case DType::F64:
    return load<double>(p, index);
  case DType::F16:
    return f16ToF32(load<uint16_t>(p, index));
  case DType::BF16:
    return bf16ToF32(load<uint16_t>(p, index));
  case DType::I8:
    return load<int8_t>(p, index);
  case DType::U8:
    return load<uint8_t>(p, index);
  case DType::I16:
    return load<int16_t>(p, index);
  case DType::U16:
    return load<uint16_t>(p, index);
  case DType::I32:
    return load<int32_t>(p, index);
  case DType::U32:
    return load<uint32_t>(p, index);
  case DType::I64:
    return static_cast<double>(load<int64_t>(p, index));
  case DType::U64:
    return static_cast<double>(load<uint64_t>(p, index));
  case DType::Bool:
    return p[index] ? 1.0 : 0.0;
  }
  return 0.0;
}

std::vector<double> Tensor::toDoubles() const {
  std::vector<double> out(static_cast<size_t>(numElements_));
  for (int64_t i = 0; i < numElements_; ++i)
    out[i] = valueAsDouble(i);
  return out;
}

Tensor Tensor::reinterpret(DType type) const {
  if (dtypeSize(type) != dtypeSize(dtype_))
    throw TensorError(std::string("cannot reinterpret ") +
                      std::string(dtypeName(dtype_)) + " as " +
                      std::string(dtypeName(type)) +
                      ": element sizes differ");
  Tensor out = *this;
  out.dtype_ = type;
  return out;
}

void Tensor::reshape(std::vector<int64_t> shape) {
  if (shapeNumElements(shape) != numElements_)
    throw TensorError("cannot reshape " + shapeToString(shape_) + " to " +
                      shapeToString(shape) + ": element counts differ");
  shape_ = std::move(shape);
}

} // namespace tpuc
