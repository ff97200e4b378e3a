//===- LoweringTest.cpp - Top->Tpu lowering of real models in every mode ---===//
//
// resnet18 and mobilenet_v2 are imported (the `tpuc transform` path), calibrated on their reference
// input with the `max` method over a reference-interpreter dump, and lowered with lowerToTpu in every
// mode: F32, F16, BF16, INT8 symmetric and asymmetric, W8F16, W8BF16, W4F16, W4BF16 (group 64).
// Each lowered module must verify, contain no Top compute op, keep every Top tensor name, carry the
// INT8 requant parameters the calibration implies, and save its new weights. Plus the shared-shift
// multipliers of TpucQuant that INT8 add/sub use.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Conversion/TopToTpu.h"
#include "tpuc/Dialect/Top/ModuleState.h"
#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/Dialect/Tpu/TpuOps.h"
#include "tpuc/Import/OnnxImporter.h"
#include "tpuc/Quant/Arith.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Support/Npz.h"
#include "tpuc/Testing/TestAssets.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

using namespace tpuc;

namespace {

/// Imported Top module, its calibration table and its tensor names.
struct Imported {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  quant::CalibrationTable table;
  std::set<std::string> names;
};

std::unique_ptr<Imported> importAndCalibrate(const std::string &name, const testsupport::TempDir &dir) {
  std::string models = testsupport::assetsDir() + "/models/";
  std::string onnx = models + name + ".onnx", refPath = models + name + "_ref.npz";
  if (!llvm::sys::fs::exists(onnx) || !llvm::sys::fs::exists(refPath)) {
    ADD_FAILURE() << "missing " << onnx << " or its _ref.npz: " << testsupport::kFetchHint;
    return nullptr;
  }
  auto imported = std::make_unique<Imported>();
  TransformOptions options;
  options.modelName = name;
  options.modelDef = onnx;
  options.weightOut = dir.file(name + "_top_weights.npz");
  std::string error;
  auto module = importOnnx(imported->context, options);
  if (!module) {
    error = llvm::toString(module.takeError());
    ADD_FAILURE() << error;
    return nullptr;
  }
  imported->module = std::move(*module);
  sim::Interpreter interpreter(*imported->module);
  NpzFile ref = NpzFile::read(refPath);
  llvm::Error err = interpreter.setInput(0, ref.get("input"));
  if (!err)
    err = interpreter.run(sim::RunOptions{.dumpAll = true, .numThreads = 2});
  if (err) {
    ADD_FAILURE() << llvm::toString(std::move(err));
    return nullptr;
  }
  const NpzFile &tensors = interpreter.tensors();
  for (const std::string &tensor : tensors.names()) {
    std::vector<double> values = tensors.get(tensor).toDoubles();
    double lo = 0, hi = 0;
    for (double v : values)
      lo = std::min(lo, v), hi = std::max(hi, v);
    imported->table.set({tensor, std::max(-lo, hi), lo, hi});
    imported->names.insert(tensor);
  }
  return imported;
}

/// Tensor names of every op of a module (the reference interpreter's naming).
std::set<std::string> locationNames(mlir::ModuleOp module) {
  std::set<std::string> names;
  module.walk([&](mlir::Operation *op) { names.insert(sim::locationName(op->getLoc())); });
  return names;
}

/// The precision float ops run in for a mode.
top::Precision floatPrecisionOf(top::Precision mode) {
  switch (mode) {
  case top::Precision::F16:
  case top::Precision::W8F16:
  case top::Precision::W4F16:
    return top::Precision::F16;
  case top::Precision::BF16:
  case top::Precision::W8BF16:
  case top::Precision::W4BF16:
    return top::Precision::BF16;
  default:
    return top::Precision::F32;
  }
}

bool isWeightOnlyMode(top::Precision mode) {
  return mode == top::Precision::W8F16 || mode == top::Precision::W8BF16 || mode == top::Precision::W4F16 ||
         mode == top::Precision::W4BF16;
}

struct ModeCase {
  const char *label;
  top::Precision mode;
  bool asymmetric;
};

constexpr ModeCase kModes[] = {
    {"F32", top::Precision::F32, false},      {"F16", top::Precision::F16, false},
    {"BF16", top::Precision::BF16, false},    {"INT8", top::Precision::INT8, false},
    {"INT8-asym", top::Precision::INT8, true}, {"W8F16", top::Precision::W8F16, false},
    {"W8BF16", top::Precision::W8BF16, true}, {"W4F16", top::Precision::W4F16, false},
    {"W4BF16", top::Precision::W4BF16, true}};

class RealModelLowering : public ::testing::TestWithParam<const char *> {};

TEST_P(RealModelLowering, EveryModeLowersAndVerifies) {
  testsupport::TempDir dir("tpuc-lowering");
  auto imported = importAndCalibrate(GetParam(), dir);
  ASSERT_TRUE(imported);
  for (const ModeCase &mode : kModes) {
    SCOPED_TRACE(mode.label);
    mlir::OwningOpRef<mlir::ModuleOp> module = imported->module->clone();
    LoweringOptions options;
    options.chip = "bm1688";
    options.mode = mode.mode;
    options.asymmetric = mode.asymmetric;
    options.calibrationTable = imported->table;
    options.qGroupSize = 64;
    llvm::Error err = lowerToTpu(*module, options);
    ASSERT_FALSE(err) << llvm::toString(std::move(err));
    ASSERT_TRUE(mlir::succeeded(mlir::verify(*module)));
    EXPECT_EQ(top::getModuleState(*module), top::ModuleState::TPU_LOWERED);
    EXPECT_EQ(top::getModuleChip(*module), "bm1688");

    // Only Tpu ops compute; every tensor of the Top dump keeps its name.
    module->walk([&](mlir::Operation *op) {
      if (isa<top::TopDialect>(op->getDialect()))
        EXPECT_TRUE((isa<top::InputOp, top::WeightOp, top::NoneOp>(op))) << op->getName().getStringRef().str();
    });
    std::set<std::string> names = locationNames(*module);
    for (const std::string &name : imported->names)
      if (name != "input")
        EXPECT_TRUE(names.count(name)) << "tensor '" << name << "' lost its name";

    int convs = 0, a16 = 0, zeroPoints = 0;
    module->walk([&](tpu::Conv2DOp conv) {
      ++convs;
      if (mode.mode != top::Precision::INT8) {
        EXPECT_EQ(conv.getPrecision(), floatPrecisionOf(mode.mode));
        return;
      }
      // Each channel's multiplier / 2^rshift is s_in * s_w[c] / s_out with s_w[c] <= max|w| / 127:
      // positive and below s_in * 128 / s_out, one pair per output channel.
      auto in = mlir::cast<mlir::quant::UniformQuantizedType>(
          mlir::cast<mlir::ShapedType>(conv.getInput().getType()).getElementType());
      auto out = mlir::cast<mlir::quant::UniformQuantizedType>(
          mlir::cast<mlir::ShapedType>(conv.getOutput().getType()).getElementType());
      auto m = *conv.getMultiplier(), s = *conv.getRshift();
      ASSERT_EQ((int64_t)m.size(), top::getShape(conv.getOutput())[1]);
      for (size_t c = 0; c < m.size(); ++c) {
        double factor = std::ldexp((double)m[c], -(int)s[c]);
        EXPECT_GT(factor, 0.0);
        EXPECT_GE(m[c], int64_t(1) << 30) << "multiplier without full precision";
        EXPECT_LT(factor, in.getScale() * 128 / out.getScale() * 1e3);
      }
      if (!mode.asymmetric)
        EXPECT_EQ(out.getZeroPoint(), 0);
      else
        zeroPoints += out.getZeroPoint() != 0;
    });
    if (mode.mode == top::Precision::INT8 && mode.asymmetric)
      EXPECT_GT(zeroPoints, 0) << "asymmetric INT8 without a zero point";
    module->walk([&](tpu::A16MatMulOp) { ++a16; });
    EXPECT_GT(convs, 10);
    EXPECT_EQ(a16, isWeightOnlyMode(mode.mode) ? 1 : 0) << "the classifier is the only weight matmul";

    // New weights go to the weight store and are written by saveWeights.
    std::string saved = dir.file(std::string(GetParam()) + "_" + mode.label + ".npz");
    ASSERT_TRUE(mlir::succeeded(top::saveWeights(*module, saved)));
    NpzFile npz = NpzFile::read(saved);
    bool hasInt8 = false;
    for (const std::string &name : npz.names())
      hasInt8 |= npz.get(name).dtype() == DType::I8;
    // INT8 filters, and symmetric W8 weights, are int8; asymmetric and 4-bit weights are uint8.
    bool w8sym = (mode.mode == top::Precision::W8F16 || mode.mode == top::Precision::W8BF16) && !mode.asymmetric;
    EXPECT_EQ(hasInt8, mode.mode == top::Precision::INT8 || w8sym);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, RealModelLowering, ::testing::Values("resnet18", "mobilenet_v2"));

TEST(SharedShift, HandWorkedCases) {
  // 0.75 = 0.75 * 2^0: rshift 31 (as chooseMultiplierShift(0.75)); 0.375 shares it: 0.375 * 2^31.
  double f[] = {0.75, 0.375};
  auto shared = quant::chooseSharedShift(f);
  ASSERT_TRUE(shared);
  EXPECT_EQ(shared->rshift, 31);
  EXPECT_EQ(shared->multipliers, (std::vector<int64_t>{1610612736, 805306368}));
  // The largest factor decides the shift; a negative factor keeps its sign.
  double g[] = {-0.1, 1.5};
  shared = quant::chooseSharedShift(g);
  ASSERT_TRUE(shared);
  EXPECT_EQ(shared->rshift, quant::chooseMultiplierShift(1.5)->rshift);
  EXPECT_EQ(shared->multipliers[1], quant::chooseMultiplierShift(1.5)->multiplier);
  EXPECT_EQ(shared->multipliers[0], -std::llround(0.1 * std::ldexp(1.0, (int)shared->rshift)));
  // All zero: zero multipliers; no pair for an infinite or too large factor.
  double z[] = {0.0, 0.0};
  EXPECT_EQ(quant::chooseSharedShift(z)->multipliers, (std::vector<int64_t>{0, 0}));
  double inf[] = {1.0, INFINITY};
  EXPECT_FALSE(quant::chooseSharedShift(inf));
  double big[] = {1.0, 4e9};
  EXPECT_FALSE(quant::chooseSharedShift(big));
}

TEST(SharedShift, SumMatchesExactRescaleWithinOneStep) {
  // y = round((x0 m0 + x1 m1) / 2^s) against the real x0 f0 + x1 f1 over the whole int8 square.
  double f[] = {0.6180339887, 0.2718281828};
  auto shared = quant::chooseSharedShift(f);
  ASSERT_TRUE(shared);
  for (int x0 = -128; x0 < 128; ++x0)
    for (int x1 = -128; x1 < 128; ++x1) {
      int64_t acc = x0 * shared->multipliers[0] + x1 * shared->multipliers[1];
      int64_t y = quant::roundingRightShift(acc, (int)shared->rshift, quant::RoundingMode::HalfUp);
      ASSERT_LE(std::fabs(y - (x0 * f[0] + x1 * f[1])), 0.5 + 1e-6) << x0 << " " << x1;
    }
}

} // namespace
