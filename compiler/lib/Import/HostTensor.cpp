//===- HostTensor.cpp - Tensors the ONNX importer knows at import time ----===//
// Decoding of ONNX TensorProtos (bounds-checked) and the dtype rules shared by the constant folder.
//===----------------------------------------------------------------------===//
#include "HostTensor.h"

#include "tpuc/Support/FloatConvert.h"

#include <cmath>
#include <cstring>
#include <limits>

using onnx::TensorProto;

namespace tpuc::importer {

bool isFloatDType(int32_t dtype) {
  return dtype == TensorProto::FLOAT || dtype == TensorProto::DOUBLE || dtype == TensorProto::FLOAT16 ||
         dtype == TensorProto::BFLOAT16;
}

bool isSupportedDType(int32_t dtype) { return dtypeBytes(dtype) > 0; }

int64_t dtypeBytes(int32_t dtype) {
  switch (dtype) {
  case TensorProto::FLOAT:
  case TensorProto::INT32:
  case TensorProto::UINT32:
    return 4;
  case TensorProto::DOUBLE:
  case TensorProto::INT64:
  case TensorProto::UINT64:
    return 8;
  case TensorProto::FLOAT16:
  case TensorProto::BFLOAT16:
  case TensorProto::INT16:
  case TensorProto::UINT16:
    return 2;
  case TensorProto::INT8:
  case TensorProto::UINT8:
  case TensorProto::BOOL:
    return 1;
  default:
    return 0;
  }
}

std::string dtypeName(int32_t dtype) {
  if (TensorProto::DataType_IsValid(dtype))
    return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(dtype));
  return "dtype " + std::to_string(dtype);
}

std::optional<int64_t> checkedNumel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    if (d != 0 && n > (int64_t(1) << 50) / d)
      return std::nullopt;
    n *= d;
  }
  return n;
}

