//===- PipelineReferenceTest.cpp - Whole preprocessing against a numpy+cv2 TPU-MLIR re-implementation ---===//
//
// cv2_reference.py re-writes TPU-MLIR's python/utils/preprocess.py with numpy and cv2; for each
// attribute combination the float32 tensors must be identical on PNG photos (lossless decode) and
// agree within JPEG decoder differences on JPEG photos.
//
//===----------------------------------------------------------------------===//

#include "PreprocessTestUtil.h"

#include "tpuc/Support/Npz.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

using namespace tpuc;
using namespace tpuc::preprocess;
using namespace tpuc::preprocess::test;

namespace {

struct Case {
  std::string label;
  PreprocessConfig config;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  auto add = [&](std::string label, auto fill) {
    Case c{std::move(label), {}};
    fill(c.config);
    out.push_back(std::move(c));
  };
  add("imagenet rgb nchw resize 256 crop 224", [](PreprocessConfig &c) {
    c.inputShape = {1, 3, 224, 224};
    c.pixelFormat = PixelFormat::RGB;
    c.mean = {123.675, 116.28, 103.53};
    c.scale = {0.0171, 0.0175, 0.0174};
    c.resizeDims = {256, 256};
  });
  add("bgr nhwc letterbox center pad 114", [](PreprocessConfig &c) {
    c.inputShape = {1, 320, 320, 3};
    c.channelFormat = ChannelFormat::NHWC;
    c.keepAspectRatio = true;
    c.padValue = 114;
    c.scale = {1.0 / 255};
  });
  add("gray letterbox normal", [](PreprocessConfig &c) {
    c.inputShape = {1, 1, 48, 64};
    c.pixelFormat = PixelFormat::Gray;
    c.keepAspectRatio = true;
    c.padType = PadType::Normal;
    c.mean = {127.5, 127.5, 127.5};
    c.scale = {1 / 127.5};
  });
  add("ocr cls rgb batch 2", [](PreprocessConfig &c) {
    c.inputShape = {2, 3, 48, 192};
    c.pixelFormat = PixelFormat::RGB;
    c.mean = {127.5};
    c.scale = {0.0078125};
  });
  add("rgba crop both", [](PreprocessConfig &c) {
    c.inputShape = {1, 4, 100, 75};
    c.pixelFormat = PixelFormat::RGBA;
    c.resizeDims = {131, 90};
    c.mean = {1, 2, 3, 4};
    c.scale = {0.5, 0.25, 2, 1};
  });
  add("bgr letterbox then crop", [](PreprocessConfig &c) {
    c.inputShape = {1, 3, 640, 640};
    c.keepAspectRatio = true;
    c.resizeDims = {700, 661};
    c.padValue = 3;
  });
  add("rgb resize_dims below input", [](PreprocessConfig &c) {
    c.inputShape = {1, 3, 224, 224};
    c.pixelFormat = PixelFormat::RGB;
    c.resizeDims = {200, 301};
    c.mean = {10, 20, 30};
  });
  return out;
}

nlohmann::json toJson(const PreprocessConfig &c) {
  nlohmann::json j;
  j["input_shape"] = c.inputShape;
  j["pixel_format"] = std::string(pixelFormatName(c.pixelFormat));
  j["channel_format"] = std::string(channelFormatName(c.channelFormat));
  j["resize_dims"] = c.resizeDims;
  j["keep_aspect_ratio"] = c.keepAspectRatio;
  j["pad_value"] = c.padValue;
  j["pad_type"] = std::string(padTypeName(c.padType));
  j["mean"] = c.mean;
  j["scale"] = c.scale;
  return j;
}

} // namespace

TEST(PipelineReference, MatchesTpuMlirSemantics) {
  auto all = photos();
  ASSERT_FALSE(all.empty());
  // Two lossless and two JPEG photos per case, rotating through the set.
  std::vector<std::string> png, jpg;
  for (const auto &p : all)
    (endsWith(p, ".jpg") ? jpg : png).push_back(p);
  ASSERT_GE(png.size(), 2u);
  ASSERT_GE(jpg.size(), 2u);

  auto all_cases = cases();
  nlohmann::json jobs = nlohmann::json::array();
  struct Job {
    std::string key, image;
    size_t caseIndex;
    bool lossless;
  };
  std::vector<Job> list;
  for (size_t c = 0; c < all_cases.size(); ++c) {
    std::vector<std::pair<std::string, bool>> images = {{png[(2 * c) % png.size()], true},
                                                        {png[(2 * c + 1) % png.size()], true},
                                                        {jpg[(2 * c) % jpg.size()], false},
                                                        {jpg[(2 * c + 1) % jpg.size()], false}};
    for (size_t i = 0; i < images.size(); ++i) {
      Job job{"c" + std::to_string(c) + "_" + std::to_string(i), images[i].first, c, images[i].second};
      jobs.push_back({{"key", job.key}, {"image", job.image}, {"config", toJson(all_cases[c].config)}});
      list.push_back(job);
    }
  }
  TempDir tmp;
  std::string jobFile = tmp.file("jobs.json"), out = tmp.file("ref.npz");
  std::ofstream(jobFile) << jobs.dump();
  ASSERT_TRUE(runReference({"preprocess", jobFile, out}));
  NpzFile ref = NpzFile::read(out);

  for (const Job &job : list) {
    const Case &c = all_cases[job.caseIndex];
    std::string where = c.label + " on " + fs::path(job.image).filename().string();
    Tensor ours = loadSample(job.image, c.config);
    const Tensor &expected = ref.get(job.key);
    ASSERT_EQ(ours.shape(), expected.shape()) << where;
    ASSERT_EQ(ours.dtype(), DType::F32) << where;
    auto a = ours.values<float>();
    auto b = expected.values<float>();
    if (job.lossless) {
      size_t mismatches = 0, first = 0;
      for (size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i] && mismatches++ == 0)
          first = i;
      EXPECT_EQ(mismatches, 0u) << where << ": first at " << first << " ours " << a[first] << " ref "
                                << b[first];
    } else {
      // Compare in 8-bit pixel units: |diff| / |scale of the element's channel|.
      const auto &shape = c.config.inputShape;
      bool nchw = c.config.channelFormat == ChannelFormat::NCHW;
      int64_t channels = nchw ? shape[shape.size() - 3] : shape.back();
      int64_t plane = nchw ? shape[shape.size() - 2] * shape.back() : 1;
      double sum = 0, worst = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        size_t ch = (i / plane) % channels;
        const auto &sc = c.config.scale;
        double scale = sc.empty() ? 1.0 : std::abs(sc.size() == 1 ? sc[0] : sc[ch]);
        double d = std::abs(double(a[i]) - double(b[i])) / scale;
        sum += d;
        worst = std::max(worst, d);
      }
      EXPECT_LE(sum / a.size(), 1.0) << where << " (max " << worst << ")";
    }
  }
}
