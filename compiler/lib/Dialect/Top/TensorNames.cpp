//===- TensorNames.cpp - Tensor names of a Top / Tpu function -------------===//
// Tensor NameLocs as TPU-MLIR writes them (with the ONNX node and aliases in their child), "<mnemonic>_<k>"
// otherwise, made unique.
//===----------------------------------------------------------------------===//
#include "tpuc/Dialect/Top/TensorNames.h"

#include "tpuc/Dialect/Top/TopOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace tpuc::top {
namespace {

/// Appends the top-level NameLocs of `loc` in order: a FusedLoc contributes those of its parts (but
/// not of an aliases group), a NameLoc's child (its provenance) nothing.
void collectNameLocs(Location loc, SmallVectorImpl<NameLoc> &out) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    out.push_back(name);
  } else if (auto fused = dyn_cast<FusedLoc>(loc)) {
    if (auto meta = dyn_cast_or_null<StringAttr>(fused.getMetadata()); meta && meta == kAliasesMetadata)
      return;
    for (Location part : fused.getLocations())
      collectNameLocs(part, out);
  } else if (auto callSite = dyn_cast<CallSiteLoc>(loc)) {
    collectNameLocs(callSite.getCallee(), out);
  }
}

bool isAliases(Location loc) {
  auto fused = dyn_cast<FusedLoc>(loc);
  auto meta = fused ? dyn_cast_or_null<StringAttr>(fused.getMetadata()) : StringAttr();
  return meta && meta == kAliasesMetadata;
}

/// Splits a tensor NameLoc's child into its provenance (the parts that are no aliases group) and the
/// aliases group's entries.
void splitChild(Location child, SmallVectorImpl<Location> &provenance, SmallVectorImpl<Location> &aliases) {
  auto take = [&](Location part) {
    if (isAliases(part))
      llvm::append_range(aliases, cast<FusedLoc>(part).getLocations());
    else if (!isa<UnknownLoc>(part))
      provenance.push_back(part);
  };
  if (auto fused = dyn_cast<FusedLoc>(child); fused && !isAliases(child) && !fused.getMetadata())
    for (Location part : fused.getLocations())
      take(part);
  else
    take(child);
}

/// Rebuilds `loc` with its `index`-th top-level NameLoc (collectNameLocs order) replaced by `fn` of it.
Location replaceNameLoc(Location loc, size_t &index, llvm::function_ref<Location(NameLoc)> fn) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return index-- == 0 ? fn(name) : loc;
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    if (isAliases(loc))
      return loc;
    SmallVector<Location> parts;
    for (Location part : fused.getLocations())
      parts.push_back(replaceNameLoc(part, index, fn));
    return FusedLoc::get(parts, fused.getMetadata(), loc->getContext());
  }
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return CallSiteLoc::get(replaceNameLoc(callSite.getCallee(), index, fn), callSite.getCaller());
  return loc;
}

/// Which of the top-level NameLocs names result `result`, or -1.
int nameLocIndex(size_t count, unsigned result, unsigned numResults) {
  if (numResults > 1 && count == numResults)
    return (int)result;
  if (count == 0 || result > 0)
    return -1;
  return (int)count - 1;
}

std::string innermostName(Location loc) {
  std::string name;
  while (auto n = dyn_cast<NameLoc>(loc)) {
    name = n.getName().str();
    loc = n.getChildLoc();
  }
  return name;
}

} // namespace

Location tensorLoc(MLIRContext *context, StringRef tensor, Location provenance) {
  return NameLoc::get(StringAttr::get(context, tensor), provenance);
}

Location tensorLoc(MLIRContext *context, StringRef tensor, StringRef node) {
  if (node.empty())
    return NameLoc::get(StringAttr::get(context, tensor));
  return NameLoc::get(StringAttr::get(context, tensor), NameLoc::get(StringAttr::get(context, node)));
}

Location resultsLoc(MLIRContext *context, ArrayRef<std::string> tensors, Location provenance) {
  SmallVector<Location> parts;
  for (const std::string &t : tensors)
    parts.push_back(tensorLoc(context, t, provenance));
  if (parts.size() == 1)
    return parts.front();
  // Built directly: FusedLoc::get would merge equal parts, and every result needs its own NameLoc.
  return FusedLoc::get(context, parts, Attribute());
}

