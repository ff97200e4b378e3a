//===- OrtLoader.cpp - Finding and loading libonnxruntime at run time ---===//
//
// Search order: $TPUC_ONNXRUNTIME, the asset cache (${TPUC_ASSETS:-$HOME/.cache/tpu-studio/assets},
// then the build's TPUC_ASSETS_DIR), then libonnxruntime.so.1 on the system path. The library is
// never unloaded (ORT's threads and atexit handlers outlive any sensible unload point).
//
//===----------------------------------------------------------------------===//

#include "OrtLoader.h"

#include "tpuc/Simulator/OnnxRuntime.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

#if TPUC_HAVE_ORT_HEADERS
#include <dlfcn.h>
#endif

namespace tpuc::sim::ort {

#if TPUC_HAVE_ORT_HEADERS
namespace detail {

namespace {

std::string oneLine(std::string text) {
  for (char &c : text)
    if (c == '\n' || c == '\r')
      c = ' ';
  while (!text.empty() && text.back() == ' ')
    text.pop_back();
  return text;
}

std::vector<std::pair<std::string, std::string>> candidates() {
  std::vector<std::pair<std::string, std::string>> out; // (label, path)
  if (const char *env = std::getenv("TPUC_ONNXRUNTIME"); env && *env)
    out.push_back({"$TPUC_ONNXRUNTIME=" + std::string(env), env});
  std::string assets;
  if (const char *env = std::getenv("TPUC_ASSETS"); env && *env)
    assets = env;
  else if (const char *home = std::getenv("HOME"); home && *home)
    assets = std::string(home) + "/.cache/tpu-studio/assets";
  const std::string rel = "/onnxruntime/lib/libonnxruntime.so.1";
  if (!assets.empty())
    out.push_back({assets + rel, assets + rel});
  std::string built = TPUC_DEFAULT_ASSETS_DIR;
  if (!built.empty() && built != assets)
    out.push_back({built + rel, built + rel});
  out.push_back({"libonnxruntime.so.1", "libonnxruntime.so.1"});
  return out;
}

Runtime load() {
  Runtime rt;
  std::string tried;
  for (const auto &[label, path] : candidates()) {
    std::string reason;
    if (path.find('/') != std::string::npos && !std::filesystem::exists(path)) {
      reason = "no such file";
    } else if (void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      using GetApiBaseFn = const OrtApiBase *(*)();
      auto getBase = reinterpret_cast<GetApiBaseFn>(dlsym(handle, "OrtGetApiBase"));
      const OrtApiBase *base = getBase ? getBase() : nullptr;
      if (!base) {
        reason = "no OrtGetApiBase symbol";
      } else {
        // The API table only grows: an older library serves an older version of the same
        // layout, and we use nothing newer than version 16 (ORT 1.16).
        for (uint32_t v = ORT_API_VERSION; v >= 16 && !rt.api; --v)
          rt.api = base->GetApi(v);
        if (!rt.api)
          reason =
              std::string("ONNX Runtime ") + base->GetVersionString() + " is too old (need 1.16 or newer)";
        else {
          rt.path = path;
          rt.version = base->GetVersionString();
        }
      }
      if (!rt.api)
        dlclose(handle);
    } else {
      const char *err = dlerror();
      reason = err ? oneLine(err) : "cannot load";
    }
    if (rt.api)
      break;
    tried += (tried.empty() ? "" : "; ") + label + ": " + reason;
  }
  if (!rt.api) {
    rt.why = "ONNX Runtime not found (" + tried +
             "); run scripts/fetch-assets.sh or set TPUC_ONNXRUNTIME to libonnxruntime.so";
    return rt;
  }
  if (OrtStatus *st = rt.api->CreateEnv(ORT_LOGGING_LEVEL_ERROR, "tpuc", &rt.env)) {
    rt.why = "ONNX Runtime " + rt.version + " at " + rt.path +
             ": cannot create environment: " + oneLine(rt.api->GetErrorMessage(st));
    rt.api->ReleaseStatus(st);
    rt.api = nullptr;
  }
  return rt;
}

} // namespace

const Runtime &runtime() {
  static const Runtime rt = load();
  return rt;
}

void check(const OrtApi *api, OrtStatus *status, const std::string &context) {
  if (!status)
    return;
  std::string message = oneLine(api->GetErrorMessage(status));
  api->ReleaseStatus(status);
  throw OrtError(context + ": " + message);
}

} // namespace detail

bool available(std::string &why) {
  const detail::Runtime &rt = detail::runtime();
  why = rt.why;
  return rt.api != nullptr;
}

std::string libraryPath() { return detail::runtime().api ? detail::runtime().path : std::string(); }
std::string version() { return detail::runtime().api ? detail::runtime().version : std::string(); }

#else // !TPUC_HAVE_ORT_HEADERS

bool available(std::string &why) {
  why = detail::kNoOrtHeaders;
  return false;
}
std::string libraryPath() { return {}; }
std::string version() { return {}; }

#endif

} // namespace tpuc::sim::ort
