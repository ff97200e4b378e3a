// ONNX graph inputs from the protobuf wire format.
#include "ui/ModelInputs.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>

#include <unordered_set>

namespace tpuc::ui {

namespace {

/// Where a message's bytes come from: memory, or a file read on demand. A file is never mapped: one truncated
/// while it is read (a model being rewritten by an export next to the studio) must give an error, and
/// touching a mapped page past a file's new end is SIGBUS, which would take the studio down.
class Source {
public:
  Source(const std::uint8_t *bytes, std::size_t size) : m_bytes(bytes), m_size(size) {}
  explicit Source(QFile *file) : m_file(file), m_size(static_cast<std::size_t>(file->size())) {}
  std::size_t size() const { return m_size; }
  /// True when the file ended before its size said (it shrank while it was read) or could not be read.
  bool shortRead() const { return m_short; }
  /// Copies `n` bytes at `offset` to `out`; false when they are not there.
  bool read(std::size_t offset, std::size_t n, std::uint8_t *out) {
    if (offset > m_size || n > m_size - offset)
      return false;
    if (!m_file) {
      std::memcpy(out, m_bytes + offset, n);
      return true;
    }
    while (n > 0) {
      if (offset < m_blockStart || offset >= m_blockStart + m_block.size()) { // read the block around it
        m_blockStart = offset - offset % kBlock;
        m_block.resize(std::min<std::size_t>(kBlock, m_size - m_blockStart));
        if (!m_file->seek(static_cast<qint64>(m_blockStart)) ||
            m_file->read(reinterpret_cast<char *>(m_block.data()), static_cast<qint64>(m_block.size())) !=
                static_cast<qint64>(m_block.size())) {
          m_block.clear();
          m_short = true;
          return false;
        }
      }
      const std::size_t at = offset - m_blockStart, take = std::min(n, m_block.size() - at);
      std::memcpy(out, m_block.data() + at, take);
      out += take, offset += take, n -= take;
    }
    return true;
  }

private:
  static constexpr std::size_t kBlock = 64 * 1024;
  const std::uint8_t *m_bytes = nullptr;
  QFile *m_file = nullptr;
  std::size_t m_size = 0;
  std::vector<std::uint8_t> m_block;
  std::size_t m_blockStart = 0;
  bool m_short = false;
};

/// A bounds-checked reader over one protobuf message.
class Wire {
public:
  Wire() = default;
  Wire(Source &source, std::size_t begin, std::size_t n) : m_src(&source), m_p(begin), m_end(begin + n) {}
  bool atEnd() const { return m_p == m_end; }
  bool ok() const { return m_ok; }

