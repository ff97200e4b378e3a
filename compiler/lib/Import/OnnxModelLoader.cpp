//===- OnnxModelLoader.cpp - Reading and checking ONNX models -------------===//
// Everything that happens to the ModelProto before the first Top op is built. The onnx library throws
// on bad models; each throw becomes one line naming the file.
//===----------------------------------------------------------------------===//
#include "OnnxModelLoader.h"

#include "HostTensor.h"
#include "tpuc/Support/FloatConvert.h"

#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/stubs/logging.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>

namespace tpuc::importer {
namespace {

std::string formatDims(const onnx::TensorShapeProto &shape) {
  std::string text = "[";
  for (int k = 0; k < shape.dim_size(); ++k) {
    if (k)
      text += ",";
    const auto &dim = shape.dim(k);
    text += dim.has_dim_value() ? std::to_string(dim.dim_value())
                                : (dim.has_dim_param() && !dim.dim_param().empty() ? dim.dim_param() : "?");
  }
  return text + "]";
}

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t k = 0; k < shape.size(); ++k)
    text += (k ? "," : "") + std::to_string(shape[k]);
  return text + "]";
}

bool parseInt64(const std::string &text, int64_t &out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out >= 0;
}

/// Reads a whole file into `out`. Read, never mapped: a file cut short while it is read (a model re-exported
/// next to a running import) must be an error naming it, while a mapped page past the file's new end is
/// SIGBUS. False with the reason in `why` when it cannot be read or ends before the size it had when opened.
bool readWholeFile(const std::string &path, std::string &out, std::string &why) {
  if (llvm::sys::fs::is_directory(path)) {
    why = std::strerror(EISDIR);
    return false;
  }
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    why = std::strerror(errno);
    return false;
  }
  const std::streamoff size = in.tellg();
  if (size < 0) {
    why = "cannot tell its size";
    return false;
  }
  out.resize(static_cast<std::size_t>(size));
  in.seekg(0);
  in.read(out.data(), size);
  if (in.gcount() != size) {
    why = "it ended after " + std::to_string(in.gcount()) + " of " + std::to_string(size) +
          " bytes (truncated while it was read)";
    return false;
  }
  return true;
}

/// Reads the external data of `tensor` into raw_data. Files are opened once and shared via `files`.
bool inlineExternalData(onnx::TensorProto &tensor, const std::string &baseDir, const std::string &path,
                        std::map<std::string, std::string> &files, std::string &error) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto &entry : tensor.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      int64_t value;
      if (!parseInt64(entry.value(), value)) {
        error = path + ": tensor '" + tensor.name() + "': external data " + entry.key() + " '" +
                entry.value() + "' is not a non-negative integer";
        return false;
      }
      (entry.key() == "offset" ? offset : length) = value;
    }
  }
  if (location.empty()) {
    error = path + ": tensor '" + tensor.name() + "' has external data without a 'location'";
    return false;
  }
  // The data must stay next to the model: no absolute paths, no way up.
  llvm::SmallString<256> native(location);
  bool escapes = llvm::sys::path::is_absolute(native);
  for (auto it = llvm::sys::path::begin(native), end = llvm::sys::path::end(native); it != end; ++it)
    escapes |= *it == "..";
  if (escapes) {
    error = path + ": tensor '" + tensor.name() + "': external data location '" + location +
            "' must be a relative path below the model's directory";
    return false;
  }
  llvm::SmallString<256> full(baseDir);
  llvm::sys::path::append(full, location);
  std::string fullPath(full.str());
  auto it = files.find(fullPath);
  if (it == files.end()) {
    std::string bytes, why;
    if (!readWholeFile(fullPath, bytes, why)) {
      error = path + ": tensor '" + tensor.name() + "': external data file '" + fullPath +
              "' cannot be read (" + why + ")";
      return false;
    }
    it = files.emplace(fullPath, std::move(bytes)).first;
  }
  const std::string &file = it->second;
  int64_t fileSize = (int64_t)file.size();
  if (length < 0)
    length = fileSize - offset;
  if (offset > fileSize || length < 0 || length > fileSize - offset) {
    error = path + ": tensor '" + tensor.name() + "': external data [offset " + std::to_string(offset) +
            ", length " + std::to_string(length) + "] lies outside '" + fullPath + "' (" +
            std::to_string(fileSize) + " bytes)";
    return false;
  }
  tensor.set_raw_data(file.data() + offset, (size_t)length);
  tensor.clear_external_data();
  tensor.set_data_location(onnx::TensorProto::DEFAULT);
  return true;
}

