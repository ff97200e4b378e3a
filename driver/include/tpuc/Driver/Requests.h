//===- Requests.h - tpuc jobs as value types: options, flags, argv ---------===//
//
// The studio <-> engine contract. Each tpuc subcommand is a plain request
// struct (flags keep TPU-MLIR's names), an add*Options() binding it to the
// parser, and a validate*() for checks that span several flags. The same
// binding parses a command line into a request (tpuc) and renders a request
// back into one (toArgv, the studio), so neither side spells a flag twice.
// Qt-free, MLIR-free: the engine (run*) lives in app/tpuc, later TpucDriver.
//
// Exit codes: 0 success, 1 the job ran and failed (e.g. compare found
// tensors out of tolerance), 2 bad usage or unreadable input, 3 the engine
// of the subcommand is not part of this build yet.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_REQUESTS_H
#define TPUC_DRIVER_REQUESTS_H

#include "tpuc/Driver/Chips.h"
#include "tpuc/Preprocess/Flags.h"
#include "tpuc/Support/ArgParser.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tpuc::driver {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNotImplemented = 3;

/// Checks a "cos,euc" tolerance; returns "" or an error naming `flag` (without prefix).
std::string checkTolerance(const std::string &flag, const std::string &value);

// --- transform (model_transform) ---------------------------------------------
struct TransformOptions {
  static constexpr std::string_view kCommand = "transform";
  std::string modelName;
  std::string modelDef;
  std::vector<std::vector<int64_t>> inputShapes;
  std::vector<std::string> inputTypes;
  std::vector<std::string> outputNames;
  /// --const_inputs "name=VALUE;...": graph inputs fixed for the deployed model (VALUE a number, a list
  /// [..] or an .npy file); --shape_influencing_input_names: the same, valued from --test_input's npz.
  std::string constInputs;
  std::vector<std::string> shapeInfluencingInputNames;
  /// Not in model_transform: --loop_max_trips, the step bound of a Loop whose trip count or exit condition
  /// is only known at run time (0: from the model).
  int64_t loopMaxTrips = 0;
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
  bool operator==(const TransformOptions &) const = default;
};
void addTransformOptions(ArgParser &parser, TransformOptions &opts);
std::string validateTransformOptions(const TransformOptions &opts);
/// The request's preprocessing flags (--mean ... --pad_type) as the importer takes them: `tpuc transform`
/// passes these to the ONNX import, and the studio's preprocessing preview resolves the same ones with
/// preprocess::inputConfigs, so both read a request alike.
preprocess::PreprocessFlags preprocessFlags(const TransformOptions &opts);

// --- calibrate (run_calibration) ---------------------------------------------
struct CalibrateOptions {
  static constexpr std::string_view kCommand = "calibrate";
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
  /// Not in run_calibration: with search_qtable, every greedy step (op, output cosine, simulated latency)
  /// as a tpuc.search_qtable record (tpuc/Driver/SearchRecord.h).
  std::string searchReport;
  std::string progress = "none";
  bool debug = false;
  /// Not in run_calibration: threads in total (0: all cores) and how they are used (see
  /// CalibrationRunConfig in tpuc/Driver/Calibration.h).
  int64_t threads = 0;
  std::string parallel = "samples";
  /// Target chip of --search search_qtable.
  std::string chip{kDefaultChip};
  /// Not in run_calibration: a data list file (`tpuc dataset export-list`), or the name of a subset in the
  /// dataset index of --dataset (`tpuc dataset subset`).
  std::string subset;
  /// Not in run_calibration: a folder for the activation histograms with every method's threshold and the
  /// thresholds' convergence as samples are added (JSON).
  std::string report;
  /// With --report: PNG figures of at most this many tensors, the overview and an index.html, drawn by
  /// tpuc-view when it is installed beside tpuc (0: the JSON only; the studio draws the report itself).
  int64_t reportFigures = 64;
  bool operator==(const CalibrateOptions &) const = default;
};
void addCalibrateOptions(ArgParser &parser, CalibrateOptions &opts);
std::string validateCalibrateOptions(const CalibrateOptions &opts);

