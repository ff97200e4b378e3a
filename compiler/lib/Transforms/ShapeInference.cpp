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

  LogicalResult inferFunction(func::FuncOp func) {
    // Seed with every op in program order; revisit the users of any result whose type changed.
    llvm::SetVector<Operation *> worklist;
    func.walk([&](tpuc::top::ShapeInterface op) { worklist.insert(op); });
    while (!worklist.empty()) {
      Operation *op = worklist.front();
      worklist.remove(op);
      auto changed = cast<tpuc::top::ShapeInterface>(op).inferShapes();
      if (failed(changed))
        return failure();
      if (*changed)
        for (Operation *user : op->getUsers())
          if (isa<tpuc::top::ShapeInterface>(user))
            worklist.insert(user);
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
