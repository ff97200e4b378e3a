//===- SweepCommand.cpp - tpuc sweep: one cell, and the sweep around it -----===//
//
// `tpuc sweep MANIFEST --cell K` runs one (model, precision, chip): `tpuc transform`, `calibrate` (INT8),
// `deploy`, `run` and `compare` as child processes (argv rendered from their requests by the flag
// bindings, no shell), timing each and taking its peak RSS, and writes the cell's record from the
// children's result records. Without --cell, the executor (SweepExecutors.cpp) launches the unfinished
// cells as such processes, retries those that ended in error, and the report is built from the records.
//
//===----------------------------------------------------------------------===//

#include "SweepExecutors.h"

#include "tpuc/Driver/AccuracyRecords.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace tpuc::cli {

namespace fs = std::filesystem;
using driver::SweepCell;
using driver::SweepCellRecord;
using driver::SweepManifest;
using driver::SweepModel;

namespace {

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return "";
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Runs the cell's stages in order and fills its record.
class CellRunner {
public:
  CellRunner(const SweepManifest &manifest, const SweepCell &cell, std::string outDir)
      : m_manifest(manifest), m_cell(cell), m_model(manifest.models[cell.model]), m_out(std::move(outDir)) {
    m_record.index = cell.index;
    m_record.model = m_model.name;
    m_record.precision = cell.precision;
    m_record.chip = cell.chip;
    m_record.tolerance = driver::cellTolerance(m_model, cell.precision);
    m_record.runDir = cellRunDir(manifest, cell);
    m_dir = m_out + "/" + m_record.runDir;
  }

  SweepCellRecord run();

private:
  /// Runs `tpuc <command> ...` for `request`; false (and the record's status) when it did not pass. A
  /// stage that exits 1 may still have written what the next needs (`keepGoing`).
  template <typename Request> bool stage(const char *name, const Request &request, bool *keepGoing = nullptr);
  void fail(const std::string &status, const std::string &stage, const std::string &message) {
    if (m_record.status.empty() || m_record.status == "passed") {
      m_record.status = status;
      m_record.stage = stage;
      m_record.message = message;
    }
  }
  std::string path(const std::string &file) const { return m_dir + "/" + file; }

