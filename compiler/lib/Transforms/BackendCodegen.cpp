//===- BackendCodegen.cpp - Tpu module -> .tpum model file; runBackend ----===//
// Codegen of an addressed module (tpu-codegen), and the backend entry point `tpuc deploy` calls.
//===----------------------------------------------------------------------===//
#include "tpuc/Codegen/ModelCodegen.h"

#include "tpuc/Backend/Artifacts.h"
#include "tpuc/Backend/FromMlir.h"
#include "tpuc/Codegen/Codegen.h"
#include "tpuc/Codegen/Elements.h"
#include "tpuc/Dialect/Top/ModuleState.h"
#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Tpu/TpuOps.h"
#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/Support/Npz.h"
#include "tpuc/Transforms/BackendPlan.h"
#include "tpuc/Transforms/Passes.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"

#include <cmath>
#include <map>
#include <set>
#include <memory>

namespace tpuc {
#define GEN_PASS_DEF_TPUCODEGEN
#include "tpuc/Transforms/Passes.h.inc"
} // namespace tpuc

using namespace mlir;
namespace be = tpuc::backend;

namespace tpuc {

namespace {

/// Collects diagnostics as text while alive.
class DiagCollector {
public:
  explicit DiagCollector(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &d) {
          if (d.getSeverity() == DiagnosticSeverity::Error) {
            std::string loc;
            llvm::raw_string_ostream os(loc);
            d.getLocation().print(os);
            text += (text.empty() ? "" : "\n") + loc + ": " + d.str();
          }
          return success();
        }) {}
  llvm::Error error(const std::string &fallback) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), text.empty() ? fallback : text);
  }
  std::string text;

private:
  ScopedDiagnosticHandler handler;
};

/// The bytes of weight `op` as graph value `v` stores them: the weight
/// file's raw array when its element size matches, else the f32 values
/// converted.
FailureOr<std::vector<uint8_t>> weightBytes(top::WeightOp op, const be::Value &v,
                                            std::map<std::string, std::unique_ptr<NpzFile>> &files) {
  ModuleOp module = op->getParentOfType<ModuleOp>();
  if (!op.getValue())
    if (auto file = module->getAttrOfType<StringAttr>(top::TopDialect::kWeightFileAttr)) {
      auto &npz = files[file.str()];
      if (!npz) {
        Result<NpzFile> read = NpzFile::tryRead(file.str());
        npz = std::make_unique<NpzFile>(read ? std::move(*read) : NpzFile());
        if (!read)
          npz->set("", Tensor()); // unreadable: fall back to readWeightF32's diagnostics
      }
      if (npz->has(op.getName())) {
        const Tensor &t = npz->get(op.getName());
        if (t.numElements() == v.elements() && static_cast<int64_t>(t.byteSize()) == v.bytes()) {
          const uint8_t *p = t.data();
          return std::vector<uint8_t>(p, p + t.byteSize());
        }
      }
    }
  auto vals = top::readWeightF32(op);
  if (failed(vals))
    return failure();
  std::vector<uint8_t> bytes(vals->size() * be::dtypeBytes(v.dtype));
  codegen::encodeElements(vals->data(), static_cast<int64_t>(vals->size()), v.dtype, bytes.data());
  return bytes;
}

void quantOf(Type t, codegen::TensorDesc &d) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt)
    return;
  if (auto q = dyn_cast<quant::UniformQuantizedType>(rt.getElementType())) {
    d.scale = q.getScale();
    d.zeroPoint = q.getZeroPoint();
  }
}

/// `op` alone in `func.func @op(<its operands>) -> <its results>`, printed in generic form without
/// locations: what a TIU command of the op computes (OpInfo::program).
std::string opProgram(Operation *op) {
  MLIRContext *ctx = op->getContext();
  OpBuilder b(ctx);
  OwningOpRef<ModuleOp> holder = ModuleOp::create(UnknownLoc::get(ctx));
  b.setInsertionPointToEnd(holder->getBody());
  auto fn = func::FuncOp::create(b, UnknownLoc::get(ctx), "op",
                                 b.getFunctionType(op->getOperandTypes(), op->getResultTypes()));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  IRMapping map;
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    map.map(v, entry->getArgument(i));
  Operation *clone = b.clone(*op, map);
  func::ReturnOp::create(b, UnknownLoc::get(ctx), clone->getResults());
  std::string text;
  llvm::raw_string_ostream os(text);
  fn->print(os, OpPrintingFlags().printGenericOpForm());
  return text;
}

