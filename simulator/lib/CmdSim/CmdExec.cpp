//===- CmdExec.cpp - Command streams executed over simulated DDR and LMEM ---===//

#include "tpuc/Simulator/CmdExec.h"

#include "tpuc/Backend/Graph.h"
#include "tpuc/Codegen/Elements.h"
#include "tpuc/Quant/Arith.h"
#include "tpuc/Simulator/OpRunner.h"
#include "tpuc/Simulator/ThreadPool.h"
#include "tpuc/Simulator/TpuKernels.h"
#include "tpuc/Support/FloatConvert.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace tpuc::cmdsim {

using namespace codegen;
using backend::DType;
using Box4 = std::array<int64_t, 4>;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

int64_t elementBytes(uint8_t dtype) { return backend::dtypeBytes(static_cast<DType>(dtype)); }

/// How the codes of a stage input or output read as real values: integers through its scale and zero
/// point, floats as they are.
sim::ValueInfo valueInfoOf(const TensorDesc &d) {
  sim::ValueInfo info;
  info.kind = isIntegerDType(static_cast<DType>(d.dtype)) ? sim::ValueInfo::Quant : sim::ValueInfo::Float;
  info.scale = d.scale;
  info.zeroPoint = d.zeroPoint;
  info.shape = d.shape;
  return info;
}

int64_t product(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Elements of an NCHW box.
int64_t volume(const Box4 &b) { return b[0] * b[1] * b[2] * b[3]; }

/// `shape` as NCHW: ranks below 4 padded with trailing 1s (docs/MODEL_FORMAT.md), higher ranks folded
/// into W.
Box4 nchw(const std::vector<int64_t> &shape) {
  Box4 b{1, 1, 1, 1};
  for (size_t i = 0; i < shape.size(); ++i)
    b[std::min<size_t>(i, 3)] *= shape[i];
  return b;
}

/// decodeElements / encodeElements of a large box spread over the kernels' thread pool (the engines'
/// data conversion is per element, so chunks are independent; INT32 with exact values stays serial).
constexpr int64_t kCodecGrain = int64_t{1} << 16;

void parallelDecode(const uint8_t *src, int64_t count, DType dtype, float *dst, std::vector<int64_t> *ints) {
  if (ints || count < 2 * kCodecGrain)
    return decodeElements(src, count, dtype, dst, ints);
  int64_t ds = backend::dtypeBytes(dtype);
  sim::parallelFor(count, kCodecGrain, [&](int64_t b, int64_t e) { decodeElements(src + b * ds, e - b, dtype, dst + b); });
}

void parallelEncode(const float *src, int64_t count, DType dtype, uint8_t *dst) {
  if (count < 2 * kCodecGrain)
    return encodeElements(src, count, dtype, dst);
  int64_t ds = backend::dtypeBytes(dtype);
  sim::parallelFor(count, kCodecGrain, [&](int64_t b, int64_t e) { encodeElements(src + b, e - b, dtype, dst + b * ds); });
}

/// Float scratch that keeps its storage between commands (no zero fill, no page faults per command).
class FloatBuffer {
public:
  float *get(int64_t n) {
    size_t want = static_cast<size_t>(std::max<int64_t>(n, 1));
    if (want > capacity) {
      data.reset(new float[want]);
      capacity = want;
    }
    return data.get();
  }

private:
  std::unique_ptr<float[]> data;
  size_t capacity = 0;
};

/// A full tensor being assembled from boxes (codes for quantized values), for dumps.
struct Dump {
  std::vector<float> data;
  std::vector<int64_t> shape;
  sim::ValueInfo info;
  std::vector<uint8_t> covered; ///< Per element: computed by some command.
};

/// Writes box `[origin, origin + shape)` (NCHW, dense values `src`) into the full tensor `dst` of NCHW
/// extent `full`.
void placeBox(const float *src, const Box4 &origin, const Box4 &shape, const Box4 &full, Dump &dst) {
  for (int64_t n = 0; n < shape[0]; ++n)
    for (int64_t c = 0; c < shape[1]; ++c)
      for (int64_t h = 0; h < shape[2]; ++h) {
        const float *s = src + ((n * shape[1] + c) * shape[2] + h) * shape[3];
        int64_t at = (((origin[0] + n) * full[1] + origin[1] + c) * full[2] + origin[2] + h) * full[3] + origin[3];
        std::memcpy(dst.data.data() + at, s, shape[3] * sizeof(float));
        std::memset(dst.covered.data() + at, 1, shape[3]);
      }
}

} // namespace

/// A weight operand's bytes as last read by a TIU command and their decoded values.
struct DecodedWeight {
  std::vector<uint8_t> raw; ///< Kept for LMEM boxes only (their bytes are compared on every run).
  std::vector<float> values;
  std::vector<int64_t> ints;
};

struct SharedDecodes::Impl {
  std::map<std::string, std::shared_ptr<DecodedWeight>> weights;
  std::shared_ptr<sim::KernelCacheStore> kernels = sim::KernelCacheStore::create();
};

SharedDecodes::SharedDecodes() : impl(std::make_unique<Impl>()) {}
SharedDecodes::~SharedDecodes() = default;
std::shared_ptr<SharedDecodes> SharedDecodes::create() { return std::shared_ptr<SharedDecodes>(new SharedDecodes()); }

struct StageRunner::Impl {
  const backend::ChipProfile &chip;
  const Model &model;
  const Stage &stage;
  std::string setupError;
  sim::OpRunner runner;
  std::vector<size_t> programOf; ///< Stage op -> OpRunner index (SIZE_MAX: no program).
  std::vector<uint8_t> ddr, lmem;
  std::vector<uint8_t> scratchBytes; ///< Reused for every operand box.
  std::vector<FloatBuffer> argBuffers, resultBuffers; ///< Decoded operand boxes, results: per position.
  /// Per TIU command (id, argument): the decoded weight operand.
  std::map<std::pair<uint64_t, size_t>, std::shared_ptr<DecodedWeight>> weightCache;
  std::shared_ptr<SharedDecodes> shared;
  /// The stage's weights by DDR address (address, size, blob), for the keys of shared decodes.
  std::vector<std::tuple<uint64_t, uint64_t, uint32_t>> weightSpans;
  std::vector<std::string> signatures; ///< Per program, with SharedDecodes: OpRunner::cacheSignature.
  std::map<uint64_t, std::string> kernelKeys; ///< Per TIU command (core, id): its shared kernel-cache key, or "".
  uint32_t core = 0; ///< The core of the command running: whose LMEM its LMEM operands are.
  std::vector<bool> inputSet;
  std::vector<Tensor> inputValues; ///< As set (real values, f32).
  NpzFile outputs, tensors;
  ExecStats stats;
  std::optional<SimResult> timing; ///< The cycle model's schedule, simulated on the first run.
  /// With blocks: per block, its schedule alone and its events in start order, simulated when first run.
  std::vector<std::optional<std::pair<SimResult, std::vector<const TraceEvent *>>>> blockOrders;
  bool weightsLoaded = false;

