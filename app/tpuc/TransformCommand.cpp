//===- TransformCommand.cpp - transform (TPU-MLIR's model_transform) ------===//
//
// ONNX -> Top MLIR + weights, then with --test_input: the float reference interpreter runs the Top IR
// (every tensor goes to --test_result), ONNX Runtime runs the original model when it is available, and
// the two are compared output by output with --tolerance.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "tpuc/Driver/DeployStages.h"
#include "tpuc/Driver/Results.h"
#include "tpuc/Driver/TestInputs.h"

#include "tpuc/Import/OnnxImporter.h"
#include "tpuc/Simulator/Compare.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Simulator/OnnxRuntime.h"
#include "tpuc/Simulator/Runner.h"
#include "tpuc/Support/Npz.h"
#include "tpuc/Transforms/PassRecorder.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>

namespace tpuc::cli {
namespace {

tpuc::TransformOptions importOptions(const TransformOptions &o) {
  tpuc::TransformOptions io;
  io.modelName = o.modelName;
  io.modelDef = o.modelDef;
  io.inputShapes = o.inputShapes;
  for (const std::string &t : o.inputTypes)
    if (t != "None")
      io.inputTypes.push_back(t);
  io.outputNames = o.outputNames;
  io.loopMaxTrips = o.loopMaxTrips;
  io.preprocess = driver::preprocessFlags(o);
  io.mlirOut = o.mlir;
  return io;
}

/// One --const_inputs value: a number (a 0-d tensor), a JSON list of numbers, nested for more dimensions
/// (every list at one depth of the same length), or an .npy file. Integers stay I64, anything else F64; the
/// importer converts to the input's declared type.
std::optional<Tensor> parseConstValue(std::string_view text, std::string &error) {
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ')
    text.remove_suffix(1);
  if (text.ends_with(".npy")) {
    try {
      return readNpy(std::string(text));
    } catch (const std::exception &e) {
      error = e.what();
      return std::nullopt;
    }
  }
  nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded() || !(value.is_number() || value.is_array())) {
    error = "'" + std::string(text) + "' is not a number or a list of numbers";
    return std::nullopt;
  }
  std::vector<int64_t> shape;
  for (const nlohmann::json *v = &value; v->is_array(); v = &v->front()) {
    if (v->empty()) {
      error = "an empty list";
      return std::nullopt;
    }
    shape.push_back(static_cast<int64_t>(v->size()));
  }
  // The leaves in row-major order; integers also exactly (not through double).
  std::vector<double> values;
  std::vector<int64_t> ints;
  std::function<bool(const nlohmann::json &, size_t)> flatten = [&](const nlohmann::json &v, size_t depth) {
    if (depth == shape.size()) {
      if (!v.is_number()) {
        error = "'" + v.dump() + "' is not a number";
        return false;
      }
      values.push_back(v.get<double>());
      if (v.is_number_integer())
        ints.push_back(v.get<int64_t>());
      return true;
    }
    if (!v.is_array() || static_cast<int64_t>(v.size()) != shape[depth]) {
      error = "lists of different lengths";
      return false;
    }
    for (const nlohmann::json &e : v)
      if (!flatten(e, depth + 1))
        return false;
    return true;
  };
  if (!flatten(value, 0))
    return std::nullopt;
  if (ints.size() == values.size())
    return Tensor::fromValues<int64_t>(shape, ints);
  return Tensor::fromValues<double>(shape, values);
}

/// --const_inputs and --shape_influencing_input_names into the importer's constant inputs.
bool constantInputsOf(const TransformOptions &o, std::map<std::string, Tensor> &out, std::string &error) {
  std::string_view spec = o.constInputs;
  while (!spec.empty()) {
    size_t end = spec.find(';');
    std::string_view entry = spec.substr(0, end);
    spec = end == std::string_view::npos ? std::string_view() : spec.substr(end + 1);
    if (entry.find_first_not_of(' ') == std::string_view::npos)
      continue;
    size_t eq = entry.find('=');
    std::string name(entry.substr(0, eq));
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (eq == std::string_view::npos || name.empty()) {
      error = "'--const_inputs': '" + std::string(entry) + "' is not NAME=VALUE";
      return false;
    }
    auto value = parseConstValue(entry.substr(eq + 1), error);
    if (!value) {
      error = "'--const_inputs': " + name + ": " + error;
      return false;
    }
    out[name] = std::move(*value);
  }
  if (!o.shapeInfluencingInputNames.empty()) {
    if (o.testInput.size() != 1 || !o.testInput[0].ends_with(".npz")) {
      error = "'--shape_influencing_input_names' takes the values from an .npz '--test_input'";
      return false;
    }
    try {
      NpzFile npz = NpzFile::read(o.testInput[0]);
      for (const std::string &name : o.shapeInfluencingInputNames) {
        if (!npz.has(name)) {
          error = "'--shape_influencing_input_names': " + o.testInput[0] + " holds no '" + name + "'";
          return false;
        }
        out[name] = npz.get(name);
      }
    } catch (const std::exception &e) {
      error = e.what();
      return false;
    }
  }
  return true;
}

/// The Top outputs against ONNX Runtime: the framework check of `tpuc transform --test_input`.
struct FrameworkCheck {
  int code = kExitOk;  ///< kExitOk, kExitFailed, or -1 when ONNX Runtime is not available
  std::string message; ///< why the check failed or was skipped
  std::vector<driver::TensorResult> outputs;
};

/// Runs the original model in ONNX Runtime on `inputs` (and the constant inputs) and compares its outputs
/// with the Top outputs in result order, printing the table.
FrameworkCheck compareWithFramework(const TransformOptions &o, const NpzFile &inputs,
                                    const NpzFile &topOutputs, const CompareTolerance &tolerance,
                                    const std::map<std::string, Tensor> &constants) {
  FrameworkCheck check;
  auto failed = [&](std::string message) {
    check.code = kExitFailed;
    check.message = std::move(message);
    return check;
  };
  std::string why;
  if (!sim::ort::available(why)) {
    std::cerr << "tpuc transform: framework check skipped: " << why << std::endl;
    check.code = -1;
    check.message = why;
    return check;
  }
  NpzFile feeds;
  for (const auto &[name, tensor] : constants)
    feeds.set(name, tensor);
  for (const std::string &name : inputs.names())
    feeds.set(name, inputs.get(name));
  // --output_names may name intermediate tensors: ONNX Runtime then exposes every tensor and the named
  // ones are picked out.
  auto session = sim::OrtRunner::open(o.modelDef, /*allTensors=*/!o.outputNames.empty());
  if (!session)
    return failed("ONNX Runtime: " + llvm::toString(session.takeError()));
  if (auto err = sim::runOn(**session, feeds, {})) // "ONNX Runtime: <what failed>"
    return failed(llvm::toString(std::move(err)));
  const NpzFile *framework = &(*session)->outputs();
  if (o.debug) {
    std::string path = o.modelName + "_ref_outputs.npz";
    try {
      framework->write(path, /*compressed=*/false);
      std::cerr << "tpuc transform: kept ONNX Runtime's outputs in " << path << std::endl;
    } catch (const std::exception &e) {
      std::cerr << "tpuc transform: " << e.what() << std::endl;
    }
  }
  // Pair by ONNX tensor name: the Top function returns the graph outputs, or the --output_names tensors, in
  // that order and under those names.
  std::vector<std::string> wanted = o.outputNames;
  if (wanted.empty())
    wanted = framework->names(); // the graph outputs, in order
  const auto &names = topOutputs.names();
  if (wanted.size() != names.size())
    return failed("the Top function returns " + std::to_string(names.size()) + " outputs for " +
                  std::to_string(wanted.size()) + " ONNX tensors");
  NpzFile target, reference;
  for (size_t i = 0; i < wanted.size(); ++i) {
    const std::string &name = wanted[i];
    if (!framework->has(name))
      return failed("ONNX Runtime computed no tensor '" + name + "'");
    target.set(name, topOutputs.get(topOutputs.has(name) ? name : names[i]));
    reference.set(name, framework->get(name));
  }
  NpzComparison comparison = compareNpz(target, reference, tolerance, o.excepts);
  comparison.targetName = "top";
  comparison.referenceName = "onnxruntime";
  std::cout << formatCompareText(comparison, false);
  check.outputs = tensorResults(comparison);
  if (!comparison.allPassed())
    return failed("Top outputs differ from ONNX Runtime beyond --tolerance " + o.tolerance);
  return check;
}

/// The transform itself; every failure is printed as one line and kept in `record.message`.
int transform(const TransformOptions &o, driver::TransformResult &record) {
  auto fail = [&](int code, const std::string &message) {
    std::cerr << "tpuc transform: " << message << std::endl;
    record.message = message;
    return code;
  };
  ProgressReporter progress = makeProgressReporter(o.progress);
  progress.report("import", 0.0, "reading " + o.modelDef);
  mlir::MLIRContext context;
  std::string error;
  tpuc::TransformOptions io = importOptions(o);
  if (!constantInputsOf(o, io.constantInputs, error))
    return fail(kExitUsage, error);
  if (o.loopMaxTrips < 0 || o.loopMaxTrips > 4096)
    return fail(kExitUsage,
                "'--loop_max_trips': " + std::to_string(o.loopMaxTrips) + " is not between 1 and 4096");
  std::optional<PassRecorder> recorder;
  if (!o.snapshots.empty()) {
    recorder.emplace(o.snapshots);
    if (!recorder->error().empty())
      return fail(kExitUsage, "--snapshots: " + recorder->error());
    io.instrumentPipeline = [&](mlir::PassManager &pm) { recorder->attach(pm, "top-pipeline"); };
  }
  auto module = importOnnx(context, io);
  // Snapshots are kept even when the pipeline fails: they show where it went wrong.
  if (recorder && !recorder->error().empty())
    std::cerr << "tpuc transform: --snapshots: " << recorder->error() << std::endl;
  if (!module)
    return fail(kExitFailed, llvm::toString(module.takeError()));
  std::vector<std::string> &artifacts = record.artifacts;
  artifacts = {o.mlir, defaultWeightPath(io)};
  if (recorder && recorder->error().empty())
    artifacts.push_back(recorder->indexPath());
  progress.report("import", 1.0, "wrote " + o.mlir, artifacts);
  if (o.testInput.empty())
    return kExitOk;

  progress.report("reference", 0.0, "running the Top IR on the test input");
  sim::Interpreter interpreter(**module);
  auto inputs = loadTestInputs(o.testInput, interpreter, **module);
  if (!inputs)
    return fail(kExitUsage, llvm::toString(inputs.takeError()));
  if (auto err = interpreter.setInputs(*inputs))
    return fail(kExitUsage, llvm::toString(std::move(err)));
  // The inputs as the model receives them (an image preprocessed), as model_transform writes them:
  // <model_name>_in_f32.npz beside the MLIR, which model_deploy and model_runner take as --test_input.
  {
    std::string inF32 =
        (std::filesystem::path(o.mlir).parent_path() / (o.modelName + "_in_f32.npz")).string();
    try {
      inputs->write(inF32, /*compressed=*/false);
    } catch (const std::exception &e) {
      return fail(kExitUsage, e.what());
    }
    artifacts.push_back(inF32);
  }
  sim::RunOptions runOptions;
  runOptions.dumpAll = !o.testResult.empty();
  runOptions.progress = [&](size_t done, size_t total, llvm::StringRef name) {
    progress.report("reference", double(done) / double(total ? total : 1), name.str());
    return true;
  };
  if (auto err = interpreter.run(runOptions))
    return fail(kExitFailed, llvm::toString(std::move(err)));
  if (!o.testResult.empty()) {
    try {
      interpreter.tensors().write(o.testResult, /*compressed=*/false);
    } catch (const std::exception &e) {
      return fail(kExitUsage, e.what());
    }
    artifacts.push_back(o.testResult);
  }
  progress.report("reference", 1.0, "Top outputs computed", artifacts);

  CompareTolerance tolerance = *CompareTolerance::parse(o.tolerance);
  FrameworkCheck check =
      compareWithFramework(o, *inputs, interpreter.outputs(), tolerance, io.constantInputs);
  record.outputs = check.outputs;
  if (check.code == -1) {
    record.frameworkSkipped = check.message;
    return kExitOk;
  }
  record.framework = "onnxruntime";
  if (check.code == kExitFailed)
    return fail(kExitFailed, check.message);
  return kExitOk;
}

} // namespace

int runTransform(const TransformOptions &o) {
  driver::TransformResult record;
  record.model = o.modelDef;
  record.mlir = o.mlir;
  record.exitCode = transform(o, record);
  record.status = driver::resultStatus(record.exitCode);
  // The record the studio reads (transformResultPath), beside the MLIR, whatever the outcome.
  return writeResultRecord("transform", driver::transformResultPath(o), driver::toJson(record),
                           record.exitCode);
}

} // namespace tpuc::cli