namespace {

/// Converts a double to int64 the way a C cast would for in-range values, saturating otherwise.
int64_t saturate(double v) {
  if (std::isnan(v))
    return 0;
  if (v >= 9.2233720368547758e18)
    return std::numeric_limits<int64_t>::max();
  if (v <= -9.2233720368547758e18)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

/// Wraps an integer to the width of an integer dtype.
int64_t wrapTo(int32_t dtype, int64_t v) {
  switch (dtype) {
  case TensorProto::INT8:
    return (int8_t)v;
  case TensorProto::UINT8:
    return (uint8_t)v;
  case TensorProto::INT16:
    return (int16_t)v;
  case TensorProto::UINT16:
    return (uint16_t)v;
  case TensorProto::INT32:
    return (int32_t)v;
  case TensorProto::UINT32:
    return (uint32_t)v;
  case TensorProto::BOOL:
    return v != 0;
  default:
    return v;
  }
}

float roundFloat(int32_t dtype, double v) {
  if (dtype == TensorProto::FLOAT16)
    return f16ToF32(f32ToF16((float)v));
  if (dtype == TensorProto::BFLOAT16)
    return bf16ToF32(f32ToBF16((float)v));
  return (float)v;
}

template <typename T> T loadLE(const char *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

} // namespace

int64_t HostTensor::intAt(int64_t k) const { return isFloat() ? saturate(f[k]) : i[k]; }

std::vector<int64_t> HostTensor::toInts() const {
  if (!isFloat())
    return i;
  std::vector<int64_t> out(f.size());
  for (size_t k = 0; k < f.size(); ++k)
    out[k] = saturate(f[k]);
  return out;
}

HostTensor HostTensor::ints(std::vector<int64_t> shape, std::vector<int64_t> values, int32_t dtype) {
  HostTensor t;
  t.shape = std::move(shape);
  t.dtype = dtype;
  t.i = std::move(values);
  return t;
}

HostTensor HostTensor::floats(std::vector<int64_t> shape, std::vector<float> values, int32_t dtype) {
  HostTensor t;
  t.shape = std::move(shape);
  t.dtype = dtype;
  t.f = std::move(values);
  return t;
}

HostTensor HostTensor::filled(std::vector<int64_t> shape, int32_t dtype, double value) {
  HostTensor t;
  int64_t n = checkedNumel(shape).value_or(0);
  t.shape = std::move(shape);
  t.dtype = dtype;
  if (t.isFloat())
    t.f.assign(n, roundFloat(dtype, value));
  else
    t.i.assign(n, wrapTo(dtype, saturate(value)));
  return t;
}

void HostTensor::set(int64_t k, double value) {
  if (isFloat())
    f[k] = roundFloat(dtype, value);
  else
    i[k] = dtype == TensorProto::BOOL ? (value != 0) : wrapTo(dtype, saturate(value));
}

HostTensor HostTensor::castTo(int32_t to) const {
  HostTensor out;
  out.shape = shape;
  out.dtype = to;
  int64_t n = numel();
  if (out.isFloat()) {
    out.f.resize(n);
    for (int64_t k = 0; k < n; ++k)
      out.f[k] = roundFloat(to, at(k));
  } else {
    out.i.resize(n);
    for (int64_t k = 0; k < n; ++k)
      out.i[k] =
          isFloat() ? (to == TensorProto::BOOL ? f[k] != 0 : wrapTo(to, saturate(f[k]))) : wrapTo(to, i[k]);
  }
  return out;
}

bool decodeTensor(const TensorProto &proto, HostTensor &out, std::string &error) {
  int32_t dtype = proto.data_type();
  if (!isSupportedDType(dtype)) {
    error = "tensor '" + proto.name() + "' has unsupported dtype " + dtypeName(dtype);
    return false;
  }
  std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  auto n = checkedNumel(shape);
  if (!n) {
    error = "tensor '" + proto.name() + "' has invalid dims";
    return false;
  }
  out = HostTensor();
  out.shape = shape;
  out.dtype = dtype;
  bool isFloat = isFloatDType(dtype);
  // The element count must match the data before anything is allocated for it.
  int64_t have = proto.has_raw_data()           ? (int64_t)proto.raw_data().size() / dtypeBytes(dtype)
                 : dtype == TensorProto::FLOAT  ? proto.float_data_size()
                 : dtype == TensorProto::DOUBLE ? proto.double_data_size()
                 : dtype == TensorProto::INT64  ? proto.int64_data_size()
                 : dtype == TensorProto::UINT32 || dtype == TensorProto::UINT64 ? proto.uint64_data_size()
                                                                                : proto.int32_data_size();
  if (have == *n) {
    if (isFloat)
      out.f.resize(*n);
    else
      out.i.resize(*n);
  }
  auto sizeError = [&](int64_t have, const char *what) {
    error = "tensor '" + proto.name() + "' of shape [" + std::to_string(shape.size()) + "-D, " +
            std::to_string(*n) + " elements] holds " + std::to_string(have) + " " + what;
    return false;
  };

  if (proto.has_raw_data()) {
    const std::string &raw = proto.raw_data();
    int64_t bytes = dtypeBytes(dtype);
    if ((int64_t)raw.size() != *n * bytes)
      return sizeError((int64_t)raw.size(), "bytes of raw data");
    const char *p = raw.data();
    for (int64_t k = 0; k < *n; ++k, p += bytes) {
      switch (dtype) {
      case TensorProto::FLOAT:
        out.f[k] = loadLE<float>(p);
        break;
      case TensorProto::DOUBLE:
        out.f[k] = (float)loadLE<double>(p);
        break;
      case TensorProto::FLOAT16:
        out.f[k] = f16ToF32(loadLE<uint16_t>(p));
        break;
      case TensorProto::BFLOAT16:
        out.f[k] = bf16ToF32(loadLE<uint16_t>(p));
        break;
      case TensorProto::INT8:
        out.i[k] = loadLE<int8_t>(p);
        break;
      case TensorProto::UINT8:
        out.i[k] = loadLE<uint8_t>(p);
        break;
      case TensorProto::BOOL:
        out.i[k] = loadLE<uint8_t>(p) != 0;
        break;
      case TensorProto::INT16:
        out.i[k] = loadLE<int16_t>(p);
        break;
      case TensorProto::UINT16:
        out.i[k] = loadLE<uint16_t>(p);
        break;
      case TensorProto::INT32:
        out.i[k] = loadLE<int32_t>(p);
        break;
      case TensorProto::UINT32:
        out.i[k] = loadLE<uint32_t>(p);
        break;
      case TensorProto::INT64:
        out.i[k] = loadLE<int64_t>(p);
        break;
      case TensorProto::UINT64:
        out.i[k] = (int64_t)loadLE<uint64_t>(p);
        break;
      default:
        break;
      }
    }
    return true;
  }

  auto expect = [&](int64_t have, const char *field) {
    if (have == *n)
      return true;
    return sizeError(have, (std::string("values in ") + field).c_str());
  };
  switch (dtype) {
  case TensorProto::FLOAT:
    if (!expect(proto.float_data_size(), "float_data"))
      return false;
    for (int64_t k = 0; k < *n; ++k)
      out.f[k] = proto.float_data((int)k);
    return true;
  case TensorProto::DOUBLE:
    if (!expect(proto.double_data_size(), "double_data"))
      return false;
    for (int64_t k = 0; k < *n; ++k)
      out.f[k] = (float)proto.double_data((int)k);
    return true;
  case TensorProto::INT64:
    if (!expect(proto.int64_data_size(), "int64_data"))
      return false;
    for (int64_t k = 0; k < *n; ++k)
      out.i[k] = proto.int64_data((int)k);
    return true;
  case TensorProto::UINT32:
  case TensorProto::UINT64:
    if (!expect(proto.uint64_data_size(), "uint64_data"))
      return false;
    for (int64_t k = 0; k < *n; ++k)
      out.i[k] = wrapTo(dtype, (int64_t)proto.uint64_data((int)k));
    return true;
  default:
    // int8/16/32, uint8/16, bool, float16 and bfloat16 (as bit patterns) live in int32_data.
    if (!expect(proto.int32_data_size(), "int32_data"))
      return false;
    for (int64_t k = 0; k < *n; ++k) {
      int32_t v = proto.int32_data((int)k);
      if (dtype == TensorProto::FLOAT16)
        out.f[k] = f16ToF32((uint16_t)v);
      else if (dtype == TensorProto::BFLOAT16)
        out.f[k] = bf16ToF32((uint16_t)v);
      else
        out.i[k] = wrapTo(dtype, v);
    }
    return true;
  }
}

std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t k = (int64_t)shape.size() - 2; k >= 0; --k)
    strides[k] = strides[k + 1] * shape[k + 1];
  return strides;
}

