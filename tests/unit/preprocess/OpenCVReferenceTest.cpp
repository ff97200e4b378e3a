//===- OpenCVReferenceTest.cpp - Decoding and resize against OpenCV on real photos ---===//
//
// The resize must equal cv2.resize(INTER_LINEAR) bit for bit on the same 8-bit pixels, at
// downscales, upscales, odd ratios, the 2x fast path and degenerate sizes. Decoding is compared
// with cv2.imread: exact for PNG, within stated bounds for JPEG (different IDCT / upsampling).
//
//===----------------------------------------------------------------------===//

#include "PreprocessTestUtil.h"

#include "tpuc/Support/Npz.h"

#include <cmath>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

using namespace tpuc;
using namespace tpuc::preprocess;
using namespace tpuc::preprocess::test;

namespace {

Tensor imageTensor(const Image &img) {
  return Tensor(DType::U8, {img.height, img.width, img.channels}, img.pixels);
}

struct DiffStats {
  int maxDiff = 0;
  double meanDiff = 0;
  int64_t count = 0;
};

DiffStats diff(const Image &ours, const Tensor &ref) {
  DiffStats s;
  auto r = ref.values<uint8_t>();
  if (static_cast<size_t>(r.size()) != ours.pixels.size()) {
    s.maxDiff = 1 << 20;
    return s;
  }
  double sum = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    int d = std::abs(int(r[i]) - int(ours.pixels[i]));
    s.maxDiff = std::max(s.maxDiff, d);
    sum += d;
  }
  s.count = static_cast<int64_t>(r.size());
  s.meanDiff = r.empty() ? 0 : sum / r.size();
  return s;
}

std::vector<std::pair<int, int>> sizesFor(int h, int w) {
  // Upscales are capped so the whole set stays quick; ratios stay non-integral.
  int uh = std::min(h * 2, 777), uw = std::min(w * 2, 901);
  return {{224, 224},     {640, 640},
          {97, 131},      {1, 1},
          {1, 57},        {33, 1},
          {3, 400},       {h / 2, w / 2},
          {uh, uw},       {h * 3 / 7, std::min(w * 5 / 3, 997)},
          {h + 1, w - 1}, {h, w},
          {h / 3, w / 4}, {std::min(h * 7 / 5, 991), w / 9}};
}

} // namespace

TEST(OpenCVReference, ResizeIsBitExactOnPhotos) {
  auto files = photos();
  ASSERT_FALSE(files.empty());
  // Every photo in BGR; every fifth also as gray and RGBA (1 and 4 channels).
  std::map<std::string, Image> sources;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string name = fs::path(files[i]).filename().string();
    sources[name + ":bgr"] = loadImage(files[i], PixelFormat::BGR);
    if (i % 5 == 0) {
      sources[name + ":gray"] = loadImage(files[i], PixelFormat::Gray);
      sources[name + ":rgba"] = loadImage(files[i], PixelFormat::RGBA);
    }
  }
  TempDir tmp;
  NpzFile srcs;
  nlohmann::json sizes;
  for (const auto &[key, img] : sources) {
    srcs.set(key, imageTensor(img));
    for (auto [h, w] : sizesFor(img.height, img.width))
      sizes[key].push_back({h, w});
  }
  srcs.write(tmp.file("src.npz"));
  std::ofstream(tmp.file("sizes.json")) << sizes.dump();
  ASSERT_TRUE(runReference({"resize", tmp.file("src.npz"), tmp.file("sizes.json"), tmp.file("out.npz")}));
  NpzFile ref = NpzFile::read(tmp.file("out.npz"));
  int compared = 0;
  for (const auto &[key, src] : sources) {
    for (auto [h, w] : sizesFor(src.height, src.width)) {
      std::string name = key + "@" + std::to_string(h) + "x" + std::to_string(w);
      Image ours = resizeLinear(src, h, w);
      const Tensor &expected = ref.get(name);
      ASSERT_EQ(expected.shape(), (std::vector<int64_t>{h, w, src.channels})) << name;
      DiffStats s = diff(ours, expected);
      EXPECT_EQ(s.maxDiff, 0) << name << " from " << src.height << "x" << src.width << ": mean |diff| "
                              << s.meanDiff;
      ++compared;
    }
  }
  EXPECT_GE(compared, 300);
}

