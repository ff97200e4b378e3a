//===- CalibrateCommand.cpp - calibrate (TPU-MLIR's run_calibration) ------===//
//
// Runs the float reference interpreter over a data set and folds every tensor of every sample into
// streaming statistics (quant::ActivationStatistics) the moment the interpreter produces it: no
// activation outlives its op, so memory is bounded by the model (weights, the live tensors of one run
// per worker, a fixed-size histogram per tensor), never by the number of samples. Samples are spread over
// worker threads, each with its own interpreter and statistics, merged at the end; the thresholds of
// kl / mse / max / percentile9999 do not depend on that split (see Calibration.h), so the table is the
// same for any thread count. With --search search_qtable the mixed-precision search runs afterwards
// (SearchQtable.cpp).
//
//===----------------------------------------------------------------------===//

#include "CalibrateCommand.h"
#include "Commands.h"
#include "TestInputs.h"
#include "TopModule.h"

#include "tpuc/Preprocess/Preprocess.h"
#include "tpuc/Quant/Calibration.h"
#include "tpuc/Quant/Tables.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Simulator/ThreadPool.h"

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

namespace tpuc::cli {
namespace fs = std::filesystem;

namespace {

std::string trim(const std::string &text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos)
    return "";
  size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

bool isSampleFile(const std::string &path) {
  return preprocess::isImageFile(path) || preprocess::isTensorFile(path);
}

/// The samples of --dataset: every image, .npy or .npz below the directory (recursively, hidden entries
/// skipped), sorted by path so that --input_num picks the same files on every machine.
std::optional<std::vector<CalibrationSample>> datasetSamples(const std::string &dir, std::string &error) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    error = dir + ": not a directory";
    return std::nullopt;
  }
  std::vector<std::string> files;
  auto options = fs::directory_options::skip_permission_denied;
  for (auto it = fs::recursive_directory_iterator(dir, options, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!name.empty() && name.front() == '.') {
      if (it->is_directory(ec))
        it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && isSampleFile(name))
      files.push_back(it->path().string());
  }
  if (ec) {
    error = dir + ": " + ec.message();
    return std::nullopt;
  }
  std::sort(files.begin(), files.end());
  std::vector<CalibrationSample> samples;
  for (std::string &file : files)
    samples.push_back({{std::move(file)}, ""});
  return samples;
}

/// The samples of --data_list: one sample a line, the files of a multi-input sample separated by commas
/// or spaces; blank lines and '#' comments are skipped. A relative path that does not exist from the
/// current directory is looked up beside the list.
std::optional<std::vector<CalibrationSample>> listSamples(const std::string &list, std::string &error) {
  std::ifstream in(list);
  if (!in) {
    error = list + ": cannot read the data list";
    return std::nullopt;
  }
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

std::string sampleName(const CalibrationSample &sample) {
  std::string name;
  for (const std::string &file : sample.files)
    name += (name.empty() ? "" : ",") + file;
  return name;
}

/// One thread's share of the work: its own interpreter (interpreters are not thread-safe) and
/// statistics.
struct Worker {
  std::unique_ptr<sim::Interpreter> interpreter;
  quant::ActivationStatistics stats;
  explicit Worker(mlir::ModuleOp module, int64_t bins)
      : interpreter(std::make_unique<sim::Interpreter>(module)), stats(bins) {}
};

} // namespace

std::optional<std::vector<CalibrationSample>> collectCalibrationSamples(const CalibrateOptions &o,
                                                                        std::string &error) {
  auto samples = o.dataList.empty() ? datasetSamples(o.dataset, error) : listSamples(o.dataList, error);
  if (!samples)
    return std::nullopt;
  if (samples->empty()) {
    error = (o.dataList.empty() ? o.dataset : o.dataList) +
            ": no calibration samples (images .jpg/.png/.bmp/..., .npy or .npz)";
    return std::nullopt;
  }
  if (o.inputNum > 0 && static_cast<size_t>(o.inputNum) < samples->size())
    samples->resize(static_cast<size_t>(o.inputNum));
  return samples;
}

