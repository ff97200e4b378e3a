//===- FusePreprocess.cpp - model_deploy's --fuse_preprocess --------------===//
//
// The host's crop, channel reorder and normalization become Top ops after the input (FusePreprocess.h).
//
//===----------------------------------------------------------------------===//
#include "tpuc/Transforms/FusePreprocess.h"

#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

namespace tpuc {
#define GEN_PASS_DEF_TOPFUSEPREPROCESS
#include "tpuc/Transforms/Passes.h.inc"

using namespace mlir;

namespace {

llvm::Error makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// A customization format: channel order and whether pixels are interleaved (HWC).
struct Layout {
  top::PixelFormat order;
  bool packed;
};

std::optional<Layout> parseFormat(StringRef name) {
  std::string upper = name.upper();
  if (upper == "RGB_PLANAR")
    return Layout{top::PixelFormat::rgb, false};
  if (upper == "RGB_PACKED")
    return Layout{top::PixelFormat::rgb, true};
  if (upper == "BGR_PLANAR")
    return Layout{top::PixelFormat::bgr, false};
  if (upper == "BGR_PACKED")
    return Layout{top::PixelFormat::bgr, true};
  if (upper == "GRAYSCALE")
    return Layout{top::PixelFormat::gray, false};
  return std::nullopt;
}

std::string formatName(Layout l) {
  if (l.order == top::PixelFormat::gray)
    return "GRAYSCALE";
  return std::string(l.order == top::PixelFormat::rgb ? "RGB" : "BGR") + (l.packed ? "_PACKED" : "_PLANAR");
}

int channelsOf(top::PixelFormat order) { return order == top::PixelFormat::gray ? 1 : 3; }

/// The input's name: its location (an importer's NameLoc), else input_<i>.
std::string inputName(top::InputOp input, unsigned argNumber) {
  Location loc = input->getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc); fused && !fused.getLocations().empty())
    loc = fused.getLocations().front();
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  return "input_" + std::to_string(argNumber);
}

/// The value of channel c of a mean/scale list (one value for all, or one per channel; none: `fallback`).
double channelValue(std::optional<ArrayRef<double>> values, int64_t c, double fallback) {
  if (!values || values->empty())
    return fallback;
  return values->size() == 1 ? (*values)[0] : (*values)[std::min<int64_t>(c, values->size() - 1)];
}

} // namespace

const std::vector<std::string> &customizationFormats() {
  static const std::vector<std::string> formats = {"RGB_PLANAR", "RGB_PACKED", "BGR_PLANAR", "BGR_PACKED",
                                                   "GRAYSCALE"};
  return formats;
}

