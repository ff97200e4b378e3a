//===- OnnxConformance.cpp - The ONNX node test suite through import + interpreter -===//
//
// Runs every case of the ONNX conformance data (libonnx-testdata's node/ tests): import model.onnx
// with the ONNX front end, interpret the Top IR on test_data_set_0's inputs, compare with its outputs.
// Two modes, each with its own side table and floor:
//   folded  integer and bool inputs are fixed as constants at import (TPU-MLIR's shape-influencing
//           inputs), float inputs are fed at run time, outputs are read by position. A case whose
//           inputs are all integers then only exercises the importer's folder.
//   strict  every input is fed at run time and every output is read by its ONNX name, as a user
//           comparing our npz files with ONNX Runtime's would.
// Each case runs in a child process (this program with --case), so a crash is counted, not fatal.
// Non-passing cases must be listed with a reason in the mode's side table (onnx_conformance_xfail.txt,
// onnx_conformance_strict_xfail.txt); a new failure, a crash, or a listed case that now passes fails the
// run.
//
//===----------------------------------------------------------------------===//

#include "HostTensor.h"
#include "tpuc/Import/OnnxImporter.h"
#include "tpuc/Simulator/Interpreter.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace {

constexpr double kRtol = 1e-3, kAtol = 1e-5;

/// Reads test_data_set_0/<prefix>_<i>.pb in index order.
bool readProtos(const std::string &dir, const std::string &prefix, std::vector<onnx::TensorProto> &out,
                std::string &error) {
  for (int i = 0;; ++i) {
    std::string path = dir + "/test_data_set_0/" + prefix + "_" + std::to_string(i) + ".pb";
    std::ifstream file(path, std::ios::binary);
    if (!file)
      return true;
    onnx::TensorProto proto;
    if (!proto.ParseFromIstream(&file)) {
      error = path + ": not a TensorProto";
      return false;
    }
    out.push_back(std::move(proto));
  }
}

bool toTensor(const onnx::TensorProto &proto, tpuc::Tensor &out, std::string &error) {
  tpuc::importer::HostTensor host;
  if (!tpuc::importer::decodeTensor(proto, host, error))
    return false;
  if (host.isFloat()) {
    out = tpuc::Tensor::fromValues<float>(host.shape, host.f);
    return true;
  }
  // Keep the integer dtype: the importer types constants from it (a bool input is not an int64).
  tpuc::Tensor wide = tpuc::Tensor::fromValues<int64_t>(host.shape, host.i);
  std::optional<tpuc::DType> dtype;
  switch (proto.data_type()) {
  case onnx::TensorProto::BOOL: dtype = tpuc::DType::Bool; break;
  case onnx::TensorProto::INT8: dtype = tpuc::DType::I8; break;
  case onnx::TensorProto::UINT8: dtype = tpuc::DType::U8; break;
  case onnx::TensorProto::INT16: dtype = tpuc::DType::I16; break;
  case onnx::TensorProto::UINT16: dtype = tpuc::DType::U16; break;
  case onnx::TensorProto::INT32: dtype = tpuc::DType::I32; break;
  case onnx::TensorProto::UINT32: dtype = tpuc::DType::U32; break;
  case onnx::TensorProto::UINT64: dtype = tpuc::DType::U64; break;
  default: break;
  }
  if (!dtype) {
    out = std::move(wide);
    return true;
  }
  out = tpuc::Tensor(*dtype, host.shape);
  for (int64_t k = 0; k < out.numElements(); ++k) {
    int64_t v = host.i[k];
    uint8_t *p = out.data() + k * tpuc::dtypeSize(*dtype);
    std::memcpy(p, &v, tpuc::dtypeSize(*dtype)); // little-endian truncation keeps the value
  }
  return true;
}

