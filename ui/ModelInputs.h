// Reads the graph inputs (names, element types, shapes with dynamic dims) of an ONNX file for the import
// dialog, straight from the protobuf wire format: no engine, no onnx library, bounds-checked.
#ifndef TPUC_UI_MODELINPUTS_H
#define TPUC_UI_MODELINPUTS_H

#include "tpuc/Support/Result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tpuc::ui {

/// One graph input that is not an initializer.
struct ModelInput {
  std::string name;
  int elemType = 0;               ///< onnx::TensorProto::DataType (1 = float, 7 = int64, ...)
  std::vector<std::int64_t> dims; ///< -1 where the dimension is dynamic
  std::vector<std::string> dimParams; ///< the symbolic name of each dynamic dim ("" when static or unnamed)
  bool operator==(const ModelInput &) const = default;
};

/// The inputs of the ONNX model in `bytes`; a one-line Failure when it is not a readable model.
Result<std::vector<ModelInput>> readOnnxInputs(const std::uint8_t *bytes, std::size_t size);
/// Same for a file; errors name the file.
Result<std::vector<ModelInput>> readOnnxInputsFromFile(const std::string &path);

/// ONNX's name of an element type ("float32", "int64", ...).
std::string elemTypeName(int elemType);

} // namespace tpuc::ui

#endif
