//===- ToolRequests.cpp - Flags of compare, graph and model-tool ----------===//
//
// Flags, defaults and help texts of TPU-MLIR's npz_tool compare and
// model_tool, and of `tpuc graph`.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Driver/Requests.h"

namespace tpuc::driver {

void addCompareOptions(ArgParser &p, CompareOptions &o) {
  p.addPositional(
      {{"target_file"},
       "",
       "tensors to check (.npz), or a folder of them: each compared with the file of the same name "
       "in the reference folder, statistics per tensor over the pairs",
       true},
      &o.targetFile);
  p.addPositional({{"ref_file"}, "", "reference tensors (.npz), or a folder of them", true},
                  &o.referenceFile);
  p.addOption({{"--tolerance"}, "COS,EUC",
               "minimum cosine and euclidean similarity", false, {},
               "0.99,0.99"},
              &o.tolerance);
  p.addOption({{"--excepts"}, "NAMES",
               "tensors left out of the comparison, comma-separated"},
              &o.excepts);
  p.addOption({{"--format"},
               "FMT",
               "report format (with folders: json is the compare_samples record, csv one row per tensor)",
               false,
               {"text", "csv", "json"},
               "text"},
              &o.format);
  p.addOption({{"-o", "--output"}, "FILE",
               "write the report here instead of stdout"},
              &o.output);
  p.addOption({{"--save"}, "FILE",
               "also write a CSV report here (npz_tool's --save)"},
              &o.save);
  p.addFlag({{"-v", "--verbose"}, "",
             "text report: shapes, dtypes, close order and notes per tensor"},
            &o.verbose);
  p.addFlag({{"--raw_u16"}, "",
             "compare uint16 arrays as integers (default: decode as bf16, "
             "like npz_tool)"},
            &o.rawU16);
  p.addOption({{"--result_json"}, "FILE", "also write the result record (schema tpuc.result, version 1) as JSON"},
              &o.resultJson);
}

std::string validateCompareOptions(const CompareOptions &o) {
  return checkTolerance("--tolerance", o.tolerance);
}

void addRunsOptions(ArgParser &p, RunsOptions &o) {
  p.addPositional({{"action"}, "ACTION", "diff", true, {"diff"}}, &o.action);
  p.addPositional({{"manifest_a"}, "A", "the first run's manifest (<stem>_manifest.json)", true}, &o.a);
  p.addPositional({{"manifest_b"}, "B", "the second run's manifest", true}, &o.b);
  p.addOption({{"--format"}, "FMT", "text, or json (schema tpuc.runs_diff)", false, {"text", "json"}, "text"},
              &o.format);
  p.addOption({{"-o", "--output"}, "FILE", "write the report here instead of stdout"}, &o.output);
}

std::string validateRunsOptions(const RunsOptions &) { return ""; }

void addGraphOptions(ArgParser &p, GraphOptions &o) {
  p.addPositional({{"mlir"}, "FILE", "MLIR file (text or bytecode) to draw", true}, &o.mlir);
  p.addOption({{"--format"}, "FORMAT", "output format", false, {"svg", "png", "dot", "json"}, "svg"}, &o.format);
  p.addOption({{"-o", "--output"}, "FILE", "output file", true}, &o.output);
  p.addOption({{"--expand"}, "WHICH",
               "clusters drawn open: all, none, or auto (all up to 400 ops, else none)", false,
               {"auto", "all", "none"}, "auto"},
              &o.expand);
  p.addOption({{"--cluster_by"}, "KEY", "what clusters group: name scopes or layer groups", false,
               {"scope", "layer_group"}, "scope"},
              &o.clusterBy);
}

std::string validateGraphOptions(const GraphOptions &) { return ""; }

void addModelToolOptions(ArgParser &p, ModelToolOptions &o) {
  p.addOption({{"--info"}, "FILE", "summary of a model file (stages, I/O, "
               "memory)"},
              &o.info);
  p.addOption({{"--print"}, "FILE", "dump a model file in full (commands, "
               "tensors)"},
              &o.print);
  p.addOption({{"--extract"}, "FILE",
               "split a combined model file into one file per network "
               "(<net>.tpum in -o DIR, default .)"},
              &o.extract);
  p.addOption({{"--combine"}, "FILES",
               "merge model files into one (needs -o), comma-separated; "
               "identical weights are stored once"},
              &o.combine);
  p.addOption({{"-o", "--output"}, "FILE", "output file of --combine, "
               "output directory of --extract"},
              &o.output);
}

std::string validateModelToolOptions(const ModelToolOptions &o) {
  int actions = !o.info.empty() + !o.print.empty() + !o.extract.empty() +
                !o.combine.empty();
  if (actions != 1)
    return "exactly one of '--info', '--print', '--extract' or '--combine' is "
           "required";
  if (!o.combine.empty() && o.output.empty())
    return "'--combine' needs '-o'";
  if (!o.combine.empty() && o.combine.size() < 2)
    return "'--combine' needs at least two model files";
  return "";
}

void addDatasetOptions(ArgParser &p, DatasetOptions &o) {
  p.addPositional({{"action"}, "ACTION", "scan, subset, export-list or report", true}, &o.action);
  p.addPositional(
      {{"folder"}, "DIR", "the dataset folder (its index is DIR/.tpuc/index.json unless --index)"},
      &o.folder);
  p.addOption({{"--index"}, "FILE", "the dataset index (JSON) to write or read"}, &o.index);
  p.addOption({{"--cache"}, "DIR", "scan: the content-hash metadata cache (default: beside the index)"},
              &o.cache);
  p.addOption({{"--threads"}, "N", "scan: threads to use (0 = all cores)", false, {}, "0"}, &o.threads);
  p.addOption({{"--name"}, "NAME", "subset: the subset's name"}, &o.name);
  p.addOption({{"--method"},
               "METHOD",
               "subset: how files are chosen",
               false,
               {"random", "first", "stratified", "manual", "diverse"},
               "random"},
              &o.method);
  p.addOption({{"--count"}, "N", "subset: how many files", false, {}, "0"}, &o.count);
  p.addOption({{"--seed"}, "N", "subset: seed of random and stratified", false, {}, "0"}, &o.seed);
  p.addOption({{"--files"}, "PATHS", "subset --method manual: the files, comma-separated"}, &o.files);
  p.addOption({{"--subset"}, "NAME", "export-list: the subset to write"}, &o.subset);
  p.addOption(
      {{"-o", "--output"}, "FILE", "export-list: the data list; report: the JSON report (default stdout)"},
      &o.output);
  p.addOption({{"--near_threshold"},
               "BITS",
               "report: near duplicates differ in at most this many dHash bits",
               false,
               {},
               "5"},
              &o.nearThreshold);
  p.addOption(
      {{"--outlier_z"}, "Z", "report: robust z-score above which a file is an outlier", false, {}, "5"},
      &o.outlierZ);
  p.addOption({{"--progress"}, "FMT", "progress reports", false, {"none", "json", "text"}, "none"},
              &o.progress);
}

std::string validateDatasetOptions(const DatasetOptions &o) {
  if (o.action != "scan" && o.action != "subset" && o.action != "export-list" && o.action != "report")
    return "invalid action '" + o.action + "' (choose from scan, subset, export-list, report)";
  if (o.folder.empty() && (o.action == "scan" || o.index.empty()))
    return o.action == "scan" ? "'scan' needs the folder DIR"
                              : "'" + o.action + "' needs the folder DIR or '--index'";
  if (o.threads < 0)
    return "'--threads' must not be negative";
  if (o.action == "subset") {
    if (o.name.empty())
      return "'subset' needs '--name'";
    if (o.method == "manual" ? o.files.empty() : o.count < 1)
      return o.method == "manual" ? "'--method manual' needs '--files'"
                                  : "'subset' needs '--count' of at least 1";
  }
  if (o.action == "export-list" && (o.subset.empty() || o.output.empty()))
    return "'export-list' needs '--subset' and '-o'";
  if (o.nearThreshold < 0 || o.nearThreshold > 64)
    return "'--near_threshold' must be in 0..64";
  if (!(o.outlierZ > 0))
    return "'--outlier_z' must be positive";
  return "";
}

} // namespace tpuc::driver
