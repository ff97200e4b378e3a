//===- WeightStore.cpp - Weights of a module, backed by its .npz file -----===//
// A process-wide cache of weight files: arrays are read once per file, arrays created by passes wait in
// memory until saveWeights() writes the module's file.
//===----------------------------------------------------------------------===//
#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/Dialect/Top/StoredWeight.h"

#include "tpuc/Support/FloatConvert.h"
#include "tpuc/Support/Npz.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include "llvm/Support/FileSystem.h"

#include <map>
#include <memory>
#include <mutex>
#include <set>

using namespace mlir;

namespace tpuc::top {
namespace {

struct WeightFile {
  std::unique_ptr<NpzFile> onDisk; ///< Loaded lazily; null until first read.
  NpzFile pending;                 ///< Arrays created by passes, not yet saved.
};

std::mutex &cacheMutex() {
  static std::mutex mutex;
  return mutex;
}
std::map<std::string, WeightFile, std::less<>> &cache() {
  static std::map<std::string, WeightFile, std::less<>> files;
  return files;
}

std::optional<std::string> weightFileOf(Operation *op) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  if (!module)
    return std::nullopt;
  if (auto attr = module->getAttrOfType<StringAttr>(TopDialect::kWeightFileAttr))
    return attr.str();
  return std::nullopt;
}

/// Finds `name` in the pending arrays or the file on disk (loading it on first use). Caller holds the lock.
FailureOr<const Tensor *> lookup(Operation *op, const std::string &path, StringRef name) {
  WeightFile &file = cache()[path];
  if (file.pending.has(name))
    return &file.pending.get(name);
  if (!file.onDisk) {
    Result<NpzFile> npz = NpzFile::tryRead(path);
    if (!npz)
      return op->emitOpError() << "cannot read weight file: " << npz.error();
    file.onDisk = std::make_unique<NpzFile>(std::move(*npz));
  }
  if (!file.onDisk->has(name))
    return op->emitOpError() << "weight '" << name << "' is not in the weight file '" << path << "'";
  return &file.onDisk->get(name);
}

std::vector<float> elementsToF32(ElementsAttr attr) {
  std::vector<float> out;
  out.reserve(attr.getNumElements());
  auto dense = cast<DenseElementsAttr>(attr);
  if (isa<FloatType>(dense.getElementType())) {
    for (const APFloat &v : dense.getValues<APFloat>())
      out.push_back(static_cast<float>(v.convertToDouble()));
  } else {
    bool isUnsigned = dense.getElementType().isUnsignedInteger() || dense.getElementType().isInteger(1);
    for (const APInt &v : dense.getValues<APInt>())
      out.push_back(static_cast<float>(isUnsigned ? (double)v.getZExtValue() : (double)v.getSExtValue()));
  }
  return out;
}

} // namespace

FailureOr<std::vector<float>> readWeightF32(WeightOp op) {
  if (auto value = op.getValue()) {
    if (!isa<DenseElementsAttr>(*value))
      return op.emitOpError() << "inline value must be dense elements";
    return elementsToF32(*value);
  }
  auto path = weightFileOf(op);
  if (!path)
    return op.emitOpError() << "weight '" << op.getName()
                            << "' has no inline value and the module names no weight file ('"
                            << TopDialect::kWeightFileAttr << "')";
  std::lock_guard<std::mutex> lock(cacheMutex());
  auto tensor = lookup(op, *path, op.getName());
  if (failed(tensor))
    return failure();
  auto expected = getShape(op.getOutput());
  int64_t n = (*tensor)->numElements();
  if (n != getNumElements(expected))
    return op.emitOpError() << "weight '" << op.getName() << "' holds " << n << " elements "
                            << shapeToString((*tensor)->shape()) << " but the IR declares "
                            << formatShape(expected);
  std::vector<float> out(n);
  // .npy has no bfloat16: a bf16 weight comes back from disk as its uint16 bits.
  if ((*tensor)->dtype() == DType::U16 &&
      cast<ShapedType>(op.getOutput().getType()).getElementType().isBF16()) {
    auto bits = (*tensor)->values<uint16_t>();
    for (int64_t i = 0; i < n; ++i)
      out[i] = bf16ToF32(bits[i]);
    return out;
  }
  for (int64_t i = 0; i < n; ++i)
    out[i] = static_cast<float>((*tensor)->valueAsDouble(i));
  return out;
}

const Tensor *storedWeightF32(WeightOp op) {
  auto path = weightFileOf(op);
  if (op.getValue() || !path)
    return nullptr;
  std::lock_guard<std::mutex> lock(cacheMutex());
  WeightFile &file = cache()[*path];
  // Only arrays read from disk: they stay where they are until clearWeightCache (pending ones move as
  // passes add arrays).
  if (file.pending.has(op.getName()))
    return nullptr;
  if (!file.onDisk) {
    Result<NpzFile> npz = NpzFile::tryRead(*path);
    if (!npz)
      return nullptr; // readWeightF32 reports it
    file.onDisk = std::make_unique<NpzFile>(std::move(*npz));
  }
  const NpzFile &npz = *file.onDisk;
  if (!npz.has(op.getName()))
    return nullptr;
  const Tensor &t = npz.get(op.getName());
  if (t.dtype() != DType::F32 || t.numElements() != getNumElements(getShape(op.getOutput())))
    return nullptr;
  return &t;
}