std::optional<quant::ActivationStatistics>
collectActivationStatistics(mlir::ModuleOp module, const std::vector<CalibrationSample> &samples,
                            const CalibrationRunConfig &config, ProgressReporter &progress, std::string &error) {
  unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  unsigned threads = config.threads > 0 ? static_cast<unsigned>(config.threads) : hardware;
  bool sampleParallel = config.parallel == "samples";
  unsigned workersWanted = sampleParallel ? std::min<unsigned>(threads, samples.size()) : 1;
  // Sample-parallel: every worker runs its kernels on its own thread (a shared pool would serialize the
  // workers that do not own it); kernel-parallel: one worker, the kernels use all threads.
  unsigned kernelThreads = sampleParallel ? 1 : threads;

  std::vector<std::unique_ptr<Worker>> workers;
  for (unsigned i = 0; i < std::max(1u, workersWanted); ++i)
    workers.push_back(std::make_unique<Worker>(module, config.histogramBins));
  sim::Interpreter &first = *workers.front()->interpreter;
  std::vector<preprocess::PreprocessConfig> inputs = preprocessConfigs(module, first);
  size_t numInputs = inputs.size();
  for (const CalibrationSample &sample : samples) {
    bool oneNpz = sample.files.size() == 1 && sample.files.front().size() > 4 &&
                  sample.files.front().compare(sample.files.front().size() - 4, 4, ".npz") == 0;
    if (sample.files.size() != numInputs && !oneNpz) {
      error = (sample.origin.empty() ? sampleName(sample) : sample.origin) + ": the sample has " +
              std::to_string(sample.files.size()) + " file(s) but the model has " + std::to_string(numInputs) +
              " input(s) (give one file per input, or one .npz holding all of them)";
      return std::nullopt;
    }
  }
  std::atomic<size_t> next{0}, done{0};
  std::atomic<bool> stop{false};
  std::mutex errorMutex;
  size_t errorIndex = samples.size();
  auto fail = [&](size_t index, std::string message) {
    std::lock_guard<std::mutex> lock(errorMutex);
    if (index < errorIndex) { // the earliest failing sample in list order among those that ran
      errorIndex = index;
      error = std::move(message);
    }
    stop = true;
  };
  auto work = [&](Worker &worker) {
    sim::RunOptions options;
    options.onTensor = [&](llvm::StringRef name, llvm::ArrayRef<int64_t>, llvm::ArrayRef<float> data) {
      worker.stats.add(name.str(), std::span<const float>(data.data(), data.size()));
    };
    while (!stop) {
      size_t index = next++;
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
        if (auto err = worker.interpreter->setInput(input.inputName, tensors.at(input.inputName))) {
          fail(index, sampleName(sample) + ": " + llvm::toString(std::move(err)));
          return;
        }
      if (auto err = worker.interpreter->run(options)) {
        fail(index, sampleName(sample) + ": " + llvm::toString(std::move(err)));
        return;
      }
      size_t finished = ++done;
      progress.report("calibrate", 0.95 * double(finished) / double(samples.size()),
                      "sample " + std::to_string(finished) + "/" + std::to_string(samples.size()));
    }
  };
  // The process-wide kernel pool is sized once, before any thread runs kernels.
  sim::ThreadPool::setGlobalThreads(kernelThreads);
  std::vector<std::thread> threadsRunning;
  for (size_t i = 1; i < workers.size(); ++i)
    threadsRunning.emplace_back(work, std::ref(*workers[i]));
  work(*workers.front());
  for (std::thread &t : threadsRunning)
    t.join();
  if (errorIndex < samples.size())
    return std::nullopt;
  quant::ActivationStatistics total(config.histogramBins);
  for (const auto &worker : workers)
    total.merge(worker->stats);
  return total;
}

quant::CalibrationTable makeCalibrationTable(const quant::ActivationStatistics &stats, quant::CalibrationMethod method,
                                             size_t numSamples) {
  quant::CalibrationTable table;
  std::time_t now = std::time(nullptr);
  char stamp[64];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", std::gmtime(&now));
  // TPU-MLIR's header lines, its spelling of "generated" included: tools that sniff them keep working.
  table.header = {std::string("# genetated time: ") + stamp,
                  "# histogram number: " + std::to_string(stats.numBins()),
                  "# sample number: " + std::to_string(numSamples),
                  "# tune number: 0",
                  "# cali method: " + std::string(quant::calibrationMethodName(method)) + " (tpuc)",
                  "###",
                  "# op_name    threshold    min    max"};
  table.int8 = stats.thresholds(method, 8);
  table.int4 = stats.thresholds(method, 4);
  return table;
}

int runCalibrate(const CalibrateOptions &o) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  if (o.search == "search_threshold")
    return notImplemented("calibrate --search search_threshold");
  ProgressReporter progress = makeProgressReporter(o.progress);
  progress.report("calibrate", 0.0, "reading " + o.mlirFile);
  std::string error;
  auto samples = collectCalibrationSamples(o, error);
  if (!samples) {
    std::cerr << "tpuc calibrate: " << error << std::endl;
    return kExitUsage;
  }
  mlir::MLIRContext context;
  auto module = loadTopModule(context, o.mlirFile, error);
  if (!module) {
    std::cerr << "tpuc calibrate: " << error << std::endl;
    return kExitUsage;
  }
  auto method = *quant::parseCalibrationMethod(o.caliMethod);
  CalibrationRunConfig config{o.histogramBinNum, o.threads, o.parallel};
  auto stats = collectActivationStatistics(*module, *samples, config, progress, error);
  if (!stats) {
    std::cerr << "tpuc calibrate: " << error << std::endl;
    return kExitUsage;
  }
  progress.report("calibrate", 0.95, "computing " + o.caliMethod + " thresholds");
  quant::CalibrationTable table = makeCalibrationTable(*stats, method, samples->size());
  try {
    quant::writeCalibrationTable(o.calibrationTable, table);
  } catch (const quant::TableError &e) {
    std::cerr << "tpuc calibrate: " << e.what() << std::endl;
    return kExitUsage;
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<std::string> artifacts{o.calibrationTable};
  progress.report("calibrate", 1.0, "wrote " + o.calibrationTable, artifacts);
  std::cout << "tpuc calibrate: " << table.int8.size() << " tensors over " << samples->size() << " sample(s), "
            << o.caliMethod << ", " << std::fixed << std::setprecision(2) << seconds << " s; table written to " << o.calibrationTable
            << std::endl;
  if (o.search == "search_qtable")
    return runSearchQtable(o, *module, table, *samples, progress);
  return kExitOk;
}

} // namespace tpuc::cli
