//===- OrtLoader.h - The dlopen'ed ONNX Runtime C API (internal) ---*- C++ -*-===//
#ifndef TPUC_SIMULATOR_FRAMEWORK_ORTLOADER_H
#define TPUC_SIMULATOR_FRAMEWORK_ORTLOADER_H

#include <string>

namespace tpuc::sim::ort::detail {
/// Why ORT is unavailable in a build that lacked its header.
inline constexpr const char *kNoOrtHeaders =
    "built without ONNX Runtime headers (run scripts/fetch-assets.sh)";
} // namespace tpuc::sim::ort::detail

#if TPUC_HAVE_ORT_HEADERS
#include <onnxruntime_c_api.h>

namespace tpuc::sim::ort::detail {

/// The loaded library: the API table and the process-wide environment, or why there is none.
struct Runtime {
  const OrtApi *api = nullptr;
  OrtEnv *env = nullptr;
  std::string path, version, why;
};

/// Loads ONNX Runtime once (thread-safe) and returns it; api is null on failure.
const Runtime &runtime();

/// Throws OrtError("<context>: <ORT message on one line>") if `status` is an error.
void check(const OrtApi *api, OrtStatus *status, const std::string &context);

} // namespace tpuc::sim::ort::detail
#endif

#endif // TPUC_SIMULATOR_FRAMEWORK_ORTLOADER_H