  bool varint(std::uint64_t &out) {
    out = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      std::uint8_t byte;
      if (m_p == m_end || !m_src->read(m_p, 1, &byte))
        return fail();
      ++m_p;
      out |= std::uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return true;
    }
    return fail();
  }
  /// Reads a field key; false at the end of the message or on malformed input.
  bool next(int &field, int &wireType) {
    if (atEnd())
      return false;
    std::uint64_t key;
    if (!varint(key))
      return false;
    field = static_cast<int>(key >> 3);
    wireType = static_cast<int>(key & 7);
    return field > 0 || fail();
  }
  /// A length-delimited payload as a sub-reader.
  bool bytes(Wire &out) {
    std::uint64_t n;
    if (!varint(n) || n > static_cast<std::uint64_t>(m_end - m_p))
      return fail();
    out = Wire(*m_src, m_p, static_cast<std::size_t>(n));
    m_p += n;
    return true;
  }
  bool string(std::string &out) {
    Wire w;
    if (!bytes(w))
      return false;
    out.resize(w.m_end - w.m_p);
    return m_src->read(w.m_p, out.size(), reinterpret_cast<std::uint8_t *>(out.data())) || fail();
  }
  bool skip(int wireType) {
    std::uint64_t v;
    Wire w;
    switch (wireType) {
    case 0: return varint(v);
    case 1: return advance(8);
    case 2: return bytes(w);
    case 5: return advance(4);
    default: return fail(); // groups (3, 4) do not occur in ONNX
    }
  }

private:
  bool advance(std::size_t n) {
    if (n > m_end - m_p)
      return fail();
    m_p += n;
    return true;
  }
  bool fail() {
    m_ok = false;
    return false;
  }
  Source *m_src = nullptr;
  std::size_t m_p = 0, m_end = 0;
  bool m_ok = true;
};

// Field numbers from onnx.proto3.
constexpr int kModelGraph = 7, kGraphInitializer = 5, kGraphInput = 11, kTensorName = 8, kValueName = 1,
              kValueType = 2, kTypeTensor = 1, kTensorElemType = 1, kTensorShape = 2, kShapeDim = 1,
              kDimValue = 1, kDimParam = 2;

bool readDim(Wire w, ModelInput &input) {
  std::int64_t value = -1;
  std::string param;
  int field, type;
  while (w.next(field, type)) {
    std::uint64_t v;
    if (field == kDimValue && type == 0) {
      if (!w.varint(v))
        return false;
      value = static_cast<std::int64_t>(v);
    } else if (field == kDimParam && type == 2) {
      if (!w.string(param))
        return false;
    } else if (!w.skip(type)) {
      return false;
    }
  }
  input.dims.push_back(value);
  input.dimParams.push_back(value < 0 ? param : std::string());
  return w.ok();
}

bool readValueInfo(Wire w, ModelInput &input) {
  int field, type;
  while (w.next(field, type)) {
    Wire sub;
    if (field == kValueName && type == 2) {
      if (!w.string(input.name))
        return false;
    } else if (field == kValueType && type == 2) {
      if (!w.bytes(sub))
        return false;
      int f2, t2;
      while (sub.next(f2, t2)) {
        Wire tensor;
        if (f2 != kTypeTensor || t2 != 2) {
          if (!sub.skip(t2))
            return false;
          continue;
        }
        if (!sub.bytes(tensor))
          return false;
        int f3, t3;
        while (tensor.next(f3, t3)) {
          std::uint64_t v;
          Wire shape;
          if (f3 == kTensorElemType && t3 == 0) {
            if (!tensor.varint(v))
              return false;
            input.elemType = static_cast<int>(v);
          } else if (f3 == kTensorShape && t3 == 2) {
            if (!tensor.bytes(shape))
              return false;
            int f4, t4;
            while (shape.next(f4, t4)) {
              Wire dim;
              if (f4 == kShapeDim && t4 == 2) {
                if (!shape.bytes(dim) || !readDim(dim, input))
                  return false;
              } else if (!shape.skip(t4)) {
                return false;
              }
            }
            if (!shape.ok())
              return false;
          } else if (!tensor.skip(t3)) {
            return false;
          }
        }
        if (!tensor.ok())
          return false;
      }
      if (!sub.ok())
        return false;
    } else if (!w.skip(type)) {
      return false;
    }
  }
  return w.ok();
}

Result<std::vector<ModelInput>> readInputs(Source &source) {
  Wire model(source, 0, source.size());
  std::vector<ModelInput> inputs;
  std::unordered_set<std::string> initializers;
  bool sawGraph = false;
  int field, type;
  while (model.next(field, type)) {
    if (field != kModelGraph || type != 2) {
      if (!model.skip(type))
        break;
      continue;
    }
    Wire graph;
    if (!model.bytes(graph))
      break;
    sawGraph = true;
    int f, t;
    while (graph.next(f, t)) {
      Wire sub;
      if (f == kGraphInput && t == 2) {
        ModelInput input;
        if (!graph.bytes(sub) || !readValueInfo(sub, input))
          return Failure{"malformed graph input"};
        inputs.push_back(std::move(input));
      } else if (f == kGraphInitializer && t == 2) {
        if (!graph.bytes(sub))
          break;
        int f2, t2;
        while (sub.next(f2, t2)) {
          std::string name;
          if (f2 == kTensorName && t2 == 2) {
            if (!sub.string(name))
              break;
            initializers.insert(name);
          } else if (!sub.skip(t2)) {
            break;
          }
        }
      } else if (!graph.skip(t)) {
        break;
      }
    }
    if (!graph.ok())
      return Failure{"malformed graph"};
  }
  if (!model.ok() || !sawGraph)
    return Failure{model.ok() ? "no graph (not an ONNX model)" : "not an ONNX model (malformed protobuf)"};
  // Older exporters list initializers among the inputs too; those are weights, not model inputs.
  std::erase_if(inputs, [&](const ModelInput &input) { return initializers.count(input.name) > 0; });
  return inputs;
}

} // namespace

