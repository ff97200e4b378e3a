//===- StoredWeight.h - A file-backed weight's array without a copy -------===//
//
// For weights of GBs (an LLM's embedding table) that a pass only converts: the array the weight file
// holds, read once into WeightStore's cache, handed out in place instead of as readWeightF32's copy.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DIALECT_TOP_STOREDWEIGHT_H
#define TPUC_DIALECT_TOP_STOREDWEIGHT_H

#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Support/Tensor.h"

namespace tpuc::top {

/// The weight file's f32 array of a file-backed weight, valid until clearWeightCache. nullptr, with no
/// error, for an inline weight or one not stored as f32 with its declared element count, or not read
/// from disk (use readWeightF32, which reports what is wrong).
const Tensor *storedWeightF32(WeightOp op);

} // namespace tpuc::top

#endif // TPUC_DIALECT_TOP_STOREDWEIGHT_H
