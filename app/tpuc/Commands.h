//===- Commands.h - tpuc subcommands: entry points ------------------------===//
//
// Each subcommand's request struct, flag binding, validation and exit codes
// are the studio <-> engine contract in driver/ (tpuc/Driver/Requests.h);
// here is the run*() that does the work. The engine wiring lives only in
// run*(), so the studio and tests build requests without linking it.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_APP_TPUC_COMMANDS_H
#define TPUC_APP_TPUC_COMMANDS_H

#include "tpuc/Driver/Driver.h"
#include "tpuc/Driver/Requests.h"
#include "tpuc/Driver/Results.h"
#include "tpuc/Driver/Sweep.h"
#include "tpuc/Support/ArgParser.h"
#include "tpuc/Support/Progress.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tpuc {
struct NpzComparison;
}

namespace tpuc::cli {

// The requests and their bindings, under the names the subcommands have always used.
using driver::addCalibrateOptions;
using driver::addCompareOptions;
using driver::addDatasetOptions;
using driver::addDeployOptions;
using driver::addGraphOptions;
using driver::addLlmConvertOptions;
using driver::addLlmRunOptions;
using driver::addModelToolOptions;
using driver::addRunOptions;
using driver::addRunsOptions;
using driver::addSweepOptions;
using driver::addTransformOptions;
using driver::CalibrateOptions;
using driver::checkTolerance;
using driver::CompareOptions;
using driver::CompareResult;
using driver::DatasetOptions;
using driver::deployArtifactStem;
using driver::DeployOptions;
using driver::DeployResult;
using driver::deployResultPath;
using driver::GraphOptions;
using driver::kExitFailed;
using driver::kExitNotImplemented;
using driver::kExitOk;
using driver::kExitUsage;
using driver::LlmConvertOptions;
using driver::LlmRunOptions;
using driver::ModelToolOptions;
using driver::resultStatus;
using driver::RunOptions;
using driver::RunsOptions;
using driver::SweepOptions;
using driver::TensorResult;
using driver::toJson;
using driver::TransformOptions;
using driver::validateCalibrateOptions;
using driver::validateCompareOptions;
using driver::validateDatasetOptions;
using driver::validateDeployOptions;
using driver::validateGraphOptions;
using driver::validateLlmConvertOptions;
using driver::validateLlmRunOptions;
using driver::validateModelToolOptions;
using driver::validateRunOptions;
using driver::validateRunsOptions;
using driver::validateSweepOptions;
using driver::validateTransformOptions;

/// Prints "tpuc <sub>: not implemented yet in this build" to stderr and
/// returns kExitNotImplemented.
int notImplemented(std::string_view subcommand);
/// A reporter for a `--progress` value (already validated by the parser):
/// JSON lines on stdout, text on stderr.
ProgressReporter makeProgressReporter(const std::string &format);
/// Writes a job's result record (tpuc/Driver/Results.h) `json` to `path`. Returns `exitCode`, or when the
/// file cannot be written (one line on stderr, "tpuc <command>: <path>: ...") kExitUsage for a job that
/// passed.
int writeResultRecord(std::string_view command, const std::string &path, const std::string &json,
                      int exitCode);
/// A driver sink for the console: text to stdout (flushed where the driver asks), progress events to
/// `progress` when given.
driver::Sink consoleSink(ProgressReporter *progress = nullptr);

/// A program installed beside tpuc (tpuc-view, built with the studio): its path, whether or not it exists.
std::filesystem::path siblingProgram(std::string_view name);

/// How a child program ended and what it printed.
struct ChildRun {
  int exitCode = -1;  ///< -1 when it could not start or did not exit normally
  std::string output; ///< its stdout and stderr
  std::string error;  ///< why it could not start or how it ended otherwise ("killed by signal 9")
  double seconds = 0; ///< its wall time
  int64_t peakRssKb = 0; ///< its peak resident set size (getrusage's ru_maxrss of the child)
};
/// Runs `program` with `args` and waits for it, collecting its output (stdout and stderr in one pipe).
ChildRun runChild(const std::string &program, const std::vector<std::string> &args);
/// This tpuc's own path (/proc/self/exe): what the sweep runs its cells and stages with.
std::string selfProgram();
/// The last line of a child's output that is not blank: its one-line error.
std::string lastOutputLine(const std::string &output);

int runTransform(const TransformOptions &opts);
int runCalibrate(const CalibrateOptions &opts);
int runDeploy(const DeployOptions &opts);
int runRun(const RunOptions &opts);
int runCompare(const CompareOptions &opts);
int runLlmConvert(const LlmConvertOptions &opts);
int runLlmRun(const LlmRunOptions &opts);
int runModelTool(const ModelToolOptions &opts);
int runGraph(const GraphOptions &opts);
int runDataset(const DatasetOptions &opts);
int runRuns(const RunsOptions &opts);
int runSweep(const driver::SweepOptions &opts);

} // namespace tpuc::cli

#endif // TPUC_APP_TPUC_COMMANDS_H
