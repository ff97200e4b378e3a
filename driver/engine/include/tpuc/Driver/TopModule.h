//===- TopModule.h - Loading a Top MLIR file for the tpuc subcommands -----===//
//
// calibrate and deploy read the Top MLIR that transform wrote. Its weight file is named relative to the
// directory transform ran in (TPU-MLIR's convention); when that path does not resolve from the current
// directory but does beside the MLIR file, the module is pointed at the file beside it, so the commands
// work from any directory.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_APP_TPUC_TOPMODULE_H
#define TPUC_APP_TPUC_TOPMODULE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tpuc::cli {

/// Registers every dialect tpuc understands on `context` and parses `path`. The error is one line naming
/// the file (the first parser diagnostic, with its line).
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> loadTopModule(mlir::MLIRContext &context,
                                                                const std::string &path);

} // namespace tpuc::cli

#endif // TPUC_APP_TPUC_TOPMODULE_H