  Impl(const backend::ChipProfile &chip, const Model &model, const Stage &stage)
      : chip(chip), model(model), stage(stage) {}

  std::string where(const Command &c) const { return commandLabel(stage, c, core); }

  /// Calls fn(pointer, bytes) for each contiguous run of the box `[rel, rel + shape)` (relative to the
  /// reference's origin) in row-major order; false when a run leaves its memory.
  template <typename F> bool forRuns(const TensorRef &t, const Box4 &rel, const Box4 &shape, F fn) {
    const int64_t ds = elementBytes(t.dtype);
    const bool local = t.space == MemSpace::LMEM;
    uint8_t *base = local ? lmem.data() + core * static_cast<size_t>(chip.lanes * chip.lmemBytesPerLane) : ddr.data();
    const int64_t limit = local ? chip.lmemBytesPerLane : static_cast<int64_t>(ddr.size());
    // Trailing dimensions dense in memory form one run (never across lanes: LMEM stops at C).
    int inner = 3;
    int64_t runBytes = t.stride[3] == ds ? shape[3] * ds : ds;
    if (t.stride[3] == ds)
      while (inner > (local ? 2 : 0) && t.stride[inner - 1] == runBytes) {
        --inner;
        runBytes *= shape[inner];
      }
    Box4 outer = shape;
    for (int d = inner; d < 4; ++d)
      outer[d] = 1;
    if (t.stride[3] != ds)
      outer[3] = shape[3]; // element by element along W
    for (int64_t n = 0; n < outer[0]; ++n)
      for (int64_t c = 0; c < outer[1]; ++c) {
        int64_t cc = rel[1] + c, start, laneOffset = 0;
        if (local) {
          int64_t lane = (static_cast<int64_t>(t.lane) + cc) % chip.lanes;
          laneOffset = lane * chip.lmemBytesPerLane;
          start = static_cast<int64_t>(t.address) + (rel[0] + n) * t.stride[0] +
                  (static_cast<int64_t>(t.lane) + cc) / chip.lanes * t.stride[1];
        } else {
          start = static_cast<int64_t>(t.address) + (rel[0] + n) * t.stride[0] + cc * t.stride[1];
        }
        for (int64_t h = 0; h < outer[2]; ++h)
          for (int64_t w = 0; w < outer[3]; ++w) {
            int64_t at = start + (rel[2] + h) * t.stride[2] + (rel[3] + w) * t.stride[3];
            if (at < 0 || at + runBytes > limit)
              return false;
            fn(base + laneOffset + at, runBytes);
          }
      }
    return true;
  }

  /// Copies between the runs of a box and a dense buffer, merging runs that continue each other in
  /// memory (a weight's rows, whole planes) into one memcpy. `toBox`: dense -> box, else box -> dense.
  llvm::Error copyRuns(const Command &c, const TensorRef &t, const Box4 &rel, const Box4 &shape, uint8_t *dense,
                       bool toBox) {
    uint8_t *runStart = nullptr;
    int64_t runBytes = 0;
    auto flush = [&] {
      if (runBytes)
        toBox ? std::memcpy(runStart, dense, runBytes) : std::memcpy(dense, runStart, runBytes);
      dense += runBytes;
      runBytes = 0;
    };
    bool inside = forRuns(t, rel, shape, [&](uint8_t *at, int64_t n) {
      if (runBytes && at == runStart + runBytes) {
        runBytes += n;
        return;
      }
      flush();
      runStart = at;
      runBytes = n;
    });
    if (!inside)
      return makeError(where(c) + ": operand leaves its memory");
    flush();
    return llvm::Error::success();
  }

  /// Whether the box holds exactly `bytes` (compared run by run in place).
  bool sameBytes(const TensorRef &t, const Box4 &rel, const Box4 &shape, const std::vector<uint8_t> &bytes) {
    if (bytes.size() != static_cast<size_t>(volume(shape) * elementBytes(t.dtype)))
      return false;
    const uint8_t *p = bytes.data();
    bool same = true;
    bool inside = forRuns(t, rel, shape, [&](uint8_t *at, int64_t n) {
      same = same && std::memcmp(at, p, n) == 0;
      p += n;
    });
    return inside && same;
  }

  llvm::Error gather(const Command &c, const TensorRef &t, const Box4 &rel, const Box4 &shape,
                     std::vector<uint8_t> &out) {
    out.resize(static_cast<size_t>(volume(shape) * elementBytes(t.dtype)));
    return copyRuns(c, t, rel, shape, out.data(), /*toBox=*/false);
  }

  llvm::Error scatter(const Command &c, const TensorRef &t, const Box4 &rel, const Box4 &shape,
                      std::vector<uint8_t> &in) {
    // The coefficient region holds the weights, loaded once per runner and decoded once: no command may
    // write into it.
    if (t.space == MemSpace::DDR && stage.coeffBytes) {
      bool intoWeights = false;
      const uint8_t *end = ddr.data() + std::min<uint64_t>(stage.coeffBytes, ddr.size());
      forRuns(t, rel, shape, [&](uint8_t *at, int64_t) { intoWeights = intoWeights || at < end; });
      if (intoWeights)
        return makeError(where(c) + ": writes into the coefficient region");
    }
    return copyRuns(c, t, rel, shape, in.data(), /*toBox=*/true);
  }

  llvm::Error dma(const Command &c) {
    if (c.operands.size() != 2)
      return makeError(where(c) + ": a GDMA command needs a source and a destination");
    const TensorRef &src = c.operands[0], &dst = c.operands[1];
    if (src.dtype != dst.dtype)
      return makeError(where(c) + ": source and destination types differ");
    if (volume(src.shape) != volume(dst.shape))
      return makeError(where(c) + ": source holds " + std::to_string(volume(src.shape)) + " elements, destination " +
                       std::to_string(volume(dst.shape)));
    std::vector<uint8_t> &bytes = scratchBytes;
    if (auto err = gather(c, src, {}, src.shape, bytes))
      return err;
    stats.bytesMoved += bytes.size();
    return scatter(c, dst, {}, dst.shape, bytes);
  }

