//===- Results.h - Versioned result records of tpuc jobs ------------------===//
//
// What a job found, as JSON the studio reads instead of the text printed for
// humans: {"schema": "tpuc.result", "version": 1, "job": "compare",
// "status": "passed"|"failed"|"error", "exit_code": N, "message": "...",
// job-specific fields}. `tpuc compare --result_json FILE`, every
// `tpuc deploy` that writes files (<stem>_result.json, deployResultPath) and
// every `tpuc transform` (<mlir stem>_transform_result.json,
// transformResultPath), every `tpuc run` (<output stem>_run_result.json,
// runResultPath), every `tpuc calibrate` (<table>_result.json,
// calibrateResultPath) and every `tpuc llm-convert` that writes files
// (<out_dir>/llm_convert_result.json, llmConvertResultPath) write one. A reader
// rejects another schema or a newer version with a one-line error. Non-finite
// metrics are stored as "inf", "-inf" or null (NaN).
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_RESULTS_H
#define TPUC_DRIVER_RESULTS_H

#include <cstdint>
#include <string>
#include <vector>

namespace tpuc::driver {

inline constexpr const char *kResultSchema = "tpuc.result";
inline constexpr int kResultVersion = 1;

/// One compared tensor (a row of compare's table).
struct TensorResult {
  std::string name;
  std::string status; ///< equal, close, similar, not_similar, mismatch, ...
  bool pass = false;
  double cosine = 0, euclidean = 0, sqnr = 0, maxAbsDiff = 0;
  bool operator==(const TensorResult &) const = default;
};

/// `tpuc compare`: every compared tensor against the tolerance.
struct CompareResult {
  std::string status; ///< passed, failed (a tensor out of tolerance), error (unreadable input)
  int exitCode = 0;
  std::string message;
  std::string target, reference;
  double toleranceCosine = 0, toleranceEuclidean = 0;
  std::vector<TensorResult> tensors;
  bool operator==(const CompareResult &) const = default;
};

/// `tpuc deploy`: what was written and, with a test input, the outputs' comparison.
struct DeployResult {
  std::string status; ///< passed, failed (lowering, backend or a comparison failed), error (bad input)
  int exitCode = 0;
  std::string message; ///< the error line on failure
  std::string chip, quantize;
  std::vector<std::string> artifacts;
  std::vector<TensorResult> outputs; ///< Tpu outputs vs the reference (empty without --test_input)
  std::string firstFailing;          ///< the first tensor out of tolerance, "" when none
  bool operator==(const DeployResult &) const = default;
};

/// `tpuc transform`: what was written and, with a test input, the Top outputs against ONNX Runtime.
struct TransformResult {
  std::string status; ///< passed, failed (import or the framework check failed), error (bad input)
  int exitCode = 0;
  std::string message; ///< the error line on failure
  std::string model;   ///< --model_def
  std::string mlir;    ///< --mlir
  std::vector<std::string> artifacts;
  /// "onnxruntime" when the Top outputs were compared with it; "" without --test_input or when the check
  /// could not run (then `frameworkSkipped` says why).
  std::string framework;
  std::string frameworkSkipped;
  std::vector<TensorResult> outputs; ///< Top outputs vs the framework's (empty without the check)
  bool operator==(const TransformResult &) const = default;
};

/// `tpuc calibrate`: the table written and how its thresholds were chosen.
struct CalibrateResult {
  std::string status; ///< passed, failed (--search search_qtable missed --expected_cos), error (bad input)
  int exitCode = 0;
  std::string message; ///< the last error line, "" when it passed
  std::string mlir, table;
  std::vector<std::string> artifacts; ///< the table first
  int64_t samples = 0, tensors = 0;
  std::string summary; ///< "kl", "search_threshold by cos (won: ...)"
  double seconds = 0;
  /// With --report: the sample count after which every threshold stays within 1 %, and whether that
  /// leaves a quarter of the samples to confirm it.
  int64_t stableAfter = 0;
  bool enoughData = false;
  bool operator==(const CalibrateResult &) const = default;
};

/// `tpuc run`: which simulator ran, what it wrote and, for a model file, the simulated timing.
struct ModelRunResult {
  std::string status; ///< passed, failed (the run failed), error (bad input)
  int exitCode = 0;
  std::string message;
  std::string model, input, output;
  std::string runner; ///< "reference" (Top MLIR), "tpu" (Tpu MLIR), "cmdsim" (a model file)
  std::vector<std::string> artifacts;
  std::string chip, net; ///< model files only
  int64_t cycles = 0, tiuBusy = 0, gdmaBusy = 0, tiuCommands = 0, gdmaCommands = 0;
  double latencyMs = 0;
  bool operator==(const ModelRunResult &) const = default;
};

/// `tpuc llm-convert`: the stages built and the combined model file.
struct LlmConvertResult {
  std::string status; ///< passed, failed (a stage did not compile), error (bad input)
  int exitCode = 0;
  std::string message;
  std::string model; ///< the HuggingFace folder
  std::string chip, quantize;
  std::vector<std::string> stages; ///< Top MLIR of every stage
  std::string modelFile;           ///< "" with --only_mlir or on failure
  int64_t nets = 0;
  int64_t weightBytes = 0; ///< stored once per shared weight
  int64_t weightBytesBeforeSharing = 0;
  double compileSeconds = 0;
  bool operator==(const LlmConvertResult &) const = default;
};

/// The record as JSON text (pretty-printed, one trailing newline).
std::string toJson(const CompareResult &result);
std::string toJson(const DeployResult &result);
std::string toJson(const TransformResult &result);
std::string toJson(const ModelRunResult &result);
std::string toJson(const CalibrateResult &result);
std::string toJson(const LlmConvertResult &result);

/// A record read back, or why it could not be (one line).
template <typename Result> struct ReadResult {
  Result result;
  std::string error;
  explicit operator bool() const { return error.empty(); }
};
ReadResult<CompareResult> parseCompareResult(const std::string &json);
ReadResult<DeployResult> parseDeployResult(const std::string &json);
ReadResult<TransformResult> parseTransformResult(const std::string &json);
ReadResult<ModelRunResult> parseModelRunResult(const std::string &json);
ReadResult<CalibrateResult> parseCalibrateResult(const std::string &json);
ReadResult<LlmConvertResult> parseLlmConvertResult(const std::string &json);

/// "passed" / "failed" / "error" for a tpuc exit code.
std::string resultStatus(int exitCode);

} // namespace tpuc::driver

#endif // TPUC_DRIVER_RESULTS_H
