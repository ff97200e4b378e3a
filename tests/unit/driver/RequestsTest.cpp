// Requests -> argv -> parse: every tpuc job type comes back equal; defaults render to nothing; values the
// parser would change are rejected; the chip list is the profile folder's.
#include "tpuc/Driver/Requests.h"
#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Driver/Chips.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace tpuc;
using namespace tpuc::driver;

namespace {

/// toArgv, then parse: the request that comes back.
template <typename Request> Request roundTrip(const Request &request) {
  Argv argv = toArgv(request);
  EXPECT_TRUE(argv) << argv.error;
  Parsed<Request> parsed = parseRequest<Request>(argv.args);
  EXPECT_TRUE(parsed) << parsed.error;
  return parsed.request;
}

/// Fails when a field still has its default: the populated requests below must exercise every field. The
/// binding renders exactly the fields that differ, so a request whose argv has as many options as the
/// binding has fields differs everywhere.
template <typename Request> void expectEveryFieldSet(const Request &request) {
  Request fields;
  ArgParser parser("t", "");
  bindOptions(parser, fields);
  size_t options = parser.flagNames().size();
  std::vector<std::string> args = toArgv(request).args;
  size_t flags = 0;
  for (const std::string &a : args)
    flags += a.rfind("--", 0) == 0 && a != "--";
  EXPECT_EQ(flags, options) << Request::kCommand << ": a field is left at its default";
}

TransformOptions transform() {
  TransformOptions o;
  o.modelName = "resnet 18";
  o.modelDef = "/models/my model.onnx";
  o.inputShapes = {{1, 3, 224, 224}, {1, 10}, {}};
  o.inputTypes = {"float32", "int64"};
  o.outputNames = {"/fc/Gemm_output_0", "prob"};
  o.constInputs = "axis=1;size=[1,3,224,224]";
  o.shapeInfluencingInputNames = {"shape"};
  o.mean = {123.675, 116.28, 103.53};
  o.scale = {0.0171, 1e-7, 3.0};
  o.pixelFormat = "rgb";
  o.channelFormat = "nhwc";
  o.resizeDims = {256, 256};
  o.keepAspectRatio = true;
  o.padValue = -3;
  o.padType = "normal";
  o.testInput = {"/data/cat.png", "/data/dog.npz"};
  o.testResult = "/c/top outputs.npz";
  o.tolerance = "0.9,0.8";
  o.excepts = {"relu_0", "pool"};
  o.mlir = "/c/resnet.top.mlir";
  o.progress = "json";
  o.debug = true;
  o.snapshots = "/c/snapshots";
  o.loopMaxTrips = 8;
  return o;
}

CalibrateOptions calibrate() {
  CalibrateOptions o;
  o.mlirFile = "/c/m.top.mlir";
  o.dataset = "/data/cali";
  o.dataList = "/data/list.txt";
  o.inputNum = 100;
  o.caliMethod = "mse";
  o.histogramBinNum = 1024;
  o.search = "search_qtable";
  o.benchmarkMethod = "snr";
  o.expectedCos = 0.995;
  o.maxFloatLayers = 7;
  o.calibrationTable = "/c/cali_table";
  o.quantizeTable = "/c/qtable";
  o.searchReport = "/c/search.json";
  o.progress = "text";
  o.debug = true;
  o.threads = 4;
  o.parallel = "kernels";
  o.chip = listChips().back();
  o.subset = "calib100";
  o.report = "/c/report dir";
  o.reportFigures = 0;
  return o;
}

DatasetOptions dataset() {
  DatasetOptions o;
  o.action = "subset";
  o.folder = "/data/my images";
  o.index = "/data/index.json";
  o.cache = "/tmp/cache";
  o.threads = 3;
  o.name = "calib 100";
  o.method = "manual";
  o.count = 100;
  o.seed = 42;
  o.files = {"a.png", "b/c.png"};
  o.subset = "other";
  o.output = "/tmp/list.txt";
  o.nearThreshold = 3;
  o.outlierZ = 3.5;
  o.progress = "json";
  return o;
}

RunsOptions runs() {
  RunsOptions o;
  o.action = "diff";
  o.a = "/r/a_manifest.json";
  o.b = "/r/b manifest.json";
  o.format = "json";
  o.output = "/r/diff.json";
  return o;
}

DeployOptions deploy() {
  DeployOptions o;
  o.mlir = "/c/m.top.mlir";
  o.quantize = "W4BF16";
  o.asymmetric = true;
  o.calibrationTable = "/c/cali";
  o.quantizeTable = "/c/q";
  o.chip = listChips().front();
  o.qGroupSize = 128;
  o.testInput = {"/data/a.npz"};
  o.testSubset = "hard";
  o.testNum = 50;
  o.testReference = "/data/ref.npz";
  o.tolerance = "0.99,0.9";
  o.compareAll = true;
  o.findDivergent = true;
  o.divergentTop = 3;
  o.divergentSamples = 7;
  o.snapshots = "/c/snap";
  o.tpuMlir = "/c/m.tpu.mlir";
  o.model = "/c/m.tpum";
  o.opt = 1;
  o.numCore = 2;
  o.explainGroups = true;
  o.correctness = "0.9,0.5";
  o.quantInput = true;
  o.quantOutput = true;
  o.excepts = {"a", "b"};
  o.fusePreprocess = true;
  o.customizationFormat = "BGR_PACKED";
  o.alignedInput = true;
  o.debug = true;
  o.progress = "json";
  return o;
}

RunOptions run() {
  RunOptions o;
  o.model = "/c/m.tpum";
  o.input = "/c/in.npz";
  o.output = "/c/out.npz";
  o.dumpAllTensors = true;
  o.profile = "/c/trace.json";
  o.net = "block_0";
  o.threads = 2;
  o.progress = "json";
  return o;
}

CompareOptions compare() {
  CompareOptions o;
  o.targetFile = "/c/tpu outputs.npz";
  o.referenceFile = "/c/top_outputs.npz";
  o.tolerance = "0.5,0.25";
  o.excepts = {"x"};
  o.format = "csv";
  o.output = "/c/report.csv";
  o.save = "/c/save.csv";
  o.verbose = true;
  o.rawU16 = true;
  o.resultJson = "/c/result.json";
  return o;
}

LlmConvertOptions llmConvert() {
  LlmConvertOptions o;
  o.modelPath = "/hf/Qwen2-0.5B";
  o.seqLength = 1024;
  o.quantize = "w8f16";
  o.qGroupSize = 128;
  o.symmetric = true;
  o.chip = "all";
  o.useHistoryKv = true;
  o.chunkLength = 256;
  o.maxInputLength = 512;
  o.outDir = "/out";
  o.onlyMlir = true;
  o.dryRun = true;
  o.dryRunJson = "/out/dry.json";
  o.noLayerReuse = true;
  o.dynamic = true;
  o.buckets = "64,128";
  o.debug = true;
  o.progress = "json";
  return o;
}

LlmRunOptions llmRun() {
  LlmRunOptions o;
  o.model = "/out/model.tpum";
  o.tokenizer = "/hf/tok";
  o.prompt = "Hello, world: a prompt, with commas --and dashes";
  o.maxNewTokens = 16;
  o.temperature = 0.7;
  o.topK = 40;
  o.topP = 0.9;
  o.repetitionPenalty = 1.1;
  o.interactive = true;
  o.serve = true;
  o.promptIds = "1,2,3";
  o.image = "/photos/cat.jpg";
  o.seed = 7;
  o.noChatTemplate = true;
  o.noKvCache = true;
  o.outputJson = "/out/answer.json";
  o.dumpLogits = "/out/logits.npz";
  return o;
}

ModelToolOptions modelTool() {
  ModelToolOptions o;
  o.info = "/m/a.tpum";
  o.print = "/m/b.tpum";
  o.extract = "/m/c.tpum";
  o.combine = {"/m/x.tpum", "/m/y.tpum"};
  o.output = "/m/out";
  return o;
}

GraphOptions graph() {
  GraphOptions o;
  o.mlir = "-starts with a dash.mlir";
  o.format = "json";
  o.output = "/g/graph.json";
  o.expand = "all";
  o.clusterBy = "layer_group";
  return o;
}

template <typename Request> void expectRoundTrip(const Request &request) {
  expectEveryFieldSet(request);
  EXPECT_EQ(roundTrip(request), request) << Request::kCommand;
}

} // namespace