Location addAlias(Location loc, unsigned result, unsigned numResults, StringRef alias, StringRef via) {
  SmallVector<NameLoc> names;
  collectNameLocs(loc, names);
  int at = nameLocIndex(names.size(), result, numResults);
  if (at < 0)
    return loc;
  MLIRContext *ctx = loc->getContext();
  size_t index = at;
  return replaceNameLoc(loc, index, [&](NameLoc name) -> Location {
    SmallVector<Location> provenance, aliases;
    splitChild(name.getChildLoc(), provenance, aliases);
    aliases.push_back(tensorLoc(ctx, alias, via));
    SmallVector<Location> parts(provenance);
    parts.push_back(FusedLoc::get(ctx, aliases, StringAttr::get(ctx, kAliasesMetadata)));
    Location child = parts.size() == 1 ? parts.front() : FusedLoc::get(ctx, parts, Attribute());
    return NameLoc::get(name.getName(), child);
  });
}

std::string locationName(Location loc) {
  SmallVector<NameLoc> found;
  collectNameLocs(loc, found);
  return found.empty() ? std::string() : found.back().getName().str();
}

NameLoc resultNameLoc(Location loc, unsigned result, unsigned numResults) {
  SmallVector<NameLoc> names;
  collectNameLocs(loc, names);
  int at = nameLocIndex(names.size(), result, numResults);
  return at < 0 ? NameLoc() : names[at];
}

std::string resultName(Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (!result)
    return "";
  Operation *op = result.getOwner();
  unsigned index = result.getResultNumber(), count = op->getNumResults();
  if (NameLoc name = resultNameLoc(op->getLoc(), index, count))
    return name.getName().str();
  if (index > 0)
    if (NameLoc first = resultNameLoc(op->getLoc(), 0, count))
      return first.getName().str() + "_" + std::to_string(index);
  if (auto weight = dyn_cast<WeightOp>(op))
    return weight.getName().str(); // weights are never dumped, but errors name them
  return "";
}

std::string sourceNode(Location loc, unsigned result, unsigned numResults) {
  NameLoc name = resultNameLoc(loc, result, numResults);
  if (!name)
    return "";
  SmallVector<Location> provenance, aliases;
  splitChild(name.getChildLoc(), provenance, aliases);
  return provenance.empty() ? std::string() : innermostName(provenance.front());
}

std::string legacyName(Location loc, unsigned result, unsigned numResults) {
  NameLoc name = resultNameLoc(loc, result, numResults);
  if (!name) {
    // Results after the first of an op named once: "<name>_<i>" then and now.
    NameLoc first = result > 0 ? resultNameLoc(loc, 0, numResults) : NameLoc();
    std::string base = first ? legacyName(loc, 0, numResults) : std::string();
    return base.empty() ? base : base + "_" + std::to_string(result);
  }
  SmallVector<Location> provenance, aliases;
  splitChild(name.getChildLoc(), provenance, aliases);
  auto old = provenance.empty() ? NameLoc() : dyn_cast<NameLoc>(provenance.front());
  if (!old)
    return "";
  // A multi-result op had one node name for all its results: "<node>", "<node>_1", ...
  if (result > 0 && numResults > 1)
    return old.getName().str() + "_" + std::to_string(result);
  return old.getName().str();
}

std::vector<std::string> aliasNames(Location loc, unsigned result, unsigned numResults) {
  std::vector<std::string> out;
  NameLoc name = resultNameLoc(loc, result, numResults);
  if (!name)
    return out;
  SmallVector<Location> provenance, aliases;
  splitChild(name.getChildLoc(), provenance, aliases);
  for (Location a : aliases)
    if (auto n = dyn_cast<NameLoc>(a))
      out.push_back(n.getName().str());
  return out;
}

std::vector<std::string> nameValues(func::FuncOp func, ArrayRef<Value> values) {
  return nameTensors(func, values).names;
}

