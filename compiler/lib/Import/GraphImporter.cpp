//===- GraphImporter.cpp - Builds Top IR from an ONNX graph ---------------===//
// Walks the needed nodes in graph order: folds what is known at import time, converts the rest to Top
// ops whose shapes are inferred as soon as they are built, and materializes constants on first use.
//===----------------------------------------------------------------------===//
#include "GraphImporter.h"

#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Dialect/Top/WeightStore.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

#include <deque>
#include <functional>

using namespace mlir;
using namespace tpuc::top;

namespace tpuc::importer {

const OpTable &opTable() {
  static const OpTable table = [] {
    OpTable t;
    addNNConverters(t);
    addElementwiseConverters(t);
    addShapeConverters(t);
    addLossConverters(t);
    addCompositeConverters(t);
    addRecurrentConverters(t);
    addLoopConverters(t);
    addFolders(t);
    return t;
  }();
  return table;
}

namespace {
std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t k = 0; k < shape.size(); ++k)
    text += (k ? "," : "") + std::to_string(shape[k]);
  return text + "]";
}

/// The static shape ONNX inferred for a tensor, if it inferred one.
std::optional<std::vector<int64_t>> onnxStaticShape(const onnx::TypeProto *type) {
  if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape())
    return std::nullopt;
  std::vector<int64_t> shape;
  for (const auto &dim : type->tensor_type().shape().dim()) {
    // A symbolic extent is not static; neither is a negative one (invalid ONNX). Zero stays: a declared
    // empty result (a slice starting past the end) is a shape the importer can take.
    if (!dim.has_dim_value() || dim.dim_value() < 0)
      return std::nullopt;
    shape.push_back(dim.dim_value());
  }
  return shape;
}
} // namespace

GraphImporter::GraphImporter(LoadedModel &model, func::FuncOp func, std::string &diagnostic)
    : model_(model), func_(func), builder_(func.getContext()), diagnostic_(diagnostic) {
  builder_.setInsertionPointToEnd(&func.getBody().front());
  const onnx::GraphProto &graph = model_.proto.graph();
  for (const auto &init : graph.initializer()) {
    tensors_[init.name()].initializer = &init;
    takenNames_.insert(init.name());
  }
  for (const auto &input : graph.input())
    takenNames_.insert(input.name());
  for (const auto &node : graph.node())
    for (const auto &out : node.output())
      takenNames_.insert(out);
}

std::string GraphImporter::uniqueName(const std::string &name) {
  std::string candidate = name;
  for (int suffix = 1; takenNames_.count(candidate); ++suffix)
    candidate = name + "_" + std::to_string(suffix);
  takenNames_.insert(candidate);
  return candidate;
}

bool GraphImporter::selectOutputs(const std::vector<std::string> &outputs, std::string &error) {
  const onnx::GraphProto &graph = model_.proto.graph();
  std::unordered_map<std::string, int> producer;
  for (int k = 0; k < graph.node_size(); ++k)
    for (const auto &out : graph.node(k).output())
      if (!out.empty())
        producer[out] = k;
  outputs_ = outputs;
  if (outputs_.empty())
    for (const auto &out : graph.output())
      outputs_.push_back(out.name());
  std::vector<bool> needed(graph.node_size(), false);
  std::deque<std::string> work;
  for (const auto &name : outputs_) {
    bool isInput = std::find(model_.inputs.begin(), model_.inputs.end(), name) != model_.inputs.end();
    if (!producer.count(name) && !isInput && !tensors_.count(name)) {
      error = model_.path + ": --output_names: the graph has no tensor named '" + name + "'";
      return false;
    }
    work.push_back(name);
  }
  // A subgraph (If / Loop / Scan body) may read outer tensors by name without listing them as inputs of its
  // node: those are needed too.
  std::function<void(const onnx::NodeProto &)> addCaptures = [&](const onnx::NodeProto &node) {
    for (const auto &a : node.attribute()) {
      std::vector<const onnx::GraphProto *> graphs;
      if (a.has_g())
        graphs.push_back(&a.g());
      for (const auto &g : a.graphs())
        graphs.push_back(&g);
      for (const onnx::GraphProto *g : graphs)
        for (const auto &inner : g->node()) {
          for (const auto &in : inner.input())
            if (!in.empty())
              work.push_back(in);
          addCaptures(inner);
        }
    }
  };
  while (!work.empty()) {
    std::string name = work.front();
    work.pop_front();
    if (!usedNames_.insert(name).second)
      continue;
    auto it = producer.find(name);
    if (it == producer.end() || needed[it->second])
      continue;
    needed[it->second] = true;
    for (const auto &in : graph.node(it->second).input())
      if (!in.empty())
        work.push_back(in);
    addCaptures(graph.node(it->second));
  }
  for (int k = 0; k < graph.node_size(); ++k)
    if (needed[k])
      nodes_.push_back(&graph.node(k));
  return true;
}

