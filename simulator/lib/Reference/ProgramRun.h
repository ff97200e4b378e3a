//===- ProgramRun.h - The value bookkeeping of one run of a FunctionProgram (internal) -*- C++ -*-===//
// Shared by the reference interpreter and the Tpu simulator: a buffer per value recycled through a pool,
// live and dumped bytes for RunStats, every produced tensor dumped under its names and aliases, buffers
// released after their last use, the outputs under the graph-output names.
//===----------------------------------------------------------------------===//
#ifndef TPUC_SIMULATOR_REFERENCE_PROGRAMRUN_H
#define TPUC_SIMULATOR_REFERENCE_PROGRAMRUN_H

#include "Kernels.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Simulator/FunctionProgram.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Support/Npz.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>

namespace tpuc::sim {

/// Recycles freed tensor buffers between ops and runs. Memory that has been written once is mapped
/// already: reusing it avoids the page faults that a fresh multi-megabyte allocation costs on every op.
class BufferPool {
public:
  std::unique_ptr<float[]> acquire(int64_t n, int64_t &capacity) {
    n = std::max<int64_t>(n, 1);
    auto it = free.lower_bound(n);
    if (it != free.end() && it->first <= 2 * n) { // no more than half of a recycled buffer goes unused
      capacity = it->first;
      std::unique_ptr<float[]> buffer = std::move(it->second);
      free.erase(it);
      return buffer;
    }
    capacity = n;
    return std::unique_ptr<float[]>(new float[n]);
  }
  void release(std::unique_ptr<float[]> buffer, int64_t capacity) {
    free.emplace(capacity, std::move(buffer));
  }
  void clear() { free.clear(); }

private:
  std::multimap<int64_t, std::unique_ptr<float[]>> free;
};

/// Per step, a cache for what its kernel derives from its weight operands (packed filters), kept with
/// the weights; null for a step without weight operands.
inline std::vector<std::unique_ptr<ref::OpCache>> makeWeightCaches(const FunctionProgram &program) {
  std::vector<std::unique_ptr<ref::OpCache>> caches(program.steps.size());
  for (auto [index, step] : llvm::enumerate(program.steps)) {
    llvm::SmallVector<bool> constant;
    for (int id : step.operands)
      constant.push_back(program.producer[id] >= 0 &&
                         mlir::isa<top::WeightOp>(program.steps[program.producer[id]].op));
    if (llvm::is_contained(constant, true))
      caches[index] = std::make_unique<ref::OpCache>(std::move(constant));
  }
  return caches;
}

/// The storage of every value during one run: owned (from the pool) or borrowed (inputs, weights), with
/// the byte counts of RunStats. Owned buffers go back to the pool when the run ends.
class ProgramRun {
public:
  /// How a value's buffer becomes a dumped tensor (the Tpu simulator dequantizes); by default a float32
  /// copy of the value's shape.
  using ToTensor = llvm::function_ref<Tensor(int id, const float *data)>;

  ProgramRun(const FunctionProgram &program, BufferPool &pool, RunStats &stats)
      : program(program), pool(pool), stats(stats), slots(program.values.size()) {}
  ~ProgramRun() {
    for (Slot &slot : slots) // outputs and other survivors go back to the pool for the next run
      if (slot.owned)
        pool.release(std::move(slot.owned), slot.capacity);
  }
  ProgramRun(const ProgramRun &) = delete;
  ProgramRun &operator=(const ProgramRun &) = delete;

  const float *data(int id) const { return slots[id].data; }
  /// Value `id` reads `data`, owned by someone else (a weight, an input).
  void borrow(int id, const float *data) { slots[id].data = data; }
  /// Argument `id` reads `data`; it counts as live for the whole run.
  void bindArgument(int id, const float *data) {
    borrow(id, data);
    live += bytes(id);
    stats.totalTensorBytes = stats.peakLiveBytes = live;
  }
  /// A buffer from the pool for value `id`, or null for a value that holds no tensor.
  float *allocate(int id) {
    if (program.sizes[id] < 0)
      return nullptr;
    Slot &slot = slots[id];
    slot.owned = pool.acquire(program.sizes[id], slot.capacity);
    slot.data = slot.owned.get();
    return slot.owned.get();
  }

  /// The step's results are computed: counts their bytes and, with `dumpInto`, dumps each under its name
  /// and aliases (the copies stay alive there, so they count towards the peak).
  void produced(const ProgramStep &step, NpzFile *dumpInto, ToTensor toTensor) {
    for (int id : step.results) {
      live += bytes(id);
      stats.totalTensorBytes += bytes(id);
      if (dumpInto && program.sizes[id] >= 0) {
        dumpInto->set(program.names[id], toTensor(id, slots[id].data));
        for (const std::string &alias : program.aliases[id])
          dumpInto->set(alias, toTensor(id, slots[id].data));
        dumped += bytes(id) * (1 + static_cast<int64_t>(program.aliases[id].size()));
      }
    }
    notePeak();
  }
  void notePeak() { stats.peakLiveBytes = std::max(stats.peakLiveBytes, live + dumped); }
  /// Releases the values whose last use `step` is.
  void release(const ProgramStep &step) {
    for (int id : step.freeAfter) {
      Slot &slot = slots[id];
      if (slot.owned) {
        pool.release(std::move(slot.owned), slot.capacity);
        live -= bytes(id);
      }
      slot.data = nullptr;
    }
  }
  /// The function results under the graph-output names into `outputs`, and into `tensors` unless a dump
  /// holds them already (a returned weight or input is no op result of its own).
  llvm::Error collectOutputs(NpzFile &outputs, NpzFile &tensors, ToTensor toTensor) const {
    for (auto [i, id] : llvm::enumerate(program.resultIds)) {
      const std::string &name = program.resultNames[i];
      if (program.sizes[id] < 0 || !slots[id].data)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "function result '" + name + "' is not a tensor");
      outputs.set(name, toTensor(id, slots[id].data));
      if (!tensors.has(name))
        tensors.set(name, toTensor(id, slots[id].data));
    }
    return llvm::Error::success();
  }

  /// A float32 copy of value `id`'s buffer in the value's shape.
  Tensor copyF32(int id, const float *data) const {
    Tensor t(DType::F32, program.shape(id));
    if (program.sizes[id] > 0)
      std::memcpy(t.data(), data, bytes(id));
    return t;
  }
  int64_t bytes(int id) const { return std::max<int64_t>(program.sizes[id], 0) * (int64_t)sizeof(float); }

private:
  struct Slot {
    std::unique_ptr<float[]> owned;
    int64_t capacity = 0; ///< Floats in `owned`.
    const float *data = nullptr;
  };
  const FunctionProgram &program;
  BufferPool &pool;
  RunStats &stats;
  std::vector<Slot> slots;
  int64_t live = 0, dumped = 0;
};

} // namespace tpuc::sim

#endif // TPUC_SIMULATOR_REFERENCE_PROGRAMRUN_H