  const SweepManifest &m_manifest;
  SweepCell m_cell;
  const SweepModel &m_model;
  std::string m_out, m_dir;
  SweepCellRecord m_record;
};

template <typename Request>
bool CellRunner::stage(const char *name, const Request &request, bool *keepGoing) {
  if (keepGoing)
    *keepGoing = false;
  driver::Argv argv = driver::commandLine(request);
  if (!argv) {
    fail("failed", name, argv.error);
    return false;
  }
  if (std::string error =
          [&] {
            if constexpr (std::is_same_v<Request, driver::TransformOptions>)
              return driver::validateTransformOptions(request);
            else if constexpr (std::is_same_v<Request, driver::CalibrateOptions>)
              return driver::validateCalibrateOptions(request);
            else if constexpr (std::is_same_v<Request, driver::DeployOptions>)
              return driver::validateDeployOptions(request);
            else if constexpr (std::is_same_v<Request, driver::RunOptions>)
              return driver::validateRunOptions(request);
            else
              return driver::validateCompareOptions(request);
          }();
      !error.empty()) {
    fail("failed", name, "tpuc " + std::string(name) + ": " + error);
    return false;
  }
  ChildRun child = runChild(selfProgram(), argv.args);
  std::ofstream(path(std::string(name) + ".log"), std::ios::binary) << child.output;
  m_record.stages.push_back({name, child.exitCode, child.seconds, child.peakRssKb});
  m_record.peakRssKb = std::max(m_record.peakRssKb, child.peakRssKb);
  if (std::string(name) != "run" && std::string(name) != "compare")
    m_record.compileSeconds += child.seconds;
  if (child.exitCode == kExitOk)
    return true;
  if (child.exitCode < 0) { // killed or not started: the infrastructure, retried
    fail("error", name, child.error.empty() ? lastOutputLine(child.output) : child.error);
    return false;
  }
  std::string message = lastOutputLine(child.output);
  fail("failed", name, message.empty() ? "exit code " + std::to_string(child.exitCode) : message);
  if (keepGoing)
    *keepGoing = child.exitCode == kExitFailed;
  return false;
}

SweepCellRecord CellRunner::run() {
  std::error_code ec;
  fs::remove_all(m_dir, ec);
  fs::create_directories(m_dir, ec);
  if (ec) {
    fail("error", "cell", m_dir + ": " + ec.message());
    return m_record;
  }
  const std::string &name = m_model.name;
  const std::string stem = name + "_" + m_cell.precision + "_" + m_cell.chip;

  driver::TransformOptions transform =
      driver::parseRequest<driver::TransformOptions>(m_model.transformArgs, false).request;
  transform.modelName = name;
  transform.mlir = path(name + ".mlir");
  transform.testResult = path(name + "_top_outputs.npz");
  if (!stage("transform", transform))
    return m_record;
  const std::string input = path(name + "_in_f32.npz");

  driver::DeployOptions deploy;
  // The sweep's defaults: every layer compared and the first divergent one looked for; the manifest's
  // "deploy" object may turn them off.
  deploy.compareAll = true;
  deploy.findDivergent = true;
  {
    ArgParser parser("tpuc deploy", "");
    driver::addDeployOptions(parser, deploy);
    parser.parse(m_model.deployArgs, false); // checked when the manifest was read
  }
  if (m_cell.precision == "INT8") {
    driver::CalibrateOptions calibrate =
        driver::parseRequest<driver::CalibrateOptions>(m_model.calibrateArgs, false).request;
    calibrate.mlirFile = transform.mlir;
    calibrate.calibrationTable = path(name + "_cali_table");
    if (!stage("calibrate", calibrate))
      return m_record;
    deploy.calibrationTable = calibrate.calibrationTable;
  }
  deploy.mlir = transform.mlir;
  deploy.quantize = m_cell.precision;
  deploy.chip = m_cell.chip;
  deploy.testInput = {input};
  // --find_divergent re-runs the Top reference itself.
  if (!deploy.findDivergent)
    deploy.testReference = transform.testResult;
  deploy.tolerance = m_record.tolerance;
  deploy.model = path(stem + ".tpum");
  bool modelWritten = false;
  stage("deploy", deploy, &modelWritten);
  modelWritten = modelWritten && fs::exists(deploy.model, ec);
  if (m_record.status.empty() || modelWritten) {
    auto divergent = driver::parseFirstDivergent(readText(driver::firstDivergentPath(deploy)));
    if (divergent && !divergent.result.candidates.empty())
      m_record.firstDivergent = divergent.result.candidates.front().name;
    if (fs::exists(driver::deployArtifactStem(deploy) + "_compare.json", ec))
      m_record.accuracy = m_record.runDir + "/" + stem + "_compare.json";
  }
  if (!m_record.status.empty() && !modelWritten)
    return m_record;

  driver::RunOptions run;
  run.model = deploy.model;
  run.input = input;
  run.output = path(stem + "_out.npz");
  if (!stage("run", run))
    return m_record;
  if (auto result = driver::parseModelRunResult(readText(driver::runResultPath(run)))) {
    m_record.latencyMs = result.result.latencyMs;
    m_record.cycles = result.result.cycles;
  }

  driver::CompareOptions compare;
  compare.targetFile = run.output;
  compare.referenceFile = transform.testResult;
  compare.tolerance = m_record.tolerance;
  compare.resultJson = path(stem + "_outputs.json");
  stage("compare", compare);
  if (auto result = driver::parseCompareResult(readText(compare.resultJson)))
    m_record.outputs = result.result.tensors;
  if (m_record.status.empty())
    m_record.status = "passed";
  return m_record;
}

} // namespace