/// Fills the op table's programs, operand maps and tensor names (OpInfo) from the Tpu ops, with the
/// split of operands the backend graph made (activations first, then weights; `none` skipped).
void describeOps(const ModulePlan &mp, const std::map<int, std::vector<int>> &markerCopies,
                 codegen::Stage &stage) {
  // Tensor names as every dump names them (TensorNames.h), so model-file dumps line up with the Tpu
  // simulator's; ops inside control-flow regions included.
  func::FuncOp func = mp.func;
  Block &body = func.getBody().front();
  std::vector<Value> values(body.getArguments().begin(), body.getArguments().end());
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op != func.getOperation())
      values.insert(values.end(), op->getResults().begin(), op->getResults().end());
  });
  top::TensorNaming naming = top::nameTensors(func, values);
  llvm::DenseMap<Value, std::string> nameOf;
  for (size_t i = 0; i < values.size() && i < naming.names.size(); ++i)
    nameOf[values[i]] = naming.names[i];
  llvm::DenseMap<Value, std::vector<std::string>> aliasesOf;
  for (const auto &[index, alias] : naming.aliases)
    aliasesOf[values[index]].push_back(alias);
  // A region's block argument is the value it stands for: an If's input, a loop's slot or capture.
  auto outer = [](Value v) {
    while (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *parent = arg.getOwner()->getParentOp();
      unsigned k = arg.getArgNumber();
      if (auto ifOp = dyn_cast_or_null<tpu::IfOp>(parent))
        v = ifOp.getInputs()[k];
      else if (auto loop = dyn_cast_or_null<tpu::LoopOp>(parent))
        v = k < loop.getNumResults() ? Value(loop.getResult(k)) : loop.getCaptures()[k - loop.getNumResults()];
      else
        break;
    }
    return v;
  };
  auto dumpName = [&](Value v) {
    v = outer(v);
    if (auto input = dyn_cast_or_null<top::InputOp>(v.getDefiningOp()))
      v = input.getResult();
    return nameOf.lookup(v);
  };
  for (size_t i = 0; i < stage.ops.size() && i < mp.opOf.size(); ++i) {
    Operation *op = mp.opOf[i];
    const be::Op &bop = mp.graph.ops[i];
    codegen::OpInfo &info = stage.ops[i];
    if (bop.control != be::Control::None) {
      // A marker computes nothing (its commands are DDR copies and barriers): no program. Its k-th Copy
      // command (in stream order) reads operandNames[k] and writes resultNames[k] ("" for a LoopBack hold
      // buffer, which no dump names): its copies in Codegen's entry order (StageCode::markerCopies),
      // those it issued.
      std::vector<std::pair<Value, Value>> entries; // (read, written); null: a hold buffer
      auto add = [&](ValueRange from, ValueRange to) {
        for (auto [f, t] : llvm::zip(from, to))
          entries.emplace_back(f, t);
      };
      auto ifOp = dyn_cast<tpu::IfOp>(op);
      auto loop = dyn_cast<tpu::LoopOp>(op);
      switch (bop.control) {
      case be::Control::IfElse:
        add(ifOp.getThenBranch().front().getTerminator()->getOperands(), ifOp.getResults());
        break;
      case be::Control::IfJoin:
        add(ifOp.getElseBranch().front().getTerminator()->getOperands(), ifOp.getResults());
        break;
      case be::Control::LoopInit:
        add(loop.getInits(), loop.getResults());
        break;
      case be::Control::LoopBack:
        for (bool hold : mp.graph.loopHolds(static_cast<int>(i)))
          if (hold)
            entries.emplace_back();
        add(loop.getBody().front().getTerminator()->getOperands(), loop.getResults());
        break;
      default:
        break;
      }
      if (auto issued = markerCopies.find(static_cast<int>(i)); issued != markerCopies.end())
        for (int e : issued->second) {
          const auto &[from, to] = entries.at(static_cast<size_t>(e));
          info.operandNames.push_back(from ? dumpName(from) : std::string());
          info.resultNames.push_back(to ? dumpName(to) : std::string());
        }
      continue;
    }
    info.program = opProgram(op);
    size_t input = 0, weight = 0;
    for (Value v : op->getOperands()) {
      if (isa<NoneType>(v.getType())) {
        info.operandMap.push_back(-1);
        info.operandNames.emplace_back();
        continue;
      }
      bool isWeight = isa_and_nonnull<top::WeightOp>(outer(v).getDefiningOp()); // a capture may be one
      (void)(isWeight ? bop.weights.at(weight) : bop.inputs.at(input)); // the graph saw this operand
      info.operandMap.push_back(static_cast<int32_t>(isWeight ? bop.inputs.size() + weight : input));
      (isWeight ? weight : input)++;
      info.operandNames.push_back(dumpName(v));
    }
    for (auto [k, r] : llvm::enumerate(op->getResults())) {
      info.resultNames.push_back(dumpName(r));
      for (const std::string &alias : aliasesOf.lookup(r))
        info.resultAliases.emplace_back(static_cast<uint32_t>(k), alias);
    }
  }
}

} // namespace

