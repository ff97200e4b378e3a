//===- Tensor.h - An n-d array value type with a NumPy-compatible dtype ---===//
//
// Qt-free, MLIR-free. The in-memory form of every tensor that goes to or
// comes from a .npy/.npz file: a dtype, a shape and the raw little-endian
// bytes in C (row-major) order.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_SUPPORT_TENSOR_H
#define TPUC_SUPPORT_TENSOR_H

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tpuc {

/// Element types of a Tensor. BF16 has no NumPy equivalent: it is stored in
/// .npy files as uint16 ('<u2'), so a BF16 tensor read back from disk comes
/// back as U16 and the caller restores it with Tensor::reinterpret(BF16).
/// Int4 data is packed two per byte into a U8 tensor (see FloatConvert.h);
/// the logical shape is known to the caller.
enum class DType : uint8_t {
  F32,
  F64,
  F16,
  BF16,
  I8,
  U8,
  I16,
  U16,
  I32,
  U32,
  I64,
  U64,
  Bool,
};

/// All dtypes, in enum order (handy for tests and tables).
inline constexpr DType kAllDTypes[] = {
    DType::F32, DType::F64, DType::F16, DType::BF16, DType::I8,
    DType::U8,  DType::I16, DType::U16, DType::I32,  DType::U32,
    DType::I64, DType::U64, DType::Bool};

/// Bytes per element.
size_t dtypeSize(DType type);
/// Short lower-case name: "f32", "bf16", "i8", "bool", ...
std::string_view dtypeName(DType type);
/// Inverse of dtypeName; also accepts NumPy names ("float32", "int8", ...).
std::optional<DType> parseDType(std::string_view name);
/// True for F32, F64, F16 and BF16.
bool isFloatDType(DType type);
/// True for the signed integer types.
bool isSignedIntDType(DType type);

/// Thrown for invalid tensor construction (bad shape, size mismatch).
class TensorError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Number of elements of a shape; throws TensorError on a negative dimension
/// or on overflow of int64.
int64_t shapeNumElements(std::span<const int64_t> shape);
/// "(1, 3, 224, 224)" in NumPy's spelling: "()" for 0-d, "(5,)" for 1-d.
std::string shapeToString(std::span<const int64_t> shape);

template <typename T>
struct DTypeTraits;

/// Whether C++ element type T may view the storage of a tensor of `type`.
/// uint16_t views F16/BF16/U16; uint8_t views U8/Bool.
template <typename T>
bool dtypeAccepts(DType type);

/// An n-d array: dtype, shape, raw bytes (row-major, little-endian).
/// A 0-d tensor has shape {} and one element; an empty tensor has a zero
/// dimension and no bytes.
class Tensor {
public:
  /// A 0-d f32 tensor holding 0.
  Tensor() : Tensor(DType::F32, {}) {}
  /// A zero-filled tensor.
  Tensor(DType type, std::vector<int64_t> shape);
  /// A tensor adopting `bytes`; throws TensorError unless the size matches.
  Tensor(DType type, std::vector<int64_t> shape, std::vector<uint8_t> bytes);

  /// Builds a tensor from typed values; the dtype follows T (uint16_t gives
  /// U16, use reinterpret() for F16/BF16).
  template <typename T>
  static Tensor fromValues(std::vector<int64_t> shape,
                           std::span<const T> values) {
    Tensor t(DTypeTraits<T>::kType, std::move(shape));
    if (static_cast<int64_t>(values.size()) != t.numElements())
      throw TensorError("tensor of shape " + shapeToString(t.shape()) +
                        " needs " + std::to_string(t.numElements()) +
                        " values, got " + std::to_string(values.size()));
    if (!values.empty())
      std::memcpy(t.bytes_.data(), values.data(), values.size() * sizeof(T));
    return t;
  }
  template <typename T>
  static Tensor fromValues(std::vector<int64_t> shape,
                           const std::vector<T> &values) {
    return fromValues<T>(std::move(shape), std::span<const T>(values));
  }

  DType dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numElements() const { return numElements_; }
  size_t byteSize() const { return bytes_.size(); }
  const uint8_t *data() const { return bytes_.data(); }
  uint8_t *data() { return bytes_.data(); }
  const std::vector<uint8_t> &bytes() const { return bytes_; }

  /// Typed view of the elements; throws TensorError if T does not fit dtype.
  template <typename T>
  std::span<const T> values() const {
    checkView<T>();
    return {reinterpret_cast<const T *>(bytes_.data()),
            static_cast<size_t>(numElements_)};
  }
  template <typename T>
  std::span<T> values() {
    checkView<T>();
    return {reinterpret_cast<T *>(bytes_.data()),
            static_cast<size_t>(numElements_)};
  }

  /// Element `index` (flat, row-major) converted to double.
  double valueAsDouble(int64_t index) const;
  /// All elements converted to double.
  std::vector<double> toDoubles() const;

  /// Same bytes, another dtype of the same element size (U16 <-> BF16/F16,
  /// U8 <-> Bool, I32 <-> F32 bits...). Throws TensorError otherwise.
  Tensor reinterpret(DType type) const;
  /// Same bytes, another shape with the same element count.
  void reshape(std::vector<int64_t> shape);

  /// Same dtype, shape and bytes.
  bool operator==(const Tensor &other) const = default;

private:
  template <typename T>
  void checkView() const {
    if (!dtypeAccepts<T>(dtype_))
      throw TensorError(std::string("cannot view a ") +
                        std::string(dtypeName(dtype_)) +
                        " tensor with a C++ element type of " +
                        std::to_string(sizeof(T)) + " bytes");
  }

  DType dtype_;
  std::vector<int64_t> shape_;
  int64_t numElements_ = 0;
  std::vector<uint8_t> bytes_;
};

// clang-format off
template <> struct DTypeTraits<float>    { static constexpr DType kType = DType::F32; };
template <> struct DTypeTraits<double>   { static constexpr DType kType = DType::F64; };
template <> struct DTypeTraits<int8_t>   { static constexpr DType kType = DType::I8; };
template <> struct DTypeTraits<uint8_t>  { static constexpr DType kType = DType::U8; };
template <> struct DTypeTraits<int16_t>  { static constexpr DType kType = DType::I16; };
template <> struct DTypeTraits<uint16_t> { static constexpr DType kType = DType::U16; };
template <> struct DTypeTraits<int32_t>  { static constexpr DType kType = DType::I32; };
template <> struct DTypeTraits<uint32_t> { static constexpr DType kType = DType::U32; };
template <> struct DTypeTraits<int64_t>  { static constexpr DType kType = DType::I64; };
template <> struct DTypeTraits<uint64_t> { static constexpr DType kType = DType::U64; };
template <> struct DTypeTraits<bool>     { static constexpr DType kType = DType::Bool; };
// clang-format on

template <typename T>
bool dtypeAccepts(DType type) {
  if (type == DTypeTraits<T>::kType)
    return true;
  if constexpr (std::is_same_v<T, uint16_t>)
    return type == DType::F16 || type == DType::BF16;
  if constexpr (std::is_same_v<T, uint8_t>)
    return type == DType::Bool;
  return false;
}

} // namespace tpuc

#endif // TPUC_SUPPORT_TENSOR_H