Result<std::vector<ModelInput>> readOnnxInputs(const std::uint8_t *bytes, std::size_t size) {
  Source source(bytes, size);
  return readInputs(source);
}

Result<std::vector<ModelInput>> readOnnxInputsFromFile(const std::string &path) {
  QFile file(QString::fromStdString(path));
  if (!file.open(QIODevice::ReadOnly))
    return Failure{path + ": " + file.errorString().toStdString()};
  // Read piece by piece, not whole: weights can be hundreds of megabytes and only a few bytes matter here.
  Source source(&file);
  Result<std::vector<ModelInput>> inputs = readInputs(source);
  if (source.shortRead())
    return Failure{path + ": the file ended early (truncated or rewritten while it was read)"};
  if (!inputs)
    return Failure{path + ": " + inputs.error()};
  return inputs;
}

std::string elemTypeName(int elemType) {
  static const char *names[] = {"undefined", "float32", "uint8",  "int8",    "uint16",    "int16",
                                "int32",     "int64",   "string", "bool",    "float16",   "float64",
                                "uint32",    "uint64",  "complex64", "complex128", "bfloat16"};
  return elemType >= 0 && elemType < static_cast<int>(std::size(names)) ? names[elemType]
                                                                          : "type " + std::to_string(elemType);
}

std::vector<std::vector<std::int64_t>> parseInputShapes(const std::string &text) {
  std::vector<std::vector<std::int64_t>> shapes;
  QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text));
  for (const QJsonValue &shape : doc.array()) {
    std::vector<std::int64_t> dims;
    for (const QJsonValue &dim : shape.toArray())
      dims.push_back(dim.toInteger(-1));
    shapes.push_back(dims);
  }
  return shapes;
}

Result<NpzFile> randomTestInputs(const std::vector<ModelInput> &inputs,
                                 const std::vector<std::vector<std::int64_t>> &shapes, std::uint32_t seed) {
  NpzFile npz;
  std::mt19937 generator(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const ModelInput &input = inputs[i];
    const bool given = i < shapes.size() && !shapes[i].empty();
    std::vector<std::int64_t> dims = given ? shapes[i] : input.dims;
    if (!given && !dims.empty() && dims[0] < 0)
      dims[0] = 1;
    if (std::any_of(dims.begin(), dims.end(), [](std::int64_t d) { return d < 0; }))
      return Failure("input '" + input.name +
                     "' has a dynamic shape: set the input shapes (File ▸ Import Model)");
    // ONNX element type -> the tensor written: every floating-point input as float32 (the engine reads inputs
    // as floats).
    static const std::map<int, DType> kTypes{
        {1, DType::F32},  {10, DType::F32}, {11, DType::F32}, {16, DType::F32}, {2, DType::U8},
        {3, DType::I8},   {4, DType::U16},  {5, DType::I16},  {6, DType::I32},  {7, DType::I64},
        {9, DType::Bool}, {12, DType::U32}, {13, DType::U64}};
    auto known = kTypes.find(input.elemType);
    if (known == kTypes.end())
      return Failure("input '" + input.name + "' is of type " + elemTypeName(input.elemType) +
                     ": no test input can be made for it");
    const DType type = known->second;
    Tensor tensor(type, dims);
    if (type == DType::F32)
      for (float &v : tensor.values<float>())
        v = normal(generator);
    npz.set(input.name, std::move(tensor));
  }
  return npz;
}

} // namespace tpuc::ui
