//===- FaultInjection.cpp - Planted faults for the first-divergent debugger ===//

#include "FaultInjection.h"

#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/Driver/DeployStages.h"
#include "tpuc/Driver/TopModule.h"
#include "tpuc/Support/Npz.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>

namespace tpuc::testing::fault {
namespace fs = std::filesystem;

namespace {

/// Builds the text of a random Top function and its weights.
class GraphBuilder {
public:
  struct Value {
    std::string ssa;
    int64_t c = 0, h = 0, w = 0;
  };

  explicit GraphBuilder(std::mt19937 &rng) : rng(rng) {}

  static std::string type(const Value &v) {
    return "tensor<1x" + std::to_string(v.c) + "x" + std::to_string(v.h) + "x" + std::to_string(v.w) +
           "xf32>";
  }

  std::string weight(const std::vector<int64_t> &shape, double scale) {
    std::string name = "w" + std::to_string(++count);
    int64_t size = 1;
    for (int64_t d : shape)
      size *= d;
    std::normal_distribution<float> normal(0.0f, static_cast<float>(scale));
    std::vector<float> data(static_cast<size_t>(size));
    for (float &v : data)
      v = normal(rng);
    weights.set(name, Tensor::fromValues<float>(shape, data));
    std::string ssa = "%" + name, shapeText;
    for (int64_t d : shape)
      shapeText += std::to_string(d) + "x";
    body << "    " << ssa << " = top.weight \"" << name << "\" : tensor<" << shapeText << "f32> loc(\""
         << name << "\")\n";
    return ssa;
  }

  Value conv(const Value &x, int64_t oc, int64_t kernel, int64_t stride, bool relu) {
    int64_t pad = kernel / 2;
    Value y{next("conv"), oc, (x.h + 2 * pad - kernel) / stride + 1, (x.w + 2 * pad - kernel) / stride + 1};
    std::string w = weight({oc, x.c, kernel, kernel}, 1.0 / std::sqrt(double(x.c * kernel * kernel)));
    std::string b = weight({oc}, 0.1);
    std::string shape = "tensor<" + std::to_string(oc) + "x" + std::to_string(x.c) + "x" +
                        std::to_string(kernel) + "x" + std::to_string(kernel) + "xf32>";
    body << "    " << y.ssa << " = top.conv " << x.ssa << ", " << w << ", " << b
         << " {kernel_shape = array<i64: " << kernel << ", " << kernel << ">, strides = array<i64: " << stride
         << ", " << stride << ">, pads = array<i64: " << pad << ", " << pad << ", " << pad << ", " << pad
         << ">, dilations = array<i64: 1, 1>" << (relu ? ", do_relu = true" : "") << "} : (" << type(x)
         << ", " << shape << ", tensor<" << oc << "xf32>) -> " << type(y) << " loc(\"" << y.ssa.substr(1)
         << "\")\n";
    return y;
  }

  Value add(const Value &a, const Value &b) {
    Value y{next("add"), a.c, a.h, a.w};
    body << "    " << y.ssa << " = top.add " << a.ssa << ", " << b.ssa << " : (" << type(a) << ", " << type(b)
         << ") -> " << type(y) << " loc(\"" << y.ssa.substr(1) << "\")\n";
    return y;
  }

  Value relu(const Value &x) {
    Value y{next("relu"), x.c, x.h, x.w};
    body << "    " << y.ssa << " = top.relu " << x.ssa << " : " << type(x) << " -> " << type(y) << " loc(\""
         << y.ssa.substr(1) << "\")\n";
    return y;
  }

  Value pool(const Value &x, bool max) {
    Value y{next(max ? "maxpool" : "avgpool"), x.c, x.h / 2, x.w / 2};
    body << "    " << y.ssa << " = top." << (max ? "maxpool " : "avgpool ") << x.ssa
         << " {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : "
         << type(x) << " -> " << type(y) << " loc(\"" << y.ssa.substr(1) << "\")\n";
    return y;
  }