// --- deploy (model_deploy) ---------------------------------------------------
struct DeployOptions {
  static constexpr std::string_view kCommand = "deploy";
  std::string mlir;
  std::string quantize;
  bool asymmetric = false;
  std::string calibrationTable;
  std::string quantizeTable;
  std::string chip;
  int64_t qGroupSize = 0;
  /// One sample (a file per input, or one .npz), or many: a folder (its samples as calibrate --dataset
  /// collects them) or a data list (.txt).
  std::vector<std::string> testInput;
  /// Not in model_deploy: a subset of the --test_input folder (a name in its dataset index, or a data list
  /// file), as calibrate's --subset.
  std::string testSubset;
  /// Not in model_deploy: at most this many samples of a folder or data list (0: all).
  int64_t testNum = 0;
  std::string testReference;
  std::string tolerance = "0.8,0.5";
  bool compareAll = false;
  /// Not in model_deploy: after --compare_all, the first divergent layers (isolated error out of
  /// tolerance, inputs within it), each re-run in float to measure the gain in the output
  /// (<stem>_first_divergent.json). docs/ACCURACY.md.
  bool findDivergent = false;
  /// How many of those layers are re-run in float, and on how many samples (the worst by output cosine).
  int64_t divergentTop = 5;
  int64_t divergentSamples = 3;
  std::string snapshots;
  std::string tpuMlir;
  std::string model;
  int64_t opt = 2;
  int64_t numCore = 1; ///< model_deploy's --num_core: cores the model file spreads its work over.
  bool explainGroups = false;
  std::string correctness = "0.99,0.90";
  bool quantInput = false, quantOutput = false;
  std::vector<std::string> excepts; ///< Tensors left out of the comparisons.
  bool fusePreprocess = false;      ///< Crop, channel order and mean/scale on the chip; UINT8 image inputs.
  std::string customizationFormat;  ///< The raw pixels' layout with fusePreprocess (RGB_PLANAR, ...).
  bool alignedInput = false;        ///< CV18xx only: rejected with the reason.
  bool debug = false;
  std::string progress = "none";
  bool operator==(const DeployOptions &) const = default;
};
/// The precisions `tpuc deploy --quantize` takes (its choices; the studio's precision lists).
const std::vector<std::string> &deployPrecisions();
void addDeployOptions(ArgParser &parser, DeployOptions &opts);
std::string validateDeployOptions(const DeployOptions &opts);

// --- run (model_runner) ------------------------------------------------------
struct RunOptions {
  static constexpr std::string_view kCommand = "run";
  std::string model;
  std::string input;
  std::string output = "_output.npz";
  bool dumpAllTensors = false;
  std::string profile; ///< Trace JSON of the command-level simulation.
  std::string net;     ///< Net of a multi-net model file (default: the first).
  int64_t threads = 0;
  std::string progress;
  bool operator==(const RunOptions &) const = default;
};
void addRunOptions(ArgParser &parser, RunOptions &opts);
std::string validateRunOptions(const RunOptions &opts);

// --- compare (npz_tool compare) ----------------------------------------------
struct CompareOptions {
  static constexpr std::string_view kCommand = "compare";
  std::string targetFile;
  std::string referenceFile;
  std::string tolerance = "0.99,0.99";
  std::vector<std::string> excepts;
  std::string format = "text";
  std::string output;
  std::string save;
  bool verbose = false;
  bool rawU16 = false;
  /// --result_json: the versioned result record (Results.h) to this file.
  std::string resultJson;
  bool operator==(const CompareOptions &) const = default;
};
void addCompareOptions(ArgParser &parser, CompareOptions &opts);
std::string validateCompareOptions(const CompareOptions &opts);

// --- llm-convert (llm_convert) -----------------------------------------------
struct LlmConvertOptions {
  static constexpr std::string_view kCommand = "llm-convert";
  std::string modelPath;
  int64_t seqLength = 0;
  std::string quantize;
  int64_t qGroupSize = 64;
  bool symmetric = false;
  std::string chip{kDefaultChip};
  bool useHistoryKv = false;
  int64_t chunkLength = 0;
  int64_t maxInputLength = 0;
  std::string outDir;
  bool onlyMlir = false;
  bool dryRun = false;
  /// --dry_run_json: the dry-run report as JSON (DryRun.h) to this file.
  std::string dryRunJson;
  bool debug = false;
  /// --no_layer_reuse: every decoder layer through the backend instead of reusing layer 0's plan.
  bool noLayerReuse = false;
  /// --dynamic: prefill stages also for shorter prompt buckets (LlmConvert.h).
  bool dynamic = false;
  /// --buckets: the bucket lengths, comma separated (implies --dynamic); empty: the default halvings.
  std::string buckets;
  std::string progress = "none";
  bool operator==(const LlmConvertOptions &) const = default;
};
void addLlmConvertOptions(ArgParser &parser, LlmConvertOptions &opts);
std::string validateLlmConvertOptions(const LlmConvertOptions &opts);
/// --buckets' lengths ("32,128" -> {32, 128}); nullopt when it is not a comma list of positive integers.
std::optional<std::vector<int64_t>> parseBucketList(const std::string &text);

