//===- tpuc-onnx-import.cpp - Test driver of the ONNX importer ------------===//
// A thin command line over tpuc::importOnnx for the lit tests (tests/lit/Import): parses TPU-MLIR's
// transform flags, imports, and prints the Top IR with locations. `tpuc transform` supersedes it.
//===----------------------------------------------------------------------===//
#include "tpuc/Import/OnnxImporter.h"
#include "tpuc/Support/ArgParser.h"
#include "tpuc/Support/Npz.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/raw_ostream.h"

#include <iostream>

int main(int argc, char **argv) {
  tpuc::TransformOptions o;
  std::string constants, output;
  tpuc::ArgParser parser("tpuc-onnx-import", "Import an ONNX model to Top IR (test driver)");
  parser.addPositional({{"model"}, "MODEL", "the .onnx file", true}, &o.modelDef);
  parser.addOption({{"--model_name"}, "NAME", "module name"}, &o.modelName);
  parser.addOption({{"--input_shapes"}, "SHAPES", "input shapes, e.g. [[1,3,224,224]]"}, &o.inputShapes);
  parser.addOption({{"--input_types"}, "TYPES", "input types"}, &o.inputTypes);
  parser.addOption({{"--output_names"}, "NAMES", "tensors to return"}, &o.outputNames);
  parser.addOption({{"--mean"}, "M,...", "per-channel mean"}, &o.preprocess.mean);
  parser.addOption({{"--scale"}, "S,...", "per-channel scale"}, &o.preprocess.scale);
  parser.addOption({{"--pixel_format"}, "FMT", "pixel format"}, &o.preprocess.pixelFormat);
  parser.addOption({{"--channel_format"}, "FMT", "channel layout"}, &o.preprocess.channelFormat);
  parser.addOption({{"--resize_dims"}, "H,W", "resize size"}, &o.preprocess.resizeDims);
  parser.addFlag({{"--keep_aspect_ratio"}, "", "keep the aspect ratio"}, &o.preprocess.keepAspectRatio);
  parser.addOption({{"--pad_value"}, "N", "pad value"}, &o.preprocess.padValue);
  parser.addOption({{"--pad_type"}, "TYPE", "pad type"}, &o.preprocess.padType);
  parser.addOption({{"--weight_out"}, "FILE", "weight file to write"}, &o.weightOut);
  parser.addOption({{"--constant_inputs"}, "FILE", "npz of graph inputs to fix as constants"}, &constants);
  parser.addOption({{"--mlir", "-o"}, "FILE", "write the IR here instead of stdout"}, &output);
  std::vector<std::string> args(argv + 1, argv + argc);
  tpuc::ParseOutcome outcome = parser.parse(args);
  if (outcome.kind == tpuc::ParseOutcome::Help) {
    std::cout << parser.help();
    return 0;
  }
  if (outcome.kind == tpuc::ParseOutcome::Error) {
    std::cerr << outcome.message << "\n";
    return 2;
  }
  o.mlirOut = output;
  if (!constants.empty()) {
    tpuc::Result<tpuc::NpzFile> npz = tpuc::NpzFile::tryRead(constants);
    if (!npz) {
      std::cerr << npz.error() << "\n";
      return 1;
    }
    for (const std::string &name : npz->names())
      o.constantInputs[name] = npz->get(name);
  }
  mlir::MLIRContext context;
  std::string error;
  auto module = tpuc::importOnnx(context, o);
  if (!module) {
    error = llvm::toString(module.takeError());
    std::cerr << error << "\n";
    return 1;
  }
  if (output.empty()) {
    mlir::OpPrintingFlags flags;
    flags.enableDebugInfo(true, false);
    flags.useLocalScope(); // locations inline, so tests can match each op with its loc("name")
    (**module)->print(llvm::outs(), flags);
    llvm::outs() << "\n";
  }
  return 0;
}