llvm::Expected<codegen::Model> generateModel(ModuleOp module, StringRef netName,
                                             std::vector<std::string> *weightNames) {
  DiagCollector diags(module.getContext());
  auto state = top::getModuleState(module);
  if (!state || *state != top::ModuleState::TPU_ADDRESSED)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "codegen: the module must be in state TPU_ADDRESSED (run tpu-address-assign)");
  auto optAttr = module->getAttrOfType<IntegerAttr>(backend_attr::kOpt);
  if (!optAttr)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "codegen: module has no 'tpu.opt'");
  auto mp = planModule(module, "", static_cast<int>(optAttr.getInt()), plannedCores(module));
  if (failed(mp) || failed(checkGroupAttrs(*mp)))
    return diags.error("codegen: planning failed");
  auto gmem = planModuleMemory(module, *mp);
  if (failed(gmem))
    return diags.error("codegen: DDR planning failed");
  std::vector<std::string> types;
  for (Operation *op : mp->opOf)
    types.push_back(op->getName().getStringRef().str());
  codegen::StageCode code;
  try {
    code = codegen::generateStage(mp->chip, mp->graph, mp->groups, *gmem, mp->func.getName().str(), types);
  } catch (const std::exception &e) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), e.what());
  }
  try {
    describeOps(*mp, code.markerCopies, code.stage);
  } catch (const std::out_of_range &) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "codegen: an op's operands do not match the backend graph");
  }
  // IO quantization from the function's types.
  for (size_t i = 0; i < code.stage.inputs.size() && i < mp->func.getNumArguments(); ++i)
    quantOf(mp->func.getArgument(i).getType(), code.stage.inputs[i]);
  for (size_t i = 0; i < code.stage.outputs.size() && i < mp->func.getNumResults(); ++i)
    quantOf(mp->func.getResultTypes()[i], code.stage.outputs[i]);
  // The outputs under the graph's output names, as the simulators' outputs (one per result).
  if (code.stage.outputs.size() == mp->func.getNumResults()) {
    std::vector<std::string> names = top::nameTensors(mp->func).results;
    std::set<std::string> distinct(names.begin(), names.end());
    if (distinct.size() == names.size())
      for (size_t i = 0; i < names.size(); ++i)
        code.stage.outputs[i].name = names[i];
  }
  // Weights in walk order are the graph's weight values in index order.
  std::map<int, top::WeightOp> weightOps;
  std::vector<int> weightValues;
  for (size_t i = 0; i < mp->graph.values.size(); ++i)
    if (mp->graph.values[i].isWeight)
      weightValues.push_back(static_cast<int>(i));
  size_t next = 0;
  mp->func.walk([&](top::WeightOp w) {
    if (next < weightValues.size())
      weightOps[weightValues[next++]] = w;
  });
  codegen::Model model;
  model.chip = mp->chip.name;
  std::map<std::string, std::unique_ptr<NpzFile>> files;
  for (size_t i = 0; i < code.weightValues.size(); ++i) {
    int v = code.weightValues[i];
    auto it = weightOps.find(v);
    if (it == weightOps.end())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "codegen: weight '" + mp->graph.values[v].name + "' has no top.weight");
    auto bytes = weightBytes(it->second, mp->graph.values[v], files);
    if (failed(bytes))
      return diags.error("codegen: cannot read weight '" + mp->graph.values[v].name + "'");
    code.stage.weights[i].blob =
        codegen::addBlob(model, it->second.getName().str(), bytes->data(), bytes->size());
    if (weightNames)
      weightNames->push_back(it->second.getName().str());
  }
  codegen::Net net;
  net.name = netName.empty() ? mp->func.getName().str() : netName.str();
  net.stages.push_back(std::move(code.stage));
  model.nets.push_back(std::move(net));
  if (auto problems = codegen::validateModel(model); !problems.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "codegen: " + problems.front());
  return model;
}

namespace {
void replaceAll(std::string &text, StringRef from, StringRef to) {
  if (from.empty())
    return;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to.str());
}
} // namespace

