// Reads the graph inputs (names, element types, shapes with dynamic dims) of an ONNX file for the import
// dialog, straight from the protobuf wire format: no engine, no onnx library, bounds-checked.
#ifndef TPUC_UI_MODELINPUTS_H
#define TPUC_UI_MODELINPUTS_H

#include "tpuc/Support/Npz.h"
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

/// The shapes of a `--input_shapes` value ("[[1,3,224,224],[1]]"), or empty when it does not parse.
std::vector<std::vector<std::int64_t>> parseInputShapes(const std::string &text);

/// A test input for a model the project has no data for: one tensor per input, named after it, of shape
/// `shapes[i]` where given (the project's --input_shapes) else the model's dims with a dynamic batch of 1;
/// floating-point inputs (as float32) normal(0, 1) from `seed`, integer and bool inputs 0 (a valid index, an
/// empty loop). A Failure names an input whose shape is still dynamic or whose type has no tensor form.
Result<NpzFile> randomTestInputs(const std::vector<ModelInput> &inputs,
                                 const std::vector<std::vector<std::int64_t>> &shapes, std::uint32_t seed);

} // namespace tpuc::ui

#endif
