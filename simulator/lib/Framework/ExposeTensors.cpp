//===- ExposeTensors.cpp - Every node output as a graph output, with libonnx ---===//
//
// TPU-MLIR compares per layer by re-saving the ONNX model with every node output appended to the
// graph outputs. Element types come from ONNX shape inference when it succeeds (shapes are left for
// ONNX Runtime to fill in, so a wrong inferred shape cannot fail the run). External data is
// inlined, because the rewritten model reaches ONNX Runtime as bytes, without a directory.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Simulator/OnnxRuntime.h"

#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace tpuc::sim::ort {

namespace {

std::string readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw OrtError(path + ": cannot open file");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void inlineExternalData(onnx::TensorProto &tensor, const std::filesystem::path &dir,
                        const std::string &modelPath) {
  if (tensor.data_location() != onnx::TensorProto::EXTERNAL)
    return;
  std::string location;
  uint64_t offset = 0, length = std::numeric_limits<uint64_t>::max();
  for (const auto &kv : tensor.external_data()) {
    if (kv.key() == "location")
      location = kv.value();
    else if (kv.key() == "offset")
      offset = std::stoull(kv.value());
    else if (kv.key() == "length")
      length = std::stoull(kv.value());
  }
  std::filesystem::path file = dir / location;
  std::ifstream in(file, std::ios::binary);
  if (location.empty() || !in)
    throw OrtError(modelPath + ": external data '" + location + "' of tensor '" + tensor.name() +
                   "' not found");
  in.seekg(0, std::ios::end);
  uint64_t size = static_cast<uint64_t>(in.tellg());
  if (offset > size)
    throw OrtError(modelPath + ": external data of tensor '" + tensor.name() + "' starts past the end of " +
                   file.string());
  if (length == std::numeric_limits<uint64_t>::max())
    length = size - offset;
  if (length > size - offset)
    throw OrtError(modelPath + ": external data of tensor '" + tensor.name() + "' runs past the end of " +
                   file.string());
  std::string data(length, '\0');
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(data.data(), static_cast<std::streamsize>(length));
  tensor.set_raw_data(std::move(data));
  tensor.clear_external_data();
  tensor.set_data_location(onnx::TensorProto::DEFAULT);
}

void inlineGraphExternalData(onnx::GraphProto &graph, const std::filesystem::path &dir,
                             const std::string &modelPath) {
  for (auto &init : *graph.mutable_initializer())
    inlineExternalData(init, dir, modelPath);
  for (auto &node : *graph.mutable_node())
    for (auto &attr : *node.mutable_attribute()) {
      if (attr.has_t())
        inlineExternalData(*attr.mutable_t(), dir, modelPath);
      if (attr.has_g())
        inlineGraphExternalData(*attr.mutable_g(), dir, modelPath);
      for (auto &g : *attr.mutable_graphs())
        inlineGraphExternalData(g, dir, modelPath);
    }
}

} // namespace

std::string exposeAllTensors(const std::string &modelPath) {
  std::string bytes = readAll(modelPath);
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes))
    throw OrtError(modelPath + ": not a valid ONNX model (protobuf parse failed)");
  inlineGraphExternalData(*model.mutable_graph(), std::filesystem::path(modelPath).parent_path(), modelPath);

  // Element types of intermediate values; inference failures only cost the type hints.
  std::unordered_map<std::string, int32_t> elemTypes;
  try {
    onnx::ModelProto inferred = model;
    onnx::shape_inference::InferShapes(inferred);
    for (const auto &vi : inferred.graph().value_info())
      if (vi.type().has_tensor_type() && vi.type().tensor_type().elem_type() != 0)
        elemTypes[vi.name()] = vi.type().tensor_type().elem_type();
  } catch (const std::exception &) {
  }

  onnx::GraphProto &graph = *model.mutable_graph();
  std::unordered_map<std::string, onnx::ValueInfoProto> declared;
  for (const auto &out : graph.output())
    declared[out.name()] = out;
  std::vector<onnx::ValueInfoProto> outputs;
  std::unordered_set<std::string> seen;
  auto add = [&](const std::string &name) {
    if (name.empty() || !seen.insert(name).second)
      return;
    if (auto it = declared.find(name); it != declared.end()) {
      outputs.push_back(it->second);
      return;
    }
    onnx::ValueInfoProto vi;
    vi.set_name(name);
    if (auto it = elemTypes.find(name); it != elemTypes.end())
      vi.mutable_type()->mutable_tensor_type()->set_elem_type(it->second);
    outputs.push_back(std::move(vi));
  };
  for (const auto &node : graph.node())
    for (const auto &out : node.output())
      add(out);
  for (const auto &out : graph.output())
    add(out.name());
  graph.clear_output();
  for (auto &vi : outputs)
    *graph.add_output() = std::move(vi);
  std::string result;
  if (!model.SerializeToString(&result))
    throw OrtError(modelPath + ": cannot serialize the model with all tensors exposed (over 2 GiB?)");
  return result;
}

} // namespace tpuc::sim::ort
