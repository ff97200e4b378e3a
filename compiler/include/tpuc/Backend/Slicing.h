//===- Slicing.h - Slices of a layer group and backward propagation -------===//
//
// A layer group runs its ops slice by slice. The group's output tensors are
// split into n x c x h x w equal pieces; walking the ops backwards, each op
// maps the box it must produce to the boxes of its operands it reads: conv
// and pool widen H/W by their halo (kernel, stride, dilation, padding
// clipped at the borders), a full conv needs every input channel, depthwise
// conv, pool and elementwise ops keep the channel range. A value read by
// several ops gets the hull of their needs.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_BACKEND_SLICING_H
#define TPUC_BACKEND_SLICING_H

#include "tpuc/Backend/Graph.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tpuc::backend {

/// Half-open index range [begin, end).
struct Range {
  int64_t begin = 0, end = 0;
  int64_t size() const { return end - begin; }
  bool empty() const { return end <= begin; }
  friend bool operator==(const Range &, const Range &) = default;
};

/// Smallest range holding both.
Range hull(const Range &a, const Range &b);

/// A box of an NCHW tensor: one range per dimension.
struct Box {
  std::array<Range, 4> dims; ///< n, c, h, w.
  const Range &n() const { return dims[0]; }
  const Range &c() const { return dims[1]; }
  const Range &h() const { return dims[2]; }
  const Range &w() const { return dims[3]; }
  int64_t elements() const { return dims[0].size() * dims[1].size() * dims[2].size() * dims[3].size(); }
  friend bool operator==(const Box &, const Box &) = default;
};

/// The whole of a value.
Box fullBox(const Value &v);
/// Element-wise hull.
Box hull(const Box &a, const Box &b);

/// How many pieces each dimension of the group outputs is cut into.
struct SliceSpec {
  int64_t n = 1, c = 1, h = 1, w = 1;
  int64_t count() const { return n * c * h * w; }
  friend bool operator==(const SliceSpec &, const SliceSpec &) = default;
};

/// Piece `i` of `k` of [0, extent): the balanced split floor(i*extent/k).
Range splitRange(int64_t extent, int64_t k, int64_t i);

/// How a group's outputs may be cut. A conv chain cuts N, then H (C and W only for a single op). A row
/// group (an op with Graph::cutsRowsOnly: a matmul, a layernorm / RMS norm / softmax along the last axis,
/// or tensors of rank 2 or 3) cuts rows only: N, then the axis before the last of its tensors (C for rank
/// 3, H for rank 4, none besides N for rank 2); the last axis (features, a matmul's K and N, the axis a
/// normalization reduces) stays whole and weights stay resident.
struct CutRule {
  bool rowsOnly = false;
  int axis = 2;   ///< NCHW index of the axis cut after N; -1: N only.
  bool ok = true; ///< False for a row group whose activations differ in rank (no common row axes).
};
CutRule cutRule(const Graph &g, const std::vector<int> &ops);

/// The cut of `spec` along NCHW axis `axis` (0..3).
int64_t &cutAlong(SliceSpec &spec, int axis);

/// Whether a group cut by `spec` loads its weights per slice (a C cut of a single conv's filters)
/// rather than once, resident for all slices.
bool weightsPerSlice(const Graph &g, const std::vector<int> &ops, const SliceSpec &spec);

/// The values a group touches, classified.
struct GroupValues {
  std::vector<int> inputs;        ///< Produced outside, read inside (loaded).
  std::vector<int> weights;       ///< Weights of the group's ops.
  std::vector<int> intermediates; ///< Produced and consumed only inside.
  std::vector<int> outputs;       ///< Produced inside, needed outside (stored).
};

/// Classifies the values of the ops `ops` (ascending indices).
GroupValues classifyValues(const Graph &g, const std::vector<int> &ops);

/// Boxes of one slice.
struct SliceBoxes {
  std::map<int, Box> value;  ///< Box of every activation the slice touches.
  std::map<int, Box> store;  ///< Part of each group output this slice stores.
  std::map<int, Box> weight; ///< Part of each weight the slice reads.
};

/// The boxes of every slice in order (n outermost, then c, h, w), or an
/// error line when `spec` cuts a dimension into more pieces than it has.
struct SlicePlan {
  std::vector<SliceBoxes> slices;
  std::string error;
};
SlicePlan propagateSlices(const Graph &g, const std::vector<int> &ops, const GroupValues &vals,
                          const SliceSpec &spec);

/// The operand box op `op` reads from input `operand` (index into
/// op.inputs) to produce `out`, clipped to the operand's shape. Exposed for
/// tests and for codegen, which derives per-slice padding from it.
Box inputBoxFor(const Graph &g, const Op &op, int operand, const Box &out);

} // namespace tpuc::backend

#endif // TPUC_BACKEND_SLICING_H
