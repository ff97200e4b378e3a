//===- BackendPasses.cpp - tpu-layer-group and tpu-address-assign ---------===//
// The MLIR side of the backend: plan with TpucBackend, record groups and DDR addresses on the IR.
//===----------------------------------------------------------------------===//
#include "tpuc/Backend/Artifacts.h"
#include "tpuc/Backend/Explain.h"
#include "tpuc/Backend/FromMlir.h"
#include "tpuc/Dialect/Top/ModuleState.h"
#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Tpu/TpuOps.h"
#include "tpuc/Transforms/BackendPlan.h"
#include "tpuc/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace tpuc {
#define GEN_PASS_DEF_TPULAYERGROUP
#define GEN_PASS_DEF_TPUADDRESSASSIGN
#include "tpuc/Transforms/Passes.h.inc"
} // namespace tpuc

using namespace mlir;
using namespace tpuc;
namespace be = tpuc::backend;

namespace {

/// Whether graph op `i` carries its IR op's attributes (group, address): every op, and of a control op's
/// markers the one with its results (IfJoin, LoopInit).
bool ownsAttrs(const be::Graph &g, size_t i) {
  be::Control c = g.ops[i].control;
  return c == be::Control::None || c == be::Control::IfJoin || c == be::Control::LoopInit;
}

LogicalResult expectState(ModuleOp module, top::ModuleState want, StringRef pass) {
  auto state = top::getModuleState(module);
  if (!state || *state != want) {
    module.emitError() << pass << ": expects the module in state " << top::stringifyModuleState(want)
                       << ", found " << (state ? top::stringifyModuleState(*state) : StringRef("none"));
    return failure();
  }
  return success();
}

LogicalResult writePlan(ModuleOp module, const std::string &path, const ModulePlan &plan,
                        const be::GmemPlan &gmem) {
  if (path.empty())
    return success();
  try {
    // The planner's reason for every cut goes with the plan (a few planGroup calls per boundary).
    be::writeBackendPlan(path, plan.chip, plan.graph, plan.groups, gmem,
                         be::explainCuts(plan.chip, plan.graph, plan.groups, plan.options));
  } catch (const std::exception &e) {
    module.emitError() << e.what();
    return failure();
  }
  return success();
}

tpu::GroupAttr groupAttr(MLIRContext *ctx, const ModulePlan &plan, int op) {
  int gi = plan.groups.groupOfOp[op];
  const be::LayerGroup &grp = plan.groups.groups[gi];
  int64_t unit = 0;
  for (size_t k = 0; k < grp.ops.size(); ++k)
    if (grp.ops[k] == op)
      unit = static_cast<int64_t>(k);
  bool lmemOnly = false;
  for (int v : plan.graph.ops[op].outputs)
    lmemOnly |= std::find(grp.values.intermediates.begin(), grp.values.intermediates.end(), v) !=
                grp.values.intermediates.end();
  if (grp.global)
    return tpu::GroupAttr::get(ctx, gi, tpu::GroupKind::global, nullptr, 0, false);
  auto slices = DenseI64ArrayAttr::get(ctx, {grp.spec.n, grp.spec.c, grp.spec.h, grp.spec.w});
  return tpu::GroupAttr::get(ctx, gi, tpu::GroupKind::group, slices, unit, lmemOnly);
}

struct TpuLayerGroupPass : tpuc::impl::TpuLayerGroupBase<TpuLayerGroupPass> {
  using TpuLayerGroupBase::TpuLayerGroupBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(expectState(module, top::ModuleState::TPU_LOWERED, "tpu-layer-group")))
      return signalPassFailure();
    if (opt < 0 || opt > 2) {
      module.emitError() << "tpu-layer-group: opt must be 0, 1 or 2, got " << static_cast<int64_t>(opt);
      return signalPassFailure();
    }
    auto mp = planModule(module, chip, opt, numCore);
    if (failed(mp))
      return signalPassFailure();
    MLIRContext *ctx = module.getContext();
    Builder b(ctx);
    for (size_t i = 0; i < mp->opOf.size(); ++i)
      if (ownsAttrs(mp->graph, i))
        mp->opOf[i]->setAttr(backend_attr::kGroup, groupAttr(ctx, *mp, static_cast<int>(i)));
    module->setAttr(backend_attr::kOpt, b.getI64IntegerAttr(opt));
    module->setAttr(backend_attr::kNumCore, b.getI64IntegerAttr(numCore));
    module->setAttr(backend_attr::kGroups,
                    b.getI64IntegerAttr(static_cast<int64_t>(mp->groups.groups.size())));
    module->setAttr(backend_attr::kCycles, b.getI64IntegerAttr(mp->groups.totalCycles));
    top::setModuleState(module, top::ModuleState::TPU_GROUPED);
    if (!plan.empty()) {
      auto gmem = planModuleMemory(module, *mp);
      if (failed(gmem) || failed(writePlan(module, plan, *mp, *gmem)))
        return signalPassFailure();
    }
  }
};