  /// The box of argument `arg` that op `program` reads to produce output box `out` of a slice: the conv /
  /// pool window (checked against the command's padding), the channel groups of a grouped conv, the
  /// output's box for element-wise operands (a broadcast dimension reads its single element).
  llvm::Error readBox(const Command &c, size_t program, size_t arg, const TensorRef &out, Box4 &origin,
                      Box4 &shape) {
    const auto &fullShape = runner.args(program)[arg].shape;
    const auto &resultShape = runner.results(program)[0].shape;
    auto win = runner.window(program);
    if (fullShape.size() != resultShape.size() || fullShape.size() < 2 || fullShape.size() > 4 ||
        (win && fullShape.size() != 4))
      return makeError(where(c) +
                       ": a layer-group op needs activations of one rank from 2 to 4 (4-D with a window)");
    const Box4 full = nchw(fullShape), result = nchw(resultShape);
    // A matmul reduces its input's last axis: read whole (also when K equals the result's columns and a
    // column tile cuts them).
    const int reducedAxis = runner.reducesLastAxis(program) ? static_cast<int>(fullShape.size()) - 1 : -1;
    for (int d = 0; d < 4; ++d) {
      bool broadcast = full[d] == 1 && result[d] != 1;
      // An extent that differs from the result's otherwise is reduced (a matmul's K): read whole.
      bool reduced = d == reducedAxis || (!broadcast && full[d] != result[d]);
      origin[d] = broadcast || reduced ? 0 : out.origin[d];
      shape[d] = broadcast ? 1 : reduced ? full[d] : out.shape[d];
    }
    if (!win || arg != 0)
      return llvm::Error::success();
    if (!win->pooling) {
      int64_t g = win->group, ic = full[1], oc = result[1];
      if (g <= 1) {
        origin[1] = 0;
        shape[1] = ic;
      } else {
        int64_t icg = ic / g, ocg = oc / g;
        origin[1] = out.origin[1] / ocg * icg;
        shape[1] = ((out.origin[1] + out.shape[1] - 1) / ocg + 1) * icg - origin[1];
      }
    }
    auto axis = [&](int d, int64_t s, int64_t p, int64_t dil, int64_t k, int64_t padLo, int64_t padHi) -> bool {
      int64_t b = out.origin[d] * s - p, e = (out.origin[d] + out.shape[d] - 1) * s - p + dil * (k - 1) + 1;
      int64_t lo = std::max<int64_t>(0, -b), hi = std::max<int64_t>(0, e - full[d]);
      origin[d] = b + lo;
      shape[d] = e - hi - origin[d];
      return lo == padLo && hi == padHi;
    };
    if (!axis(2, win->sh, win->padTop, win->dh, win->kh, c.pad[0], c.pad[1]) ||
        !axis(3, win->sw, win->padLeft, win->dw, win->kw, c.pad[2], c.pad[3]))
      return makeError(where(c) + ": the command's padding disagrees with the op's window");
    return llvm::Error::success();
  }

  /// The shape of a layer-group box (NCHW view `box`) of a tensor of rank 4 or less: the box's extents
  /// in the tensor's own rank (the view pads trailing 1s).
  static std::vector<int64_t> ownRank(const std::vector<int64_t> &full, const Box4 &box) {
    if (full.size() >= 4)
      return {box.begin(), box.end()};
    return {box.begin(), box.begin() + std::max<size_t>(full.size(), 1)};
  }

  /// The shape of a box (NCHW view `box`) of a tensor of shape `full` that cuts at most its first two
  /// dimensions (a core's part of a global op), or nullopt.
  static std::optional<std::vector<int64_t>> partShape(std::vector<int64_t> full, const Box4 &box) {
    Box4 whole = nchw(full);
    if (full.size() > 4)
      return box == whole ? std::optional(full) : std::nullopt;
    for (int d = 2; d < 4; ++d)
      if (box[d] != whole[d])
        return std::nullopt;
    for (size_t d = 0; d < full.size() && d < 2; ++d)
      full[d] = box[d];
    if (full.size() < 2 && box[1] != whole[1])
      return std::nullopt;
    return full;
  }

  /// The shape of weight argument `arg` for the box of its LMEM / DDR view: whole, or the output
  /// channels [c, c + shape.c) of the view [1, oc, d1, d2 * d3]; for a part of a global op, the box.
  llvm::Expected<std::vector<int64_t>> weightShape(const Command &c, size_t program, size_t arg,
                                                   const TensorRef &t) {
    std::vector<int64_t> full = runner.args(program)[arg].shape;
    int64_t count = volume(t.shape);
    if (count == product(full))
      return full;
    if (c.kind == CmdKind::Compute && !full.empty() && t.shape[0] == 1 &&
        count == t.shape[1] * (product(full) / std::max<int64_t>(1, full[0]))) {
      full[0] = t.shape[1];
      return full;
    }
    // A column tile [K, n] of a 2-D matmul weight [K, N] (the view [1, K, n, 1]).
    if (c.kind == CmdKind::Compute && full.size() == 2 && t.shape[0] == 1 && t.shape[3] == 1 &&
        t.shape[1] == full[0] && t.shape[2] < full[1])
      return std::vector<int64_t>{full[0], t.shape[2]};
    if (c.kind == CmdKind::Global)
      if (auto part = partShape(full, t.shape))
        return *part;
    return makeError(where(c) + ": weight box of " + std::to_string(count) + " elements does not match '" +
                     stage.ops[c.op].operandNames[arg] + "'");
  }

  /// The key of a weight box in DDR's coefficient region for SharedDecodes: the blob it lies in, its
  /// offset there and the box; "" when no blob covers it.
  std::string sharedWeightKey(const TensorRef &t, const Box4 &rel, const Box4 &shape, bool integer) const {
    auto it = std::upper_bound(weightSpans.begin(), weightSpans.end(), t.address,
                               [](uint64_t a, const auto &span) { return a < std::get<0>(span); });
    if (it == weightSpans.begin())
      return "";
    const auto &[address, size, blob] = *std::prev(it);
    if (t.address >= address + size)
      return "";
    std::string key = "b" + std::to_string(blob) + "+" + std::to_string(t.address - address) + ":" +
                      std::to_string(t.dtype) + (integer ? "i" : "f");
    for (const auto *v : {&t.origin, &rel, &shape, &t.stride, &t.shape})
      for (int64_t d : *v)
        key += "," + std::to_string(d);
    return key;
  }

