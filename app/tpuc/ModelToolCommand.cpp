//===- ModelToolCommand.cpp - model-tool (TPU-MLIR's model_tool) ----------===//
// Inspect, split and merge .tpum model files (docs/MODEL_FORMAT.md).

#include "Commands.h"

#include "tpuc/Codegen/ModelFile.h"

#include <filesystem>
#include <iostream>

namespace tpuc::cli {

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
