//===- OpParams.cpp - Parameters of ONNX ops that moved from attributes to inputs -===//
// ONNX moved axes, slice bounds, split sizes and pads from attributes to inputs over the opsets; these
// helpers read either form and apply ONNX's normalization (negative indices, clamping, 0 and -1 rules).
//===----------------------------------------------------------------------===//
#include "OpParams.h"

#include <algorithm>
#include <limits>

using namespace mlir;

namespace tpuc::importer {

std::string listText(const std::vector<int64_t> &values) {
  std::string text = "[";
  for (size_t k = 0; k < values.size(); ++k)
    text += (k ? "," : "") + std::to_string(values[k]);
  return text + "]";
}

namespace {
int64_t product(const std::vector<int64_t> &shape, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t k = begin; k < end; ++k)
    n *= shape[k];
  return n;
}
} // namespace

FailureOr<std::optional<std::vector<int64_t>>> intsParam(GraphImporter &g, StringRef attrName,
                                                         int64_t inputFromOpset, size_t index) {
  if (g.opset() < inputFromOpset) {
    if (!g.hasAttr(attrName))
      return std::optional<std::vector<int64_t>>();
    return std::optional<std::vector<int64_t>>(g.attrInts(attrName));
  }
  if (!g.hasInput(index))
    return std::optional<std::vector<int64_t>>();
  const HostTensor *c = g.constInput(index);
  if (!c) {
    (void)g.fail("input '" + attrName + "' must be known at import time");
    return failure();
  }
  return std::optional<std::vector<int64_t>>(c->toInts());
}

FailureOr<std::vector<int64_t>> normalizeAxes(GraphImporter &g, const std::vector<int64_t> &axes,
                                              int64_t rank) {
  std::vector<int64_t> out;
  for (int64_t axis : axes) {
    auto a = g.normalizeAxis(axis, rank, "axes");
    if (failed(a))
      return failure();
    if (std::find(out.begin(), out.end(), *a) != out.end()) {
      (void)g.fail("'axes' " + listText(axes) + " lists an axis twice");
      return failure();
    }
    out.push_back(*a);
  }
  return out;
}

FailureOr<SliceParams> sliceParams(GraphImporter &g, const std::vector<int64_t> &in) {
  int64_t rank = in.size();
  auto starts = intsParam(g, "starts", 10, 1), ends = intsParam(g, "ends", 10, 2);
  auto axesIn = intsParam(g, "axes", 10, 3), stepsIn = intsParam(g, "steps", 10, 4);
  if (failed(starts) || failed(ends) || failed(axesIn) || failed(stepsIn))
    return failure();
  if (!*starts || !*ends || (*starts)->size() != (*ends)->size()) {
    (void)g.fail("'starts' and 'ends' must be given with the same length");
    return failure();
  }
  size_t n = (*starts)->size();
  std::vector<int64_t> axes = *axesIn ? **axesIn : std::vector<int64_t>();
  if (!*axesIn)
    for (size_t k = 0; k < n; ++k)
      axes.push_back(k);
  std::vector<int64_t> steps = *stepsIn ? **stepsIn : std::vector<int64_t>(n, 1);
  if (axes.size() != n || steps.size() != n) {
    (void)g.fail("'axes' and 'steps' must have the length of 'starts'");
    return failure();
  }
  auto normalized = normalizeAxes(g, axes, rank);
  if (failed(normalized))
    return failure();
  SliceParams p;
  p.offset.assign(rank, 0);
  p.ends = in;
  p.steps.assign(rank, 1);
  p.outShape = in;
  for (size_t k = 0; k < n; ++k) {
    int64_t axis = (*normalized)[k], dim = in[axis], step = steps[k];
    if (step == 0) {
      (void)g.fail("'steps' must not be 0");
      return failure();
    }
    int64_t start = (**starts)[k], end = (**ends)[k];
    if (start < 0)
      start += dim;
    if (end < 0)
      end += dim;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
    } else {
      start = std::clamp<int64_t>(start, 0, std::max<int64_t>(dim - 1, 0));
      end = std::clamp<int64_t>(end, -1, dim - 1);
    }
    // Bounds are clamped to [-1, dim]; the step may be anything, so no `end - start + step` sums.
    int64_t count = step > 0 ? (end > start ? (end - start - 1) / step + 1 : 0)
                             : (start > end ? (step == INT64_MIN ? 1 : (start - end - 1) / (-step) + 1) : 0);
    p.offset[axis] = start;
    p.ends[axis] = end;
    p.steps[axis] = step;
    p.outShape[axis] = std::max<int64_t>(count, 0);
  }
  return p;
}