/// Compares like numpy.testing.assert_allclose(actual, expected, rtol, atol); NaNs must match.
bool allClose(const tpuc::Tensor &actual, const tpuc::Tensor &expected, std::string &why) {
  if (actual.numElements() != expected.numElements()) {
    why = "output has " + std::to_string(actual.numElements()) + " elements, expected " +
          std::to_string(expected.numElements());
    return false;
  }
  for (int64_t k = 0; k < actual.numElements(); ++k) {
    double a = actual.valueAsDouble(k), e = expected.valueAsDouble(k);
    if (std::isnan(e) ? std::isnan(a) : (a == e || std::abs(a - e) <= kAtol + kRtol * std::abs(e)))
      continue;
    std::ostringstream os;
    os << "mismatch at element " << k << ": got " << a << ", expected " << e;
    why = os.str();
    return false;
  }
  return true;
}

/// Runs one case in this process and prints "RESULT <status> <reason>".
int runCase(const std::string &dir, bool strict) {
  auto result = [](const std::string &status, const std::string &reason) {
    std::string oneLine = reason.substr(0, reason.find('\n'));
    std::cout << "RESULT " << status << " " << oneLine << std::endl;
    return 0;
  };
  std::vector<onnx::TensorProto> inputProtos, outputProtos;
  std::string error;
  if (!readProtos(dir, "input", inputProtos, error) || !readProtos(dir, "output", outputProtos, error))
    return result("unsupported", error);
  std::vector<tpuc::Tensor> inputs(inputProtos.size()), expected(outputProtos.size());
  for (size_t i = 0; i < inputProtos.size(); ++i)
    if (!toTensor(inputProtos[i], inputs[i], error))
      return result("unsupported", "input " + std::to_string(i) + ": " + error);
  for (size_t i = 0; i < outputProtos.size(); ++i)
    if (!toTensor(outputProtos[i], expected[i], error))
      return result("unsupported", "output " + std::to_string(i) + ": " + error);

  llvm::SmallString<128> tmp;
  if (llvm::sys::fs::createUniqueDirectory("tpuc-conformance", tmp))
    return result("failed", "cannot create a temporary directory");
  tpuc::TransformOptions options;
  options.modelDef = dir + "/model.onnx";
  options.modelName = llvm::sys::path::filename(dir).str();
  options.weightOut = (tmp + "/weights.npz").str();
  // The suite feeds shapes, axes, pads and indices as integer graph inputs. In the folded mode they are
  // fixed as constants at import like TPU-MLIR's shape-influencing inputs and float inputs stay
  // arguments; in the strict mode every input is an argument.
  onnx::ModelProto model;
  {
    std::ifstream file(options.modelDef, std::ios::binary);
    if (!model.ParseFromIstream(&file))
      return result("unsupported", options.modelDef + ": not a ModelProto");
  }
  std::vector<std::string> inputNames;
  for (const auto &input : model.graph().input()) {
    bool isInitializer = false;
    for (const auto &init : model.graph().initializer())
      isInitializer |= init.name() == input.name();
    if (!isInitializer)
      inputNames.push_back(input.name());
  }
  std::vector<tpuc::Tensor> runtimeInputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    bool integer = i < inputNames.size() && !tpuc::isFloatDType(inputs[i].dtype());
    if (integer && !strict) {
      options.constantInputs[inputNames[i]] = inputs[i];
    } else {
      options.inputShapes.push_back(inputs[i].shape());
      runtimeInputs.push_back(inputs[i]);
    }
  }
  mlir::MLIRContext context;
  context.disableMultithreading();
  auto module = tpuc::importOnnx(context, options);
  auto cleanup = [&] { llvm::sys::fs::remove_directories(tmp); };
  if (!module) {
    error = llvm::toString(module.takeError());
    cleanup();
    return result("unsupported", error);
  }
  tpuc::sim::Interpreter interpreter(**module);
  for (size_t i = 0; i < runtimeInputs.size(); ++i)
    if (auto err = interpreter.setInput(i, runtimeInputs[i])) {
      cleanup();
      return result("failed", llvm::toString(std::move(err)));
    }
  if (auto err = interpreter.run(tpuc::sim::RunOptions{.numThreads = 1})) {
    cleanup();
    return result("failed", llvm::toString(std::move(err)));
  }
  cleanup();
  const tpuc::NpzFile &outputs = interpreter.outputs();
  if (strict) {
    // By name: the graph's outputs are found under their ONNX names.
    const auto &graphOutputs = model.graph().output();
    if (graphOutputs.size() != (int)expected.size())
      return result("unsupported", "the case has " + std::to_string(expected.size()) + " output files for " +
                                       std::to_string(graphOutputs.size()) + " graph outputs");
    for (size_t i = 0; i < expected.size(); ++i) {
      const std::string &name = graphOutputs[(int)i].name();
      if (!outputs.has(name))
        return result("failed", "no output named '" + name + "'");
      std::string why;
      if (!allClose(outputs.get(name), expected[i], why))
        return result("failed", "output '" + name + "': " + why);
    }
    return result("passed", "");
  }
  if (outputs.size() != expected.size())
    return result("failed", "produced " + std::to_string(outputs.size()) + " outputs, expected " +
                                std::to_string(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    std::string why;
    if (!allClose(outputs.get(outputs.names()[i]), expected[i], why))
      return result("failed", "output " + std::to_string(i) + ": " + why);
  }
  return result("passed", "");
}

