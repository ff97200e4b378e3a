//===- Calibration.cpp - The passes of calibrate (TPU-MLIR's run_calibration) ===//
//
// Runs the float reference interpreter over a data set and folds every tensor of every sample into
// streaming statistics (quant::ActivationStatistics) the moment the interpreter produces it: no
// activation outlives its op, so memory is bounded by the model (weights, the live tensors of one run
// per worker, a fixed-size histogram per tensor), never by the number of samples. Samples are spread over
// worker threads, each with its own interpreter and statistics, merged at the end; the thresholds of
// kl / mse / max / percentile9999 do not depend on that split (see Calibration.h), so the table is the
// same for any thread count. With --search search_threshold a second pass over the samples measures each
// tensor fake-quantized at every candidate threshold (quant::ThresholdSearch, bounded sums per tensor,
// also independent of the split) and the table keeps the best candidate per tensor; a CSV beside the table
// says why. --debug writes each tensor's statistics and histogram beside the table. With --search
// search_qtable the mixed-precision search runs afterwards (SearchQtable.cpp). driver::calibrate
// (Calibrate.cpp) strings these pieces together.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Driver/Calibration.h"
#include "tpuc/Driver/TestInputs.h"
#include "tpuc/Support/FileWrite.h"

#include "tpuc/Dataset/Index.h"
#include "tpuc/Dataset/Scan.h"
#include "tpuc/Dataset/Subsets.h"
#include "tpuc/Driver/TopModule.h"

#include "tpuc/Preprocess/Preprocess.h"
#include "tpuc/Quant/Calibration.h"
#include "tpuc/Quant/Tables.h"
#include "tpuc/Quant/ThresholdSearch.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Simulator/ThreadPool.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

