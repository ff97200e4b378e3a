//===- Flags.h - model_transform's preprocessing flags to a PreprocessConfig -*- C++ -*-===//
//
// One reading of TPU-MLIR's --mean, --scale, --pixel_format, --channel_format, --resize_dims,
// --keep_aspect_ratio, --pad_value and --pad_type: which graph inputs they apply to and what each input's
// preprocessing then is. The ONNX importer records the result on every top.input (which `tpuc transform
// --test_input`, calibration and deploy read back), and the studio's preprocessing preview calls the same
// function without MLIR, so the two cannot disagree about a flag.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_PREPROCESS_FLAGS_H
#define TPUC_PREPROCESS_FLAGS_H

#include "tpuc/Preprocess/Preprocess.h"
#include "tpuc/Support/Result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tpuc::preprocess {

/// model_transform's preprocessing flags as given; an empty field means "not given".
struct PreprocessFlags {
  /// `(x - mean) * scale` per channel: one value for every channel or one per channel (a longer list
  /// whose values are all equal collapses to one value).
  std::vector<double> mean;
  std::vector<double> scale;
  /// rgb, bgr, gray, rgba (case-insensitive); empty: bgr, TPU-MLIR's default.
  std::string pixelFormat;
  /// nchw, nhwc; empty or "none": nchw.
  std::string channelFormat;
  /// [h, w]; empty: the input's H, W.
  std::vector<int64_t> resizeDims;
  bool keepAspectRatio = false;
  /// Only with keepAspectRatio.
  double padValue = 0;
  /// center, normal; empty: center. Only with keepAspectRatio.
  std::string padType;
  bool operator==(const PreprocessFlags &) const = default;
};

/// A graph input as the importer sees it: name, static shape (after --input_shapes) and whether its
/// element type is a floating-point one (after --input_types).
struct GraphInput {
  std::string name;
  std::vector<int64_t> shape;
  bool isFloat = true;
};

/// Whether the flags apply to an input: 4-D floating-point inputs are images; every other input is
/// taken as it is.
bool takesPreprocessing(const GraphInput &input);

/// Checks the flags that do not depend on an input (the format names, resize_dims); the error names the
/// flag ("--pixel_format 'gbrg' is not supported (rgb, bgr, gray, rgba)").
Result<void> checkFlags(const PreprocessFlags &flags);

/// The preprocessing of one input under `flags`: for an image input the flags resolved against its
/// shape (mean and scale sized to its channels, resize_dims defaulting to the input's H, W under
/// keep_aspect_ratio, pad value and type only with keep_aspect_ratio); for any other input only its name
/// and shape. The error is one line naming the input and the flag ("input 'x': --mean has 2 values but
/// the input has 3 channel(s)"). Whether the pixel format fits the channel count is left to the sample
/// loading (`validate`), as a model may have 4-D float inputs that are not images.
Result<PreprocessConfig> inputConfig(const PreprocessFlags &flags, const GraphInput &input);

/// inputConfig for every input, in order.
Result<std::vector<PreprocessConfig>> inputConfigs(const PreprocessFlags &flags,
                                                   const std::vector<GraphInput> &inputs);

} // namespace tpuc::preprocess

#endif // TPUC_PREPROCESS_FLAGS_H
