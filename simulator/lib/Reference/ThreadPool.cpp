//===- ThreadPool.cpp - A small fork-join pool for the reference kernels ---===//
// Workers sleep on a condition variable between jobs and claim chunks from an atomic counter.
// A worker that has just finished a job spins for a short while (kWorkerSpin) before it sleeps, and the
// caller spins (up to kCallerSpin) for the stragglers: a network's kernels issue parallel loops back to
// back, and a condition-variable sleep and wake-up per loop cost about as much as a small loop itself.
//===----------------------------------------------------------------------===//
#include "tpuc/Simulator/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <cblas.h>
#include <chrono>
#include <immintrin.h>

namespace tpuc::sim {
namespace {
/// Set in pool workers, so a kernel called from a worker runs nested loops serially.
thread_local bool inWorker = false;

unsigned defaultThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

constexpr std::chrono::microseconds kWorkerSpin{200}, kCallerSpin{2000};

/// Spins until `ready()` or `limit` has passed; returns ready().
template <typename Ready> bool spinUntil(Ready ready, std::chrono::microseconds limit) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 1;; ++i) {
    if (ready())
      return true;
    _mm_pause();
    if (i % 64 == 0 && std::chrono::steady_clock::now() - start > limit)
      return ready();
  }
}

std::unique_ptr<ThreadPool> &globalPool() {
  static std::unique_ptr<ThreadPool> pool = [] {
    // The kernels split GEMMs over this pool themselves; OpenBLAS threads would only compete with it.
    openblas_set_num_threads(1);
    return std::make_unique<ThreadPool>(defaultThreads());
  }();
  return pool;
}
} // namespace

ThreadPool::ThreadPool(unsigned numThreads) {
  if (numThreads == 0)
    numThreads = defaultThreads();
  for (unsigned i = 1; i < numThreads; ++i)
    workers.emplace_back([this] { workerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  for (std::thread &worker : workers)
    worker.join();
}

/// One parallelFor: its chunks are claimed through `next`; the caller returns once every chunk has
/// finished and no worker that joined is still inside. Workers that wake after that never see it, so a
/// late or descheduled worker never delays the caller.
struct ThreadPool::Job {
  llvm::function_ref<void(int64_t, int64_t)> fn;
  int64_t size, chunkSize, numChunks;
  std::atomic<int64_t> next{0}, finished{0};
  std::atomic<int> helpers{0}; ///< Workers inside runChunks (changed under the pool mutex).
};

void ThreadPool::runChunks(Job &job) {
  for (;;) {
    int64_t chunk = job.next.fetch_add(1, std::memory_order_relaxed);
    if (chunk >= job.numChunks)
      return;
    int64_t begin = chunk * job.chunkSize;
    job.fn(begin, std::min(job.size, begin + job.chunkSize));
    if (job.finished.fetch_add(1, std::memory_order_acq_rel) + 1 == job.numChunks) {
      std::lock_guard<std::mutex> lock(mutex);
      done.notify_all();
    }
  }
}

void ThreadPool::workerLoop() {
  inWorker = true;
  uint64_t seen = 0;
  for (;;) {
    spinUntil([&] { return generation.load(std::memory_order_acquire) != seen; }, kWorkerSpin);
    Job *job;
    {
      std::unique_lock<std::mutex> lock(mutex);
      wake.wait(lock, [&] { return stopping || generation != seen; });
      if (stopping)
        return;
      seen = generation;
      job = current;
      if (!job)
        continue;
      ++job->helpers;
    }
    runChunks(*job);
    std::lock_guard<std::mutex> lock(mutex);
    if (--job->helpers == 0)
      done.notify_all();
  }
}

void ThreadPool::parallelFor(int64_t n, int64_t grain, llvm::function_ref<void(int64_t, int64_t)> fn) {
  if (n <= 0)
    return;
  grain = std::max<int64_t>(grain, 1);
  int64_t maxChunks = n / grain; // so that every chunk holds at least `grain` indices
  if (workers.empty() || maxChunks <= 1 || inWorker) {
    fn(0, n);
    return;
  }
  std::unique_lock<std::mutex> use(useMutex, std::try_to_lock);
  if (!use.owns_lock()) { // another thread is using the pool: do the work here
    fn(0, n);
    return;
  }
  // A few chunks per thread balance uneven work without making chunks tiny.
  int64_t chunks = std::min<int64_t>(maxChunks, 4 * static_cast<int64_t>(numThreads()));
  Job job;
  job.fn = fn;
  job.size = n;
  job.chunkSize = (n + chunks - 1) / chunks;
  job.numChunks = (n + job.chunkSize - 1) / job.chunkSize;
  {
    std::lock_guard<std::mutex> lock(mutex);
    current = &job;
    ++generation;
  }
  wake.notify_all();
  runChunks(job);
  // The check under the mutex below decides; spinning first only saves the sleep.
  spinUntil([&] { return job.finished.load(std::memory_order_acquire) == job.numChunks && job.helpers == 0; },
            kCallerSpin);
  std::unique_lock<std::mutex> lock(mutex);
  done.wait(lock, [&] {
    return job.finished.load(std::memory_order_acquire) == job.numChunks && job.helpers == 0;
  });
  current = nullptr;
}

ThreadPool &ThreadPool::global() { return *globalPool(); }

void ThreadPool::setGlobalThreads(unsigned numThreads) {
  if (numThreads == 0)
    numThreads = defaultThreads();
  if (globalPool()->numThreads() != numThreads)
    globalPool() = std::make_unique<ThreadPool>(numThreads);
}

} // namespace tpuc::sim