bool inlineAllExternalData(LoadedModel &model, const std::string &baseDir, std::string &error) {
  std::map<std::string, std::string> files;
  onnx::GraphProto *graph = model.proto.mutable_graph();
  for (auto &tensor : *graph->mutable_initializer())
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL &&
        !inlineExternalData(tensor, baseDir, model.path, files, error))
      return false;
  for (auto &node : *graph->mutable_node())
    for (auto &attr : *node.mutable_attribute())
      if (attr.has_t() && attr.t().data_location() == onnx::TensorProto::EXTERNAL &&
          !inlineExternalData(*attr.mutable_t(), baseDir, model.path, files, error))
        return false;
  return true;
}

/// Applies --input_shapes and checks that every input ends up with a static shape.
bool fixInputShapes(LoadedModel &model, const TransformOptions &options, std::string &error) {
  onnx::GraphProto *graph = model.proto.mutable_graph();
  std::map<std::string, onnx::ValueInfoProto *> byName;
  for (auto &input : *graph->mutable_input())
    byName[input.name()] = &input;
  if (!options.inputShapes.empty() && options.inputShapes.size() != model.inputs.size()) {
    std::string names;
    for (const auto &name : model.inputs)
      names += (names.empty() ? "" : ", ") + name;
    error = model.path + ": --input_shapes gives " + std::to_string(options.inputShapes.size()) +
            " shape(s) but the model has " + std::to_string(model.inputs.size()) + " input(s) (" + names +
            ")";
    return false;
  }
  bool reshaped = false;
  for (size_t k = 0; k < model.inputs.size(); ++k) {
    onnx::ValueInfoProto &input = *byName[model.inputs[k]];
    if (!input.type().has_tensor_type()) {
      error = model.path + ": input '" + input.name() + "' is not a tensor";
      return false;
    }
    auto *tensorType = input.mutable_type()->mutable_tensor_type();
    if (!options.inputShapes.empty()) {
      const auto &shape = options.inputShapes[k];
      if (tensorType->has_shape() && tensorType->shape().dim_size() != (int)shape.size()) {
        error = model.path + ": input '" + input.name() + "': --input_shapes gives " + formatShape(shape) +
                " (rank " + std::to_string(shape.size()) + ") but the model's input has rank " +
                std::to_string(tensorType->shape().dim_size()) + " " + formatDims(tensorType->shape());
        return false;
      }
      for (int64_t d : shape)
        if (d <= 0) {
          error = model.path + ": input '" + input.name() + "': --input_shapes gives " + formatShape(shape) +
                  "; every dimension must be positive";
          return false;
        }
      bool same = tensorType->has_shape();
      for (int i = 0; same && i < tensorType->shape().dim_size(); ++i)
        same = tensorType->shape().dim(i).has_dim_value() && tensorType->shape().dim(i).dim_value() == shape[i];
      reshaped |= !same;
      tensorType->mutable_shape()->clear_dim();
      for (int64_t d : shape)
        tensorType->mutable_shape()->add_dim()->set_dim_value(d);
      continue;
    }
    if (!tensorType->has_shape()) {
      error = model.path + ": input '" + input.name() + "' has no shape in the model; give --input_shapes";
      return false;
    }
    for (const auto &dim : tensorType->shape().dim())
      if (!dim.has_dim_value() || dim.dim_value() < 0) {
        error = model.path + ": input '" + input.name() + "' has a dynamic shape " +
                formatDims(tensorType->shape()) + "; give --input_shapes";
        return false;
      }
  }
  for (const auto &name : model.inputs) {
    std::vector<int64_t> dims;
    for (const auto &dim : byName[name]->type().tensor_type().shape().dim())
      dims.push_back(dim.dim_value());
    auto n = checkedNumel(dims);
    if (!n || *n > kMaxElements) {
      error = model.path + ": input '" + name + "' is too large";
      return false;
    }
  }
  // Shapes recorded for intermediate values and outputs were computed for the old input shapes (when
  // --input_shapes gives the shapes the model declares, they still hold).
  if (!reshaped)
    return true;
  graph->clear_value_info();
  // Output dims become unknown (keeping the rank) so that inference fills them for the new input shapes.
  for (auto &output : *graph->mutable_output())
    if (output.type().has_tensor_type() && output.type().tensor_type().has_shape())
      for (auto &dim : *output.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
        dim.clear_dim_value();
        dim.clear_dim_param();
      }
  return true;
}

