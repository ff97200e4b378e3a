//===- TestInputs.cpp - --test_input files as tensors for a Top module ---===//

#include "tpuc/Driver/TestInputs.h"

#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Simulator/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tpuc::cli {

mlir::func::FuncOp entryFunction(mlir::ModuleOp module) {
  mlir::func::FuncOp only;
  for (auto func : module.getOps<mlir::func::FuncOp>()) {
    if (func.getName() == "main")
      return func;
    only = func;
  }
  return only;
}

std::vector<std::string> inputNames(mlir::ModuleOp module) {
  mlir::func::FuncOp func = entryFunction(module);
  if (!func)
    return {};
  std::vector<mlir::Value> arguments(func.getArguments().begin(), func.getArguments().end());
  return top::nameValues(func, arguments);
}

std::vector<preprocess::PreprocessConfig> preprocessConfigs(mlir::ModuleOp module,
                                                            const sim::Interpreter &interpreter) {
  std::vector<preprocess::PreprocessConfig> configs;
  std::vector<std::string> names = interpreter.inputNames();
  mlir::func::FuncOp func = entryFunction(module);
  for (size_t i = 0; i < names.size(); ++i) {
    preprocess::PreprocessConfig cfg;
    cfg.inputName = names[i];
    cfg.inputShape = interpreter.inputShape(i);
    top::InputOp input;
    if (func && i < func.getNumArguments())
      for (mlir::Operation *user : func.getArgument(i).getUsers())
        if ((input = llvm::dyn_cast<top::InputOp>(user)))
          break;
    if (input) {
      if (auto mean = input.getMean())
        cfg.mean.assign(mean->begin(), mean->end());
      if (auto scale = input.getScale())
        cfg.scale.assign(scale->begin(), scale->end());
      if (auto format = input.getPixelFormat())
        cfg.pixelFormat = *preprocess::parsePixelFormat(top::stringifyPixelFormat(*format).str());
      if (auto layout = input.getChannelFormat())
        cfg.channelFormat = *preprocess::parseChannelFormat(top::stringifyChannelFormat(*layout).str());
      if (auto dims = input.getResizeDims())
        cfg.resizeDims.assign(dims->begin(), dims->end());
      cfg.keepAspectRatio = input.getKeepAspectRatio();
      cfg.padValue = input.getPadValue().convertToDouble();
      if (auto pad = input.getPadType())
        cfg.padType = *preprocess::parsePadType(top::stringifyPadType(*pad).str());
    }
    configs.push_back(std::move(cfg));
  }
  return configs;
}

llvm::Expected<NpzFile> loadTestInputs(const std::vector<std::string> &files,
                                       const sim::Interpreter &interpreter, mlir::ModuleOp module) {
  std::vector<preprocess::PreprocessConfig> configs = preprocessConfigs(module, interpreter);
  try {
    std::map<std::string, Tensor> tensors = preprocess::loadTestInputs(files, configs);
    NpzFile inputs;
    for (const auto &cfg : configs) // argument order, not the map's
      inputs.set(cfg.inputName, tensors.at(cfg.inputName));
    return inputs;
  } catch (const std::exception &e) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), e.what());
  }
}

} // namespace tpuc::cli
