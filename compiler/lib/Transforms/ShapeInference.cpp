//===- ShapeInference.cpp - Generic worklist shape inference --------------===//
// One pass for every op: ShapeInterface says how, this pass says when (Toy's ShapeInferencePass).
//===----------------------------------------------------------------------===//
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"

namespace tpuc {
#define GEN_PASS_DEF_TOPSHAPEINFER
#include "tpuc/Transforms/Passes.h.inc"
} // namespace tpuc

using namespace mlir;

namespace {
struct TopShapeInferPass : tpuc::impl::TopShapeInferBase<TopShapeInferPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (failed(inferFunction(func)))
        return signalPassFailure();
  }

  /// A region op whose operands changed: its block arguments follow them first, and the ops reading
  /// those are revisited before the op itself.
  static void enterRegions(tpuc::top::ShapeInterface op, llvm::SetVector<Operation *> &worklist) {
    if (!op.inferRegionArguments())
      return;
    for (Region &region : op->getRegions())
      for (BlockArgument arg : region.getArguments())
        for (Operation *user : arg.getUsers())
          if (isa<tpuc::top::ShapeInterface>(user))
            worklist.insert(user);
  }

  LogicalResult inferFunction(func::FuncOp func) {
    // Seed with every op in program order (the ops inside a region before the region op, whose shapes
    // come from its yields); revisit the users of any value whose type changed.
    llvm::SetVector<Operation *> worklist;
    auto revisitUsers = [&](Value value) {
      for (Operation *user : value.getUsers()) {
        if (auto shaped = dyn_cast<tpuc::top::ShapeInterface>(user))
          enterRegions(shaped, worklist);
        else if (user->hasTrait<OpTrait::IsTerminator>() &&
                 isa_and_present<tpuc::top::ShapeInterface>(user->getParentOp()))
          user = user->getParentOp(); // a yield: the region op's results follow it
        else
          continue;
        worklist.insert(user);
      }
    };
    func.walk<WalkOrder::PreOrder>([&](tpuc::top::ShapeInterface op) { (void)op.inferRegionArguments(); });
    func.walk([&](tpuc::top::ShapeInterface op) { worklist.insert(op); });
    while (!worklist.empty()) {
      Operation *op = worklist.front();
      worklist.remove(op);
      auto changed = cast<tpuc::top::ShapeInterface>(op).inferShapes();
      if (failed(changed))
        return failure();
      if (*changed)
        for (Value result : op->getResults())
          revisitUsers(result);
    }
    // Function signatures follow the values they return.
    for (auto ret : llvm::make_early_inc_range(func.getOps<func::ReturnOp>())) {
      auto type = FunctionType::get(func.getContext(), func.getArgumentTypes(), ret.getOperandTypes());
      func.setFunctionType(type);
    }
    return success();
  }
};
} // namespace