  llvm::Error tiu(const Command &c, std::map<std::string, Dump> *dumps) {
    const OpInfo &info = stage.ops[c.op];
    size_t program = programOf[c.op];
    if (program == SIZE_MAX)
      return makeError(where(c) + ": the op has no program in the model file");
    const bool slice = c.kind == CmdKind::Compute;
    // A core's part of a global op: its output box is not the whole result (its operands are the boxes
    // codegen cut along the same outer dimension).
    const bool part = c.kind == CmdKind::Global && c.numOutputs > 0 && !runner.results(program).empty() &&
                      volume(c.operands[0].shape) != product(runner.results(program)[0].shape);
    size_t nargs = runner.args(program).size();
    if (info.operandMap.size() != nargs)
      return makeError(where(c) + ": operand map of " + std::to_string(info.operandMap.size()) +
                       " entries for " + std::to_string(nargs) + " arguments");
    if (c.numOutputs != runner.results(program).size() || c.numOutputs == 0)
      return makeError(where(c) + ": " + std::to_string(c.numOutputs) + " outputs for an op of " +
                       std::to_string(runner.results(program).size()));
    if (argBuffers.size() < nargs)
      argBuffers.resize(nargs);
    std::vector<std::vector<int64_t>> ints(nargs);
    bool constantsChanged = false; // a weight box of this command holds other bytes than last run
    // The shared kernel-cache key (the op's semantics and geometry and every weight box's key; empty
    // unless every weight box has one) depends on the command alone: built on its first run.
    const uint64_t cmdKey = static_cast<uint64_t>(core) << 32 | c.id; // ids count per core and stream
    // Where the command's per-channel parameters start: its output box's channel, a matmul's column.
    const auto &resultShape = runner.results(program)[0].shape;
    const int64_t channel0 = runner.reducesLastAxis(program) && !resultShape.empty()
                                 ? c.operands[0].origin[std::min<size_t>(resultShape.size(), 4) - 1]
                                 : c.operands[0].origin[1];
    auto [keyEntry, firstRun] = kernelKeys.try_emplace(cmdKey);
    bool buildKey = shared && firstRun, allShared = true;
    int weightBoxes = 0;
    std::string newKey;
    if (buildKey) {
      newKey = signatures[program] + "|pad";
      for (int64_t p : c.pad)
        newKey += "," + std::to_string(p);
      newKey += "|c0=" + std::to_string(channel0) + (slice ? "|slice" : part ? "|part" : "|whole");
      if (part)
        for (int64_t d : c.operands[0].shape)
          newKey += "," + std::to_string(d);
    }
    std::vector<sim::OpArg> args(nargs);
    std::vector<uint8_t> &bytes = scratchBytes;
    for (size_t i = 0; i < nargs; ++i) {
      int32_t k = info.operandMap[i];
      if (k < 0)
        continue;
      const TensorRef &t = c.operands[c.numOutputs + k];
      Box4 rel{}, shape = t.shape;
      std::vector<int64_t> argShape;
      if (static_cast<uint32_t>(k) < c.numInputs) {
        if (slice) {
          Box4 origin;
          if (auto err = readBox(c, program, i, c.operands[0], origin, shape))
            return err;
          for (int d = 0; d < 4; ++d) {
            rel[d] = origin[d] - t.origin[d];
            if (rel[d] < 0 || rel[d] + shape[d] > t.shape[d])
              return makeError(where(c) + ": reads '" + info.operandNames[i] +
                               "' outside the box its LMEM buffer holds");
          }
          argShape = ownRank(runner.args(program)[i].shape, shape);
        } else if (part) {
          auto ps = partShape(runner.args(program)[i].shape, shape);
          if (!ps)
            return makeError(where(c) + ": operand '" + info.operandNames[i] + "' is cut beyond its first two dimensions");
          argShape = std::move(*ps);
        } else {
          argShape = runner.args(program)[i].shape;
          if (product(argShape) != volume(shape))
            return makeError(where(c) + ": operand '" + info.operandNames[i] + "' is not the whole tensor");
        }
      } else {
        auto ws = weightShape(c, program, i, t);
        if (!ws)
          return ws.takeError();
        argShape = std::move(*ws);
      }
      int64_t count = volume(shape);
      bool integer = static_cast<DType>(t.dtype) == DType::INT32;
      if (static_cast<uint32_t>(k) >= c.numInputs) {
        // A weight box reads the same bytes on every run: its decoded values are kept, and used again
        // only while the bytes in memory are still exactly the ones they were decoded from.
        // A box in DDR's coefficient region never changes once loaded (scatter rejects writes into it),
        // so it is decoded once and its bytes are not kept; an LMEM box is checked against its bytes.
        // With SharedDecodes the decode of a coefficient box is looked up by blob and box first.
        std::shared_ptr<DecodedWeight> &slot = weightCache[{cmdKey, i}];
        bool inWeights = t.space == MemSpace::DDR && t.address < stage.coeffBytes;
        std::string key = inWeights && shared && !slot ? sharedWeightKey(t, rel, shape, integer) : std::string();
        if (buildKey) {
          ++weightBoxes;
          allShared = allShared && !key.empty();
          newKey += "|" + key;
        }
        if (!slot && !key.empty()) {
          std::shared_ptr<DecodedWeight> &entry = shared->impl->weights[key];
          if (!entry)
            entry = std::make_shared<DecodedWeight>();
          slot = entry;
        }
        if (!slot)
          slot = std::make_shared<DecodedWeight>();
        DecodedWeight &w = *slot;
        if (inWeights ? w.values.empty() : !sameBytes(t, rel, shape, w.raw)) {
          constantsChanged = true;
          if (auto err = gather(c, t, rel, shape, bytes))
            return err;
          if (!inWeights)
            w.raw = bytes;
          w.values.resize(std::max<int64_t>(count, 1));
          parallelDecode(bytes.data(), count, static_cast<DType>(t.dtype), w.values.data(),
                         integer ? &w.ints : nullptr);
        }
        args[i] = {w.values.data(), std::move(argShape), integer ? &w.ints : nullptr, /*constant=*/true};
        continue;
      }
      if (auto err = gather(c, t, rel, shape, bytes))
        return err;
      float *values = argBuffers[i].get(count);
      parallelDecode(bytes.data(), count, static_cast<DType>(t.dtype), values, integer ? &ints[i] : nullptr);
      args[i] = {values, std::move(argShape), integer ? &ints[i] : nullptr};
    }
    if (resultBuffers.size() < c.numOutputs)
      resultBuffers.resize(c.numOutputs);
    std::vector<float *> outs;
    std::vector<std::vector<int64_t>> outShapes;
    for (uint32_t j = 0; j < c.numOutputs; ++j) {
      const TensorRef &t = c.operands[j];
      const auto &full = runner.results(program)[j].shape;
      std::vector<int64_t> shape = slice ? ownRank(full, t.shape) : full;
      if (part) {
        auto ps = partShape(full, t.shape);
        if (!ps)
          return makeError(where(c) + ": output box is cut beyond its first two dimensions");
        shape = std::move(*ps);
      }
      outShapes.push_back(std::move(shape));
      if (product(outShapes.back()) != volume(t.shape))
        return makeError(where(c) + ": output box does not match the op's result");
      outs.push_back(resultBuffers[j].get(product(outShapes.back())));
    }
    // One kernel cache per TIU command: its weight boxes (C-cut slices differ) are its constants.
    if (buildKey && allShared && weightBoxes > 0)
      keyEntry->second = std::move(newKey);
    // A part of a global op has its whole window's padding (it is cut along N or C only) in `pad`.
    if (auto err = runner.run(program, args, outs, outShapes, slice || part ? &c.pad : nullptr, channel0,
                              static_cast<int64_t>(cmdKey), constantsChanged, keyEntry->second))
      return err;
    for (uint32_t j = 0; j < c.numOutputs; ++j) {
      const TensorRef &t = c.operands[j];
      int64_t count = product(outShapes[j]);
      bytes.resize(static_cast<size_t>(count * elementBytes(t.dtype)));
      parallelEncode(outs[j], count, static_cast<DType>(t.dtype), bytes.data());
      if (auto err = scatter(c, t, {}, t.shape, bytes))
        return err;
      if (dumps && j < info.resultNames.size()) {
        Dump &d = dump(*dumps, info.resultNames[j], runner.results(program)[j]);
        placeBox(outs[j], slice || part ? t.origin : Box4{}, nchw(outShapes[j]), nchw(d.shape), d);
      }
    }
    return llvm::Error::success();
  }

