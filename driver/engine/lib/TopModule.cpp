//===- TopModule.cpp - Loading a Top MLIR file for the tpuc subcommands ---===//

#include "tpuc/Driver/TopModule.h"

#include "tpuc/Dialect/Top/TopDialect.h"
#include "tpuc/Transforms/Pipelines.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include <filesystem>

namespace tpuc::cli {

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> loadTopModule(mlir::MLIRContext &context,
                                                                const std::string &path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), path + ": no such file");
  mlir::DialectRegistry registry;
  registerDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  std::string firstDiagnostic;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    if (firstDiagnostic.empty()) {
      firstDiagnostic = diag.str();
      if (auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(diag.getLocation()))
        firstDiagnostic = "line " + std::to_string(loc.getLine()) + ": " + firstDiagnostic;
    }
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceFile<mlir::ModuleOp>(path, &context);
  if (!module)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        path + ": " + (firstDiagnostic.empty() ? std::string("cannot parse MLIR") : firstDiagnostic));
  auto weightAttr = (*module)->getAttrOfType<mlir::StringAttr>(top::TopDialect::kWeightFileAttr);
  if (weightAttr && !weightAttr.getValue().empty()) {
    fs::path weights(weightAttr.str());
    if (weights.is_relative() && !fs::exists(weights, ec)) {
      fs::path beside = fs::path(path).parent_path() / weights;
      if (fs::exists(beside, ec))
        (*module)->setAttr(top::TopDialect::kWeightFileAttr,
                           mlir::StringAttr::get(&context, fs::absolute(beside, ec).string()));
    }
  }
  return module;
}

} // namespace tpuc::cli
