//===- FoldShape.cpp - Import-time evaluation of ONNX shape computations -===//
// Constant, Shape, Size, ConstantOfShape, Range and the data-movement ops on tensors known at import
// time. All shapes are static after --input_shapes, so `Shape -> Gather -> Unsqueeze -> Concat ->
// Reshape` chains collapse here into the constant their Reshape needs.
//===----------------------------------------------------------------------===//
#include "OpParams.h"

#include <cmath>

using namespace mlir;

namespace tpuc::importer {
namespace {

using Outputs = std::vector<HostTensor>;

/// A copy of `in` whose element k is in's element src[k], with a new shape.
HostTensor gatherElements(const HostTensor &in, std::vector<int64_t> shape, const std::vector<int64_t> &src) {
  HostTensor out;
  out.shape = std::move(shape);
  out.dtype = in.dtype;
  if (in.isFloat()) {
    out.f.resize(src.size());
    for (size_t k = 0; k < src.size(); ++k)
      out.f[k] = in.f[src[k]];
  } else {
    out.i.resize(src.size());
    for (size_t k = 0; k < src.size(); ++k)
      out.i[k] = in.i[src[k]];
  }
  return out;
}

HostTensor withShape(const HostTensor &in, std::vector<int64_t> shape) {
  HostTensor out = in;
  out.shape = std::move(shape);
  return out;
}

bool tooLarge(const std::vector<int64_t> &shape) {
  auto n = checkedNumel(shape);
  return !n || *n > kMaxFoldElements;
}

FailureOr<bool> foldConstant(GraphImporter &g, Outputs &outs) {
  HostTensor t;
  std::string error;
  if (const auto *a = g.attr("value")) {
    if (!decodeTensor(a->t(), t, error))
      return g.fail(error);
  } else if (g.hasAttr("value_float")) {
    t = HostTensor::floats({}, {(float)g.attrFloat("value_float", 0)});
  } else if (g.hasAttr("value_floats")) {
    std::vector<float> v = g.attrFloats("value_floats");
    t = HostTensor::floats({(int64_t)v.size()}, v);
  } else if (g.hasAttr("value_int")) {
    t = HostTensor::ints({}, {g.attrInt("value_int", 0)});
  } else if (g.hasAttr("value_ints")) {
    std::vector<int64_t> v = g.attrInts("value_ints");
    t = HostTensor::ints({(int64_t)v.size()}, v);
  } else {
    return g.fail("only tensor, float and int constants are supported (not strings or sparse tensors)");
  }
  outs.push_back(std::move(t));
  return true;
}

FailureOr<bool> foldShape(GraphImporter &g, Outputs &outs) {
  std::vector<int64_t> shape = g.inputShape(0);
  int64_t rank = shape.size();
  int64_t start = g.attrInt("start", 0), end = g.attrInt("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  std::vector<int64_t> dims(shape.begin() + start, shape.begin() + end);
  outs.push_back(HostTensor::ints({(int64_t)dims.size()}, dims));
  return true;
}

FailureOr<bool> foldSize(GraphImporter &g, Outputs &outs) {
  int64_t n = 1;
  for (int64_t d : g.inputShape(0))
    n *= d;
  outs.push_back(HostTensor::ints({}, {n}));
  return true;
}

FailureOr<bool> foldConstantOfShape(GraphImporter &g, Outputs &outs) {
  const HostTensor *shapeIn = g.constInput(0);
  if (!shapeIn)
    return false; // fed at run time: convertConstantOfShape takes the declared shape
  std::vector<int64_t> shape = shapeIn->toInts();
  if (tooLarge(shape))
    return g.fail("the shape " + std::to_string(shape.size()) + "-D is invalid or too large");
  HostTensor value = HostTensor::floats({1}, {0.0f});
  if (const auto *a = g.attr("value")) {
    std::string error;
    if (!decodeTensor(a->t(), value, error))
      return g.fail(error);
    if (value.numel() != 1)
      return g.fail("'value' must hold one element");
  }
  outs.push_back(HostTensor::filled(shape, value.dtype, value.at(0)));
  return true;
}

FailureOr<bool> foldRange(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant())
    return false; // fed at run time: convertRange computes the values
  const HostTensor &s = *g.constInput(0), &l = *g.constInput(1), &d = *g.constInput(2);
  if (s.numel() != 1 || l.numel() != 1 || d.numel() != 1)
    return g.fail("start, limit and delta must be scalars");
  double start = s.at(0), limit = l.at(0), delta = d.at(0);
  if (delta == 0)
    return g.fail("delta must not be 0");
  double count = std::ceil((limit - start) / delta);
  if (!(count <= (double)kMaxFoldElements)) // also catches NaN
    return g.fail("the range has too many elements");
  int64_t n = count > 0 ? (int64_t)count : 0;
  HostTensor out = HostTensor::filled({n}, s.dtype, 0);
  for (int64_t k = 0; k < n; ++k) {
    if (s.isFloat())
      out.set(k, start + k * delta);
    else
      out.i[k] = s.i[0] + k * d.intAt(0);
  }
  outs.push_back(std::move(out));
  return true;
}

FailureOr<bool> foldIdentity(GraphImporter &g, Outputs &outs) {
  if (!g.hasInput(0) || !g.constInput(0))
    return false;
  outs.push_back(*g.constInput(0));
  return true;
}

FailureOr<bool> foldCast(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant())
    return false;
  int64_t to = g.attrInt("to", 0);
  if (!isSupportedDType((int32_t)to))
    return g.fail("Cast to " + dtypeName((int32_t)to) + " is not supported");
  outs.push_back(g.constInput(0)->castTo((int32_t)to));
  return true;
}

FailureOr<bool> foldCastLike(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant())
    return false;
  outs.push_back(g.constInput(0)->castTo(g.constInput(1)->dtype));
  return true;
}