std::string cellRunDir(const SweepManifest &manifest, const SweepCell &cell) {
  return "cells/" + std::to_string(cell.index) + "-" + manifest.models[cell.model].name + "-" +
         cell.precision + "-" + cell.chip;
}

bool writeCellRecord(const std::string &outDir, const SweepCellRecord &record) {
  const std::string file = driver::cellRecordPath(outDir, record.index);
  const std::string temporary = file + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!(out << driver::toJson(record)) || !out.flush())
      return false;
  }
  std::error_code ec;
  fs::rename(temporary, file, ec); // a reader never sees half a record
  return !ec;
}

driver::ReadResult<SweepCellRecord> readCellRecord(const std::string &outDir, int64_t index) {
  const std::string file = driver::cellRecordPath(outDir, index);
  std::string text = readText(file);
  if (text.empty())
    return {{}, file + ": no record"};
  auto record = driver::parseSweepCellRecord(text);
  if (!record)
    record.error = file + ": " + record.error;
  return record;
}

int runCell(const SweepManifest &manifest, const SweepCell &cell, const std::string &outDir) {
  std::error_code ec;
  fs::create_directories(outDir + "/cells", ec);
  // Attempts count across launches of a cell that ended in error (a record left by the last one).
  int64_t attempts = 1;
  if (auto previous = readCellRecord(outDir, cell.index); previous && !driver::isFinished(previous.result))
    attempts = previous.result.attempts + 1;
  SweepCellRecord record = CellRunner(manifest, cell, outDir).run();
  record.attempts = attempts;
  if (!writeCellRecord(outDir, record)) {
    std::cerr << "tpuc sweep: " << driver::cellRecordPath(outDir, cell.index) << ": cannot write the record"
              << std::endl;
    return kExitUsage;
  }
  std::cout << "tpuc sweep: cell " << cell.index << " " << driver::cellName(manifest, cell) << ": "
            << record.status
            << (record.stage.empty() ? "" : " (" + record.stage + ": " + record.message + ")") << std::endl;
  return record.status == "passed" ? kExitOk : kExitFailed;
}

