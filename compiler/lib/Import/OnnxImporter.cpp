//===- OnnxImporter.cpp - ONNX models to Top IR ---------------------------===//
// The public entry: load and check the model, build the module (inputs with their preprocessing, the
// nodes, the results), run the Top pipeline and write the weights and the IR.
//===----------------------------------------------------------------------===//
#include "tpuc/Import/OnnxImporter.h"

#include "GraphImporter.h"
#include "OnnxModelLoader.h"

#include "tpuc/Dialect/Top/ModuleState.h"
#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Transforms/Pipelines.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace mlir;
using namespace tpuc::top;

namespace tpuc {
namespace {

std::string modelNameOf(const TransformOptions &options) {
  if (!options.modelName.empty())
    return options.modelName;
  return llvm::sys::path::stem(options.modelDef).str();
}

/// The preprocessing attributes of one image input: the flags as preprocess::inputConfig resolves them
/// for it (the one reading the studio's preview shares), recorded where a flag was given.
bool preprocessAttrs(const TransformOptions &o, const std::string &name, RankedTensorType type, OpBuilder &b,
                     SmallVectorImpl<NamedAttribute> &attrs, const std::string &path, std::string &error) {
  preprocess::GraphInput input{name, std::vector<int64_t>(type.getShape()),
                               isa<FloatType>(type.getElementType())};
  if (!preprocess::takesPreprocessing(input))
    return true; // not an image: no preprocessing
  const preprocess::PreprocessFlags &flags = o.preprocess;
  auto config = preprocess::inputConfig(flags, input);
  if (!config) {
    error = path + ": " + config.error();
    return false;
  }
  if (!config->mean.empty())
    attrs.push_back(b.getNamedAttr("mean", b.getDenseF64ArrayAttr(config->mean)));
  if (!config->scale.empty())
    attrs.push_back(b.getNamedAttr("scale", b.getDenseF64ArrayAttr(config->scale)));
  if (!flags.pixelFormat.empty())
    attrs.push_back(b.getNamedAttr(
        "pixel_format",
        PixelFormatAttr::get(b.getContext(),
                             *symbolizePixelFormat(preprocess::pixelFormatName(config->pixelFormat)))));
  if (!flags.channelFormat.empty() && flags.channelFormat != "none")
    attrs.push_back(b.getNamedAttr(
        "channel_format",
        ChannelFormatAttr::get(
            b.getContext(), *symbolizeChannelFormat(preprocess::channelFormatName(config->channelFormat)))));
  if (!config->resizeDims.empty())
    attrs.push_back(b.getNamedAttr("resize_dims", b.getDenseI64ArrayAttr(config->resizeDims)));
  if (config->keepAspectRatio) {
    attrs.push_back(b.getNamedAttr("keep_aspect_ratio", b.getBoolAttr(true)));
    attrs.push_back(b.getNamedAttr("pad_value", b.getF64FloatAttr(config->padValue)));
    if (!flags.padType.empty())
      attrs.push_back(b.getNamedAttr(
          "pad_type",
          PadTypeAttr::get(b.getContext(), *symbolizePadType(preprocess::padTypeName(config->padType)))));
  }
  return true;
}

/// Checks the option strings: the preprocessing flags (one rule with the studio's preview) and the
/// input types.
bool validateOptions(const TransformOptions &o, std::string &error) {
  if (auto checked = preprocess::checkFlags(o.preprocess); !checked) {
    error = checked.error();
    return false;
  }
  static const char *kTypes[] = {"float32", "float16", "int32", "int64", "int8", "uint8", "bool", "None", ""};
  for (const auto &t : o.inputTypes)
    if (std::find(std::begin(kTypes), std::end(kTypes), t) == std::end(kTypes)) {
      error = "--input_types: unknown type '" + t + "'";
      return false;
    }
  return true;
}

Type inputTypeOverride(OpBuilder &b, const std::string &name, Type fallback) {
  if (name == "float32" || name == "float16")
    return b.getF32Type();
  if (name == "int32")
    return b.getI32Type();
  if (name == "int64")
    return b.getI64Type();
  if (name == "int8")
    return b.getI8Type();
  if (name == "uint8")
    return IntegerType::get(b.getContext(), 8, IntegerType::Unsigned);
  if (name == "bool")
    return b.getI1Type();
  return fallback;
}

/// Builds the module from a loaded model and runs the Top pipeline.
FailureOr<OwningOpRef<ModuleOp>> importLoaded(MLIRContext &ctx, const TransformOptions &options,
                                              importer::LoadedModel &model, std::string &error) {
  // The first error since the last clear(): its text, and the op it names (for pipeline failures).
  std::string diagnostic, diagnosticOp;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error && diagnostic.empty()) {
      diagnostic = diag.str();
      diagnosticOp = locationName(diag.getLocation());
    }
    return success();
  });
  std::string weightPath = defaultWeightPath(options);
  OpBuilder b(&ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc(), modelNameOf(options));
  setModuleState(*module, ModuleState::TOP_F32);
  (*module)->setAttr(TopDialect::kWeightFileAttr, b.getStringAttr(weightPath));
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, b.getUnknownLoc(), "main", b.getFunctionType({}, {}));
  Block *entry = func.addEntryBlock();

  importer::GraphImporter graph(model, func, diagnostic);
  graph.setLoopMaxTrips(options.loopMaxTrips);
  if (!graph.selectOutputs(options.outputNames, error) || !graph.checkSupported(error) ||
      !importer::checkModel(model, error))
    return failure();

  // Inputs, in graph order, each behind a top.input that records its preprocessing.
  if (!options.inputTypes.empty() && options.inputTypes.size() != model.inputs.size()) {
    error = model.path + ": --input_types gives " + std::to_string(options.inputTypes.size()) +
            " type(s) but the model has " + std::to_string(model.inputs.size()) + " input(s)";
    return failure();
  }
  b.setInsertionPointToEnd(entry);
  SmallVector<Type> argTypes;
  for (size_t k = 0; k < model.inputs.size(); ++k) {
    const std::string &name = model.inputs[k];
    const onnx::TypeProto *proto = model.types.at(name);
    std::vector<int64_t> dims;
    for (const auto &d : proto->tensor_type().shape().dim())
      dims.push_back(d.dim_value());
    Type elem = graph.topElemType(proto->tensor_type().elem_type());
    if (!options.inputTypes.empty())
      elem = inputTypeOverride(b, options.inputTypes[k], elem);
    auto type = RankedTensorType::get(dims, elem);
    SmallVector<NamedAttribute> attrs;
    if (!preprocessAttrs(options, name, type, b, attrs, model.path, error))
      return failure();
    auto loc = NameLoc::get(b.getStringAttr(name));
    Value arg = entry->addArgument(type, loc);
    argTypes.push_back(type);
    OperationState state(loc, InputOp::getOperationName());
    state.addOperands(arg);
    state.addAttributes(attrs);
    state.addTypes(type);
    Operation *input = b.create(state);
    diagnostic.clear();
    if (failed(mlir::verify(input))) {
      error = model.path + ": input '" + name + "': " + diagnostic;
      return failure();
    }
    graph.addInput(name, input->getResult(0));
  }

  // Weights go into the weight file's pending arrays; a stale file of the same name would be read back.
  llvm::sys::fs::remove(weightPath);
  std::vector<Value> results;
  if (!graph.run(results, error))
    return failure();
  // ONNX's own shape inference, on the imported nodes, must agree with every Top shape.
  if (!importer::inferShapes(model, graph.importedNodes(), error) || !graph.crossCheckShapes(error))
    return failure();
  b.setInsertionPointToEnd(entry);
  func::ReturnOp::create(b, b.getUnknownLoc(), ValueRange(results));
  SmallVector<Type> resultTypes;
  for (Value v : results)
    resultTypes.push_back(v.getType());
  func.setFunctionType(b.getFunctionType(argTypes, resultTypes));
  // Each result carries its ONNX output name: dumps name the graph outputs so whatever the value returned
  // is called (a forwarded tensor, an op folded away by the pipeline).
  for (auto [i, name] : llvm::enumerate(graph.outputNames()))
    func.setResultAttr(i, kResultNameAttr, b.getStringAttr(name));

  diagnostic.clear();
  if (failed(mlir::verify(*module))) {
    error = model.path + ": the imported module does not verify: " + diagnostic;
    return failure();
  }
  PassManager pm(&ctx);
  TopPipelineOptions pipelineOptions;
  pipelineOptions.weightFile = weightPath;
  buildTopPipeline(pm, pipelineOptions);
  if (options.instrumentPipeline)
    options.instrumentPipeline(pm);
  diagnostic.clear();
  if (failed(pm.run(*module))) {
    error = model.path + ": " + (diagnosticOp.empty() ? "" : "op '" + diagnosticOp + "': ") +
            (diagnostic.empty() ? "the Top pipeline failed" : diagnostic);
    return failure();
  }
  if (!options.mlirOut.empty())
    if (llvm::Error err = writeMlirFile(*module, options.mlirOut)) {
      error = llvm::toString(std::move(err));
      return failure();
    }
  return module;
}

