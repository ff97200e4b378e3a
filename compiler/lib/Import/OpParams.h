//===- OpParams.h - Parameters of ONNX ops that moved from attributes to inputs -*- C++ -*-===//
// Axes, slice bounds, split sizes, pads and reshape targets, resolved from an attribute or a constant input
// depending on the opset, and checked. Shared by the Top converters and the import-time folders.
//===----------------------------------------------------------------------===//
#ifndef TPUC_LIB_IMPORT_OPPARAMS_H
#define TPUC_LIB_IMPORT_OPPARAMS_H

#include "GraphImporter.h"

#include <optional>
#include <vector>

namespace tpuc::importer {

/// `[1,3,224,224]`: a list of integers for error messages.
std::string listText(const std::vector<int64_t> &values);

/// Integer values of an attribute before `inputFromOpset`, else of constant input `index`. nullopt when
/// absent; failure (reported) when the input is present but not known at import time.
mlir::FailureOr<std::optional<std::vector<int64_t>>> intsParam(GraphImporter &g, llvm::StringRef attrName,
                                                               int64_t inputFromOpset, size_t index);

/// Axes normalized into [0, rank), each at most once.
mlir::FailureOr<std::vector<int64_t>> normalizeAxes(GraphImporter &g, const std::vector<int64_t> &axes,
                                                    int64_t rank);

/// Slice with every axis listed and its bounds clamped (top.slice's form).
struct SliceParams {
  std::vector<int64_t> offset, ends, steps, outShape;
};
mlir::FailureOr<SliceParams> sliceParams(GraphImporter &g, const std::vector<int64_t> &in);

/// Sizes of the Split outputs along `axis`.
mlir::FailureOr<std::vector<int64_t>> splitSizes(GraphImporter &g, const std::vector<int64_t> &in,
                                                 int64_t axis);

/// Output shape of Reshape (0 copies, -1 infers) from its constant shape input.
mlir::FailureOr<std::vector<int64_t>> reshapeTarget(GraphImporter &g, const std::vector<int64_t> &in);

/// Output shape of Flatten.
mlir::FailureOr<std::vector<int64_t>> flattenTarget(GraphImporter &g, const std::vector<int64_t> &in);

/// Output shape of Squeeze (axes from the attribute or input, all size-1 axes when absent).
mlir::FailureOr<std::vector<int64_t>> squeezeAxes(GraphImporter &g, const std::vector<int64_t> &in);
/// Normalized Unsqueeze axes (positions in the output).
mlir::FailureOr<std::vector<int64_t>> unsqueezeAxes(GraphImporter &g, const std::vector<int64_t> &in);
/// Shape after inserting size-1 axes at `axes` (sorted, normalized against the output rank).
std::vector<int64_t> unsqueezeShape(const std::vector<int64_t> &in, const std::vector<int64_t> &axes);

/// Transpose permutation (reversed axes by default), checked.
mlir::FailureOr<std::vector<int64_t>> transposePerm(GraphImporter &g, int64_t rank);

/// Output shape of Expand: the input and the constant shape input broadcast together.
mlir::FailureOr<std::vector<int64_t>> expandTarget(GraphImporter &g, const std::vector<int64_t> &in);

/// Repeats of Tile, one per axis.
mlir::FailureOr<std::vector<int64_t>> tileRepeats(GraphImporter &g, const std::vector<int64_t> &in);

/// Begin-then-end pads of Pad, its mode and constant value.
struct PadParams {
  std::vector<int64_t> pads;
  std::string mode;
  double value = 0;
};
mlir::FailureOr<PadParams> padParams(GraphImporter &g, int64_t rank);

} // namespace tpuc::importer

#endif // TPUC_LIB_IMPORT_OPPARAMS_H