int32_t onnxDType(DType type) {
  switch (type) {
  case DType::F32:
    return onnx::TensorProto::FLOAT;
  case DType::F64:
    return onnx::TensorProto::DOUBLE;
  case DType::F16:
    return onnx::TensorProto::FLOAT16;
  case DType::BF16:
    return onnx::TensorProto::BFLOAT16;
  case DType::I8:
    return onnx::TensorProto::INT8;
  case DType::U8:
    return onnx::TensorProto::UINT8;
  case DType::I16:
    return onnx::TensorProto::INT16;
  case DType::U16:
    return onnx::TensorProto::UINT16;
  case DType::I32:
    return onnx::TensorProto::INT32;
  case DType::U32:
    return onnx::TensorProto::UINT32;
  case DType::I64:
    return onnx::TensorProto::INT64;
  case DType::U64:
    return onnx::TensorProto::UINT64;
  case DType::Bool:
    return onnx::TensorProto::BOOL;
  }
  return onnx::TensorProto::UNDEFINED;
}

/// `t`'s values as `type` (numbers given on the command line arrive as F64 or I64).
Tensor convertTo(const Tensor &t, DType type) {
  if (t.dtype() == type)
    return t;
  if (type == DType::F16 || type == DType::BF16) // raw 16-bit patterns as they are, numbers rounded
    return t.dtype() == DType::U16 ? t.reinterpret(type) : f32TensorToHalf(toF32Tensor(t), type);
  Tensor out(type, t.shape());
  const std::vector<double> v = t.toDoubles();
  auto fill = [&](auto *dst) {
    using T = std::remove_pointer_t<decltype(dst)>;
    for (size_t i = 0; i < v.size(); ++i)
      dst[i] = static_cast<T>(v[i]);
  };
  switch (type) {
  case DType::F32: fill(reinterpret_cast<float *>(out.data())); break;
  case DType::F64: fill(reinterpret_cast<double *>(out.data())); break;
  case DType::I8: fill(reinterpret_cast<int8_t *>(out.data())); break;
  case DType::U8: fill(reinterpret_cast<uint8_t *>(out.data())); break;
  case DType::I16: fill(reinterpret_cast<int16_t *>(out.data())); break;
  case DType::U16: fill(reinterpret_cast<uint16_t *>(out.data())); break;
  case DType::I32: fill(reinterpret_cast<int32_t *>(out.data())); break;
  case DType::U32: fill(reinterpret_cast<uint32_t *>(out.data())); break;
  case DType::I64: fill(reinterpret_cast<int64_t *>(out.data())); break;
  case DType::U64: fill(reinterpret_cast<uint64_t *>(out.data())); break;
  case DType::Bool:
    for (size_t i = 0; i < v.size(); ++i)
      out.data()[i] = v[i] != 0.0;
    break;
  default:
    throw TensorError("a " + std::string(dtypeName(type)) + " input cannot be given as numbers");
  }
  return out;
}

/// Turns the inputs named in `constantInputs` (--const_inputs, --shape_influencing_input_names) into
/// initializers holding the given values, in the element type the model declares for them.
bool fixConstantInputs(LoadedModel &model, const TransformOptions &options, std::string &error) {
  onnx::GraphProto *graph = model.proto.mutable_graph();
  for (const auto &[name, given] : options.constantInputs) {
    auto &inputs = *graph->mutable_input();
    auto it = std::find_if(inputs.begin(), inputs.end(), [&](const auto &in) { return in.name() == name; });
    bool isInitializer = std::any_of(graph->initializer().begin(), graph->initializer().end(),
                                     [&](const auto &init) { return init.name() == name; });
    if (it == inputs.end() || isInitializer) {
      error = model.path + ": constant input '" + name + "' is not a graph input";
      return false;
    }
    Tensor tensor = given;
    const int32_t declared = it->type().tensor_type().elem_type();
    for (DType d : kAllDTypes)
      if (onnxDType(d) == declared && d != tensor.dtype()) {
        try {
          tensor = convertTo(given, d);
        } catch (const std::exception &e) {
          error = model.path + ": constant input '" + name + "': " + e.what();
          return false;
        }
      }
    // A declared static shape must be the given one (a scalar may stand for a one-element tensor).
    const auto &dims = it->type().tensor_type().shape().dim();
    bool known = it->type().tensor_type().has_shape() &&
                 std::all_of(dims.begin(), dims.end(), [](const auto &d) { return d.has_dim_value(); });
    if (known) {
      std::vector<int64_t> want;
      for (const auto &d : dims)
        want.push_back(d.dim_value());
      if (want != tensor.shape()) {
        int64_t count = 1;
        for (int64_t d : want)
          count *= d;
        if (count != tensor.numElements()) {
          error = model.path + ": constant input '" + name + "': the model declares shape " + shapeToString(want) +
                  ", the value has shape " + shapeToString(tensor.shape());
          return false;
        }
        tensor.reshape(want);
      }
    }
    onnx::TensorProto *init = graph->add_initializer();
    init->set_name(name);
    init->set_data_type(onnxDType(tensor.dtype()));
    for (int64_t d : tensor.shape())
      init->add_dims(d);
    init->set_raw_data(tensor.data(), tensor.byteSize());
    if (model.proto.ir_version() >= 4) // before IR 4 every initializer must also be listed as an input
      inputs.erase(it);
  }
  return true;
}

