//===- SaveWeights.cpp - Write the module's weights to .npz ---------------===//
//===----------------------------------------------------------------------===//
#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/Transforms/Passes.h"

namespace tpuc {
#define GEN_PASS_DEF_TOPSAVEWEIGHTS
#include "tpuc/Transforms/Passes.h.inc"
} // namespace tpuc

using namespace mlir;

namespace {
struct TopSaveWeightsPass : tpuc::impl::TopSaveWeightsBase<TopSaveWeightsPass> {
  using TopSaveWeightsBase::TopSaveWeightsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string path = file;
    if (path.empty()) {
      auto current = module->getAttrOfType<StringAttr>(tpuc::top::TopDialect::kWeightFileAttr);
      if (!current) {
        bool hasFileWeights = false;
        module.walk([&](tpuc::top::WeightOp op) { hasFileWeights |= !op.getValue(); });
        if (!hasFileWeights)
          return; // every weight is inline: nothing to write
        module.emitError() << "top-save-weights: no 'file' option and no module weight file";
        return signalPassFailure();
      }
      path = current.str();
    }
    if (failed(tpuc::top::saveWeights(module, path)))
      signalPassFailure();
  }
};
} // namespace
