//===- VerifyState.cpp - Contract checks at stage boundaries --------------===//
// The IR a stage receives must be legal for it: right state, right dialects, right annotations.
//===----------------------------------------------------------------------===//
#include "tpuc/Dialect/Top/ModuleState.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Tpu/TpuOps.h"
#include "tpuc/Transforms/BackendPlan.h"
#include "tpuc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"

namespace tpuc {
#define GEN_PASS_DEF_TOPVERIFYSTATE
#include "tpuc/Transforms/Passes.h.inc"
} // namespace tpuc

using namespace mlir;
using namespace tpuc::top;

namespace {
struct TopVerifyStatePass : tpuc::impl::TopVerifyStateBase<TopVerifyStatePass> {
  using TopVerifyStateBase::TopVerifyStateBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto expected = symbolizeModuleState(state);
    if (!expected) {
      module.emitError() << "top-verify-state: unknown state '" << state
                         << "' (expected TOP_F32, TOP_CALIBRATED, TPU_LOWERED, TPU_GROUPED or TPU_ADDRESSED)";
      return signalPassFailure();
    }
    auto actual = getModuleState(module);
    if (!actual) {
      module.emitError() << "module has no '" << TopDialect::kStateAttr << "' attribute; this stage expects "
                         << stringifyModuleState(*expected);
      return signalPassFailure();
    }
    if (*actual != *expected) {
      module.emitError() << "module is in state " << stringifyModuleState(*actual)
                         << "; this stage expects " << stringifyModuleState(*expected);
      return signalPassFailure();
    }
    bool isTop = *expected == ModuleState::TOP_F32 || *expected == ModuleState::TOP_CALIBRATED;
    if (!isTop && getModuleChip(module).empty()) {
      module.emitError() << "state " << stringifyModuleState(*expected) << " needs the module attribute '"
                         << TopDialect::kChipAttr << "'";
      return signalPassFailure();
    }
    WalkResult result = module.walk([&](Operation *op) -> WalkResult {
      if (isa<ModuleOp, func::FuncOp, func::ReturnOp>(op))
        return WalkResult::advance();
      bool legal = isTop ? isa<TopDialect>(op->getDialect())
                         : isa<tpuc::tpu::TpuDialect>(op->getDialect()) || isa<InputOp, WeightOp, NoneOp>(op);
      if (!legal) {
        op->emitOpError() << "is not legal in state " << stringifyModuleState(*expected);
        return WalkResult::interrupt();
      }
      for (Value result : op->getResults())
        if (auto type = dyn_cast<TensorType>(result.getType()); type && !type.hasStaticShape()) {
          op->emitOpError() << "result has no static shape (" << type << "); run top-shape-infer first";
          return WalkResult::interrupt();
        }
      if (*expected == ModuleState::TOP_CALIBRATED && !isa<WeightOp, NoneOp>(op)) {
        for (Value result : op->getResults()) {
          auto type = dyn_cast<ShapedType>(result.getType());
          if (type && !isa<quant::CalibratedQuantizedType>(type.getElementType())) {
            op->emitOpError() << "result has no calibration range (" << type.getElementType()
                              << " instead of !quant.calibrated) in state TOP_CALIBRATED";
            return WalkResult::interrupt();
          }
        }
      }
      // A region's terminator plans nothing of its own (the markers of its op copy what it yields).
      if (isa<tpuc::tpu::YieldOp>(op))
        return WalkResult::advance();
      auto group = op->getAttrOfType<tpuc::tpu::GroupAttr>(tpuc::backend_attr::kGroup);
      if (*expected == ModuleState::TPU_GROUPED && isa<tpuc::tpu::TpuDialect>(op->getDialect()) && !group) {
        op->emitOpError() << "has no 'tpu.group' in state " << stringifyModuleState(*expected);
        return WalkResult::interrupt();
      }
      // Results that stay in a layer group's local memory have no DDR address.
      bool lmemOnly = group && group.getLmemOnly();
      if (*expected == ModuleState::TPU_ADDRESSED && isa<tpuc::tpu::TpuDialect>(op->getDialect()) &&
          !op->hasAttr("address") && !lmemOnly) {
        op->emitOpError() << "has no 'address' in state TPU_ADDRESSED";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