/// Opsets 1 to 6: the node forms whose meaning changed at opset 7 or that take the legacy attribute form
/// of a later input are refused, naming the node. (`consumed_inputs` is a memory hint without semantics.)
bool checkLegacyForms(const LoadedModel &model, std::string &error) {
  static const std::set<std::string> kLimitedBroadcast = {"Add", "Sub",   "Mul",  "Div", "Pow",  "And",
                                                         "Or",  "Xor",   "Equal", "Greater", "Less", "PRelu"};
  for (const auto &node : model.proto.graph().node()) {
    auto attr = [&](const char *name) -> const onnx::AttributeProto * {
      for (const auto &a : node.attribute())
        if (a.name() == name)
          return &a;
      return nullptr;
    };
    std::string why;
    const std::string &op = node.op_type();
    if (kLimitedBroadcast.count(op) && attr("broadcast") && attr("broadcast")->i() && attr("axis"))
      why = "the opset-" + std::to_string(model.opset) + " broadcast along 'axis' is not supported";
    else if ((op == "BatchNormalization" || op == "Dropout") && attr("is_test") && !attr("is_test")->i())
      why = "is_test = 0 (training) is not supported (inference only)";
    else if (op == "Cast" && attr("to") && attr("to")->type() == onnx::AttributeProto::STRING)
      why = "the opset-" + std::to_string(model.opset) + " string form of 'to' is not supported";
    else if ((op == "Reshape" && attr("shape")) || (op == "Pad" && attr("paddings")) ||
             (op == "Tile" && node.input_size() == 3) || op == "Upsample")
      why = "the opset-" + std::to_string(model.opset) + " form of " + op + " is not supported";
    else if (op == "Concat" && !attr("axis"))
      why = "Concat without 'axis' (opset 1's default) is not supported";
    if (!why.empty()) {
      std::string name = node.name().empty() && node.output_size() ? node.output(0) : node.name();
      error = model.path + ": node '" + name + "' (" + op + "): " + why;
      return false;
    }
  }
  return true;
}

bool finishLoad(LoadedModel &model, const std::string &baseDir, const TransformOptions &options,
                std::string &error) {
  const onnx::ModelProto &proto = model.proto;
  if (proto.ir_version() <= 0 || !proto.has_graph()) {
    error = model.path + ": not an ONNX model (no IR version or no graph)";
    return false;
  }
  bool found = false;
  for (const auto &opset : proto.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx") {
      model.opset = opset.version();
      found = true;
    }
  if (!found) {
    error = model.path + ": the model imports no version of the default ONNX opset";
    return false;
  }
  if (model.opset < kMinOpset || model.opset > kMaxOpset) {
    error = model.path + ": opset " + std::to_string(model.opset) +
            " is not supported (supported: " + std::to_string(kMinOpset) + " to " +
            std::to_string(kMaxOpset) + ")";
    return false;
  }
  if (model.opset < 7 && !checkLegacyForms(model, error))
    return false;
  if (!fixConstantInputs(model, options, error))
    return false;
  std::set<std::string> initializers;
  for (const auto &init : proto.graph().initializer())
    initializers.insert(init.name());
  for (const auto &input : proto.graph().input())
    if (!initializers.count(input.name()))
      model.inputs.push_back(input.name());
  if (!inlineAllExternalData(model, baseDir, error))
    return false;
  return fixInputShapes(model, options, error);
}

} // namespace

