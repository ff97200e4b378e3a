//===- TpuSim.h - Functional simulator of the Tpu dialect -------*- C++ -*-===//
// Qt-free. Runs a Tpu-dialect function exactly as the chip computes it and keeps (or dumps) its tensors.
//===----------------------------------------------------------------------===//
#ifndef TPUC_SIMULATOR_TPUSIM_H
#define TPUC_SIMULATOR_TPUSIM_H

#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Support/Npz.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace tpuc::sim {

/// Registers, as a dialect extension, the exact kernel of every Tpu op: once the Tpu dialect is loaded in
/// a context built from `registry`, each op implements `tpu::KernelInterface` (TpuInterfaces.td). The Tpu
/// simulator and the command-level runner register them themselves.
void registerTpuKernels(mlir::DialectRegistry &registry);
/// Same, applied directly to `context`.
void registerTpuKernels(mlir::MLIRContext &context);

/// How one `TpuSimulator::run` behaves.
struct TpuRunOptions {
  /// Keep every tensor (inputs and every op's results, weights excepted) in `tensors()` in program
  /// order; without it only the outputs. Quantized tensors are dumped dequantized to float32
  /// (`(q - zp) * scale`, npz_tool's semantics), f16/bf16 tensors as their float32 values.
  bool dumpAll = false;
  /// Isolated mode when set: every op is fed the float reference tensors of its inputs (looked up by the
  /// name of the producing op, walking back through tpu.cast / tpu.requant_int to the name the Top
  /// reference dumped), quantized or rounded into the operand's type. An input the reference lacks falls
  /// back to the simulated value. Errors are then attributed to the op where they are born. Null: the
  /// normal accumulated run from the model inputs.
  const NpzFile *reference = nullptr;
  /// Threads for the kernels; 0 keeps the current process-wide setting (see RunOptions::numThreads).
  unsigned numThreads = 0;
  /// Record the wall time of every op in `RunStats::opSeconds`.
  bool profile = false;
  /// Called after each op with (ops done, ops in total, tensor name); false cancels ("cancelled").
  std::function<bool(size_t, size_t, llvm::StringRef)> progress;
};

/// Simulates one function of a module in the Tpu dialect (plus top.input / top.weight / top.none):
///
///   TpuSimulator sim(module);
///   if (auto err = sim.setInput("input", x)) ...;
///   if (auto err = sim.run({.dumpAll = true})) ...;         // accumulated
///   sim.tensors().write("tpu_outputs.npz");
///   if (auto err = sim.run({.dumpAll = true, .reference = &topNpz})) ...;  // isolated
///
/// Arithmetic (TpuOps.td's header, docs/quantization.md): INT8 ops compute on integer codes with int32
/// accumulation, per-channel multiplier/rshift requantization, zero points and saturation through
/// TpucQuant; INT8 activations use the lowering's 256-entry tables; F16/BF16 ops compute in f32 from the
/// (already rounded) f16/bf16 inputs and weights and round every result to nearest even; F32 ops run the
/// Top reference kernels, so an F32 module gives bit-identical tensors to the reference Interpreter;
/// a16matmul dequantizes its W4/W8 weights group-wise. Quantized codes are held exactly as float32 values.
///
/// Tensor names follow the Interpreter's rule (locationName, "<mnemonic>_<k>", uniquing), so
/// `tpuc compare top_outputs.npz tpu_outputs.npz` lines up op for op. Errors are one line naming the op.
class TpuSimulator : public FunctionRunner {
public:
  /// Prepares `function` of `module` (empty: public `main`, else the only function). The module must
  /// outlive the simulator; it is not modified.
  explicit TpuSimulator(mlir::ModuleOp module, llvm::StringRef function = {});
  ~TpuSimulator();

  // Inputs, outputs (dequantized to float32), tensors and stats: FunctionRunner.

  /// Runs the function (accumulated, or isolated with TpuRunOptions::reference).
  llvm::Error run(const TpuRunOptions &options = {});

  /// Drops the loaded weights (reloaded by the next run).
  void releaseMemory();

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

/// The Tpu simulator as a Runner (Runner.h): accumulated, or isolated when given the reference's tensors.
/// Its outputs take `outputNames` in result order (the Top function's output names: a Tpu function may end
/// in casts named otherwise); without them, the simulator's. Named "Tpu simulation" or "isolated
/// simulation", as deploy's errors name them.
class TpuRunner : public Runner {
public:
  explicit TpuRunner(mlir::ModuleOp module, std::vector<std::string> outputNames = {},
                     const NpzFile *reference = nullptr);
  std::string name() const override { return reference ? "isolated simulation" : "Tpu simulation"; }
  std::vector<std::string> inputNames() const override { return sim.inputNames(); }
  std::vector<std::string> outputNames() const override;
  llvm::Error setInputs(const NpzFile &inputs) override { return sim.setInputs(inputs); }
  llvm::Error run(const RunnerOptions &options) override;
  const NpzFile &outputs() const override { return named; }
  const NpzFile &tensors() const override { return sim.tensors(); }
  RunnerStats stats() const override { return {sim.stats().seconds, sim.stats().numOps}; }
  TpuSimulator &simulator() { return sim; }

private:
  TpuSimulator sim;
  std::vector<std::string> names;
  const NpzFile *reference;
  NpzFile named;
};

} // namespace tpuc::sim

#endif // TPUC_SIMULATOR_TPUSIM_H
