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
  /// Its man page (man) or bash completion function, from its flag binding; null for `view`, whose
  /// binding is tpuc-view's.
  std::string (*describe)(const Subcommand &self, bool man) = nullptr;
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

/// Each subcommand's parser with its flags bound (to a throwaway struct): what --help prints, for the man
/// pages and the completion.
template <typename Options>
std::string describeWith(const Subcommand &self, void (*addOptions)(ArgParser &, Options &), bool man) {
  Options opts;
  ArgParser parser(std::string("tpuc ") + self.name, self.summary);
  addOptions(parser, opts);
  return man ? manPage(parser, "TPU Studio " TPUC_VERSION) : bashCompletionFunction(parser);
}

constexpr const char *kExitStatus =
    ".TP\n0\nsuccess\n.TP\n1\nthe job failed (e.g. tensors out of tolerance)\n.TP\n2\nbad usage or "
    "unreadable input\n.TP\n3\nthe subcommand's engine is not in this build\n";

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
  },                                                                           \
  [](const Subcommand &self, bool man) {                                       \
    return describeWith<Name##Options>(self, add##Name##Options, man);         \
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
    {"sweep",
     "Run a model zoo: every model, precision and chip of a manifest through transform, calibrate, deploy, "
     "run and compare, on a local process pool or as one Slurm job array, into one report (JSON and "
     "HTML), compared with a previous sweep.",
     TPUC_SUBCOMMAND(Sweep)},
    {"view",
     "Draw a deploy's layer groups, memory timeline or engine timeline as SVG, PNG or CSV, or a calibration "
     "report's figures as PNG (the studio's views, headless).",
     runView},
};

std::string describeView(bool calibration, bool man);

std::string describeSubcommand(const Subcommand &sub, bool man) {
  std::string text = sub.describe ? sub.describe(sub, man) : describeView(false, man);
  if (man && !text.empty())
    text += ".SH EXIT STATUS\n" + std::string(kExitStatus) + ".SH SEE ALSO\n\\fBtpuc\\fR(1)\n";
  return text;
}

void printUsage(std::ostream &out);

/// `tpuc --help-man [COMMAND]`: tpuc(1), or a subcommand's page, in roff; `tpuc --help-bash`: the bash
/// completion of tpuc and every subcommand. Both come from the flag bindings the subcommands parse with;
/// `view`'s from tpuc-view (its own binding), asked through the same options.
int printDocs(bool man, std::span<const std::string> rest);

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
         "  -h, --help    show this help and exit\n"
         "  --help-man [COMMAND]  print tpuc(1), or a command's man page, as roff\n"
         "  --help-bash   print the bash completion of tpuc and its commands\n\n"
         "Run 'tpuc <command> --help' for the options of a command.\n"
         "Exit status: 0 success, 1 the job failed (e.g. tensors out of "
         "tolerance),\n2 bad usage or unreadable input, 3 not implemented "
         "in this build.\n";
}

/// tpuc-view's page or completion function (`tpuc view` and `tpuc view calibration`): its output, or ""
/// with a note on stderr when it is not installed beside tpuc.
std::string describeView(bool calibration, bool man) {
  std::filesystem::path viewer = siblingProgram("tpuc-view");
  std::vector<std::string> args;
  if (calibration)
    args.push_back("calibration");
  args.push_back(man ? "--help-man" : "--help-bash");
  ChildRun run = runChild(viewer.string(), args);
  if (run.exitCode != 0) {
    std::cerr << "tpuc: " << viewer.string() << " " << args.front() << ": "
              << (run.error.empty() ? run.output : run.error) << std::endl;
    return "";
  }
  return run.output;
}

