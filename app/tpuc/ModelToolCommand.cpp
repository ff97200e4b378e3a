//===- ModelToolCommand.cpp - model-tool (TPU-MLIR's model_tool) ----------===//
// Inspect, split and merge .tpum model files (docs/MODEL_FORMAT.md).

#include "Commands.h"

#include "tpuc/Codegen/ModelFile.h"

#include <filesystem>
#include <iostream>

namespace tpuc::cli {

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

int runModelTool(const ModelToolOptions &o) {
  using namespace tpuc::codegen;
  Model model;
  try {
    if (!o.info.empty() || !o.print.empty()) {
      model = readModelFile(o.info.empty() ? o.print : o.info);
      std::cout << (o.info.empty() ? modelPrint(model) : modelInfo(model));
      return kExitOk;
    }
    if (!o.extract.empty()) {
      model = readModelFile(o.extract);
      std::filesystem::path dir = o.output.empty() ? "." : o.output;
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      for (size_t i = 0; i < model.nets.size(); ++i) {
        std::string path = (dir / (model.nets[i].name + ".tpum")).string();
        writeModelFile(path, extractNet(model, i));
        std::cout << path << "\n";
      }
      return kExitOk;
    }
    std::vector<Model> parts;
    for (const std::string &f : o.combine)
      parts.push_back(readModelFile(f));
    model = combineModels(parts);
    writeModelFile(o.output, model);
    size_t before = 0;
    for (const Model &m : parts)
      before += m.coeffData.size();
    std::cout << o.output << ": " << model.nets.size() << " nets, coefficients " << model.coeffData.size()
              << " bytes (" << before << " before deduplication)\n";
    return kExitOk;
  } catch (const ModelFileError &e) {
    std::cerr << "tpuc model-tool: " << e.what() << "\n";
    return kExitUsage;
  }
}

} // namespace tpuc::cli
