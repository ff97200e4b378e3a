//===- TestIR.h - Helpers to parse IR in dialect unit tests ---------------===//
#ifndef TPUC_TESTS_UNIT_DIALECT_TESTIR_H
#define TPUC_TESTS_UNIT_DIALECT_TESTIR_H

#include "tpuc/Transforms/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

namespace tpuc::test {

/// A context with every tpuc dialect loaded.
inline std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  registerDialects(registry);
  auto context = std::make_unique<mlir::MLIRContext>(registry);
  context->loadAllAvailableDialects();
  return context;
}

inline mlir::OwningOpRef<mlir::ModuleOp> parse(mlir::MLIRContext &context, llvm::StringRef text) {
  return mlir::parseSourceString<mlir::ModuleOp>(text, &context);
}

} // namespace tpuc::test

#endif
