//===- main.cpp - tpuc: TPU Studio's command-line driver ------------------===//
//
// `tpuc <command> [options]`: one executable for TPU-MLIR's scripts
// (model_transform, run_calibration, model_deploy, model_runner, npz_tool,
// llm_convert, model_tool) with the same flag names. The studio runs it as a
// child process and reads `--progress json` lines from its stdout.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "tpuc/Support/ParseOrExit.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <unistd.h>

using namespace tpuc;
using namespace tpuc::cli;

namespace {

struct Subcommand {
  const char *name;
  const char *summary;
  int (*main)(const Subcommand &self, std::span<const std::string> args);
};

/// Parses, validates and runs one subcommand.
template <typename Options>
int drive(const Subcommand &self, std::span<const std::string> args,
          void (*addOptions)(ArgParser &, Options &),
          std::string (*validate)(const Options &),
          int (*run)(const Options &)) {
  Options opts;
  std::string program = std::string("tpuc ") + self.name;
  ArgParser parser(program, self.summary);
  addOptions(parser, opts);
  if (std::optional<int> exit = parseOrExit(parser, args, kExitUsage))
    return *exit;
  std::string error = validate(opts);
  if (!error.empty()) {
    std::cerr << program << ": " << error << " (see '" << program
              << " --help')" << std::endl;
    return kExitUsage;
  }
  return run(opts);
}

/// `tpuc view`: the chip views are drawn by the studio's code, which needs Qt; tpuc stays Qt-free and hands
/// the arguments to tpuc-view, installed beside it.
int runView(const Subcommand &, std::span<const std::string> args) {
  std::filesystem::path viewer = siblingProgram("tpuc-view");
  if (!std::filesystem::exists(viewer)) {
    std::cerr << "tpuc view: " << viewer.string()
              << " is missing (it is built with the studio: configure with TPUC_BUILD_STUDIO=ON)" << std::endl;
    return kExitNotImplemented;
  }
  std::string program = viewer.string();
  std::vector<std::string> copy(args.begin(), args.end());
  std::vector<char *> argv{program.data()};
  for (std::string &a : copy)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(program.c_str(), argv.data());
  std::cerr << "tpuc view: cannot run " << program << ": " << std::strerror(errno) << std::endl;
  return kExitUsage;
}

#define TPUC_SUBCOMMAND(Name)                                                  \
  [](const Subcommand &self, std::span<const std::string> args) {              \
    return drive<Name##Options>(self, args, add##Name##Options,                \
                                validate##Name##Options, run##Name);           \
  }

const Subcommand kSubcommands[] = {
    {"transform",
     "Convert an ONNX model into Top dialect MLIR and weights "
     "(TPU-MLIR's model_transform).",
     TPUC_SUBCOMMAND(Transform)},
    {"calibrate",
     "Collect activation statistics over a dataset and write a calibration "
     "table (TPU-MLIR's run_calibration).",
     TPUC_SUBCOMMAND(Calibrate)},
    {"deploy",
     "Lower Top MLIR to a chip, quantize and compile a model file "
     "(TPU-MLIR's model_deploy).",
     TPUC_SUBCOMMAND(Deploy)},
    {"run", "Run a model file or MLIR on the simulator (TPU-MLIR's model_runner).", TPUC_SUBCOMMAND(Run)},
    {"compare",
     "Compare two .npz tensor files by cosine, euclidean similarity and SQNR "
     "(TPU-MLIR's npz_tool compare). Exit status 0 when every compared "
     "tensor passes, 1 when one fails, 2 on bad input.",
     TPUC_SUBCOMMAND(Compare)},
    {"llm-convert",
     "Compile a HuggingFace LLM checkpoint stage by stage (LLM-TPU's "
     "llm_convert).",
     TPUC_SUBCOMMAND(LlmConvert)},
    {"llm-run", "Generate text with a compiled LLM on the simulator.", TPUC_SUBCOMMAND(LlmRun)},
    {"model-tool", "Inspect, extract or combine model files (TPU-MLIR's model_tool).",
     TPUC_SUBCOMMAND(ModelTool)},
    {"graph", "Draw MLIR as a graph: SVG, PNG or dot by Graphviz, or the studio's graph JSON.",
     TPUC_SUBCOMMAND(Graph)},
    {"dataset",
     "Index a calibration folder (metadata, unreadable files, changes), make named subsets, export them as "
     "data lists, and report duplicates and outliers.",
     TPUC_SUBCOMMAND(Dataset)},
    {"runs",
     "Tell two runs apart: what differs between their manifests (version, flags, the hashes of the model, "
     "tables, samples and chip profile) and their per-layer accuracy side by side.",
     TPUC_SUBCOMMAND(Runs)},
    {"view",
     "Draw a deploy's layer groups, memory timeline or engine timeline as SVG, PNG or CSV, or a calibration "
     "report's figures as PNG (the studio's views, headless).",
     runView},
};

void printUsage(std::ostream &out) {
  out << "usage: tpuc <command> [options]\n\n"
         "TPU Studio's compiler driver. Flags keep the names of TPU-MLIR's "
         "tools.\n\ncommands:\n";
  for (const Subcommand &sub : kSubcommands) {
    std::string summary = sub.summary;
    // The first sentence.
    if (size_t end = summary.find(". "); end != std::string::npos)
      summary = summary.substr(0, end + 1);
    std::string name = sub.name;
    out << "  " << name << std::string(14 - name.size(), ' ') << summary
        << "\n";
  }
  out << "\noptions:\n"
         "  --version     print the version and exit\n"
         "  -h, --help    show this help and exit\n\n"
         "Run 'tpuc <command> --help' for the options of a command.\n"
         "Exit status: 0 success, 1 the job failed (e.g. tensors out of "
         "tolerance),\n2 bad usage or unreadable input, 3 not implemented "
         "in this build.\n";
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    printUsage(std::cerr);
    return kExitUsage;
  }
  const std::string &first = args.front();
  if (first == "-h" || first == "--help" || first == "help") {
    printUsage(std::cout);
    return kExitOk;
  }
  if (first == "--version") {
    std::cout << "tpuc " TPUC_VERSION " (TPU Studio)\n";
    return kExitOk;
  }
  for (const Subcommand &sub : kSubcommands)
    if (first == sub.name)
      return sub.main(sub, std::span<const std::string>(args).subspan(1));
  if (first.rfind("-", 0) == 0)
    std::cerr << "tpuc: unknown option '" << first << "' (see 'tpuc --help')"
              << std::endl;
  else
    std::cerr << "tpuc: unknown command '" << first << "' (see 'tpuc --help')"
              << std::endl;
  return kExitUsage;
}