  static Dump &dump(std::map<std::string, Dump> &dumps, const std::string &name, const sim::ValueInfo &info) {
    Dump &d = dumps[name];
    if (d.data.empty()) {
      d.shape = info.shape;
      d.info = info;
      d.data.assign(std::max<int64_t>(product(info.shape), 1), 0.0f);
      d.covered.assign(d.data.size(), 0);
    }
    return d;
  }

  /// Real values of a dump (or of DDR bytes decoded the same way) as an f32 tensor; elements no command
  /// computed (`covered` 0) hold kNotComputedBits.
  static Tensor realTensor(const std::vector<float> &codes, const std::vector<int64_t> &shape,
                           const sim::ValueInfo &info, const std::vector<uint8_t> *covered = nullptr) {
    Tensor t(tpuc::DType::F32, shape);
    float *dst = reinterpret_cast<float *>(t.data());
    int64_t n = t.numElements();
    if (info.kind == sim::ValueInfo::Quant)
      sim::tpu::dequantizeCodes(codes.data(), n, {info.scale, info.zeroPoint}, dst);
    else
      std::memcpy(dst, codes.data(), n * sizeof(float));
    if (covered) {
      float poison;
      std::memcpy(&poison, &kNotComputedBits, sizeof(poison));
      for (int64_t i = 0; i < n; ++i)
        if (!(*covered)[i])
          dst[i] = poison;
    }
    return t;
  }

  /// The events of a schedule in the order they start (the order the commands run in).
  static std::vector<const TraceEvent *> startOrder(const SimResult &timing) {
    std::vector<const TraceEvent *> order;
    for (const TraceEvent &e : timing.events)
      order.push_back(&e);
    std::stable_sort(order.begin(), order.end(),
                     [](const TraceEvent *a, const TraceEvent *b) { return a->start < b->start; });
    return order;
  }

  /// The block control goes on with after block `b` (Stage::blocks.size(): the stage ends); a branch
  /// decodes element 0 of its condition from DDR in its dtype (the raw code, not dequantized).
  llvm::Expected<uint32_t> successor(uint32_t b) {
    const Terminator &t = stage.blocks[b].terminator;
    uint32_t next = t.kind == Terminator::Kind::Next ? b + 1 : t.target;
    if (t.kind == Terminator::Kind::Branch) {
      const TensorRef &cond = t.cond;
      const auto dtype = static_cast<DType>(cond.dtype);
      if (cond.space != MemSpace::DDR || cond.dtype > static_cast<uint8_t>(DType::F32) ||
          cond.address > ddr.size() ||
          static_cast<uint64_t>(elementBytes(cond.dtype)) > ddr.size() - cond.address)
        return makeError("block " + std::to_string(b) + ": its branch condition at DDR " +
                         std::to_string(cond.address) + " lies outside DDR");
      float value = 0;
      std::vector<int64_t> ints;
      const bool exact = dtype == DType::INT32;
      decodeElements(ddr.data() + cond.address, 1, dtype, &value, exact ? &ints : nullptr);
      bool taken = exact && !ints.empty() ? ints[0] != 0 : value != 0.0f;
      next = taken ? t.target : t.elseTarget;
    }
    if (next > stage.blocks.size())
      return makeError("block " + std::to_string(b) + " goes on with block " + std::to_string(next) + " of " +
                       std::to_string(stage.blocks.size()));
    return next;
  }

  void prepare() {
    programOf.assign(stage.ops.size(), SIZE_MAX);
    for (size_t i = 0; i < stage.ops.size(); ++i) {
      if (stage.ops[i].program.empty())
        continue;
      auto index = runner.add(stage.ops[i].name, stage.ops[i].program);
      if (!index) {
        setupError = llvm::toString(index.takeError());
        return;
      }
      programOf[i] = *index;
    }
    uint64_t size = std::max(stage.coeffBytes, stage.activationBase + stage.activationBytes);
    for (const auto *list : {&stage.inputs, &stage.outputs})
      for (const TensorDesc &t : *list)
        size = std::max(size, t.address + t.bytes);
    ddr.assign(size, 0);
    lmem.assign(stage.cores.size() * static_cast<size_t>(chip.lanes * chip.lmemBytesPerLane), 0); // one per core
    for (const WeightRef &w : stage.weights)
      if (w.blob < model.blobs.size())
        weightSpans.emplace_back(w.address, model.blobs[w.blob].size, w.blob);
    std::sort(weightSpans.begin(), weightSpans.end());
    if (shared) {
      runner.shareKernelCaches(shared->impl->kernels);
      for (size_t i = 0; i < stage.ops.size(); ++i)
        if (programOf[i] != SIZE_MAX) {
          signatures.resize(std::max(signatures.size(), programOf[i] + 1));
          signatures[programOf[i]] = runner.cacheSignature(programOf[i]);
        }
    }
    inputSet.assign(stage.inputs.size(), false);
    inputValues.resize(stage.inputs.size());
  }
};