  /// reshape to [1, C*H*W] and a matmul with bias to [1, outputs]; returns the result's type.
  std::string head(const Value &x, int64_t outputs, std::string &result) {
    int64_t k = x.c * x.h * x.w;
    std::string flat = next("flatten"), fc = next("fc");
    std::string flatType = "tensor<1x" + std::to_string(k) + "xf32>",
                outType = "tensor<1x" + std::to_string(outputs) + "xf32>";
    body << "    " << flat << " = top.reshape " << x.ssa << " : " << type(x) << " -> " << flatType
         << " loc(\"" << flat.substr(1) << "\")\n";
    std::string w = weight({k, outputs}, 1.0 / std::sqrt(double(k)));
    std::string b = weight({outputs}, 0.1);
    body << "    " << fc << " = top.matmul " << flat << ", " << w << ", " << b << " : (" << flatType
         << ", tensor<" << k << "x" << outputs << "xf32>, tensor<" << outputs << "xf32>) -> " << outType
         << " loc(\"" << fc.substr(1) << "\")\n";
    result = fc;
    return outType;
  }

  std::mt19937 &rng;
  NpzFile weights;
  std::ostringstream body;

private:
  std::string next(const std::string &kind) { return "%" + kind + std::to_string(++count); }
  int count = 0;
};

template <typename T> const T &pick(std::mt19937 &rng, const std::vector<T> &items) {
  return items[std::uniform_int_distribution<size_t>(0, items.size() - 1)(rng)];
}

/// What identifies a lowering's arithmetic: every op but the weights with its result types (quantized
/// scales) and attributes (multipliers, shifts), in order. Weight names are left out: each lowering makes
/// its new weights under fresh names.
std::string arithmetic(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream out(text);
  module.walk([&](mlir::Operation *op) {
    if (mlir::isa<top::WeightOp, mlir::ModuleOp>(op))
      return;
    out << op->getName() << " " << top::locationName(op->getLoc());
    for (mlir::Type t : op->getResultTypes())
      out << " " << t;
    if (!mlir::isa<mlir::func::FuncOp>(op))
      out << " " << op->getAttrDictionary();
    out << "\n";
  });
  return text;
}

/// The op of a lowered module that produces tensor `name` and carries requantization shifts, or null.
mlir::Operation *shiftedOp(mlir::ModuleOp module, const std::string &name) {
  mlir::Operation *found = nullptr;
  module.walk([&](mlir::Operation *op) {
    if (!found && op->getAttrOfType<mlir::DenseI64ArrayAttr>("rshift") &&
        top::locationName(op->getLoc()) == name)
      found = op;
  });
  return found;
}

} // namespace

std::string writeRandomGraph(std::mt19937 &rng, const std::string &dir, const std::string &name,
                             int samples) {
  GraphBuilder b(rng);
  int64_t channels = pick(rng, std::vector<int64_t>{3, 4, 8});
  int64_t size = pick(rng, std::vector<int64_t>{8, 12, 16});
  GraphBuilder::Value x{"%input", channels, size, size};
  std::string inputType = GraphBuilder::type(x);
  GraphBuilder::Value y = b.conv(x, pick(rng, std::vector<int64_t>{8, 16}), 3, 1, true);
  int blocks = std::uniform_int_distribution<int>(3, 6)(rng);
  for (int i = 0; i < blocks; ++i) {
    std::string kind = pick(rng, std::vector<std::string>{"conv", "conv", "res", "res", "pool", "relu_add"});
    if (kind == "conv") {
      int64_t stride = y.h >= 8 && std::bernoulli_distribution(0.3)(rng) ? 2 : 1;
      y = b.conv(y, pick(rng, std::vector<int64_t>{y.c, 2 * y.c, std::max<int64_t>(4, y.c / 2)}),
                 pick(rng, std::vector<int64_t>{1, 3}), stride, std::bernoulli_distribution(0.7)(rng));
    } else if (kind == "res") {
      GraphBuilder::Value inner = b.conv(y, y.c, 3, 1, true);
      GraphBuilder::Value outer = b.conv(inner, y.c, pick(rng, std::vector<int64_t>{1, 3}), 1, false);
      y = b.relu(b.add(y, outer));
    } else if (kind == "pool" && y.h >= 4) {
      y = b.pool(y, std::bernoulli_distribution(0.5)(rng));
    } else {
      GraphBuilder::Value side = b.conv(y, y.c, 1, 1, false);
      y = b.add(y, side);
    }
  }
  std::string result = y.ssa, resultType = GraphBuilder::type(y);
  if (std::bernoulli_distribution(0.5)(rng))
    resultType = b.head(y, 10, result);
  std::string weights = (fs::path(dir) / (name + "_weight.npz")).string();
  b.weights.write(weights);
  std::string path = (fs::path(dir) / (name + ".mlir")).string();
  std::ofstream out(path);
  out << "module @" << name << " attributes {top.state = #top.state<TOP_F32>, top.weight_file = \"" << weights
      << "\"} {\n  func.func @main(%arg0: " << inputType << ") -> (" << resultType
      << " {top.name = \"output\"}) {\n    %input = top.input %arg0 : " << inputType << " -> " << inputType
      << " loc(\"input\")\n"
      << b.body.str() << "    return " << result << " : " << resultType << "\n  }\n}\n";
  fs::path folder = fs::path(dir) / (name + "_samples");
  fs::create_directories(folder);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int i = 0; i < samples; ++i) {
    std::vector<float> values(static_cast<size_t>(channels * size * size));
    for (float &v : values)
      v = normal(rng);
    NpzFile sample;
    sample.set("input", Tensor::fromValues<float>({1, channels, size, size}, values));
    char file[32];
    std::snprintf(file, sizeof(file), "s%03d.npz", i);
    sample.write((folder / file).string());
  }
  return path;
}

