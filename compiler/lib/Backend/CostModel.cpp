//===- CostModel.cpp - Cycle estimates of TIU and GDMA commands -----------===//

#include "tpuc/Backend/CostModel.h"
#include "tpuc/Backend/LocalMemory.h"

#include <algorithm>
#include <cmath>

namespace tpuc::backend {

namespace {

/// EU passes over every element of the rows of a row normalization (docs/BACKEND.md, "Cost model"):
/// layernorm mean, subtract, square, mean, scale (then times gamma, plus beta: one each when present);
/// RMS norm square, mean, scale (then times gamma); softmax max, subtract, exp, sum, scale (log-softmax:
/// subtract). Each also takes one pass over its per-row statistics (the reciprocal root, reciprocal or
/// log of one element per row).
int64_t rowNormPasses(const Op &op) {
  const auto weights = static_cast<int64_t>(op.weights.size());
  switch (op.kind) {
  case OpKind::LayerNorm:
    return 5 + weights;
  case OpKind::RMSNorm:
    return 3 + weights;
  default:
    return 5;
  }
}

} // namespace

TiuCost tiuCost(const ChipProfile &chip, const Graph &g, const Op &op, const Box &out) {
  TiuCost c;
  const DType dt = g.values[op.inputs.empty() ? op.outputs[0] : op.inputs[0]].dtype;
  const Precision prec = computePrecision(dt);
  const int64_t euElems = std::max<int64_t>(1, chip.euBytes / dtypeBytes(dt));
  const int64_t n = out.n().size(), ch = out.c().size();
  const int64_t hw = out.h().size() * out.w().size();
  const int64_t perLane = channelsPerLane(chip, ch);
  const int64_t hwPadded = alignUp(hw, euElems);
  c.laneUtilization = ch ? static_cast<double>(ch) / static_cast<double>(perLane * chip.lanes) : 1;
  c.euUtilization = hw ? static_cast<double>(hw) / hwPadded : 1;
  // Element-wise passes over the padded planes of one lane.
  const double euPasses = static_cast<double>(n * perLane * hwPadded) / static_cast<double>(euElems);
  // The cube takes eu output elements x `step` reduction elements (input channels, K) per cycle.
  const double macsPerLane = chip.macsPerLanePerCycle.at(prec);
  const int64_t step = std::max<int64_t>(1, static_cast<int64_t>(macsPerLane) / euElems);
  double cycles = 0;
  int64_t passes = 0; // TIU passes, each paying the profile's pass startup
  // One matrix product on the cube: `features` spread over lanes, `rows` streaming through, reduced over
  // `k` (a pass per feature of a lane and step of k); its cycles at the matmul rate.
  auto product = [&](int64_t features, int64_t rows, int64_t k) {
    int64_t fPerLane = channelsPerLane(chip, features);
    passes += fPerLane * ceilDiv(k, step);
    return static_cast<double>(fPerLane * rows * k) / macsPerLane / chip.matmulEfficiencyAt(prec);
  };
  switch (op.kind) {
  case OpKind::Conv: {
    const Value &in = g.values[op.inputs[0]];
    int64_t icPerGroup = in.dim(1) / op.groups;
    int64_t kernel = op.window.kh * op.window.kw;
    c.macs = n * ch * hw * icPerGroup * kernel;
    if (icPerGroup == 1) { // Depthwise: a multiply-add per EU element, one pass per tap.
      cycles = euPasses * static_cast<double>(kernel);
      passes = n * perLane * kernel;
    } else {
      // Input channels are padded to the cube's step (alignment waste); a
      // pass is one output channel of a lane, one tap, one input step.
      cycles = static_cast<double>(n * perLane * hwPadded * alignUp(icPerGroup, step) * kernel) /
               macsPerLane / chip.convEfficiencyAt(prec);
      passes = n * perLane * kernel * ceilDiv(icPerGroup, step);
    }
    // A strided window reads the input plane with a stride: the fetch feeds fewer outputs per cycle.
    if (op.window.sh > 1 || op.window.sw > 1)
      cycles /= chip.convStrideEfficiency;
    break;
  }
  case OpKind::Pool:
    c.macs = n * ch * hw * op.window.kh * op.window.kw;
    cycles = euPasses * static_cast<double>(op.window.kh * op.window.kw);
    passes = n * perLane * op.window.kh * op.window.kw;
    break;
  case OpKind::Eltwise:
    c.macs = n * ch * hw * std::max<int64_t>(1, op.inputs.size() - 1);
    cycles = euPasses * static_cast<double>(std::max<int64_t>(1, op.inputs.size() - 1));
    passes = n * perLane * std::max<int64_t>(1, op.inputs.size() - 1);
    break;
  case OpKind::Unary:
    c.macs = n * ch * hw;
    cycles = euPasses;
    passes = n * perLane;
    break;
  case OpKind::GlobalPool: {
    const Value &in = g.values[op.inputs[0]];
    int64_t inHw = in.dim(2) * in.dim(3);
    c.macs = n * ch * inHw;
    cycles = static_cast<double>(n * perLane * alignUp(inHw, euElems)) / static_cast<double>(euElems);
    passes = n * perLane;
    break;
  }
  case OpKind::MatMul: {
    const Value &in = g.values[op.inputs[0]], &res = g.values[op.outputs[0]];
    int64_t k = in.shape.back();
    // The columns of the result box (a column tile of a streamed weight, docs/BACKEND.md) and its rows
    // (all of them for the whole op: the input's rows).
    const size_t rank = res.shape.size();
    int64_t features = rank >= 1 && rank <= 4 ? out.dims[rank - 1].size() : res.shape.back();
    int64_t rows = out.elements() / std::max<int64_t>(1, features);
    c.macs = rows * k * features;
    c.laneUtilization =
        static_cast<double>(features) / static_cast<double>(channelsPerLane(chip, features) * chip.lanes);
    c.euUtilization = 1;
    cycles = product(features, rows, k);
    break;
  }
  case OpKind::LayerNorm:
  case OpKind::RMSNorm:
  case OpKind::Softmax: {
    // Row by row on the EU, in the layout LMEM holds the box (C over lanes, planes padded to the EU):
    // the row passes over the box, one pass over the per-row statistics (the box with the normalized
    // last axis collapsed to one element).
    const size_t rank = g.values[op.outputs[0]].shape.size();
    const int last = static_cast<int>(std::clamp<size_t>(rank, 1, 4)) - 1;
    Box stats = out;
    stats.dims[last] = {0, 1};
    const int64_t statLanes = channelsPerLane(chip, stats.c().size());
    const int64_t statPasses = stats.n().size() * statLanes;
    const int64_t rowPasses = rowNormPasses(op);
    c.macs = n * ch * hw * rowPasses;
    cycles = euPasses * static_cast<double>(rowPasses) +
             static_cast<double>(statPasses * alignUp(stats.h().size() * stats.w().size(), euElems)) /
                 static_cast<double>(euElems);
    passes = n * perLane * rowPasses + statPasses;
    break;
  }
  case OpKind::Reshape:
  case OpKind::Concat:
    break; // Data movement only.
  case OpKind::Other: {
    if (op.attention) {
      // Per head: scores = q k^T (Lk features over lanes, rows Lq, K = D), then p v (D features over
      // lanes, K = Lk), as matmul; the softmax over the scores in the EU passes of the softmax row form
      // (max, subtract, exp, sum, scale: rowNormPasses).
      const std::vector<int64_t> &q = g.values[op.inputs[0]].shape, &k = g.values[op.inputs[1]].shape;
      int64_t b = q[0], lq = q[1], heads = q[2], d = q[3], lk = k[1];
      int64_t perHead = channelsPerLane(chip, lk) * lq * d + channelsPerLane(chip, d) * lq * lk;
      c.macs = 2 * b * heads * lq * lk * d;
      c.laneUtilization =
          static_cast<double>(c.macs) / (2.0 * static_cast<double>(b * heads * perHead * chip.lanes));
      c.euUtilization = 1;
      int64_t scores = b * heads * lq * lk;
      cycles = static_cast<double>(b * heads) * (product(lk, lq, d) + product(d, lq, lk)) +
               5.0 * static_cast<double>(ceilDiv(scores, chip.lanes)) / static_cast<double>(euElems);
      passes *= b * heads; // the two products' passes, once per head
      break;
    }
    if (op.deformConv) {
      // The samples of every (input channel, tap, output pixel) on the EU: four neighbours weighted and
      // summed, times the mask (8 passes over the columns, spread on all lanes), then per group the filter
      // [O/g, C/g * kh * kw] times the columns on the cube, as matmul.
      const std::vector<int64_t> &x = g.values[op.inputs[0]].shape, &w = g.values[op.weights[0]].shape;
      const std::vector<int64_t> &y = g.values[op.outputs[0]].shape;
      int64_t groups = std::max<int64_t>(1, x[1] / std::max<int64_t>(1, w[1]));
      int64_t k = w[1] * w[2] * w[3], rows = y[0] * y[2] * y[3], samples = x[1] * w[2] * w[3] * rows;
      c.macs = rows * y[1] * k;
      double gather = 8.0 * static_cast<double>(ceilDiv(samples, chip.lanes)) / static_cast<double>(euElems);
      double perGroup = product(y[1] / groups, rows, k); // counts one group's passes
      passes = 8 + passes * groups;
      cycles = gather + static_cast<double>(groups) * perGroup;
      c.laneUtilization = static_cast<double>(y[1] / groups) /
                          static_cast<double>(channelsPerLane(chip, y[1] / groups) * chip.lanes);
      c.euUtilization = 1;
      break;
    }
    int64_t elems = g.values[op.outputs[0]].elements();
    c.macs = elems;
    // Assume a few EU passes over the result spread on all lanes.
    cycles = 4.0 * static_cast<double>(ceilDiv(elems, chip.lanes)) / static_cast<double>(euElems);
    break;
  }
  }
  c.cycles = static_cast<int64_t>(std::ceil(cycles + static_cast<double>(passes) * chip.tiuPassCycles)) +
             chip.tiuCommandCycles;
  return c;
}

int64_t dmaCycles(const ChipProfile &chip, int64_t bytes, int64_t runBytes) {
  return bytes <= 0 ? 0 : chip.gdmaLatencyCycles + dmaTransferCycles(chip, bytes, runBytes);
}

int64_t dmaTransferCycles(const ChipProfile &chip, int64_t bytes, int64_t runBytes) {
  if (bytes <= 0)
    return 0;
  runBytes = std::clamp<int64_t>(runBytes, 1, bytes);
  int64_t runs = ceilDiv(bytes, runBytes);
  int64_t moved = runs * alignUp(runBytes, chip.gdmaBurstBytes);
  double cycles = static_cast<double>(moved) / (chip.gdmaBytesPerCycle() * chip.gdmaEfficiency) +
                  static_cast<double>(runs - 1) * chip.gdmaRunCycles;
  return static_cast<int64_t>(std::ceil(cycles));
}

int64_t ddrRunBytes(const Value &v, const Box &b) {
  int64_t run = dtypeBytes(v.dtype);
  for (int d = 3; d >= 0; --d) {
    run *= b.dims[d].size();
    if (b.dims[d].size() != v.dim(d))
      break;
  }
  return run;
}

int64_t dmaBoxCycles(const ChipProfile &chip, const Value &v, const Box &b) {
  int64_t esize = dtypeBytes(v.dtype);
  bool fullW = b.w().size() == v.dim(3);
  int64_t run = fullW ? b.h().size() * b.w().size() * esize : b.w().size() * esize;
  return dmaCycles(chip, b.elements() * esize, run);
}

namespace {
/// The data operand of a gather: its first weight (an embedding table), else its first input.
int gatherData(const Op &op) {
  return !op.weights.empty() ? op.weights[0] : op.inputs.empty() ? -1 : op.inputs[0];
}
} // namespace

GlobalCost ddrCopyCost(const ChipProfile &chip, int64_t bytes) {
  GlobalCost c;
  c.dma = dmaCycles(chip, bytes, bytes) * 2;
  c.transfer = dmaTransferCycles(chip, bytes, bytes) * 2;
  c.cycles = c.dma;
  return c;
}

GlobalCost controlCost(const ChipProfile &chip, const Graph &g, const Op &op) {
  GlobalCost total;
  if (op.control == Control::IfBranch)
    return total;
  for (int v : op.sources) {
    GlobalCost c = ddrCopyCost(chip, g.values[v].bytes());
    total.dma += c.dma;
    total.transfer += c.transfer;
    total.cycles += c.cycles;
  }
  return total;
}

GlobalCost globalOpCost(const ChipProfile &chip, const Graph &g, const Op &op, bool inPlace) {
  if (op.control != Control::None)
    return controlCost(chip, g, op);
  if (inPlace)
    return {}; // Shares its operand's buffer: no command at all.
  std::vector<Box> boxes;
  for (const auto *list : {&op.outputs, &op.inputs, &op.weights})
    for (int v : *list)
      boxes.push_back(fullBox(g.values[v]));
  return globalPartCost(chip, g, op, boxes);
}

GlobalCost globalPartCost(const ChipProfile &chip, const Graph &g, const Op &op, const std::vector<Box> &boxes) {
  GlobalCost c;
  const Value &res = g.values[op.outputs[0]];
  if (op.kind == OpKind::Reshape || op.kind == OpKind::Concat) {
    // A DDR-to-DDR copy of the result.
    int64_t bytes = boxes[0].elements() * dtypeBytes(res.dtype), run = ddrRunBytes(res, boxes[0]);
    c.dma = dmaCycles(chip, bytes, run) * 2;
    c.transfer = dmaTransferCycles(chip, bytes, run) * 2;
    c.cycles = c.dma;
    return c;
  }
  c.tiu = tiuCost(chip, g, op, boxes[0]).cycles;
  // Every input and weight in, the (first) result out.
  size_t k = 0;
  for (const auto *list : {&op.outputs, &op.inputs, &op.weights})
    for (int v : *list) {
      const Box &b = boxes[k++];
      if (list == &op.outputs && v != op.outputs[0])
        continue;
      const Value &val = g.values[v];
      int64_t bytes = b.elements() * dtypeBytes(val.dtype), run = ddrRunBytes(val, b);
      if (op.gathers && v == gatherData(op)) {
        // Only the slices the lookup returns, each a contiguous run of the dimensions after the axis.
        int64_t slice = dtypeBytes(val.dtype);
        for (size_t d = static_cast<size_t>(std::max<int64_t>(0, op.axis)) + 1; d < val.shape.size(); ++d)
          slice *= val.shape[d];
        bytes = std::min(bytes, boxes[0].elements() * dtypeBytes(val.dtype));
        run = std::min(slice, bytes);
      }
      c.dma += dmaCycles(chip, bytes, run);
      c.transfer += dmaTransferCycles(chip, bytes, run);
    }
  // Internal tiling overlaps the engines (at the cost of their contention) except for one tile's latency.
  c.cycles = overlappedCycles(chip, c.tiu, c.dma) + chip.gdmaLatencyCycles + chip.tiuCommandCycles;
  return c;
}

int64_t overlappedCycles(const ChipProfile &chip, int64_t tiu, int64_t gdma) {
  return std::max(tiu, gdma) + static_cast<int64_t>(std::ceil(
                                   chip.engineContention * static_cast<double>(std::min(tiu, gdma)) - 1e-9));
}

double cyclesToUs(const ChipProfile &chip, int64_t cycles) {
  return static_cast<double>(cycles) / chip.frequencyMhz;
}

} // namespace tpuc::backend