TEST(Requests, EveryJobRoundTripsThroughItsArgv) {
  expectRoundTrip(transform());
  expectRoundTrip(calibrate());
  expectRoundTrip(deploy());
  expectRoundTrip(run());
  expectRoundTrip(compare());
  expectRoundTrip(llmConvert());
  expectRoundTrip(llmRun());
  expectRoundTrip(modelTool());
  expectRoundTrip(graph());
  expectRoundTrip(dataset());
  expectRoundTrip(runs());
}

TEST(Requests, DefaultsRenderToNothing) {
  EXPECT_TRUE(toArgv(TransformOptions{}).args.empty());
  EXPECT_TRUE(toArgv(CalibrateOptions{}).args.empty());
  EXPECT_TRUE(toArgv(DeployOptions{}).args.empty());
  EXPECT_TRUE(toArgv(RunOptions{}).args.empty());
  EXPECT_TRUE(toArgv(CompareOptions{}).args.empty());
  EXPECT_TRUE(toArgv(LlmConvertOptions{}).args.empty());
  EXPECT_TRUE(toArgv(LlmRunOptions{}).args.empty());
  EXPECT_TRUE(toArgv(ModelToolOptions{}).args.empty());
  EXPECT_TRUE(toArgv(GraphOptions{}).args.empty());
  EXPECT_TRUE(toArgv(DatasetOptions{}).args.empty());
  EXPECT_TRUE(toArgv(RunsOptions{}).args.empty());
}