const char *kindName(Kind kind) { return kind == Kind::Threshold ? "threshold" : "shift"; }

std::string Trial::line() const {
  static const char *results[] = {"hit", "MISS", "no effect", "not visible"};
  std::ostringstream out;
  out << fault << " on '" << op << "': " << results[result];
  if (result == Hit || result == Miss)
    out << ", named " << (named.empty() ? "nothing" : "'" + named + "'");
  if (result == Miss) {
    out << " (candidates:";
    for (size_t i = 0; i < candidates.size(); ++i)
      out << " " << candidates[i] << (i < gains.size() ? " " + gains[i] : "");
    out << "; neighbours:";
    for (const std::string &n : neighbours)
      out << " " << n;
    out << ")";
  }
  return out.str();
}

void Tally::add(const Trial &trial) {
  switch (trial.result) {
  case Trial::Hit:
    ++hits;
    break;
  case Trial::Miss:
    ++misses;
    break;
  case Trial::NoEffect:
    ++noEffect;
    break;
  case Trial::NotVisible:
    ++notVisible;
    break;
  }
}

std::string Tally::line(const std::string &what) const {
  std::ostringstream out;
  out << what << ": named the faulty op or a neighbour first in " << hits << " of " << counted()
      << " trials (" << std::fixed;
  out.precision(1);
  out << 100.0 * rate() << " %); left out: " << noEffect << " fault(s) the lowering does not use, "
      << notVisible << " not visible at the tolerance";
  return out.str();
}

struct FaultInjector::State {
  Model model;
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> top;
  driver::TensorGraph graph;
  quant::CalibrationTable table;
  std::unique_ptr<driver::SampleLoader> loader;
  std::vector<driver::LayerStats> clean;
  std::string cleanArithmetic;
  std::vector<std::string> thresholdTargets, shiftTargets;

