//===- CalibrationReport.cpp - calibrate --report: histograms and convergence ===//
//
// Convergence needs the statistics of the first k samples for growing k. Workers finish samples out of
// order, so each sample's statistics are kept apart until every earlier sample has been merged, then merged
// into the running prefix in list order; the merge is exact (Calibration.h), so the final prefix is the
// same statistics the plain pass computes, and the thresholds at each checkpoint do not depend on the
// thread count.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Driver/Calibration.h"
#include "tpuc/Support/FileWrite.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

namespace tpuc::driver {
namespace fs = std::filesystem;

std::vector<size_t> convergenceCheckpoints(size_t numSamples) {
  std::vector<size_t> points;
  size_t step = std::max<size_t>(1, (numSamples + 31) / 32);
  for (size_t k = 1; k <= numSamples; ++k)
    if (k <= 16 || k % step == 0 || k == numSamples)
      points.push_back(k);
  return points;
}

std::vector<size_t> Convergence::stableAfter() const {
  std::vector<size_t> stable;
  for (const std::vector<double> &t : thresholds) {
    size_t first = t.size();
    double final = t.empty() ? 0.0 : t.back();
    while (first > 0 && std::abs(t[first - 1] - final) <= tolerance * std::abs(final))
      --first;
    stable.push_back(first < samples.size() ? samples[first] : 0);
  }
  return stable;
}

bool Convergence::enoughData() const {
  size_t n = samples.empty() ? 0 : samples.back();
  return n >= 4 && stableAfterAll() <= n - n / 4;
}

size_t Convergence::stableAfterAll() const {
  size_t all = 0;
  for (size_t k : stableAfter())
    all = std::max(all, k);
  return all;
}

llvm::Expected<StatisticsWithConvergence>
collectStatisticsWithConvergence(CalibrationRunner &runner, const std::vector<CalibrationSample> &samples,
                                 int64_t histogramBins, quant::CalibrationMethod method, const Sink &progress,
                                 double begin, double end) {
  StatisticsWithConvergence result{quant::ActivationStatistics(histogramBins), {}};
  Convergence &convergence = result.convergence;
  convergence.method = method;
  convergence.samples = convergenceCheckpoints(samples.size());
  std::vector<quant::ActivationStatistics> current(runner.numWorkers(),
                                                   quant::ActivationStatistics(histogramBins));
  std::mutex mutex;
  std::map<size_t, quant::ActivationStatistics> pending;
  size_t merged = 0, checkpoint = 0;
  std::vector<std::map<std::string, double>> recorded;
  auto sink = [&](size_t worker, size_t, llvm::StringRef name, std::span<const float> values) {
    current[worker].add(name.str(), values);
  };
  auto done = [&](size_t worker, size_t sample) {
    std::lock_guard<std::mutex> lock(mutex);
    pending.emplace(sample, std::move(current[worker]));
    current[worker] = quant::ActivationStatistics(histogramBins);
    while (!pending.empty() && pending.begin()->first == merged) {
      result.statistics.merge(pending.begin()->second);
      pending.erase(pending.begin());
      ++merged;
      if (checkpoint < convergence.samples.size() && convergence.samples[checkpoint] == merged) {
        std::map<std::string, double> at;
        for (const std::string &name : result.statistics.names())
          at[name] = quant::computeThreshold(*result.statistics.find(name), method, 8);
        recorded.push_back(std::move(at));
        ++checkpoint;
      }
    }
  };
  if (auto err = runner.run(samples, sink, progress, begin, end, "", done))
    return std::move(err);
  convergence.names = result.statistics.names();
  for (const std::string &name : convergence.names) {
    std::vector<double> series;
    for (const auto &at : recorded) {
      auto it = at.find(name);
      series.push_back(it == at.end() ? 0.0 : it->second);
    }
    convergence.thresholds.push_back(std::move(series));
  }
  return result;
}

namespace {

llvm::Error writeJson(const std::string &path, const nlohmann::json &doc) {
  if (Result<void> written = writeFileAtomically(path, doc.dump(1) + "\n"); !written)
    return llvm::createStringError(written.error());
  return llvm::Error::success();
}

/// JSON has no infinity: a non-finite number (an empty tensor's range) is written as null.
nlohmann::json number(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json();
}

} // namespace

llvm::Expected<std::vector<std::string>>
writeCalibrationReport(const std::string &dir, const quant::ActivationStatistics &stats,
                       const Convergence &convergence, const std::string &chosen, size_t numSamples) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return llvm::createStringError(dir + ": cannot create the report folder: " + ec.message());
  constexpr quant::CalibrationMethod kMethods[] = {
      quant::CalibrationMethod::KL,        quant::CalibrationMethod::MSE,
      quant::CalibrationMethod::Max,       quant::CalibrationMethod::Percentile9999,
      quant::CalibrationMethod::AciqGauss, quant::CalibrationMethod::AciqLaplace};
  nlohmann::json tensors = nlohmann::json::array();
  for (const std::string &name : stats.names()) {
    const quant::TensorStatistics &s = *stats.find(name);
    double width = 0;
    std::vector<double> histogram = s.tpuMlirHistogram(width);
    nlohmann::json thresholds = nlohmann::json::object();
    for (quant::CalibrationMethod method : kMethods)
      thresholds[std::string(quant::calibrationMethodName(method))] =
          number(quant::computeThreshold(s, method, 8));
    tensors.push_back({{"name", name},
                       {"count", s.count()},
                       {"zeros", s.zeroCount()},
                       {"min", number(s.min())},
                       {"max", number(s.max())},
                       {"abs_max", number(s.absMax())},
                       {"mean", number(s.mean())},
                       {"std", number(s.stddev())},
                       {"bin_width", number(width)},
                       {"histogram", histogram},
                       {"thresholds", std::move(thresholds)}});
  }
  std::string histogramsPath = (fs::path(dir) / "histograms.json").string();
  nlohmann::json histograms = {{"schema", "tpuc.calibration_histograms"},
                               {"version", 1},
                               {"samples", numSamples},
                               {"bins", stats.numBins()},
                               {"chosen", chosen},
                               {"tensors", std::move(tensors)}};
  if (auto err = writeJson(histogramsPath, histograms))
    return std::move(err);

  std::vector<size_t> stable = convergence.stableAfter();
  size_t all = convergence.stableAfterAll();
  nlohmann::json series = nlohmann::json::array();
  for (size_t i = 0; i < convergence.names.size(); ++i) {
    nlohmann::json values = nlohmann::json::array();
    for (double t : convergence.thresholds[i])
      values.push_back(number(t));
    series.push_back({{"name", convergence.names[i]}, {"thresholds", values}, {"stable_after", stable[i]}});
  }
  std::string convergencePath = (fs::path(dir) / "convergence.json").string();
  nlohmann::json doc = {{"schema", "tpuc.calibration_convergence"},
                        {"version", 1},
                        {"method", std::string(quant::calibrationMethodName(convergence.method))},
                        {"tolerance", convergence.tolerance},
                        {"samples", numSamples},
                        {"checkpoints", convergence.samples},
                        {"stable_after", all},
                        {"enough_data", convergence.enoughData()},
                        {"tensors", std::move(series)}};
  if (auto err = writeJson(convergencePath, doc))
    return std::move(err);
  return std::vector<std::string>{histogramsPath, convergencePath};
}

} // namespace tpuc::driver