int runSweep(const SweepOptions &o) {
  driver::ReadResult<SweepManifest> manifest = driver::readSweepManifest(o.manifest);
  if (!manifest) {
    std::cerr << "tpuc sweep: " << manifest.error << std::endl;
    return kExitUsage;
  }
  std::vector<SweepCell> cells = driver::sweepCells(manifest.result);
  std::error_code ec;
  const std::string outDir = fs::absolute(driver::sweepOutDir(o), ec).lexically_normal().string();
  if (o.cell >= 0) {
    if (o.cell >= static_cast<int64_t>(cells.size())) {
      std::cerr << "tpuc sweep: '--cell' " << o.cell << " is not a cell of " << o.manifest << " (it has "
                << cells.size() << ": 0.." << cells.size() - 1 << ")" << std::endl;
      return kExitUsage;
    }
    return runCell(manifest.result, cells[o.cell], outDir);
  }

  driver::SweepReport previous;
  if (!o.compare.empty()) {
    std::string file = o.compare;
    if (fs::is_directory(file, ec))
      file += "/report.json";
    auto read = driver::readSweepReport(file);
    if (!read) {
      std::cerr << "tpuc sweep: --compare " << read.error << std::endl;
      return kExitUsage;
    }
    previous = std::move(read.result);
  }
  fs::create_directories(outDir + "/cells", ec);
  if (ec) {
    std::cerr << "tpuc sweep: " << outDir << ": " << ec.message() << std::endl;
    return kExitUsage;
  }

  const auto start = std::chrono::steady_clock::now();
  // Resumable: a cell with a finished record (passed or failed) is not run again.
  std::vector<int64_t> pending;
  for (const SweepCell &cell : cells)
    if (auto record = readCellRecord(outDir, cell.index); !record || !driver::isFinished(record.result))
      pending.push_back(cell.index);
  std::cout << "tpuc sweep: " << cells.size() << " cells (" << manifest.result.models.size() << " models x "
            << manifest.result.precisions.size() << " precisions x " << manifest.result.chips.size()
            << " chips), " << cells.size() - pending.size() << " already finished, " << pending.size()
            << " to run on the " << o.executor << " executor" << std::endl;

  std::unique_ptr<SweepExecutor> executor = makeExecutor(o, manifest.result, outDir);
  for (int64_t attempt = 0; !pending.empty() && attempt <= o.retries; ++attempt) {
    if (attempt > 0)
      std::cout << "tpuc sweep: retrying " << pending.size() << " cell(s) that ended in error" << std::endl;
    std::string error = executor->launch(pending);
    if (!error.empty()) {
      std::cerr << "tpuc sweep: " << error << std::endl;
      return kExitUsage;
    }
    std::vector<int64_t> again;
    for (int64_t index : pending)
      if (auto record = readCellRecord(outDir, index); !record || !driver::isFinished(record.result))
        again.push_back(index);
    pending = std::move(again);
  }

  driver::SweepReport report;
  report.name = manifest.result.name;
  report.manifest = manifest.result.path;
  report.executor = o.executor;
  report.accuracyThreshold = o.accuracyThreshold;
  report.latencyThreshold = o.latencyThreshold;
  for (const SweepCell &cell : cells) {
    auto record = readCellRecord(outDir, cell.index);
    if (record) {
      report.cells.push_back(std::move(record.result));
      continue;
    }
    // The cell left no record (killed, out of memory, the node lost): an error row, from what is known.
    SweepCellRecord missing;
    missing.index = cell.index;
    missing.model = manifest.result.models[cell.model].name;
    missing.precision = cell.precision;
    missing.chip = cell.chip;
    missing.status = "error";
    missing.stage = "cell";
    missing.message = executor->whyNoRecord(cell.index);
    missing.tolerance = driver::cellTolerance(manifest.result.models[cell.model], cell.precision);
    missing.runDir = cellRunDir(manifest.result, cell);
    missing.attempts = 1 + o.retries;
    report.cells.push_back(std::move(missing));
  }
  report.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  driver::countSweep(report);
  if (!o.compare.empty()) {
    driver::compareSweeps(report, previous);
    report.compared = fs::absolute(o.compare, ec).lexically_normal().string();
  }

  for (const auto &[file, text] : {std::pair{outDir + "/report.json", driver::toJson(report)},
                                   std::pair{outDir + "/report.html", driver::sweepReportHtml(report)}}) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    if (!(out << text) || !out.flush()) {
      std::cerr << "tpuc sweep: " << file << ": cannot write" << std::endl;
      return kExitUsage;
    }
  }
  for (const SweepCellRecord &c : report.cells) {
    char line[512];
    std::snprintf(line, sizeof(line), "%4lld  %-28s %-6s %-8s %-7s cos %-8.5f %9.3f ms %7.1f s %7.1f MiB",
                  static_cast<long long>(c.index), c.model.c_str(), c.precision.c_str(), c.chip.c_str(),
                  c.status.c_str(), driver::minOutputCosine(c), c.latencyMs, c.compileSeconds,
                  c.peakRssKb / 1024.0);
    std::cout << line << (c.accuracyRegression ? "  ACCURACY REGRESSION" : "")
              << (c.latencyRegression ? "  LATENCY REGRESSION" : "")
              << (c.stage.empty() ? "" : "  " + c.stage + ": " + c.message) << "\n";
  }
  std::cout << "tpuc sweep: " << report.passed << " passed, " << report.failed << " failed, " << report.errors
            << " errors";
  if (!o.compare.empty())
    std::cout << ", " << report.regressions << " regression(s) against " << o.compare;
  std::cout << " in " << report.wallSeconds << " s; report: " << outDir << "/report.html" << std::endl;
  return report.passed == static_cast<int64_t>(report.cells.size()) && report.regressions == 0 ? kExitOk
                                                                                               : kExitFailed;
}

} // namespace tpuc::cli