struct TpuAddressAssignPass : tpuc::impl::TpuAddressAssignBase<TpuAddressAssignPass> {
  using TpuAddressAssignBase::TpuAddressAssignBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(expectState(module, top::ModuleState::TPU_GROUPED, "tpu-address-assign")))
      return signalPassFailure();
    auto optAttr = module->getAttrOfType<IntegerAttr>(backend_attr::kOpt);
    if (!optAttr) {
      module.emitError() << "tpu-address-assign: module has no '" << backend_attr::kOpt
                         << "'; run tpu-layer-group first";
      return signalPassFailure();
    }
    auto mp = planModule(module, chip, static_cast<int>(optAttr.getInt()), plannedCores(module));
    if (failed(mp) || failed(checkGroupAttrs(*mp)))
      return signalPassFailure();
    auto gmem = planModuleMemory(module, *mp);
    if (failed(gmem))
      return signalPassFailure();
    Builder b(module.getContext());
    std::map<int, int64_t> addr;
    for (const be::GmemBuffer &buf : gmem->buffers)
      addr[buf.value] = buf.address;
    for (const be::GmemWeight &w : gmem->weights)
      addr[w.value] = w.address;
    for (size_t i = 0; i < mp->opOf.size(); ++i) {
      if (!ownsAttrs(mp->graph, i))
        continue;
      Operation *op = mp->opOf[i];
      const auto &outs = mp->graph.ops[i].outputs;
      SmallVector<int64_t> addrs;
      for (int v : outs)
        addrs.push_back(addr.count(v) ? addr[v] : -1);
      bool isTpu = isa<tpuc::tpu::TpuDialect>(op->getDialect());
      if (!addrs.empty() && addrs[0] >= 0)
        op->setAttr(isTpu ? backend_attr::kAddress : backend_attr::kTopAddress,
                    b.getI64IntegerAttr(addrs[0]));
      if (addrs.size() > 1)
        op->setAttr(backend_attr::kAddresses, b.getDenseI64ArrayAttr(addrs));
    }
    // Weights and named inputs: graph values that are no op result.
    int weightIndex = 0, argIndex = 0;
    mp->func.walk([&](Operation *op) {
      std::optional<int> v;
      if (isa<top::WeightOp>(op)) {
        // graphFromFunc adds weights in walk order after the arguments.
        int seen = 0;
        for (size_t i = 0; i < mp->graph.values.size(); ++i)
          if (mp->graph.values[i].isWeight && seen++ == weightIndex) {
            v = static_cast<int>(i);
            break;
          }
        ++weightIndex;
      } else if (isa<top::InputOp>(op) && op->getNumOperands() == 1 &&
                 isa<BlockArgument>(op->getOperand(0))) {
        unsigned arg = cast<BlockArgument>(op->getOperand(0)).getArgNumber();
        if (arg < mp->graph.inputs.size())
          v = mp->graph.inputs[arg];
        ++argIndex;
      }
      if (v && addr.count(*v))
        op->setAttr(backend_attr::kTopAddress, b.getI64IntegerAttr(addr[*v]));
    });
    module->setAttr(backend_attr::kCoeffBytes, b.getI64IntegerAttr(gmem->coeffBytes));
    module->setAttr(backend_attr::kActivationBase, b.getI64IntegerAttr(gmem->activationBase));
    module->setAttr(backend_attr::kActivationBytes, b.getI64IntegerAttr(gmem->activationPeak));
    module->setAttr(backend_attr::kActivationLowerBound, b.getI64IntegerAttr(gmem->lowerBound));
    top::setModuleState(module, top::ModuleState::TPU_ADDRESSED);
    if (failed(writePlan(module, plan, *mp, *gmem)))
      return signalPassFailure();
  }
};

} // namespace