std::optional<std::vector<int64_t>> broadcastAll(const std::vector<std::vector<int64_t>> &shapes) {
  size_t rank = 0;
  for (const auto &s : shapes)
    rank = std::max(rank, s.size());
  std::vector<int64_t> out(rank, 1);
  for (const auto &s : shapes) {
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t &o = out[rank - s.size() + k];
      int64_t d = s[k];
      if (d == o || d == 1)
        continue;
      if (o != 1)
        return std::nullopt;
      o = d;
    }
  }
  return out;
}

std::vector<int64_t> broadcastIndex(const std::vector<int64_t> &inShape,
                                    const std::vector<int64_t> &outShape) {
  int64_t n = checkedNumel(outShape).value_or(0);
  std::vector<int64_t> index(n, 0);
  size_t rank = outShape.size(), offset = rank - inShape.size();
  std::vector<int64_t> inStrides = stridesOf(inShape);
  // Effective stride per output axis: 0 where the input is broadcast.
  std::vector<int64_t> stride(rank, 0);
  for (size_t k = 0; k < inShape.size(); ++k)
    stride[offset + k] = inShape[k] == 1 ? 0 : inStrides[k];
  std::vector<int64_t> counter(rank, 0);
  int64_t flatIn = 0;
  for (int64_t k = 0; k < n; ++k) {
    index[k] = flatIn;
    for (int64_t a = (int64_t)rank - 1; a >= 0; --a) {
      flatIn += stride[a];
      if (++counter[a] < outShape[a])
        break;
      flatIn -= stride[a] * counter[a];
      counter[a] = 0;
    }
  }
  return index;
}

HostTensor transposeHost(const HostTensor &in, const std::vector<int64_t> &perm) {
  HostTensor out;
  out.dtype = in.dtype;
  for (int64_t p : perm)
    out.shape.push_back(in.shape[p]);
  std::vector<int64_t> inStrides = stridesOf(in.shape);
  std::vector<int64_t> permStrides(perm.size());
  for (size_t k = 0; k < perm.size(); ++k)
    permStrides[k] = inStrides[perm[k]];
  int64_t n = in.numel();
  std::vector<int64_t> src(n);
  std::vector<int64_t> counter(perm.size(), 0);
  int64_t flatIn = 0;
  for (int64_t k = 0; k < n; ++k) {
    src[k] = flatIn;
    for (int64_t a = (int64_t)perm.size() - 1; a >= 0; --a) {
      flatIn += permStrides[a];
      if (++counter[a] < out.shape[a])
        break;
      flatIn -= permStrides[a] * counter[a];
      counter[a] = 0;
    }
  }
  if (in.isFloat()) {
    out.f.resize(n);
    for (int64_t k = 0; k < n; ++k)
      out.f[k] = in.f[src[k]];
  } else {
    out.i.resize(n);
    for (int64_t k = 0; k < n; ++k)
      out.i[k] = in.i[src[k]];
  }
  return out;
}

} // namespace tpuc::importer