// --- llm-run -----------------------------------------------------------------
struct LlmRunOptions {
  static constexpr std::string_view kCommand = "llm-run";
  std::string model;
  std::string tokenizer;
  std::string prompt;
  int64_t maxNewTokens = 128;
  double temperature = 1.0;
  int64_t topK = 1;
  double topP = 1.0;
  double repetitionPenalty = 1.0;
  bool interactive = false;
  /// --serve: the studio's chat, JSON lines on stdin and stdout (tpuc/Driver/LlmServe.h).
  bool serve = false;
  /// --prompt_ids: the prompt as comma-separated token ids (no tokenizer needed).
  std::string promptIds;
  /// --image: a vision-language model's image (an image file, or a .npy/.npz pixel tensor [1, 3, S, S]).
  std::string image;
  int64_t seed = 42;
  /// --no_chat_template: feed the prompt as it is.
  bool noChatTemplate = false;
  /// --no_kv_cache: every step recomputes the whole sequence through the prefill stages.
  bool noKvCache = false;
  /// --output_json: tokens, text and timing of the (last) answer.
  std::string outputJson;
  /// --dump_logits: npz of the (last) answer's prompt_ids, tokens and the logits each token came from.
  std::string dumpLogits;
  bool operator==(const LlmRunOptions &) const = default;
};
void addLlmRunOptions(ArgParser &parser, LlmRunOptions &opts);
std::string validateLlmRunOptions(const LlmRunOptions &opts);
/// The ranges of llm-run's generation flags ("" when valid, else the message naming the flag); shared by
/// the flags and the settings of each `--serve` request.
std::string validateLlmGeneration(int64_t maxNewTokens, double temperature, int64_t topK, double topP,
                                  double repetitionPenalty);

// --- model-tool (model_tool) -------------------------------------------------
struct ModelToolOptions {
  static constexpr std::string_view kCommand = "model-tool";
  std::string info;
  std::string print;
  std::string extract;
  std::vector<std::string> combine;
  std::string output;
  bool operator==(const ModelToolOptions &) const = default;
};
void addModelToolOptions(ArgParser &parser, ModelToolOptions &opts);
std::string validateModelToolOptions(const ModelToolOptions &opts);

// --- dataset (not in TPU-MLIR) -------------------------------------------------
/// `tpuc dataset scan|subset|export-list|report FOLDER`: a calibration folder's index (docs/DATASETS.md).
struct DatasetOptions {
  static constexpr std::string_view kCommand = "dataset";
  std::string action; ///< scan, subset, export-list, report
  std::string folder;
  std::string index; ///< default <folder>/.tpuc/index.json
  std::string cache; ///< default beside the index
  int64_t threads = 0;
  std::string name; ///< subset: the subset's name
  std::string method = "random";
  int64_t count = 0;
  int64_t seed = 0;
  std::vector<std::string> files; ///< subset --method manual
  std::string subset;             ///< export-list: the subset to write
  std::string output;
  int64_t nearThreshold = 5;
  double outlierZ = 5.0;
  std::string progress = "none";
  bool operator==(const DatasetOptions &) const = default;
};
void addDatasetOptions(ArgParser &parser, DatasetOptions &opts);
std::string validateDatasetOptions(const DatasetOptions &opts);

// --- runs (not in TPU-MLIR) ---------------------------------------------------
/// `tpuc runs diff A B`: what differs between two run manifests (<stem>_manifest.json of deploy,
/// <table>_manifest.json of calibrate) and, when both runs compared every layer, their layers side by side
/// (Manifest.h).
struct RunsOptions {
  static constexpr std::string_view kCommand = "runs";
  std::string action; ///< diff
  std::string a, b;   ///< the manifests
  std::string format = "text";
  std::string output;
  bool operator==(const RunsOptions &) const = default;
};
void addRunsOptions(ArgParser &parser, RunsOptions &opts);
std::string validateRunsOptions(const RunsOptions &opts);

// --- graph -------------------------------------------------------------------
struct GraphOptions {
  static constexpr std::string_view kCommand = "graph";
  std::string mlir;
  std::string format = "svg";
  std::string output;
  std::string expand = "auto";
  std::string clusterBy = "scope";
  bool operator==(const GraphOptions &) const = default;
};
void addGraphOptions(ArgParser &parser, GraphOptions &opts);
std::string validateGraphOptions(const GraphOptions &opts);

