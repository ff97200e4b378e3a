//===- OpRunner.h - Tpu ops of a model file run on boxes of their operands -*- C++ -*-===//
//
// What a TIU command computes: the Tpu op stored with it in the model file (OpInfo::program, the op
// alone in a function, generic MLIR form) evaluated on the boxes of its operands that the command
// names, with the kernels of the Tpu functional simulator, so a sliced run is exactly the whole-op
// result restricted to the box. Each distinct slice geometry (operand boxes, padding, output channels)
// becomes one re-typed copy of the op, built once and cached. Qt-free; MLIR stays inside the .cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_SIMULATOR_OPRUNNER_H
#define TPUC_SIMULATOR_OPRUNNER_H

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tpuc::sim {

/// How one argument or result of an op holds its values.
struct ValueInfo {
  enum Kind : uint8_t { Float, F16, BF16, Quant, Integer, None } kind = Float;
  double scale = 1;   ///< Quant: real = scale * (q - zeroPoint).
  int64_t zeroPoint = 0;
  std::vector<int64_t> shape; ///< Full static shape.
};

/// The sliding window of a conv / pool op (2-D).
struct OpWindow {
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  int64_t group = 1;      ///< Convolution groups (1 for pooling).
  bool pooling = false;
};

/// One argument's data for OpRunner::run: values in row-major order of `shape` (quantized tensors as
/// their integer codes), and, for integer tensors, the exact values (int32 biases beyond 2^24).
struct OpArg {
  const float *data = nullptr; ///< Null for a `none` argument.
  std::vector<int64_t> shape;
  const std::vector<int64_t> *ints = nullptr;
  /// A weight whose buffer holds the same values whenever the same cache is used (see OpRunner::run).
  bool constant = false;
};

/// Kernel caches (data the kernels derive from constant arguments: packed filters, dequantized
/// weights) shared by the OpRunners of several stages under keys their callers give: the stages of one
/// model file that read the same weights (an LLM's block_i, block_cache_i, block_kv_i) build them once.
class KernelCacheStore {
public:
  static std::shared_ptr<KernelCacheStore> create();
  ~KernelCacheStore();
  struct Impl;

private:
  KernelCacheStore();
  std::unique_ptr<Impl> impl;
  friend class OpRunner;
};

/// Parses and runs the ops of one model-file stage.
class OpRunner {
public:
  OpRunner();
  ~OpRunner();
  OpRunner(const OpRunner &) = delete;
  OpRunner &operator=(const OpRunner &) = delete;

  /// Parses op `name`'s program; returns its index. The error is one line naming the op.
  llvm::Expected<size_t> add(const std::string &name, const std::string &program);

  const std::vector<ValueInfo> &args(size_t op) const;
  const std::vector<ValueInfo> &results(size_t op) const;
  /// The window of a conv / pool op, else nullopt.
  std::optional<OpWindow> window(size_t op) const;
  /// True for a matmul: each result column reduces a whole row of its input (the input's last axis is
  /// read whole whatever columns a slice computes), and its per-channel parameters run along the
  /// result's last axis (a column tile of a streamed weight, docs/BACKEND.md).
  bool reducesLastAxis(size_t op) const;

  /// Runs op `op` on `args` (one per program argument) writing `outs` (one per result, each of
  /// `outShapes[i]` elements in row-major order). With `pad` (top, bottom, left, right) the op is a slice
  /// of a layer group: a conv / pool window uses that padding (the part of the window outside the
  /// tensor), per-channel parameters start at output channel `channel0` (a matmul's at column `channel0`,
  /// reducesLastAxis), grouped convs keep their channels per group. Without it the arguments must be the full
  /// tensors.
  ///
  /// `cache` (>= 0) names a cache of data the kernels derive from the constant arguments (packed
  /// filters), kept across calls with the same id; the caller passes `constantsChanged` when those
  /// arguments' values differ from the previous call with that id, which drops it.
  ///
  /// With a store (shareKernelCaches) and a non-empty `sharedKey`, the cache is the store's entry of that
  /// key instead: the caller promises that the key names the constant arguments' values exactly (they
  /// never change under it) and the op's program and geometry.
  llvm::Error run(size_t op, std::span<const OpArg> args, std::span<float *const> outs,
                  std::span<const std::vector<int64_t>> outShapes, const std::array<int64_t, 4> *pad,
                  int64_t channel0, int64_t cache = -1, bool constantsChanged = false,
                  const std::string &sharedKey = std::string());

  /// Shares kernel caches through `store` (see run).
  void shareKernelCaches(std::shared_ptr<KernelCacheStore> store);
  /// What a kernel cache of op `op` may depend on besides its constant arguments: the op's name,
  /// attributes and element types (not the shapes of its other arguments), for shared keys.
  std::string cacheSignature(size_t op) const;

  /// Distinct slice geometries built so far (for tests and statistics).
  size_t numVariants() const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

} // namespace tpuc::sim

#endif // TPUC_SIMULATOR_OPRUNNER_H
