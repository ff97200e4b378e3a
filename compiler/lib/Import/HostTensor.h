//===- HostTensor.h - Tensors the ONNX importer knows at import time -*- C++ -*-===//
// Initializers, Constant nodes and folded shape computations, held on the host with their ONNX dtype.
//===----------------------------------------------------------------------===//
#ifndef TPUC_LIB_IMPORT_HOSTTENSOR_H
#define TPUC_LIB_IMPORT_HOSTTENSOR_H

#include "onnx/onnx_pb.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tpuc::importer {

/// Largest tensor the importer computes with on the host (elements); larger results are left to Top ops.
constexpr int64_t kMaxFoldElements = int64_t(1) << 24;
/// Largest element count of any tensor shape the importer accepts.
constexpr int64_t kMaxElements = int64_t(1) << 40;

/// Whether an ONNX dtype is a floating-point type (float, double, float16, bfloat16).
bool isFloatDType(int32_t dtype);
/// Whether the importer can hold the dtype (floats, signed and unsigned integers, bool).
bool isSupportedDType(int32_t dtype);
/// The ONNX spelling of a dtype ("FLOAT", "INT64", ...).
std::string dtypeName(int32_t dtype);
/// Bytes per element of a supported dtype in ONNX raw_data.
int64_t dtypeBytes(int32_t dtype);

/// A dense tensor value known at import time. Float dtypes hold their values in `f` (already rounded to
/// the dtype's precision), integer and bool dtypes in `i`.
struct HostTensor {
  std::vector<int64_t> shape;
  int32_t dtype = onnx::TensorProto::FLOAT;
  std::vector<float> f;
  std::vector<int64_t> i;

  bool isFloat() const { return isFloatDType(dtype); }
  int64_t numel() const { return isFloat() ? (int64_t)f.size() : (int64_t)i.size(); }
  double at(int64_t k) const { return isFloat() ? (double)f[k] : (double)i[k]; }
  /// Element `k` as an integer (floats truncate toward zero, saturating).
  int64_t intAt(int64_t k) const;
  /// All elements as integers.
  std::vector<int64_t> toInts() const;

  static HostTensor ints(std::vector<int64_t> shape, std::vector<int64_t> values,
                         int32_t dtype = onnx::TensorProto::INT64);
  static HostTensor floats(std::vector<int64_t> shape, std::vector<float> values,
                           int32_t dtype = onnx::TensorProto::FLOAT);
  /// A tensor of `shape` and `dtype` with every element `value`.
  static HostTensor filled(std::vector<int64_t> shape, int32_t dtype, double value);
  /// Stores `value` at `k`, converted to the tensor's dtype (rounding, wrapping, bool as != 0).
  void set(int64_t k, double value);
  /// Converts to another dtype with ONNX Cast semantics.
  HostTensor castTo(int32_t to) const;
};

/// Number of elements of `shape`; nullopt if a dimension is negative or the count overflows.
std::optional<int64_t> checkedNumel(const std::vector<int64_t> &shape);

/// Decodes a TensorProto whose data is inline (raw_data or the typed fields). Fails with a message
/// naming the problem (unsupported dtype, data size not matching the dims).
bool decodeTensor(const onnx::TensorProto &proto, HostTensor &out, std::string &error);

/// Row-major strides of a shape.
std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape);
/// NumPy broadcast of shapes; nullopt if they do not broadcast.
std::optional<std::vector<int64_t>> broadcastAll(const std::vector<std::vector<int64_t>> &shapes);
/// For every flat output index of `outShape`, the flat index into a tensor of `inShape` broadcast to it.
std::vector<int64_t> broadcastIndex(const std::vector<int64_t> &inShape,
                                    const std::vector<int64_t> &outShape);
/// Permutes the axes of `in`: output axis k is input axis perm[k].
HostTensor transposeHost(const HostTensor &in, const std::vector<int64_t> &perm);

} // namespace tpuc::importer

#endif // TPUC_LIB_IMPORT_HOSTTENSOR_H