StageRunner::StageRunner(const backend::ChipProfile &chip, const Model &model, size_t net, size_t stage,
                         std::shared_ptr<SharedDecodes> shared) {
  static const Stage empty;
  const Stage *s = &empty;
  std::string error;
  if (net >= model.nets.size())
    error = "the model has no net " + std::to_string(net);
  else if (stage >= model.nets[net].stages.size())
    error = "net '" + model.nets[net].name + "' has no stage " + std::to_string(stage);
  else
    s = &model.nets[net].stages[stage];
  impl = std::make_unique<Impl>(chip, model, *s);
  impl->shared = std::move(shared);
  impl->setupError = error;
  if (error.empty())
    impl->prepare();
}

StageRunner::~StageRunner() = default;

const Stage &StageRunner::stage() const { return impl->stage; }

llvm::Error StageRunner::setInput(const std::string &name, const Tensor &tensor) {
  Impl &m = *impl;
  if (!m.setupError.empty())
    return makeError(m.setupError);
  for (size_t i = 0; i < m.stage.inputs.size(); ++i) {
    const TensorDesc &d = m.stage.inputs[i];
    if (d.name != name)
      continue;
    if (tensor.numElements() != product(d.shape))
      return makeError("input '" + name + "' needs shape " + shapeToString(d.shape) + ", got " +
                       shapeToString(tensor.shape()));
    Tensor f32 = tensor.dtype() == tpuc::DType::F32 ? tensor : toF32Tensor(tensor);
    std::vector<float> codes(f32.numElements());
    const float *src = reinterpret_cast<const float *>(f32.data());
    auto dt = static_cast<DType>(d.dtype);
    if (isIntegerDType(dt)) {
      quant::IntType it = dt == DType::INT8    ? quant::IntType::Int8
                          : dt == DType::UINT8 ? quant::IntType::UInt8
                          : dt == DType::INT16 ? quant::IntType::Int16
                                               : quant::IntType::Int32;
      sim::tpu::quantizeFloats(src, f32.numElements(), {d.scale, d.zeroPoint}, it, codes.data());
    } else {
      std::memcpy(codes.data(), src, codes.size() * sizeof(float));
      sim::tpu::roundHalf(codes.data(), f32.numElements(),
                          dt == DType::F16    ? sim::tpu::Half::F16
                          : dt == DType::BF16 ? sim::tpu::Half::BF16
                                              : sim::tpu::Half::None);
    }
    if (d.address + d.bytes > m.ddr.size() || static_cast<int64_t>(d.bytes) != product(d.shape) * elementBytes(d.dtype))
      return makeError("input '" + name + "': its DDR placement is outside the stage");
    encodeElements(codes.data(), f32.numElements(), dt, m.ddr.data() + d.address);
    // The dump holds what the chip holds: the codes' real values, or the values rounded to F16/BF16.
    m.inputValues[i] = Tensor(tpuc::DType::F32, d.shape);
    float *held = reinterpret_cast<float *>(m.inputValues[i].data());
    if (isIntegerDType(dt))
      sim::tpu::dequantizeCodes(codes.data(), f32.numElements(), {d.scale, d.zeroPoint}, held);
    else
      std::memcpy(held, codes.data(), codes.size() * sizeof(float));
    m.inputSet[i] = true;
    return llvm::Error::success();
  }
  return makeError("the model has no input '" + name + "'");
}

llvm::Error StageRunner::setInputs(const NpzFile &npz) {
  const Stage &s = impl->stage;
  if (s.inputs.size() == 1 && npz.size() == 1 && !npz.has(s.inputs[0].name))
    return setInput(s.inputs[0].name, npz.get(npz.names()[0]));
  for (const TensorDesc &d : s.inputs) {
    if (!npz.has(d.name))
      return makeError("no tensor '" + d.name + "' for the input of that name");
    if (auto err = setInput(d.name, npz.get(d.name)))
      return err;
  }
  return llvm::Error::success();
}

