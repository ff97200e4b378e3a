//===- CmdExec.h - Runs a model-file stage: command streams over simulated DDR and LMEM -*- C++ -*-===//
//
// The functional half of the command-level simulator (the timing half is CmdSim.h). DDR and LMEM are
// byte arrays holding every tensor in its storage type (int8 codes, f16/bf16 bits, f32). The runtime
// places the stage's weights and inputs in DDR; then every command runs in the order the timing model
// schedules it (with control flow, block by block along the branches the data takes): GDMA commands copy
// their boxes byte for byte between DDR and the lanes of LMEM (strides, lane wrap-around), TIU commands
// decode their LMEM (or, for global ops, DDR) operand boxes, compute the op on the box with the Tpu
// functional simulator's kernels (OpRunner.h) and encode the result back. Outputs are read from DDR
// afterwards. Nothing is taken from the Tpu IR: if codegen moved a byte to the wrong place, the results show
// it, which is what makes this codegen's proof. Qt-free; MLIR stays in OpRunner.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_SIMULATOR_CMDEXEC_H
#define TPUC_SIMULATOR_CMDEXEC_H

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Codegen/ModelFile.h"
#include "tpuc/Simulator/CmdSim.h"
#include "tpuc/Simulator/Runner.h"
#include "tpuc/Support/Npz.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tpuc::cmdsim {

/// The bits a dump holds where no command computed an element: a quiet NaN with a payload no kernel
/// produces (kernels make the default NaN 0x7fc00000 or pass an input's on), so a checker can leave these
/// cells out and still count every other NaN as a wrong result.
inline constexpr uint32_t kNotComputedBits = 0x7fc0dead;
/// Whether a dumped element was never computed (exactly kNotComputedBits).
inline bool isNotComputed(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits == kNotComputedBits;
}

/// Leaves the elements no command computed (kNotComputedBits in `dump`) out of a comparison of `dump`
/// with `reference`: for each tensor of `partial` (ExecStats::partial) both sides hold 0 there, the
/// reference as float32. Any other NaN is a wrong result and stays.
void maskNotComputed(const std::vector<std::string> &partial, NpzFile &dump, NpzFile &reference);

/// How one StageRunner::run behaves.
struct ExecOptions {
  /// Keep every op's result (dequantized to float32, named after the op as the Tpu simulator names it),
  /// assembled from the slices the TIU commands computed (kNotComputedBits where no command computed an
  /// element, see ExecStats::partial); ops without a command of their own (in-place reshapes and concats) are derived
  /// from their operands.
  bool dumpAll = false;
  /// Threads for the kernels; 0 keeps the process-wide setting.
  unsigned numThreads = 0;
  /// Called after each command with (commands done, total); false cancels ("cancelled"). With control flow
  /// the total is the stage's command count, or the commands done once loops ran more.
  std::function<bool(size_t, size_t)> progress;
};

/// What a run measured.
struct ExecStats {
  /// The cycle model's schedule (CmdSim.h) of the path the run took: with control flow, `timing.path` is
  /// the blocks executed in order and `timing.totalCycles` that path's cycles.
  SimResult timing;
  double seconds = 0;      ///< Wall time of the functional run.
  size_t tiuCommands = 0, gdmaCommands = 0;
  uint64_t bytesMoved = 0; ///< By GDMA commands.
  size_t sliceVariants = 0; ///< Distinct slice geometries of the ops.
  /// Per op (Stage::ops index): simulated TIU cycles summed over its commands.
  std::vector<int64_t> opCycles;
  /// With dumpAll: tensors the commands computed only in part. A layer group computes each slice's box
  /// of an intermediate as far as its readers need it, so border cells no reader uses are never computed
  /// (e.g. the last row before a stride-2 conv); dumps hold kNotComputedBits there.
  std::vector<std::string> partial;
};

/// Runs one stage of a model:
///
///   StageRunner runner(chip, model, 0, 0);
///   if (auto err = runner.setInputs(npz)) ...;
///   if (auto err = runner.run({.dumpAll = true})) ...;
///   runner.tensors().write("model_outputs.npz");
/// What the runners of one model file may share: the float values decoded from weight blobs in DDR's
/// coefficient region, keyed by blob and box, and the kernels' derived data (OpRunner's
/// KernelCacheStore). The nets of an LLM (block_i, block_cache_i, block_kv_i of a layer; embedding,
/// embedding_cache and a tied lm_head) read the same blobs, so each is decoded once.
class SharedDecodes {
public:
  static std::shared_ptr<SharedDecodes> create();
  ~SharedDecodes();
  struct Impl;
  std::unique_ptr<Impl> impl;

private:
  SharedDecodes();
};

class StageRunner {
public:
  /// `model` must outlive the runner. Problems found while preparing (programs that do not parse) are
  /// reported by the first setInput / run. Runners given the same `shared` (all over one model) share
  /// what they decode from the weights.
  StageRunner(const backend::ChipProfile &chip, const codegen::Model &model, size_t net, size_t stage,
              std::shared_ptr<SharedDecodes> shared = nullptr);
  ~StageRunner();
  StageRunner(const StageRunner &) = delete;
  StageRunner &operator=(const StageRunner &) = delete;

  const codegen::Stage &stage() const;

  /// Sets input `name` (real values, converted to float32, quantized or rounded to the input's storage
  /// type); fails naming the input on a bad name or shape.
  llvm::Error setInput(const std::string &name, const Tensor &tensor);
  /// Every input from an npz by name (a single input may also come from a single-array npz).
  llvm::Error setInputs(const NpzFile &npz);

  /// Runs the stage. With control flow (Stage::blocks) it runs block by block: a block's commands in the
  /// order its schedule runs them, then its terminator, a branch reading its condition from DDR; an op run
  /// several times (a loop's body) keeps its last run in the dumps, an op never run is not dumped. Fails
  /// with one line on a missing input, a command the checker rejects (bounds, hazards, deadlock), an op
  /// that cannot run or control flow that does not end within kMaxBlockExecutions blocks.
  llvm::Error run(const ExecOptions &options = {});

  /// The outputs (real values, float32, named as Stage::outputs) of the last run.
  const NpzFile &outputs() const;
  /// Every op's result with dumpAll, else the outputs.
  const NpzFile &tensors() const;
  const ExecStats &stats() const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

/// A stage of a model file on the command-level simulator as a Runner (Runner.h), named after the model
/// file (its errors read "<model.tpum>: ..."). Its progress counts commands and names no tensor.
class ModelFileRunner : public sim::Runner {
public:
  ModelFileRunner(std::string modelPath, const backend::ChipProfile &chip, const codegen::Model &model,
                  size_t net = 0, size_t stage = 0)
      : path(std::move(modelPath)), runner(chip, model, net, stage) {}
  std::string name() const override { return path; }
  std::vector<std::string> inputNames() const override;
  std::vector<std::string> outputNames() const override;
  llvm::Error setInputs(const NpzFile &inputs) override { return runner.setInputs(inputs); }
  llvm::Error run(const sim::RunnerOptions &options) override;
  const NpzFile &outputs() const override { return runner.outputs(); }
  const NpzFile &tensors() const override { return runner.tensors(); }
  sim::RunnerStats stats() const override;
  StageRunner &stageRunner() { return runner; }

private:
  std::string path;
  StageRunner runner;
};

} // namespace tpuc::cmdsim

#endif // TPUC_SIMULATOR_CMDEXEC_H