/// Binds a request's fields to a parser: the overload set the templates below use.
inline void bindOptions(ArgParser &p, TransformOptions &o) { addTransformOptions(p, o); }
inline void bindOptions(ArgParser &p, CalibrateOptions &o) { addCalibrateOptions(p, o); }
inline void bindOptions(ArgParser &p, DeployOptions &o) { addDeployOptions(p, o); }
inline void bindOptions(ArgParser &p, RunOptions &o) { addRunOptions(p, o); }
inline void bindOptions(ArgParser &p, CompareOptions &o) { addCompareOptions(p, o); }
inline void bindOptions(ArgParser &p, LlmConvertOptions &o) { addLlmConvertOptions(p, o); }
inline void bindOptions(ArgParser &p, LlmRunOptions &o) { addLlmRunOptions(p, o); }
inline void bindOptions(ArgParser &p, ModelToolOptions &o) { addModelToolOptions(p, o); }
inline void bindOptions(ArgParser &p, GraphOptions &o) { addGraphOptions(p, o); }
inline void bindOptions(ArgParser &p, DatasetOptions &o) { addDatasetOptions(p, o); }
inline void bindOptions(ArgParser &p, RunsOptions &o) { addRunsOptions(p, o); }

/// A rendered command line, or why the request has none.
struct Argv {
  std::vector<std::string> args;
  /// "" or one line naming the field: "tpuc deploy: '--excepts' cannot pass the list item 'a,b' (...)".
  std::string error;
  explicit operator bool() const { return error.empty(); }
};

/// The request as arguments of `tpuc <Request::kCommand>` (without the command word): the binding is
/// made on a default-constructed request, which records every field's default, then the request is
/// assigned and each field that differs is rendered (ArgParser::render). Parsing the result gives back
/// an equal request; a value that could not come back equal is an error, never changed.
template <typename Request> Argv toArgv(const Request &request) {
  Request fields;
  ArgParser parser("tpuc " + std::string(Request::kCommand), "");
  bindOptions(parser, fields);
  fields = request;
  ArgParser::Rendered rendered = parser.render();
  if (!rendered.error.empty())
    return {{}, parser.program() + ": " + rendered.error};
  return {std::move(rendered.args), ""};
}

/// toArgv with the command word first: what follows `tpuc` on a command line.
template <typename Request> Argv commandLine(const Request &request) {
  Argv argv = toArgv(request);
  if (argv)
    argv.args.insert(argv.args.begin(), std::string(Request::kCommand));
  return argv;
}

/// A parsed request, or the parser's one-line error.
template <typename Request> struct Parsed {
  Request request;
  std::string error;
  explicit operator bool() const { return error.empty(); }
};

/// Parses `tpuc <Request::kCommand>` arguments (without the command word) into a request: the flags and
/// their checks, without validate*() (a stored command line is read back as it was). `checkRequired`
/// false: required options may be missing (a command line recorded in part).
template <typename Request>
Parsed<Request> parseRequest(std::span<const std::string> args, bool checkRequired = true) {
  Parsed<Request> parsed;
  ArgParser parser("tpuc " + std::string(Request::kCommand), "");
  bindOptions(parser, parsed.request);
  ParseOutcome outcome = parser.parse(args, checkRequired);
  if (outcome.kind == ParseOutcome::Help)
    parsed.error = parser.program() + ": --help is not a request";
  else if (outcome.kind == ParseOutcome::Error)
    parsed.error = outcome.message;
  return parsed;
}

/// The long spelling of every flag of every subcommand ("--model_path", ...), sorted and unique: what
/// the layering test keeps out of the studio outside its engine client.
std::vector<std::string> allFlagNames();

/// The files `tpuc deploy` writes are named after this stem: --tpu_mlir without .mlir, else --model
/// without its extension, else the Top MLIR's name with the precision.
std::string deployArtifactStem(const DeployOptions &o);
/// Where `tpuc deploy` writes its result record (Results.h): <stem>_result.json, when it writes any file
/// (--tpu_mlir, --model or --debug).
std::string deployResultPath(const DeployOptions &o);
/// Where `tpuc transform` writes its result record (Results.h): --mlir without .mlir, then
/// "_transform_result.json".
std::string transformResultPath(const TransformOptions &o);
/// Where `tpuc run` writes its result record: --output without .npz, then "_run_result.json".
std::string runResultPath(const RunOptions &o);
/// Where `tpuc calibrate` writes its result record: the calibration table's path + "_result.json".
std::string calibrateResultPath(const CalibrateOptions &o);
/// Where `tpuc llm-convert` writes its result record: <out_dir>/llm_convert_result.json.
std::string llmConvertResultPath(const LlmConvertOptions &o);

} // namespace tpuc::driver

#endif // TPUC_DRIVER_REQUESTS_H
