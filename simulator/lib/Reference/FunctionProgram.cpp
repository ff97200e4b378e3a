//===- FunctionProgram.cpp - A function numbered for running op by op -----===//
#include "tpuc/Simulator/FunctionProgram.h"

#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Simulator/ThreadPool.h"
#include "tpuc/Support/FloatConvert.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>

using namespace mlir;

namespace tpuc::sim {
namespace {
llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<func::FuncOp> selectFunction(ModuleOp module, StringRef function) {
  if (!function.empty()) {
    if (auto func = module.lookupSymbol<func::FuncOp>(function))
      return func;
    return makeError("the module has no function '" + function + "'");
  }
  if (auto main = module.lookupSymbol<func::FuncOp>("main"); main && main.isPublic())
    return main;
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  if (funcs.size() == 1)
    return funcs.front();
  return makeError("the module has " + Twine(funcs.size()) +
                   " functions and no public 'main'; name the function to run");
}
} // namespace

/// Numbers `block` into `p` (arguments, then op results; `p.func` set): steps, result ids, names from one
/// naming of the whole function (so a region's tensors keep the names they have everywhere), last uses.
/// `what` is "function '<name>'" or "the region", for messages.
llvm::Error FunctionProgram::number(FunctionProgram &p, Block &block, const Twine &what) {
  DenseMap<Value, int> ids;
  auto addValue = [&](Value v, int step) {
    ids[v] = p.values.size();
    p.values.push_back(v);
    auto type = dyn_cast<RankedTensorType>(v.getType());
    p.sizes.push_back(type && type.hasStaticShape() ? type.getNumElements() : -1);
    p.producer.push_back(step);
  };
  p.numArguments = block.getNumArguments();
  for (BlockArgument arg : block.getArguments())
    addValue(arg, -1);
  if (block.empty() || !block.back().hasTrait<OpTrait::IsTerminator>())
    return makeError(what + " does not end with a terminator");
  for (Operation &op : block.without_terminator()) {
    ProgramStep step;
    step.op = &op;
    for (Value operand : op.getOperands()) {
      auto it = ids.find(operand);
      if (it == ids.end())
        return makeError("op '" + op.getName().getStringRef() +
                         "' uses a value defined after it or outside " + what);
      step.operands.push_back(it->second);
    }
    for (Value result : op.getResults()) {
      step.results.push_back(p.values.size());
      addValue(result, p.steps.size());
    }
    p.steps.push_back(std::move(step));
  }
  for (Value v : block.getTerminator()->getOperands()) {
    auto it = ids.find(v);
    if (it == ids.end())
      return makeError(what + " returns a value defined outside it");
    p.resultIds.push_back(it->second);
  }

  // The function's arguments and every op result in it, regions included, named together.
  std::vector<Value> all(p.func.getArguments().begin(), p.func.getArguments().end());
  p.func.getBody().walk<WalkOrder::PreOrder>(
      [&](Operation *op) { all.insert(all.end(), op->getResults().begin(), op->getResults().end()); });
  bool isBody = &block == &p.func.getBody().front();
  if (!isBody)
    all.insert(all.end(), block.getArguments().begin(), block.getArguments().end());
  top::TensorNaming naming = top::nameTensors(p.func, all);
  DenseMap<Value, size_t> position;
  for (auto [i, v] : llvm::enumerate(all))
    position[v] = i;
  p.names.assign(p.values.size(), "");
  p.aliases.assign(p.values.size(), {});
  DenseMap<size_t, int> idOf;
  for (auto [id, v] : llvm::enumerate(p.values)) {
    size_t at = position.lookup(v);
    idOf[at] = id;
    p.names[id] = naming.names[at];
  }
  for (auto &[at, alias] : naming.aliases)
    if (auto it = idOf.find(at); it != idOf.end())
      p.aliases[it->second].push_back(std::move(alias));
  if (isBody) {
    p.resultNames = std::move(naming.results);
  } else {
    // A region's arguments are named after where they come from (their location), its results after the
    // values yielded.
    for (BlockArgument arg : block.getArguments())
      if (p.names[arg.getArgNumber()].empty()) {
        std::string name = top::locationName(arg.getLoc());
        p.names[arg.getArgNumber()] = name.empty() ? "arg_" + std::to_string(arg.getArgNumber()) : name;
      }
    for (int id : p.resultIds)
      p.resultNames.push_back(p.names[id]);
  }

  // A value dies after its last reader; an unread result where it is born. Returned values live on.
  p.lastUse.assign(p.values.size(), -1);
  for (auto [index, step] : llvm::enumerate(p.steps)) {
    for (int id : step.operands)
      p.lastUse[id] = index;
    for (int id : step.results)
      p.lastUse[id] = index;
  }
  for (int id : p.resultIds)
    p.lastUse[id] = -1;
  for (size_t id = p.numArguments; id < p.values.size(); ++id)
    if (p.lastUse[id] >= 0)
      p.steps[p.lastUse[id]].freeAfter.push_back(id);
  return llvm::Error::success();
}

llvm::Expected<FunctionProgram> FunctionProgram::build(ModuleOp module, StringRef function) {
  auto selected = selectFunction(module, function);
  if (!selected)
    return selected.takeError();
  FunctionProgram p;
  p.func = *selected;
  if (p.func.isExternal() || !p.func.getBody().hasOneBlock())
    return makeError("function '" + p.func.getSymName() + "' must have a body of one block");
  if (auto err = number(p, p.func.getBody().front(), "the function"))
    return std::move(err);
  return p;
}

llvm::Expected<FunctionProgram> FunctionProgram::buildBlock(Block &block) {
  FunctionProgram p;
  Operation *parent = block.getParentOp();
  p.func = parent ? dyn_cast<func::FuncOp>(parent) : func::FuncOp();
  if (!p.func && parent)
    p.func = parent->getParentOfType<func::FuncOp>();
  if (!p.func)
    return makeError("the region is not inside a function");
  if (auto err = number(p, block, "the region"))
    return std::move(err);
  return p;
}

std::vector<int64_t> FunctionProgram::shape(int id) const {
  auto type = dyn_cast<ShapedType>(values[id].getType());
  if (!type || !type.hasRank())
    return {};
  return std::vector<int64_t>(type.getShape().begin(), type.getShape().end());
}

StringRef FunctionProgram::stepName(const ProgramStep &step) const {
  return step.results.empty() ? StringRef() : StringRef(names[step.results.front()]);
}

llvm::Error FunctionProgram::opError(const ProgramStep &step, const Twine &message) const {
  std::string loc;
  llvm::raw_string_ostream os(loc);
  step.op->getLoc().print(os);
  std::string name = step.results.empty() ? std::string("?") : names[step.results.front()];
  return makeError("'" + name + "' (" + step.op->getName().getStringRef() + " at " + loc + "): " + message);
}

FunctionRunner::FunctionRunner(ModuleOp module, StringRef function) : module(module) {
  auto built = FunctionProgram::build(module, function);
  if (!built) {
    setupError = llvm::toString(built.takeError());
    return;
  }
  program = std::move(*built);
  inputBuffers.resize(program.numArguments);
}

FunctionRunner::~FunctionRunner() = default;

std::vector<int64_t> FunctionRunner::inputShape(size_t index) const {
  return index < inputBuffers.size() ? program.shape(index) : std::vector<int64_t>{};
}

llvm::Error FunctionRunner::setInput(size_t index, const Tensor &tensor) {
  if (!setupError.empty())
    return makeError(setupError);
  if (index >= inputBuffers.size())
    return makeError("input index " + Twine(index) + " is out of range: the function has " +
                     Twine(inputBuffers.size()) + " inputs");
  std::vector<int64_t> expected = inputShape(index);
  if (tensor.shape() != expected)
    return makeError("input '" + program.names[index] + "' has shape " + shapeToString(tensor.shape()) +
                     " but the function expects " + shapeToString(expected));
  Tensor f32 = tensor.dtype() == DType::F32 ? tensor : toF32Tensor(tensor);
  int64_t n = f32.numElements();
  inputBuffers[index].reset(new float[std::max<int64_t>(n, 1)]);
  if (n)
    std::memcpy(inputBuffers[index].get(), f32.data(), n * sizeof(float));
  return llvm::Error::success();
}

llvm::Error FunctionRunner::setInput(StringRef name, const Tensor &tensor) {
  if (!setupError.empty())
    return makeError(setupError);
  llvm::ArrayRef<std::string> names = program.argumentNames();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name || ("input_" + std::to_string(i)) == name)
      return setInput(i, tensor);
  std::string known;
  for (const std::string &n : names)
    known += (known.empty() ? "" : ", ") + n;
  return makeError("the function has no input '" + name + "' (inputs: " + known + ")");
}

llvm::Error FunctionRunner::setInputs(const NpzFile &npz) {
  if (!setupError.empty())
    return makeError(setupError);
  llvm::ArrayRef<std::string> names = program.argumentNames();
  for (size_t i = 0; i < names.size(); ++i) {
    std::string alias = "input_" + std::to_string(i);
    const std::string &name = npz.has(names[i]) ? names[i] : alias;
    if (!npz.has(name))
      return makeError("missing input '" + names[i] + "' (argument " + Twine(i) + ") in the input file");
    if (auto err = setInput(i, npz.get(name)))
      return err;
  }
  return llvm::Error::success();
}

llvm::Error FunctionRunner::beginRun(unsigned numThreads) {
  if (!setupError.empty())
    return makeError(setupError);
  for (size_t i = 0; i < inputBuffers.size(); ++i)
    if (!inputBuffers[i])
      return makeError("missing input '" + program.names[i] + "' (argument " + Twine(i) + ")");
  if (numThreads)
    ThreadPool::setGlobalThreads(numThreads);
  lastOutputs = NpzFile();
  lastTensors = NpzFile();
  lastStats = RunStats();
  return llvm::Error::success();
}

} // namespace tpuc::sim
