//===- ManifestInputs.h - Hashing what a run read, for its manifest --------===//
//
// The inputs of a run manifest (tpuc/Driver/Manifest.h): a file's SHA-256 and size, a set of sample files as
// one digest, the chip profile file the engine loads. Used by deploy and calibrate.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_MANIFESTINPUTS_H
#define TPUC_DRIVER_MANIFESTINPUTS_H

#include "tpuc/Driver/Driver.h"
#include "tpuc/Driver/Manifest.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace tpuc::driver {

/// `path` as the input `role`: its SHA-256 and size; a file that cannot be read has sha256 "unreadable:
/// <why>" and bytes -1 (a manifest records, it does not fail the run).
ManifestInput hashInput(const std::string &role, const std::string &path);

/// The files of `samples` (each sample's files, in order) as one input of `role` named `path` (the folder or
/// list they came from): the SHA-256 of the lines "<file>\t<sha256 of the file>\n".
ManifestInput hashSampleSet(const std::string &role, const std::string &path,
                            const std::vector<CalibrationSample> &samples);

/// The model and the weight file it names (its `top.weight_file`), as inputs "model" and "weights".
std::vector<ManifestInput> modelInputs(const std::string &mlirPath, mlir::ModuleOp module);

/// The profile file the engine loads for `chip` (backend::chipSearchDirs, case-insensitive), "" when none.
std::string chipProfileFile(const std::string &chip);

} // namespace tpuc::driver

#endif // TPUC_DRIVER_MANIFESTINPUTS_H
