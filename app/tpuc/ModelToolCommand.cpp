//===- ModelToolCommand.cpp - model-tool (TPU-MLIR's model_tool) ----------===//

#include "Commands.h"

namespace tpuc::cli {

void addModelToolOptions(ArgParser &p, ModelToolOptions &o) {
  p.addOption({{"--info"}, "FILE", "summary of a model file (stages, I/O, "
               "memory)"},
              &o.info);
  p.addOption({{"--print"}, "FILE", "dump a model file in full (commands, "
               "tensors)"},
              &o.print);
  p.addOption({{"--extract"}, "FILE",
               "split a combined model file into one file per network"},
              &o.extract);
  p.addOption({{"--combine"}, "FILES",
               "merge model files into one (needs -o), comma-separated"},
              &o.combine);
  p.addOption({{"-o", "--output"}, "FILE", "output file of --combine"},
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

int runModelTool(const ModelToolOptions &) {
  return notImplemented("model-tool");
}

} // namespace tpuc::cli