int printDocs(bool man, std::span<const std::string> rest) {
  if (man && rest.size() == 1) {
    if (rest[0] == "view-calibration") {
      std::string page = describeView(true, true);
      std::cout << page;
      return page.empty() ? kExitNotImplemented : kExitOk;
    }
    for (const Subcommand &sub : kSubcommands)
      if (rest[0] == sub.name) {
        std::string page = describeSubcommand(sub, true);
        std::cout << page;
        return page.empty() ? kExitNotImplemented : kExitOk;
      }
    std::cerr << "tpuc: unknown command '" << rest[0] << "' (see 'tpuc --help')" << std::endl;
    return kExitUsage;
  }
  if (!rest.empty()) {
    std::cerr << "tpuc: usage: tpuc --help-man [COMMAND] | tpuc --help-bash" << std::endl;
    return kExitUsage;
  }
  if (man) {
    std::cout << ".TH \"TPUC\" \"1\" \"\" \"TPU Studio " TPUC_VERSION "\" \"User Commands\"\n"
              << ".SH NAME\ntpuc \\- compile, quantize and simulate neural networks for TPU\\-style accelerators\n"
              << ".SH SYNOPSIS\n.B tpuc\n\\fIcommand\\fR [\\fIoptions\\fR]\n"
              << ".SH DESCRIPTION\nTPU Studio's compiler driver. Flags keep the names of TPU\\-MLIR's tools, "
                 "so scripts written for them port. Each command has its own page.\n"
              << ".SH COMMANDS\n";
    for (const Subcommand &sub : kSubcommands)
      std::cout << ".TP\n\\fB" << roffEscape(sub.name) << "\\fR\n" << roffEscape(sub.summary) << "\n";
    std::cout << ".SH OPTIONS\n.TP\n\\fB\\-\\-version\\fR\nprint the version and exit\n"
              << ".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nshow the help and exit\n"
              << ".TP\n\\fB\\-\\-help\\-man\\fR [\\fIcommand\\fR]\nprint this page, or a command's, as roff\n"
              << ".TP\n\\fB\\-\\-help\\-bash\\fR\nprint the bash completion of tpuc\n"
              << ".SH EXIT STATUS\n" << kExitStatus << ".SH SEE ALSO\n";
    std::string seeAlso;
    for (const Subcommand &sub : kSubcommands)
      seeAlso += (seeAlso.empty() ? "" : ",\n") + std::string("\\fBtpuc\\-") + roffEscape(sub.name) + "\\fR(1)";
    std::cout << seeAlso << ",\n\\fBtpu\\-studio\\fR(1), \\fBtpuc\\-opt\\fR(1)\n";
    return kExitOk;
  }
  // Completion: one function per command, then the dispatcher on the command word.
  std::string script = "# bash completion for tpuc, written by 'tpuc --help-bash' from its flag bindings\n";
  std::string commands, arms;
  for (const Subcommand &sub : kSubcommands) {
    commands += (commands.empty() ? "" : " ") + std::string(sub.name);
    if (std::string(sub.name) == "view") {
      std::string view = describeView(false, false), calibration = describeView(true, false);
      if (view.empty() || calibration.empty())
        return kExitNotImplemented;
      script += view + calibration;
      arms += "    view) if [[ ${COMP_WORDS[2]} == calibration && $COMP_CWORD -gt 2 ]]; then "
              "_tpuc_view_calibration; else _tpuc_view; [[ $COMP_CWORD -eq 2 ]] && "
              "COMPREPLY+=($(compgen -W calibration -- \"${COMP_WORDS[2]}\")); fi ;;\n";
      continue;
    }
    script += describeSubcommand(sub, false);
    arms += "    " + std::string(sub.name) + ") " + bashFunctionName(std::string("tpuc ") + sub.name) + " ;;\n";
  }
  script += "_tpuc() {\n  if [[ $COMP_CWORD -eq 1 ]]; then\n"
            "    COMPREPLY=($(compgen -W '" + commands + " --help --version' -- \"${COMP_WORDS[1]}\"))\n"
            "    return 0\n  fi\n  case ${COMP_WORDS[1]} in\n" + arms + "  esac\n}\n"
            "complete -F _tpuc tpuc\n";
  std::cout << script;
  return kExitOk;
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
  if (first == "--help-man" || first == "--help-bash")
    return printDocs(first == "--help-man", std::span<const std::string>(args).subspan(1));
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
