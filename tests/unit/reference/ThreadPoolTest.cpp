//===- ThreadPoolTest.cpp - The fork-join pool of the reference kernels ---===//
// Every index runs exactly once, chunks respect the grain, nested and concurrent calls do not deadlock.
//===----------------------------------------------------------------------===//
#include "tpuc/Simulator/ThreadPool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

using tpuc::sim::ThreadPool;

TEST(ThreadPool, CoversEveryIndexOnce) {
  ThreadPool pool(3);
  EXPECT_EQ(pool.numThreads(), 3u);
  for (int64_t n : {0, 1, 7, 100, 12345}) {
    for (int64_t grain : {1, 8, 1000}) {
      std::vector<std::atomic<int>> hits(n);
      std::atomic<int64_t> smallest{n + 1};
      std::atomic<int> chunks{0};
      pool.parallelFor(n, grain, [&](int64_t begin, int64_t end) {
        ASSERT_LT(begin, end);
        if (end != n)
          smallest = std::min<int64_t>(smallest, end - begin);
        ++chunks;
        for (int64_t i = begin; i < end; ++i)
          ++hits[i];
      });
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(hits[i], 1) << "n=" << n << " grain=" << grain << " index " << i;
      if (n > 0 && smallest <= n)
        EXPECT_GE(smallest, std::min(grain, n)) << "n=" << n << " grain=" << grain;
      if (n >= 4 * grain)
        EXPECT_GT(chunks, 1) << "n=" << n << " grain=" << grain;
    }
  }
}

TEST(ThreadPool, UsesSeveralThreads) {
  ThreadPool pool(2);
  std::mutex mutex;
  std::set<std::thread::id> ids;
  std::atomic<int> arrived{0};
  // Each chunk waits (bounded) until two chunks are running, so two threads must take part.
  pool.parallelFor(2, 1, [&](int64_t, int64_t) {
    ++arrived;
    for (int spin = 0; spin < 2000000 && arrived < 2; ++spin)
      std::this_thread::yield();
    std::lock_guard<std::mutex> lock(mutex);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(ids.size(), 2u);
}

TEST(ThreadPool, NestedAndConcurrentCallsRunSerially) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  pool.parallelFor(8, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      pool.parallelFor(100, 1, [&](int64_t b, int64_t e) { total += e - b; });
  });
  EXPECT_EQ(total, 800);
  total = 0;
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] { pool.parallelFor(1000, 10, [&](int64_t b, int64_t e) { total += e - b; }); });
  for (std::thread &caller : callers)
    caller.join();
  EXPECT_EQ(total, 4000);
}

TEST(ThreadPool, GlobalPoolCanBeResized) {
  ThreadPool::setGlobalThreads(1);
  EXPECT_EQ(ThreadPool::global().numThreads(), 1u);
  ThreadPool::setGlobalThreads(2);
  EXPECT_EQ(ThreadPool::global().numThreads(), 2u);
  std::atomic<int64_t> total{0};
  tpuc::sim::parallelFor(5000, 100, [&](int64_t b, int64_t e) { total += e - b; });
  EXPECT_EQ(total, 5000);
}