llvm::Error StageRunner::run(const ExecOptions &options) {
  Impl &m = *impl;
  if (!m.setupError.empty())
    return makeError(m.setupError);
  for (size_t i = 0; i < m.stage.inputs.size(); ++i)
    if (!m.inputSet[i])
      return makeError("missing input '" + m.stage.inputs[i].name + "'");
  if (options.numThreads)
    sim::ThreadPool::setGlobalThreads(options.numThreads);
  auto start = std::chrono::steady_clock::now();
  m.stats = ExecStats();
  auto invalid = [](const SimResult &timing) {
    return makeError("the command streams are invalid: " + timing.errors.front() +
                     (timing.errors.size() > 1
                          ? " (and " + std::to_string(timing.errors.size() - 1) + " more)"
                          : std::string()));
  };
  // The cycle model's schedule depends on the chip and the command streams alone; with blocks, each
  // block's schedule is simulated once, and the whole run's once the path is known.
  const bool blocks = !m.stage.blocks.empty();
  if (!blocks) {
    if (!m.timing)
      m.timing = simulateStage(m.chip, m.stage);
    m.stats.timing = *m.timing;
    if (!m.stats.timing.errors.empty())
      return invalid(m.stats.timing);
  }
  // Weights into the coefficient region, once: no command writes there.
  for (size_t i = 0; !m.weightsLoaded && i < m.stage.weights.size(); ++i) {
    const WeightRef &w = m.stage.weights[i];
    if (w.blob >= m.model.blobs.size())
      return makeError("weight refers to blob entry " + std::to_string(w.blob));
    const BlobEntry &b = m.model.blobs[w.blob];
    if (w.address + b.size > m.ddr.size() || b.offset + b.size > m.model.coeffData.size())
      return makeError("weight '" + b.name + "' lies outside DDR");
    std::memcpy(m.ddr.data() + w.address, m.model.coeffData.data() + b.offset, b.size);
  }
  m.weightsLoaded = true;
  std::map<std::string, Dump> dumps;
  // The inputs' codes as the run starts: an in-place op on an input (a reshape) is derived from them after
  // the run, when the input's DDR may hold another tensor already.
  std::vector<std::vector<float>> inputCodes(options.dumpAll ? m.stage.inputs.size() : 0);
  for (size_t i = 0; i < inputCodes.size(); ++i) {
    const TensorDesc &in = m.stage.inputs[i];
    inputCodes[i].resize(static_cast<size_t>(std::max<int64_t>(product(in.shape), 1)));
    decodeElements(m.ddr.data() + in.address, product(in.shape), static_cast<DType>(in.dtype),
                   inputCodes[i].data());
  }
  // Ops with a TIU command of their own, run or not (an op in a block control never reached is not
  // dumped); the others (in-place reshapes and concats) are derived from their operands below.
  std::vector<bool> hasCommand(m.stage.ops.size(), false);
  for (const CoreStreams &core : m.stage.cores)
    for (const Command &c : core.tiu)
      if (c.kind != CmdKind::Sync && c.op < m.stage.ops.size())
        hasCommand[c.op] = true;
  // Control-flow markers (an If's, a loop's) compute nothing: their GDMA copies hand a branch's or the body's
  // values over to the If's or the loop's results, which are dumped as each copy lands (a loop's last copy
  // is its final value). A marker's k-th Copy command reads its operandNames[k] and writes its
  // resultNames[k] (codegen's describeOps). A value reads as a program reads or produces it, or as the stage
  // output it is; one only markers touch (an If's result that initializes a loop) as the value it is copied
  // from or into: the copies move bytes.
  std::map<const Command *, std::pair<const std::string *, const std::string *>>
      markerCopies; // read, written
  std::map<std::string, sim::ValueInfo> controlInfos;
  if (options.dumpAll) {
    std::vector<size_t> copied(m.stage.ops.size(), 0);
    for (const CoreStreams &core : m.stage.cores)
      for (const Command &c : core.gdma)
        if (c.kind == CmdKind::Copy && c.op < m.stage.ops.size() && m.stage.ops[c.op].program.empty()) {
          const OpInfo &info = m.stage.ops[c.op];
          size_t k = copied[c.op]++;
          if (k < info.resultNames.size() && k < info.operandNames.size() && !info.resultNames[k].empty())
            markerCopies.emplace(&c, std::make_pair(&info.operandNames[k], &info.resultNames[k]));
        }
    std::set<std::string> wanted;
    for (const auto &[c, names] : markerCopies)
      wanted.insert({*names.first, *names.second});
    for (size_t o = 0; o < m.stage.ops.size(); ++o) {
      if (m.programOf[o] == SIZE_MAX)
        continue;
      const OpInfo &info = m.stage.ops[o];
      for (auto [names, infos] : {std::pair{&info.operandNames, &m.runner.args(m.programOf[o])},
                                  std::pair{&info.resultNames, &m.runner.results(m.programOf[o])}})
        for (size_t i = 0; i < names->size() && i < infos->size(); ++i)
          if (wanted.count((*names)[i]))
            controlInfos.emplace((*names)[i], (*infos)[i]);
    }
    for (const TensorDesc &d : m.stage.outputs)
      if (wanted.count(d.name))
        controlInfos.emplace(d.name, valueInfoOf(d));
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto &[c, names] : markerCopies) {
        auto from = controlInfos.find(*names.first), to = controlInfos.find(*names.second);
        if ((from == controlInfos.end()) == (to == controlInfos.end()))
          continue;
        if (from != controlInfos.end())
          controlInfos.emplace(*names.second, from->second);
        else
          controlInfos.emplace(*names.first, to->second);
        changed = true;
      }
    }
  }
  auto dumpControlResult = [&](const Command &c) {
    auto copy = markerCopies.find(&c);
    if (copy == markerCopies.end())
      return;
    const std::string &name = *copy->second.second;
    auto info = controlInfos.find(name);
    if (info == controlInfos.end())
      return;
    const TensorRef &dst = c.operands[1];
    Dump &d = Impl::dump(dumps, name, info->second);
    const int64_t n = product(d.shape);
    if (n != volume(dst.shape) ||
        dst.address + static_cast<uint64_t>(n * elementBytes(dst.dtype)) > m.ddr.size())
      return;
    decodeElements(m.ddr.data() + dst.address, n, static_cast<DType>(dst.dtype), d.data.data());
    std::fill(d.covered.begin(), d.covered.end(), 1);
  };
  size_t done = 0;
  auto execute = [&](const std::vector<const TraceEvent *> &order, size_t total) -> llvm::Error {
    for (const TraceEvent *ev : order) {
      const Command &c = commandOf(m.stage, *ev);
      m.core = ev->core;
      ++done;
      if (c.kind != CmdKind::Sync) { // a barrier orders the schedule; it moves no data
        if (ev->engine == Engine::GDMA) {
          ++m.stats.gdmaCommands;
          if (auto err = m.dma(c))
            return err;
          if (!markerCopies.empty())
            dumpControlResult(c);
        } else {
          ++m.stats.tiuCommands;
          if (auto err = m.tiu(c, options.dumpAll ? &dumps : nullptr))
            return err;
        }
      }
      if (options.progress && !options.progress(done, std::max(done, total)))
        return makeError("cancelled");
    }
    return llvm::Error::success();
  };
  if (!blocks) {
    if (auto err = execute(m.startOrder(m.stats.timing), m.stats.timing.events.size()))
      return err;
  } else {
    // Block by block: run a block's commands in its schedule's order, then follow its terminator, a
    // branch reading its condition from DDR as the block left it.
    std::vector<uint32_t> path;
    for (uint32_t b = 0; b < m.stage.blocks.size();) {
      if (path.size() >= kMaxBlockExecutions)
        return makeError("control flow did not end after " + std::to_string(kMaxBlockExecutions) + " blocks");
      path.push_back(b);
      if (m.blockOrders.size() != m.stage.blocks.size())
        m.blockOrders.resize(m.stage.blocks.size());
      if (!m.blockOrders[b]) {
        SimResult timing = simulateStage(m.chip, m.stage, {b});
        if (!timing.errors.empty())
          return invalid(timing);
        m.blockOrders[b] = std::make_pair(std::move(timing), std::vector<const TraceEvent *>());
        m.blockOrders[b]->second = m.startOrder(m.blockOrders[b]->first);
      }
      if (auto err = execute(m.blockOrders[b]->second, m.stage.commandCount()))
        return err;
      auto next = m.successor(b);
      if (!next)
        return next.takeError();
      b = *next;
    }
    m.stats.timing = simulateStage(m.chip, m.stage, path);
    if (!m.stats.timing.errors.empty())
      return invalid(m.stats.timing);
  }
  // Per op, the simulated cycles of its TIU commands (every run of them).
  m.stats.opCycles.assign(m.stage.ops.size(), 0);
  for (const TraceEvent &ev : m.stats.timing.events)
    if (const Command &c = commandOf(m.stage, ev);
        ev.engine == Engine::TIU && c.kind != CmdKind::Sync && c.op < m.stage.ops.size())
      m.stats.opCycles[c.op] += ev.end - ev.start;
  m.outputs = NpzFile();
  m.tensors = NpzFile();
  std::vector<float> codes;
  for (const TensorDesc &d : m.stage.outputs) {
    int64_t n = product(d.shape);
    codes.resize(std::max<int64_t>(n, 1));
    decodeElements(m.ddr.data() + d.address, n, static_cast<DType>(d.dtype), codes.data());
    m.outputs.set(d.name, Impl::realTensor(codes, d.shape, valueInfoOf(d)));
  }
  if (options.dumpAll) {
    for (size_t i = 0; i < m.stage.inputs.size(); ++i)
      m.tensors.set(m.stage.inputs[i].name, m.inputValues[i]);
    // Ops without a command of their own (in-place reshapes and concats) are what their operands give.
    for (size_t o = 0; o < m.stage.ops.size(); ++o) {
      const OpInfo &info = m.stage.ops[o];
      if (hasCommand[o] || m.programOf[o] == SIZE_MAX)
        continue;
      size_t program = m.programOf[o];
      std::vector<sim::OpArg> args(info.operandNames.size());
      bool complete = args.size() == m.runner.args(program).size();
      for (size_t i = 0; complete && i < args.size(); ++i) {
        if (info.operandNames[i].empty())
          continue;
        auto it = dumps.find(info.operandNames[i]);
        if (it == dumps.end()) // an in-place op on a graph input (a reshape of run-time indices): its codes
          for (size_t k = 0; k < m.stage.inputs.size(); ++k)
            if (m.stage.inputs[k].name == info.operandNames[i]) {
              Dump &d = Impl::dump(dumps, m.stage.inputs[k].name, m.runner.args(program)[i]);
              std::copy_n(inputCodes[k].begin(), std::min(inputCodes[k].size(), d.data.size()),
                          d.data.begin());
              std::fill(d.covered.begin(), d.covered.end(), 1);
              it = dumps.find(m.stage.inputs[k].name);
            }
        complete = it != dumps.end();
        if (complete)
          args[i] = {it->second.data.data(), it->second.shape, nullptr};
      }
      if (!complete)
        continue;
      std::vector<float *> outs;
      std::vector<std::vector<int64_t>> shapes;
      for (size_t j = 0; j < info.resultNames.size(); ++j) {
        Dump &d = Impl::dump(dumps, info.resultNames[j], m.runner.results(program)[j]);
        outs.push_back(d.data.data());
        shapes.push_back(d.shape);
      }
      if (auto err = m.runner.run(program, args, outs, shapes, nullptr, 0))
        return err;
      // In-place ops compute nothing themselves: their result is known where all operands are.
      bool whole = true;
      for (const std::string &operand : info.operandNames)
        if (!operand.empty()) {
          const auto &cov = dumps[operand].covered;
          whole &= std::find(cov.begin(), cov.end(), 0) == cov.end();
        }
      for (const std::string &name : info.resultNames)
        std::fill(dumps[name].covered.begin(), dumps[name].covered.end(), whole ? 1 : 0);
    }
    for (const OpInfo &info : m.stage.ops) {
      for (const std::string &name : info.resultNames)
        if (auto it = dumps.find(name); it != dumps.end()) {
          const Dump &d = it->second;
          int64_t computed = std::count(d.covered.begin(), d.covered.end(), 1);
          if (computed < product(d.shape))
            m.stats.partial.push_back(name);
          m.tensors.set(name, Impl::realTensor(d.data, d.shape, d.info, &d.covered));
        }
      // A result's further names (folded Identity or reshape, a graph output named otherwise) hold it too.
      for (const auto &[result, alias] : info.resultAliases)
        if (m.tensors.has(info.resultNames[result]) && !m.tensors.has(alias))
          m.tensors.set(alias, m.tensors.get(info.resultNames[result]));
    }
    for (const std::string &name : m.outputs.names())
      if (!m.tensors.has(name))
        m.tensors.set(name, m.outputs.get(name));
  } else {
    m.tensors = m.outputs;
  }
  m.stats.sliceVariants = m.runner.numVariants();
  m.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return llvm::Error::success();
}

