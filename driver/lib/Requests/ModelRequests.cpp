//===- ModelRequests.cpp - Flags of transform, calibrate, deploy, run -----===//
//
// Flags, defaults and help texts of TPU-MLIR's model_transform,
// run_calibration, model_deploy and model_runner.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Driver/Chips.h"
#include "tpuc/Driver/Requests.h"

#include <algorithm>
#include <cctype>

namespace tpuc::driver {
namespace {

const std::vector<std::string> kProgressChoices = {"none", "json", "text"};

std::string stripSuffix(const std::string &path, const std::string &suffix) {
  if (path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
    return path.substr(0, path.size() - suffix.size());
  return path;
}

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

// --- transform ---------------------------------------------------------------

void addTransformOptions(ArgParser &p, TransformOptions &o) {
  p.addOption({{"--model_name"}, "NAME", "name of the model", true},
              &o.modelName);
  p.addOption({{"--model_def"}, "FILE", "model definition file (.onnx)", true},
              &o.modelDef);
  p.addOption({{"--input_shapes"},
               "SHAPES",
               "input shapes, e.g. [[1,3,224,224],[1,10]] (default: from the "
               "model)"},
              &o.inputShapes);
  p.addOption({{"--input_types"},
               "TYPES",
               "input types, comma-separated (float32,int32,int64,...)"},
              &o.inputTypes);
  p.addOption({{"--output_names"},
               "NAMES",
               "cut the graph at these tensors, comma-separated"},
              &o.outputNames);
  p.addOption({{"--const_inputs"},
               "NAME=VALUE;...",
               "graph inputs that are fixed for the deployed model (an axis, a size, a sample rate, a branch "
               "condition): a number, a list such as [1,3,224,224], or an .npy file; they become constants, so "
               "shapes, branches and parameters that depend on them are resolved at import"},
              &o.constInputs);
  p.addOption({{"--shape_influencing_input_names"},
               "NAMES",
               "model_transform's form of --const_inputs: these inputs take their values from --test_input's npz"},
              &o.shapeInfluencingInputNames);
  p.addOption(
      {{"--loop_max_trips"},
       "N",
       "the most steps a Loop whose trip count or exit condition is only known at run time may take: it "
       "becomes N masked steps and a run that needs more fails (default: its constant trip count, else "
       "the extent its scan outputs declare)"},
      &o.loopMaxTrips);
  p.addOption({{"--mean"}, "M,...", "per-channel mean for image inputs",
               false, {}, "0,0,0"},
              &o.mean);
  p.addOption({{"--scale"}, "S,...", "per-channel scale for image inputs",
               false, {}, "1,1,1"},
              &o.scale);
  p.addOption({{"--pixel_format"},
               "FMT",
               "pixel format of image inputs",
               false,
               {"rgb", "bgr", "gray", "rgba", "gbrg", "grbg", "bggr", "rggb"},
               "bgr"},
              &o.pixelFormat);
  p.addOption({{"--channel_format"},
               "FMT",
               "channel layout of image inputs",
               false,
               {"nchw", "nhwc", "none"},
               "nchw"},
              &o.channelFormat);
  p.addOption({{"--resize_dims"}, "H,W",
               "resize images to H,W before cropping (default: input size)"},
              &o.resizeDims);
  p.addFlag({{"--keep_aspect_ratio"}, "", "keep the aspect ratio when resizing"},
            &o.keepAspectRatio);
  p.addOption({{"--pad_value"}, "N", "pad value when keeping the aspect ratio",
               false, {}, "0"},
              &o.padValue);
  p.addOption({{"--pad_type"}, "TYPE",
               "where padding goes when keeping the aspect ratio", false,
               {"normal", "center"}, "center"},
              &o.padType);
  p.addOption({{"--test_input"}, "FILES",
               "input files (.npz/.npy/image) to verify the conversion with"},
              &o.testInput);
  p.addOption({{"--test_result"}, "FILE",
               "write the Top-level outputs of --test_input to this .npz"},
              &o.testResult);
  p.addOption({{"--tolerance"}, "COS,EUC",
               "minimum cosine and euclidean similarity for the check", false,
               {}, "0.99,0.99"},
              &o.tolerance);
  p.addOption({{"--excepts"}, "NAMES", "tensors left out of the check"},
              &o.excepts);
  p.addOption({{"--mlir"}, "FILE", "output Top dialect MLIR file", true},
              &o.mlir);
  p.addOption({{"--progress"}, "FMT", "progress reports", false,
               kProgressChoices, "none"},
              &o.progress);
  p.addFlag({{"--debug"}, "",
             "keep intermediate files (ONNX Runtime's outputs as <model_name>_ref_outputs.npz)"},
            &o.debug);
  p.addOption({{"--snapshots"}, "DIR",
               "record the IR after every pass of the Top pipeline into DIR (index.json + one .mlir per pass)"},
              &o.snapshots);
}

preprocess::PreprocessFlags preprocessFlags(const TransformOptions &o) {
  preprocess::PreprocessFlags flags;
  flags.mean = o.mean;
  flags.scale = o.scale;
  flags.pixelFormat = o.pixelFormat;
  flags.channelFormat = o.channelFormat;
  flags.resizeDims = o.resizeDims;
  flags.keepAspectRatio = o.keepAspectRatio;
  flags.padValue = static_cast<double>(o.padValue);
  flags.padType = o.padType;
  return flags;
}

std::string validateTransformOptions(const TransformOptions &o) {
  if (!o.resizeDims.empty() && o.resizeDims.size() != 2)
    return "'--resize_dims' expects two numbers H,W";
  for (int64_t d : o.resizeDims)
    if (d <= 0)
      return "'--resize_dims' values must be positive";
  static const std::vector<std::string> kTypes = {
      "float32", "float16", "int32", "int64", "int8", "uint8", "bool", "None"};
  for (const std::string &t : o.inputTypes)
    if (std::find(kTypes.begin(), kTypes.end(), t) == kTypes.end())
      return "invalid input type '" + t +
             "' in '--input_types' (choose from float32, float16, int32, "
             "int64, int8, uint8, bool)";
  if (!o.inputTypes.empty() && !o.inputShapes.empty() &&
      o.inputTypes.size() != o.inputShapes.size())
    return "'--input_types' has " + std::to_string(o.inputTypes.size()) +
           " entries but '--input_shapes' has " +
           std::to_string(o.inputShapes.size());
  if (!o.testResult.empty() && o.testInput.empty())
    return "'--test_result' needs '--test_input'";
  if (!endsWith(o.mlir, ".mlir"))
    return "'--mlir' must name a .mlir file, got '" + o.mlir + "'";
  return checkTolerance("--tolerance", o.tolerance);
}


// --- calibrate ---------------------------------------------------------------

void addCalibrateOptions(ArgParser &p, CalibrateOptions &o) {
  p.addPositional({{"mlir_file"}, "", "Top dialect MLIR file to calibrate",
                   true},
                  &o.mlirFile);
  p.addOption({{"--dataset"}, "DIR", "directory of calibration inputs"},
              &o.dataset);
  p.addOption({{"--data_list"}, "FILE",
               "text file listing calibration inputs, one per line"},
              &o.dataList);
  p.addOption({{"--input_num"}, "N", "number of inputs to use (0 = all)",
               false, {}, "0"},
              &o.inputNum);
  p.addOption({{"--cali_method"},
               "METHOD",
               "threshold method",
               false,
               {"kl", "mse", "max", "percentile9999", "aciq_gauss",
                "aciq_laplace"},
               "kl"},
              &o.caliMethod);
  p.addOption({{"--histogram_bin_num"}, "N",
               "histogram bins for the kl method", false, {}, "2048"},
              &o.histogramBinNum);
  p.addOption({{"--search"},
               "MODE",
               "search_threshold: per tensor, the best of kl (tuned), octav, max and percentile9999 "
               "(report in <table>_search_threshold.csv); search_qtable: a mixed-precision quantize table",
               false,
               {"False", "search_threshold", "search_qtable"},
               "False"},
              &o.search);
  p.addOption({{"--benchmark_method"},
               "METHOD",
               "how search_threshold compares a tensor fake-quantized in INT8 with its float values",
               false,
               {"cos", "snr"},
               "cos"},
              &o.benchmarkMethod);
  p.addOption({{"--expected_cos"}, "COS",
               "target cosine similarity for search_qtable", false, {},
               "0.99"},
              &o.expectedCos);
  p.addOption({{"--max_float_layers"}, "N",
               "most layers search_qtable may keep in float", false, {}, "5"},
              &o.maxFloatLayers);
  p.addOption({{"-o", "--calibration_table"}, "FILE",
               "output calibration table", true},
              &o.calibrationTable);
  p.addOption({{"--quantize_table"}, "FILE",
               "output quantize table of --search search_qtable"},
              &o.quantizeTable);
  p.addOption({{"--search_report"},
               "FILE",
               "with --search search_qtable: every greedy step (the op, the output cosine, the simulated "
               "latency with that quantize table) as JSON"},
              &o.searchReport);
  p.addOption({{"--progress"}, "FMT", "progress reports", false,
               kProgressChoices, "none"},
              &o.progress);
  p.addFlag({{"--debug"}, "",
             "also write each tensor's statistics and every method's threshold (<table>_stats.csv) and "
             "its |x| histogram (<table>_histograms.npz)"},
            &o.debug);
  p.addOption({{"--threads"}, "N", "threads to use (0 = all cores)", false, {},
               "0"},
              &o.threads);
  p.addOption({{"--parallel"}, "HOW",
               "spread samples over threads, or the kernels of one sample",
               false, {"samples", "kernels"}, "samples"},
              &o.parallel);
  p.addOption({{"--chip", "--processor"}, "CHIP",
               "target chip of --search search_qtable", false, listChips(),
               std::string(kDefaultChip)},
              &o.chip);
  p.addOption(
      {{"--subset"},
       "NAME|FILE",
       "calibrate on a subset: a data list file (tpuc dataset export-list), or the name of a subset in "
       "the index of --dataset (tpuc dataset subset)"},
      &o.subset);
  p.addOption(
      {{"--report"},
       "DIR",
       "also write each tensor's histogram with every method's threshold (histograms.json) and how the "
       "thresholds converge as samples are added (convergence.json) into DIR"},
      &o.report);
  p.addOption(
      {{"--report_figures"},
       "N",
       "with --report, also PNG figures (overview.png, one per tensor for at most N tensors, index.html) "
       "when tpuc-view is installed beside tpuc; 0: JSON only",
       false,
       {},
       "64"},
      &o.reportFigures);
}

std::string validateCalibrateOptions(const CalibrateOptions &o) {
  if (o.dataset.empty() && o.dataList.empty() && o.subset.empty())
    return "one of '--dataset' or '--data_list' is required";
  if (!o.subset.empty() && !o.dataList.empty())
    return "'--subset' and '--data_list' both name the samples: give one";
  if (o.inputNum < 0)
    return "'--input_num' must not be negative";
  if (o.histogramBinNum < 2)
    return "'--histogram_bin_num' must be at least 2";
  if (!(o.expectedCos > 0 && o.expectedCos <= 1))
    return "'--expected_cos' must be in (0, 1]";
  if (o.maxFloatLayers < 0)
    return "'--max_float_layers' must not be negative";
  if (!o.quantizeTable.empty() && o.search != "search_qtable")
    return "'--quantize_table' needs '--search search_qtable'";
  if (o.search == "search_qtable" && o.quantizeTable.empty())
    return "'--search search_qtable' needs '--quantize_table'";
  if (!o.searchReport.empty() && o.search != "search_qtable")
    return "'--search_report' needs '--search search_qtable'";
  if (o.benchmarkMethod != "cos" && o.search != "search_threshold")
    return "'--benchmark_method' needs '--search search_threshold'";
  if (o.threads < 0)
    return "'--threads' must not be negative";
  if (o.reportFigures < 0)
    return "'--report_figures' must not be negative";
  return "";
}

// --- deploy ------------------------------------------------------------------

const std::vector<std::string> &deployPrecisions() {
  static const std::vector<std::string> precisions = {"F32",   "F16",    "BF16",  "INT8",
                                                      "W8F16", "W8BF16", "W4F16", "W4BF16"};
  return precisions;
}

void addDeployOptions(ArgParser &p, DeployOptions &o) {
  p.addOption({{"--mlir"}, "FILE", "Top dialect MLIR file to deploy", true},
              &o.mlir);
  p.addOption({{"--quantize"}, "MODE", "precision of the deployed model", true, deployPrecisions()},
              &o.quantize);
  p.addFlag({{"--asymmetric"}, "", "asymmetric INT8 quantization"},
            &o.asymmetric);
  p.addOption({{"--calibration_table"}, "FILE",
               "calibration table from 'tpuc calibrate' (needed for INT8)"},
              &o.calibrationTable);
  p.addOption({{"--quantize_table"}, "FILE",
               "per-layer precision overrides ('op_name MODE' lines)"},
              &o.quantizeTable);
  // Newer TPU-MLIR releases call it --processor; both spellings work.
  p.addOption({{"--chip", "--processor"}, "CHIP", "target chip profile", true,
               listChips()},
              &o.chip);
  p.addOption({{"--q_group_size"}, "N",
               "weight-only quantization group size (0 = per channel)", false,
               {}, "0"},
              &o.qGroupSize);
  p.addOption(
      {{"--test_input"},
       "FILES|DIR|LIST",
       "inputs to verify the deployed model with: one sample (one file per input: image, .npy, .npz; or "
       "one .npz holding every input), or with --compare_all many: a folder (every sample below it, "
       "as calibrate --dataset) or a data list (.txt, as calibrate --data_list); per-layer statistics "
       "over the samples in <stem>_compare_samples.json"},
      &o.testInput);
  p.addOption({{"--test_subset"},
               "NAME|FILE",
               "only the samples of a subset of the --test_input folder: a subset name in its index (tpuc "
               "dataset subset) or a data list file"},
              &o.testSubset);
  p.addOption({{"--test_num"},
               "N",
               "at most N samples of a --test_input folder or data list (0 = all)",
               false,
               {},
               "0"},
              &o.testNum);
  p.addOption({{"--test_reference"}, "FILE",
               "reference outputs (.npz) of --test_input"},
              &o.testReference);
  p.addOption({{"--tolerance"}, "COS,EUC",
               "minimum similarity of Tpu vs Top outputs", false, {},
               "0.8,0.5"},
              &o.tolerance);
  p.addFlag({{"--compare_all"}, "", "compare every tensor, not only outputs"},
            &o.compareAll);
  p.addFlag({{"--find_divergent"},
             "",
             "with --compare_all: name the first divergent layers (isolated error beyond --tolerance while "
             "their inputs are within it), re-run the worst of them in float and rank them by the output "
             "cosine gained (<stem>_first_divergent.json)"},
            &o.findDivergent);
  p.addOption({{"--divergent_top"}, "K", "first divergent layers re-run in float", false, {}, "5"},
              &o.divergentTop);
  p.addOption({{"--divergent_samples"},
               "N",
               "samples the float re-runs use (the worst by output cosine)",
               false,
               {},
               "3"},
              &o.divergentSamples);
  p.addOption({{"--tpu_mlir"}, "FILE", "also write the Tpu dialect MLIR here"},
              &o.tpuMlir);
  p.addOption({{"--snapshots"}, "DIR",
               "record the IR before and after lowering into DIR (index.json + one .mlir per pass)"},
              &o.snapshots);
  p.addOption({{"--model"}, "FILE",
               "write the model file here (.tpum: layer groups, addresses, both engines' commands; with "
               "--test_input it is run on the command-level simulator and checked against the Tpu MLIR)"},
              &o.model);
  p.addFlag({{"--quant_input"}, "",
             "keep inputs in the precision their first ops compute in (INT8 codes, F16, BF16): no cast on the "
             "chip, the caller quantizes"},
            &o.quantInput);
  p.addFlag({{"--quant_output"}, "", "return outputs in their own precision instead of casting them back to F32"},
            &o.quantOutput);
  p.addOption({{"--excepts"}, "NAMES", "tensors left out of the comparisons"}, &o.excepts);
  p.addFlag({{"--fuse_preprocess"}, "",
             "do the crop, channel reorder and (x - mean) * scale on the chip: image inputs take raw UINT8 pixels at "
             "their resize size (--test_input must then be an image)"},
            &o.fusePreprocess);
  p.addOption({{"--customization_format"}, "FORMAT",
               "layout of the raw pixels with --fuse_preprocess (default: the input's pixel and channel format)",
               false, {"RGB_PLANAR", "RGB_PACKED", "BGR_PLANAR", "BGR_PACKED", "GRAYSCALE"}},
              &o.customizationFormat);
  p.addFlag({{"--aligned_input"}, "", "CV18xx VPSS row alignment (not for bm1684x, bm1688, cv186ah: rejected)"},
            &o.alignedInput);
  p.addOption({{"--opt"}, "N", "layer-group optimization level", false,
               {"1", "2"}, "2"},
              &o.opt);
  p.addOption({{"--num_core"}, "N",
               "cores of the chip the model file spreads its work over (at most the chip's: bm1688 has 2)",
               false, {}, "1"},
              &o.numCore);
  p.addFlag({{"--explain_groups"}, "",
             "print why each layer group ends where it does and why ops run global (needs --model)"},
            &o.explainGroups);
  p.addOption({{"--correctness"}, "COS,EUC",
               "minimum similarity of the model file vs Tpu MLIR outputs",
               false, {}, "0.99,0.90"},
              &o.correctness);
  p.addFlag({{"--debug"}, "",
             "keep intermediate files: the lowered Tpu MLIR and, with --model, the grouped and addressed one"},
            &o.debug);
  p.addOption({{"--progress"}, "FMT", "progress reports", false,
               kProgressChoices, "none"},
              &o.progress);
}

std::string validateDeployOptions(const DeployOptions &o) {
  bool weightOnly = o.quantize.rfind("W", 0) == 0;
  if (o.quantize == "INT8" && o.calibrationTable.empty())
    return "'--quantize INT8' needs '--calibration_table'";
  if (o.asymmetric && o.quantize != "INT8")
    return "'--asymmetric' applies to '--quantize INT8' only";
  if (o.qGroupSize < 0)
    return "'--q_group_size' must not be negative";
  if (o.qGroupSize > 0 && !weightOnly)
    return "'--q_group_size' applies to W8*/W4* quantization only";
  if (!o.testReference.empty() && o.testInput.empty())
    return "'--test_reference' needs '--test_input'";
  if (!o.testSubset.empty() && o.testInput.size() != 1)
    return "'--test_subset' needs '--test_input DIR' (the folder whose samples it selects)";
  if (o.testNum < 0)
    return "'--test_num' must not be negative";
  if (o.testNum > 0 && o.testInput.size() != 1)
    return "'--test_num' needs '--test_input DIR' or '--test_input LIST.txt'";
  if (o.findDivergent && !o.compareAll)
    return "'--find_divergent' needs '--compare_all' (it reads the per-layer comparisons)";
  if (o.findDivergent && !o.testReference.empty())
    return "'--find_divergent' re-runs the Top reference: it does not take '--test_reference'";
  if (o.divergentTop < 1)
    return "'--divergent_top' must be at least 1";
  if (o.divergentSamples < 1)
    return "'--divergent_samples' must be at least 1";
  if (o.explainGroups && o.model.empty())
    return "'--explain_groups' needs '--model'";
  if (o.numCore < 1)
    return "'--num_core' must be at least 1, got " + std::to_string(o.numCore);
  if (!o.customizationFormat.empty() && !o.fusePreprocess)
    return "'--customization_format' needs '--fuse_preprocess'";
  if (o.alignedInput)
    return "'--aligned_input' aligns input rows for the VPSS of CV18xx chips; " + o.chip +
           " reads inputs at any row pitch (use --fuse_preprocess alone)";
  std::string error = checkTolerance("--tolerance", o.tolerance);
  if (error.empty())
    error = checkTolerance("--correctness", o.correctness);
  return error;
}

// --- run -----------------------------------------------------------------------

void addRunOptions(ArgParser &p, RunOptions &o) {
  p.addOption({{"--model"}, "FILE", "model file (.tpum) to run on the command-level simulator, or Top / Tpu "
                                    "MLIR to run on the reference interpreter / Tpu functional simulator",
               true},
              &o.model);
  p.addOption({{"--input"}, "FILE", "input tensors (.npz, by input name; .npy for a single input)", true},
              &o.input);
  p.addOption({{"--output"}, "FILE", "output tensors (.npz)", false, {}, "_output.npz"}, &o.output);
  p.addFlag({{"--dump_all_tensors"}, "", "write every op's tensor, not only the outputs"}, &o.dumpAllTensors);
  p.addOption({{"--profile"}, "FILE",
               "write the engine trace (Chrome trace events: every TIU and GDMA command with its start, end "
               "and op) as JSON"},
              &o.profile);
  p.addOption({{"--net"}, "NAME", "net of a model file with several (default: the first)"}, &o.net);
  p.addOption({{"--threads"}, "N", "threads for the kernels (0 = all cores)", false, {}, "0"}, &o.threads);
  p.addOption({{"--progress"}, "FMT", "progress reports", false, kProgressChoices, "none"}, &o.progress);
}

std::string validateRunOptions(const RunOptions &o) {
  if (!endsWith(o.output, ".npz"))
    return "'--output' must name a .npz file, got '" + o.output + "'";
  if (o.threads < 0)
    return "'--threads' must not be negative";
  if (!o.profile.empty() && !endsWith(o.model, ".tpum"))
    return "'--profile' needs a model file (.tpum): MLIR runs have no engine trace";
  return "";
}

std::string deployArtifactStem(const DeployOptions &o) {
  if (!o.tpuMlir.empty())
    return stripSuffix(o.tpuMlir, ".mlir");
  if (!o.model.empty()) {
    size_t dot = o.model.find_last_of('.');
    size_t slash = o.model.find_last_of('/');
    return dot != std::string::npos && (slash == std::string::npos || dot > slash) ? o.model.substr(0, dot) : o.model;
  }
  std::string stem = stripSuffix(o.mlir, ".mlir");
  size_t slash = stem.find_last_of('/');
  if (slash != std::string::npos)
    stem = stem.substr(slash + 1);
  std::string mode = o.quantize;
  for (char &c : mode)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return stem + "_" + mode;
}

std::string deployResultPath(const DeployOptions &o) { return deployArtifactStem(o) + "_result.json"; }

std::string runResultPath(const RunOptions &o) { return stripSuffix(o.output, ".npz") + "_run_result.json"; }

std::string calibrateResultPath(const CalibrateOptions &o) { return o.calibrationTable + "_result.json"; }

std::string llmConvertResultPath(const LlmConvertOptions &o) {
  return (o.outDir.empty() || o.outDir.back() == '/' ? o.outDir : o.outDir + "/") + "llm_convert_result.json";
}

std::string transformResultPath(const TransformOptions &o) {
  return stripSuffix(o.mlir, ".mlir") + "_transform_result.json";
}

} // namespace tpuc::driver