FailureOr<bool> foldReshapeLike(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant())
    return false;
  const HostTensor &in = *g.constInput(0);
  const std::string &op = g.node().op_type();
  FailureOr<std::vector<int64_t>> shape = failure();
  if (op == "Reshape")
    shape = reshapeTarget(g, in.shape);
  else if (op == "Flatten")
    shape = flattenTarget(g, in.shape);
  else if (op == "Squeeze") {
    auto axes = squeezeAxes(g, in.shape);
    if (failed(axes))
      return failure();
    std::vector<int64_t> out;
    for (size_t k = 0; k < in.shape.size(); ++k)
      if (std::find(axes->begin(), axes->end(), (int64_t)k) == axes->end())
        out.push_back(in.shape[k]);
    shape = out;
  } else {
    auto axes = unsqueezeAxes(g, in.shape);
    if (failed(axes))
      return failure();
    shape = unsqueezeShape(in.shape, *axes);
  }
  if (failed(shape))
    return failure();
  outs.push_back(withShape(in, *shape));
  return true;
}

FailureOr<bool> foldTranspose(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant())
    return false;
  auto perm = transposePerm(g, g.constInput(0)->shape.size());
  if (failed(perm))
    return failure();
  outs.push_back(transposeHost(*g.constInput(0), *perm));
  return true;
}

FailureOr<bool> foldConcat(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant())
    return false;
  const HostTensor &first = *g.constInput(0);
  int64_t rank = first.shape.size();
  auto axis = g.normalizeAxis(g.attrInt("axis", 0), rank, "axis");
  if (failed(axis))
    return failure();
  HostTensor out = first;
  out.shape[*axis] = 0;
  out.f.clear();
  out.i.clear();
  std::vector<const HostTensor *> parts;
  for (int k = 0; k < g.node().input_size(); ++k) {
    const HostTensor *p = g.constInput(k);
    if (!p)
      continue;
    bool match = (int64_t)p->shape.size() == rank && p->isFloat() == first.isFloat();
    for (int64_t a = 0; match && a < rank; ++a)
      match = a == *axis || p->shape[a] == first.shape[a];
    if (!match)
      return g.fail("input #" + std::to_string(k) + " does not match input #0 outside the concat axis");
    out.shape[*axis] += p->shape[*axis];
    parts.push_back(p);
  }
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < rank; ++a)
    (a < *axis ? outer : inner) *= a == *axis ? 1 : first.shape[a];
  for (int64_t o = 0; o < outer; ++o)
    for (const HostTensor *p : parts) {
      int64_t run = p->shape[*axis] * inner;
      if (first.isFloat())
        out.f.insert(out.f.end(), p->f.begin() + o * run, p->f.begin() + (o + 1) * run);
      else
        out.i.insert(out.i.end(), p->i.begin() + o * run, p->i.begin() + (o + 1) * run);
    }
  outs.push_back(std::move(out));
  return true;
}

FailureOr<bool> foldSlice(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant())
    return false;
  const HostTensor &in = *g.constInput(0);
  auto p = sliceParams(g, in.shape);
  if (failed(p))
    return failure();
  std::vector<int64_t> inStrides = stridesOf(in.shape), outStrides = stridesOf(p->outShape);
  int64_t n = checkedNumel(p->outShape).value_or(0);
  std::vector<int64_t> src(n);
  for (int64_t k = 0; k < n; ++k) {
    int64_t flat = 0, rest = k;
    for (size_t a = 0; a < p->outShape.size(); ++a) {
      int64_t idx = rest / outStrides[a];
      rest %= outStrides[a];
      flat += (p->offset[a] + idx * p->steps[a]) * inStrides[a];
    }
    src[k] = flat;
  }
  outs.push_back(gatherElements(in, p->outShape, src));
  return true;
}