namespace tpuc {

int plannedCores(ModuleOp module) {
  auto attr = module->getAttrOfType<IntegerAttr>(backend_attr::kNumCore);
  return attr ? static_cast<int>(attr.getInt()) : 1;
}

FailureOr<ModulePlan> planModule(ModuleOp module, StringRef chipName, int opt, int numCore) {
  ModulePlan mp;
  std::string name = chipName.empty() ? top::getModuleChip(module).str() : chipName.str();
  if (name.empty()) {
    module.emitError() << "backend: no chip (pass chip=... or set '" << top::TopDialect::kChipAttr << "')";
    return failure();
  }
  try {
    mp.chip = be::findChipProfile(name);
  } catch (const std::exception &e) {
    module.emitError() << e.what();
    return failure();
  }
  int funcs = 0;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isDeclaration()) {
      mp.func = f;
      ++funcs;
    }
  if (funcs != 1) {
    module.emitError() << "backend: expected one function with a body, found " << funcs;
    return failure();
  }
  auto g = be::graphFromFunc(mp.func, {}, &mp.opOf);
  if (failed(g))
    return failure();
  mp.graph = std::move(*g);
  if (mp.opOf.size() != mp.graph.ops.size()) {
    module.emitError() << "backend: graph has " << mp.graph.ops.size() << " ops but the function "
                       << mp.opOf.size();
    return failure();
  }
  if (numCore < 1 || numCore > mp.chip.cores) {
    module.emitError() << "backend: num_core " << numCore << " on chip " << mp.chip.name << ", which has "
                       << mp.chip.cores << (mp.chip.cores == 1 ? " core" : " cores");
    return failure();
  }
  mp.options.opt = opt;
  mp.options.cores = numCore;
  try {
    mp.groups = be::planLayerGroups(mp.chip, mp.graph, mp.options);
  } catch (const std::exception &e) {
    module.emitError() << "backend: layer groups: " << e.what();
    return failure();
  }
  if (auto problems = be::validatePlan(mp.chip, mp.graph, mp.groups); !problems.empty()) {
    module.emitError() << "backend: invalid layer-group plan: " << problems.front();
    return failure();
  }
  return mp;
}

LogicalResult checkGroupAttrs(const ModulePlan &plan) {
  for (size_t i = 0; i < plan.opOf.size(); ++i) {
    if (!ownsAttrs(plan.graph, i))
      continue;
    Operation *op = plan.opOf[i];
    auto group = op->getAttrOfType<tpu::GroupAttr>(backend_attr::kGroup);
    if (!group) {
      op->emitOpError() << "has no '" << backend_attr::kGroup << "' attribute; run tpu-layer-group first";
      return failure();
    }
    if (group.getId() != plan.groups.groupOfOp[i]) {
      op->emitOpError() << "is in group " << group.getId() << " but a fresh plan puts it in group "
                        << plan.groups.groupOfOp[i] << "; re-run tpu-layer-group after editing the IR";
      return failure();
    }
  }
  return success();
}

FailureOr<be::GmemPlan> planModuleMemory(ModuleOp module, const ModulePlan &plan) {
  try {
    be::GmemPlan gmem = be::planGlobalMemory(plan.chip, plan.graph, plan.groups);
    if (auto problems = be::validateGmem(plan.chip, plan.graph, gmem); !problems.empty()) {
      module.emitError() << "backend: invalid DDR plan: " << problems.front();
      return failure();
    }
    return gmem;
  } catch (const std::exception &e) {
    module.emitError() << "backend: " << e.what();
    return failure();
  }
}

} // namespace tpuc