const NpzFile &StageRunner::outputs() const { return impl->outputs; }
const NpzFile &StageRunner::tensors() const { return impl->tensors; }
const ExecStats &StageRunner::stats() const { return impl->stats; }

void maskNotComputed(const std::vector<std::string> &partial, NpzFile &dump, NpzFile &reference) {
  for (const std::string &name : partial) {
    if (!dump.has(name) || !reference.has(name) ||
        reference.get(name).numElements() != dump.get(name).numElements())
      continue;
    Tensor a = dump.get(name), b = toF32Tensor(reference.get(name));
    float *pa = reinterpret_cast<float *>(a.data()), *pb = reinterpret_cast<float *>(b.data());
    for (int64_t i = 0; i < a.numElements(); ++i)
      if (isNotComputed(pa[i]))
        pa[i] = pb[i] = 0.0f;
    dump.set(name, std::move(a));
    reference.set(name, std::move(b));
  }
}

std::vector<std::string> ModelFileRunner::inputNames() const {
  std::vector<std::string> names;
  for (const TensorDesc &d : runner.stage().inputs)
    names.push_back(d.name);
  return names;
}

std::vector<std::string> ModelFileRunner::outputNames() const {
  std::vector<std::string> names;
  for (const TensorDesc &d : runner.stage().outputs)
    names.push_back(d.name);
  return names;
}

llvm::Error ModelFileRunner::run(const sim::RunnerOptions &options) {
  ExecOptions exec;
  exec.dumpAll = options.dumpAll;
  exec.numThreads = options.numThreads;
  if (options.progress)
    exec.progress = [&](size_t done, size_t total) {
      return options.progress(done, total, llvm::StringRef());
    };
  return runner.run(exec);
}

sim::RunnerStats ModelFileRunner::stats() const {
  const ExecStats &s = runner.stats();
  return {s.seconds, s.tiuCommands + s.gdmaCommands};
}

} // namespace tpuc::cmdsim
