//===- OrtSession.cpp - Running a model in ONNX Runtime through its C API ---===//
//
// Tensors cross the boundary as raw bytes: inputs are wrapped without a copy (after a dtype
// conversion when the caller's dtype differs), outputs are copied into Tensor values.
//
//===----------------------------------------------------------------------===//

#include "OrtLoader.h"

#include "tpuc/Simulator/OnnxRuntime.h"
#include "tpuc/Support/FloatConvert.h"

#include <cmath>
#include <cstring>
#include <filesystem>

namespace tpuc::sim::ort {

#if TPUC_HAVE_ORT_HEADERS

namespace {

using detail::check;

/// True when `status` is success; an error status is released.
bool succeeded(const OrtApi *api, OrtStatus *status) {
  if (!status)
    return true;
  api->ReleaseStatus(status);
  return false;
}

std::optional<DType> fromOrt(ONNXTensorElementDataType t) {
  switch (t) {
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
    return DType::F32;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
    return DType::F64;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16:
    return DType::F16;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16:
    return DType::BF16;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8:
    return DType::I8;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8:
    return DType::U8;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16:
    return DType::I16;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16:
    return DType::U16;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
    return DType::I32;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32:
    return DType::U32;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
    return DType::I64;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64:
    return DType::U64;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL:
    return DType::Bool;
  default:
    return std::nullopt;
  }
}

ONNXTensorElementDataType toOrt(DType t) {
  switch (t) {
  case DType::F32:
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  case DType::F64:
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE;
  case DType::F16:
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16;
  case DType::BF16:
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16;
  case DType::I8:
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8;
  case DType::U8:
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8;
  case DType::I16:
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16;
  case DType::U16:
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16;
  case DType::I32:
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
  case DType::U32:
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32;
  case DType::I64:
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
  case DType::U64:
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64;
  case DType::Bool:
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL;
  }
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
}

template <typename T> void storeAll(Tensor &out, const std::vector<double> &values) {
  auto dst = out.values<T>();
  for (size_t i = 0; i < values.size(); ++i)
    dst[i] = static_cast<T>(values[i]);
}

/// A numeric tensor converted to `to` (floats round, integers truncate as static_cast does).
Tensor convert(const Tensor &in, DType to) {
  if (in.dtype() == to)
    return in;
  if (to == DType::F16 || to == DType::BF16)
    return f32TensorToHalf(toF32Tensor(in), to);
  std::vector<double> values = in.toDoubles();
  Tensor out(to, in.shape());
  switch (to) {
  case DType::F32:
    storeAll<float>(out, values);
    break;
  case DType::F64:
    storeAll<double>(out, values);
    break;
  case DType::I8:
    storeAll<int8_t>(out, values);
    break;
  case DType::U8:
    storeAll<uint8_t>(out, values);
    break;
  case DType::I16:
    storeAll<int16_t>(out, values);
    break;
  case DType::U16:
    storeAll<uint16_t>(out, values);
    break;
  case DType::I32:
    storeAll<int32_t>(out, values);
    break;
  case DType::U32:
    storeAll<uint32_t>(out, values);
    break;
  case DType::I64:
    storeAll<int64_t>(out, values);
    break;
  case DType::U64:
    storeAll<uint64_t>(out, values);
    break;
  case DType::Bool: {
    auto dst = out.values<uint8_t>();
    for (size_t i = 0; i < values.size(); ++i)
      dst[i] = values[i] != 0;
    break;
  }
  default:
    break;
  }
  return out;
}

ValueInfo describe(const OrtApi *api, OrtTypeInfo *typeInfo, std::string name) {
  ValueInfo info{std::move(name), std::nullopt, {}};
  const OrtTensorTypeAndShapeInfo *tensor = nullptr;
  if (succeeded(api, api->CastTypeInfoToTensorInfo(typeInfo, &tensor)) && tensor) {
    ONNXTensorElementDataType type{};
    size_t rank = 0;
    if (succeeded(api, api->GetTensorElementType(tensor, &type)) &&
        succeeded(api, api->GetDimensionsCount(tensor, &rank))) {
      info.dtype = fromOrt(type);
      info.shape.resize(rank);
      if (!succeeded(api, api->GetDimensions(tensor, info.shape.data(), rank)))
        info.shape.clear();
    }
  }
  api->ReleaseTypeInfo(typeInfo);
  return info;
}

std::string joinNames(const std::vector<ValueInfo> &infos) {
  std::string out;
  for (const auto &i : infos)
    out += (out.empty() ? "" : ", ") + i.name;
  return out;
}

} // namespace

struct Session::Impl {
  const OrtApi *api = nullptr;
  OrtSession *session = nullptr;
  std::string path;
  bool allTensors = false;
  ~Impl() {
    if (session)
      api->ReleaseSession(session);
  }
};

Session::Session(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Session::~Session() = default;

std::unique_ptr<Session> Session::open(const std::string &modelPath, const RunOptions &options) {
  const detail::Runtime &rt = detail::runtime();
  if (!rt.api)
    throw OrtError(rt.why);
  const OrtApi *api = rt.api;
  auto impl = std::make_unique<Impl>();
  impl->api = api;
  impl->path = modelPath;
  impl->allTensors = options.allTensors;

  OrtSessionOptions *opts = nullptr;
  check(api, api->CreateSessionOptions(&opts), modelPath);
  struct OptsGuard {
    const OrtApi *api;
    OrtSessionOptions *opts;
    ~OptsGuard() { api->ReleaseSessionOptions(opts); }
  } guard{api, opts};
  if (options.threads > 0)
    check(api, api->SetIntraOpNumThreads(opts, static_cast<int>(options.threads)), modelPath);
  check(api, api->SetSessionGraphOptimizationLevel(opts, options.optimize ? ORT_ENABLE_ALL : ORT_DISABLE_ALL),
        modelPath);
  if (options.allTensors) {
    std::string bytes = exposeAllTensors(modelPath);
    check(api, api->CreateSessionFromArray(rt.env, bytes.data(), bytes.size(), opts, &impl->session),
          modelPath);
  } else {
    if (!std::filesystem::exists(modelPath))
      throw OrtError(modelPath + ": cannot open file");
    check(api, api->CreateSession(rt.env, modelPath.c_str(), opts, &impl->session), modelPath);
  }

  OrtAllocator *alloc = nullptr;
  check(api, api->GetAllocatorWithDefaultOptions(&alloc), modelPath);
  std::unique_ptr<Session> s(new Session(std::move(impl)));
  auto collect = [&](bool inputs) {
    size_t count = 0;
    OrtSession *session = s->impl->session;
    check(api,
          inputs ? api->SessionGetInputCount(session, &count) : api->SessionGetOutputCount(session, &count),
          modelPath);
    for (size_t i = 0; i < count; ++i) {
      char *name = nullptr;
      check(api,
            inputs ? api->SessionGetInputName(session, i, alloc, &name)
                   : api->SessionGetOutputName(session, i, alloc, &name),
            modelPath);
      std::string n = name;
      succeeded(api, api->AllocatorFree(alloc, name));
      OrtTypeInfo *type = nullptr;
      check(api,
            inputs ? api->SessionGetInputTypeInfo(session, i, &type)
                   : api->SessionGetOutputTypeInfo(session, i, &type),
            modelPath);
      (inputs ? s->inputInfo : s->outputInfo).push_back(describe(api, type, std::move(n)));
    }
  };
  collect(true);
  collect(false);
  return s;
}

NpzFile Session::run(const std::map<std::string, Tensor> &inputs) const {
  const OrtApi *api = impl->api;
  const std::string &path = impl->path;
  for (const auto &[name, tensor] : inputs) {
    bool known = false;
    for (const auto &in : inputInfo)
      known |= in.name == name;
    if (!known)
      throw OrtError(path + ": no input named '" + name + "' (inputs: " + joinNames(inputInfo) + ")");
  }

  OrtMemoryInfo *mem = nullptr;
  check(api, api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &mem), path);
  std::vector<OrtValue *> values;
  std::vector<OrtValue *> results;
  // Releases everything on every exit path.
  struct Cleanup {
    const OrtApi *api;
    OrtMemoryInfo *mem;
    std::vector<OrtValue *> &a, &b;
    ~Cleanup() {
      for (OrtValue *v : a)
        if (v)
          api->ReleaseValue(v);
      for (OrtValue *v : b)
        if (v)
          api->ReleaseValue(v);
      api->ReleaseMemoryInfo(mem);
    }
  } cleanup{api, mem, values, results};

  std::vector<Tensor> converted;
  converted.reserve(inputInfo.size());
  std::vector<const char *> inNames;
  static uint8_t emptyBuffer[8];
  for (const ValueInfo &in : inputInfo) {
    auto it = inputs.find(in.name);
    if (it == inputs.end())
      throw OrtError(path + ": missing input '" + in.name + "' (inputs: " + joinNames(inputInfo) + ")");
    if (!in.dtype)
      throw OrtError(path + ": input '" + in.name + "' has a type tpuc cannot feed");
    const Tensor &given = it->second;
    if (given.rank() != static_cast<int64_t>(in.shape.size()))
      throw OrtError(path + ": input '" + in.name + "' has shape " + shapeToString(given.shape()) +
                     ", the model takes rank " + std::to_string(in.shape.size()) + " " +
                     shapeToString(in.shape));
    for (size_t d = 0; d < in.shape.size(); ++d)
      if (in.shape[d] >= 0 && in.shape[d] != given.shape()[d])
        throw OrtError(path + ": input '" + in.name + "' has shape " + shapeToString(given.shape()) +
                       ", the model takes " + shapeToString(in.shape));
    converted.push_back(convert(given, *in.dtype));
    Tensor &t = converted.back();
    void *data = t.byteSize() ? static_cast<void *>(t.data()) : emptyBuffer;
    OrtValue *value = nullptr;
    check(api,
          api->CreateTensorWithDataAsOrtValue(mem, data, t.byteSize(), t.shape().data(), t.shape().size(),
                                              toOrt(t.dtype()), &value),
          path + ": input '" + in.name + "'");
    values.push_back(value);
    inNames.push_back(in.name.c_str());
  }

  // With allTensors, outputs of a type Tensor cannot hold are not requested.
  std::vector<const ValueInfo *> wanted;
  for (const ValueInfo &out : outputInfo) {
    if (!out.dtype && impl->allTensors)
      continue;
    if (!out.dtype)
      throw OrtError(path + ": output '" + out.name + "' is not a numeric tensor");
    wanted.push_back(&out);
  }
  std::vector<const char *> outNames;
  for (const ValueInfo *w : wanted)
    outNames.push_back(w->name.c_str());
  results.assign(wanted.size(), nullptr);
  check(api,
        api->Run(impl->session, nullptr, inNames.data(), values.data(), values.size(), outNames.data(),
                 outNames.size(), results.data()),
        path);

  NpzFile out;
  for (size_t i = 0; i < wanted.size(); ++i) {
    const std::string &name = wanted[i]->name;
    OrtValue *v = results[i];
    if (!v)
      continue; // an optional output the graph did not produce
    int isTensor = 0;
    check(api, api->IsTensor(v, &isTensor), path + ": output '" + name + "'");
    if (!isTensor) {
      if (impl->allTensors)
        continue;
      throw OrtError(path + ": output '" + name + "' is not a tensor");
    }
    OrtTensorTypeAndShapeInfo *info = nullptr;
    check(api, api->GetTensorTypeAndShape(v, &info), path + ": output '" + name + "'");
    ONNXTensorElementDataType type{};
    size_t rank = 0;
    OrtStatus *st = api->GetTensorElementType(info, &type);
    if (!st)
      st = api->GetDimensionsCount(info, &rank);
    std::vector<int64_t> shape(rank);
    if (!st)
      st = api->GetDimensions(info, shape.data(), rank);
    api->ReleaseTensorTypeAndShapeInfo(info);
    check(api, st, path + ": output '" + name + "'");
    std::optional<DType> dtype = fromOrt(type);
    if (!dtype) {
      if (impl->allTensors)
        continue;
      throw OrtError(path + ": output '" + name + "' has an element type tpuc cannot hold");
    }
    Tensor t(*dtype, shape);
    if (t.byteSize()) {
      void *data = nullptr;
      check(api, api->GetTensorMutableData(v, &data), path + ": output '" + name + "'");
      std::memcpy(t.data(), data, t.byteSize());
    }
    out.set(name, std::move(t));
  }
  return out;
}

#else // !TPUC_HAVE_ORT_HEADERS

struct Session::Impl {};
Session::Session(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Session::~Session() = default;

std::unique_ptr<Session> Session::open(const std::string &, const RunOptions &) {
  throw OrtError(detail::kNoOrtHeaders);
}

NpzFile Session::run(const std::map<std::string, Tensor> &) const { throw OrtError(detail::kNoOrtHeaders); }

#endif

NpzFile run(const std::string &modelPath, const std::map<std::string, Tensor> &inputs, unsigned threads,
            bool allTensors) {
  RunOptions options;
  options.threads = threads;
  options.allTensors = allTensors;
  return Session::open(modelPath, options)->run(inputs);
}

std::vector<ValueInfo> modelInputs(const std::string &modelPath) {
  return Session::open(modelPath)->inputs();
}

std::vector<ValueInfo> modelOutputs(const std::string &modelPath) {
  return Session::open(modelPath)->outputs();
}

} // namespace tpuc::sim::ort
