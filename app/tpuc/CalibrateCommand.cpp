//===- CalibrateCommand.cpp - tpuc calibrate: the adapter of driver::calibrate ===//
//
// The calibration itself is TpucDriver's (tpuc/Driver/Driver.h, the pieces in tpuc/Driver/Calibration.h);
// here its progress goes to --progress, its text to stdout and its notes and one-line errors to stderr,
// and the report becomes the exit code.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tpuc/Driver/Driver.h"
#include "tpuc/Driver/Results.h"

#include <algorithm>
#include <iostream>

namespace tpuc::cli {

namespace {

/// The last line of a child's output (its error), without the trailing newline.
std::string lastLine(const std::string &output) {
  std::string text = output;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  size_t start = text.find_last_of('\n');
  return start == std::string::npos ? text : text.substr(start + 1);
}

/// --report's PNG figures: tpuc stays Qt-free, so tpuc-view (the studio's charts, offscreen) draws them when
/// it is installed beside tpuc. Without it, or when it fails, the JSON report stands alone: one line, not a
/// failure of the calibration. Returns the files to report as artifacts.
std::vector<std::string> drawReportFigures(const CalibrateOptions &o, ProgressReporter &progress) {
  const std::filesystem::path viewer = siblingProgram("tpuc-view");
  std::error_code ec;
  if (!std::filesystem::exists(viewer, ec)) {
    std::cerr
        << "tpuc calibrate: no PNG figures in " << o.report << ": " << viewer.string()
        << " is missing (it is built with the studio, TPUC_BUILD_STUDIO=ON); the JSON report is complete"
        << std::endl;
    return {};
  }
  progress.report("calibrate", 1.0, "drawing the report's figures");
  ChildRun run = runChild(viewer.string(), {"calibration", "--report", o.report, "--max_tensors",
                                            std::to_string(o.reportFigures)});
  if (run.exitCode != 0) {
    std::cerr << "tpuc calibrate: no PNG figures in " << o.report << ": tpuc-view "
              << (run.exitCode > 0 ? "failed (exit code " + std::to_string(run.exitCode) + ")" : run.error)
              << ": " << lastLine(run.output) << "; the JSON report is complete" << std::endl;
    return {};
  }
  // tpuc-view's summary line (Qt's own notes on the offscreen platform are left out).
  const std::string prefix = "tpuc view: ";
  for (size_t at = run.output.find(prefix); at != std::string::npos; at = run.output.find(prefix, at + 1))
    if (at == 0 || run.output[at - 1] == '\n')
      std::cout << "tpuc calibrate: "
                << run.output.substr(at + prefix.size(), run.output.find('\n', at) - at - prefix.size())
                << std::endl;
  std::filesystem::path dir(o.report);
  std::vector<std::string> files{(dir / "overview.png").string(), (dir / "index.html").string()};
  progress.report("calibrate", 1.0, "wrote the report's figures", files);
  return files;
}

} // namespace

int runCalibrate(const CalibrateOptions &o) {
  ProgressReporter progress = makeProgressReporter(o.progress);
  driver::Sink sink = consoleSink(&progress);
  auto report = driver::calibrate(o, sink);
  if (!report) { // cancelled: nothing was written
    std::cerr << "tpuc calibrate: " << llvm::toString(report.takeError()) << std::endl;
    return kExitFailed;
  }
  for (const std::string &message : report->messages)
    std::cerr << "tpuc calibrate: " << message << std::endl;
  const bool reportWritten =
      std::any_of(report->artifacts.begin(), report->artifacts.end(), [](const std::string &a) {
        return std::filesystem::path(a).filename() == "convergence.json";
      });
  if (reportWritten && o.reportFigures > 0)
    for (std::string &figure : drawReportFigures(o, progress))
      report->artifacts.push_back(std::move(figure));
  // The record the studio reads (calibrateResultPath), beside the table, whatever the outcome.
  driver::CalibrateResult record;
  record.exitCode = report->exitCode;
  record.status = driver::resultStatus(report->exitCode);
  if (report->exitCode != kExitOk && !report->messages.empty())
    record.message = report->messages.back();
  record.mlir = o.mlirFile;
  record.table = o.calibrationTable;
  record.artifacts = report->artifacts;
  record.samples = static_cast<int64_t>(report->numSamples);
  record.tensors = static_cast<int64_t>(report->numTensors);
  record.summary = report->summary;
  record.seconds = report->seconds;
  record.stableAfter = static_cast<int64_t>(report->stableAfter);
  record.enoughData = report->enoughData;
  return writeResultRecord("calibrate", driver::calibrateResultPath(o), driver::toJson(record),
                           record.exitCode);
}

} // namespace tpuc::cli
