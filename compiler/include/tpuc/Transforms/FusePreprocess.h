//===- FusePreprocess.h - model_deploy's --fuse_preprocess --------*- C++ -*-===//
//
// Moves the image preprocessing of a Top module's inputs onto the chip. Each image input (4-D, the pixel
// and channel formats of its top.input) then takes raw 8-bit pixels at its resize size, in the layout of
// `customization_format`, and three Top ops follow it, marked `top.preprocess` (lowering keeps them F32):
//
//   <input>_permute   NHWC -> NCHW            (packed formats only)
//   <input>_crop      the centre crop to the network's H, W (only when the resize size is larger)
//   <input>_preprocess  a 1x1 convolution: channel c of the network input is
//                     (pixel[src(c)] - mean[c]) * scale[c], src reordering RGB <-> BGR
//
// The host side (the studio, --test_input, calibration of the fused module) then only decodes and resizes:
// the top.input holds pixel_format / channel_format of the raw layout and no mean or scale. The convolution
// carries `top.preprocess_of = "<input>"`, so a calibration table made for the unfused module (which has
// the input's threshold under the input's name) applies to its output. An NHWC network gets its layout back
// through <input>_preprocess_nhwc, which then carries the mark.
//
//===----------------------------------------------------------------------===//
#ifndef TPUC_TRANSFORMS_FUSEPREPROCESS_H
#define TPUC_TRANSFORMS_FUSEPREPROCESS_H

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tpuc {

/// TPU-MLIR's customization formats this build fuses (the YUV ones are CV18xx VPSS formats).
const std::vector<std::string> &customizationFormats();

/// One fused input: its name, the name of the tensor that now holds its preprocessed values, and the
/// format its raw pixels come in.
struct FusedInput {
  std::string input;
  std::string preprocessed;
  std::string format;
};

/// Fuses the preprocessing of every image input of the module's entry function. `format` empty: each
/// input's own pixel and channel format (rgb + nchw -> RGB_PLANAR, bgr + nhwc -> BGR_PACKED, gray ->
/// GRAYSCALE). Fails with one line naming the input or the format: an input that is not 4-D, a format whose
/// channel count differs from the input's, an unknown format, no image input at all.
llvm::Expected<std::vector<FusedInput>> fusePreprocess(mlir::ModuleOp module, const std::string &format);

} // namespace tpuc

#endif // TPUC_TRANSFORMS_FUSEPREPROCESS_H
