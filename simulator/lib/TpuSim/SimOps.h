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

/// The INT8 integer kernel an op runs (its "form"); float precisions run the op's Top twin instead.
enum class Int8Form { None, Conv, Deconv, MatMul, Pool, Add, Sub, Mul, Table, Relu, Clip, DataMovement };

/// INT8 results: the kernel of `form`; float results: the twin (`ctx.shadow`) rounded to f16/bf16.
llvm::Error executeWithTwin(OpContext &ctx, Int8Form form);
/// The ops that compute without a twin.
llvm::Error runCast(OpContext &ctx);
llvm::Error runRequantInt(OpContext &ctx);
llvm::Error runA16(OpContext &ctx);
llvm::Error runScale(OpContext &ctx);

/// The Top twin of an op: its Top op and how many leading operands it takes (the INT8 table of
/// `*_const` and `active` is not one), plus attributes the Tpu op spells differently.
struct TwinSpec {
  llvm::StringRef topName; ///< A Top op class's getOperationName().
  unsigned numOperands = 0;
  llvm::SmallVector<mlir::NamedAttribute> extra;
};

/// Builds the twin described by `spec` at the end of `block` (of a scratch module): `op`'s attributes that
/// the Top op has, on f32-typed arguments; verified. `forInt8` adapts attributes for INT8 data movement.
llvm::Expected<mlir::Operation *> buildTwin(mlir::Operation *op, mlir::Block &block, bool forInt8,
                                            const TwinSpec &spec);

/// Executes one op: a Top op on its reference kernel, a Tpu op through tpu::KernelInterface. Errors are
/// the message only; the framework adds the op's name.
llvm::Error execute(OpContext &ctx);

/// One-line error.
inline llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace tpuc::sim::tpusim

#endif // TPUC_SIMULATOR_TPUSIM_SIMOPS_H