std::string oneLine(const std::string &text) {
  // The onnx library appends "==> Context: <dump of the node>" and wraps messages over lines.
  std::string body = text.substr(0, text.find("==> Context:"));
  std::string line;
  for (char c : body) {
    bool space = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (space && (line.empty() || line.back() == ' '))
      continue;
    line += space ? ' ' : c;
  }
  while (!line.empty() && line.back() == ' ')
    line.pop_back();
  if (line.size() > 400)
    line = line.substr(0, 400) + "...";
  return line.empty() ? "(no message)" : line;
}

bool loadModelFromMemory(const void *data, size_t size, const std::string &displayName,
                         const std::string &baseDir, const TransformOptions &options, LoadedModel &model,
                         std::string &error) {
  model.path = displayName;
  if (size > (size_t)INT_MAX) {
    error = displayName + ": the model is larger than 2 GiB; store its weights as external data";
    return false;
  }
  {
    google::protobuf::LogSilencer silence; // the parse failure is reported below, in one line
    google::protobuf::io::CodedInputStream stream(static_cast<const uint8_t *>(data), (int)size);
    stream.SetRecursionLimit(64);
    if (!model.proto.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
      error = displayName + ": not a valid ONNX model (the protobuf does not parse: the file is corrupt or "
                            "truncated)";
      return false;
    }
  }
  return finishLoad(model, baseDir, options, error);
}

bool loadModel(const TransformOptions &options, LoadedModel &model, std::string &error) {
  const std::string &path = options.modelDef;
  if (path.empty()) {
    error = "no model given (--model_def)";
    return false;
  }
  std::string bytes, why;
  if (!readWholeFile(path, bytes, why)) {
    error = path + ": cannot read the model (" + why + ")";
    return false;
  }
  std::string baseDir(llvm::sys::path::parent_path(path));
  if (baseDir.empty())
    baseDir = ".";
  return loadModelFromMemory(bytes.data(), bytes.size(), path, baseDir, options, model, error);
}

namespace {

/// Default-domain ops whose form changed at opset 18 or 19, with the opset of the change: the onnx library
/// Debian ships (1.12) knows schemas up to opset 17, so it would hold these nodes to an older schema
/// (ReduceMean-18's `axes` input is one input too many for ReduceMean-13) or know none (DeformConv). If,
/// Loop and Scan count from 18: their bodies may hold such nodes.
const std::map<std::string, int64_t> &newerForms() {
  static const std::map<std::string, int64_t> forms = {{"ReduceMax", 18},
                                                       {"ReduceMin", 18},
                                                       {"ReduceMean", 18},
                                                       {"ReduceProd", 18},
                                                       {"ReduceSumSquare", 18},
                                                       {"ReduceL1", 18},
                                                       {"ReduceL2", 18},
                                                       {"ReduceLogSum", 18},
                                                       {"ReduceLogSumExp", 18},
                                                       {"Split", 18},
                                                       {"Pad", 18},
                                                       {"Resize", 18},
                                                       {"ScatterElements", 18},
                                                       {"ScatterND", 18},
                                                       {"LpPool", 18},
                                                       {"GroupNormalization", 18},
                                                       {"Mish", 18},
                                                       {"Col2Im", 18},
                                                       {"CenterCropPad", 18},
                                                       {"BitwiseAnd", 18},
                                                       {"BitwiseOr", 18},
                                                       {"BitwiseXor", 18},
                                                       {"BitwiseNot", 18},
                                                       {"OptionalHasElement", 18},
                                                       {"OptionalGetElement", 18},
                                                       {"If", 18},
                                                       {"Loop", 18},
                                                       {"Scan", 18},
                                                       {"AveragePool", 19},
                                                       {"DeformConv", 19},
                                                       {"Cast", 19},
                                                       {"CastLike", 19},
                                                       {"Constant", 19},
                                                       {"DequantizeLinear", 19},
                                                       {"QuantizeLinear", 19},
                                                       {"Equal", 19},
                                                       {"Identity", 19},
                                                       {"Reshape", 19},
                                                       {"Shape", 19},
                                                       {"Size", 19}};
  return forms;
}

/// Whether the onnx library would judge `node` of a model at `opset` by another version's schema.
bool beyondLibrary(const onnx::NodeProto &node, int64_t opset) {
  if (opset <= libraryOpset() || !(node.domain().empty() || node.domain() == "ai.onnx"))
    return false;
  auto it = newerForms().find(node.op_type());
  return it != newerForms().end() && it->second > libraryOpset() && it->second <= opset;
}

/// Makes `proto` (of a model at `opset`, beyond the library's) one the library can judge: its default opset
/// import lowered to the library's newest and the nodes of newer forms removed. With `outputsAsInputs` their
/// outputs become graph inputs (float, no dims), so that the nodes reading them stay well-formed for the
/// checker; shape inference does without them (the tensors downstream get no inferred shape).
void toLibraryOpset(onnx::ModelProto &proto, int64_t opset, bool outputsAsInputs) {
  for (auto &entry : *proto.mutable_opset_import())
    if (entry.domain().empty() || entry.domain() == "ai.onnx")
      entry.set_version(libraryOpset());
  auto *graph = proto.mutable_graph();
  auto *nodes = graph->mutable_node();
  for (int k = nodes->size() - 1; k >= 0; --k) {
    if (!beyondLibrary(nodes->Get(k), opset))
      continue;
    if (outputsAsInputs)
      for (const std::string &out : nodes->Get(k).output())
        if (!out.empty()) {
          auto *input = graph->add_input();
          input->set_name(out);
          auto *tensor = input->mutable_type()->mutable_tensor_type();
          tensor->set_elem_type(onnx::TensorProto::FLOAT);
          tensor->mutable_shape(); // the checker wants one; it does not hold nodes to it
        }
    nodes->DeleteSubrange(k, 1);
  }
}

} // namespace