namespace tpuc::driver {
namespace fs = std::filesystem;

char CancelledError::ID = 0;
void CancelledError::log(llvm::raw_ostream &os) const { os << message; }
std::error_code CancelledError::convertToErrorCode() const { return llvm::inconvertibleErrorCode(); }

namespace {

std::string trim(const std::string &text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos)
    return "";
  size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

/// The samples of --dataset: every image, .npy or .npz below the directory (recursively, hidden entries
/// skipped), sorted by path so that --input_num picks the same files on every machine.
/// Samples from every file of a folder (relative paths, sorted), paired by input folder for a multi-input
/// model (dataset::groupByInputs); `chosen` restricts them to a subset's files.
llvm::Expected<std::vector<CalibrationSample>> groupedSamples(const std::string &root,
                                                              const std::vector<std::string> &paths,
                                                              const std::vector<std::string> &inputNames,
                                                              const std::vector<std::string> *chosen) {
  dataset::InputGroups groups = dataset::groupByInputs(paths, inputNames, chosen);
  if (!groups.unmatched.empty()) {
    const std::string &file = groups.unmatched.front();
    return llvm::createStringError((fs::path(root) / file).string() +
                                   ": no partner file of the same name under every other input's folder (" +
                                   std::to_string(groups.unmatched.size()) +
                                   " such file(s); a multi-input sample needs one file under each of " +
                                   llvm::join(inputNames, "/, ") + "/)");
  }
  std::vector<CalibrationSample> samples;
  for (const std::vector<std::string> &sample : groups.samples) {
    CalibrationSample s;
    for (const std::string &file : sample)
      s.files.push_back((fs::path(root) / file).lexically_normal().string());
    samples.push_back(std::move(s));
  }
  return samples;
}

llvm::Expected<std::vector<CalibrationSample>> datasetSamples(const std::string &dir,
                                                              const std::vector<std::string> &inputNames) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return llvm::createStringError(dir + ": not a directory");
  std::vector<std::string> files;
  ec = dataset::forEachDatasetFile(dir, [&](const fs::directory_entry &entry) {
    files.push_back(entry.path().lexically_relative(dir).generic_string());
  });
  if (ec)
    return llvm::createStringError(dir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  return groupedSamples(dir, files, inputNames, nullptr);
}

std::string sampleName(const CalibrationSample &sample) {
  std::string name;
  for (const std::string &file : sample.files)
    name += (name.empty() ? "" : ",") + file;
  return name;
}

} // namespace

llvm::Expected<std::vector<CalibrationSample>> readDataList(const std::string &list) {
  std::ifstream in(list);
  if (!in)
    return llvm::createStringError(list + ": cannot read the data list");
  std::vector<CalibrationSample> samples;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = trim(line);
    if (line.empty() || line.front() == '#')
      continue;
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream fields(line);
    CalibrationSample sample;
    sample.origin = list + ":" + std::to_string(number);
    for (std::string file; fields >> file;) {
      std::error_code ec;
      fs::path beside = fs::path(list).parent_path() / file;
      if (fs::path(file).is_relative() && !fs::exists(file, ec) && fs::exists(beside, ec))
        file = beside.string();
      sample.files.push_back(file);
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

/// The samples of --subset: a data list file, or a named subset of the index of --dataset.
llvm::Expected<std::vector<CalibrationSample>> subsetSamples(const CalibrateOptions &o,
                                                             const std::vector<std::string> &inputNames) {
  std::error_code ec;
  if (fs::is_regular_file(o.subset, ec))
    return readDataList(o.subset);
  if (o.dataset.empty())
    return llvm::createStringError(
        "--subset " + o.subset +
        ": no such file, and no '--dataset' whose index could hold a subset of that name");
  std::string indexPath = dataset::defaultIndexPath(o.dataset);
  auto index = dataset::readIndex(indexPath);
  if (!index)
    return llvm::createStringError(llvm::toString(index.takeError()) + " (run 'tpuc dataset scan " +
                                   o.dataset + "' first)");
  const dataset::Subset *subset = index->findSubset(o.subset);
  if (!subset) {
    std::string names;
    for (const dataset::Subset &s : index->subsets)
      names += (names.empty() ? "" : ", ") + s.name;
    return llvm::createStringError(indexPath + ": no subset '" + o.subset + "' (" +
                                   (names.empty() ? std::string("it has none") : "it has " + names) + ")");
  }
  std::vector<std::string> paths;
  for (const dataset::FileEntry &e : index->files)
    paths.push_back(e.path);
  return groupedSamples(index->root, paths, inputNames, &subset->paths);
}

llvm::Expected<std::vector<CalibrationSample>>
collectCalibrationSamples(const CalibrateOptions &o, const std::vector<std::string> &inputNames) {
  auto samples = !o.subset.empty()    ? subsetSamples(o, inputNames)
                 : o.dataList.empty() ? datasetSamples(o.dataset, inputNames)
                                      : readDataList(o.dataList);
  if (!samples)
    return samples.takeError();
  std::string source = !o.subset.empty() ? o.subset : o.dataList.empty() ? o.dataset : o.dataList;
  if (samples->empty())
    return llvm::createStringError(source + ": no samples (images .jpg/.png/.bmp/..., .npy or .npz)");
  if (o.inputNum > 0 && static_cast<size_t>(o.inputNum) < samples->size())
    samples->resize(static_cast<size_t>(o.inputNum));
  return samples;
}

CalibrationRunner::CalibrationRunner(mlir::ModuleOp module, size_t numSamples,
                                     const CalibrationRunConfig &config)
    : module(module), config(config) {
  unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  unsigned threads = config.threads > 0 ? static_cast<unsigned>(config.threads) : hardware;
  size_t workers = config.parallel == "samples" ? std::min<size_t>(threads, numSamples) : 1;
  for (size_t i = 0; i < std::max<size_t>(1, workers); ++i)
    interpreters.push_back(std::make_unique<sim::Interpreter>(module));
}

CalibrationRunner::~CalibrationRunner() = default;

llvm::Error CalibrationRunner::run(const std::vector<CalibrationSample> &samples, const TensorSink &sink,
                                   const Sink &progress, double begin, double end, const std::string &label,
                                   const SampleDone &sampleDone) {
  unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  unsigned threads = config.threads > 0 ? static_cast<unsigned>(config.threads) : hardware;
  // Sample-parallel: every worker runs its kernels on its own thread (a shared pool would serialize the
  // workers that do not own it); kernel-parallel: one worker, the kernels use all threads.
  unsigned kernelThreads = config.parallel == "samples" ? 1 : threads;
  std::vector<preprocess::PreprocessConfig> inputs = cli::preprocessConfigs(module, *interpreters.front());
  size_t numInputs = inputs.size();
  for (const CalibrationSample &sample : samples) {
    bool oneNpz = sample.files.size() == 1 && sample.files.front().size() > 4 &&
                  sample.files.front().compare(sample.files.front().size() - 4, 4, ".npz") == 0;
    if (sample.files.size() != numInputs && !oneNpz)
      return llvm::createStringError((sample.origin.empty() ? sampleName(sample) : sample.origin) +
                                     ": the sample has " + std::to_string(sample.files.size()) +
                                     " file(s) but the model has " + std::to_string(numInputs) +
                                     " input(s) (give one file per input, or one .npz holding all of them)");
  }
  std::atomic<size_t> next{0}, done{0};
  std::atomic<bool> stop{false}, cancelled{false};
  std::mutex errorMutex;
  size_t errorIndex = samples.size();
  std::string error;
  auto fail = [&](size_t index, std::string message) {
    std::lock_guard<std::mutex> lock(errorMutex);
    if (index < errorIndex) { // the earliest failing sample in list order among those that ran
      errorIndex = index;
      error = std::move(message);
    }
    stop = true;
  };
  auto work = [&](size_t worker) {
    sim::Interpreter &interpreter = *interpreters[worker];
    sim::RunOptions options;
    size_t index = 0;
    options.onTensor = [&](llvm::StringRef name, llvm::ArrayRef<int64_t>, llvm::ArrayRef<float> data) {
      sink(worker, index, name, std::span<const float>(data.data(), data.size()));
    };
    while (!stop) {
      // Cancellation is polled per sample: a job of a thousand images stops within one sample's time.
      if (progress.isCancelled()) {
        cancelled = true;
        stop = true;
        break;
      }
      index = next++;
      if (index >= samples.size())
        break;
      const CalibrationSample &sample = samples[index];
      std::map<std::string, Tensor> tensors;
      try {
        tensors = preprocess::loadTestInputs(sample.files, inputs);
      } catch (const std::exception &e) {
        // Decoding errors start with the file; others (a sample that does not fit the input) get it here.
        std::string message = e.what();
        bool namesFile = std::any_of(sample.files.begin(), sample.files.end(), [&](const std::string &file) {
          return message.find(file) != std::string::npos;
        });
        fail(index, namesFile ? message : sampleName(sample) + ": " + message);
        break;
      }
      for (const preprocess::PreprocessConfig &input : inputs)
        if (auto err = interpreter.setInput(input.inputName, tensors.at(input.inputName))) {
          fail(index, sampleName(sample) + ": " + llvm::toString(std::move(err)));
          return;
        }
      if (auto err = interpreter.run(options)) {
        fail(index, sampleName(sample) + ": " + llvm::toString(std::move(err)));
        return;
      }
      if (sampleDone)
        sampleDone(worker, index);
      size_t finished = ++done;
      progress.report("calibrate", begin + (end - begin) * double(finished) / double(samples.size()),
                      label + "sample " + std::to_string(finished) + "/" + std::to_string(samples.size()));
    }
  };
  // The process-wide kernel pool is sized once, before any thread runs kernels.
  sim::ThreadPool::setGlobalThreads(kernelThreads);
  std::vector<std::thread> threadsRunning;
  for (size_t i = 1; i < interpreters.size(); ++i)
    threadsRunning.emplace_back(work, i);
  work(0);
  for (std::thread &t : threadsRunning)
    t.join();
  if (errorIndex != samples.size())
    return llvm::createStringError(error);
  if (cancelled)
    return llvm::make_error<CancelledError>("cancelled after " + std::to_string(done.load()) + "/" +
                                            std::to_string(samples.size()) + " samples");
  return llvm::Error::success();
}

llvm::Expected<quant::ActivationStatistics>
collectActivationStatistics(CalibrationRunner &runner, const std::vector<CalibrationSample> &samples,
                            int64_t histogramBins, const Sink &progress, double begin, double end) {
  std::vector<quant::ActivationStatistics> perWorker(runner.numWorkers(),
                                                     quant::ActivationStatistics(histogramBins));
  auto sink = [&](size_t worker, size_t, llvm::StringRef name, std::span<const float> values) {
    perWorker[worker].add(name.str(), values);
  };
  if (auto err = runner.run(samples, sink, progress, begin, end, ""))
    return std::move(err);
  quant::ActivationStatistics total(histogramBins);
  for (const quant::ActivationStatistics &stats : perWorker)
    total.merge(stats);
  return total;
}

llvm::Expected<quant::ThresholdSearch> searchThresholds(CalibrationRunner &runner,
                                                        const quant::ActivationStatistics &stats,
                                                        const std::vector<CalibrationSample> &samples,
                                                        const Sink &progress, double begin, double end) {
  // The candidates are computed once; each worker gets its own copy of the (empty) sums.
  quant::ThresholdSearch empty(stats);
  std::vector<quant::ThresholdSearch> perWorker(runner.numWorkers(), empty);
  auto sink = [&](size_t worker, size_t, llvm::StringRef name, std::span<const float> values) {
    perWorker[worker].add(name.str(), values);
  };
  if (auto err = runner.run(samples, sink, progress, begin, end, "search_threshold: "))
    return std::move(err);
  for (size_t i = 1; i < perWorker.size(); ++i)
    perWorker.front().merge(perWorker[i]);
  return std::move(perWorker.front());
}

namespace {

/// TPU-MLIR's header lines, its spelling of "generated" included: tools that sniff them keep working.
std::vector<std::string> tableHeader(int64_t bins, size_t numSamples, size_t tuneSamples,
                                     const std::string &method, const std::vector<std::string> &extra) {
  std::time_t now = std::time(nullptr);
  char stamp[64];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", std::gmtime(&now));
  std::vector<std::string> header = {
      std::string("# genetated time: ") + stamp, "# histogram number: " + std::to_string(bins),
      "# sample number: " + std::to_string(numSamples), "# tune number: " + std::to_string(tuneSamples),
      "# cali method: " + method + " (tpuc)"};
  header.insert(header.end(), extra.begin(), extra.end());
  header.push_back("###");
  header.push_back("# op_name    threshold    min    max");
  return header;
}

std::string formatNumber(double value) {
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", value);
  return text;
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
std::string csvField(const std::string &text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos)
    return text;
  std::string quoted = "\"";
  for (char c : text)
    quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

llvm::Error writeTextFile(const std::string &path, const std::string &text) {
  if (Result<void> written = writeFileAtomically(path, text); !written)
    return llvm::createStringError(written.error());
  return llvm::Error::success();
}

} // namespace

std::string winCounts(const std::vector<quant::ThresholdChoice> &choices) {
  std::string counts;
  for (quant::SearchCandidate candidate : quant::kSearchCandidates) {
    auto won = std::count_if(choices.begin(), choices.end(),
                             [&](const quant::ThresholdChoice &c) { return c.chosen == candidate; });
    counts += (counts.empty() ? "" : ", ") + std::string(quant::searchCandidateName(candidate)) + " " +
              std::to_string(won);
  }
  return counts;
}

quant::CalibrationTable makeCalibrationTable(const quant::ActivationStatistics &stats,
                                             quant::CalibrationMethod method, size_t numSamples) {
  quant::CalibrationTable table;
  table.header =
      tableHeader(stats.numBins(), numSamples, 0, std::string(quant::calibrationMethodName(method)), {});
  table.int8 = stats.thresholds(method, 8);
  table.int4 = stats.thresholds(method, 4);
  return table;
}

quant::CalibrationTable makeSearchThresholdTable(const quant::ActivationStatistics &stats,
                                                 const std::vector<quant::ThresholdChoice> &choices,
                                                 quant::SearchMetric metric, size_t numSamples) {
  quant::CalibrationTable table;
  for (const quant::ThresholdChoice &choice : choices) {
    const quant::TensorStatistics &s = *stats.find(choice.name);
    table.int8.push_back({choice.name, choice.threshold, s.min(), s.max()});
    double int4 = quant::computeThreshold(s, quant::searchCandidateMethod(choice.chosen), 4);
    table.int4.push_back({choice.name, int4, s.min(), s.max()});
  }
  std::string name(quant::searchMetricName(metric));
  table.header = tableHeader(
      stats.numBins(), numSamples, numSamples, "search_threshold " + name,
      {"# search_threshold: tensors won by each candidate (" + name + "): " + winCounts(choices)});
  return table;
}

// TPU-MLIR names the extra files of a calibration by appending to the table's name; so do we.
std::string searchReportPath(const std::string &table) { return table + "_search_threshold.csv"; }
std::string debugStatsPath(const std::string &table) { return table + "_stats.csv"; }
std::string debugHistogramsPath(const std::string &table) { return table + "_histograms.npz"; }

llvm::Error writeSearchReport(const std::string &path, const std::vector<quant::ThresholdChoice> &choices,
                              quant::SearchMetric metric) {
  std::ostringstream out;
  out << "# search_threshold by " << quant::searchMetricName(metric)
      << ": per tensor every threshold measured (the kl tune grid from kl towards max, each distinct "
         "point once, then max, percentile9999, octav); role: 'tune' marks the grid point the tune kept "
         "(least "
         "squared error), 'finalist' the other candidates compared by the metric, 'chosen' the winner\n";
  out << "tensor,candidate,threshold,cos,snr_db,role\n";
  for (const quant::ThresholdChoice &choice : choices) {
    const quant::CandidateScore &tuned = choice.finalists.back(); // kl_tune is the last in kSearchCandidates
    bool tuneSeen = false;
    double previousGrid = -1;
    for (const quant::CandidateScore &m : choice.measured) {
      bool isGrid = m.label == "kl" || m.label.rfind("kl_tune_", 0) == 0;
      if (isGrid && m.threshold == previousGrid)
        continue; // kl at absMax: every grid point is the same threshold, listed once
      if (isGrid)
        previousGrid = m.threshold;
      std::string role;
      if (isGrid && !tuneSeen && m.threshold == tuned.threshold) {
        tuneSeen = true;
        role = choice.chosen == quant::SearchCandidate::KlTune ? "chosen" : "tune";
      } else if (!isGrid) {
        bool chosen = m.label == quant::searchCandidateName(choice.chosen);
        role = chosen ? "chosen" : "finalist";
      }
      out << csvField(choice.name) << "," << m.label << "," << formatNumber(m.threshold) << ","
          << formatNumber(m.cosine) << "," << formatNumber(m.snrDb) << "," << role << "\n";
    }
  }
  return writeTextFile(path, out.str());
}

llvm::Error writeDebugStatistics(const std::string &statsPath, const std::string &histogramsPath,
                                 const quant::ActivationStatistics &stats) {
  constexpr quant::CalibrationMethod kMethods[] = {
      quant::CalibrationMethod::KL,        quant::CalibrationMethod::MSE,
      quant::CalibrationMethod::Max,       quant::CalibrationMethod::Percentile9999,
      quant::CalibrationMethod::AciqGauss, quant::CalibrationMethod::AciqLaplace};
  std::ostringstream out;
  out << "tensor,count,zeros,non_finite,min,max,abs_max,mean,std,hist_width";
  for (quant::CalibrationMethod method : kMethods)
    out << "," << quant::calibrationMethodName(method);
  out << "\n";
  NpzFile histograms;
  for (const std::string &name : stats.names()) {
    const quant::TensorStatistics &s = *stats.find(name);
    double width = 0;
    std::vector<double> histogram = s.tpuMlirHistogram(width);
    out << csvField(name) << "," << s.count() << "," << s.zeroCount() << "," << s.nonFiniteCount() << ","
        << formatNumber(s.min()) << "," << formatNumber(s.max()) << "," << formatNumber(s.absMax()) << ","
        << formatNumber(s.mean()) << "," << formatNumber(s.stddev()) << "," << formatNumber(width);
    for (quant::CalibrationMethod method : kMethods)
      out << "," << formatNumber(quant::computeThreshold(s, method, 8));
    out << "\n";
    histograms.set(name, Tensor::fromValues<double>({static_cast<int64_t>(histogram.size())}, histogram));
  }
  if (auto err = writeTextFile(statsPath, out.str()))
    return err;
  try {
    histograms.write(histogramsPath);
  } catch (const std::exception &e) {
    return llvm::createStringError(histogramsPath + ": " + e.what());
  }
  return llvm::Error::success();
}

} // namespace tpuc::driver