bool GraphImporter::checkSupported(std::string &error) {
  for (const onnx::NodeProto *node : nodes_) {
    std::string name = node->name().empty() && node->output_size() ? node->output(0) : node->name();
    if (!node->domain().empty() && node->domain() != "ai.onnx") {
      error = model_.path + ": node '" + name + "' (" + node->op_type() + "): unsupported op (domain '" +
              node->domain() + "')";
      return false;
    }
    if (!opTable().count(node->op_type())) {
      error = model_.path + ": node '" + name + "' (" + node->op_type() + "): unsupported op";
      return false;
    }
  }
  return true;
}

void GraphImporter::addInput(const std::string &name, Value value) { tensors_[name].value = value; }

TensorInfo *GraphImporter::lookup(const std::string &name) {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

const HostTensor *GraphImporter::constantOf(TensorInfo &info) { return info.constant.get(); }

bool GraphImporter::run(std::vector<Value> &results, std::string &error) {
  // Decode the initializers the selected nodes read (the proto keeps its bytes for ONNX's inference).
  for (const auto &init : model_.proto.graph().initializer()) {
    if (!usedNames_.count(init.name()))
      continue;
    TensorInfo &info = tensors_[init.name()];
    if (info.value) // a graph input with a default initializer: the input wins
      continue;
    auto tensor = std::make_shared<HostTensor>();
    std::string message;
    if (!decodeTensor(init, *tensor, message)) {
      error = model_.path + ": initializer: " + message;
      return false;
    }
    info.constant = std::move(tensor);
    info.initializer = nullptr;
  }
  for (const onnx::NodeProto *node : nodes_)
    if (!importNode(*node)) {
      error = error_;
      return false;
    }
  node_ = nullptr;
  for (const auto &name : outputs_) {
    TensorInfo *info = lookup(name);
    if (info && !info->value && info->constant)
      info->value = materialize(name, *info->constant);
    if (!info || !info->value) {
      error = error_.empty() ? model_.path + ": output '" + name + "' has no value" : error_;
      return false;
    }
    results.push_back(info->value);
  }
  return true;
}

LogicalResult GraphImporter::importSubgraph(const onnx::GraphProto &subgraph, std::vector<TensorInfo> &outputs) {
  // The current node's state, restored once the subgraph's nodes are in.
  const onnx::NodeProto *node = node_;
  std::string nodeName = nodeName_, baseName = baseName_;
  std::vector<Operation *> created = created_;
  auto restore = [&] {
    node_ = node;
    nodeName_ = nodeName;
    baseName_ = baseName;
    created_ = created;
  };
  for (const auto &init : subgraph.initializer()) {
    auto tensor = std::make_shared<HostTensor>();
    std::string message;
    if (!decodeTensor(init, *tensor, message))
      return fail("subgraph '" + subgraph.name() + "': initializer: " + message);
    tensors_[init.name()].constant = std::move(tensor);
    takenNames_.insert(init.name());
  }
  for (const auto &inner : subgraph.node()) {
    for (const auto &out : inner.output())
      takenNames_.insert(out);
    std::string name = inner.name().empty() && inner.output_size() ? inner.output(0) : inner.name();
    if ((!inner.domain().empty() && inner.domain() != "ai.onnx") || !opTable().count(inner.op_type()))
      return fail("subgraph '" + subgraph.name() + "': node '" + name + "' (" + inner.op_type() + "): unsupported op");
  }
  for (const auto &inner : subgraph.node())
    if (!importNode(inner)) {
      restore();
      return failure(); // importNode reported it, naming the inner node
    }
  restore();
  outputs.clear();
  for (const auto &out : subgraph.output()) {
    TensorInfo *info = lookup(out.name());
    if (!info || (!info->value && !info->constant))
      return fail("subgraph '" + subgraph.name() + "': output '" + out.name() + "' has no value");
    outputs.push_back(*info);
  }
  return success();
}

LogicalResult GraphImporter::importBody(const onnx::GraphProto &body, const std::vector<TensorInfo> &inputs,
                                        const std::string &suffix, std::vector<TensorInfo> &outputs) {
  if (static_cast<size_t>(body.input_size()) != inputs.size())
    return fail("subgraph '" + body.name() + "' has " + std::to_string(body.input_size()) + " inputs, the node gives " +
                std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    tensors_[body.input(static_cast<int>(i)).name()] = inputs[i];
    takenNames_.insert(body.input(static_cast<int>(i)).name());
  }
  std::string outer = nameSuffix_;
  nameSuffix_ = outer + suffix;
  LogicalResult imported = importSubgraph(body, outputs);
  nameSuffix_ = outer;
  return imported;
}

LogicalResult GraphImporter::importRegion(const onnx::GraphProto &subgraph, Block &block) {
  if (static_cast<size_t>(subgraph.input_size()) < block.getNumArguments())
    return fail("subgraph '" + subgraph.name() + "' has " + std::to_string(subgraph.input_size()) +
                " inputs, the node gives " + std::to_string(block.getNumArguments()));
  // The outer graph's tensors as they are: a constant materialized inside the region is the region's, so
  // the outer graph forgets it afterwards (and materializes its own when it needs one).
  std::unordered_map<std::string, TensorInfo> outer = tensors_;
  OpBuilder::InsertionGuard guard(builder_);
  builder_.setInsertionPointToEnd(&block);
  for (BlockArgument arg : block.getArguments()) {
    const std::string &name = subgraph.input(static_cast<int>(arg.getArgNumber())).name();
    tensors_[name] = TensorInfo{arg, nullptr, nullptr};
    takenNames_.insert(name);
  }
  std::vector<TensorInfo> outputs;
  LogicalResult imported = importSubgraph(subgraph, outputs);
  SmallVector<Value> yielded;
  for (size_t k = 0; succeeded(imported) && k < outputs.size(); ++k) {
    const TensorInfo &out = outputs[k];
    yielded.push_back(out.value ? out.value
                                : materialize(subgraph.output(static_cast<int>(k)).name(), *out.constant));
    if (!yielded.back())
      imported = failure();
  }
  for (auto &[name, info] : outer)
    tensors_[name] = info;
  if (failed(imported))
    return failure();
  YieldOp::create(builder_, builder_.getUnknownLoc(), yielded);
  return success();
}

SmallVector<Value> GraphImporter::isolateRegions(ArrayRef<Region *> regions) {
  llvm::SetVector<Value> used;
  for (Region *region : regions)
    region->walk<WalkOrder::PreOrder>([&](Operation *op) {
      for (Value v : op->getOperands())
        if (!region->isAncestor(v.getParentRegion()))
          used.insert(v);
    });
  SmallVector<Value> captured;
  for (Value v : used) {
    Operation *def = v.getDefiningOp();
    bool copy = isa_and_present<WeightOp, NoneOp>(def);
    if (!copy)
      captured.push_back(v);
    for (Region *region : regions) {
      Block &entry = region->front();
      Value inside;
      if (copy) {
        OpBuilder::InsertionGuard guard(builder_);
        builder_.setInsertionPointToStart(&entry);
        inside = builder_.clone(*def)->getResult(0);
      } else {
        std::string name = resultName(v); // the argument stands for that tensor (one of a multi-result op's)
        inside = entry.addArgument(v.getType(),
                                   name.empty() ? v.getLoc() : NameLoc::get(builder_.getStringAttr(name)));
      }
      v.replaceUsesWithIf(
          inside, [&](OpOperand &use) { return region->isAncestor(use.getOwner()->getParentRegion()); });
    }
  }
  return captured;
}

LogicalResult GraphImporter::finishRegionOp(Operation *op) {
  diagnostic_.clear();
  if (failed(mlir::verify(op, /*verifyRecursively=*/false))) {
    op->erase();
    return fail(diagnostic_.empty() ? "the Top op does not verify" : diagnostic_);
  }
  if (auto shaped = dyn_cast<ShapeInterface>(op); shaped && failed(shaped.inferShapes())) {
    op->erase();
    return fail(diagnostic_.empty() ? "shape inference failed" : diagnostic_);
  }
  created_.push_back(op);
  return success();
}

bool GraphImporter::knownAtImport(const std::string &name) {
  TensorInfo *info = lookup(name);
  return info && (info->constant || info->initializer);
}

TensorInfo GraphImporter::inputInfo(size_t i) {
  TensorInfo info;
  if (const HostTensor *c = constInput(i))
    info.constant = std::make_shared<HostTensor>(*c);
  else
    info.value = input(i);
  return info;
}

bool GraphImporter::importNode(const onnx::NodeProto &node) {
  node_ = &node;
  nodeName_ = node.name().empty() ? std::string() : node.name() + nameSuffix_; // a loop body's step: name@k
  if (nodeName_.empty() || nodeNames_.count(nodeName_))
    nodeName_ = node.output_size() && !node.output(0).empty() ? node.output(0) : node.op_type();
  for (int suffix = 1; nodeNames_.count(nodeName_); ++suffix)
    nodeName_ = node.output(0) + "_" + std::to_string(suffix);
  nodeNames_.insert(nodeName_);
  baseName_ = (node.output_size() && !node.output(0).empty() ? node.output(0) : nodeName_) + nameSuffix_;
  created_.clear();
  diagnostic_.clear();

  const OpHandlers &handlers = opTable().find(node.op_type())->second;
  if (handlers.fold) {
    std::vector<HostTensor> outputs;
    auto folded = handlers.fold(*this, outputs);
    if (failed(folded))
      return false;
    if (*folded) {
      for (size_t k = 0; k < outputs.size() && k < (size_t)node.output_size(); ++k)
        setConstOutput(k, std::move(outputs[k]));
      return checkOutputs();
    }
  }
  if (!handlers.convert)
    return succeeded(fail("supported only when its inputs are known at import time, which they are not"));
  if (failed(handlers.convert(*this))) {
    if (error_.empty())
      (void)fail(diagnostic_.empty() ? "conversion failed" : diagnostic_);
    return false;
  }
  nameOutputs();
  return checkOutputs();
}

void GraphImporter::nameOutputs() {
  const onnx::NodeProto &node = *node_;
  MLIRContext *ctx = builder_.getContext();
  llvm::DenseMap<Operation *, std::vector<std::string>> outputNames;
  llvm::DenseSet<Operation *> created(created_.begin(), created_.end());
  llvm::DenseSet<Value> named;
  std::unordered_set<std::string> claimed;
  for (int k = 0; k < node.output_size(); ++k) {
    const std::string &name = node.output(k);
    auto it = name.empty() ? tensors_.end() : tensors_.find(name);
    if (it == tensors_.end() || !it->second.value)
      continue; // omitted, or known at import time (a weight of this name when used)
    Value v = it->second.value;
    auto result = dyn_cast<OpResult>(v);
    if (!result)
      continue;
    Operation *def = result.getOwner();
    claimed.insert(name);
    if (created.contains(def) && named.insert(v).second) {
      std::vector<std::string> &names = outputNames[def];
      names.resize(def->getNumResults());
      names[result.getResultNumber()] = name + nameSuffix_;
    } else {
      // Forwarded (Identity, Dropout, a no-op reshape): the value keeps its name, this one is an alias.
      def->setLoc(addAlias(def->getLoc(), result.getResultNumber(), def->getNumResults(), name + nameSuffix_,
                           nodeName_));
    }
  }
  for (Operation *op : created_) {
    auto current = dyn_cast<NameLoc>(op->getLoc());
    if (!current)
      continue;
    std::string provisional = current.getName().str();
    Location provenance = current.getChildLoc();
    std::vector<std::string> names = outputNames.lookup(op);
    names.resize(op->getNumResults());
    // The op that took output 0's name provisionally but produces no ONNX output of that name.
    if (names[0].empty())
      names[0] = claimed.count(provisional) ? uniqueName(baseName_ + "_" + op->getName().stripDialect().str())
                                            : provisional;
    bool perResult = false;
    for (size_t i = 1; i < names.size(); ++i)
      perResult |= !names[i].empty();
    if (perResult) {
      for (size_t i = 1; i < names.size(); ++i)
        if (names[i].empty())
          names[i] = uniqueName(names[0] + "_" + std::to_string(i));
    } else {
      names.resize(1);
    }
    // A node name that only repeats the tensor's name says nothing (a node without a name of its own).
    auto prov = dyn_cast<NameLoc>(provenance);
    if (prov && names.size() == 1 && prov.getName() == names[0] && isa<UnknownLoc>(prov.getChildLoc()))
      provenance = prov.getChildLoc();
    if (names.size() == 1 && provenance == current.getChildLoc() && names[0] == provisional)
      continue;
    op->setLoc(resultsLoc(ctx, names, provenance));
  }
}

bool GraphImporter::checkOutputs() {
  const onnx::NodeProto &node = *node_;
  for (int k = 0; k < node.output_size(); ++k) {
    const std::string &name = node.output(k);
    if (name.empty() || !usedNames_.count(name))
      continue;
    TensorInfo *info = lookup(name);
    if (!info || (!info->value && !info->constant))
      return succeeded(fail("output #" + std::to_string(k) + " ('" + name + "') is not supported"));
    producers_[name] = {nodeName_, node.op_type()};
  }
  return true;
}

std::unordered_set<const onnx::NodeProto *> GraphImporter::importedNodes() const {
  return std::unordered_set<const onnx::NodeProto *>(nodes_.begin(), nodes_.end());
}

bool GraphImporter::crossCheckShapes(std::string &error) {
  for (const auto &[name, producer] : producers_) {
    TensorInfo *info = lookup(name);
    std::vector<int64_t> ours;
    if (info->constant)
      ours = info->constant->shape;
    else if (auto type = dyn_cast<RankedTensorType>(info->value.getType()))
      ours = std::vector<int64_t>(type.getShape().begin(), type.getShape().end());
    auto it = model_.types.find(name);
    auto theirs = onnxStaticShape(it == model_.types.end() ? nullptr : it->second);
    if (theirs && *theirs != ours) {
      error = model_.path + ": node '" + producer.first + "' (" + producer.second + "): output '" + name +
              "' has shape " + shapeText(ours) + " in Top but ONNX infers " + shapeText(*theirs);
      return false;
    }
  }
  return true;
}

//===--- The current node -------------------------------------------------===//

bool GraphImporter::hasInput(size_t i) const {
  return i < (size_t)node_->input_size() && !node_->input((int)i).empty();
}

const HostTensor *GraphImporter::constInput(size_t i) {
  if (!hasInput(i))
    return nullptr;
  TensorInfo *info = lookup(node_->input((int)i));
  return info ? constantOf(*info) : nullptr;
}

bool GraphImporter::allInputsConstant() {
  for (int k = 0; k < node_->input_size(); ++k)
    if (hasInput(k) && !constInput(k))
      return false;
  return true;
}

std::vector<int64_t> GraphImporter::inputShape(size_t i) {
  if (const HostTensor *c = constInput(i))
    return c->shape;
  if (!hasInput(i))
    return {};
  TensorInfo *info = lookup(node_->input((int)i));
  if (info && info->value)
    if (auto type = dyn_cast<RankedTensorType>(info->value.getType()))
      return std::vector<int64_t>(type.getShape().begin(), type.getShape().end());
  return {};
}

Type GraphImporter::inputElemType(size_t i) {
  if (const HostTensor *c = constInput(i))
    return topElemType(c->dtype);
  TensorInfo *info = hasInput(i) ? lookup(node_->input((int)i)) : nullptr;
  if (info && info->value)
    return elementTypeOf(info->value);
  return builder_.getF32Type();
}

Value GraphImporter::input(size_t i) {
  if (!hasInput(i)) {
    (void)fail("input #" + std::to_string(i) + " is missing");
    return {};
  }
  const std::string &name = node_->input((int)i);
  TensorInfo *info = lookup(name);
  if (!info || (!info->value && !info->constant)) {
    (void)fail("input '" + name + "' has no producer");
    return {};
  }
  if (!info->value)
    info->value = materialize(name, *info->constant);
  return info->value;
}

Value GraphImporter::optionalInput(size_t i) { return hasInput(i) ? input(i) : none(); }

Value GraphImporter::none() {
  if (!none_) {
    OpBuilder::InsertionGuard guard(builder_);
    builder_.setInsertionPointToStart(&func_.getBody().front());
    none_ = NoneOp::create(builder_, builder_.getUnknownLoc(), builder_.getNoneType()).getOutput();
  }
  return none_;
}

bool GraphImporter::outputUsed(size_t i) const {
  return i < (size_t)node_->output_size() && !node_->output((int)i).empty() &&
         usedNames_.count(node_->output((int)i));
}

std::optional<std::vector<int64_t>> GraphImporter::declaredShape(size_t i) const {
  if (i >= (size_t)node_->output_size() || node_->output((int)i).empty())
    return std::nullopt;
  auto it = model_.types.find(node_->output((int)i));
  return onnxStaticShape(it == model_.types.end() ? nullptr : it->second);
}

//===--- Attributes -------------------------------------------------------===//

const onnx::AttributeProto *GraphImporter::attr(StringRef name) const {
  for (const auto &a : node_->attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}
bool GraphImporter::hasAttr(StringRef name) const { return attr(name) != nullptr; }
int64_t GraphImporter::attrInt(StringRef name, int64_t fallback) const {
  const auto *a = attr(name);
  return a ? a->i() : fallback;
}
double GraphImporter::attrFloat(StringRef name, double fallback) const {
  const auto *a = attr(name);
  return a ? a->f() : fallback;
}
std::string GraphImporter::attrString(StringRef name, StringRef fallback) const {
  const auto *a = attr(name);
  return a ? a->s() : fallback.str();
}
std::vector<int64_t> GraphImporter::attrInts(StringRef name) const {
  const auto *a = attr(name);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>();
}
std::vector<float> GraphImporter::attrFloats(StringRef name) const {
  const auto *a = attr(name);
  return a ? std::vector<float>(a->floats().begin(), a->floats().end()) : std::vector<float>();
}

//===--- Building ---------------------------------------------------------===//

Location GraphImporter::loc(StringRef suffix) {
  MLIRContext *ctx = builder_.getContext();
  // The provenance is the name the op had when ops were named after ONNX nodes.
  auto node = NameLoc::get(builder_.getStringAttr(nodeName_));
  if (suffix.empty())
    return tensorLoc(ctx, baseName_, node);
  auto old = NameLoc::get(builder_.getStringAttr(nodeName_ + "_" + suffix.str()), node);
  return tensorLoc(ctx, uniqueName(baseName_ + "_" + suffix.str()), old);
}

Type GraphImporter::topElemType(int32_t dtype) {
  MLIRContext *ctx = builder_.getContext();
  switch (dtype) {
  case onnx::TensorProto::BOOL:
    return builder_.getI1Type();
  case onnx::TensorProto::INT8:
    return builder_.getI8Type();
  case onnx::TensorProto::INT16:
    return builder_.getI16Type();
  case onnx::TensorProto::INT32:
    return builder_.getI32Type();
  case onnx::TensorProto::INT64:
    return builder_.getI64Type();
  case onnx::TensorProto::UINT8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case onnx::TensorProto::UINT16:
    return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case onnx::TensorProto::UINT32:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case onnx::TensorProto::UINT64:
    return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  default:
    return builder_.getF32Type();
  }
}

Type GraphImporter::outputElemType(size_t i) {
  // A type the model declares (graph outputs) wins; otherwise ONNX's typing rules of the op.
  if (i < (size_t)node_->output_size()) {
    auto it = model_.types.find(node_->output((int)i));
    if (it != model_.types.end() && it->second->has_tensor_type() && it->second->tensor_type().elem_type())
      return topElemType(it->second->tensor_type().elem_type());
  }
  static const llvm::StringSet<> kIndexOps = {"Shape", "Size", "ArgMax", "ArgMin", "NonZero"};
  static const llvm::StringSet<> kBoolOps = {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual",
                                             "And",   "Or",   "Xor",         "Not",     "IsNaN",
                                             "IsInf"};
  const std::string &op = node_->op_type();
  if (kIndexOps.contains(op) || (op == "TopK" && i == 1) || (op == "Unique" && i >= 1) ||
      (op == "MaxPool" && i == 1))
    return builder_.getI64Type();
  if (kBoolOps.contains(op) || (op == "Dropout" && i == 1))
    return builder_.getI1Type();
  // Integer arithmetic accumulates in int32; (de)quantization changes the type (the output's is the zero
  // point's, uint8 without one).
  if (op == "ConvInteger" || op == "MatMulInteger")
    return builder_.getI32Type();
  if (op == "DequantizeLinear")
    return builder_.getF32Type();
  auto u8 = [&] { return IntegerType::get(builder_.getContext(), 8, IntegerType::Unsigned); };
  if (op == "QuantizeLinear")
    return hasInput(2) ? inputElemType(2) : u8();
  if (op == "DynamicQuantizeLinear")
    return i == 1 ? Type(builder_.getF32Type()) : Type(u8());
  if ((op == "QLinearConv" || op == "QLinearMatMul") && hasInput(7))
    return inputElemType(7);
  if (op == "Cast")
    return topElemType((int32_t)attrInt("to", onnx::TensorProto::FLOAT));
  if (op == "CastLike")
    return inputElemType(1);
  if (op == "Where")
    return inputElemType(1);
  return hasInput(0) ? inputElemType(0) : builder_.getF32Type();
}

Type GraphImporter::elementTypeOf(Value value) {
  if (auto shaped = dyn_cast<ShapedType>(value.getType()))
    return shaped.getElementType();
  return value.getType();
}

Operation *GraphImporter::createOp(StringRef name, StringRef suffix, ValueRange operands,
                                   ArrayRef<NamedAttribute> attrs, ArrayRef<Type> elemTypes) {
  SmallVector<Type> types;
  for (Type elem : elemTypes)
    types.push_back(UnrankedTensorType::get(elem));
  return createTyped(name, suffix, operands, attrs, types);
}

Operation *GraphImporter::createTyped(StringRef name, StringRef suffix, ValueRange operands,
                                      ArrayRef<NamedAttribute> attrs, ArrayRef<Type> types) {
  if (llvm::any_of(operands, [](Value v) { return !v; }))
    return nullptr; // an operand already failed and reported why
  OperationState state(loc(suffix), name);
  state.addOperands(operands);
  state.addAttributes(attrs);
  state.addTypes(types);
  Operation *op = builder_.create(state);
  diagnostic_.clear();
  if (failed(mlir::verify(op, /*verifyRecursively=*/false))) {
    op->erase();
    (void)fail(diagnostic_.empty() ? "the Top op does not verify" : diagnostic_);
    return nullptr;
  }
  if (auto shaped = dyn_cast<ShapeInterface>(op); shaped && failed(shaped.inferShapes())) {
    op->erase();
    (void)fail(diagnostic_.empty() ? "shape inference failed" : diagnostic_);
    return nullptr;
  }
  created_.push_back(op);
  return op;
}

Value GraphImporter::sliceAxis(Value value, int64_t axis, int64_t begin, int64_t end, StringRef suffix,
                               int64_t step) {
  if (!value)
    return {};
  ArrayRef<int64_t> shape = getShape(value);
  if (begin == 0 && end == shape[axis] && step == 1)
    return value;
  std::vector<int64_t> offset(shape.size(), 0), steps(shape.size(), 1), ends(shape.begin(), shape.end());
  offset[axis] = begin;
  ends[axis] = end;
  steps[axis] = step;
  return build<SliceOp>(suffix, {value}, {i64s("offset", offset), i64s("steps", steps), i64s("ends", ends)},
                        elementTypeOf(value));
}

Value GraphImporter::reshape(Value value, ArrayRef<int64_t> shape, StringRef suffix) {
  if (!value)
    return {};
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (type && type.getShape() == shape)
    return value;
  OperationState state(loc(suffix), ReshapeOp::getOperationName());
  state.addOperands(value);
  state.addTypes(RankedTensorType::get(shape, elementTypeOf(value)));
  Operation *op = builder_.create(state);
  diagnostic_.clear();
  if (failed(mlir::verify(op, /*verifyRecursively=*/false))) {
    op->erase();
    (void)fail(diagnostic_.empty() ? "invalid reshape" : diagnostic_);
    return {};
  }
  created_.push_back(op);
  return op->getResult(0);
}

Value GraphImporter::materialize(const std::string &tensorName, const HostTensor &tensor) {
  std::string name = tensorName.empty() ? "const_" + std::to_string(constantCount_++) : tensorName;
  Location l = NameLoc::get(builder_.getStringAttr(name));
  Type elem = topElemType(tensor.dtype);
  if (!tensor.isFloat() && tensor.numel() <= WeightOp::kMaxInlineElements) {
    auto type = RankedTensorType::get(tensor.shape, elem);
    unsigned width = elem.getIntOrFloatBitWidth();
    bool isSigned = !elem.isUnsignedInteger() && width > 1;
    SmallVector<APInt> values;
    for (int64_t v : tensor.i)
      values.emplace_back(width, (uint64_t)v, isSigned, /*implicitTrunc=*/true);
    auto attr = DenseElementsAttr::get(type, values);
    return WeightOp::create(builder_, l, type, builder_.getStringAttr(name), attr).getOutput();
  }
  std::vector<float> data;
  const std::vector<float> *source = &tensor.f;
  if (!tensor.isFloat()) {
    data.assign(tensor.i.begin(), tensor.i.end());
    source = &data;
  }
  diagnostic_.clear();
  auto weight = createWeightF32(builder_, l, name, tensor.shape, *source);
  if (failed(weight)) {
    (void)fail(diagnostic_.empty() ? "cannot create weight '" + name + "'" : diagnostic_);
    return {};
  }
  return weight->getOutput();
}

void GraphImporter::setOutput(size_t i, Value value) {
  if (i < (size_t)node_->output_size() && !node_->output((int)i).empty())
    tensors_[node_->output((int)i)].value = value;
}

void GraphImporter::setConstOutput(size_t i, HostTensor tensor) {
  if (i < (size_t)node_->output_size() && !node_->output((int)i).empty())
    tensors_[node_->output((int)i)].constant = std::make_shared<const HostTensor>(std::move(tensor));
}

LogicalResult GraphImporter::fail(const Twine &reason) {
  if (!error_.empty())
    return failure(); // keep the first, most specific message
  std::string where = node_ ? "node '" + nodeName_ + "' (" + node_->op_type() + "): " : "";
  error_ = model_.path + ": " + where + oneLine(reason.str());
  return failure();
}

FailureOr<int64_t> GraphImporter::normalizeAxis(int64_t axis, int64_t rank, StringRef what) {
  int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized >= rank) {
    (void)fail("'" + what + "' " + std::to_string(axis) + " is out of range for rank " +
               std::to_string(rank));
    return failure();
  }
  return normalized;
}

} // namespace tpuc::importer