TEST(OpenCVReference, DecodeMatchesImread) {
  auto files = photos();
  ASSERT_FALSE(files.empty());
  TempDir tmp;
  std::string out = tmp.file("decoded.npz");
  std::vector<std::string> args = {"decode", out};
  args.insert(args.end(), files.begin(), files.end());
  ASSERT_TRUE(runReference(args));
  NpzFile ref = NpzFile::read(out);
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string name = fs::path(files[i]).filename().string();
    bool lossless = !endsWith(name, ".jpg");
    for (auto [fmt, key] : {std::pair{PixelFormat::BGR, "bgr"}, std::pair{PixelFormat::Gray, "gray"},
                            std::pair{PixelFormat::RGBA, "rgba"}}) {
      Image ours = loadImage(files[i], fmt);
      const Tensor &expected = ref.get(std::to_string(i) + "_" + key);
      ASSERT_EQ(expected.shape()[0], ours.height) << name;
      ASSERT_EQ(expected.shape()[1], ours.width) << name;
      DiffStats s = diff(ours, expected);
      if (lossless) {
        EXPECT_EQ(s.maxDiff, 0) << name << " " << key;
      } else {
        // stb_image vs libjpeg-turbo: same pixels up to IDCT rounding and chroma upsampling.
        EXPECT_LE(s.meanDiff, 1.0) << name << " " << key << " max " << s.maxDiff;
        EXPECT_LE(s.maxDiff, 40) << name << " " << key << " mean " << s.meanDiff;
      }
    }
  }
}

TEST(OpenCVReference, ExifOrientationMatchesImread) {
  auto files = photos();
  std::string jpeg;
  for (const auto &f : files)
    if (endsWith(f, ".jpg") &&
        loadImage(f, PixelFormat::Gray).height != loadImage(f, PixelFormat::Gray).width) {
      jpeg = f;
      break;
    }
  ASSERT_FALSE(jpeg.empty());
  std::ifstream in(jpeg, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  TempDir tmp;
  std::vector<std::string> args = {"decode", tmp.file("exif.npz")};
  for (int o = 1; o <= 8; ++o) {
    // APP1 "Exif" with one IFD0 entry (0x0112 SHORT = o), big- and little-endian alternately.
    bool little = o % 2 == 0;
    auto be16 = [](int v) { return std::string{char(v >> 8), char(v & 0xFF)}; };
    auto le16 = [](int v) { return std::string{char(v & 0xFF), char(v >> 8)}; };
    auto u16 = [&](int v) { return little ? le16(v) : be16(v); };
    auto u32 = [&](int v) { return little ? le16(v) + le16(0) : be16(0) + be16(v); };
    std::string tiff = std::string(little ? "II" : "MM") + u16(42) + u32(8) + u16(1) + u16(0x0112) + u16(3) +
                       u32(1) + u16(o) + u16(0) + u32(0);
    std::string payload = std::string("Exif\0\0", 6) + tiff;
    std::string file =
        bytes.substr(0, 2) + "\xFF\xE1" + be16(int(payload.size()) + 2) + payload + bytes.substr(2);
    std::string path = tmp.file("o" + std::to_string(o) + ".jpg");
    std::ofstream(path, std::ios::binary) << file;
    args.push_back(path);
  }
  ASSERT_TRUE(runReference(args));
  NpzFile ref = NpzFile::read(tmp.file("exif.npz"));
  for (int o = 1; o <= 8; ++o) {
    std::string path = args[1 + o];
    for (auto [fmt, key] : {std::pair{PixelFormat::BGR, "bgr"}, std::pair{PixelFormat::Gray, "gray"}}) {
      Image ours = loadImage(path, fmt);
      const Tensor &expected = ref.get(std::to_string(o - 1) + "_" + key);
      ASSERT_EQ(expected.shape()[0], ours.height) << "orientation " << o;
      ASSERT_EQ(expected.shape()[1], ours.width) << "orientation " << o;
      DiffStats s = diff(ours, expected);
      EXPECT_LE(s.meanDiff, 1.0) << "orientation " << o << " " << key;
    }
  }
}