FailureOr<WeightOp> createWeightF32(OpBuilder &builder, Location loc, StringRef nameHint,
                                    ArrayRef<int64_t> shape, ArrayRef<float> data) {
  auto type = RankedTensorType::get(shape, builder.getF32Type());
  return createWeight(builder, loc, nameHint, type,
                      Tensor::fromValues<float>(std::vector<int64_t>(shape.begin(), shape.end()),
                                                std::span<const float>(data.data(), data.size())));
}

FailureOr<WeightOp> createWeight(OpBuilder &builder, Location loc, StringRef nameHint, RankedTensorType type,
                                 Tensor data) {
  if (data.numElements() != type.getNumElements())
    return emitError(loc) << "cannot create weight '" << nameHint << "': " << data.numElements()
                          << " values for type " << type;
  Operation *anchor = builder.getInsertionBlock()->getParentOp();
  auto path = weightFileOf(anchor);
  if (!path) {
    if (data.numElements() > WeightOp::kMaxInlineElements)
      return emitError(loc) << "cannot create weight '" << nameHint << "' of " << data.numElements()
                            << " elements: the module names no weight file ('"
                            << TopDialect::kWeightFileAttr << "')";
    // Inline values are raw little-endian storage, which a quantized element type cannot carry.
    if (isa<quant::QuantizedType>(type.getElementType()))
      return emitError(loc) << "cannot store quantized weight '" << nameHint
                            << "' inline: the module names no weight file";
    auto value = DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(reinterpret_cast<const char *>(data.data()), data.byteSize()));
    return WeightOp::create(builder, loc, type, builder.getStringAttr(nameHint), value);
  }
  std::lock_guard<std::mutex> lock(cacheMutex());
  WeightFile &file = cache()[*path];
  if (!file.onDisk) {
    Result<NpzFile> npz = NpzFile::tryRead(*path);
    // A weight file that does not exist yet is fine: the module is building it.
    if (npz)
      file.onDisk = std::make_unique<NpzFile>(std::move(*npz));
    else if (!llvm::sys::fs::exists(*path))
      file.onDisk = std::make_unique<NpzFile>();
    else
      return emitError(loc) << "cannot read weight file: " << npz.error();
  }
  std::string name = nameHint.str();
  for (int suffix = 1; file.pending.has(name) || file.onDisk->has(name); ++suffix)
    name = nameHint.str() + "_" + std::to_string(suffix);
  file.pending.set(name, std::move(data));
  return WeightOp::create(builder, loc, type, builder.getStringAttr(name), ElementsAttr());
}

LogicalResult saveWeights(ModuleOp module, StringRef path) {
  auto source = weightFileOf(module.getOperation());
  NpzFile out;
  LogicalResult result = success();
  {
    std::lock_guard<std::mutex> lock(cacheMutex());
    module.walk([&](WeightOp op) {
      if (op.getValue() || out.has(op.getName()))
        return;
      if (!source) {
        op.emitOpError() << "weight '" << op.getName() << "' needs a weight file to be read from";
        result = failure();
        return;
      }
      auto tensor = lookup(op, *source, op.getName());
      if (failed(tensor)) {
        result = failure();
        return;
      }
      out.set(op.getName().str(), **tensor);
    });
  }
  if (failed(result))
    return failure();
  try {
    out.write(path.str(), /*compressed=*/false);
  } catch (const std::exception &e) {
    return module.emitError() << "cannot write weight file '" << path << "': " << e.what();
  }
  std::lock_guard<std::mutex> lock(cacheMutex());
  cache().erase(path.str()); // the file changed on disk; reread it on demand
  module->setAttr(TopDialect::kWeightFileAttr, StringAttr::get(module.getContext(), path));
  return success();
}

size_t releasePendingWeights(ModuleOp module, ModuleOp keep) {
  auto path = weightFileOf(module.getOperation());
  if (!path)
    return 0;
  std::set<std::string> kept;
  if (keep && weightFileOf(keep.getOperation()) == path)
    keep.walk([&](WeightOp op) { kept.insert(op.getName().str()); });
  std::lock_guard<std::mutex> lock(cacheMutex());
  auto file = cache().find(*path);
  if (file == cache().end())
    return 0;
  size_t released = 0;
  module.walk([&](WeightOp op) {
    if (!op.getValue() && !kept.count(op.getName().str()) && file->second.pending.remove(op.getName()))
      ++released;
  });
  return released;
}

void clearWeightCache() {
  std::lock_guard<std::mutex> lock(cacheMutex());
  cache().clear();
}

} // namespace tpuc::top
