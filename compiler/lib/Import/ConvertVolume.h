//===- ConvertVolume.h - 3-D conv, transposed conv and pooling as 2-D ops -===//
// The chip's conv and pool units are 2-D (as for 1-D windows, which run over a height of 1). A 3-D window
// (video, volumetric segmentation, some speech front ends) is imported as 2-D Top ops over the depth axis
// folded into the batch or channel axis, with permutes, slices, pads and reshapes around them; every op the
// chip runs is then an ordinary 2-D one with its own calibration line. The last op of each carries the ONNX
// output's name.
//===----------------------------------------------------------------------===//
#ifndef TPUC_IMPORT_CONVERTVOLUME_H
#define TPUC_IMPORT_CONVERTVOLUME_H

#include "GraphImporter.h"

namespace tpuc::importer {

/// A 3-D window: kernel, strides and dilations per spatial axis (D, H, W); pads as ONNX orders them
/// (begin D, H, W, then end D, H, W).
struct Window3D {
  std::vector<int64_t> kernel, strides, pads, dilations;
};

/// Conv of x [N, C, D, H, W] with the filter w [O, C/group, kD, kH, kW] (node input `filterInput`) and bias
/// b (or none): the input padded along D and turned to [N, D, C, H, W]; each of the kD depth taps is a
/// strided slice of it. Without groups the taps are concatenated along channels and one 2-D conv over the
/// batch N·D_out takes the filter reordered to [O, kD·C, kH, kW] (the chip accumulates the taps, so INT8
/// requantizes once); with groups each tap is its own grouped 2-D conv and the taps are summed.
mlir::Value buildConv3D(GraphImporter &g, mlir::Value x, mlir::Value w, mlir::Value b, size_t filterInput,
                        const Window3D &window, int64_t group, mlir::Type elem);

/// ConvTranspose of x [N, C, D, H, W] with the filter w [C, O/group, kD, kH, kW]: one 2-D transposed conv
/// over the batch N·D with the depth taps stacked into its output channels ([C, kD·O/group, kH, kW]); then
/// each tap's result moves to output depth d·stride + k·dilation (zeros between by a pad, a shift by a pad)
/// and the taps are summed; pads crop along D. The common upsampling form (kernel = stride along D, no pads,
/// no output padding) needs no sums: the taps interleave by a reshape.
mlir::Value buildDeconv3D(GraphImporter &g, mlir::Value x, mlir::Value w, mlir::Value b, size_t filterInput,
                          const Window3D &window, llvm::ArrayRef<int64_t> outputPadding, int64_t group,
                          mlir::Type elem);

/// MaxPool or AveragePool over a 3-D window, which is separable: a 2-D pool over H, W on [N, C·D, H, W], then
/// one over D on [N, C, D, H_out·W_out] with a (kD, 1) window. Max of maxes is the max; an average of
/// averages divides by the product of the per-axis counts, which is the box's count with or without the pads.
mlir::Value buildPool3D(GraphImporter &g, mlir::Value x, bool max, const Window3D &window, bool ceilMode,
                        bool countIncludePad, mlir::Type elem);

} // namespace tpuc::importer

#endif