FailureOr<std::vector<int64_t>> splitSizes(GraphImporter &g, const std::vector<int64_t> &in, int64_t axis) {
  auto given = intsParam(g, "split", 13, 1);
  if (failed(given))
    return failure();
  int64_t parts = g.node().output_size(), dim = in[axis];
  if (*given && !(*given)->empty()) {
    std::vector<int64_t> sizes = **given;
    int64_t total = 0;
    for (int64_t s : sizes)
      total += s < 0 || s > dim ? dim + 1 : s; // out-of-range sizes cannot add up to dim
    if ((int64_t)sizes.size() != parts || total != dim) {
      (void)g.fail("'split' " + listText(sizes) + " does not divide axis " + std::to_string(axis) +
                   " (size " + std::to_string(dim) + ") into " + std::to_string(parts) + " parts");
      return failure();
    }
    return sizes;
  }
  if (g.opset() >= 18 && g.hasAttr("num_outputs")) {
    // Split-18: `num_outputs` parts of ceil(dim / n), the last one smaller when n does not divide dim.
    int64_t n = g.attrInt("num_outputs", 0);
    if (n != parts || n <= 0 || n > dim) {
      (void)g.fail("'num_outputs' " + std::to_string(n) + " does not match the node's " +
                   std::to_string(parts) + " outputs on axis " + std::to_string(axis) + " of size " +
                   std::to_string(dim));
      return failure();
    }
    int64_t chunk = (dim + n - 1) / n;
    std::vector<int64_t> sizes(n, chunk);
    sizes.back() = dim - chunk * (n - 1);
    if (sizes.back() <= 0) {
      (void)g.fail("axis " + std::to_string(axis) + " of size " + std::to_string(dim) +
                   " does not split into " + std::to_string(n) + " parts of " + std::to_string(chunk));
      return failure();
    }
    return sizes;
  }
  if (parts <= 0 || dim % parts != 0) {
    (void)g.fail("axis " + std::to_string(axis) + " of size " + std::to_string(dim) +
                 " does not split into " + std::to_string(parts) + " equal parts");
    return failure();
  }
  return std::vector<int64_t>(parts, dim / parts);
}

FailureOr<std::vector<int64_t>> reshapeTarget(GraphImporter &g, const std::vector<int64_t> &in) {
  const HostTensor *shapeIn = g.constInput(1);
  if (!shapeIn) {
    (void)g.fail("the target shape must be known at import time");
    return failure();
  }
  bool allowZero = g.attrInt("allowzero", 0) != 0;
  std::vector<int64_t> out = shapeIn->toInts();
  int64_t inferred = -1, known = 1;
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k] == 0 && !allowZero) {
      if (k >= in.size()) {
        (void)g.fail("shape " + listText(shapeIn->toInts()) + " copies axis " + std::to_string(k) +
                     " (0) that the input " + listText(in) + " does not have");
        return failure();
      }
      out[k] = in[k];
    }
    if (out[k] == -1) {
      if (inferred >= 0) {
        (void)g.fail("shape " + listText(shapeIn->toInts()) + " has more than one -1");
        return failure();
      }
      inferred = k;
    } else if (out[k] < 0) {
      (void)g.fail("shape " + listText(shapeIn->toInts()) + " has a negative dimension");
      return failure();
    } else if (__builtin_mul_overflow(known, out[k], &known) || known > kMaxElements) {
      (void)g.fail("shape " + listText(shapeIn->toInts()) + " is too large");
      return failure();
    }
  }
  int64_t total = product(in, 0, in.size());
  if (inferred >= 0) {
    if (known == 0 || total % known != 0) {
      (void)g.fail("cannot reshape " + listText(in) + " to " + listText(shapeIn->toInts()));
      return failure();
    }
    out[inferred] = total / known;
  } else if (known != total) {
    (void)g.fail("cannot reshape " + listText(in) + " to " + listText(out));
    return failure();
  }
  return out;
}

FailureOr<std::vector<int64_t>> flattenTarget(GraphImporter &g, const std::vector<int64_t> &in) {
  int64_t rank = in.size(), axis = g.attrInt("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank) {
    (void)g.fail("'axis' " + std::to_string(g.attrInt("axis", 1)) + " is out of range for rank " +
                 std::to_string(rank));
    return failure();
  }
  return std::vector<int64_t>{product(in, 0, axis), product(in, axis, rank)};
}

