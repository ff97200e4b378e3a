//===- Driver.h - The engine's jobs as library calls (TpucDriver) ---------===//
//
// What `tpuc deploy` does, callable from unit tests and (later) the studio without a child process: a
// request from Requests.h in, a report (the result record, exit code and one-line messages) out. A Sink
// receives progress and the text the job prints for humans, and may cancel between stages.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_DRIVER_H
#define TPUC_DRIVER_DRIVER_H

#include "tpuc/Driver/Manifest.h"
#include "tpuc/Driver/Requests.h"
#include "tpuc/Driver/Results.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tpuc::driver {

/// One progress report (the fields of ProgressReporter::report).
struct ProgressEvent {
  std::string stage;
  double fraction = 0.0;
  std::string message;
  std::vector<std::string> artifacts;
};

/// Where a job reports to. Every member may be empty.
struct Sink {
  /// Progress between and within stages.
  std::function<void(const ProgressEvent &)> progress;
  /// Text for humans (tpuc's stdout); `flush` where tpuc flushes, so interleaving with stderr stays as it
  /// was.
  std::function<void(std::string_view text, bool flush)> print;
  /// Polled between stages; true stops the job with a "cancelled" error.
  std::function<bool()> cancelled;

  void report(std::string_view stage, double fraction, std::string_view message,
              const std::vector<std::string> &artifacts = {}) const {
    if (progress)
      progress({std::string(stage), fraction, std::string(message), artifacts});
  }
  void write(std::string_view text, bool flush = false) const {
    if (print)
      print(text, flush);
  }
  bool isCancelled() const { return cancelled && cancelled(); }
};

/// The outcome of a deploy that ran to its end (passed or failed).
struct DeployReport {
  /// The result record (status, exit code, message, artifacts, outputs, first failing); written to
  /// deployResultPath(options) when the deploy writes files.
  DeployResult record;
  /// The exit code tpuc returns (the record's, or kExitUsage when the record itself cannot be written).
  int exitCode = kExitOk;
  /// One-line errors in the order they happened (tpuc prints each as "tpuc deploy: <line>").
  std::vector<std::string> messages;
  /// What the deploy read, hashed: its run manifest's inputs (deployManifestPath, written with the record).
  std::vector<ManifestInput> inputs;
};

/// One calibration sample: one file per model input, or one .npz holding every input.
struct CalibrationSample {
  std::vector<std::string> files;
  /// "list.txt:12" for a data list line (error messages), "" for a --dataset file.
  std::string origin;
  bool operator==(const CalibrationSample &) const = default;
};

/// The outcome of a calibration that ran to its end (the table written, or a one-line error).
struct CalibrateReport {
  /// kExitOk; kExitUsage on unreadable input (samples, module, an unwritable table); with --search
  /// search_qtable the search's code (kExitFailed when --expected_cos is not reached).
  int exitCode = kExitOk;
  /// Notes and one-line errors in the order they happened (tpuc prints each as "tpuc calibrate: <line>").
  std::vector<std::string> messages;
  size_t numSamples = 0;
  /// Tensors in the table written.
  size_t numTensors = 0;
  /// The files written: the table first.
  std::vector<std::string> artifacts;
  /// "kl", or "search_threshold by cos (won: ...)": how the thresholds were chosen.
  std::string summary;
  double seconds = 0.0;
  /// With --report: the sample count after which every threshold stays within 1 % of its final value,
  /// and whether that leaves a quarter of the samples to confirm it.
  size_t stableAfter = 0;
  bool enoughData = false;
};

/// Calibrates as run_calibration does: statistics streamed per sample over worker threads (memory
/// bounded by the model, not the sample count), thresholds by --cali_method or --search
/// search_threshold, the table (and --debug files) written; with --search search_qtable the
/// mixed-precision search follows. Progress per sample; the sink may cancel before any sample, which is
/// the only error (nothing is written then).
llvm::Expected<CalibrateReport> calibrate(const CalibrateOptions &options, const Sink &sink = {});

/// Lowers, builds the model file, simulates and compares as `options` say. An error only when the sink
/// cancelled ("deploy cancelled before <stage>"); no result record is written then.
llvm::Expected<DeployReport> deploy(const DeployOptions &options, const Sink &sink = {});

} // namespace tpuc::driver

#endif // TPUC_DRIVER_DRIVER_H
