//===- Batch.cpp - Preprocessing many sample files on a small thread pool ---===//
//
// Calibration decodes hundreds of images: workers decode ahead of the consumer, results come back
// in input order, and a bounded window keeps memory independent of the number of files.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Preprocess/Preprocess.h"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace tpuc::preprocess {

void forEachSample(const std::vector<std::string> &paths, const PreprocessConfig &config, unsigned threads,
                   const std::function<bool(size_t, SampleResult &)> &sink) {
  const size_t n = paths.size();
  if (n == 0)
    return;
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, n));
  const size_t window = 2 * size_t(threads);

  std::mutex mutex;
  std::condition_variable canClaim, hasResult;
  size_t nextClaim = 0, nextDeliver = 0;
  bool stopping = false;
  std::map<size_t, SampleResult> ready;

  auto work = [&] {
    for (;;) {
      size_t index;
      {
        std::unique_lock lock(mutex);
        canClaim.wait(lock, [&] { return stopping || nextClaim >= n || nextClaim < nextDeliver + window; });
        if (stopping || nextClaim >= n)
          return;
        index = nextClaim++;
      }
      SampleResult result;
      result.path = paths[index];
      try {
        result.tensor = loadSample(paths[index], config);
      } catch (const std::exception &e) {
        result.error = e.what();
      }
      {
        std::lock_guard lock(mutex);
        ready.emplace(index, std::move(result));
      }
      hasResult.notify_one();
    }
  };

  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (unsigned i = 0; i < threads; ++i)
    workers.emplace_back(work);

  try {
    while (nextDeliver < n) {
      SampleResult result;
      {
        std::unique_lock lock(mutex);
        hasResult.wait(lock, [&] { return ready.count(nextDeliver) != 0; });
        auto it = ready.find(nextDeliver);
        result = std::move(it->second);
        ready.erase(it);
      }
      bool more = sink(nextDeliver, result);
      {
        std::lock_guard lock(mutex);
        ++nextDeliver;
        if (!more)
          stopping = true;
      }
      canClaim.notify_all();
      if (!more)
        break;
    }
  } catch (...) {
    {
      std::lock_guard lock(mutex);
      stopping = true;
    }
    canClaim.notify_all();
    for (auto &t : workers)
      t.join();
    throw;
  }
  {
    std::lock_guard lock(mutex);
    stopping = true;
  }
  canClaim.notify_all();
  for (auto &t : workers)
    t.join();
}

std::vector<SampleResult> loadSamples(const std::vector<std::string> &paths, const PreprocessConfig &config,
                                      unsigned threads) {
  std::vector<SampleResult> results(paths.size());
  forEachSample(paths, config, threads, [&](size_t i, SampleResult &r) {
    results[i] = std::move(r);
    return true;
  });
  return results;
}

} // namespace tpuc::preprocess