TensorNaming nameTensors(func::FuncOp func, ArrayRef<Value> values) {
  TensorNaming naming;
  std::vector<std::string> &names = naming.names;
  names.resize(values.size());
  llvm::DenseMap<Value, size_t> index;
  for (auto [i, v] : llvm::enumerate(values))
    index[v] = i;
  llvm::StringMap<int> kindCount;
  llvm::StringSet<> used;
  auto unique = [&](std::string name) {
    std::string candidate = name;
    for (int suffix = 1; !used.insert(candidate).second; ++suffix)
      candidate = name + "_" + std::to_string(suffix);
    return candidate;
  };
  // Aliases are taken after every own name, so an alias never displaces a tensor's own name.
  std::vector<std::pair<size_t, std::string>> wanted;
  // Every op in program order, those inside the regions of top.if / top.loop (and their Tpu forms) right
  // after the op holding them: one set of names for the whole function.
  SmallVector<Operation *> ops;
  func.getBody().walk<WalkOrder::PreOrder>([&](Operation *nested) { ops.push_back(nested); });
  for (Operation *nested : ops) {
    Operation &op = *nested;
    if (op.getNumResults() == 0)
      continue;
    std::string generated;
    for (auto [i, result] : llvm::enumerate(op.getResults())) {
      std::string name = resultName(result);
      if (name.empty()) {
        if (generated.empty()) {
          auto input = dyn_cast<InputOp>(op);
          auto arg = input ? dyn_cast<BlockArgument>(input.getInput()) : BlockArgument();
          StringRef kind = op.getName().stripDialect();
          generated = arg ? "input_" + std::to_string(arg.getArgNumber())
                          : kind.str() + "_" + std::to_string(kindCount[kind]++);
        }
        name = i == 0 ? generated : generated + "_" + std::to_string(i);
      }
      auto it = index.find(result);
      if (it == index.end())
        continue;
      names[it->second] = unique(name);
      for (std::string &alias : aliasNames(op.getLoc(), i, op.getNumResults()))
        wanted.emplace_back(it->second, std::move(alias));
    }
  }
  for (BlockArgument arg : func.getArguments()) {
    std::string name;
    for (Operation *user : arg.getUsers())
      if (isa<InputOp>(user)) {
        if (auto it = index.find(user->getResult(0)); it != index.end())
          name = names[it->second];
        break;
      }
    if (name.empty())
      name = locationName(arg.getLoc());
    if (name.empty())
      name = "input_" + std::to_string(arg.getArgNumber());
    if (auto it = index.find(arg); it != index.end())
      names[it->second] = name;
  }
  Operation *terminator = func.getBody().front().getTerminator();
  for (auto [i, v] : llvm::enumerate(terminator->getOperands())) {
    auto it = index.find(v);
    std::string own = it == index.end() ? std::string() : names[it->second];
    auto attr = func.getResultAttrOfType<StringAttr>(i, kResultNameAttr);
    std::string name = attr && !attr.getValue().empty() ? attr.str() : own;
    naming.results.push_back(name);
    if (it != index.end() && name != own)
      wanted.emplace_back(it->second, name);
  }
  for (auto &[value, alias] : wanted)
    if (used.insert(alias).second)
      naming.aliases.emplace_back(value, std::move(alias));
  return naming;
}

TensorNaming nameTensors(func::FuncOp func) {
  std::vector<Value> values(func.getArguments().begin(), func.getArguments().end());
  for (Operation &op : func.getBody().front().without_terminator())
    values.insert(values.end(), op.getResults().begin(), op.getResults().end());
  return nameTensors(func, values);
}

llvm::StringMap<std::string> nameTranslations(ModuleOp module) {
  llvm::StringMap<std::string> map;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || !func.getBody().hasOneBlock())
      continue;
    std::vector<Value> values(func.getArguments().begin(), func.getArguments().end());
    func.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
      values.insert(values.end(), op->getResults().begin(), op->getResults().end());
    });
    TensorNaming naming = nameTensors(func, values);
    llvm::StringSet<> own;
    for (const std::string &n : naming.names)
      own.insert(n);
    for (auto &[value, alias] : naming.aliases)
      map.try_emplace(alias, naming.names[value]);
    for (auto [i, v] : llvm::enumerate(values)) {
      auto result = dyn_cast<OpResult>(v);
      if (!result || isa<WeightOp>(result.getOwner()))
        continue;
      Operation *op = result.getOwner();
      std::string old = legacyName(op->getLoc(), result.getResultNumber(), op->getNumResults());
      if (!old.empty() && old != naming.names[i] && !own.contains(old))
        map.try_emplace(old, naming.names[i]);
    }
  }
  return map;
}

} // namespace tpuc::top
