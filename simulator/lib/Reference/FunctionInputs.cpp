//===- FunctionInputs.cpp - Binding inputs of a simulated function --------===//
#include "FunctionInputs.h"

#include "tpuc/Support/FloatConvert.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cstring>

namespace tpuc::sim {
namespace {
llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}
std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  return shapeToString(std::span<const int64_t>(shape.data(), shape.size()));
}
} // namespace

std::vector<int64_t> FunctionInputs::shape(size_t index) const {
  if (index >= buffers.size())
    return {};
  auto type = llvm::dyn_cast<mlir::ShapedType>(values[index].getType());
  return type && type.hasRank() ? std::vector<int64_t>(type.getShape().begin(), type.getShape().end())
                                : std::vector<int64_t>{};
}

llvm::Error FunctionInputs::set(size_t index, const Tensor &tensor) const {
  if (index >= buffers.size())
    return makeError("input index " + llvm::Twine(index) + " is out of range: the function has " +
                     llvm::Twine(buffers.size()) + " inputs");
  std::vector<int64_t> expected = shape(index);
  if (tensor.shape() != expected)
    return makeError("input '" + names[index] + "' has shape " + formatShape(tensor.shape()) +
                     " but the function expects " + formatShape(expected));
  Tensor f32 = tensor.dtype() == DType::F32 ? tensor : toF32Tensor(tensor);
  int64_t n = f32.numElements();
  buffers[index].reset(new float[std::max<int64_t>(n, 1)]);
  if (n)
    std::memcpy(buffers[index].get(), f32.data(), n * sizeof(float));
  return llvm::Error::success();
}

llvm::Error FunctionInputs::set(llvm::StringRef name, const Tensor &tensor) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name || ("input_" + std::to_string(i)) == name)
      return set(i, tensor);
  std::string known;
  for (const std::string &n : names)
    known += (known.empty() ? "" : ", ") + n;
  return makeError("the function has no input '" + name + "' (inputs: " + known + ")");
}

llvm::Error FunctionInputs::setAll(const NpzFile &npz) const {
  for (size_t i = 0; i < names.size(); ++i) {
    std::string alias = "input_" + std::to_string(i);
    const std::string &name = npz.has(names[i]) ? names[i] : alias;
    if (!npz.has(name))
      return makeError("missing input '" + names[i] + "' (argument " + llvm::Twine(i) + ") in the input file");
    if (auto err = set(i, npz.get(name)))
      return err;
  }
  return llvm::Error::success();
}

} // namespace tpuc::sim