int64_t libraryOpset() {
  static const int64_t newest = [] {
    const auto &map = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    auto it = map.find(onnx::ONNX_DOMAIN);
    return it == map.end() ? int64_t{17} : static_cast<int64_t>(it->second.second);
  }();
  return newest;
}

void indexTypes(LoadedModel &model) {
  model.types.clear();
  const onnx::GraphProto &graph = model.proto.graph();
  for (const auto &info : graph.input())
    model.types[info.name()] = &info.type();
  for (const auto &info : graph.value_info())
    model.types[info.name()] = &info.type();
  for (const auto &info : graph.output())
    model.types[info.name()] = &info.type();
}

bool checkModel(LoadedModel &model, std::string &error) {
  try {
    if (model.opset <= libraryOpset()) {
      onnx::checker::check_model(model.proto);
    } else {
      // Beyond the library's opsets a copy without the nodes of newer forms is checked (the Top rules
      // check those).
      onnx::ModelProto view = model.proto;
      toLibraryOpset(view, model.opset, /*outputsAsInputs=*/true);
      onnx::checker::check_model(view);
    }
  } catch (const std::exception &e) {
    error = model.path + ": invalid model: " + oneLine(e.what());
    return false;
  }
  indexTypes(model);
  return true;
}

bool inferShapes(LoadedModel &model, const std::unordered_set<const onnx::NodeProto *> &keep,
                 std::string &error) {
  // Only the imported nodes: the Top shape rules have vetted them, which keeps the onnx library away
  // from inconsistent nodes its inference functions do not survive (e.g. a Conv whose filter rank
  // differs from its input's).
  auto *nodes = model.proto.mutable_graph()->mutable_node();
  int kept = 0;
  for (int k = 0; k < nodes->size(); ++k)
    if (keep.count(&nodes->Get(k))) {
      if (k != kept)
        nodes->SwapElements(k, kept); // moves element pointers: kept nodes stay in order
      ++kept;
    }
  nodes->DeleteSubrange(kept, nodes->size() - kept);
  // Beyond the library's opsets the nodes of newer forms stay out, and inference is not strict: the
  // tensors downstream of them get no inferred shape, so only the rest is cross-checked.
  bool beyond = model.opset > libraryOpset();
  if (beyond)
    toLibraryOpset(model.proto, model.opset, /*outputsAsInputs=*/false);
  try {
    std::unordered_map<std::string, onnx::TensorShapeProto> generated;
    onnx::ShapeInferenceOptions inferOptions(/*check_type=*/true, /*strict_mode=*/beyond ? 0 : 1,
                                             /*data_prop=*/true);
    onnx::shape_inference::InferShapes(model.proto, onnx::OpSchemaRegistry::Instance(), inferOptions,
                                       &generated);
  } catch (const std::exception &e) {
    error = model.path + ": shape inference failed: " + oneLine(e.what());
    return false;
  }
  indexTypes(model);
  return true;
}

} // namespace tpuc::importer
