//===- Calibrate.cpp - driver::calibrate: run_calibration as a library call ===//
//
// The samples, one statistics pass (two with --search search_threshold), the table and its side files,
// then the mixed-precision search when asked; the run manifest beside the table. Errors become one line in
// the report and kExitUsage, as tpuc calibrate has always exited; a cancelled sink is the only Expected
// error.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Driver/Calibration.h"
#include "tpuc/Driver/Driver.h"
#include "tpuc/Driver/ManifestInputs.h"
#include "tpuc/Driver/SearchQtable.h"
#include "tpuc/Driver/TestInputs.h"
#include "tpuc/Driver/TopModule.h"

#include "mlir/IR/MLIRContext.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

namespace tpuc::driver {

namespace {

/// A report that ends with one error line; a cancellation becomes the Expected error.
llvm::Expected<CalibrateReport> failWith(CalibrateReport report, llvm::Error err) {
  std::string message;
  bool cancelled = false;
  llvm::handleAllErrors(
      std::move(err), [&](const CancelledError &e) { cancelled = true, message = e.message; },
      [&](const llvm::ErrorInfoBase &e) { message = e.message(); });
  if (cancelled)
    return llvm::createStringError("calibrate " + message);
  report.messages.push_back(message);
  report.exitCode = kExitUsage;
  return report;
}

} // namespace

llvm::Expected<CalibrateReport> calibrate(const CalibrateOptions &o, const Sink &sink) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  CalibrateReport report;
  sink.report("calibrate", 0.0, "reading " + o.mlirFile);
  mlir::MLIRContext context;
  auto loaded = cli::loadTopModule(context, o.mlirFile);
  if (!loaded)
    return failWith(std::move(report), loaded.takeError());
  mlir::OwningOpRef<mlir::ModuleOp> module = std::move(*loaded);
  // The inputs' names pair the files of a multi-input folder (one subfolder per input).
  auto samples = collectCalibrationSamples(o, cli::inputNames(*module));
  if (!samples)
    return failWith(std::move(report), samples.takeError());
  report.numSamples = samples->size();
  bool searchThreshold = o.search == "search_threshold";
  if (searchThreshold && o.caliMethod != "kl") // TPU-MLIR ignores it there too: a note, not an error.
    report.messages.push_back(
        "note: '--cali_method " + o.caliMethod +
        "' is not used by --search search_threshold, which compares kl_tune, octav, max "
        "and percentile9999 per tensor");
  CalibrationRunConfig config{o.histogramBinNum, o.threads, o.parallel};
  CalibrationRunner runner(*module, samples->size(), config);
  // search_threshold runs the samples twice: statistics first (the candidates need all of them), then the
  // fake-quantization errors of every candidate.
  double statsEnd = searchThreshold ? 0.5 : 0.95;
  // --report merges the samples' statistics in list order to follow the thresholds' convergence (of kl
  // for search_threshold, whose candidates start from it).
  quant::CalibrationMethod method =
      searchThreshold ? quant::CalibrationMethod::KL : *quant::parseCalibrationMethod(o.caliMethod);
  std::optional<quant::ActivationStatistics> stats;
  std::optional<Convergence> convergence;
  if (o.report.empty()) {
    auto collected = collectActivationStatistics(runner, *samples, o.histogramBinNum, sink, 0.0, statsEnd);
    if (!collected)
      return failWith(std::move(report), collected.takeError());
    stats = std::move(*collected);
  } else {
    auto collected =
        collectStatisticsWithConvergence(runner, *samples, o.histogramBinNum, method, sink, 0.0, statsEnd);
    if (!collected)
      return failWith(std::move(report), collected.takeError());
    stats = std::move(collected->statistics);
    convergence = std::move(collected->convergence);
  }
  quant::CalibrationTable table;
  report.artifacts = {o.calibrationTable};
  report.summary = o.caliMethod;
  if (searchThreshold) {
    auto metric = *quant::parseSearchMetric(o.benchmarkMethod);
    auto search = searchThresholds(runner, *stats, *samples, sink, statsEnd, 0.95);
    if (!search)
      return failWith(std::move(report), search.takeError());
    sink.report("calibrate", 0.95, "choosing thresholds by " + o.benchmarkMethod);
    std::vector<quant::ThresholdChoice> choices = search->choose(metric);
    table = makeSearchThresholdTable(*stats, choices, metric, samples->size());
    if (auto err = writeSearchReport(searchReportPath(o.calibrationTable), choices, metric))
      return failWith(std::move(report), std::move(err));
    report.artifacts.push_back(searchReportPath(o.calibrationTable));
    report.summary = "search_threshold by " + o.benchmarkMethod + " (won: " + winCounts(choices) +
                     "; per tensor in " + searchReportPath(o.calibrationTable) + ")";
  } else {
    sink.report("calibrate", 0.95, "computing " + o.caliMethod + " thresholds");
    table = makeCalibrationTable(*stats, method, samples->size());
  }
  if (convergence) {
    auto files = writeCalibrationReport(o.report, *stats, *convergence,
                                        searchThreshold ? "search_threshold" : o.caliMethod, samples->size());
    if (!files)
      return failWith(std::move(report), files.takeError());
    report.artifacts.insert(report.artifacts.end(), files->begin(), files->end());
    report.stableAfter = convergence->stableAfterAll();
    report.enoughData = convergence->enoughData();
  }
  if (o.debug) {
    if (auto err = writeDebugStatistics(debugStatsPath(o.calibrationTable),
                                        debugHistogramsPath(o.calibrationTable), *stats))
      return failWith(std::move(report), std::move(err));
    report.artifacts.push_back(debugStatsPath(o.calibrationTable));
    report.artifacts.push_back(debugHistogramsPath(o.calibrationTable));
  }
  try {
    quant::writeCalibrationTable(o.calibrationTable, table);
  } catch (const std::exception &e) {
    return failWith(std::move(report), llvm::createStringError(e.what()));
  }
  report.numTensors = table.int8.size();
  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  sink.report("calibrate", 1.0, "wrote " + o.calibrationTable, report.artifacts);
  // The run manifest beside the table (after the progress line, which lists what the user asked for): the
  // command, every flag, and what it read, hashed.
  RunManifest manifest;
  manifest.version = tpucVersion();
  manifest.command = std::string(CalibrateOptions::kCommand);
  manifest.argv = toArgv(o).args;
  manifest.flags = requestFlags(o);
  manifest.inputs = modelInputs(o.mlirFile, *module);
  std::string source = !o.subset.empty()
                           ? (o.dataset.empty() ? o.subset : o.dataset + " (subset " + o.subset + ")")
                       : o.dataList.empty() ? o.dataset
                                            : o.dataList;
  manifest.inputs.push_back(hashSampleSet("calibration_samples", source, *samples));
  if (o.search == "search_qtable")
    if (std::string profile = chipProfileFile(o.chip); !profile.empty())
      manifest.inputs.push_back(hashInput("chip_profile", profile));
  manifest.result = std::filesystem::path(calibrateResultPath(o)).filename().string();
  {
    std::ofstream out(calibrateManifestPath(o), std::ios::binary | std::ios::trunc);
    if (!(out << toJson(manifest)) || !out.flush())
      return failWith(std::move(report),
                      llvm::createStringError(calibrateManifestPath(o) + ": cannot write"));
  }
  report.artifacts.push_back(calibrateManifestPath(o));
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%.2f", report.seconds);
  sink.write("tpuc calibrate: " + std::to_string(report.numTensors) + " tensors over " +
                 std::to_string(report.numSamples) + " sample(s), " + report.summary + ", " + seconds +
                 " s; table written to " + o.calibrationTable + "\n",
             true);
  if (convergence)
    sink.write("tpuc calibrate: every " + std::string(quant::calibrationMethodName(method)) +
                   " threshold within 1 % of its final value after " + std::to_string(report.stableAfter) +
                   " of " + std::to_string(report.numSamples) +
                   " samples: " + (report.enoughData ? "enough data" : "add more samples") + "; report in " +
                   o.report + "\n",
               true);
  if (o.search != "search_qtable")
    return report;
  std::vector<std::vector<std::string>> files;
  for (const CalibrationSample &sample : *samples)
    files.push_back(sample.files);
  auto qtable = searchQtable(o, *module, table, files, sink);
  if (!qtable)
    return qtable.takeError();
  for (const std::string &message : qtable->messages)
    report.messages.push_back("search_qtable: " + message);
  report.exitCode = qtable->exitCode;
  if (!o.quantizeTable.empty() && qtable->exitCode != kExitUsage)
    report.artifacts.push_back(o.quantizeTable);
  if (!o.searchReport.empty() && qtable->exitCode != kExitUsage)
    report.artifacts.push_back(o.searchReport);
  return report;
}

} // namespace tpuc::driver
