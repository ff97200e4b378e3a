//===- FloatConvert.h - f16/bf16 <-> f32 conversion, int4 packing ---------===//
//
// Qt-free, MLIR-free bit-exact conversions used by the npz tools, the
// quantizer and the reference kernels.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_SUPPORT_FLOATCONVERT_H
#define TPUC_SUPPORT_FLOATCONVERT_H

#include "tpuc/Support/Tensor.h"

#include <cstdint>
#include <span>
#include <vector>

namespace tpuc {

/// IEEE binary16 bits -> float (exact; subnormals, infinities, NaN kept).
float f16ToF32(uint16_t bits);
/// float -> IEEE binary16 bits, round to nearest even; overflow gives
/// infinity, NaN stays a quiet NaN with the sign kept.
uint16_t f32ToF16(float value);
/// bfloat16 bits -> float (exact: the upper half of the f32 bits).
float bf16ToF32(uint16_t bits);
/// float -> bfloat16 bits, round to nearest even; NaN stays a quiet NaN.
uint16_t f32ToBF16(float value);

/// Converts any tensor to an F32 tensor of the same shape (F16/BF16 decoded,
/// integers and bools converted by value, F64 rounded).
Tensor toF32Tensor(const Tensor &tensor);
/// Converts an F32 tensor to F16 or BF16 (round to nearest even).
Tensor f32TensorToHalf(const Tensor &tensor, DType halfType);

/// Packs int4 values two per byte: element 2k goes to the low nibble of
/// byte k, element 2k+1 to the high nibble (TPU-MLIR's order); an odd count
/// leaves the last high nibble 0. Values are taken modulo 16, so signed
/// (-8..7) and unsigned (0..15) inputs both work.
std::vector<uint8_t> packInt4(std::span<const int8_t> values);
/// Unpacks `count` signed int4 values (-8..7) from packed bytes.
std::vector<int8_t> unpackInt4(std::span<const uint8_t> packed, int64_t count);
/// Unpacks `count` unsigned int4 values (0..15) from packed bytes.
std::vector<uint8_t> unpackUInt4(std::span<const uint8_t> packed,
                                 int64_t count);

} // namespace tpuc

#endif // TPUC_SUPPORT_FLOATCONVERT_H
