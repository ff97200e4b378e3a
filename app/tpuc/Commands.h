//===- Commands.h - tpuc subcommands: option structs and entry points -----===//
//
// Each subcommand has a plain options struct (flags keep TPU-MLIR's names),
// an add*Options() binding it to the parser, a validate*() for checks that
// span several flags, and a run*() that does the work. The engine wiring
// lives only in run*(), so the studio and tests can build option structs
// without parsing anything.
//
// Exit codes: 0 success, 1 the job ran and failed (e.g. compare found
// tensors out of tolerance), 2 bad usage or unreadable input, 3 the engine
// of the subcommand is not part of this build yet.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_APP_TPUC_COMMANDS_H
#define TPUC_APP_TPUC_COMMANDS_H

#include "tpuc/Support/ArgParser.h"
#include "tpuc/Support/Progress.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tpuc::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNotImplemented = 3;

/// Prints "tpuc <sub>: not implemented yet in this build" to stderr and
/// returns kExitNotImplemented.
int notImplemented(std::string_view subcommand);
/// A reporter for a `--progress` value (already validated by the parser):
/// JSON lines on stdout, text on stderr.
ProgressReporter makeProgressReporter(const std::string &format);
/// Checks a "cos,euc" tolerance; returns "" or an error (without prefix).
std::string checkTolerance(const std::string &flag, const std::string &value);

// --- transform (model_transform) ---------------------------------------------
struct TransformOptions {
  std::string modelName;
  std::string modelDef;
  std::vector<std::vector<int64_t>> inputShapes;
  std::vector<std::string> inputTypes;
  std::vector<std::string> outputNames;
  /// --const_inputs "name=VALUE;...": graph inputs fixed for the deployed model (VALUE a number, a list
  /// [..] or an .npy file); --shape_influencing_input_names: the same, valued from --test_input's npz.
  std::string constInputs;
  std::vector<std::string> shapeInfluencingInputNames;
  std::vector<double> mean;
  std::vector<double> scale;
  std::string pixelFormat = "bgr";
  std::string channelFormat = "nchw";
  std::vector<int64_t> resizeDims;
  bool keepAspectRatio = false;
  int64_t padValue = 0;
  std::string padType = "center";
  std::vector<std::string> testInput;
  std::string testResult;
  std::string tolerance = "0.99,0.99";
  std::vector<std::string> excepts;
  std::string mlir;
  std::string progress = "none";
  bool debug = false;
  /// Not in model_transform: a directory for the IR after every pass (PassSnapshots.h).
  std::string snapshots;
};
void addTransformOptions(ArgParser &parser, TransformOptions &opts);
std::string validateTransformOptions(const TransformOptions &opts);
int runTransform(const TransformOptions &opts);

// --- calibrate (run_calibration) ---------------------------------------------
struct CalibrateOptions {
  std::string mlirFile;
  std::string dataset;
  std::string dataList;
  int64_t inputNum = 0;
  std::string caliMethod = "kl";
  int64_t histogramBinNum = 2048;
  std::string search = "False";
  /// How --search search_threshold compares a fake-quantized tensor with its float values: cos or snr.
  std::string benchmarkMethod = "cos";
  double expectedCos = 0.99;
  int64_t maxFloatLayers = 5;
  std::string calibrationTable;
  std::string quantizeTable;
  std::string progress = "none";
  bool debug = false;
  /// Not in run_calibration: threads in total (0: all cores) and how they are used (see
  /// CalibrationRunConfig in CalibrateCommand.h).
  int64_t threads = 0;
  std::string parallel = "samples";
  /// Target chip of --search search_qtable.
  std::string chip = "bm1684x";
};
void addCalibrateOptions(ArgParser &parser, CalibrateOptions &opts);
std::string validateCalibrateOptions(const CalibrateOptions &opts);
int runCalibrate(const CalibrateOptions &opts);

// --- deploy (model_deploy) ---------------------------------------------------
struct DeployOptions {
  std::string mlir;
  std::string quantize;
  bool asymmetric = false;
  std::string calibrationTable;
  std::string quantizeTable;
  std::string chip;
  int64_t qGroupSize = 0;
  std::vector<std::string> testInput;
  std::string testReference;
  std::string tolerance = "0.8,0.5";
  bool compareAll = false;
  std::string snapshots;
  std::string tpuMlir;
  std::string model;
  int64_t opt = 2;
  int64_t numCore = 1; ///< model_deploy's --num_core: cores the model file spreads its work over.
  bool explainGroups = false;
  std::string correctness = "0.99,0.90";
  bool quantInput = false, quantOutput = false;
  std::vector<std::string> excepts; ///< Tensors left out of the comparisons.
  bool fusePreprocess = false;       ///< Crop, channel order and mean/scale on the chip; UINT8 image inputs.
  std::string customizationFormat;   ///< The raw pixels' layout with fusePreprocess (RGB_PLANAR, ...).
  bool alignedInput = false;         ///< CV18xx only: rejected with the reason.
  bool debug = false;
  std::string progress = "none";
};
void addDeployOptions(ArgParser &parser, DeployOptions &opts);
std::string validateDeployOptions(const DeployOptions &opts);
int runDeploy(const DeployOptions &opts);