llvm::Expected<std::vector<FusedInput>> fusePreprocess(ModuleOp module, const std::string &format) {
  std::optional<Layout> requested;
  if (!format.empty() && !(requested = parseFormat(format)))
    return makeError("customization format '" + format + "' is not one of " +
                     llvm::join(customizationFormats(), ", ") +
                     " (the YUV formats are CV18xx VPSS inputs, not supported on these chips)");
  func::FuncOp func = module.lookupSymbol<func::FuncOp>("main");
  if (!func) {
    auto funcs = llvm::to_vector(module.getOps<func::FuncOp>());
    if (funcs.size() == 1)
      func = funcs.front();
  }
  if (!func || func.isExternal())
    return makeError("fuse_preprocess: the module has no entry function");
  Block &entry = func.getBody().front();
  std::vector<FusedInput> fused;
  for (top::InputOp input : llvm::to_vector(entry.getOps<top::InputOp>())) {
    auto arg = input->getNumOperands() == 1 ? dyn_cast<BlockArgument>(input.getInput()) : BlockArgument();
    if (!arg)
      continue;
    std::string name = inputName(input, arg.getArgNumber());
    auto type = cast<RankedTensorType>(input.getType());
    if (input.getCustomizationFormat())
      return makeError("fuse_preprocess: input '" + name + "' already takes raw pixels (" +
                       *input.getCustomizationFormat() + ")");
    if (type.getRank() != 4 || !type.hasStaticShape())
      continue; // not an image: left as it is (a second input of token ids, a mask, ...)
    bool nhwc = input.getChannelFormat() == top::ChannelFormat::nhwc;
    ArrayRef<int64_t> shape = type.getShape();
    int64_t n = shape[0], c = nhwc ? shape[3] : shape[1], h = nhwc ? shape[1] : shape[2],
            w = nhwc ? shape[2] : shape[3];
    top::PixelFormat modelOrder = input.getPixelFormat().value_or(top::PixelFormat::bgr);
    if (modelOrder == top::PixelFormat::rgba)
      return makeError("fuse_preprocess: input '" + name + "' is RGBA, which no customization format carries");
    if (c != channelsOf(modelOrder)) {
      if (requested)
        return makeError("fuse_preprocess: input '" + name + "' has " + Twine(c) + " channels, " + format +
                         " gives " + Twine(channelsOf(requested->order)));
      continue; // 4-D but not an image of its pixel format (a feature map input)
    }
    Layout raw = requested.value_or(Layout{modelOrder, nhwc});
    if (channelsOf(raw.order) != c)
      return makeError("fuse_preprocess: input '" + name + "' has " + Twine(c) + " channels, " +
                       formatName(raw) + " gives " + Twine(channelsOf(raw.order)));
    // The host resizes to resize_dims (a side smaller than the network's is raised to it, as the
    // preprocessing does); the crop to H, W moves onto the chip.
    int64_t rh = h, rw = w;
    if (auto dims = input.getResizeDims(); dims && dims->size() == 2) {
      rh = std::max(rh, (*dims)[0]);
      rw = std::max(rw, (*dims)[1]);
    }
    auto f32 = [&](ArrayRef<int64_t> s) { return RankedTensorType::get(s, Float32Type::get(module.getContext())); };
    SmallVector<int64_t> rawShape = raw.packed ? SmallVector<int64_t>{n, rh, rw, c} : SmallVector<int64_t>{n, c, rh, rw};
    // Mean and scale per network channel, in the network's order, before the input forgets them.
    std::vector<float> filter(c * c, 0.0f), bias(c);
    for (int64_t o = 0; o < c; ++o) {
      double mean = channelValue(input.getMean(), o, 0.0), scale = channelValue(input.getScale(), o, 1.0);
      int64_t src = (c == 3 && raw.order != modelOrder) ? 2 - o : o;
      filter[o * c + src] = static_cast<float>(scale);
      bias[o] = static_cast<float>(-mean * scale);
    }
    Value original = input.getOutput();
    SmallVector<OpOperand *> uses = llvm::map_to_vector(original.getUses(), [](OpOperand &u) { return &u; });

    OpBuilder b(module.getContext());
    b.setInsertionPointAfter(input);
    MLIRContext *ctx = module.getContext();
    UnitAttr mark = b.getUnitAttr();
    auto loc = [&](StringRef suffix) { return NameLoc::get(b.getStringAttr(name + "_" + suffix)); };
    arg.setType(f32(rawShape));
    original.setType(f32(rawShape));
    Value x = original;
    if (raw.packed) {
      auto permute = top::PermuteOp::create(b, loc("permute"), f32({n, c, rh, rw}), x,
                                            b.getDenseI64ArrayAttr({0, 3, 1, 2}));
      permute->setAttr("top.preprocess", mark);
      x = permute.getOutput();
    }
    if (rh != h || rw != w) {
      int64_t top = rh / 2 - h / 2, left = rw / 2 - w / 2;
      auto slice = top::SliceOp::create(b, loc("crop"), f32({n, c, h, w}), x, b.getDenseI64ArrayAttr({0, 0, top, left}),
                                        b.getDenseI64ArrayAttr({1, 1, 1, 1}),
                                        b.getDenseI64ArrayAttr({n, c, top + h, left + w}));
      slice->setAttr("top.preprocess", mark);
      x = slice.getOutput();
    }
    auto weight = top::createWeightF32(b, loc("preprocess_filter"), name + "_preprocess_filter", {c, c, 1, 1}, filter);
    auto biasWeight = top::createWeightF32(b, loc("preprocess_bias"), name + "_preprocess_bias", {c}, bias);
    if (failed(weight) || failed(biasWeight))
      return makeError("fuse_preprocess: input '" + name + "': cannot create the normalization weights");
    auto conv = top::ConvOp::create(b, loc("preprocess"), f32({n, c, h, w}), x, weight->getOutput(),
                                    biasWeight->getOutput(), b.getDenseI64ArrayAttr({1, 1}),
                                    b.getDenseI64ArrayAttr({1, 1}), b.getDenseI64ArrayAttr({0, 0, 0, 0}),
                                    b.getDenseI64ArrayAttr({1, 1}), b.getI64IntegerAttr(1), b.getBoolAttr(false),
                                    b.getF64FloatAttr(-1.0));
    conv->setAttr("top.preprocess", mark);
    Value result = conv.getOutput();
    if (nhwc) {
      // The network read NHWC: hand it its layout back.
      auto back = top::PermuteOp::create(b, loc("preprocess_nhwc"), f32({n, h, w, c}), result,
                                         b.getDenseI64ArrayAttr({0, 2, 3, 1}));
      back->setAttr("top.preprocess", mark);
      result = back.getOutput();
    }
    // The tensor equal to the input before fusion takes its calibration (Lowering reads the mark).
    result.getDefiningOp()->setAttr("top.preprocess_of", b.getStringAttr(name));
    for (OpOperand *use : uses)
      use->set(result);
    // The top.input now describes the raw pixels: their order and layout, the resize, no normalization.
    input->removeAttr("mean");
    input->removeAttr("scale");
    input.setPixelFormatAttr(top::PixelFormatAttr::get(ctx, raw.order));
    input.setChannelFormatAttr(top::ChannelFormatAttr::get(ctx, raw.packed ? top::ChannelFormat::nhwc
                                                                          : top::ChannelFormat::nchw));
    input.setResizeDimsAttr(b.getDenseI64ArrayAttr({rh, rw}));
    input.setCustomizationFormatAttr(b.getStringAttr(formatName(raw)));
    fused.push_back({name, name + (nhwc ? "_preprocess_nhwc" : "_preprocess"), formatName(raw)});
  }
  if (fused.empty())
    return makeError("fuse_preprocess: no image input (a 4-D input with 1 or 3 channels of its pixel format)");
  func.setType(FunctionType::get(module.getContext(), entry.getArgumentTypes(), func.getResultTypes()));
  return fused;
}

namespace {
struct TopFusePreprocessPass : impl::TopFusePreprocessBase<TopFusePreprocessPass> {
  using TopFusePreprocessBase::TopFusePreprocessBase;
  void runOnOperation() override {
    if (auto result = fusePreprocess(getOperation(), customizationFormat); !result) {
      getOperation().emitError() << llvm::toString(result.takeError());
      signalPassFailure();
    }
  }
};
} // namespace

} // namespace tpuc
