//===- ThreadPool.h - A small fork-join pool for the reference kernels -*- C++ -*-===//
// Qt-free. Splits index ranges over a fixed set of worker threads; the calling thread takes part.
//===----------------------------------------------------------------------===//
#ifndef TPUC_SIMULATOR_THREADPOOL_H
#define TPUC_SIMULATOR_THREADPOOL_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tpuc::sim {

/// A fork-join pool: `parallelFor` splits [0, n) into chunks, runs them on the workers and the calling
/// thread, and returns when all are done. Workers spin briefly after a job before they sleep, and the
/// caller spins while the last chunks finish, so the many small parallel loops of a network do not each
/// pay a sleep and wake-up. A call from inside a worker, or while another thread is using
/// the pool, runs serially on the caller, so kernels may nest calls without deadlock.
class ThreadPool {
public:
  /// A pool that runs work on `numThreads` threads in total (the caller plus numThreads - 1 workers).
  explicit ThreadPool(unsigned numThreads);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  /// Threads that share a parallelFor, the caller included.
  unsigned numThreads() const { return static_cast<unsigned>(workers.size()) + 1; }

  /// Calls `fn(begin, end)` on disjoint chunks covering [0, n); no chunk is smaller than `grain` (except
  /// the last). Blocks until every chunk has run.
  void parallelFor(int64_t n, int64_t grain, llvm::function_ref<void(int64_t, int64_t)> fn);

  /// The process-wide pool the reference kernels use (hardware concurrency threads by default). Creating
  /// it sets OpenBLAS to one thread: the kernels split their GEMMs over this pool instead.
  static ThreadPool &global();
  /// Replaces the process-wide pool with one of `numThreads` threads (0: hardware concurrency). Must not
  /// be called while kernels run.
  static void setGlobalThreads(unsigned numThreads);

private:
  struct Job;
  void workerLoop();
  void runChunks(Job &job);

  std::vector<std::thread> workers;
  std::mutex useMutex; ///< Held by the thread whose parallelFor owns the pool.
  std::mutex mutex;    ///< Guards `current`, `stopping` and changes of `generation` and Job::helpers.
  std::condition_variable wake, done;
  std::atomic<uint64_t> generation{0}; ///< Read without the mutex by workers spinning for the next job.
  Job *current = nullptr; ///< The job workers may join, on the owning caller's stack.
  bool stopping = false;
};

/// `ThreadPool::global().parallelFor(n, grain, fn)`.
inline void parallelFor(int64_t n, int64_t grain, llvm::function_ref<void(int64_t, int64_t)> fn) {
  ThreadPool::global().parallelFor(n, grain, fn);
}

} // namespace tpuc::sim

#endif // TPUC_SIMULATOR_THREADPOOL_H