// --- run (model_runner) ------------------------------------------------------
struct RunOptions {
  std::string model;
  std::string input;
  std::string output = "_output.npz";
  bool dumpAllTensors = false;
  std::string profile;   ///< Trace JSON of the command-level simulation.
  std::string net;       ///< Net of a multi-net model file (default: the first).
  int64_t threads = 0;
  std::string progress;
};
void addRunOptions(ArgParser &parser, RunOptions &opts);
std::string validateRunOptions(const RunOptions &opts);
int runRun(const RunOptions &opts);

// --- compare (npz_tool compare) ----------------------------------------------
struct CompareOptions {
  std::string targetFile;
  std::string referenceFile;
  std::string tolerance = "0.99,0.99";
  std::vector<std::string> excepts;
  std::string format = "text";
  std::string output;
  std::string save;
  bool verbose = false;
  bool rawU16 = false;
};
void addCompareOptions(ArgParser &parser, CompareOptions &opts);
std::string validateCompareOptions(const CompareOptions &opts);
int runCompare(const CompareOptions &opts);

// --- llm-convert (llm_convert) -----------------------------------------------
struct LlmConvertOptions {
  std::string modelPath;
  int64_t seqLength = 0;
  std::string quantize;
  int64_t qGroupSize = 64;
  bool symmetric = false;
  std::string chip = "bm1684x";
  bool useHistoryKv = false;
  int64_t chunkLength = 0;
  int64_t maxInputLength = 0;
  std::string outDir;
  bool onlyMlir = false;
  bool dryRun = false;
  /// --dry_run_json: the dry-run report as JSON (DryRun.h) to this file.
  std::string dryRunJson;
  bool debug = false;
  std::string progress = "none";
};
void addLlmConvertOptions(ArgParser &parser, LlmConvertOptions &opts);
std::string validateLlmConvertOptions(const LlmConvertOptions &opts);
int runLlmConvert(const LlmConvertOptions &opts);

// --- llm-run -----------------------------------------------------------------
struct LlmRunOptions {
  std::string model;
  std::string tokenizer;
  std::string prompt;
  int64_t maxNewTokens = 128;
  double temperature = 1.0;
  int64_t topK = 1;
  double topP = 1.0;
  double repetitionPenalty = 1.0;
  bool interactive = false;
  /// --prompt_ids: the prompt as comma-separated token ids (no tokenizer needed).
  std::string promptIds;
  int64_t seed = 42;
  /// --no_chat_template: feed the prompt as it is.
  bool noChatTemplate = false;
  /// --no_kv_cache: every step recomputes the whole sequence through the prefill stages.
  bool noKvCache = false;
  /// --output_json: tokens, text and timing of the (last) answer.
  std::string outputJson;
  /// --dump_logits: npz of the (last) answer's prompt_ids, tokens and the logits each token came from.
  std::string dumpLogits;
};
void addLlmRunOptions(ArgParser &parser, LlmRunOptions &opts);
std::string validateLlmRunOptions(const LlmRunOptions &opts);
int runLlmRun(const LlmRunOptions &opts);

// --- model-tool (model_tool) -------------------------------------------------
struct ModelToolOptions {
  std::string info;
  std::string print;
  std::string extract;
  std::vector<std::string> combine;
  std::string output;
};
void addModelToolOptions(ArgParser &parser, ModelToolOptions &opts);
std::string validateModelToolOptions(const ModelToolOptions &opts);
int runModelTool(const ModelToolOptions &opts);

// --- graph -------------------------------------------------------------------
struct GraphOptions {
  std::string mlir;
  std::string format = "svg";
  std::string output;
  std::string expand = "auto";
  std::string clusterBy = "scope";
};
void addGraphOptions(ArgParser &parser, GraphOptions &opts);
std::string validateGraphOptions(const GraphOptions &opts);
int runGraph(const GraphOptions &opts);

} // namespace tpuc::cli

#endif // TPUC_APP_TPUC_COMMANDS_H
