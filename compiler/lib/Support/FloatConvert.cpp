//===- FloatConvert.cpp - f16/bf16 <-> f32 conversion, int4 packing -------===//

#include "tpuc/Support/FloatConvert.h"

#include <bit>
#include <cmath>

namespace tpuc {

float f16ToF32(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  uint32_t out;
  if (exponent == 0x1f) {
    // Infinity or NaN: keep the payload in the top mantissa bits.
    out = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    out = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    out = sign;
  } else {
    // Subnormal half: normalise into a float.
    int shift = 0;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3ffu;
    out = sign | (static_cast<uint32_t>(113 - shift) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(out);
}

uint16_t f32ToF16(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t absBits = bits & 0x7fffffffu;
  if (absBits > 0x7f800000u) // NaN: quiet, keep the top payload bits.
    return sign | 0x7e00u | static_cast<uint16_t>((absBits >> 13) & 0x1ffu);
  if (absBits >= 0x477ff000u) // rounds to >= 65520: infinity.
    return sign | 0x7c00u;
  if (absBits >= 0x38800000u) { // normal half (>= 2^-14)
    uint32_t mantissaOdd = (absBits >> 13) & 1u;
    absBits += 0xfffu + mantissaOdd; // round to nearest even
    return sign | static_cast<uint16_t>((absBits - 0x38000000u) >> 13);
  }
  if (absBits < 0x33000000u) // below half the smallest subnormal: zero
    return sign;
  // Subnormal half: shift the implicit-bit mantissa right, rounding to even.
  uint32_t exponent = absBits >> 23;
  uint32_t mantissa = (absBits & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126 - exponent; // 14..24
  uint32_t half = mantissa >> shift;
  uint32_t rest = mantissa & ((1u << shift) - 1);
  uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (half & 1u)))
    ++half;
  return sign | static_cast<uint16_t>(half);
}

float bf16ToF32(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

uint16_t f32ToBF16(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: force quiet, keep sign.
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7fffu + lsb; // round to nearest even (overflow gives inf)
  return static_cast<uint16_t>(bits >> 16);
}

Tensor toF32Tensor(const Tensor &tensor) {
  Tensor out(DType::F32, tensor.shape());
  auto values = out.values<float>();
  for (int64_t i = 0; i < tensor.numElements(); ++i)
    values[i] = static_cast<float>(tensor.valueAsDouble(i));
  return out;
}

Tensor f32TensorToHalf(const Tensor &tensor, DType halfType) {
  if (tensor.dtype() != DType::F32)
    throw TensorError("f32TensorToHalf needs an f32 tensor, got " +
                      std::string(dtypeName(tensor.dtype())));
  if (halfType != DType::F16 && halfType != DType::BF16)
    throw TensorError("f32TensorToHalf converts to f16 or bf16, not " +
                      std::string(dtypeName(halfType)));
  Tensor out(halfType, tensor.shape());
  auto in = tensor.values<float>();
  auto bits = out.values<uint16_t>();
  for (size_t i = 0; i < in.size(); ++i)
    bits[i] = halfType == DType::F16 ? f32ToF16(in[i]) : f32ToBF16(in[i]);
  return out;
}

std::vector<uint8_t> packInt4(std::span<const int8_t> values) {
  std::vector<uint8_t> packed((values.size() + 1) / 2, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    auto nibble = static_cast<uint8_t>(values[i] & 0x0f);
    packed[i / 2] |= (i % 2) ? static_cast<uint8_t>(nibble << 4) : nibble;
  }
  return packed;
}

static void checkPackedSize(std::span<const uint8_t> packed, int64_t count) {
  if (count < 0 || static_cast<uint64_t>(count) > packed.size() * 2)
    throw TensorError("cannot unpack " + std::to_string(count) +
                      " int4 values from " + std::to_string(packed.size()) +
                      " bytes");
}

std::vector<uint8_t> unpackUInt4(std::span<const uint8_t> packed,
                                 int64_t count) {
  checkPackedSize(packed, count);
  std::vector<uint8_t> out(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    out[i] = (i % 2) ? (packed[i / 2] >> 4) : (packed[i / 2] & 0x0f);
  return out;
}

std::vector<int8_t> unpackInt4(std::span<const uint8_t> packed,
                               int64_t count) {
  std::vector<uint8_t> raw = unpackUInt4(packed, count);
  std::vector<int8_t> out(raw.size());
  for (size_t i = 0; i < raw.size(); ++i)
    out[i] = static_cast<int8_t>(raw[i] >= 8 ? raw[i] - 16 : raw[i]);
  return out;
}

} // namespace tpuc