  LoweringOptions lowering(const quant::CalibrationTable &calibration,
                           const quant::QuantizeTable &floatOps) const {
    LoweringOptions options;
    options.chip = model.chip;
    options.mode = top::Precision::INT8;
    options.calibrationTable = calibration;
    options.quantizeTable = floatOps;
    return options;
  }

  /// The per-layer statistics of `tpu` over the model's samples.
  llvm::Expected<driver::SamplesEvaluation> evaluate(mlir::ModuleOp tpu) {
    driver::SampleEvaluator evaluator(*top, tpu, {model.tolerance, {}, {}});
    return driver::evaluateSamples(model.samples, *loader, evaluator, {});
  }
};

FaultInjector::~FaultInjector() = default;

llvm::Expected<std::unique_ptr<FaultInjector>> FaultInjector::create(Model model) {
  std::unique_ptr<FaultInjector> injector(new FaultInjector());
  injector->state = std::make_unique<State>();
  State &s = *injector->state;
  s.model = std::move(model);
  auto top = cli::loadTopModule(s.context, s.model.mlir);
  if (!top)
    return top.takeError();
  s.top = std::move(*top);
  s.graph = driver::tensorGraph(*s.top);
  try {
    s.table = quant::readCalibrationTable(s.model.table);
  } catch (const std::exception &e) {
    return llvm::createStringError(e.what());
  }
  s.loader = std::make_unique<driver::SampleLoader>(*s.top);
  auto clean = cli::lowerCopy(*s.top, s.lowering(s.table, {}));
  if (!clean)
    return clean.takeError();
  s.cleanArithmetic = arithmetic(**clean);
  auto evaluated = s.evaluate(**clean);
  if (!evaluated)
    return evaluated.takeError();
  s.clean = evaluated->aggregate.layers();
  for (const driver::LayerStats &layer : s.clean) {
    if (!s.graph.ops.count(layer.name))
      continue;
    if (s.table.find(layer.name))
      s.thresholdTargets.push_back(layer.name);
    if (shiftedOp(**clean, layer.name))
      s.shiftTargets.push_back(layer.name);
  }
  if (s.thresholdTargets.empty() || s.shiftTargets.empty())
    return llvm::createStringError(s.model.name + ": no op to plant a fault in");
  return injector;
}

const std::vector<std::string> &FaultInjector::targets(Kind kind) const {
  return kind == Kind::Threshold ? state->thresholdTargets : state->shiftTargets;
}