TEST(Requests, RenderedSpellings) {
  CompareOptions c;
  c.targetFile = "t.npz";
  c.referenceFile = "r.npz";
  c.verbose = true;
  EXPECT_EQ(commandLine(c).args, (std::vector<std::string>{"compare", "--verbose", "t.npz", "r.npz"}));
  // Shapes as [[..]] (a scalar's shape is []), integer lists comma-joined.
  TransformOptions t;
  t.inputShapes = {{1, 3}, {}};
  t.resizeDims = {2, 4};
  EXPECT_EQ(toArgv(t).args,
            (std::vector<std::string>{"--input_shapes", "[[1,3],[]]", "--resize_dims", "2,4"}));
  // Required options first, then the rest in binding order: deploy's usual command line.
  DeployOptions d;
  d.mlir = "m.mlir";
  d.quantize = "F16";
  d.chip = listChips().front();
  d.asymmetric = true;
  d.tpuMlir = "t.mlir";
  EXPECT_EQ(toArgv(d).args, (std::vector<std::string>{"--mlir", "m.mlir", "--quantize", "F16", "--chip",
                                                      d.chip, "--asymmetric", "--tpu_mlir", "t.mlir"}));
}

TEST(Requests, FlagWithDefaultTrueRendersFalse) {
  // No binding has a boolean defaulting to true; the parser's own rule is tested on a bare binding.
  struct Opts {
    bool on = true;
  } o;
  ArgParser parser("t", "");
  parser.addFlag({{"--on"}}, &o.on);
  o.on = false;
  EXPECT_EQ(parser.render().args, (std::vector<std::string>{"--on=false"}));
  o.on = true;
  ASSERT_TRUE(parser.parse(std::vector<std::string>{"--on=false"}).kind == ParseOutcome::Ok);
  EXPECT_FALSE(o.on);
}

TEST(Requests, ValuesThatCannotRoundTripAreRejected) {
  DeployOptions d = deploy();
  d.excepts = {"a,b"}; // one item holding a comma would come back as two
  Argv argv = toArgv(d);
  EXPECT_FALSE(argv);
  EXPECT_EQ(argv.error,
            "tpuc deploy: '--excepts' cannot pass the list item 'a,b' (empty, holds a comma or blank ends)");
  d.excepts = {" padded"};
  EXPECT_FALSE(toArgv(d));
  d.excepts = {""};
  EXPECT_FALSE(toArgv(d));
  d = deploy();
  d.quantize = "int8"; // the parser would normalise it to INT8
  EXPECT_NE(toArgv(d).error.find("'--quantize' cannot pass 'int8'"), std::string::npos) << toArgv(d).error;
  d = deploy();
  d.chip = "no_such_chip";
  EXPECT_FALSE(toArgv(d));
  TransformOptions t = transform();
  t.inputShapes = {{1, -1}};
  EXPECT_NE(toArgv(t).error.find("'--input_shapes' cannot pass the negative dimension -1"),
            std::string::npos);
  t = transform();
  t.mean = {std::numeric_limits<double>::quiet_NaN()};
  EXPECT_NE(toArgv(t).error.find("'--mean' cannot pass NaN"), std::string::npos);
  // A later positional without the earlier one.
  CompareOptions c;
  c.referenceFile = "r.npz";
  EXPECT_NE(toArgv(c).error.find("is set but an earlier argument is not"), std::string::npos)
      << toArgv(c).error;
}

TEST(Requests, NumbersComeBackExactly) {
  LlmRunOptions o = llmRun();
  o.temperature = 0.1 + 0.2; // 0.30000000000000004
  o.topP = 1e-300;
  o.seed = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(roundTrip(o), o);
  TransformOptions t = transform();
  t.mean = {std::numeric_limits<double>::infinity(), -0.0, 1.0 / 3};
  EXPECT_EQ(roundTrip(t).mean, t.mean);
}

