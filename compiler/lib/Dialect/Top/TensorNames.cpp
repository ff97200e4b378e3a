//===- TensorNames.cpp - Tensor names of a Top / Tpu function -------------===//
// NameLoc / FusedLoc names as TPU-MLIR writes them, "<mnemonic>_<k>" otherwise, made unique.
//===----------------------------------------------------------------------===//
#include "tpuc/Dialect/Top/TensorNames.h"

#include "tpuc/Dialect/Top/TopOps.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace tpuc::top {
namespace {

/// Appends the names of `loc` in order (a FusedLoc contributes those of its parts).
void collectNames(Location loc, SmallVectorImpl<std::string> &out) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    out.push_back(name.getName().str());
  } else if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location part : fused.getLocations())
      collectNames(part, out);
  } else if (auto callSite = dyn_cast<CallSiteLoc>(loc)) {
    collectNames(callSite.getCallee(), out);
  }
}

} // namespace

std::string locationName(Location loc) {
  SmallVector<std::string> found;
  collectNames(loc, found);
  return found.empty() ? std::string() : found.back();
}

std::vector<std::string> nameValues(func::FuncOp func, ArrayRef<Value> values) {
  std::vector<std::string> names(values.size());
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
  for (Operation &op : func.getBody().front().without_terminator()) {
    if (op.getNumResults() == 0)
      continue;
    SmallVector<std::string> locNames;
    collectNames(op.getLoc(), locNames);
    std::string base = locNames.empty() ? std::string() : locNames.back();
    if (auto weight = dyn_cast<WeightOp>(op); weight && base.empty())
      base = weight.getName().str(); // weights are never dumped, but errors name them
    if (base.empty()) {
      auto input = dyn_cast<InputOp>(op);
      auto arg = input ? dyn_cast<BlockArgument>(input.getInput()) : BlockArgument();
      StringRef kind = op.getName().stripDialect();
      base = arg ? "input_" + std::to_string(arg.getArgNumber())
                 : kind.str() + "_" + std::to_string(kindCount[kind]++);
    }
    bool perResult = op.getNumResults() > 1 && locNames.size() == op.getNumResults();
    for (auto [i, result] : llvm::enumerate(op.getResults())) {
      std::string name = perResult ? locNames[i] : i == 0 ? base : base + "_" + std::to_string(i);
      names[index.lookup(result)] = unique(name);
    }
  }
  for (BlockArgument arg : func.getArguments()) {
    std::string name;
    for (Operation *user : arg.getUsers())
      if (isa<InputOp>(user)) {
        name = names[index.lookup(user->getResult(0))];
        break;
      }
    if (name.empty())
      name = locationName(arg.getLoc());
    if (name.empty())
      name = "input_" + std::to_string(arg.getArgNumber());
    names[arg.getArgNumber()] = name;
  }
  return names;
}

} // namespace tpuc::top