llvm::Expected<Trial> FaultInjector::run(std::mt19937 &rng, Kind kind) {
  State &s = *state;
  Trial trial;
  trial.kind = kind;
  trial.op = pick(rng, targets(kind));
  for (const auto *edges : {&s.graph.producers, &s.graph.consumers})
    if (auto it = edges->find(trial.op); it != edges->end())
      for (const std::string &n : it->second)
        if (!llvm::is_contained(trial.neighbours, n))
          trial.neighbours.push_back(n);

  quant::CalibrationTable table = s.table;
  int64_t delta = 0;
  std::vector<bool> channels;
  if (kind == Kind::Threshold) {
    double factor = pick(rng, std::vector<double>{0.05, 0.1, 0.2, 5.0, 10.0, 20.0});
    quant::CalibrationEntry entry = *table.find(trial.op);
    entry.threshold *= factor;
    entry.min *= factor;
    entry.max *= factor;
    table.set(entry);
    std::ostringstream fault;
    fault << "threshold x" << factor;
    trial.fault = fault.str();
  } else {
    delta = pick(rng, std::vector<int64_t>{-2, -1, 1, 2});
    // Some of the output channels (at least one), as a bug in a per-channel table would.
    auto clean = cli::lowerCopy(*s.top, s.lowering(s.table, {}));
    if (!clean)
      return clean.takeError();
    size_t n = static_cast<size_t>(
        shiftedOp(**clean, trial.op)->getAttrOfType<mlir::DenseI64ArrayAttr>("rshift").size());
    channels.resize(n);
    size_t hit = 0;
    for (size_t i = 0; i < n; ++i)
      hit += (channels[i] = std::bernoulli_distribution(0.5)(rng));
    if (hit == 0)
      channels[std::uniform_int_distribution<size_t>(0, n - 1)(rng)] = true, hit = 1;
    trial.fault = "shift " + std::string(delta > 0 ? "+" : "") + std::to_string(delta) + " on " +
                  std::to_string(hit) + "/" + std::to_string(n) + " channel(s)";
  }
  driver::Relower relower =
      [&](const quant::QuantizeTable &floatOps) -> llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> {
    auto module = cli::lowerCopy(*s.top, s.lowering(table, floatOps));
    if (!module || kind != Kind::Shift)
      return module;
    // The bug follows the op into every lowering where it is still INT8.
    if (mlir::Operation *op = shiftedOp(**module, trial.op)) {
      llvm::SmallVector<int64_t> shifts(op->getAttrOfType<mlir::DenseI64ArrayAttr>("rshift").asArrayRef());
      for (size_t i = 0; i < shifts.size() && i < channels.size(); ++i)
        if (channels[i])
          shifts[i] = std::max<int64_t>(0, shifts[i] + delta);
      op->setAttr("rshift", mlir::DenseI64ArrayAttr::get(op->getContext(), shifts));
    }
    return module;
  };

  auto finish = [&](Trial::Result result) {
    trial.result = result;
    // Every module of the trial is gone: drop the weights their lowerings made.
    top::clearWeightCache();
    return trial;
  };
  {
    auto tpu = relower({});
    if (!tpu)
      return tpu.takeError();
    if (kind == Kind::Threshold && arithmetic(**tpu) == s.cleanArithmetic)
      return finish(Trial::NoEffect);
    auto evaluated = s.evaluate(**tpu);
    if (!evaluated)
      return evaluated.takeError();
    std::vector<driver::LayerStats> layers = evaluated->aggregate.layers();
    bool visible = false;
    for (const driver::LayerStats &layer : layers)
      for (const driver::LayerStats &before : s.clean)
        if (before.name == layer.name && driver::statsPass(before.accumulated, s.model.tolerance) &&
            !driver::statsPass(layer.accumulated, s.model.tolerance))
          visible = true;
    if (!visible)
      return finish(Trial::NotVisible);
    // The debugger, as deploy --find_divergent runs it: the rule, then float re-runs on the worst samples.
    std::vector<size_t> order(evaluated->aggregate.size());
    std::iota(order.begin(), order.end(), 0);
    const auto &results = evaluated->aggregate.samples();
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return results[a].outputCosine < results[b].outputCosine; });
    driver::DivergentSearch search;
    search.top = *s.top;
    search.relower = relower;
    search.source = *s.top;
    search.floatMode = quant::QuantMode::F16;
    search.tolerance = s.model.tolerance;
    search.candidates = s.model.candidates;
    search.loader = s.loader.get();
    for (size_t i = 0; i < std::min(s.model.gainSamples, order.size()); ++i)
      search.gainSamples.push_back(s.model.samples[order[i]]);
    auto record =
        driver::findFirstDivergent(layers, static_cast<int64_t>(results.size()), s.graph, search, {});
    if (!record)
      return record.takeError();
    for (const driver::DivergentCandidate &c : record->candidates) {
      trial.candidates.push_back(c.name);
      char gains[64] = "-";
      if (c.measured)
        std::snprintf(gains, sizeof(gains), "%+.4f/%+.4f", c.gain, c.outputGain);
      trial.gains.push_back(gains);
    }
    trial.named = trial.candidates.empty() ? "" : trial.candidates.front();
  }
  bool hit =
      !trial.named.empty() && (trial.named == trial.op || llvm::is_contained(trial.neighbours, trial.named));
  return finish(hit ? Trial::Hit : Trial::Miss);
}

} // namespace tpuc::testing::fault
