//===- ConvertLoop.cpp - ONNX Loop and Scan: top.loop, or unrolled at import ===//
// A Loop whose run depends on data and that has no scan outputs is a top.loop: its body imported once into
// the op's region, run step by step at run time (convertRuntimeLoop). Otherwise a Loop and a Scan over a
// sequence of static length are unrolled, one import of the body per step, like the recurrent layers. Each
// step's tensors are named
// `<onnx name>@<step>`, so every step keeps its own calibration line and dump. Values carried from step to
// step that are known at import stay constants (a Range spelled as a Loop folds away). A Loop whose trip
// count or exit condition is data and that has scan outputs takes a bound and masks the steps that depend on
// it (convertLoop), with a run-time check (top.loop_guard) that the bound held.
//===----------------------------------------------------------------------===//
#include "GraphImporter.h"

#include "tpuc/Dialect/Top/TopOps.h"

#include <unordered_set>

using namespace mlir;
using namespace tpuc::top;

namespace tpuc::importer {
namespace {

/// Body steps beyond which unrolling is refused, counted over the whole model (nested loops multiply): the
/// IR would hold the bodies this many times.
constexpr int64_t kMaxSteps = 4096;

/// Counts one more body step against the model's budget.
LogicalResult spendStep(GraphImporter &g) {
  if (++g.bodySteps() > kMaxSteps)
    return g.fail("unrolling it would take the model beyond " + std::to_string(kMaxSteps) +
                  " loop-body steps, which would not fit");
  return success();
}

const onnx::GraphProto *bodyOf(GraphImporter &g) {
  const onnx::AttributeProto *body = g.attr("body");
  if (!body || !body->has_g()) {
    (void)g.fail("no 'body' subgraph");
    return nullptr;
  }
  return &body->g();
}

/// The value of `t`, materializing a constant as `name`.
Value valueOf(GraphImporter &g, const TensorInfo &t, const std::string &name) {
  return t.value ? t.value : g.materialize(name, *t.constant);
}

/// Stacks one value per step along a new axis `axis` (negative: counted from the end of the stacked rank),
/// in step order or reversed: the scan outputs.
Value stack(GraphImporter &g, const std::vector<TensorInfo> &steps, int64_t axis, bool reverse,
            const std::string &name) {
  std::vector<Value> parts;
  for (size_t k = 0; k < steps.size(); ++k) {
    const TensorInfo &t = steps[reverse ? steps.size() - 1 - k : k];
    Value v = valueOf(g, t, name + "@" + std::to_string(k));
    if (!v)
      return {};
    std::vector<int64_t> shape(getShape(v).begin(), getShape(v).end());
    if (k == 0) {
      auto normalized = g.normalizeAxis(axis, static_cast<int64_t>(shape.size()) + 1, "scan_output_axes");
      if (failed(normalized))
        return {};
      axis = *normalized;
    }
    shape.insert(shape.begin() + axis, 1);
    parts.push_back(g.reshape(v, shape, name + "_step" + std::to_string(k)));
    if (!parts.back())
      return {};
  }
  if (parts.size() == 1)
    return parts[0];
  return g.build<ConcatOp>("", parts, {g.i64("axis", axis)}, GraphImporter::elementTypeOf(parts[0]));
}

/// The node's inputs [first, first + count): the initial loop-carried values. Fails (reported) on an input
/// that has neither data nor a value.
LogicalResult readStates(GraphImporter &g, size_t first, size_t count, std::vector<TensorInfo> &state) {
  state.resize(count);
  for (size_t k = 0; k < count; ++k) {
    state[k] = g.inputInfo(first + k);
    if (!state[k].value && !state[k].constant)
      return failure();
  }
  return success();
}

/// One step's body outputs from `first` on: the carried values replace `state`, each scan output's value
/// joins its list.
void keepStep(const std::vector<TensorInfo> &out, size_t first, std::vector<TensorInfo> &state,
              std::vector<std::vector<TensorInfo>> &scanned) {
  std::copy(out.begin() + static_cast<std::ptrdiff_t>(first),
            out.begin() + static_cast<std::ptrdiff_t>(first + state.size()), state.begin());
  for (size_t j = 0; j < scanned.size(); ++j)
    scanned[j].push_back(out[first + state.size() + j]);
}

/// The node's first outputs: the carried values after the last step.
void setStates(GraphImporter &g, const std::vector<TensorInfo> &state) {
  for (size_t k = 0; k < state.size(); ++k) {
    if (state[k].value)
      g.setOutput(k, state[k].value);
    else
      g.setConstOutput(k, *state[k].constant);
  }
}

/// A loop flag (the condition, whether a step runs): known at import, or a run-time i1 value.
struct Flag {
  std::optional<bool> known;
  Value value;
};

Flag flagOf(const TensorInfo &t) {
  if (t.constant)
    return {t.constant->at(0) != 0, {}};
  return {std::nullopt, t.value};
}

/// `a and b`, folded when either is known.
Flag both(GraphImporter &g, const Flag &a, const Flag &b, const std::string &suffix) {
  if (a.known)
    return *a.known ? b : a;
  if (b.known)
    return *b.known ? a : b;
  MLIRContext *ctx = g.builder().getContext();
  Value v = g.build<CompareOp>(suffix, {a.value, b.value},
                               {g.named("mode", CompareModeAttr::get(ctx, CompareMode::And))},
                               g.builder().getI1Type());
  return {std::nullopt, v};
}

/// Whether step `step` is within the trip count: known without one or with a constant one, else
/// `step < M` at run time (`tripValue`, M in f32: the chip compares floats).
Flag withinTrips(GraphImporter &g, std::optional<int64_t> trips, Value tripValue, int64_t step) {
  if (!tripValue)
    return {!trips || step < *trips, {}};
  std::string tag = "step" + std::to_string(step);
  Value at = g.materialize(g.node().output(0) + "_" + tag,
                           HostTensor::floats(g.inputShape(0), {static_cast<float>(step)}));
  MLIRContext *ctx = g.builder().getContext();
  Value v = at ? g.build<CompareOp>("within_" + tag, {at, tripValue},
                                    {g.named("mode", CompareModeAttr::get(ctx, CompareMode::lt))},
                                    g.builder().getI1Type())
               : Value();
  return {std::nullopt, v};
}

/// How many steps the loop wanted (each step's run flag, and the one after the last), as an f32 value.
Value countSteps(GraphImporter &g, const std::vector<Flag> &flags) {
  Value count;
  int64_t knownRuns = 0;
  Type f32 = g.builder().getF32Type();
  for (size_t i = 0; i < flags.size(); ++i) {
    if (flags[i].known) {
      knownRuns += *flags[i].known ? 1 : 0;
      continue;
    }
    Value ran = g.build<CastOp>("ran@" + std::to_string(i), {flags[i].value}, {}, f32);
    count = count && ran ? g.build<AddOp>("steps@" + std::to_string(i), {count, ran}, {}, f32) : ran;
    if (!count)
      return {};
  }
  if (count && knownRuns)
    count = g.build<AddConstOp>("steps", {count}, {g.f64("const_val", static_cast<double>(knownRuns))}, f32);
  return count;
}

/// The static shape a subgraph declares for input `i`, or {} (ONNX's scalars) when it declares none.
std::vector<int64_t> declaredInputShape(const onnx::GraphProto &graph, int i) {
  std::vector<int64_t> shape;
  const onnx::TypeProto &type = graph.input(i).type();
  if (!type.has_tensor_type() || !type.tensor_type().has_shape())
    return shape;
  for (const auto &dim : type.tensor_type().shape().dim()) {
    if (!dim.has_dim_value())
      return {};
    shape.push_back(dim.dim_value());
  }
  return shape;
}

/// Every tensor name `node`'s subgraphs read (nested ones included).
void subgraphReads(const onnx::NodeProto &node, std::vector<std::string> &names) {
  for (const auto &a : node.attribute()) {
    std::vector<const onnx::GraphProto *> graphs;
    if (a.has_g())
      graphs.push_back(&a.g());
    for (const auto &graph : a.graphs())
      graphs.push_back(&graph);
    for (const onnx::GraphProto *graph : graphs)
      for (const auto &inner : graph->node()) {
        names.insert(names.end(), inner.input().begin(), inner.input().end());
        subgraphReads(inner, names);
      }
  }
}

/// Whether the condition the body computes depends on data only known at run time (`condData`: the
/// initial condition is; `carriedData[k]`: initial carried value k is), following the body's nodes until
/// nothing changes (a carried value can take data in one step and pass it to the condition in the next).
/// A Shape or Size of data is known (static shapes).
bool conditionFromData(GraphImporter &g, const onnx::GraphProto &body, bool condData,
                       std::vector<bool> carriedData) {
  std::unordered_set<std::string> local;
  for (const auto &in : body.input())
    local.insert(in.name());
  for (const auto &init : body.initializer())
    local.insert(init.name());
  for (const auto &node : body.node())
    local.insert(node.output().begin(), node.output().end());
  for (;;) {
    std::unordered_set<std::string> data;
    if (condData && body.input_size() > 1)
      data.insert(body.input(1).name());
    for (size_t k = 0; k < carriedData.size() && 2 + k < static_cast<size_t>(body.input_size()); ++k)
      if (carriedData[k])
        data.insert(body.input(static_cast<int>(2 + k)).name());
    auto isData = [&](const std::string &name) {
      return !name.empty() && (data.count(name) || (!local.count(name) && !g.knownAtImport(name)));
    };
    for (const auto &node : body.node()) {
      if (node.op_type() == "Shape" || node.op_type() == "Size")
        continue;
      std::vector<std::string> reads(node.input().begin(), node.input().end());
      subgraphReads(node, reads);
      if (llvm::any_of(reads, isData))
        data.insert(node.output().begin(), node.output().end());
    }
    bool changed = false;
    if (body.output_size() > 0 && !condData && data.count(body.output(0).name()))
      condData = changed = true;
    for (size_t k = 0; k < carriedData.size() && 1 + k < static_cast<size_t>(body.output_size()); ++k)
      if (!carriedData[k] && data.count(body.output(static_cast<int>(1 + k)).name()))
        carriedData[k] = changed = true;
    if (!changed)
      return condData;
  }
}

/// ONNX Loop without scan outputs whose run depends on data: a top.loop with the body imported into its
/// region, block arguments (step, condition, carried..., captured...). An absent or constant-true
/// condition and an absent trip count are `none`.
LogicalResult convertRuntimeLoop(GraphImporter &g, const onnx::GraphProto &body, size_t carried) {
  OpBuilder &b = g.builder();
  Value maxTrips = g.hasInput(0) ? g.input(0) : g.none();
  const HostTensor *knownCond = g.constInput(1);
  Value cond = g.hasInput(1) && !knownCond ? g.input(1) : g.none();
  SmallVector<Value> inits;
  for (size_t k = 0; k < carried; ++k)
    inits.push_back(g.input(2 + k));
  if (!maxTrips || !cond || llvm::is_contained(inits, Value()))
    return failure();
  SmallVector<Type> types(ValueRange(inits).getTypes());
  auto op = LoopOp::create(b, g.loc(), types, maxTrips, cond, inits, ValueRange());
  Block &block = op.getBody().emplaceBlock();
  MLIRContext *ctx = b.getContext();
  auto argLoc = [&](int i) { return NameLoc::get(StringAttr::get(ctx, body.input(i).name())); };
  block.addArgument(RankedTensorType::get(declaredInputShape(body, 0), b.getI64Type()), argLoc(0));
  block.addArgument(RankedTensorType::get(declaredInputShape(body, 1), b.getI1Type()), argLoc(1));
  for (size_t k = 0; k < carried; ++k)
    block.addArgument(types[k], argLoc(static_cast<int>(2 + k)));
  if (failed(g.importRegion(body, block))) {
    op->erase();
    return failure();
  }
  Operation *yield = block.getTerminator();
  for (size_t k = 0; k < carried; ++k)
    if (getShape(yield->getOperand(1 + k)) != getShape(inits[k])) {
      op->erase();
      return g.fail(
          "loop-carried value " + std::to_string(k) +
          " changes shape in a step that only runs at run time, which a static-shape compiler cannot hold");
    }
  op.getCapturesMutable().append(g.isolateRegions({&op.getBody()}));
  if (failed(g.finishRegionOp(op)))
    return failure();
  for (size_t k = 0; k < carried; ++k)
    g.setOutput(k, op->getResult(k));
  return success();
}

/// ONNX Loop: inputs (M, cond, v_initial...), body (iteration_num, cond_in, v_in...) -> (cond_out,
/// v_out..., scan_out...), outputs (v_final..., scan_outputs...).
///
/// Steps whose run is known at import are imported as they are. From the first step whose run depends on
/// data (a trip count fed at run time, a condition computed from data) every step is masked: the body is
/// imported and each carried value becomes `where(step runs, body's value, previous value)`, up to a bound
/// (--loop_max_trips, else the constant trip count, else the extent the scan outputs declare). Each output
/// then passes a top.loop_guard that fails a run needing more steps than the bound (or, for scan outputs,
/// whose number of steps differs from their declared extent).
LogicalResult convertLoop(GraphImporter &g) {
  const onnx::GraphProto *body = bodyOf(g);
  if (!body)
    return failure();
  std::optional<int64_t> trips;
  if (const HostTensor *m = g.constInput(0))
    trips = m->intAt(0);
  TensorInfo cond;
  cond.constant = std::make_shared<HostTensor>(HostTensor::ints({}, {1}).castTo(onnx::TensorProto::BOOL));
  if (g.hasInput(1)) {
    cond = g.inputInfo(1);
    if (!cond.value && !cond.constant)
      return failure();
  }
  size_t carried = static_cast<size_t>(std::max(0, g.node().input_size() - 2));
  if (static_cast<size_t>(body->output_size()) < carried + 1)
    return g.fail("the body has " + std::to_string(body->output_size()) + " outputs for " +
                  std::to_string(carried) + " loop-carried values and the condition");
  size_t scans = body->output_size() - 1 - carried;
  // A run that depends on data without scan outputs (whose number of slices would be data too) stays a loop;
  // one known at import, or with scan outputs, is unrolled below.
  if (scans == 0 && !(trips && *trips <= 0) && !(cond.constant && cond.constant->at(0) == 0)) {
    std::vector<bool> carriedData;
    for (size_t k = 0; k < carried; ++k)
      carriedData.push_back(g.runtimeInput(2 + k));
    if (g.runtimeInput(0) || cond.value || conditionFromData(g, *body, false, carriedData))
      return convertRuntimeLoop(g, *body, carried);
  }
  Value tripValue;
  if (g.runtimeInput(0) &&
      (!(tripValue = g.input(0)) ||
       !(tripValue = g.build<CastOp>("trips", {tripValue}, {}, g.builder().getF32Type()))))
    return failure();

  // The most steps a loop whose run depends on data may take; asked for at its first such step.
  auto stepBound = [&]() -> FailureOr<int64_t> {
    if (g.loopMaxTrips() > 0)
      return trips ? std::min(*trips, g.loopMaxTrips()) : g.loopMaxTrips();
    if (trips && *trips <= kMaxSteps)
      return *trips;
    for (size_t j = 0; j < scans; ++j)
      if (auto declared = g.declaredShape(carried + j); declared && !declared->empty() && (*declared)[0] > 0)
        return (*declared)[0];
    return g.fail(
        std::string(tripValue ? "the trip count" : "the exit condition") +
        " is only known at run time and nothing bounds the steps; give the most it takes with "
        "--loop_max_trips N (or fix the graph inputs it comes from with --const_inputs NAME=VALUE)");
  };

  std::vector<TensorInfo> state;
  if (failed(readStates(g, 2, carried, state)))
    return failure();
  std::vector<std::vector<TensorInfo>> scanned(scans);
  std::vector<Flag> flags; // whether each masked step runs, and whether the loop wanted one more
  std::optional<int64_t> bound;
  const std::string &name = g.node().output(0);
  Flag runs = both(g, flagOf(cond), withinTrips(g, trips, tripValue, 0), "runs@0");
  for (int64_t step = 0;; ++step) {
    if (runs.known == false)
      break;
    if (!runs.known && !runs.value)
      return failure();
    if (!runs.known) {
      if (!bound) {
        auto b = stepBound();
        if (failed(b))
          return failure();
        bound = *b;
      }
      flags.push_back(runs);
      if (step >= *bound)
        break;
    }
    if (failed(spendStep(g)))
      return failure();
    std::string tag = "@" + std::to_string(step);
    std::vector<TensorInfo> in(2);
    in[0].constant = std::make_shared<HostTensor>(HostTensor::ints({}, {step}));
    in[1] = cond;
    in.insert(in.end(), state.begin(), state.end());
    std::vector<TensorInfo> out;
    if (failed(g.importBody(*body, in, tag, out)))
      return failure();
    if (!runs.known) {
      // A masked step: each carried value keeps its previous value where the step does not run.
      for (size_t k = 0; k < carried; ++k) {
        TensorInfo &next = out[1 + k];
        Value now = valueOf(g, next, name + "_carried" + std::to_string(k) + tag);
        Value before = valueOf(g, state[k], name + "_carried" + std::to_string(k) + "_in" + tag);
        if (!now || !before)
          return failure();
        if (getShape(now) != getShape(before))
          return g.fail("loop-carried value " + std::to_string(k) +
                        " changes shape in a step that only runs at "
                        "run time, which a static-shape compiler cannot hold");
        next = TensorInfo();
        next.value = g.build<WhereOp>("keep" + std::to_string(k) + tag, {runs.value, now, before}, {},
                                      GraphImporter::elementTypeOf(now));
        if (!next.value)
          return failure();
      }
    }
    cond = out[0];
    keepStep(out, 1, state, scanned);
    runs = both(g, runs, both(g, flagOf(cond), withinTrips(g, trips, tripValue, step + 1), "more" + tag),
                "runs@" + std::to_string(step + 1));
  }

  Value count;
  if (!flags.empty() && !(count = countSteps(g, flags)))
    return failure();
  // The outputs of a loop with masked steps pass its guard: the carried values need it within the bound,
  // the scan outputs (one slice per step) exactly at it.
  auto guarded = [&](Value v, bool exact, size_t k) -> Value {
    if (!count || !v)
      return v;
    return g.build<LoopGuardOp>("guard" + std::to_string(k), {count, v},
                                {g.i64("max_trips", *bound), g.boolean("exact", exact)},
                                GraphImporter::elementTypeOf(v));
  };
  for (size_t k = 0; k < carried; ++k) {
    if (!g.outputUsed(k))
      continue;
    if (!count) {
      if (state[k].value)
        g.setOutput(k, state[k].value);
      else
        g.setConstOutput(k, *state[k].constant);
      continue;
    }
    Value y = guarded(valueOf(g, state[k], name + "_final" + std::to_string(k)), false, k);
    if (!y)
      return failure();
    g.setOutput(k, y);
  }
  for (size_t j = 0; j < scans; ++j) {
    if (!g.outputUsed(carried + j))
      continue;
    if (scanned[j].empty())
      return g.fail("runs no step, so scan output " + std::to_string(j) +
                    " is empty, which a static-shape compiler cannot hold");
    Value y = stack(g, scanned[j], 0, false, g.node().output(static_cast<int>(carried + j)));
    y = guarded(y, true, carried + j);
    if (!y)
      return failure();
    g.setOutput(carried + j, y);
  }
  return success();
}

/// ONNX Scan (opset 9+): inputs (states..., scan inputs...), body (states..., one slice of each scan input)
/// -> (states..., one slice of each scan output), outputs (final states..., scan outputs...).
LogicalResult convertScan(GraphImporter &g) {
  if (g.opset() < 9)
    return g.fail("Scan before opset 9 (with a batch axis and sequence lengths) is not supported");
  const onnx::GraphProto *body = bodyOf(g);
  if (!body)
    return failure();
  int64_t numScanInputs = g.attrInt("num_scan_inputs", -1);
  int64_t numInputs = g.node().input_size();
  if (numScanInputs < 1 || numScanInputs > numInputs)
    return g.fail("'num_scan_inputs' " + std::to_string(numScanInputs) + " does not fit " +
                  std::to_string(numInputs) + " inputs");
  size_t states = static_cast<size_t>(numInputs - numScanInputs);
  size_t scanOuts = static_cast<size_t>(body->output_size()) - states;
  auto attrOr = [&](llvm::StringRef name, size_t n) {
    std::vector<int64_t> v = g.attrInts(name);
    if (v.empty())
      v.assign(n, 0);
    return v;
  };
  std::vector<int64_t> inAxes = attrOr("scan_input_axes", numScanInputs),
                       inDirs = attrOr("scan_input_directions", numScanInputs),
                       outAxes = attrOr("scan_output_axes", scanOuts),
                       outDirs = attrOr("scan_output_directions", scanOuts);
  if (inAxes.size() != static_cast<size_t>(numScanInputs) || inDirs.size() != inAxes.size() ||
      outAxes.size() != scanOuts || outDirs.size() != scanOuts)
    return g.fail("the scan axis and direction attributes do not match the scan inputs and outputs");
  std::vector<TensorInfo> state;
  if (failed(readStates(g, 0, states, state)))
    return failure();
  std::vector<Value> sequences;
  int64_t length = -1;
  for (int64_t i = 0; i < numScanInputs; ++i) {
    size_t index = states + static_cast<size_t>(i);
    int64_t rank = static_cast<int64_t>(g.inputShape(index).size());
    auto axis = g.normalizeAxis(inAxes[i], rank, "scan_input_axes");
    if (failed(axis))
      return failure();
    inAxes[i] = *axis;
    int64_t n = g.inputShape(index)[*axis];
    if (length >= 0 && n != length)
      return g.fail("the scan inputs have different lengths (" + std::to_string(length) + " and " +
                    std::to_string(n) + ")");
    length = n;
    sequences.push_back(g.input(index));
    if (!sequences.back())
      return failure();
  }
  if (length < 1)
    return g.fail("the scan inputs are empty");
  std::vector<std::vector<TensorInfo>> scanned(scanOuts);
  for (int64_t t = 0; t < length; ++t) {
    if (failed(spendStep(g)))
      return failure();
    std::vector<TensorInfo> in(state);
    for (int64_t i = 0; i < numScanInputs; ++i) {
      int64_t at = inDirs[i] ? length - 1 - t : t;
      std::string tag = "scan" + std::to_string(i) + "_t" + std::to_string(t);
      Value slice = g.sliceAxis(sequences[i], inAxes[i], at, at + 1, tag);
      std::vector<int64_t> shape(getShape(sequences[i]).begin(), getShape(sequences[i]).end());
      shape.erase(shape.begin() + inAxes[i]);
      TensorInfo s;
      s.value = g.reshape(slice, shape, tag + "_squeezed");
      if (!s.value)
        return failure();
      in.push_back(s);
    }
    std::vector<TensorInfo> out;
    if (failed(g.importBody(*body, in, "@" + std::to_string(t), out)))
      return failure();
    keepStep(out, 0, state, scanned);
  }
  setStates(g, state);
  for (size_t j = 0; j < scanOuts; ++j) {
    if (!g.outputUsed(states + j))
      continue;
    Value y = stack(g, scanned[j], outAxes[j], outDirs[j] != 0, g.node().output(static_cast<int>(states + j)));
    if (!y)
      return failure();
    g.setOutput(states + j, y);
  }
  return success();
}

} // namespace

void addLoopConverters(OpTable &table) {
  table["Loop"].convert = convertLoop;
  table["Scan"].convert = convertScan;
}

} // namespace tpuc::importer
