//===- SimOps.h - Per-op execution of the Tpu simulator (internal) -*- C++ -*-===//
// What the framework (TpuSim.cpp) hands an op: its buffers, the numeric encoding of each operand and
// result, exact integer weights and the float "shadow" Top op that runs float math on reference kernels.
//===----------------------------------------------------------------------===//
#ifndef TPUC_SIMULATOR_TPUSIM_SIMOPS_H
#define TPUC_SIMULATOR_TPUSIM_SIMOPS_H

#include "tpuc/Quant/Arith.h"
#include "tpuc/Simulator/TpuKernels.h"

#include "mlir/IR/Operation.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tpuc::sim::tpusim {

/// How a tensor's values are held: float32, f16/bf16 values (rounded, held in float32), integer codes of
/// a `!quant.uniform` type (held exactly in float32), or `none`.
struct Encoding {
  enum Kind : uint8_t { Float, F16, BF16, Quant, None } kind = Float;
  quant::QuantParams q;
  quant::IntType storage = quant::IntType::Int8;
  bool isQuant() const { return kind == Quant; }
  tpu::Half half() const { return kind == F16 ? tpu::Half::F16 : kind == BF16 ? tpu::Half::BF16 : tpu::Half::None; }
};

/// The encoding of a value of type `type`.
Encoding encodingOf(mlir::Type type);

/// Everything one op execution sees.
struct OpContext {
  mlir::Operation *op;
  llvm::ArrayRef<Encoding> inEnc, outEnc;
  llvm::ArrayRef<const float *> in;
  llvm::ArrayRef<float *> out;
  /// Per operand: the exact integer values when the operand is an integer-typed weight (int32 biases
  /// beyond 2^24 are not exact in float32), else null.
  llvm::ArrayRef<const std::vector<int64_t> *> intWeights;
  /// The float Top op computing this op's float math (float precisions, INT8 data movement), or null.
  mlir::Operation *shadow;
};

/// Builds, inside `block` (of a scratch module), the Top op that computes `op`'s float math on
/// f32-typed arguments; null (with `error` set) when the op has no float form here. `forInt8` adapts
/// attributes for INT8 data movement (pad values quantized).
mlir::Operation *buildShadow(mlir::Operation *op, mlir::Block &block, bool forInt8, std::string &error);

/// Whether an INT8 op of this name moves codes without arithmetic (its shadow runs on the codes).
bool isDataMovement(llvm::StringRef name);

/// Whether the op needs a shadow Top op (float precision, or INT8 data movement).
bool needsShadow(mlir::Operation *op);

/// Executes one op. Errors are the message only; the framework adds the op's name.
llvm::Error execute(OpContext &ctx);

/// One-line error.
inline llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace tpuc::sim::tpusim

#endif // TPUC_SIMULATOR_TPUSIM_SIMOPS_H
