//===- Slicing.cpp - Group value classes and backward slice propagation ---===//

#include "tpuc/Backend/Slicing.h"

#include <algorithm>
#include <set>

namespace tpuc::backend {

Range hull(const Range &a, const Range &b) { return {std::min(a.begin, b.begin), std::max(a.end, b.end)}; }

Box fullBox(const Value &v) {
  Box b;
  for (int d = 0; d < 4; ++d)
    b.dims[d] = {0, v.dim(d)};
  return b;
}

Box hull(const Box &a, const Box &b) {
  Box r;
  for (int d = 0; d < 4; ++d)
    r.dims[d] = hull(a.dims[d], b.dims[d]);
  return r;
}

Range splitRange(int64_t extent, int64_t k, int64_t i) { return {i * extent / k, (i + 1) * extent / k}; }

CutRule cutRule(const Graph &g, const std::vector<int> &ops) {
  CutRule r;
  for (int o : ops)
    r.rowsOnly = r.rowsOnly || g.cutsRowsOnly(o);
  if (!r.rowsOnly)
    return r;
  size_t rank = 0;
  for (int o : ops) {
    const Op &op = g.ops[o];
    for (const auto *list : {&op.inputs, &op.outputs})
      for (int v : *list) {
        size_t rv = g.values[v].shape.size();
        if (rank == 0)
          rank = rv;
        r.ok = r.ok && rv == rank && rv >= 2 && rv <= 4;
      }
  }
  r.axis = rank >= 3 ? static_cast<int>(rank) - 2 : -1;
  return r;
}

int64_t &cutAlong(SliceSpec &spec, int axis) {
  switch (axis) {
  case 0:
    return spec.n;
  case 1:
    return spec.c;
  case 2:
    return spec.h;
  default:
    return spec.w;
  }
}

bool weightsPerSlice(const Graph &g, const std::vector<int> &ops, const SliceSpec &spec) {
  return spec.c > 1 && !cutRule(g, ops).rowsOnly;
}

GroupValues classifyValues(const Graph &g, const std::vector<int> &ops) {
  GroupValues r;
  std::set<int> inGroup(ops.begin(), ops.end());
  std::set<int> seen;
  for (int o : ops) {
    const Op &op = g.ops[o];
    for (int v : op.inputs)
      if (!inGroup.count(g.values[v].producer) && seen.insert(v).second)
        r.inputs.push_back(v);
    for (int v : op.weights)
      if (seen.insert(v).second)
        r.weights.push_back(v);
    for (int v : op.outputs) {
      const Value &val = g.values[v];
      bool escapes = g.isOutput(v) || val.users.empty();
      for (int u : val.users)
        escapes |= !inGroup.count(u);
      (escapes ? r.outputs : r.intermediates).push_back(v);
    }
  }
  return r;
}

namespace {

/// Input range a window reads for output range `out` along one axis.
Range windowRange(const Range &out, int64_t k, int64_t s, int64_t pad, int64_t d, int64_t extent) {
  int64_t begin = out.begin * s - pad;
  int64_t end = (out.end - 1) * s - pad + d * (k - 1) + 1;
  return {std::clamp<int64_t>(begin, 0, extent), std::clamp<int64_t>(end, 0, extent)};
}

} // namespace

Box inputBoxFor(const Graph &g, const Op &op, int operand, const Box &out) {
  const Value &in = g.values[op.inputs[operand]];
  const Value &res = g.values[op.outputs[0]];
  Box b = out;
  // Broadcast dimensions read their single element.
  for (int d = 0; d < 4; ++d)
    if (in.dim(d) == 1 && res.dim(d) != 1)
      b.dims[d] = {0, 1};
  if (op.kind == OpKind::Conv) {
    int64_t ic = in.dim(1), oc = res.dim(1);
    if (op.groups == 1) {
      b.dims[1] = {0, ic};
    } else {
      int64_t ocPerG = oc / op.groups, icPerG = ic / op.groups;
      int64_t g0 = out.c().begin / ocPerG;
      int64_t g1 = (out.c().end + ocPerG - 1) / ocPerG;
      b.dims[1] = {g0 * icPerG, g1 * icPerG};
    }
  }
  if (op.kind == OpKind::MatMul || isRowNorm(op.kind)) {
    // Each row of the result reduces a whole row of the input (a matmul's K, a normalization's row): its
    // last axis is read whole.
    int last = static_cast<int>(std::min<size_t>(in.shape.size(), 4)) - 1;
    b.dims[last] = {0, in.dim(last)};
  }
  if (op.kind == OpKind::Conv || op.kind == OpKind::Pool) {
    const Window &w = op.window;
    b.dims[2] = windowRange(out.h(), w.kh, w.sh, w.padTop, w.dh, in.dim(2));
    b.dims[3] = windowRange(out.w(), w.kw, w.sw, w.padLeft, w.dw, in.dim(3));
  }
  return b;
}

SlicePlan propagateSlices(const Graph &g, const std::vector<int> &ops, const GroupValues &vals,
                          const SliceSpec &spec) {
  SlicePlan plan;
  const int64_t cuts[4] = {spec.n, spec.c, spec.h, spec.w};
  const char *dimNames = "nchw";
  for (int v : vals.outputs)
    for (int d = 0; d < 4; ++d)
      if (cuts[d] < 1 || cuts[d] > g.values[v].dim(d)) {
        plan.error = std::string("cannot cut ") + dimNames[d] + " of '" + g.values[v].name + "' (" +
                     std::to_string(g.values[v].dim(d)) + ") into " + std::to_string(cuts[d]) + " pieces";
        return plan;
      }
  plan.slices.reserve(spec.count());
  for (int64_t in = 0; in < spec.n; ++in)
    for (int64_t ic = 0; ic < spec.c; ++ic)
      for (int64_t ih = 0; ih < spec.h; ++ih)
        for (int64_t iw = 0; iw < spec.w; ++iw) {
          SliceBoxes s;
          const int64_t idx[4] = {in, ic, ih, iw};
          for (int v : vals.outputs) {
            Box b;
            for (int d = 0; d < 4; ++d)
              b.dims[d] = splitRange(g.values[v].dim(d), cuts[d], idx[d]);
            s.store[v] = b;
            s.value[v] = b;
          }
          for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
            const Op &op = g.ops[*it];
            const Box &out = s.value.at(op.outputs[0]);
            for (size_t i = 0; i < op.inputs.size(); ++i) {
              Box need = inputBoxFor(g, op, static_cast<int>(i), out);
              auto [pos, fresh] = s.value.try_emplace(op.inputs[i], need);
              if (!fresh)
                pos->second = hull(pos->second, need);
            }
            for (int wv : op.weights) {
              Box wb = fullBox(g.values[wv]);
              if (op.kind == OpKind::Conv)
                wb.dims[0] = out.c(); // filters and biases lead with oc; a matmul's rows read all of it.
              s.weight[wv] = wb;
            }
          }
          plan.slices.push_back(std::move(s));
        }
  return plan;
}

} // namespace tpuc::backend
