//===- Elements.cpp - Storage bytes of model-file tensors -----------------===//

#include "tpuc/Codegen/Elements.h"

#include "tpuc/Support/FloatConvert.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tpuc::codegen {

using backend::DType;

bool isIntegerDType(DType t) {
  return t == DType::INT8 || t == DType::UINT8 || t == DType::INT16 || t == DType::INT32;
}

void encodeElements(const float *src, int64_t count, DType dtype, uint8_t *dst) {
  auto sat = [](float v, double lo, double hi) { return std::clamp<double>(std::nearbyint(v), lo, hi); };
  // 8-bit codes in float arithmetic (exact for every value in range), so the loops vectorize.
  auto sat8 = [](float v, float lo, float hi) { return std::min(std::max(__builtin_nearbyintf(v), lo), hi); };
  switch (dtype) {
  case DType::INT8:
    for (int64_t i = 0; i < count; ++i)
      dst[i] = static_cast<uint8_t>(static_cast<int8_t>(sat8(src[i], -128.0f, 127.0f)));
    break;
  case DType::UINT8:
    for (int64_t i = 0; i < count; ++i)
      dst[i] = static_cast<uint8_t>(sat8(src[i], 0.0f, 255.0f));
    break;
  case DType::INT16:
    for (int64_t i = 0; i < count; ++i) {
      auto v = static_cast<int16_t>(sat(src[i], -32768, 32767));
      std::memcpy(dst + 2 * i, &v, 2);
    }
    break;
  case DType::INT32:
    for (int64_t i = 0; i < count; ++i) {
      auto v = static_cast<int32_t>(sat(src[i], -2147483648.0, 2147483647.0));
      std::memcpy(dst + 4 * i, &v, 4);
    }
    break;
  case DType::F16:
  case DType::BF16: {
    bool f16 = dtype == DType::F16;
    for (int64_t i = 0; i < count; ++i) {
      uint16_t v = f16 ? f32ToF16(src[i]) : f32ToBF16(src[i]);
      std::memcpy(dst + 2 * i, &v, 2);
    }
    break;
  }
  case DType::F32:
    std::memcpy(dst, src, count * 4);
    break;
  }
}

void decodeElements(const uint8_t *src, int64_t count, DType dtype, float *dst, std::vector<int64_t> *ints) {
  switch (dtype) {
  case DType::INT8:
    for (int64_t i = 0; i < count; ++i)
      dst[i] = static_cast<int8_t>(src[i]);
    break;
  case DType::UINT8:
    for (int64_t i = 0; i < count; ++i)
      dst[i] = src[i];
    break;
  case DType::INT16:
    for (int64_t i = 0; i < count; ++i) {
      int16_t v;
      std::memcpy(&v, src + 2 * i, 2);
      dst[i] = v;
    }
    break;
  case DType::INT32:
    if (ints)
      ints->resize(count);
    for (int64_t i = 0; i < count; ++i) {
      int32_t v;
      std::memcpy(&v, src + 4 * i, 4);
      dst[i] = static_cast<float>(v);
      if (ints)
        (*ints)[i] = v;
    }
    break;
  case DType::F16:
  case DType::BF16: {
    bool f16 = dtype == DType::F16;
    for (int64_t i = 0; i < count; ++i) {
      uint16_t v;
      std::memcpy(&v, src + 2 * i, 2);
      dst[i] = f16 ? f16ToF32(v) : bf16ToF32(v);
    }
    break;
  }
  case DType::F32:
    std::memcpy(dst, src, count * 4);
    break;
  }
}

} // namespace tpuc::codegen