/// Messages embed names from the model, which may hold any byte: control characters are escaped so the
/// message stays one line.
void escapeControls(std::string &text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '\n')
      out += "\\n";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else
      out += (char)c;
  }
  text = std::move(out);
}

/// Runs an import, making sure a failure carries exactly one line.
template <typename Fn> llvm::Expected<OwningOpRef<ModuleOp>> guarded(Fn &&fn) {
  std::string error;
  FailureOr<OwningOpRef<ModuleOp>> result = fn(error);
  if (succeeded(result))
    return std::move(*result);
  if (error.empty())
    error = "the import failed";
  escapeControls(error);
  return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
}

} // namespace

void registerImportDialects(MLIRContext &context) {
  DialectRegistry registry;
  registerDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadDialect<TopDialect, func::FuncDialect>();
}

std::string defaultWeightPath(const TransformOptions &options) {
  if (!options.weightOut.empty())
    return options.weightOut;
  std::string file = modelNameOf(options) + "_top_f32_all_weight.npz";
  llvm::SmallString<256> path(llvm::sys::path::parent_path(options.mlirOut));
  if (path.empty())
    return file;
  llvm::sys::path::append(path, file);
  return std::string(path);
}

llvm::Error writeMlirFile(ModuleOp module, const std::string &path) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": cannot write the MLIR file (" + ec.message() + ")");
  OpPrintingFlags flags;
  flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  module->print(os, flags);
  os << "\n";
  os.close();
  if (os.has_error()) {
    std::string message = path + ": cannot write the MLIR file (" + os.error().message() + ")";
    os.clear_error();
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  }
  return llvm::Error::success();
}

llvm::Expected<OwningOpRef<ModuleOp>> importOnnx(MLIRContext &context, const TransformOptions &options) {
  return guarded([&](std::string &error) -> FailureOr<OwningOpRef<ModuleOp>> {
    registerImportDialects(context);
    if (!validateOptions(options, error))
      return failure();
    importer::LoadedModel model;
    if (!importer::loadModel(options, model, error))
      return failure();
    return importLoaded(context, options, model, error);
  });
}

llvm::Expected<OwningOpRef<ModuleOp>> importOnnxBuffer(MLIRContext &context, llvm::StringRef bytes,
                                                       const TransformOptions &options) {
  return guarded([&](std::string &error) -> FailureOr<OwningOpRef<ModuleOp>> {
    registerImportDialects(context);
    if (!validateOptions(options, error))
      return failure();
    std::string baseDir(llvm::sys::path::parent_path(options.modelDef));
    importer::LoadedModel model;
    if (!importer::loadModelFromMemory(bytes.data(), bytes.size(),
                                       options.modelDef.empty() ? "<memory>" : options.modelDef,
                                       baseDir.empty() ? "." : baseDir, options, model, error))
      return failure();
    return importLoaded(context, options, model, error);
  });
}

} // namespace tpuc
