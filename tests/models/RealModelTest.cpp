//===- RealModelTest.cpp - Real models through import + reference interpreter ----===//
//
// The models issue 3 names, imported by the ONNX front end (the same path as `tpuc transform`) and run
// on the reference interpreter: the torchvision exports and the transformer/GPT models against their
// PyTorch outputs, the PaddleOCR models against ONNX Runtime on a real photo. Each must match to
// cos >= 0.99999 and max abs error <= 1e-4 * max|ref|. Assets come from scripts/fetch-assets.sh; a
// missing asset fails the test with that hint.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Import/OnnxImporter.h"
#include "tpuc/Preprocess/Preprocess.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Simulator/OnnxRuntime.h"
#include "tpuc/Testing/TestAssets.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

using namespace tpuc;

namespace {

/// Imports `onnx` with the given input shape and runs it on `input`; returns the first output.
Tensor importAndRun(const std::string &onnx, const std::vector<int64_t> &shape, const Tensor &input,
                    sim::RunStats &stats) {
  llvm::SmallString<128> dir;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("tpuc-model", dir));
  TransformOptions options;
  options.modelName = "model";
  options.modelDef = onnx;
  options.inputShapes = {shape};
  options.weightOut = (dir + "/weights.npz").str();
  mlir::MLIRContext context;
  std::string error;
  auto module = importOnnx(context, options);
  if (!module) {
    error = llvm::toString(module.takeError());
    ADD_FAILURE() << error;
    return Tensor();
  }
  sim::Interpreter interpreter(**module);
  llvm::Error err = interpreter.setInput(0, input);
  EXPECT_FALSE(err) << llvm::toString(std::move(err));
  err = interpreter.run(sim::RunOptions{.numThreads = 2});
  EXPECT_FALSE(err) << llvm::toString(std::move(err));
  llvm::sys::fs::remove_directories(dir);
  stats = interpreter.stats();
  return interpreter.outputs().get(interpreter.outputs().names().front());
}

void expectMatches(const std::string &name, const Tensor &got, const Tensor &want, const sim::RunStats &stats) {
  std::vector<double> g = got.toDoubles(), w = want.toDoubles();
  ASSERT_EQ(g.size(), w.size()) << name;
  double dot = 0, ng = 0, nw = 0, maxErr = 0, maxRef = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    dot += g[i] * w[i], ng += g[i] * g[i], nw += w[i] * w[i];
    maxErr = std::max(maxErr, std::fabs(g[i] - w[i]));
    maxRef = std::max(maxRef, std::fabs(w[i]));
  }
  double cosine = dot / std::sqrt(ng * nw);
  std::printf("%-22s cos %.9f  max abs err %.3g (max |ref| %.3g)  %.1f ms  peak activations %.1f MiB\n",
              name.c_str(), cosine, maxErr, maxRef, stats.seconds * 1e3, stats.peakLiveBytes / 1048576.0);
  EXPECT_GE(cosine, 0.99999) << name;
  EXPECT_LE(maxErr, 1e-4 * maxRef) << name << ": max |ref| " << maxRef;
}

class TorchModel : public ::testing::TestWithParam<const char *> {};

TEST_P(TorchModel, MatchesPyTorch) {
  std::string name = GetParam();
  std::string models = testsupport::assetsDir() + "/models/";
  std::string onnx = models + name + ".onnx", refPath = models + name + "_ref.npz";
  if (!llvm::sys::fs::exists(onnx) || !llvm::sys::fs::exists(refPath))
    GTEST_FAIL() << "missing " << onnx << " or its _ref.npz: " << testsupport::kFetchHint;
  NpzFile ref = NpzFile::read(refPath);
  const Tensor &input = ref.get("input");
  sim::RunStats stats;
  Tensor got = importAndRun(onnx, input.shape(), input, stats);
  expectMatches(name, got, ref.get("output"), stats);
}

INSTANTIATE_TEST_SUITE_P(Models, TorchModel,
                         ::testing::Values("resnet18", "mobilenet_v2", "squeezenet1_1", "transformer_encoder",
                                           "tiny_gpt"));

struct OcrCase {
  const char *name, *file, *image;
  std::vector<int64_t> shape;
};

class OcrModel : public ::testing::TestWithParam<OcrCase> {};

TEST_P(OcrModel, MatchesOnnxRuntimeOnAPhoto) {
  const OcrCase &c = GetParam();
  std::string onnx = testsupport::assetsDir() + "/models/" + c.file;
  std::string image = testsupport::assetsDir() + "/images/" + c.image;
  if (!llvm::sys::fs::exists(onnx) || !llvm::sys::fs::exists(image))
    GTEST_FAIL() << "missing " << onnx << " or " << image << ": " << testsupport::kFetchHint;
  std::string why;
  if (!sim::ort::available(why))
    GTEST_FAIL() << "ONNX Runtime is the reference for this model: " << why;
  // PaddleOCR's preprocessing: RGB, (x / 255 - 0.5) / 0.5.
  preprocess::PreprocessConfig config;
  config.inputName = "x";
  config.inputShape = c.shape;
  config.pixelFormat = preprocess::PixelFormat::RGB;
  config.mean = {127.5, 127.5, 127.5};
  config.scale = {1 / 127.5, 1 / 127.5, 1 / 127.5};
  Tensor input = preprocess::loadSample(image, config);
  NpzFile reference = sim::ort::run(onnx, {{"x", input}}, 2);
  sim::RunStats stats;
  Tensor got = importAndRun(onnx, c.shape, input, stats);
  expectMatches(c.name, got, reference.get(reference.names().front()), stats);
}

INSTANTIATE_TEST_SUITE_P(Models, OcrModel,
                         ::testing::Values(OcrCase{"ppocr_v4_det", "ch_PP-OCRv4_det_infer.onnx", "page.png",
                                                   {1, 3, 640, 640}},
                                           OcrCase{"ppocr_mobile_cls", "ch_ppocr_mobile_v2.0_cls_infer.onnx",
                                                   "page.png", {1, 3, 48, 192}}),
                         [](const auto &info) { return std::string(info.param.name); });

} // namespace
