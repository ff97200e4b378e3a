//===- OnnxRuntime.h - ONNX Runtime as the framework reference, loaded at run time -*- C++ -*-===//
//
// Qt-free. Runs an .onnx model in ONNX Runtime through its C API, like TPU-MLIR's model_transform
// runs the original model to check the imported one. The library is dlopen'ed on first use, so
// tpuc and the studio build and run without it:
//   1. $TPUC_ONNXRUNTIME (path to libonnxruntime.so[.1]),
//   2. the asset cache: ${TPUC_ASSETS:-$HOME/.cache/tpu-studio/assets}/onnxruntime/lib/libonnxruntime.so.1
//      (then the build's TPUC_ASSETS_DIR, if different),
//   3. libonnxruntime.so.1 on the system library path.
// The C API header comes from the same asset cache at build time; without it available() says
// "built without ONNX Runtime headers (run scripts/fetch-assets.sh)".
//
// Intermediate tensors: with RunOptions::allTensors every top-level node output is added as a graph
// output (with libonnx, types from ONNX shape inference when known) before the model bytes go to
// ONNX Runtime - TPU-MLIR's trick for per-layer comparison.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_SIMULATOR_ONNXRUNTIME_H
#define TPUC_SIMULATOR_ONNXRUNTIME_H

#include "tpuc/Support/Npz.h"
#include "tpuc/Support/Tensor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpuc::sim::ort {

/// ONNX Runtime is unavailable or a model failed to load or run. what() is one line, prefixed by
/// the model path where there is one.
class OrtError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Whether ONNX Runtime can be used. Loads the library on first call (thread-safe); on failure
/// `why` gets one line naming what was tried and how to get it.
bool available(std::string &why);
/// The path of the loaded library and ORT's version string; empty until available() succeeded.
std::string libraryPath();
std::string version();

/// A graph input or output: name, element type (nullopt for types Tensor cannot hold, e.g.
/// strings) and shape (-1 for a dynamic dimension).
struct ValueInfo {
  std::string name;
  std::optional<DType> dtype;
  std::vector<int64_t> shape;
};

/// Settings of a session.
struct RunOptions {
  /// Intra-op threads; 0 lets ONNX Runtime choose (all cores).
  unsigned threads = 0;
  /// Expose every top-level node output as an output, in node order (then graph outputs that no
  /// node produces). Outputs of a type Tensor cannot hold (strings, sequences) are left out.
  bool allTensors = false;
  /// ORT graph optimizations (default on, as in model_transform's reference run). Off keeps every
  /// intermediate tensor computed exactly as the graph says.
  bool optimize = true;
};

/// A loaded model, reusable for many runs (calibration, benchmarks). Not copyable; run() may be
/// called from several threads (ORT sessions are thread-safe for Run).
class Session {
public:
  /// Loads `modelPath`. Throws OrtError ("model.onnx: <reason>") or when ORT is unavailable.
  static std::unique_ptr<Session> open(const std::string &modelPath, const RunOptions &options = {});
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /// Inputs and outputs as ONNX Runtime sees them (with allTensors, outputs include the added ones).
  const std::vector<ValueInfo> &inputs() const { return inputInfo; }
  const std::vector<ValueInfo> &outputs() const { return outputInfo; }

  /// Runs the model. `inputs` must name every model input exactly; a tensor of another numeric
  /// dtype is converted to the input's dtype. Returns every output, named, in output order.
  NpzFile run(const std::map<std::string, Tensor> &inputs) const;

private:
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
  std::vector<ValueInfo> inputInfo, outputInfo;
};

/// Loads, runs once and returns the outputs (see Session).
NpzFile run(const std::string &modelPath, const std::map<std::string, Tensor> &inputs, unsigned threads = 0,
            bool allTensors = false);

/// The model's inputs and outputs as ONNX Runtime reports them.
std::vector<ValueInfo> modelInputs(const std::string &modelPath);
std::vector<ValueInfo> modelOutputs(const std::string &modelPath);

/// The model file with every top-level node output added as a graph output (the allTensors
/// transformation), serialized. Throws OrtError on an unreadable model. Needs no ORT.
std::string exposeAllTensors(const std::string &modelPath);

} // namespace tpuc::sim::ort

#endif // TPUC_SIMULATOR_ONNXRUNTIME_H