struct Outcome {
  std::string status, reason;
};

/// Runs `self --case dir` with a timeout and parses its RESULT line.
Outcome runChild(const std::string &self, const std::string &dir, bool strict, unsigned timeout) {
  llvm::SmallString<128> out;
  llvm::sys::fs::createTemporaryFile("tpuc-conformance", "txt", out);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(out), llvm::StringRef(out)};
  std::string message;
  bool failedToRun = false;
  llvm::SmallVector<llvm::StringRef, 4> args{self, "--case", dir};
  if (strict)
    args.push_back("--strict");
  int rc = llvm::sys::ExecuteAndWait(self, args, std::nullopt, redirects, timeout, 0, &message, &failedToRun);
  std::ifstream file(out.c_str());
  std::string line, resultLine;
  while (std::getline(file, line))
    if (line.rfind("RESULT ", 0) == 0)
      resultLine = line.substr(7);
  llvm::sys::fs::remove(out);
  if (rc == -2 && message.find("timeout") != std::string::npos)
    return {"failed", "timed out after " + std::to_string(timeout) + " s"};
  if (rc < 0 || (resultLine.empty() && rc != 0))
    return {"crashed", message.empty() ? "exit code " + std::to_string(rc) : message};
  if (resultLine.empty())
    return {"crashed", "no result line"};
  size_t space = resultLine.find(' ');
  return {resultLine.substr(0, space), space == std::string::npos ? "" : resultLine.substr(space + 1)};
}

/// The side table: "<case> <reason...>" per line, '#' comments.
std::map<std::string, std::string> readExpectedFailures(const std::string &path) {
  std::map<std::string, std::string> table;
  std::ifstream file(path);
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    size_t space = line.find(' ');
    table[line.substr(0, space)] = space == std::string::npos ? "" : line.substr(space + 1);
  }
  return table;
}

/// One mode's run over the cases: counts, the side table's verdicts, and the floor.
struct ModeRun {
  std::string label;
  bool strict = false;
  std::string xfailPath, writeTable;
  int minPassed = 0;
  std::map<std::string, std::string> expected;
  std::map<std::string, int> counts;
  std::vector<std::string> newFailures, unexpectedPasses, crashes;
  std::ofstream table;

  void record(const std::string &name, const Outcome &outcome) {
    ++counts[outcome.status];
    bool listed = expected.count(name);
    if (outcome.status == "passed") {
      if (listed)
        unexpectedPasses.push_back(name);
      return;
    }
    std::cout << label << " " << outcome.status << ": " << name << ": " << outcome.reason << "\n";
    if (outcome.status == "crashed")
      crashes.push_back(name + ": " + outcome.reason);
    else if (!listed)
      newFailures.push_back(name + " (" + outcome.status + "): " + outcome.reason);
    if (table.is_open())
      table << name << " " << outcome.status << ": " << outcome.reason << "\n";
  }

