//===- OnnxImportFuzzer.cpp - libFuzzer target for the ONNX importer ------===//
//
// Any input must import or fail with a one-line message; a crash, an ASan report or an escaping
// exception is a bug. Each input gets a fresh single-threaded context and the weight cache is cleared,
// so inputs do not influence each other.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/Import/OnnxImporter.h"

#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string weights = "/tmp/tpuc-onnx-fuzz-" + std::to_string(getpid()) + ".npz";
  tpuc::TransformOptions options;
  options.modelDef = "fuzz.onnx";
  options.weightOut = weights;
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  auto module =
      tpuc::importOnnxBuffer(context, llvm::StringRef(reinterpret_cast<const char *>(data), size), options);
  // A failure carries exactly one line naming the model.
  if (!module) {
    std::string error = llvm::toString(module.takeError());
    if (error.empty() || error.find('\n') != std::string::npos)
      __builtin_trap();
  }
  tpuc::top::clearWeightCache();
  return 0;
}