FailureOr<bool> foldGather(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant())
    return false;
  const HostTensor &in = *g.constInput(0), &indices = *g.constInput(1);
  auto axis = g.normalizeAxis(g.attrInt("axis", 0), in.shape.size(), "axis");
  if (failed(axis))
    return failure();
  std::vector<int64_t> shape(in.shape.begin(), in.shape.begin() + *axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), in.shape.begin() + *axis + 1, in.shape.end());
  if (tooLarge(shape))
    return false;
  int64_t outer = 1, inner = 1, dim = in.shape[*axis];
  for (int64_t a = 0; a < *axis; ++a)
    outer *= in.shape[a];
  for (size_t a = *axis + 1; a < in.shape.size(); ++a)
    inner *= in.shape[a];
  std::vector<int64_t> src;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < indices.numel(); ++k) {
      int64_t idx = indices.intAt(k);
      if (idx < 0)
        idx += dim;
      if (idx < 0 || idx >= dim)
        return g.fail("index " + std::to_string(indices.intAt(k)) + " is out of range for axis size " +
                      std::to_string(dim));
      for (int64_t i = 0; i < inner; ++i)
        src.push_back((o * dim + idx) * inner + i);
    }
  outs.push_back(gatherElements(in, shape, src));
  return true;
}

FailureOr<bool> foldSplit(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant())
    return false;
  const HostTensor &in = *g.constInput(0);
  auto axis = g.normalizeAxis(g.attrInt("axis", 0), in.shape.size(), "axis");
  if (failed(axis))
    return failure();
  auto sizes = splitSizes(g, in.shape, *axis);
  if (failed(sizes))
    return failure();
  int64_t offset = 0;
  for (int64_t size : *sizes) {
    std::vector<int64_t> shape = in.shape;
    shape[*axis] = size;
    std::vector<int64_t> strides = stridesOf(in.shape), outStrides = stridesOf(shape);
    int64_t n = checkedNumel(shape).value_or(0);
    std::vector<int64_t> src(n);
    for (int64_t k = 0; k < n; ++k) {
      int64_t flat = 0, rest = k;
      for (size_t a = 0; a < shape.size(); ++a) {
        int64_t idx = rest / outStrides[a];
        rest %= outStrides[a];
        flat += ((int64_t)a == *axis ? idx + offset : idx) * strides[a];
      }
      src[k] = flat;
    }
    outs.push_back(gatherElements(in, shape, src));
    offset += size;
  }
  return true;
}

FailureOr<bool> foldExpand(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant())
    return false;
  const HostTensor &in = *g.constInput(0);
  auto shape = expandTarget(g, in.shape);
  if (failed(shape))
    return failure();
  if (tooLarge(*shape))
    return false;
  outs.push_back(gatherElements(in, *shape, broadcastIndex(in.shape, *shape)));
  return true;
}

FailureOr<bool> foldTile(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant())
    return false;
  const HostTensor &in = *g.constInput(0);
  auto repeats = tileRepeats(g, in.shape);
  if (failed(repeats))
    return failure();
  std::vector<int64_t> shape = in.shape;
  for (size_t a = 0; a < shape.size(); ++a)
    if (__builtin_mul_overflow(shape[a], (*repeats)[a], &shape[a]))
      return false;
  if (tooLarge(shape))
    return false;
  std::vector<int64_t> inStrides = stridesOf(in.shape), outStrides = stridesOf(shape);
  int64_t n = checkedNumel(shape).value_or(0);
  std::vector<int64_t> src(n);
  for (int64_t k = 0; k < n; ++k) {
    int64_t flat = 0, rest = k;
    for (size_t a = 0; a < shape.size(); ++a) {
      int64_t idx = rest / outStrides[a];
      rest %= outStrides[a];
      flat += (idx % in.shape[a]) * inStrides[a];
    }
    src[k] = flat;
  }
  outs.push_back(gatherElements(in, shape, src));
  return true;
}

FailureOr<bool> foldNonZero(GraphImporter &g, Outputs &outs) {
  if (!g.allInputsConstant())
    return false;
  const HostTensor &in = *g.constInput(0);
  std::vector<int64_t> strides = stridesOf(in.shape), hits;
  for (int64_t k = 0; k < in.numel(); ++k)
    if (in.at(k) != 0)
      hits.push_back(k);
  int64_t rank = in.shape.size(), count = hits.size();
  std::vector<int64_t> values(rank * count);
  for (int64_t j = 0; j < count; ++j)
    for (int64_t a = 0, rest = hits[j]; a < rank; ++a) {
      values[a * count + j] = rest / strides[a];
      rest %= strides[a];
    }
  outs.push_back(HostTensor::ints({rank, count}, values));
  return true;
}

} // namespace

void addShapeFolders(OpTable &table) {
  table["Constant"].fold = foldConstant;
  table["Shape"].fold = foldShape;
  table["Size"].fold = foldSize;
  table["ConstantOfShape"].fold = foldConstantOfShape;
  table["Range"].fold = foldRange;
  table["Identity"].fold = foldIdentity;
  table["CastLike"].fold = foldCastLike;
  table["Cast"].fold = foldCast;
  for (const char *op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze"})
    table[op].fold = foldReshapeLike;
  table["Transpose"].fold = foldTranspose;
  table["Concat"].fold = foldConcat;
  table["Slice"].fold = foldSlice;
  table["Gather"].fold = foldGather;
  table["Split"].fold = foldSplit;
  table["Expand"].fold = foldExpand;
  table["Tile"].fold = foldTile;
  table["NonZero"].fold = foldNonZero;
}

} // namespace tpuc::importer
