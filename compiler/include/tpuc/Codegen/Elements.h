//===- Elements.h - Storage bytes of model-file tensors -------------------===//
//
// How a tensor's values sit in DDR and LMEM: each element in its backend::DType (int8/uint8/int16/int32
// codes, f16/bf16 bits, f32), little-endian. Codegen writes weights this way; the command-level
// simulator reads and writes every operand box this way. Values are floats holding integer codes for
// integer types (exact below 2^24) and already rounded values for f16/bf16. MLIR-free and Qt-free.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_CODEGEN_ELEMENTS_H
#define TPUC_CODEGEN_ELEMENTS_H

#include "tpuc/Backend/Graph.h"

#include <cstdint>
#include <vector>

namespace tpuc::codegen {

/// Whether `t` holds integer codes (INT8, UINT8, INT16, INT32).
bool isIntegerDType(backend::DType t);

/// Stores `count` values as `dtype` elements at `dst`: integers rounded to nearest and saturated to the
/// type's range, f16/bf16 rounded to nearest even, f32 as is.
void encodeElements(const float *src, int64_t count, backend::DType dtype, uint8_t *dst);

/// Reads `count` `dtype` elements into floats (integers exactly as far as float32 holds them). With
/// `ints` non-null an INT32 tensor also gives its exact values there.
void decodeElements(const uint8_t *src, int64_t count, backend::DType dtype, float *dst,
                    std::vector<int64_t> *ints = nullptr);

} // namespace tpuc::codegen

#endif // TPUC_CODEGEN_ELEMENTS_H