FailureOr<std::vector<int64_t>> squeezeAxes(GraphImporter &g, const std::vector<int64_t> &in) {
  auto given = intsParam(g, "axes", 13, 1);
  if (failed(given))
    return failure();
  std::vector<int64_t> axes;
  if (*given && !(*given)->empty()) {
    auto normalized = normalizeAxes(g, **given, in.size());
    if (failed(normalized))
      return failure();
    axes = *normalized;
    for (int64_t a : axes)
      if (in[a] != 1) {
        (void)g.fail("cannot squeeze axis " + std::to_string(a) + " of size " + std::to_string(in[a]));
        return failure();
      }
  } else {
    for (size_t k = 0; k < in.size(); ++k)
      if (in[k] == 1)
        axes.push_back(k);
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

FailureOr<std::vector<int64_t>> unsqueezeAxes(GraphImporter &g, const std::vector<int64_t> &in) {
  auto given = intsParam(g, "axes", 13, 1);
  if (failed(given))
    return failure();
  if (!*given || (*given)->empty()) {
    (void)g.fail("'axes' is required");
    return failure();
  }
  auto axes = normalizeAxes(g, **given, in.size() + (*given)->size());
  if (failed(axes))
    return failure();
  std::sort(axes->begin(), axes->end());
  return axes;
}

std::vector<int64_t> unsqueezeShape(const std::vector<int64_t> &in, const std::vector<int64_t> &axes) {
  std::vector<int64_t> out;
  size_t next = 0;
  for (size_t k = 0; k < in.size() + axes.size(); ++k) {
    if (std::find(axes.begin(), axes.end(), (int64_t)k) != axes.end())
      out.push_back(1);
    else
      out.push_back(in[next++]);
  }
  return out;
}

FailureOr<std::vector<int64_t>> transposePerm(GraphImporter &g, int64_t rank) {
  std::vector<int64_t> perm = g.attrInts("perm");
  if (perm.empty())
    for (int64_t k = rank - 1; k >= 0; --k)
      perm.push_back(k);
  std::vector<bool> seen(rank, false);
  bool ok = (int64_t)perm.size() == rank;
  for (int64_t p : perm) {
    ok = ok && p >= 0 && p < rank && !seen[p];
    if (ok)
      seen[p] = true;
  }
  if (!ok) {
    (void)g.fail("'perm' " + listText(perm) + " is not a permutation of the " + std::to_string(rank) +
                 " axes");
    return failure();
  }
  return perm;
}

FailureOr<std::vector<int64_t>> expandTarget(GraphImporter &g, const std::vector<int64_t> &in) {
  const HostTensor *shape = g.constInput(1);
  if (!shape) {
    (void)g.fail("the target shape must be known at import time");
    return failure();
  }
  auto out = broadcastAll({in, shape->toInts()});
  if (!out) {
    (void)g.fail("shape " + listText(shape->toInts()) + " does not broadcast with the input " + listText(in));
    return failure();
  }
  return *out;
}

FailureOr<std::vector<int64_t>> tileRepeats(GraphImporter &g, const std::vector<int64_t> &in) {
  const HostTensor *repeats = g.constInput(1);
  if (!repeats) {
    (void)g.fail("'repeats' must be known at import time");
    return failure();
  }
  std::vector<int64_t> r = repeats->toInts();
  if (r.size() != in.size() ||
      std::any_of(r.begin(), r.end(), [](int64_t v) { return v < 0 || v > (1 << 20); })) {
    (void)g.fail("'repeats' " + listText(r) + " needs one non-negative value per axis");
    return failure();
  }
  return r;
}

FailureOr<PadParams> padParams(GraphImporter &g, int64_t rank) {
  PadParams p;
  p.mode = g.attrString("mode", "constant");
  if (g.opset() < 11) {
    p.pads = g.attrInts("pads");
    p.value = g.attrFloat("value", 0.0);
  } else {
    const HostTensor *pads = g.constInput(1);
    if (!pads) {
      (void)g.fail("'pads' must be known at import time");
      return failure();
    }
    p.pads = pads->toInts();
    if (g.hasInput(2)) {
      const HostTensor *value = g.constInput(2);
      if (!value || value->numel() != 1) {
        (void)g.fail("'constant_value' must be a scalar known at import time");
        return failure();
      }
      p.value = value->at(0);
    }
  }
  if (std::any_of(p.pads.begin(), p.pads.end(), [](int64_t v) { return v < -(1 << 30) || v > (1 << 30); })) {
    (void)g.fail("'pads' values are out of range");
    return failure();
  }
  if (g.opset() >= 18 && g.hasInput(3)) {
    // Pad-18: the pads cover the listed axes only (begins, then ends); the others get none.
    const HostTensor *axesIn = g.constInput(3);
    if (!axesIn) {
      (void)g.fail("'axes' must be known at import time");
      return failure();
    }
    auto axes = normalizeAxes(g, axesIn->toInts(), rank);
    if (failed(axes))
      return failure();
    size_t n = axes->size();
    if (p.pads.size() != 2 * n) {
      (void)g.fail("'pads' has " + std::to_string(p.pads.size()) + " values for " + std::to_string(n) +
                   " axes");
      return failure();
    }
    std::vector<int64_t> full(2 * rank, 0);
    for (size_t k = 0; k < n; ++k) {
      full[(*axes)[k]] = p.pads[k];
      full[(*axes)[k] + rank] = p.pads[k + n];
    }
    p.pads = full;
  }
  if ((int64_t)p.pads.size() != 2 * rank) {
    (void)g.fail("'pads' has " + std::to_string(p.pads.size()) + " values; expected " +
                 std::to_string(2 * rank));
    return failure();
  }
  if (p.mode != "constant" && p.mode != "reflect" && p.mode != "edge") {
    (void)g.fail("pad mode '" + p.mode + "' is not supported");
    return failure();
  }
  return p;
}

} // namespace tpuc::importer