  /// Prints the summary line and the verdicts; true when the mode passes.
  bool report(const std::string &dataDir, size_t cases) {
    std::cout << "\nONNX conformance, " << label << " mode (" << dataDir << "): " << cases << " cases, "
              << counts["passed"] << " passed, " << counts["failed"] << " failed, " << counts["unsupported"]
              << " unsupported, " << counts["crashed"] << " crashed\n";
    for (const auto &c : crashes)
      std::cout << "CRASH (" << label << ") " << c << "\n";
    for (const auto &f : newFailures)
      std::cout << "NEW FAILURE (" << label << ", not in " << xfailPath << ") " << f << "\n";
    for (const auto &p : unexpectedPasses)
      std::cout << "UNEXPECTED PASS (" << label << ", remove it from " << xfailPath << ") " << p << "\n";
    if (counts["passed"] < minPassed)
      std::cout << "FLOOR (" << label << "): " << counts["passed"] << " passed, fewer than the floor of "
                << minPassed << "\n";
    return crashes.empty() && counts["passed"] >= minPassed &&
           (xfailPath.empty() || (newFailures.empty() && unexpectedPasses.empty()));
  }
};

} // namespace

int main(int argc, char **argv) {
  std::string dataDir = "/usr/share/libonnx-testdata/data/node", only, mode = "both";
  unsigned timeout = 60;
  ModeRun folded, strict;
  folded.label = "folded";
  strict.label = "strict";
  strict.strict = true;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--case") {
      std::string dir = next();
      bool strictCase = i + 1 < argc && std::string(argv[i + 1]) == "--strict";
      return runCase(dir, strictCase);
    }
    if (arg == "--data")
      dataDir = next();
    else if (arg == "--mode")
      mode = next();
    else if (arg == "--xfail")
      folded.xfailPath = next();
    else if (arg == "--xfail-strict")
      strict.xfailPath = next();
    else if (arg == "--write-table")
      folded.writeTable = next();
    else if (arg == "--write-table-strict")
      strict.writeTable = next();
    else if (arg == "--filter")
      only = next();
    else if (arg == "--min-passed")
      folded.minPassed = std::stoi(next());
    else if (arg == "--min-passed-strict")
      strict.minPassed = std::stoi(next());
    else if (arg == "--timeout")
      timeout = std::stoi(next());
    else {
      std::cerr << "onnx-conformance: unknown option '" << arg << "'" << std::endl;
      return 2;
    }
  }
  if (mode != "both" && mode != "folded" && mode != "strict") {
    std::cerr << "onnx-conformance: --mode must be folded, strict or both" << std::endl;
    return 2;
  }
  std::string self = llvm::sys::fs::getMainExecutable(argv[0], (void *)&main);
  std::vector<std::string> cases;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dataDir, ec), end; it != end && !ec; it.increment(ec))
    if (llvm::sys::fs::exists(it->path() + "/model.onnx") &&
        (only.empty() || llvm::sys::path::filename(it->path()).contains(only)))
      cases.push_back(it->path());
  if (cases.empty()) {
    std::cerr << "onnx-conformance: no cases under " << dataDir << " (install libonnx-testdata)" << std::endl;
    return 2;
  }
  std::sort(cases.begin(), cases.end());
  std::vector<ModeRun *> modes;
  if (mode != "strict")
    modes.push_back(&folded);
  if (mode != "folded")
    modes.push_back(&strict);
  for (ModeRun *m : modes) {
    if (!m->xfailPath.empty())
      m->expected = readExpectedFailures(m->xfailPath);
    if (!m->writeTable.empty())
      m->table.open(m->writeTable);
  }

  auto start = std::chrono::steady_clock::now();
  for (const std::string &dir : cases) {
    std::string name = llvm::sys::path::filename(dir).str();
    for (ModeRun *m : modes)
      m->record(name, runChild(self, dir, m->strict, timeout));
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  bool ok = true;
  for (ModeRun *m : modes)
    ok &= m->report(dataDir, cases.size());
  std::cout << "(" << int(seconds) << " s)\n" << (ok ? "conformance OK" : "conformance FAILED") << std::endl;
  return ok ? 0 : 1;
}
