//===- RealModelsTest.cpp - ONNX Runtime on the real asset models ---===//
//
// torchvision resnet18 / mobilenet_v2 / squeezenet1_1, a TransformerEncoder and a tiny GPT, exported
// by scripts/assets/torch-models.sh with PyTorch's own outputs in <name>_ref.npz: ORT must reproduce
// them (cos >= 0.99999, max error <= 1e-4 * max|ref|), with and without every tensor exposed. The
// PaddleOCR detector runs on real photos preprocessed by TpucPreprocess: it marks text on a page and
// nothing on a cat.
//
//===----------------------------------------------------------------------===//

#include "FrameworkTestUtil.h"

#include "tpuc/Preprocess/Preprocess.h"

#include <cstdio>

using namespace tpuc;
using namespace tpuc::sim::ort;
using namespace tpuc::sim::ort::test;

namespace {

std::string modelFile(const std::string &name) { return assetsDir() + "/models/" + name; }

class TorchModel : public ::testing::TestWithParam<const char *> {};

} // namespace

TEST_P(TorchModel, MatchesPyTorchReference) {
  TPUC_REQUIRE_ORT();
  const std::string name = GetParam();
  const std::string onnxPath = modelFile(name + ".onnx"), refPath = modelFile(name + "_ref.npz");
  ASSERT_TRUE(fs::exists(onnxPath) && fs::exists(refPath))
      << onnxPath << " or its _ref.npz missing: run scripts/fetch-assets.sh";
  NpzFile ref = NpzFile::read(refPath);
  auto session = Session::open(onnxPath, {.threads = 2});
  ASSERT_EQ(session->inputs().size(), 1u);
  std::map<std::string, Tensor> in = {{session->inputs()[0].name, ref.get("input")}};
  NpzFile out = session->run(in);
  ASSERT_EQ(out.size(), 1u);
  const Tensor &got = out.get(out.names().front());
  ASSERT_EQ(got.shape(), ref.get("output").shape());
  Similarity s = similarity(got, ref.get("output"));
  EXPECT_GE(s.cosine, 0.99999) << name;
  EXPECT_LE(s.maxAbsDiff, 1e-4 * s.maxAbsRef) << name;

  // Every tensor exposed: many more outputs, the final one unchanged.
  NpzFile all = run(onnxPath, in, 2, /*allTensors=*/true);
  std::printf("%s: cos %.9f, max |diff| %.3g (max |ref| %.3g); %zu tensors exposed\n", name.c_str(), s.cosine,
              s.maxAbsDiff, s.maxAbsRef, all.size());
  EXPECT_GT(all.size(), 10u) << name;
  ASSERT_TRUE(all.has(out.names().front())) << name;
  Similarity same = similarity(all.get(out.names().front()), got);
  EXPECT_GE(same.cosine, 0.999999) << name;
  EXPECT_LE(same.maxAbsDiff, 1e-5 * std::max(1.0, same.maxAbsRef)) << name;
}

INSTANTIATE_TEST_SUITE_P(Assets, TorchModel,
                         ::testing::Values("resnet18", "mobilenet_v2", "squeezenet1_1", "transformer_encoder",
                                           "tiny_gpt"));

TEST(OcrModel, DetectorMarksTextOnAPageAndNotOnACat) {
  TPUC_REQUIRE_ORT();
  const std::string det = modelFile("ch_PP-OCRv4_det_infer.onnx");
  ASSERT_TRUE(fs::exists(det)) << det << " missing: run scripts/fetch-assets.sh";
  auto session = Session::open(det, {.threads = 2});
  ASSERT_EQ(session->inputs().size(), 1u);
  preprocess::PreprocessConfig cfg;
  cfg.inputName = session->inputs()[0].name;
  cfg.inputShape = {1, 3, 640, 640};
  cfg.pixelFormat = preprocess::PixelFormat::RGB;
  cfg.mean = {123.675, 116.28, 103.53};
  cfg.scale = {1 / 58.395, 1 / 57.12, 1 / 57.375};
  cfg.keepAspectRatio = true;
  auto textFraction = [&](const std::string &image) {
    std::string path = assetsDir() + "/images/" + image;
    NpzFile out = session->run({{cfg.inputName, preprocess::loadSample(path, cfg)}});
    auto probs = out.get(out.names().front()).values<float>();
    size_t text = 0;
    for (float p : probs)
      text += p > 0.3f;
    return double(text) / probs.size();
  };
  double page = textFraction("page.png"), cat = textFraction("chelsea.png");
  std::printf("text pixels: page.png %.3f, chelsea.png %.3f\n", page, cat);
  EXPECT_GT(page, 0.04) << "page.png";
  EXPECT_LT(cat, 0.01) << "chelsea.png";
}
