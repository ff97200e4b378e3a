//===- OrtRunner.cpp - An ONNX Runtime session as a Runner ----------------===//
// OnnxRuntime.h reports failures as OrtError exceptions; they become llvm::Error values here, at the
// edge of the runner interface.
//===----------------------------------------------------------------------===//
#include "tpuc/Simulator/OnnxRuntime.h"
#include "tpuc/Simulator/Runner.h"

#include <chrono>

namespace tpuc::sim {
namespace {
llvm::Error makeError(const std::string &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}
} // namespace

struct OrtRunner::Impl {
  std::unique_ptr<ort::Session> session;
  std::map<std::string, Tensor> feeds;
};

OrtRunner::OrtRunner(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
OrtRunner::~OrtRunner() = default;

llvm::Expected<std::unique_ptr<OrtRunner>> OrtRunner::open(const std::string &modelPath, bool allTensors,
                                                           unsigned threads) {
  std::string why;
  if (!ort::available(why))
    return makeError(why);
  auto impl = std::make_unique<Impl>();
  try {
    ort::RunOptions options;
    options.threads = threads;
    options.allTensors = allTensors;
    impl->session = ort::Session::open(modelPath, options);
  } catch (const std::exception &e) {
    return makeError(e.what());
  }
  return std::unique_ptr<OrtRunner>(new OrtRunner(std::move(impl)));
}

std::vector<std::string> OrtRunner::inputNames() const {
  std::vector<std::string> names;
  for (const ort::ValueInfo &info : impl->session->inputs())
    names.push_back(info.name);
  return names;
}

std::vector<std::string> OrtRunner::outputNames() const {
  std::vector<std::string> names;
  for (const ort::ValueInfo &info : impl->session->outputs())
    names.push_back(info.name);
  return names;
}

llvm::Error OrtRunner::setInputs(const NpzFile &inputs) {
  for (const std::string &name : inputs.names())
    impl->feeds[name] = inputs.get(name);
  return llvm::Error::success();
}

llvm::Error OrtRunner::run(const RunnerOptions &) {
  auto start = std::chrono::steady_clock::now();
  try {
    result = impl->session->run(impl->feeds);
  } catch (const std::exception &e) {
    return makeError(e.what());
  }
  runStats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  runStats.steps = 1;
  return llvm::Error::success();
}

} // namespace tpuc::sim