TEST(Requests, ToleranceChecksNameTheFlag) {
  EXPECT_EQ(checkTolerance("--tolerance", "0.99,0.9"), "");
  EXPECT_EQ(checkTolerance("--correctness", "0.99"),
            "'--correctness' expects two numbers 'cos,euc' (e.g. 0.99,0.90), got '0.99'");
  EXPECT_NE(checkTolerance("--tolerance", "0.9,inf"), "");
}

TEST(Requests, FlagNamesCoverEveryBinding) {
  std::vector<std::string> flags = allFlagNames();
  for (const char *flag :
       {"--model_path", "--calibration_table", "--result_json", "--cluster_by", "--combine"})
    EXPECT_NE(std::find(flags.begin(), flags.end(), flag), flags.end()) << flag;
  EXPECT_TRUE(std::is_sorted(flags.begin(), flags.end()));
}

TEST(Chips, ListIsTheProfileFolder) {
  std::vector<std::string> chips = listChips();
  ASSERT_FALSE(chips.empty());
  EXPECT_NE(std::find(chips.begin(), chips.end(), std::string(kDefaultChip)), chips.end());
  // Every name is a profile the engine loads.
  for (const std::string &chip : chips)
    EXPECT_EQ(backend::findChipProfile(chip).name, chip);
}

TEST(Chips, DeployAcceptsExactlyTheListedChips) {
  DeployOptions d;
  for (const std::string &chip : listChips()) {
    std::vector<std::string> args = {"--mlir", "m.mlir", "--quantize", "F32", "--chip", chip};
    EXPECT_TRUE(parseRequest<DeployOptions>(args)) << chip;
  }
  std::vector<std::string> args = {"--mlir", "m.mlir", "--quantize", "F32", "--chip", "cv183x"};
  EXPECT_FALSE(parseRequest<DeployOptions>(args));
}

TEST(Requests, TransformPreprocessingFlagsAreTheRequestsOwn) {
  // What tpuc transform hands the importer and the studio's preview resolves: every preprocessing field.
  TransformOptions o = transform();
  preprocess::PreprocessFlags flags = preprocessFlags(o);
  EXPECT_EQ(flags.mean, o.mean);
  EXPECT_EQ(flags.scale, o.scale);
  EXPECT_EQ(flags.pixelFormat, "rgb");
  EXPECT_EQ(flags.channelFormat, "nhwc");
  EXPECT_EQ(flags.resizeDims, (std::vector<int64_t>{256, 256}));
  EXPECT_TRUE(flags.keepAspectRatio);
  EXPECT_EQ(flags.padValue, -3.0);
  EXPECT_EQ(flags.padType, "normal");
  // A default request: TPU-MLIR's defaults, which the importer records as given.
  flags = preprocessFlags(TransformOptions{});
  EXPECT_EQ(flags.pixelFormat, "bgr");
  EXPECT_EQ(flags.channelFormat, "nchw");
  EXPECT_FALSE(flags.keepAspectRatio);
  EXPECT_TRUE(flags.mean.empty());
}

TEST(Requests, DeploySampleFlagsAreValidatedTogether) {
  DeployOptions o;
  o.mlir = "m.mlir";
  o.quantize = "F32";
  o.chip = listChips().front();
  EXPECT_EQ(validateDeployOptions(o), "");
  o.testSubset = "hard";
  EXPECT_EQ(validateDeployOptions(o),
            "'--test_subset' needs '--test_input DIR' (the folder whose samples it selects)");
  o.testInput = {"/data/val"};
  EXPECT_EQ(validateDeployOptions(o), "");
  o.testNum = -1;
  EXPECT_EQ(validateDeployOptions(o), "'--test_num' must not be negative");
  o.testNum = 5;
  o.testInput = {"a.npy", "b.npy"};
  o.testSubset.clear();
  EXPECT_EQ(validateDeployOptions(o), "'--test_num' needs '--test_input DIR' or '--test_input LIST.txt'");
  o.testNum = 0;
  o.findDivergent = true;
  EXPECT_EQ(validateDeployOptions(o),
            "'--find_divergent' needs '--compare_all' (it reads the per-layer comparisons)");
  o.compareAll = true;
  EXPECT_EQ(validateDeployOptions(o), "");
  o.testReference = "ref.npz";
  EXPECT_EQ(validateDeployOptions(o),
            "'--find_divergent' re-runs the Top reference: it does not take '--test_reference'");
  o.testReference.clear();
  o.divergentTop = 0;
  EXPECT_EQ(validateDeployOptions(o), "'--divergent_top' must be at least 1");
  o.divergentTop = 5;
  o.divergentSamples = 0;
  EXPECT_EQ(validateDeployOptions(o), "'--divergent_samples' must be at least 1");
}