llvm::Expected<codegen::Model> reuseCompiledStage(ModuleOp lowered, const codegen::Model &compiled,
                                                  llvm::ArrayRef<std::string> weightNames, StringRef netName,
                                                  StringRef from, StringRef to) {
  auto fail = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "stage reuse: " + message);
  };
  if (compiled.nets.size() != 1 || compiled.nets[0].stages.size() != 1 ||
      compiled.nets[0].stages[0].weights.size() != weightNames.size())
    return fail("the compiled model must have one net of one stage, with a name per weight");
  func::FuncOp func;
  for (func::FuncOp f : lowered.getOps<func::FuncOp>())
    if (!f.isExternal() && !func)
      func = f;
  if (!func)
    return fail("the module has no function");
  DiagCollector diags(lowered.getContext());
  // The weights as the backend graph sees them (names, shapes, storage types), without planning.
  auto graph = be::graphFromFunc(func);
  if (failed(graph))
    return diags.error("stage reuse: cannot build the backend graph");
  std::map<std::string, int> valueOf;
  for (size_t i = 0; i < graph->values.size(); ++i)
    if (graph->values[i].isWeight)
      valueOf[graph->values[i].name] = static_cast<int>(i);
  std::map<std::string, top::WeightOp> weightOps;
  func.walk([&](top::WeightOp w) { weightOps.emplace(w.getName().str(), w); });

  codegen::Model model;
  model.chip = compiled.chip;
  std::map<std::string, std::unique_ptr<NpzFile>> files;
  // Weight by weight (not blob by blob: two weights the compiled module stored once, such as two norms
  // of ones, may differ here).
  std::vector<uint32_t> blobOf;
  for (size_t i = 0; i < weightNames.size(); ++i) {
    const codegen::BlobEntry &b = compiled.blobs.at(compiled.nets[0].stages[0].weights[i].blob);
    std::string name = weightNames[i];
    replaceAll(name, from, to);
    auto value = valueOf.find(name);
    auto op = weightOps.find(name);
    if (value == valueOf.end() || op == weightOps.end())
      return fail("no weight '" + name + "' in the module");
    auto bytes = weightBytes(op->second, graph->values[value->second], files);
    if (failed(bytes))
      return diags.error("stage reuse: cannot read weight '" + name + "'");
    if (bytes->size() != b.size)
      return fail("weight '" + name + "' has " + llvm::Twine(bytes->size()) +
                  " bytes, the compiled stage's " + llvm::Twine(b.size));
    blobOf.push_back(codegen::addBlob(model, name, bytes->data(), bytes->size()));
  }
  codegen::Net net = compiled.nets[0];
  std::string oldName = net.name;
  net.name = netName.str();
  for (codegen::Stage &stage : net.stages) {
    if (stage.name == oldName)
      stage.name = netName.str();
    for (size_t i = 0; i < stage.weights.size(); ++i)
      stage.weights[i].blob = blobOf[i];
    for (auto *list : {&stage.inputs, &stage.outputs})
      for (codegen::TensorDesc &t : *list)
        replaceAll(t.name, from, to);
    for (codegen::OpInfo &op : stage.ops) {
      for (std::string *text : {&op.name, &op.loc, &op.program})
        replaceAll(*text, from, to);
      for (auto *names : {&op.operandNames, &op.resultNames})
        for (std::string &n : *names)
          replaceAll(n, from, to);
      for (auto &alias : op.resultAliases)
        replaceAll(alias.second, from, to);
    }
  }
  model.nets.push_back(std::move(net));
  if (auto problems = codegen::validateModel(model); !problems.empty())
    return fail(problems.front());
  return model;
}

namespace {
struct TpuCodegenPass : impl::TpuCodegenBase<TpuCodegenPass> {
  using TpuCodegenBase::TpuCodegenBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (model.empty()) {
      module.emitError() << "tpu-codegen: the 'model' option (output .tpum path) is required";
      return signalPassFailure();
    }
    llvm::Expected<codegen::Model> m = generateModel(module, net);
    if (!m) {
      module.emitError() << llvm::toString(m.takeError());
      return signalPassFailure();
    }
    try {
      codegen::writeModelFile(model, *m);
    } catch (const std::exception &e) {
      module.emitError() << e.what();
      return signalPassFailure();
    }
  }
};
} // namespace

llvm::Error runBackend(ModuleOp module, const BackendOptions &options) {
  DiagCollector diags(module.getContext());
  PassManager pm(module.getContext());
  TpuLayerGroupOptions lg;
  lg.chip = options.chip;
  lg.opt = options.opt;
  lg.numCore = options.numCore;
  pm.addPass(createTpuLayerGroup(lg));
  TpuAddressAssignOptions aa;
  aa.chip = options.chip;
  aa.plan = options.planJsonPath;
  pm.addPass(createTpuAddressAssign(aa));
  TopVerifyStateOptions vs;
  vs.state = "TPU_ADDRESSED";
  pm.addPass(createTopVerifyState(vs));
  if (failed(pm.run(module)))
    return diags.error("backend: the pass pipeline failed");
  if (options.modelPath.empty())
    return llvm::Error::success();
  auto model = generateModel(module, options.netName);
  if (!model)
    return model.takeError();
  try {
    codegen::writeModelFile(options.modelPath, *model);
  } catch (const std::exception &e) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), e.what());
  }
  return llvm::Error::success();
}

} // namespace tpuc
